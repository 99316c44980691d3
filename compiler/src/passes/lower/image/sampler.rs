//! Reads with a sampler (`read_image{f,i,ui,h}(image, sampler, coord)`):
//! OpenCL's addressing and filter modes on Vulkan, whose samplers (made by
//! the runtime, `ArgKind::Sampler`) always take normalized coordinates.
//!
//! # Algorithm
//!
//! The sampler's mode is a constant for literal samplers (only the code
//! that mode needs is emitted) and `ImplicitField::SamplerValue` for
//! sampler arguments (every path is computed, the result selected on the
//! mode's bits: no new control flow).
//!
//! * LINEAR (float images with float coordinates only): OpenCL's
//!   filtering formulas exactly (`fetch_linear`): the 2/4/8 texels around
//!   the coordinate by OpImageFetch, weights in f32. Hardware filtering
//!   was not exact enough (NVIDIA rounds the weights and filters SNORM8
//!   and sRGB texels at low precision: CTS image_streams), and it cannot
//!   do OpenCL's CLAMP border per channel order or unnormalized
//!   coordinates on arrays. So no Vulkan sampler is read at all: the
//!   sampler only contributes its mode.
//! * Integer coordinates (which OpenCL only defines with unnormalized
//!   NEAREST samplers addressing CLAMP_TO_EDGE, CLAMP or NONE): the
//!   coordinates clamped to the image, the border colour outside it for
//!   CLAMP, then OpImageFetch.
//! * NEAREST and integer images with float coordinates: OpenCL's rules
//!   exactly (OpenCL 3.0 API spec, "Image Addressing and
//!   Filtering"), then OpImageFetch:
//!   - CLAMP_TO_EDGE / NONE: `i = clamp(floor(u), 0, w-1)`, where `u` is
//!     `s·w` for normalized coordinates;
//!   - CLAMP: the same, and the border colour ((0,0,0,0), or (0,0,0,1)
//!     for CL_R, CL_RG, CL_RGB, CL_LUMINANCE, CL_sRGB) where `floor(u)` is
//!     outside [0, w-1] in any dimension;
//!   - REPEAT: `u = (s - floor(s))·w; i = floor(u); if i > w-1: i -= w`;
//!   - MIRRORED_REPEAT: `s' = |s - 2·rint(s/2)|; i = min(floor(s'·w), w-1)`;
//!   - array layer: `clamp(rint(layer), 0, layers-1)`.
//!
//!   REPEAT and MIRRORED_REPEAT take the coordinates as normalized (OpenCL
//!   leaves them undefined otherwise); NaN coordinates give texel 0.
//!
//! Gaps: see `super`.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GlslStd450Op as GLOp, ImageOperands, Op, Word};

use super::{arrayed, spatial_dims, LowerImages, SamplerSrc, Texel};
use crate::abi::{sampler_bits as sb, ImageDescriptor, ImplicitField};
use crate::analyses::type_table::Ty;
use crate::passes::lower::context::Res;
use crate::passes::lower::emit::{ids, Block};

/// A sampler's `sampler_bits`: known, or a u32 value read at run time.
#[derive(Clone, Copy)]
pub(super) enum Mode {
    Const(u32),
    Dynamic(Word),
}

/// The coordinates of one read.
struct Coords<'c> {
    /// Float coordinates, one per spatial dimension.
    spatial: &'c [Word],
    /// The float array layer of an arrayed image.
    layer: Option<Word>,
    /// The image's size (u32 per dimension, then layers); empty when
    /// neither path needs it.
    size: &'c [Word],
    /// Unnormalized coordinates: `Some(None)` when known to be,
    /// `Some(Some(cond))` when decided at run time, `None` when not.
    unnormalized: Option<Option<Word>>,
    /// The mip level read (u32; `None`: level 0), whose size `size` is.
    level: Option<Word>,
}

/// The addressing mode of a NEAREST read.
enum Addressing {
    Const(u32),
    /// Run-time mode: whether it is REPEAT, MIRRORED_REPEAT, CLAMP.
    Dynamic {
        repeat: Word,
        mirrored: Word,
        clamp: Word,
    },
}

impl LowerImages<'_, '_> {
    /// Lowers OpImageSampleExplicitLod (of an OpSampledImage); returns the
    /// texel as the input's result type.
    pub(crate) fn lower_sample(&mut self, b: &mut Block, inst: &Instruction) -> Res<Word> {
        let id_op = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let &(img_v, smp_v) = self
            .images
            .sampled
            .get(&id_op(0))
            .ok_or("a sampled image that is not made by OpSampledImage")?;
        let arg = self.image_arg(img_v)?;
        let src = self.sampler_src(smp_v)?;
        let (dim, desc, texel) = {
            let a = &self.images.args[&arg];
            (a.dim, a.descriptor(), a.texel())
        };
        if desc != ImageDescriptor::Sampled {
            return Err(
                "read_image with a sampler needs a read_only image (not an image1d_buffer_t)"
                    .into(),
            );
        }
        let mode = match src {
            SamplerSrc::Literal(bits) => Mode::Const(bits),
            SamplerSrc::Arg(k) => {
                Mode::Dynamic(self.implicit_field(b, ImplicitField::SamplerValue(k as u16)))
            }
        };
        // One coordinate per component.
        let coord = id_op(1);
        let cty = self.ty_of(coord);
        let float_coords = match self.tys.get(cty) {
            Ty::Float(_) => true,
            Ty::Vector(e, _) => matches!(self.tys.get(*e), Ty::Float(_)),
            _ => false,
        };
        let ns = spatial_dims(dim);
        let n = ns + arrayed(dim) as u32;
        let lty = self.lower_ty(cty)?;
        let cv = self.v(coord);
        let len = self.out.vec_len(lty);
        let mut comps = Vec::new();
        for k in 0..n {
            comps.push(if len == 1 {
                cv
            } else {
                let e = self.out.elem(lty);
                self.emit(
                    b,
                    Op::CompositeExtract,
                    e,
                    vec![Operand::IdRef(cv), Operand::LiteralBit32(k)],
                )
            });
        }
        if !float_coords {
            let (img, _) = self.load_image(b, arg);
            let v = self.fetch_nearest_int(b, arg, mode, texel, img, &comps);
            return self.texel_to_cl(b, v, texel, inst.result_type.unwrap_or(0));
        }
        let layer = arrayed(dim).then(|| comps[ns as usize]);
        comps.truncate(ns as usize);
        let (img, _) = self.load_image(b, arg);
        let lod = self.lod_of(inst)?;
        let v = match lod {
            None => self.sample_level(b, arg, mode, texel, img, (&comps, layer), None),
            Some(lod) => self.sample_mipmapped(b, arg, src, mode, texel, img, (&comps, layer), lod),
        };
        self.texel_to_cl(b, v, texel, inst.result_type.unwrap_or(0))
    }

    /// The texel (a 4-vector) at float coordinates `comps` (and array
    /// layer) of mip level `level` (u32; `None`: 0) filtered by the
    /// sampler's filter mode.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sample_level(
        &mut self,
        b: &mut Block,
        arg: u32,
        mode: Mode,
        texel: Texel,
        img: Word,
        (comps, layer): (&[Word], Option<Word>),
        level: Option<Word>,
    ) -> Word {
        let filter_linear = |m: u32| m & sb::FILTER_MASK == sb::FILTER_LINEAR;
        let may_be_linear = texel == Texel::Float
            && match mode {
                Mode::Const(m) => filter_linear(m),
                Mode::Dynamic(_) => true,
            };
        let may_be_nearest = !(may_be_linear && matches!(mode, Mode::Const(_)));
        let unnormalized = self.unnormalized(b, mode);
        let size = self.image_size_at(b, arg, img, level);
        let at = Coords {
            spatial: comps,
            layer,
            size: &size,
            unnormalized,
            level,
        };
        let linear = if may_be_linear {
            Some(self.fetch_linear(b, arg, mode, img, &at))
        } else {
            None
        };
        let nearest = if may_be_nearest {
            Some(self.fetch_nearest(b, arg, mode, texel, img, &at))
        } else {
            None
        };
        let v4 = self.texel_vec4(texel);
        match (linear, nearest, mode) {
            (Some(l), Some(n), Mode::Dynamic(m)) => {
                let u32t = self.out.t_u32();
                let bt = self.out.t_bool();
                let fm = self.out.c_u32(sb::FILTER_MASK);
                let fl = self.out.c_u32(sb::FILTER_LINEAR);
                let f = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, fm]));
                let is = self.emit(b, Op::IEqual, bt, ids(&[f, fl]));
                self.emit(b, Op::Select, v4, ids(&[is, l, n]))
            }
            (Some(l), _, _) => l,
            (None, Some(n), _) => n,
            (None, None, _) => unreachable!("a read takes at least one path"),
        }
    }

    /// Whether the mode's coordinates are unnormalized (`Coords`).
    fn unnormalized(&mut self, b: &mut Block, mode: Mode) -> Option<Option<Word>> {
        match mode {
            Mode::Const(m) => (m & sb::NORMALIZED_COORDS_TRUE == 0).then_some(None),
            Mode::Dynamic(m) => {
                let u32t = self.out.t_u32();
                let bt = self.out.t_bool();
                let one = self.out.c_u32(sb::NORMALIZED_COORDS_TRUE);
                let zero = self.out.c_u32(0);
                let x = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, one]));
                Some(Some(self.emit(b, Op::IEqual, bt, ids(&[x, zero]))))
            }
        }
    }

    /// The addressing mode of `mode` (constant, or the run-time tests).
    fn addressing(&mut self, b: &mut Block, mode: Mode) -> Addressing {
        match mode {
            Mode::Const(m) => Addressing::Const(m & sb::ADDRESS_MASK),
            Mode::Dynamic(m) => {
                let u32t = self.out.t_u32();
                let bt = self.out.t_bool();
                let mask = self.out.c_u32(sb::ADDRESS_MASK);
                let a = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, mask]));
                let mut is = |m: u32| {
                    let c = self.out.c_u32(m);
                    self.emit(b, Op::IEqual, bt, ids(&[a, c]))
                };
                Addressing::Dynamic {
                    repeat: is(sb::ADDRESS_REPEAT),
                    mirrored: is(sb::ADDRESS_MIRRORED_REPEAT),
                    clamp: is(sb::ADDRESS_CLAMP),
                }
            }
        }
    }

    /// LINEAR: OpenCL's filtering rules exactly, with OpImageFetch of the
    /// 2, 4 or 8 texels around the coordinate and the weights in f32 (the
    /// spec's formulas, "Image Addressing and Filtering"; hardware
    /// filtering rounds the weights to a few bits, and sRGB texels are
    /// converted to linear before filtering, as OpenCL wants). Per
    /// dimension, with `t = u - 0.5`, `i0 = floor(t)`, `i1 = i0 + 1`,
    /// `a = t - floor(t)`:
    /// - CLAMP_TO_EDGE / NONE: `u` = `s·w` (normalized) or `s`, both
    ///   indices clamped to [0, w-1];
    /// - CLAMP: the same, and each texel outside the image is the border
    ///   colour;
    /// - REPEAT: `u = (s - floor(s))·w`, `i0 += w` if negative, `i1 -= w`
    ///   if past the end;
    /// - MIRRORED_REPEAT: `u = |s - 2·rint(s/2)|·w`, `i0 = max(i0, 0)`,
    ///   `i1 = min(i1, w-1)`.
    fn fetch_linear(
        &mut self,
        b: &mut Block,
        arg: u32,
        mode: Mode,
        img: Word,
        at: &Coords,
    ) -> Word {
        let f32t = self.out.t_float(32);
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let addressing = self.addressing(b, mode);
        let zero = self.out.c_float(32, 0.0);
        let one = self.out.c_float(32, 1.0);
        let half = self.out.c_float(32, 0.5);
        // Per dimension: (i0, i1) as u32, the weight of i1, and whether
        // each index is outside the image (CLAMP only).
        let mut dims: Vec<([Word; 2], Word, [Option<Word>; 2])> = Vec::new();
        for (k, &s) in at.spatial.iter().enumerate() {
            let wf = self.emit(b, Op::ConvertUToF, f32t, ids(&[at.size[k]]));
            let wm1 = self.emit(b, Op::FSub, f32t, ids(&[wf, one]));
            // `u` → (floor(u - 0.5), frac(u - 0.5)).
            let split = |l: &mut Self, b: &mut Block, u: Word| {
                let t = l.emit(b, Op::FSub, f32t, ids(&[u, half]));
                let f = l.glsl(b, GLOp::Floor, f32t, &[t]);
                let a = l.emit(b, Op::FSub, f32t, ids(&[t, f]));
                let i1 = l.emit(b, Op::FAdd, f32t, ids(&[f, one]));
                (f, i1, a)
            };
            // CLAMP_TO_EDGE / CLAMP / NONE.
            let u = match at.unnormalized {
                Some(None) => s,
                None => self.emit(b, Op::FMul, f32t, ids(&[s, wf])),
                Some(Some(cond)) => {
                    let scaled = self.emit(b, Op::FMul, f32t, ids(&[s, wf]));
                    self.emit(b, Op::Select, f32t, ids(&[cond, s, scaled]))
                }
            };
            let (c0, c1, ca) = split(self, b, u);
            let outside = |l: &mut Self, b: &mut Block, i: Word| {
                let lo = l.emit(b, Op::FOrdLessThan, bt, ids(&[i, zero]));
                let hi = l.emit(b, Op::FOrdGreaterThan, bt, ids(&[i, wm1]));
                l.emit(b, Op::LogicalOr, bt, ids(&[lo, hi]))
            };
            let (o0, o1) = (outside(self, b, c0), outside(self, b, c1));
            let need = |m: u32| match addressing {
                Addressing::Const(a) => a == m,
                Addressing::Dynamic { .. } => true,
            };
            let (mut i0, mut i1, mut a) = (c0, c1, ca);
            let mut out = [None, None];
            if need(sb::ADDRESS_CLAMP) {
                let (x0, x1) = match addressing {
                    Addressing::Dynamic { clamp, .. } => (
                        self.emit(b, Op::LogicalAnd, bt, ids(&[clamp, o0])),
                        self.emit(b, Op::LogicalAnd, bt, ids(&[clamp, o1])),
                    ),
                    Addressing::Const(_) => (o0, o1),
                };
                out = [Some(x0), Some(x1)];
            }
            if need(sb::ADDRESS_REPEAT) {
                let fl = self.glsl(b, GLOp::Floor, f32t, &[s]);
                let t = self.emit(b, Op::FSub, f32t, ids(&[s, fl]));
                let u = self.emit(b, Op::FMul, f32t, ids(&[t, wf]));
                let (r0, r1, ra) = split(self, b, u);
                let neg = self.emit(b, Op::FOrdLessThan, bt, ids(&[r0, zero]));
                let up = self.emit(b, Op::FAdd, f32t, ids(&[r0, wf]));
                let r0 = self.emit(b, Op::Select, f32t, ids(&[neg, up, r0]));
                let past = self.emit(b, Op::FOrdGreaterThan, bt, ids(&[r1, wm1]));
                let down = self.emit(b, Op::FSub, f32t, ids(&[r1, wf]));
                let r1 = self.emit(b, Op::Select, f32t, ids(&[past, down, r1]));
                (i0, i1, a) = match addressing {
                    Addressing::Dynamic { repeat, .. } => (
                        self.emit(b, Op::Select, f32t, ids(&[repeat, r0, i0])),
                        self.emit(b, Op::Select, f32t, ids(&[repeat, r1, i1])),
                        self.emit(b, Op::Select, f32t, ids(&[repeat, ra, a])),
                    ),
                    Addressing::Const(_) => (r0, r1, ra),
                };
            }
            if need(sb::ADDRESS_MIRRORED_REPEAT) {
                let u = self.mirrored_coord(b, s, wf);
                let (m0, m1, ma) = split(self, b, u);
                let m0 = self.glsl(b, GLOp::NMax, f32t, &[m0, zero]);
                let m1 = self.glsl(b, GLOp::NMin, f32t, &[m1, wm1]);
                (i0, i1, a) = match addressing {
                    Addressing::Dynamic { mirrored, .. } => (
                        self.emit(b, Op::Select, f32t, ids(&[mirrored, m0, i0])),
                        self.emit(b, Op::Select, f32t, ids(&[mirrored, m1, i1])),
                        self.emit(b, Op::Select, f32t, ids(&[mirrored, ma, a])),
                    ),
                    Addressing::Const(_) => (m0, m1, ma),
                };
            }
            // Indices into the image (NaN → 0), as u32.
            let idx = |l: &mut Self, b: &mut Block, i: Word| {
                let c = l.glsl(b, GLOp::NClamp, f32t, &[i, zero, wm1]);
                l.emit(b, Op::ConvertFToS, u32t, ids(&[c]))
            };
            let (j0, j1) = (idx(self, b, i0), idx(self, b, i1));
            dims.push(([j0, j1], a, out));
        }
        let layer = at
            .layer
            .map(|z| self.layer_index(b, z, at.size[at.spatial.len()]));
        let v4 = self.texel_vec4(Texel::Float);
        let any_clamp = dims.iter().any(|d| d.2[0].is_some());
        let border = any_clamp.then(|| self.border_color(b, arg, Texel::Float));
        // Every corner: bit k of `corner` picks i1 in dimension k.
        let n = dims.len();
        let mut texels = Vec::with_capacity(1 << n);
        for corner in 0..(1usize << n) {
            let mut coords: Vec<Word> = (0..n).map(|k| dims[k].0[(corner >> k) & 1]).collect();
            coords.extend(layer);
            let mut v = self.fetch_at(b, arg, img, v4, &coords, at.level);
            let mut out = None;
            for (k, d) in dims.iter().enumerate() {
                if let Some(o) = d.2[(corner >> k) & 1] {
                    out = Some(self.or(b, out, o));
                }
            }
            if let (Some(o), Some(border)) = (out, border) {
                v = self.emit(b, Op::Select, v4, ids(&[o, border, v]));
            }
            texels.push(v);
        }
        // Lerp dimension by dimension: (1 - a)·T(i0) + a·T(i1).
        for d in &dims {
            let a = d.1;
            let av = self.emit(b, Op::CompositeConstruct, v4, ids(&[a, a, a, a]));
            texels = texels
                .chunks(2)
                .map(|p| self.glsl(b, GLOp::FMix, v4, &[p[0], p[1], av]))
                .collect();
        }
        texels[0]
    }

    /// NEAREST: OpenCL's addressing rules, then OpImageFetch.
    fn fetch_nearest(
        &mut self,
        b: &mut Block,
        arg: u32,
        mode: Mode,
        texel: Texel,
        img: Word,
        at: &Coords,
    ) -> Word {
        let f32t = self.out.t_float(32);
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let addressing = self.addressing(b, mode);
        let (size, unnormalized) = (at.size, at.unnormalized);
        let mut coords = Vec::new();
        let mut outside: Option<Word> = None;
        for (k, &c) in at.spatial.iter().enumerate() {
            let w = size[k];
            let wf = self.emit(b, Op::ConvertUToF, f32t, ids(&[w]));
            let one = self.out.c_u32(1);
            let wm1 = self.emit(b, Op::ISub, u32t, ids(&[w, one]));
            let i = match addressing {
                Addressing::Const(sb::ADDRESS_REPEAT) => self.repeat_index(b, c, w, wf, wm1),
                Addressing::Const(sb::ADDRESS_MIRRORED_REPEAT) => {
                    self.mirrored_index(b, c, wf, wm1)
                }
                Addressing::Const(a) => {
                    let (i, out) = self.clamped_index(b, c, wf, wm1, unnormalized);
                    if a == sb::ADDRESS_CLAMP {
                        outside = Some(self.or(b, outside, out));
                    }
                    i
                }
                Addressing::Dynamic {
                    repeat,
                    mirrored,
                    clamp,
                } => {
                    let (edge, out) = self.clamped_index(b, c, wf, wm1, unnormalized);
                    let rep = self.repeat_index(b, c, w, wf, wm1);
                    let mir = self.mirrored_index(b, c, wf, wm1);
                    let i = self.emit(b, Op::Select, u32t, ids(&[mirrored, mir, edge]));
                    let i = self.emit(b, Op::Select, u32t, ids(&[repeat, rep, i]));
                    let out = self.emit(b, Op::LogicalAnd, bt, ids(&[clamp, out]));
                    outside = Some(self.or(b, outside, out));
                    i
                }
            };
            coords.push(i);
        }
        if let Some(z) = at.layer {
            coords.push(self.layer_index(b, z, size[at.spatial.len()]));
        }
        let v4 = self.texel_vec4(texel);
        let v = self.fetch_at(b, arg, img, v4, &coords, at.level);
        match outside {
            Some(out) => {
                let border = self.border_color(b, arg, texel);
                self.emit(b, Op::Select, v4, ids(&[out, border, v]))
            }
            None => v,
        }
    }

    /// Integer coordinates: OpenCL defines them only with unnormalized
    /// NEAREST samplers addressing CLAMP_TO_EDGE, CLAMP or NONE, where
    /// the texel is the coordinate clamped to the image (or the border
    /// colour outside it, for CLAMP); the layer is clamped likewise.
    fn fetch_nearest_int(
        &mut self,
        b: &mut Block,
        arg: u32,
        mode: Mode,
        texel: Texel,
        img: Word,
        coords: &[Word],
    ) -> Word {
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let size = self.image_size(b, arg, img);
        let ns = spatial_dims(self.images.args[&arg].dim) as usize;
        let clamp = match mode {
            Mode::Const(m) => (m & sb::ADDRESS_MASK == sb::ADDRESS_CLAMP).then_some(None),
            Mode::Dynamic(m) => {
                let mask = self.out.c_u32(sb::ADDRESS_MASK);
                let a = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, mask]));
                let c = self.out.c_u32(sb::ADDRESS_CLAMP);
                Some(Some(self.emit(b, Op::IEqual, bt, ids(&[a, c]))))
            }
        };
        let zero = self.out.c_u32(0);
        let one = self.out.c_u32(1);
        let mut clamped = Vec::new();
        let mut outside = None;
        for (k, &c) in coords.iter().enumerate() {
            let top = self.emit(b, Op::ISub, u32t, ids(&[size[k], one]));
            let i = self.glsl(b, GLOp::SClamp, u32t, &[c, zero, top]);
            if k < ns && clamp.is_some() {
                let out = self.emit(b, Op::INotEqual, bt, ids(&[c, i]));
                outside = Some(self.or(b, outside, out));
            }
            clamped.push(i);
        }
        let v4 = self.texel_vec4(texel);
        let v = self.fetch_at(b, arg, img, v4, &clamped, None);
        let out = match (outside, clamp) {
            (Some(o), Some(Some(is_clamp))) => {
                self.emit(b, Op::LogicalAnd, bt, ids(&[is_clamp, o]))
            }
            (Some(o), _) => o,
            (None, _) => return v,
        };
        let border = self.border_color(b, arg, texel);
        self.emit(b, Op::Select, v4, ids(&[out, border, v]))
    }

    fn or(&mut self, b: &mut Block, a: Option<Word>, c: Word) -> Word {
        match a {
            None => c,
            Some(a) => {
                let bt = self.out.t_bool();
                self.emit(b, Op::LogicalOr, bt, ids(&[a, c]))
            }
        }
    }

    /// CLAMP_TO_EDGE / CLAMP / NONE: (clamp(floor(u), 0, w-1), whether
    /// floor(u) is outside [0, w-1]), `u` = `c·w` for normalized
    /// coordinates.
    fn clamped_index(
        &mut self,
        b: &mut Block,
        c: Word,
        wf: Word,
        wm1: Word,
        unnormalized: Option<Option<Word>>,
    ) -> (Word, Word) {
        let f32t = self.out.t_float(32);
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let u = match unnormalized {
            Some(None) => c,
            None => self.emit(b, Op::FMul, f32t, ids(&[c, wf])),
            Some(Some(cond)) => {
                let scaled = self.emit(b, Op::FMul, f32t, ids(&[c, wf]));
                self.emit(b, Op::Select, f32t, ids(&[cond, c, scaled]))
            }
        };
        let fl = self.glsl(b, GLOp::Floor, f32t, &[u]);
        let m1 = self.out.c_float(32, -1.0);
        let fl = self.glsl(b, GLOp::NClamp, f32t, &[fl, m1, wf]);
        let i = self.emit(b, Op::ConvertFToS, u32t, ids(&[fl]));
        let zero = self.out.c_u32(0);
        let e = self.glsl(b, GLOp::SClamp, u32t, &[i, zero, wm1]);
        let out = self.emit(b, Op::INotEqual, bt, ids(&[i, e]));
        (e, out)
    }

    /// REPEAT: `u = (s - floor(s))·w; i = floor(u); if i > w-1: i -= w`.
    fn repeat_index(&mut self, b: &mut Block, s: Word, w: Word, wf: Word, wm1: Word) -> Word {
        let f32t = self.out.t_float(32);
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let fl = self.glsl(b, GLOp::Floor, f32t, &[s]);
        let t = self.emit(b, Op::FSub, f32t, ids(&[s, fl]));
        let u = self.emit(b, Op::FMul, f32t, ids(&[t, wf]));
        let fu = self.glsl(b, GLOp::Floor, f32t, &[u]);
        let zero = self.out.c_float(32, 0.0);
        let fu = self.glsl(b, GLOp::NClamp, f32t, &[fu, zero, wf]);
        let i = self.emit(b, Op::ConvertFToS, u32t, ids(&[fu]));
        let over = self.emit(b, Op::UGreaterThan, bt, ids(&[i, wm1]));
        let wrapped = self.emit(b, Op::ISub, u32t, ids(&[i, w]));
        self.emit(b, Op::Select, u32t, ids(&[over, wrapped, i]))
    }

    /// MIRRORED_REPEAT: `s' = |s - 2·rint(s/2)|; i = min(floor(s'·w), w-1)`.
    fn mirrored_index(&mut self, b: &mut Block, s: Word, wf: Word, wm1: Word) -> Word {
        let f32t = self.out.t_float(32);
        let u32t = self.out.t_u32();
        let u = self.mirrored_coord(b, s, wf);
        let fu = self.glsl(b, GLOp::Floor, f32t, &[u]);
        let zero = self.out.c_float(32, 0.0);
        let fu = self.glsl(b, GLOp::NClamp, f32t, &[fu, zero, wf]);
        let i = self.emit(b, Op::ConvertFToS, u32t, ids(&[fu]));
        self.glsl(b, GLOp::UMin, u32t, &[i, wm1])
    }

    /// OpImageFetch of the texel at integer `coords` (one per dimension,
    /// then the layer) of mip level `level` (u32; `None`: 0).
    fn fetch_at(
        &mut self,
        b: &mut Block,
        arg: u32,
        img: Word,
        v4: Word,
        coords: &[Word],
        level: Option<Word>,
    ) -> Word {
        let u32t = self.out.t_u32();
        let ct = if coords.len() == 1 {
            u32t
        } else {
            self.out.t_vec(u32t, coords.len() as u32)
        };
        let coord = if coords.len() == 1 {
            coords[0]
        } else {
            self.emit(b, Op::CompositeConstruct, ct, ids(coords))
        };
        if self.may_be_from_buffer(arg) {
            let texel = self.images.args[&arg].texel();
            return self.read_from_buffer_or_image(b, arg, (coord, ct), texel, level);
        }
        let lod = level.unwrap_or_else(|| self.out.c_u32(0));
        self.emit(
            b,
            Op::ImageFetch,
            v4,
            vec![
                Operand::IdRef(img),
                Operand::IdRef(coord),
                Operand::ImageOperands(ImageOperands::LOD),
                Operand::IdRef(lod),
            ],
        )
    }

    /// The array layer of float coordinate `z` among `n` (u32) layers:
    /// `clamp(rint(z), 0, n-1)` (NaN: 0).
    fn layer_index(&mut self, b: &mut Block, z: Word, n: Word) -> Word {
        let f32t = self.out.t_float(32);
        let u32t = self.out.t_u32();
        let nf = self.emit(b, Op::ConvertUToF, f32t, ids(&[n]));
        let one = self.out.c_float(32, 1.0);
        let top = self.emit(b, Op::FSub, f32t, ids(&[nf, one]));
        let zero = self.out.c_float(32, 0.0);
        let r = self.glsl(b, GLOp::RoundEven, f32t, &[z]);
        let r = self.glsl(b, GLOp::NClamp, f32t, &[r, zero, top]);
        self.emit(b, Op::ConvertFToS, u32t, ids(&[r]))
    }

    /// MIRRORED_REPEAT's unnormalized coordinate `|s - 2·rint(s/2)|·w`.
    fn mirrored_coord(&mut self, b: &mut Block, s: Word, wf: Word) -> Word {
        let f32t = self.out.t_float(32);
        let half = self.out.c_float(32, 0.5);
        let two = self.out.c_float(32, 2.0);
        let h = self.emit(b, Op::FMul, f32t, ids(&[s, half]));
        let r = self.glsl(b, GLOp::RoundEven, f32t, &[h]);
        let r2 = self.emit(b, Op::FMul, f32t, ids(&[r, two]));
        let d = self.emit(b, Op::FSub, f32t, ids(&[s, r2]));
        let a = self.glsl(b, GLOp::FAbs, f32t, &[d]);
        self.emit(b, Op::FMul, f32t, ids(&[a, wf]))
    }
}
