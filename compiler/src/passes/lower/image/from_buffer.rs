//! 2D images made from buffers (cl_khr_image2d_from_buffer,
//! `DeviceCaps::image2d_from_buffer`). Such an image has no VkImage: it is
//! its buffer's memory, seen through a texel-buffer view (as a 1D image
//! buffer is), texel (x, y) at `y * row_pitch + x`. Since a kernel does
//! not know which kind of 2D image it gets, every `image2d_t` argument
//! (`ImageArg::from_buffer`) has a second binding, a uniform (read_only) or
//! storage texel buffer at `abi::IMAGE_BUFFER_BINDING_BASE + position`,
//! and each access branches on bit `position` of the specialization
//! constant `abi::IMAGE_FROM_BUFFER_SPEC_ID`: the runtime sets it for the
//! launches that bind a buffer-backed image, so the driver folds the
//! branch away and an ordinary image pays nothing. The binding the launch
//! does not use holds a placeholder the shader never touches.
//!
//! * Reads and writes go through a helper function per argument
//!   (`image_read_N`, `image_write_N`) with the branch (the instruction
//!   walk keeps one block per input block): the image path's OpImageFetch
//!   / OpImageRead / OpImageWrite at the 2D coordinate, or the texel
//!   buffer's at the linear one.
//! * Texel buffers have no component mapping: a read_only image's texel
//!   from the buffer is permuted by the channel order at the call
//!   (`storage_swizzle`'s tables), as storage images always are.
//! * Size queries (and the sampler emulation's size) take the width and
//!   height from implicit fields when the image is made from a buffer
//!   (`ImplicitField::ImageBufferWidth` / `ImageBufferHeight`); the row
//!   pitch is `ImplicitField::ImageRowPitch`.
//!
//! Gaps: arguments at positions from `abi::IMAGE_FROM_BUFFER_MAX_ARGS` on
//! get no texel-buffer binding (the runtime refuses a buffer-backed image
//! there).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Capability, Decoration, Dim, Op, SelectionControl, StorageClass, Word};

use super::{LowerImages, Texel};
use crate::abi::{AccessQualifier, ImageDescriptor, ImplicitField, IMAGE_FROM_BUFFER_SPEC_ID};
use crate::passes::lower::emit::{ids, Block};
use crate::passes::lower::helper_fn::HelperFn;

impl LowerImages<'_, '_> {
    /// Whether image argument `arg` may be made from a buffer.
    pub(crate) fn may_be_from_buffer(&self, arg: u32) -> bool {
        self.images.args[&arg].from_buffer
    }

    /// The texel-buffer OpTypeImage of `from_buffer` argument `arg`.
    fn buffer_vk_type(&mut self, arg: u32) -> Word {
        let a = &self.images.args[&arg];
        let (texel, storage) = (
            a.texel(),
            a.buffer_descriptor() == ImageDescriptor::StorageTexel,
        );
        self.add_cap(if storage {
            Capability::ImageBuffer
        } else {
            Capability::SampledBuffer
        });
        let st = self.texel_scalar(texel);
        self.out.cached(
            Op::TypeImage,
            None,
            vec![
                Operand::IdRef(st),
                Operand::Dim(Dim::DimBuffer),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(if storage { 2 } else { 1 }),
                Operand::ImageFormat(spirv::ImageFormat::Unknown),
            ],
        )
    }

    /// Loads the texel-buffer variable of `from_buffer` argument `arg`.
    fn load_buffer_image(&mut self, b: &mut Block, arg: u32) -> Word {
        let ty = self.buffer_vk_type(arg);
        let var = match self.images.args[&arg].buffer_var {
            Some(v) => v,
            None => {
                let pt = self.out.t_ptr(StorageClass::UniformConstant, ty);
                let v = self.out.id();
                self.out.globals.push(Instruction::new(
                    Op::Variable,
                    Some(pt),
                    Some(v),
                    vec![Operand::StorageClass(StorageClass::UniformConstant)],
                ));
                let a = self.images.args.get_mut(&arg).expect("image argument");
                a.buffer_var = Some(v);
                let decoration = match a.access {
                    AccessQualifier::WriteOnly => Some(Decoration::NonReadable),
                    AccessQualifier::ReadWrite => Some(Decoration::Coherent),
                    _ => None,
                };
                if let Some(d) = decoration {
                    self.out.decorate(v, vec![Operand::Decoration(d)]);
                }
                v
            }
        };
        self.emit(b, Op::Load, ty, ids(&[var]))
    }

    /// Whether argument `arg` is made from a buffer in this pipeline: bit
    /// `arg` of SpecId `IMAGE_FROM_BUFFER_SPEC_ID`.
    pub(crate) fn is_from_buffer(&mut self, b: &mut Block, arg: u32) -> Word {
        let u32t = self.out.t_u32();
        let mask = match self.images.from_buffer_mask {
            Some(m) => m,
            None => {
                let m = self.out.id();
                self.out.globals.push(Instruction::new(
                    Op::SpecConstant,
                    Some(u32t),
                    Some(m),
                    vec![Operand::LiteralBit32(0)],
                ));
                self.out.decorate(
                    m,
                    vec![
                        Operand::Decoration(Decoration::SpecId),
                        Operand::LiteralBit32(IMAGE_FROM_BUFFER_SPEC_ID),
                    ],
                );
                self.images.from_buffer_mask = Some(m);
                m
            }
        };
        let bt = self.out.t_bool();
        let bit = self.out.c_u32(1 << arg);
        let and = self.emit(b, Op::BitwiseAnd, u32t, ids(&[mask, bit]));
        let zero = self.out.c_u32(0);
        self.emit(b, Op::INotEqual, bt, ids(&[and, zero]))
    }

    /// The texel-buffer index of 2D coordinate `coord` (a 2-vector of
    /// 32-bit integers) of argument `arg`: `y * row_pitch + x`.
    fn linear_coord(&mut self, b: &mut Block, arg: u32, coord: Word, ct: Word) -> Word {
        let u32t = self.out.t_u32();
        let e = self.out.elem(ct);
        let mut comp = |l: &mut Self, k: u32| {
            let c = l.emit(
                b,
                Op::CompositeExtract,
                e,
                vec![Operand::IdRef(coord), Operand::LiteralBit32(k)],
            );
            if e == u32t {
                c
            } else {
                l.emit(b, Op::Bitcast, u32t, ids(&[c]))
            }
        };
        let (x, y) = (comp(self, 0), comp(self, 1));
        let pitch = self.implicit_field(b, ImplicitField::ImageRowPitch(arg as u16));
        let row = self.emit(b, Op::IMul, u32t, ids(&[y, pitch]));
        self.emit(b, Op::IAdd, u32t, ids(&[row, x]))
    }

    /// Starts a helper's branch on `is_from_buffer`: the entry block with
    /// the selection, and the labels (buffer, image, merge).
    fn branch_on_buffer_backing(&mut self, arg: u32) -> (Block, [Word; 4]) {
        let [entry, buf, img, merge] = [(); 4].map(|_| self.out.id());
        let mut eb = Block::default();
        let cond = self.is_from_buffer(&mut eb, arg);
        eb.push(
            Op::SelectionMerge,
            None,
            None,
            vec![
                Operand::IdRef(merge),
                Operand::SelectionControl(SelectionControl::NONE),
            ],
        );
        eb.push(Op::BranchConditional, None, None, ids(&[cond, buf, img]));
        (eb, [entry, buf, img, merge])
    }

    /// A samplerless read of `from_buffer` argument `arg` at integer
    /// coordinate `coord` (of type `ct`, a 2-vector of 32-bit integers): a
    /// 4-vector of texel type `texel` in OpenCL's component order. `level`
    /// (u32, sampled images only): the image's mip level to read (a
    /// buffer has one level; the caller clamped it to the image's levels).
    pub(crate) fn read_from_buffer_or_image(
        &mut self,
        b: &mut Block,
        arg: u32,
        (coord, ct): (Word, Word),
        texel: Texel,
        level: Option<Word>,
    ) -> Word {
        let v4 = self.texel_vec4(texel);
        let desc = self.images.args[&arg].descriptor();
        let key = match level {
            None => format!("image_read_{arg}_{ct}"),
            Some(_) => format!("image_read_level_{arg}_{ct}"),
        };
        let f = match self.helper(&key) {
            Some(f) => f,
            None => {
                let (fid, pc, pl) = (self.out.id(), self.out.id(), self.out.id());
                let plod = level.map(|_| self.out.id());
                let u32t = self.out.t_u32();
                let (eb, [entry, buf, img, merge]) = self.branch_on_buffer_backing(arg);
                let mut bb = Block::default();
                let tb = self.load_buffer_image(&mut bb, arg);
                let from_buf = if desc == ImageDescriptor::Sampled {
                    self.emit(&mut bb, Op::ImageFetch, v4, ids(&[tb, pl]))
                } else {
                    self.emit(&mut bb, Op::ImageRead, v4, ids(&[tb, pl]))
                };
                bb.push(Op::Branch, None, None, ids(&[merge]));
                let mut ib = Block::default();
                let (im, _) = self.load_image(&mut ib, arg);
                let from_img = if desc == ImageDescriptor::Sampled {
                    let lod = plod.unwrap_or_else(|| self.out.c_u32(0));
                    self.emit(
                        &mut ib,
                        Op::ImageFetch,
                        v4,
                        vec![
                            Operand::IdRef(im),
                            Operand::IdRef(pc),
                            Operand::ImageOperands(spirv::ImageOperands::LOD),
                            Operand::IdRef(lod),
                        ],
                    )
                } else {
                    self.emit(&mut ib, Op::ImageRead, v4, ids(&[im, pc]))
                };
                ib.push(Op::Branch, None, None, ids(&[merge]));
                let mut mb = Block::default();
                let r = self.emit(&mut mb, Op::Phi, v4, ids(&[from_buf, buf, from_img, img]));
                mb.push(Op::ReturnValue, None, None, ids(&[r]));
                let mut params = vec![(pc, ct), (pl, u32t)];
                params.extend(plod.map(|p| (p, u32t)));
                self.define_helper(
                    key,
                    HelperFn {
                        id: fid,
                        result: v4,
                        params,
                        blocks: vec![(entry, eb), (buf, bb), (img, ib), (merge, mb)],
                    },
                );
                fid
            }
        };
        if desc != ImageDescriptor::Sampled {
            self.add_cap(Capability::StorageImageReadWithoutFormat);
        }
        let lin = self.linear_coord(b, arg, coord, ct);
        let mut call_args = vec![coord, lin];
        call_args.extend(level);
        let v = self.call_helper(b, f, v4, &call_args);
        // Sampled views swizzle themselves; texel buffers and storage
        // views are permuted by the channel order here.
        let swizzled = self.swizzle_by_order(b, arg, v, texel, &super::inst::READ_SWIZZLES);
        if desc == ImageDescriptor::Sampled {
            let cond = self.is_from_buffer(b, arg);
            self.emit(b, Op::Select, v4, ids(&[cond, swizzled, v]))
        } else {
            swizzled
        }
    }

    /// Writes texel `v` (of type `vt`, already in the stored component
    /// order) to `from_buffer` argument `arg` at integer coordinate `coord`
    /// (of type `ct`).
    pub(crate) fn write_to_buffer_or_image(
        &mut self,
        b: &mut Block,
        arg: u32,
        (coord, ct): (Word, Word),
        (v, vt): (Word, Word),
    ) {
        let key = format!("image_write_{arg}_{ct}_{vt}");
        let f = match self.helper(&key) {
            Some(f) => f,
            None => {
                let (fid, pc, pl, pv) =
                    (self.out.id(), self.out.id(), self.out.id(), self.out.id());
                let u32t = self.out.t_u32();
                let void = self.out.t_void();
                let (eb, [entry, buf, img, merge]) = self.branch_on_buffer_backing(arg);
                let mut bb = Block::default();
                let tb = self.load_buffer_image(&mut bb, arg);
                bb.push(Op::ImageWrite, None, None, ids(&[tb, pl, pv]));
                bb.push(Op::Branch, None, None, ids(&[merge]));
                let mut ib = Block::default();
                let (im, _) = self.load_image(&mut ib, arg);
                ib.push(Op::ImageWrite, None, None, ids(&[im, pc, pv]));
                ib.push(Op::Branch, None, None, ids(&[merge]));
                let mut mb = Block::default();
                mb.push(Op::Return, None, None, vec![]);
                self.define_helper(
                    key,
                    HelperFn {
                        id: fid,
                        result: void,
                        params: vec![(pc, ct), (pl, u32t), (pv, vt)],
                        blocks: vec![(entry, eb), (buf, bb), (img, ib), (merge, mb)],
                    },
                );
                fid
            }
        };
        let lin = self.linear_coord(b, arg, coord, ct);
        let void = self.out.t_void();
        self.call_helper(b, f, void, &[coord, lin, v]);
    }

    /// The size of `from_buffer` argument `arg`: the image's own (`size`,
    /// from its query) or, made from a buffer, the implicit fields.
    pub(crate) fn size_of_buffer_or_image(
        &mut self,
        b: &mut Block,
        arg: u32,
        size: Vec<Word>,
    ) -> Vec<Word> {
        let u32t = self.out.t_u32();
        let cond = self.is_from_buffer(b, arg);
        let fields = [
            ImplicitField::ImageBufferWidth(arg as u16),
            ImplicitField::ImageBufferHeight(arg as u16),
        ];
        size.into_iter()
            .zip(fields)
            .map(|(q, f)| {
                let v = self.implicit_field(b, f);
                self.emit(b, Op::Select, u32t, ids(&[cond, v, q]))
            })
            .collect()
    }
}
