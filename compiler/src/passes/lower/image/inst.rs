//! Image instructions (`lower_image_inst`): each image/sampler value
//! becomes a load of its argument's descriptor variable, OpenCL's reads,
//! writes and queries Vulkan's (`super` module docs), with the component
//! permutations of storage views and texel buffers (`storage_swizzle`) and
//! half texels converted to and from float. Reads with a sampler are in
//! `sampler`.
//!
//! Gaps: an image or sampler chosen at run time, and image instructions
//! other than reads, writes, sampling and the size/order/format queries,
//! are reported.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::GlslStd450Op as GLOp;
use rspirv::spirv::{self, Capability, Decoration, Dim, ImageOperands, Op, StorageClass, Word};

use super::{arrayed, image_operands, spatial_dims, LowerImages, Texel};
use crate::abi::{AccessQualifier, ImageDescriptor, ImageDim, ImplicitField};
use crate::analyses::type_table::Ty;
use crate::passes::lower::context::Res;
use crate::passes::lower::emit::{ids, Block};

/// `CL_*` channel orders (OpenCL 3.0 cl.h).
mod order {
    pub const R: u32 = 0x10B0;
    pub const A: u32 = 0x10B1;
    pub const RA: u32 = 0x10B3;
    pub const BGRA: u32 = 0x10B6;
    pub const ARGB: u32 = 0x10B7;
    pub const INTENSITY: u32 = 0x10B8;
    pub const LUMINANCE: u32 = 0x10B9;
    pub const ABGR: u32 = 0x10C3;
    /// Bit `order - R` is set for the orders whose CLK_ADDRESS_CLAMP
    /// border colour is (0,0,0,0) (OpenCL C, "Determining the border
    /// color"): CL_A, CL_RA, CL_RGBA, CL_BGRA, CL_ARGB, CL_INTENSITY,
    /// CL_Rx, CL_RGx, CL_RGBx, CL_sRGBx, CL_sRGBA, CL_sBGRA, CL_ABGR. The
    /// others (CL_R, CL_RG, CL_RGB, CL_LUMINANCE, CL_sRGB) give (0,0,0,1).
    pub const TRANSPARENT_BORDER: u32 = (1 << 1)
        | (1 << 3)
        | (1 << 5)
        | (1 << 6)
        | (1 << 7)
        | (1 << 8)
        | (1 << 0xA)
        | (1 << 0xB)
        | (1 << 0xC)
        | (1 << 0x10)
        | (1 << 0x11)
        | (1 << 0x12)
        | (1 << 0x13);
}
/// First `CL_*` channel data type (CL_SNORM_INT8).
const CL_SNORM_INT8: u32 = 0x10D0;

/// A component permutation, 2 bits per result component (component `k`
/// takes source component `(p >> 2k) & 3`).
const fn perm(a: u32, b: u32, c: u32, d: u32) -> u32 {
    a | (b << 2) | (c << 4) | (d << 6)
}
const IDENTITY: u32 = perm(0, 1, 2, 3);

/// Storage-image and texel-buffer writes: OpenCL (r,g,b,a) → the stored
/// components of the format the runtime backs each channel order with
/// (memory order = the CL order).
const WRITE_SWIZZLES: [(u32, u32); 5] = [
    (order::BGRA, perm(2, 1, 0, 3)),
    (order::ARGB, perm(3, 0, 1, 2)),
    (order::ABGR, perm(3, 2, 1, 0)),
    (order::A, perm(3, 1, 2, 3)),
    (order::RA, perm(0, 3, 2, 1)),
];
/// Storage-image and texel-buffer reads: stored components (a single-channel format reads
/// as (x,0,0,1), two channels as (x,y,0,1)) → OpenCL (r,g,b,a).
pub(super) const READ_SWIZZLES: [(u32, u32); 7] = [
    (order::BGRA, perm(2, 1, 0, 3)),
    (order::ARGB, perm(1, 2, 3, 0)),
    (order::ABGR, perm(3, 2, 1, 0)),
    (order::A, perm(1, 1, 2, 0)),
    (order::INTENSITY, perm(0, 0, 0, 0)),
    (order::LUMINANCE, perm(0, 0, 0, 3)),
    (order::RA, perm(0, 2, 2, 1)),
];

impl LowerImages<'_, '_> {
    pub(super) fn add_cap(&mut self, c: Capability) {
        if !self.images.caps.contains(&c) {
            self.images.caps.push(c);
        }
    }

    /// The output's `int` (signed, for SINT formats) scalar type.
    fn t_i32_signed(&mut self) -> Word {
        self.out.cached(
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(1)],
        )
    }

    /// The Vulkan sampled type of an image argument's texels.
    pub(crate) fn texel_scalar(&mut self, texel: Texel) -> Word {
        match texel {
            Texel::Float => self.out.t_float(32),
            Texel::Int => self.t_i32_signed(),
            Texel::Uint => self.out.t_u32(),
        }
    }

    pub(crate) fn texel_vec4(&mut self, texel: Texel) -> Word {
        let s = self.texel_scalar(texel);
        self.out.t_vec(s, 4)
    }

    /// The Vulkan OpTypeImage of image argument `arg`.
    pub(crate) fn image_vk_type(&mut self, arg: u32) -> Word {
        let a = &self.images.args[&arg];
        let (dim, texel, storage) = (a.dim, a.texel(), a.is_storage());
        let st = self.texel_scalar(texel);
        let vk_dim = match dim {
            ImageDim::D1 | ImageDim::D1Array => Dim::Dim1D,
            ImageDim::D1Buffer => Dim::DimBuffer,
            ImageDim::D2 | ImageDim::D2Array => Dim::Dim2D,
            ImageDim::D3 => Dim::Dim3D,
        };
        match (vk_dim, storage) {
            (Dim::Dim1D, false) => self.add_cap(Capability::Sampled1D),
            (Dim::Dim1D, true) => self.add_cap(Capability::Image1D),
            (Dim::DimBuffer, false) => self.add_cap(Capability::SampledBuffer),
            (Dim::DimBuffer, true) => self.add_cap(Capability::ImageBuffer),
            _ => {}
        }
        self.out.cached(
            Op::TypeImage,
            None,
            vec![
                Operand::IdRef(st),
                Operand::Dim(vk_dim),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(arrayed(dim) as u32),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(if storage { 2 } else { 1 }),
                Operand::ImageFormat(spirv::ImageFormat::Unknown),
            ],
        )
    }

    pub(super) fn uniform_constant_var(&mut self, ty: Word) -> Word {
        let pt = self.out.t_ptr(StorageClass::UniformConstant, ty);
        let var = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(var),
            vec![Operand::StorageClass(StorageClass::UniformConstant)],
        ));
        var
    }

    /// Loads image argument `arg` from its variable: (image, its type).
    pub(crate) fn load_image(&mut self, b: &mut Block, arg: u32) -> (Word, Word) {
        let ty = self.image_vk_type(arg);
        let var = match self.images.args[&arg].var {
            Some(v) => v,
            None => {
                let v = self.uniform_constant_var(ty);
                let a = self.images.args.get_mut(&arg).expect("image argument");
                a.var = Some(v);
                // read_write: writes become visible to the work-group's
                // other work-items at a barrier with CLK_IMAGE_MEM_FENCE
                // (GLSL450's model wants Coherent for that).
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
        (self.emit(b, Op::Load, ty, ids(&[var])), ty)
    }

    /// Lowers an image/sampler instruction (`is_image_inst`).
    pub(crate) fn lower_image_inst(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let id_op = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let rid = inst.result_id.unwrap_or(0);
        match inst.class.opcode {
            // Resolved statically (`image_args`): nothing to emit.
            Op::Load | Op::Store | Op::CopyObject | Op::Variable => {}
            Op::Phi | Op::Select => {
                return Err(
                    "an image or sampler chosen at run time (?: or a phi) is not supported".into(),
                )
            }
            Op::Undef => {}
            Op::SampledImage => {
                self.images.sampled.insert(rid, (id_op(0), id_op(1)));
            }
            Op::ImageSampleExplicitLod => {
                let v = self.lower_sample(b, inst)?;
                self.alias.insert(rid, v);
            }
            Op::ImageRead => {
                let arg = self.image_arg(id_op(0))?;
                let coord = self.image_coord(b, arg, id_op(1))?;
                let texel = self.images.args[&arg].texel();
                let v = self.read_texel(b, arg, coord)?;
                let v = self.texel_to_cl(b, v, texel, inst.result_type.unwrap_or(0))?;
                self.alias.insert(rid, v);
            }
            Op::ImageWrite => {
                let arg = self.image_arg(id_op(0))?;
                if !self.images.args[&arg].is_storage() {
                    return Err(format!(
                        "write to read_only image argument '{}'",
                        self.arg_name(arg)
                    ));
                }
                let coord = self.image_coord(b, arg, id_op(1))?;
                let texel = self.images.args[&arg].texel();
                let v = self.texel_from_cl(b, id_op(2), texel);
                let v = self.storage_swizzle(b, arg, v, texel, &WRITE_SWIZZLES);
                self.add_cap(Capability::StorageImageWriteWithoutFormat);
                let lod = image_operands(inst, 3)
                    .contains(ImageOperands::LOD)
                    .then(|| id_op(4))
                    .filter(|&l| !self.is_zero_constant(l));
                if let Some(lod) = lod {
                    let v4 = self.texel_vec4(texel);
                    self.write_at_level(b, arg, coord, (v, v4), lod)?;
                } else if self.may_be_from_buffer(arg) {
                    let v4 = self.texel_vec4(texel);
                    self.write_to_buffer_or_image(b, arg, coord, (v, v4));
                } else {
                    let (img, _) = self.load_image(b, arg);
                    b.push(Op::ImageWrite, None, None, ids(&[img, coord.0, v]));
                }
            }
            Op::ImageQuerySizeLod | Op::ImageQuerySize => {
                let arg = self.image_arg(id_op(0))?;
                let (img, _) = self.load_image(b, arg);
                let size = self.image_size(b, arg, img);
                let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let (n, e) = (self.out.vec_len(rt), self.out.elem(rt));
                let w = self.out.int_width(e).unwrap_or(32);
                let mut parts = Vec::new();
                for k in 0..n as usize {
                    let c = match size.get(k) {
                        Some(&c) => c,
                        None => self.out.c_u32(0),
                    };
                    parts.push(if w == 32 {
                        c
                    } else {
                        self.emit(b, Op::UConvert, e, ids(&[c]))
                    });
                }
                let v = if n == 1 {
                    parts[0]
                } else {
                    self.emit(b, Op::CompositeConstruct, rt, ids(&parts))
                };
                self.alias.insert(rid, v);
            }
            Op::ImageQueryLevels => {
                let arg = self.image_arg(id_op(0))?;
                let v = self.num_mip_levels(b, arg, inst.result_type.unwrap_or(0))?;
                self.alias.insert(rid, v);
            }
            Op::ImageQueryOrder | Op::ImageQueryFormat => {
                // The input adds the CL_* base to the SPIR-V enumerant.
                let arg = self.image_arg(id_op(0))?;
                let (field, base) = if inst.class.opcode == Op::ImageQueryOrder {
                    (ImplicitField::ImageChannelOrder(arg as u16), order::R)
                } else {
                    (
                        ImplicitField::ImageChannelDataType(arg as u16),
                        CL_SNORM_INT8,
                    )
                };
                let x = self.implicit_field(b, field);
                let u32t = self.out.t_u32();
                let c = self.out.c_u32(base);
                let v = self.emit(b, Op::ISub, u32t, ids(&[x, c]));
                let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let v = if rt == u32t {
                    v
                } else {
                    self.emit(b, Op::UConvert, rt, ids(&[v]))
                };
                self.alias.insert(rid, v);
            }
            op => return Err(format!("image instruction Op{op:?} is not supported")),
        }
        Ok(())
    }

    /// The size of image `arg` (loaded as `img`): one u32 per spatial
    /// dimension, then the number of layers of an array.
    pub(crate) fn image_size(&mut self, b: &mut Block, arg: u32, img: Word) -> Vec<Word> {
        self.image_size_at(b, arg, img, None)
    }

    /// [`Self::image_size`] of mip level `level` (u32; `None`: level 0):
    /// each spatial size `max(size >> level, 1)`, the layers unchanged
    /// (computed, not OpImageQuerySizeLod at the level, which lavapipe
    /// answers with level 0's size).
    pub(crate) fn image_size_at(
        &mut self,
        b: &mut Block,
        arg: u32,
        img: Word,
        level: Option<Word>,
    ) -> Vec<Word> {
        let mut size = self.image_size_lod0(b, arg, img);
        if let Some(level) = level {
            let ns = spatial_dims(self.images.args[&arg].dim) as usize;
            let u32t = self.out.t_u32();
            let one = self.out.c_u32(1);
            for s in size.iter_mut().take(ns) {
                let h = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[*s, level]));
                *s = self.glsl(b, GLOp::UMax, u32t, &[h, one]);
            }
        }
        size
    }

    fn image_size_lod0(&mut self, b: &mut Block, arg: u32, img: Word) -> Vec<Word> {
        let a = &self.images.args[&arg];
        let n = spatial_dims(a.dim) + arrayed(a.dim) as u32;
        let lod = a.descriptor() == ImageDescriptor::Sampled;
        self.add_cap(Capability::ImageQuery);
        let u32t = self.out.t_u32();
        let qt = if n == 1 {
            u32t
        } else {
            self.out.t_vec(u32t, n)
        };
        let q = if lod {
            let zero = self.out.c_u32(0);
            self.emit(b, Op::ImageQuerySizeLod, qt, ids(&[img, zero]))
        } else {
            self.emit(b, Op::ImageQuerySize, qt, ids(&[img]))
        };
        if n == 1 {
            return vec![q];
        }
        let size = (0..n)
            .map(|k| {
                self.emit(
                    b,
                    Op::CompositeExtract,
                    u32t,
                    vec![Operand::IdRef(q), Operand::LiteralBit32(k)],
                )
            })
            .collect();
        if self.may_be_from_buffer(arg) {
            self.size_of_buffer_or_image(b, arg, size)
        } else {
            size
        }
    }

    /// The integer coordinate operand `coord` of an image access, cut to
    /// the components image `arg` takes, with its output type.
    fn image_coord(&mut self, b: &mut Block, arg: u32, coord: Word) -> Res<(Word, Word)> {
        let dim = self.images.args[&arg].dim;
        let n = spatial_dims(dim) + arrayed(dim) as u32;
        let t = self.ty_of(coord);
        let ty = self.lower_ty(t)?;
        let v = self.v(coord);
        let e = self.out.elem(ty);
        let ct = if n == 1 { e } else { self.out.t_vec(e, n) };
        Ok((self.take_components(b, v, ty, n), ct))
    }

    /// The first `n` components of `v` (of output type `ty`): a scalar
    /// for `n` = 1.
    pub(crate) fn take_components(&mut self, b: &mut Block, v: Word, ty: Word, n: u32) -> Word {
        let len = self.out.vec_len(ty);
        if len == n {
            return v;
        }
        let e = self.out.elem(ty);
        if n == 1 {
            return self.emit(
                b,
                Op::CompositeExtract,
                e,
                vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
            );
        }
        let t = self.out.t_vec(e, n);
        let mut ops = vec![Operand::IdRef(v), Operand::IdRef(v)];
        ops.extend((0..n).map(Operand::LiteralBit32));
        self.emit(b, Op::VectorShuffle, t, ops)
    }

    /// A samplerless read of image `arg` at integer coordinates `coord`
    /// (with its type): a 4-vector of its texel type, in OpenCL's
    /// component order.
    pub(crate) fn read_texel(
        &mut self,
        b: &mut Block,
        arg: u32,
        (coord, ct): (Word, Word),
    ) -> Res<Word> {
        let a = &self.images.args[&arg];
        let (desc, texel) = (a.descriptor(), a.texel());
        if a.access == AccessQualifier::WriteOnly {
            return Err(format!(
                "read from write_only image argument '{}'",
                self.arg_name(arg)
            ));
        }
        if self.may_be_from_buffer(arg) {
            return Ok(self.read_from_buffer_or_image(b, arg, (coord, ct), texel, None));
        }
        let v4 = self.texel_vec4(texel);
        let (img, _) = self.load_image(b, arg);
        Ok(match desc {
            ImageDescriptor::Sampled => {
                let zero = self.out.c_u32(0);
                self.emit(
                    b,
                    Op::ImageFetch,
                    v4,
                    vec![
                        Operand::IdRef(img),
                        Operand::IdRef(coord),
                        Operand::ImageOperands(ImageOperands::LOD),
                        Operand::IdRef(zero),
                    ],
                )
            }
            ImageDescriptor::UniformTexel => {
                let v = self.emit(b, Op::ImageFetch, v4, ids(&[img, coord]));
                self.storage_swizzle(b, arg, v, texel, &READ_SWIZZLES)
            }
            ImageDescriptor::Storage | ImageDescriptor::StorageTexel => {
                self.add_cap(Capability::StorageImageReadWithoutFormat);
                let v = self.emit(b, Op::ImageRead, v4, ids(&[img, coord]));
                self.storage_swizzle(b, arg, v, texel, &READ_SWIZZLES)
            }
        })
    }

    /// A texel of the shader's type (`texel_vec4`) → the input's result
    /// type `rt` (float4, half4, int4/uint4 as unsigned; a depth image's
    /// float: the first component).
    pub(crate) fn texel_to_cl(
        &mut self,
        b: &mut Block,
        v: Word,
        texel: Texel,
        rt: Word,
    ) -> Res<Word> {
        let rt = self.lower_ty(rt)?;
        Ok(match texel {
            Texel::Float if self.out.vec_len(rt) == 1 => self.emit(
                b,
                Op::CompositeExtract,
                rt,
                vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
            ),
            Texel::Float if self.out.scalar_width(rt) == Some(16) => {
                let v4 = self.texel_vec4(texel);
                self.narrow_to_half(b, v, v4, rt, None)
            }
            Texel::Int => self.emit(b, Op::Bitcast, rt, ids(&[v])),
            _ => v,
        })
    }

    /// The input's texel value `x` (float4, half4, int4/uint4; a depth
    /// image's float `d`: (d, 0, 0, 0)) → the shader's texel type.
    fn texel_from_cl(&mut self, b: &mut Block, x: Word, texel: Texel) -> Word {
        let v4 = self.texel_vec4(texel);
        if let Ty::Float(32) = self.tys.get(self.ty_of(x)) {
            let v = self.v(x);
            let zero = self.out.c_float(32, 0.0);
            return self.emit(b, Op::CompositeConstruct, v4, ids(&[v, zero, zero, zero]));
        }
        let half = matches!(self.tys.get(self.ty_of(x)),
            Ty::Vector(e, _) if *self.tys.get(*e) == Ty::Float(16));
        let v = self.v(x);
        match texel {
            Texel::Float if half => self.emit(b, Op::FConvert, v4, ids(&[v])),
            Texel::Int => self.emit(b, Op::Bitcast, v4, ids(&[v])),
            _ => v,
        }
    }

    /// Permutes the components of texel `v` of a storage image or texel
    /// buffer by its channel order (`swizzles`: order → permutation; others
    /// keep the identity). No code for sampled images, whose views swizzle.
    fn storage_swizzle(
        &mut self,
        b: &mut Block,
        arg: u32,
        v: Word,
        texel: Texel,
        swizzles: &[(u32, u32)],
    ) -> Word {
        if !self.images.args[&arg].swizzles() {
            return v;
        }
        self.swizzle_by_order(b, arg, v, texel, swizzles)
    }

    /// Permutes the components of texel `v` of image `arg` by its channel
    /// order (`swizzles`), whatever its view.
    pub(super) fn swizzle_by_order(
        &mut self,
        b: &mut Block,
        arg: u32,
        v: Word,
        texel: Texel,
        swizzles: &[(u32, u32)],
    ) -> Word {
        let order = self.implicit_field(b, ImplicitField::ImageChannelOrder(arg as u16));
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let mut p = self.out.c_u32(IDENTITY);
        for &(o, q) in swizzles {
            let oc = self.out.c_u32(o);
            let qc = self.out.c_u32(q);
            let is = self.emit(b, Op::IEqual, bt, ids(&[order, oc]));
            p = self.emit(b, Op::Select, u32t, ids(&[is, qc, p]));
        }
        let st = self.texel_scalar(texel);
        let three = self.out.c_u32(3);
        let mut parts = Vec::new();
        for k in 0..4 {
            let idx = if k == 0 {
                p
            } else {
                let sh = self.out.c_u32(2 * k);
                self.emit(b, Op::ShiftRightLogical, u32t, ids(&[p, sh]))
            };
            let idx = self.emit(b, Op::BitwiseAnd, u32t, ids(&[idx, three]));
            parts.push(self.emit(b, Op::VectorExtractDynamic, st, ids(&[v, idx])));
        }
        let v4 = self.texel_vec4(texel);
        self.emit(b, Op::CompositeConstruct, v4, ids(&parts))
    }

    /// OpenCL's border colour for CLK_ADDRESS_CLAMP of image `arg`:
    /// (0,0,0,0) or (0,0,0,1) by its channel order
    /// (`order::TRANSPARENT_BORDER`).
    pub(crate) fn border_color(&mut self, b: &mut Block, arg: u32, texel: Texel) -> Word {
        let order = self.implicit_field(b, ImplicitField::ImageChannelOrder(arg as u16));
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let base = self.out.c_u32(order::R);
        let rel = self.emit(b, Op::ISub, u32t, ids(&[order, base]));
        let c31 = self.out.c_u32(31);
        let sh = self.emit(b, Op::BitwiseAnd, u32t, ids(&[rel, c31]));
        let mask = self.out.c_u32(order::TRANSPARENT_BORDER);
        let m = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[mask, sh]));
        let one = self.out.c_u32(1);
        let bit = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, one]));
        let zero_u = self.out.c_u32(0);
        let transparent = self.emit(b, Op::INotEqual, bt, ids(&[bit, zero_u]));
        let st = self.texel_scalar(texel);
        let (zero, one) = match texel {
            Texel::Float => (self.out.c_float(32, 0.0), self.out.c_float(32, 1.0)),
            Texel::Uint => (self.out.c_u32(0), self.out.c_u32(1)),
            Texel::Int => (
                self.out
                    .cached(Op::Constant, Some(st), vec![Operand::LiteralBit32(0)]),
                self.out
                    .cached(Op::Constant, Some(st), vec![Operand::LiteralBit32(1)]),
            ),
        };
        let alpha = self.emit(b, Op::Select, st, ids(&[transparent, zero, one]));
        let v4 = self.texel_vec4(texel);
        self.emit(
            b,
            Op::CompositeConstruct,
            v4,
            ids(&[zero, zero, zero, alpha]),
        )
    }
}
