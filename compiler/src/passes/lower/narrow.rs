//! Floats narrowed to half in integer arithmetic.
//!
//! Every conversion of a float (or of a double, through a float rounded to
//! odd: `double_to_float_odd`) to half, `convert_half*`, `(half)x`,
//! `vstore_half*`, half division, read_imageh, is lowered to integer
//! operations on the float's bits instead of OpFConvert / PackHalf2x16.
//!
//! NVIDIA's Vulkan compiler (H100, driver 580) folds a narrowing to half
//! followed by a widening back to float into nothing: `(float)(half)x`
//! gave x itself for every x (also through `as_ushort`/`as_half`,
//! `vstore_half`/`vload_half` on a private array, and PackHalf2x16 /
//! UnpackHalf2x16), so `fmod((half)0.1f, ...)`, which widens its
//! arguments (half.cl), saw 0.1f, and directed rounding, which compares the
//! rounded value with the exact one, saw them equal. The half's bits were
//! right whenever they were stored (`.device/probe/fold.cl`). Bits computed
//! by integer operations cannot be folded that way: widening them again
//! (OpFConvert from half, exact) reads the rounded value on every driver.
//!
//! The rounding itself: for |x| ≥ 2^-14 (a normal half) the half's
//! magnitude is the float's bits minus the exponent bias difference
//! (112 << 23), shifted right by 13; below, the 24-bit significand
//! (implicit bit included) shifted right by 126 - exponent (at least 14).
//! The bits shifted out decide the step: to nearest even, away from zero
//! when any is set (toward +inf for positive values, -inf for negative
//! ones), or none (toward zero); a carry moves into the exponent (the
//! largest denormal to the smallest normal, the largest finite to
//! infinity) as IEEE 754 wants. Magnitudes of 2^16 and more overflow: to
//! infinity, or to the largest finite half where the mode rounds toward
//! zero. Infinities stay; NaNs become quiet NaNs with the payload's top
//! bits. Float denormal inputs are rounded exactly too.
//!
//! Gaps: none known.

use rspirv::spirv::{self, GlslStd450Op as GLOp, Op, Word};

use super::context::Lower;
use super::emit::{ids, Block};
use crate::analyses::type_table::Ty;

impl Lower<'_> {
    /// The bits (u16 or a u16 vector) of the half nearest to the float
    /// `x` (type `st`: float or a float vector) in direction `mode` (to
    /// nearest even when `None`), in integer arithmetic (module docs).
    fn float_to_half_bits(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        mode: Option<spirv::FPRoundingMode>,
    ) -> Word {
        use spirv::FPRoundingMode as R;
        let u32t = self.int_like(st, 32);
        let u16t = self.int_like(st, 16);
        let bt = self.bool_ty(st);
        let k = |l: &mut Self, v: u64| l.splat(u32t, v, 0.0);
        let u = self.emit(b, Op::Bitcast, u32t, ids(&[x]));
        let abs_mask = k(self, 0x7fff_ffff);
        let a = self.op2(b, Op::BitwiseAnd, u32t, u, abs_mask);
        let sign_bit = k(self, 0x8000_0000);
        let neg = self.op2(b, Op::UGreaterThanEqual, bt, u, sign_bit);
        // A normal half: drop 13 bits of the rebiased magnitude.
        let bias = k(self, 112 << 23);
        let rebiased = self.op2(b, Op::ISub, u32t, a, bias);
        let c13 = k(self, 13);
        let t_norm = self.op2(b, Op::ShiftRightLogical, u32t, rebiased, c13);
        let low13 = k(self, 0x1fff);
        let rem_norm = self.op2(b, Op::BitwiseAnd, u32t, a, low13);
        // A denormal half (or zero): the significand shifted right by
        // 126 - exponent, at most 31 (everything shifted out).
        let c23 = k(self, 23);
        let e = self.op2(b, Op::ShiftRightLogical, u32t, a, c23);
        let mant_mask = k(self, 0x7f_ffff);
        let mant = self.op2(b, Op::BitwiseAnd, u32t, a, mant_mask);
        let zero = k(self, 0);
        let one = k(self, 1);
        let has_implicit = self.op2(b, Op::INotEqual, bt, e, zero);
        let implicit = k(self, 0x80_0000);
        let implicit = self.emit(b, Op::Select, u32t, ids(&[has_implicit, implicit, zero]));
        let sig = self.op2(b, Op::BitwiseOr, u32t, mant, implicit);
        let e1 = self.glsl(b, GLOp::UMax, u32t, &[e, one]);
        let c126 = k(self, 126);
        let sh = self.op2(b, Op::ISub, u32t, c126, e1);
        let c31 = k(self, 31);
        let sh = self.glsl(b, GLOp::UMin, u32t, &[sh, c31]);
        let sh = self.glsl(b, GLOp::UMax, u32t, &[sh, one]);
        let t_den = self.op2(b, Op::ShiftRightLogical, u32t, sig, sh);
        let bit = self.op2(b, Op::ShiftLeftLogical, u32t, one, sh);
        let low = self.op2(b, Op::ISub, u32t, bit, one);
        let rem_den = self.op2(b, Op::BitwiseAnd, u32t, sig, low);
        let half_den = self.op2(b, Op::ShiftRightLogical, u32t, bit, one);
        let min_normal = k(self, 0x3880_0000);
        let normal = self.op2(b, Op::UGreaterThanEqual, bt, a, min_normal);
        let t = self.emit(b, Op::Select, u32t, ids(&[normal, t_norm, t_den]));
        let rem = self.emit(b, Op::Select, u32t, ids(&[normal, rem_norm, rem_den]));
        let half_norm = k(self, 0x1000);
        let halfway = self.emit(b, Op::Select, u32t, ids(&[normal, half_norm, half_den]));
        // The step away from zero, and what an overflow gives.
        let inexact = self.op2(b, Op::INotEqual, bt, rem, zero);
        let not_neg = self.emit(b, Op::LogicalNot, bt, ids(&[neg]));
        let (inf, max) = (k(self, 0x7c00), k(self, 0x7bff));
        let (up, big) = match mode {
            Some(R::RTZ) => (None, max),
            Some(R::RTP) => (
                Some(self.op2(b, Op::LogicalAnd, bt, inexact, not_neg)),
                self.emit(b, Op::Select, u32t, ids(&[neg, max, inf])),
            ),
            Some(R::RTN) => (
                Some(self.op2(b, Op::LogicalAnd, bt, inexact, neg)),
                self.emit(b, Op::Select, u32t, ids(&[neg, inf, max])),
            ),
            _ => {
                let above = self.op2(b, Op::UGreaterThan, bt, rem, halfway);
                let tie = self.op2(b, Op::IEqual, bt, rem, halfway);
                let odd = self.op2(b, Op::BitwiseAnd, u32t, t, one);
                let odd = self.op2(b, Op::INotEqual, bt, odd, zero);
                let tie_odd = self.op2(b, Op::LogicalAnd, bt, tie, odd);
                (Some(self.op2(b, Op::LogicalOr, bt, above, tie_odd)), inf)
            }
        };
        let r = match up {
            Some(up) => {
                let step = self.emit(b, Op::Select, u32t, ids(&[up, one, zero]));
                self.op2(b, Op::IAdd, u32t, t, step)
            }
            None => t,
        };
        let two16 = k(self, 0x4780_0000);
        let overflow = self.op2(b, Op::UGreaterThanEqual, bt, a, two16);
        let r = self.emit(b, Op::Select, u32t, ids(&[overflow, big, r]));
        // Infinities and NaNs.
        let inf32 = k(self, 0x7f80_0000);
        let nonfinite = self.op2(b, Op::UGreaterThanEqual, bt, a, inf32);
        let nan = self.op2(b, Op::UGreaterThan, bt, a, inf32);
        let payload = self.op2(b, Op::ShiftRightLogical, u32t, a, c13);
        let quiet = k(self, 0x7e00);
        let nan_bits = self.op2(b, Op::BitwiseOr, u32t, payload, quiet);
        let special = self.emit(b, Op::Select, u32t, ids(&[nan, nan_bits, inf]));
        let r = self.emit(b, Op::Select, u32t, ids(&[nonfinite, special, r]));
        let c16 = k(self, 16);
        let sign = self.op2(b, Op::ShiftRightLogical, u32t, u, c16);
        let sign_mask = k(self, 0x8000);
        let sign = self.op2(b, Op::BitwiseAnd, u32t, sign, sign_mask);
        let r = self.op2(b, Op::BitwiseOr, u32t, r, sign);
        self.emit(b, Op::UConvert, u16t, ids(&[r]))
    }

    /// The bits of the float (or double) `x` of type `st` rounded to half
    /// as `mode` says (to nearest even when `None`): a double through a
    /// float rounded to odd (`double_to_float_odd`: the odd float lies on
    /// the same side of every half as the double), then
    /// `float_to_half_bits`.
    pub(crate) fn half_bits(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        mode: Option<spirv::FPRoundingMode>,
    ) -> Word {
        let (x, st) = if self.out.scalar_width(self.out.elem(st)) == Some(64) {
            (self.double_to_float_odd(b, x, st), self.float_like(st, 32))
        } else {
            (x, st)
        };
        self.float_to_half_bits(b, x, st, mode)
    }

    /// A double (or double vector, output type `dt`) rounded to float "to
    /// odd": toward zero, with the last mantissa bit set when the float is
    /// not exact (the nearest float one step toward zero where the nearest
    /// is larger in magnitude; an infinity becomes the largest finite
    /// float, which is odd). Rounding that to half (or any type of 22 bits
    /// or fewer) rounds the double correctly: Vulkan drivers may convert a
    /// double to half through float (lavapipe does), which can round twice.
    fn double_to_float_odd(&mut self, b: &mut Block, d: Word, dt: Word) -> Word {
        let f32t = self.float_like(dt, 32);
        let u32t = self.int_like(dt, 32);
        let bt = self.bool_ty(dt);
        let f = self.emit(b, Op::FConvert, f32t, ids(&[d]));
        let back = self.emit(b, Op::FConvert, dt, ids(&[f]));
        let inexact = self.emit(b, Op::FOrdNotEqual, bt, ids(&[back, d]));
        let (ab, ad) = (
            self.glsl(b, GLOp::FAbs, dt, &[back]),
            self.glsl(b, GLOp::FAbs, dt, &[d]),
        );
        let larger = self.emit(b, Op::FOrdGreaterThan, bt, ids(&[ab, ad]));
        let bits = self.emit(b, Op::Bitcast, u32t, ids(&[f]));
        let one = self.splat(u32t, 1, 0.0);
        let dec = self.emit(b, Op::ISub, u32t, ids(&[bits, one]));
        let trunc = self.emit(b, Op::Select, u32t, ids(&[larger, dec, bits]));
        let odd = self.emit(b, Op::BitwiseOr, u32t, ids(&[trunc, one]));
        let bits = self.emit(b, Op::Select, u32t, ids(&[inexact, odd, bits]));
        self.emit(b, Op::Bitcast, f32t, ids(&[bits]))
    }

    /// A float (or double) `x` of type `st` converted to the half type
    /// `t`, rounded as `mode` says (`half_bits`).
    pub(crate) fn narrow_to_half(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        t: Word,
        mode: Option<spirv::FPRoundingMode>,
    ) -> Word {
        let bits = self.half_bits(b, x, st, mode);
        self.emit(b, Op::Bitcast, t, ids(&[bits]))
    }

    /// `x / y` of halves (type `t`, scalar or vector): in float, rounded
    /// to half once. OpenCL wants half division within 1 ulp; Vulkan's
    /// 16-bit OpFDiv may be 2.5 ulp off, its 32-bit one within 2.5 float
    /// ulp (2^-13 of a half ulp each).
    pub(crate) fn half_div(&mut self, b: &mut Block, t: Word, x: Word, y: Word) -> Word {
        let ft = self.float_like(t, 32);
        let fx = self.emit(b, Op::FConvert, ft, ids(&[x]));
        let fy = self.emit(b, Op::FConvert, ft, ids(&[y]));
        let q = self.emit(b, Op::FDiv, ft, ids(&[fx, fy]));
        self.narrow_to_half(b, q, ft, t, None)
    }

    /// Whether the input type `t` is half or a half vector.
    pub(crate) fn is_half_ty(&self, t: Word) -> bool {
        let e = match self.tys.get(t) {
            Ty::Vector(e, _) => *e,
            _ => t,
        };
        matches!(self.tys.get(e), Ty::Float(16))
    }
}
