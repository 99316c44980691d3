//! Mipmapped images in kernels. Reads with a sampler (cl_khr_mipmap_image):
//! `read_image{f,i,ui}(image, sampler, coord, lod)` and the gradient
//! forms, which llvm-spirv emits as OpImageSampleExplicitLod with a `Lod`
//! or `Grad` operand (every other sampled read has `Lod 0.0`).
//!
//! # Algorithm
//!
//! Filtering stays OpenCL's own (`super::sampler`), per mip level:
//!
//! * λ: the lod, or from gradients `log2(max(|∂x·size|, |∂y·size|))`
//!   (level 0's size, Euclidean lengths, as Vulkan's scale factor);
//!   clamped to the sampler's [CL_SAMPLER_LOD_MIN_KHR,
//!   CL_SAMPLER_LOD_MAX_KHR] (`ImplicitField::SamplerLodMin` / `Max`;
//!   literal samplers have the defaults 0 and MAXFLOAT) and to the
//!   image's levels (`ImplicitField::ImageMipLevels`, q = levels - 1).
//! * NEAREST mip filter: level `clamp(ceil(λ + 0.5) - 1, 0, q)` (Vulkan's
//!   rule; level 0 for λ ≤ 0.5).
//! * LINEAR mip filter (float images, sampler arguments with
//!   `sampler_bits::MIP_FILTER_LINEAR`): λ' = clamp(λ, 0, q), the texels
//!   of levels `floor(λ')` and `min(floor(λ') + 1, q)` mixed by
//!   `λ' - floor(λ')`; the mode bit selects at run time.
//!
//! Each level is read with OpImageFetch at that level, its size computed
//! from level 0's (`image_size_at`), so no Vulkan sampler or implicit-lod
//! sampling is involved.
//!
//! Writes with a lod (cl_khr_mipmap_image_writes, `write_at_level`): a
//! helper switches on the lod; level 0 is the image's own binding, level
//! `l` a storage image of its own at `abi::IMAGE_LEVEL_BINDING_BASE + n *
//! abi::MIP_WRITE_LEVELS + l` (Vulkan has no Lod on OpImageWrite).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GlslStd450Op as GLOp, ImageOperands, Op, Word};

use super::sampler::Mode;
use super::{image_operands, LowerImages, SamplerSrc, Texel};
use crate::abi::{sampler_bits as sb, ImplicitField};
use crate::passes::lower::context::Res;
use crate::passes::lower::emit::{ids, Block};

/// The level of detail of a read: an explicit lod, or gradients (input
/// ids).
#[derive(Clone, Copy)]
pub(super) enum Lod {
    Explicit(Word),
    Grad(Word, Word),
}

impl LowerImages<'_, '_> {
    /// The lod of an OpImageSampleExplicitLod, `None` for a read of level
    /// 0 (`Lod` the constant 0.0).
    pub(super) fn lod_of(&mut self, inst: &Instruction) -> Res<Option<Lod>> {
        let ops = image_operands(inst, 2);
        let id = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let lod = if ops.contains(ImageOperands::GRAD) {
            Some(Lod::Grad(id(3), id(4)))
        } else if ops.contains(ImageOperands::LOD) && !self.is_zero_constant(id(3)) {
            Some(Lod::Explicit(id(3)))
        } else {
            None
        };
        if lod.is_some() && !self.caps.mipmap_image {
            return Err(
                "read_image with a lod or gradients (cl_khr_mipmap_image) is not supported by \
                 the device"
                    .into(),
            );
        }
        Ok(lod)
    }

    /// Whether input id `id` is a constant zero (OpConstant 0 or
    /// OpConstantNull).
    pub(super) fn is_zero_constant(&self, id: Word) -> bool {
        self.ix
            .globals
            .get(&id)
            .is_some_and(|i| match i.class.opcode {
                Op::ConstantNull => true,
                Op::Constant => matches!(
                    i.operands.first(),
                    Some(Operand::LiteralBit32(0) | Operand::LiteralBit64(0))
                ),
                _ => false,
            })
    }

    /// The texel (a 4-vector) of a read with `lod` (see the module doc).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sample_mipmapped(
        &mut self,
        b: &mut Block,
        arg: u32,
        src: SamplerSrc,
        mode: Mode,
        texel: Texel,
        img: Word,
        at: (&[Word], Option<Word>),
        lod: Lod,
    ) -> Word {
        let f32t = self.out.t_float(32);
        let u32t = self.out.t_u32();
        let levels = self.implicit_field(b, ImplicitField::ImageMipLevels(arg as u16));
        let one_u = self.out.c_u32(1);
        let q = self.emit(b, Op::ISub, u32t, ids(&[levels, one_u]));
        let qf = self.emit(b, Op::ConvertUToF, f32t, ids(&[q]));
        let lambda = match lod {
            Lod::Explicit(l) => self.v(l),
            Lod::Grad(dx, dy) => self.lod_from_gradients(b, arg, img, at.0.len(), dx, dy),
        };
        let lambda = match src {
            SamplerSrc::Arg(k) => {
                let k = k as u16;
                let lo = self.implicit_field(b, ImplicitField::SamplerLodMin(k));
                let hi = self.implicit_field(b, ImplicitField::SamplerLodMax(k));
                let lo = self.emit(b, Op::Bitcast, f32t, ids(&[lo]));
                let hi = self.emit(b, Op::Bitcast, f32t, ids(&[hi]));
                self.glsl(b, GLOp::NClamp, f32t, &[lambda, lo, hi])
            }
            // The defaults: [0, MAXFLOAT], within the level clamps below.
            SamplerSrc::Literal(_) => lambda,
        };
        let zero = self.out.c_float(32, 0.0);
        let half = self.out.c_float(32, 0.5);
        let one = self.out.c_float(32, 1.0);
        // NEAREST: clamp(ceil(λ + 0.5) - 1, 0, q).
        let t = self.emit(b, Op::FAdd, f32t, ids(&[lambda, half]));
        let c = self.glsl(b, GLOp::Ceil, f32t, &[t]);
        let d = self.emit(b, Op::FSub, f32t, ids(&[c, one]));
        let d = self.glsl(b, GLOp::NClamp, f32t, &[d, zero, qf]);
        let dn = self.emit(b, Op::ConvertFToU, u32t, ids(&[d]));
        let nearest = self.sample_level(b, arg, mode, texel, img, at, Some(dn));
        let Mode::Dynamic(m) = mode else {
            return nearest;
        };
        if texel != Texel::Float {
            return nearest;
        }
        // LINEAR: the two levels around clamp(λ, 0, q).
        let lc = self.glsl(b, GLOp::NClamp, f32t, &[lambda, zero, qf]);
        let f0 = self.glsl(b, GLOp::Floor, f32t, &[lc]);
        let delta = self.emit(b, Op::FSub, f32t, ids(&[lc, f0]));
        let d0 = self.emit(b, Op::ConvertFToU, u32t, ids(&[f0]));
        let up = self.emit(b, Op::IAdd, u32t, ids(&[d0, one_u]));
        let d1 = self.glsl(b, GLOp::UMin, u32t, &[up, q]);
        let s0 = self.sample_level(b, arg, mode, texel, img, at, Some(d0));
        let s1 = self.sample_level(b, arg, mode, texel, img, at, Some(d1));
        let v4 = self.texel_vec4(texel);
        let dv = self.emit(
            b,
            Op::CompositeConstruct,
            v4,
            ids(&[delta, delta, delta, delta]),
        );
        let linear = self.glsl(b, GLOp::FMix, v4, &[s0, s1, dv]);
        let bt = self.out.t_bool();
        let bit = self.out.c_u32(sb::MIP_FILTER_LINEAR);
        let zero_u = self.out.c_u32(0);
        let x = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, bit]));
        let is = self.emit(b, Op::INotEqual, bt, ids(&[x, zero_u]));
        self.emit(b, Op::Select, v4, ids(&[is, linear, nearest]))
    }

    /// λ of gradients `dx`, `dy` (input ids: a float per spatial
    /// dimension, or a vector holding them first):
    /// `log2(max(|dx·size|, |dy·size|))` with level 0's size.
    fn lod_from_gradients(
        &mut self,
        b: &mut Block,
        arg: u32,
        img: Word,
        n: usize,
        dx: Word,
        dy: Word,
    ) -> Word {
        let f32t = self.out.t_float(32);
        let size = self.image_size(b, arg, img);
        let sizes: Vec<Word> = (0..n)
            .map(|k| self.emit(b, Op::ConvertUToF, f32t, ids(&[size[k]])))
            .collect();
        let mut rho = Vec::new();
        for g in [dx, dy] {
            let v = self.v(g);
            let ty = self.ty_of(g);
            let lty = self.lower_ty(ty).unwrap_or(f32t);
            let len = self.out.vec_len(lty);
            let mut sum: Option<Word> = None;
            for (k, &s) in sizes.iter().enumerate() {
                let c = if len == 1 {
                    v
                } else {
                    self.emit(
                        b,
                        Op::CompositeExtract,
                        f32t,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(k as u32)],
                    )
                };
                let scaled = self.emit(b, Op::FMul, f32t, ids(&[c, s]));
                let sq = self.emit(b, Op::FMul, f32t, ids(&[scaled, scaled]));
                sum = Some(match sum {
                    None => sq,
                    Some(acc) => self.emit(b, Op::FAdd, f32t, ids(&[acc, sq])),
                });
            }
            let sum = sum.unwrap_or_else(|| self.out.c_float(32, 0.0));
            rho.push(self.glsl(b, GLOp::Sqrt, f32t, &[sum]));
        }
        let r = self.glsl(b, GLOp::NMax, f32t, &[rho[0], rho[1]]);
        self.glsl(b, GLOp::Log2, f32t, &[r])
    }

    /// `write_image{f,i,ui}(image, coord, lod, texel)`
    /// (cl_khr_mipmap_image_writes): texel `v` (of type `vt`, in the
    /// stored component order) to level `lod` (an input id) of `arg`. A
    /// helper switches on the lod: level 0 is the image's own write (made
    /// from a buffer or not), level `l` up to `abi::MIP_WRITE_LEVELS - 1`
    /// the storage image of its own binding; other lods (undefined by
    /// OpenCL) write level 0.
    pub(super) fn write_at_level(
        &mut self,
        b: &mut Block,
        arg: u32,
        (coord, ct): (Word, Word),
        (v, vt): (Word, Word),
        lod: Word,
    ) -> Res<()> {
        let lod_ty = self.ty_of(lod);
        let lt = self.lower_ty(lod_ty)?;
        let key = format!("image_write_level_{arg}_{ct}_{vt}_{lt}");
        let f = match self.helper(&key) {
            Some(f) => f,
            None => {
                let [fid, pc, pv, pl] = [(); 4].map(|_| self.out.id());
                let void = self.out.t_void();
                let [entry, level0, merge] = [(); 3].map(|_| self.out.id());
                let levels: Vec<(u32, Word)> = (1..crate::abi::MIP_WRITE_LEVELS)
                    .map(|l| (l, self.out.id()))
                    .collect();
                let mut eb = Block::default();
                eb.push(
                    Op::SelectionMerge,
                    None,
                    None,
                    vec![
                        Operand::IdRef(merge),
                        Operand::SelectionControl(rspirv::spirv::SelectionControl::NONE),
                    ],
                );
                let mut sw = vec![Operand::IdRef(pl), Operand::IdRef(level0)];
                for &(l, label) in &levels {
                    sw.push(Operand::LiteralBit32(l));
                    sw.push(Operand::IdRef(label));
                }
                eb.push(Op::Switch, None, None, sw);
                let mut blocks = vec![(entry, eb)];
                let mut b0 = Block::default();
                if self.may_be_from_buffer(arg) {
                    self.write_to_buffer_or_image(&mut b0, arg, (pc, ct), (pv, vt));
                } else {
                    let (im, _) = self.load_image(&mut b0, arg);
                    b0.push(Op::ImageWrite, None, None, ids(&[im, pc, pv]));
                }
                b0.push(Op::Branch, None, None, ids(&[merge]));
                blocks.push((level0, b0));
                for (l, label) in levels {
                    let mut bl = Block::default();
                    let im = self.load_level(&mut bl, arg, l);
                    bl.push(Op::ImageWrite, None, None, ids(&[im, pc, pv]));
                    bl.push(Op::Branch, None, None, ids(&[merge]));
                    blocks.push((label, bl));
                }
                let mut mb = Block::default();
                mb.push(Op::Return, None, None, vec![]);
                blocks.push((merge, mb));
                self.define_helper(
                    key,
                    crate::passes::lower::helper_fn::HelperFn {
                        id: fid,
                        result: void,
                        params: vec![(pc, ct), (pv, vt), (pl, lt)],
                        blocks,
                    },
                );
                fid
            }
        };
        let void = self.out.t_void();
        let l = self.v(lod);
        self.call_helper(b, f, void, &[coord, v, l]);
        Ok(())
    }

    /// Loads the storage image of level `level` of `arg` (its own
    /// binding, `abi::IMAGE_LEVEL_BINDING_BASE`).
    fn load_level(&mut self, b: &mut Block, arg: u32, level: u32) -> Word {
        let ty = self.image_vk_type(arg);
        let var = match self.images.args[&arg].level_vars.get(&level) {
            Some(&v) => v,
            None => {
                let v = self.uniform_constant_var(ty);
                let a = self.images.args.get_mut(&arg).expect("image argument");
                a.level_vars.insert(level, v);
                let d = if a.access == crate::abi::AccessQualifier::WriteOnly {
                    rspirv::spirv::Decoration::NonReadable
                } else {
                    rspirv::spirv::Decoration::Coherent
                };
                self.out.decorate(v, vec![Operand::Decoration(d)]);
                v
            }
        };
        self.emit(b, Op::Load, ty, ids(&[var]))
    }

    /// `get_image_num_mip_levels` (OpImageQueryLevels): the bound image's
    /// levels, from `ImplicitField::ImageMipLevels` (Vulkan queries levels
    /// of sampled images only).
    pub(super) fn num_mip_levels(&mut self, b: &mut Block, arg: u32, rt: Word) -> Res<Word> {
        if !self.caps.mipmap_image {
            return Err(
                "get_image_num_mip_levels (cl_khr_mipmap_image) is not supported by the device"
                    .into(),
            );
        }
        let v = self.implicit_field(b, ImplicitField::ImageMipLevels(arg as u16));
        let u32t = self.out.t_u32();
        let rt = self.lower_ty(rt)?;
        Ok(if rt == u32t {
            v
        } else {
            self.emit(b, Op::UConvert, rt, ids(&[v]))
        })
    }
}
