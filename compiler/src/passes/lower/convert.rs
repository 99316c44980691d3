//! Conversions (`lower_conversion`): OpenCL's `convert_T[_sat][_rte|_rtz|_rtp|_rtn]`
//! on Vulkan's round-to-nearest conversions.
//!
//! # Algorithm
//!
//! * float → int: FPRoundingMode rounds first (GLSL.std.450 RoundEven,
//!   Ceil, Floor); SaturatedConversion clamps to the destination range
//!   (NaN → 0); doubles are clamped before converting.
//! * int → float and double → float with a directed rounding: converted
//!   to nearest, compared with the exact value and moved one ulp where the
//!   result lies on the wrong side (`round_directed_bits`).
//! * → half: in integer arithmetic (`narrow`), since NVIDIA folds an
//!   OpFConvert to half and back into nothing.
//! * int → int: saturation clamps; widening a clamped value zero-extends.
//! * 8/16-wide vectors convert per 4-wide part.
//!
//! Gaps: none known (every conversion and rounding mode of OpenCL C is
//! implemented).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Decoration, GlslStd450Op as GLOp, Op, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};

impl Lower<'_> {
    /// Conversions: FPRoundingMode on float→int rounds first;
    /// SaturatedConversion clamps to the destination range.
    pub(crate) fn lower_conversion(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let id = inst.result_id.unwrap_or(0);
        let op = inst.class.opcode;
        let rounding = self.ix.decorations.get(&id).and_then(|v| {
            v.iter()
                .find_map(|d| match (d.operands.get(1), d.operands.get(2)) {
                    (
                        Some(Operand::Decoration(Decoration::FPRoundingMode)),
                        Some(Operand::FPRoundingMode(m)),
                    ) => Some(*m),
                    _ => None,
                })
        });
        let saturate = self.ix.has_decoration(id, Decoration::SaturatedConversion)
            || matches!(op, Op::SatConvertSToU | Op::SatConvertUToS);
        let src_id = inst.operands[0].unwrap_id_ref();
        let src = self.v(src_id);
        let src_ty = self.ty_of(src_id);
        let dst_ty = inst.result_type.unwrap_or(0);
        let r = if self.is_wide(dst_ty) {
            let (spt, dpt) = (self.wide_part_ty(src_ty)?, self.wide_part_ty(dst_ty)?);
            let mut parts = Vec::new();
            for i in 0..self.wide_parts(dst_ty) {
                let x = self.wide_part(b, src, spt, i);
                parts.push(self.convert_value(b, op, x, spt, dpt, rounding, saturate)?);
            }
            let t = self.lower_ty(dst_ty)?;
            self.emit(b, Op::CompositeConstruct, t, ids(&parts))
        } else {
            let (st, t) = (self.lower_ty(src_ty)?, self.lower_ty(dst_ty)?);
            self.convert_value(b, op, src, st, t, rounding, saturate)?
        };
        self.alias.insert(id, r);
        Ok(())
    }

    /// One conversion of `x` (output type `st`) to `t`: FPRoundingMode on
    /// float→int rounds first; saturation clamps to the destination range
    /// (NaN → 0).
    #[allow(clippy::too_many_arguments)]
    fn convert_value(
        &mut self,
        b: &mut Block,
        op: Op,
        x: Word,
        st: Word,
        t: Word,
        rounding: Option<spirv::FPRoundingMode>,
        saturate: bool,
    ) -> Res<Word> {
        let mut x = x;
        let mut op = op;
        match op {
            Op::ConvertFToS | Op::ConvertFToU => {
                use spirv::FPRoundingMode as R;
                let r = match rounding {
                    Some(R::RTE) => Some(spirv::GlslStd450Op::RoundEven),
                    Some(R::RTP) => Some(spirv::GlslStd450Op::Ceil),
                    Some(R::RTN) => Some(spirv::GlslStd450Op::Floor),
                    _ => None,
                };
                if let Some(r) = r {
                    x = self.glsl_round(b, r, st, x);
                }
                if saturate {
                    let signed = op == Op::ConvertFToS;
                    return Ok(self.saturating_float_to_int(b, op, x, st, t, signed));
                } else if self.out.scalar_width(self.out.elem(st)) == Some(64) {
                    x = self.clamp_double_to_int(b, x, st, t, op == Op::ConvertFToS);
                }
            }
            Op::ConvertSToF | Op::ConvertUToF => {
                use spirv::FPRoundingMode as R;
                let sw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
                let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
                // Significant bits of the source (the signed minimum is a
                // power of two) and of the float: fewer or as many, every
                // value converts exactly.
                let value_bits = if op == Op::ConvertSToF { sw - 1 } else { sw };
                let precision = match fw {
                    16 => 11,
                    32 => 24,
                    _ => 53,
                };
                if let (Some(mode @ (R::RTZ | R::RTP | R::RTN)), true) =
                    (rounding, value_bits > precision)
                {
                    return Ok(self.int_to_float_directed(b, op, x, st, t, mode));
                }
            }
            Op::FConvert => {
                use spirv::FPRoundingMode as R;
                let sw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
                let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
                if fw == 16 && sw > 16 {
                    // In integer arithmetic (`narrow`): NVIDIA folds an
                    // OpFConvert to half and back into nothing.
                    return Ok(self.narrow_to_half(b, x, st, t, rounding));
                }
                if let (Some(mode @ (R::RTZ | R::RTP | R::RTN)), true) = (rounding, fw < sw) {
                    return Ok(self.float_narrow_directed(b, x, st, t, mode));
                }
                return Ok(self.emit(b, Op::FConvert, t, ids(&[x])));
            }
            Op::SConvert | Op::UConvert | Op::SatConvertSToU | Op::SatConvertUToS => {
                let (sw, dw) = (
                    self.out.scalar_width(st).unwrap_or(32),
                    self.out.scalar_width(t).unwrap_or(32),
                );
                if saturate {
                    // Source signedness: SConvert/SatConvertSToU read a
                    // signed value; destination signedness: SConvert and
                    // SatConvertUToS write a signed one.
                    let src_signed = matches!(op, Op::SConvert | Op::SatConvertSToU);
                    let dst_signed = matches!(op, Op::SConvert | Op::SatConvertUToS);
                    x = self.saturate_int(b, x, st, sw, dw, src_signed, dst_signed);
                }
                let signed_to_unsigned = op == Op::SatConvertSToU;
                op = match op {
                    Op::SatConvertSToU => Op::SConvert,
                    Op::SatConvertUToS => Op::UConvert,
                    o => o,
                };
                if sw == dw {
                    return Ok(x);
                }
                if signed_to_unsigned && saturate && dw > sw {
                    // Widening a clamped non-negative value (SToU): zero-extend.
                    // (A saturated SConvert between signed types sign-extends:
                    // convert_int_sat((char)-5) is -5.)
                    op = Op::UConvert;
                }
            }
            _ => {}
        }
        Ok(self.emit(b, op, t, ids(&[x])))
    }

    /// An integer `x` (type `st`) to float `t` (half, float or double)
    /// rounded toward zero, +inf or -inf (`convert_T_rtz/rtp/rtn`):
    /// Vulkan's conversion rounds to nearest even, so the result `r` is
    /// compared with `x` exactly and moved one ulp where it lies on the
    /// wrong side. The comparison is in 64 bits: `r` converted back (an
    /// integer-valued float) against `x` extended, signed, or unsigned for
    /// ulong sources. `r` may lie outside the 64-bit range, where that
    /// conversion is undefined: at 2^63 (long or ulong near their maximum
    /// rounding up to float or double; 2^64 for ulong) `r` is above `x`,
    /// and so is +inf (a half above 65504), -inf below; those are decided
    /// by float comparisons and converted as 0. One ulp is one step of
    /// the bit pattern, which also takes an infinity to the largest finite
    /// value of its sign (a half rounded toward zero from above 65504).
    fn int_to_float_directed(
        &mut self,
        b: &mut Block,
        op: Op,
        x: Word,
        st: Word,
        t: Word,
        mode: spirv::FPRoundingMode,
    ) -> Word {
        let n = self.out.vec_len(st);
        let vec = |l: &mut Self, e: Word| if n == 1 { e } else { l.out.t_vec(e, n) };
        let sw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
        let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
        let i64t = self.out.t_int(64);
        let i64t = vec(self, i64t);
        let bits_t = self.out.t_int(fw);
        let bits_t = vec(self, bits_t);
        let boolt = self.out.t_bool();
        let boolt = vec(self, boolt);
        let signed = op == Op::ConvertSToF;
        // ulong compares unsigned; everything else fits a signed long.
        let unsigned_cmp = !signed && sw == 64;
        let x64 = if sw == 64 {
            x
        } else {
            let widen = if signed { Op::SConvert } else { Op::UConvert };
            self.emit(b, widen, i64t, ids(&[x]))
        };
        let r = self.emit(b, op, t, ids(&[x]));
        // Above the 64-bit range (half: +inf), below it (half: -inf).
        let (over, under) = if fw == 16 {
            let hi = self.splat(t, 0, 65504.0);
            let over = self.emit(b, Op::FOrdGreaterThan, boolt, ids(&[r, hi]));
            let under = signed.then(|| {
                let lo = self.splat(t, 0, -65504.0);
                self.emit(b, Op::FOrdLessThan, boolt, ids(&[r, lo]))
            });
            (over, under)
        } else {
            let limit = if unsigned_cmp {
                2f64.powi(64)
            } else {
                2f64.powi(63)
            };
            let hi = self.splat(t, 0, limit);
            let over = self.emit(b, Op::FOrdGreaterThanEqual, boolt, ids(&[r, hi]));
            (over, None)
        };
        let outside = match under {
            Some(u) => self.emit(b, Op::LogicalOr, boolt, ids(&[over, u])),
            None => over,
        };
        let zero = self.splat(t, 0, 0.0);
        let r_in = self.emit(b, Op::Select, t, ids(&[outside, zero, r]));
        let (to_int, gt, lt) = if unsigned_cmp {
            (Op::ConvertFToU, Op::UGreaterThan, Op::ULessThan)
        } else {
            (Op::ConvertFToS, Op::SGreaterThan, Op::SLessThan)
        };
        let back = self.emit(b, to_int, i64t, ids(&[r_in]));
        let gt = self.emit(b, gt, boolt, ids(&[back, x64]));
        let lt = self.emit(b, lt, boolt, ids(&[back, x64]));
        let not_outside = self.emit(b, Op::LogicalNot, boolt, ids(&[outside]));
        let gt = self.emit(b, Op::LogicalAnd, boolt, ids(&[gt, not_outside]));
        let lt = self.emit(b, Op::LogicalAnd, boolt, ids(&[lt, not_outside]));
        let above = self.emit(b, Op::LogicalOr, boolt, ids(&[over, gt]));
        let below = match under {
            Some(u) => self.emit(b, Op::LogicalOr, boolt, ids(&[u, lt])),
            None => lt,
        };
        // One ulp toward the side `mode` wants (r has x's sign; it is 0
        // only for x = 0, exact).
        let bits = self.emit(b, Op::Bitcast, bits_t, ids(&[r]));
        let neg = self.emit(b, Op::FOrdLessThan, boolt, ids(&[r, zero]));
        let bits = self.round_directed_bits(b, bits, bits_t, [above, below, neg], mode);
        self.emit(b, Op::Bitcast, t, ids(&[bits]))
    }

    /// A double `x` (type `st`) narrowed to float (type `t`) rounded
    /// toward zero, +inf or -inf (`convert_float_rtz/rtp/rtn`): Vulkan's
    /// OpFConvert rounds to nearest, so the result is converted back
    /// (exactly) and compared with `x`, then moved one ulp where it lies on
    /// the wrong side (`round_directed_bits`). Narrowing to half is done in
    /// integer arithmetic instead (`narrow`): NVIDIA folds a float
    /// converted to half and back, not a double converted to float and
    /// back (`.device/probe/fold.cl`).
    fn float_narrow_directed(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        t: Word,
        mode: spirv::FPRoundingMode,
    ) -> Word {
        let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
        let boolt = self.bool_ty(t);
        let r = self.emit(b, Op::FConvert, t, ids(&[x]));
        let back = self.emit(b, Op::FConvert, st, ids(&[r]));
        let above = self.emit(b, Op::FOrdGreaterThan, boolt, ids(&[back, x]));
        let below = self.emit(b, Op::FOrdLessThan, boolt, ids(&[back, x]));
        let zero = self.splat(st, 0, 0.0);
        let neg = self.emit(b, Op::FOrdLessThan, boolt, ids(&[x, zero]));
        let bits_t = self.int_like(t, fw);
        let bits = self.emit(b, Op::Bitcast, bits_t, ids(&[r]));
        let bits = self.round_directed_bits(b, bits, bits_t, [above, below, neg], mode);
        self.emit(b, Op::Bitcast, t, ids(&[bits]))
    }

    /// The bit pattern `bits` (type `bits_t`) of a float rounded to
    /// nearest, moved one ulp where `mode` (RTZ, RTP, RTN) wants the other
    /// neighbour of the exact value: `above` / `below` say where the
    /// rounded value lies against the exact one, `neg` that the exact one
    /// is negative. One step of the pattern moves the magnitude (up for a
    /// positive value, down for a negative one, from either zero too), and
    /// takes an infinity to the largest finite value of its sign. NaNs
    /// compare false and stay.
    pub(crate) fn round_directed_bits(
        &mut self,
        b: &mut Block,
        bits: Word,
        bits_t: Word,
        [above, below, neg]: [Word; 3],
        mode: spirv::FPRoundingMode,
    ) -> Word {
        use spirv::FPRoundingMode as R;
        let one = self.splat(bits_t, 1, 0.0);
        let inc = self.emit(b, Op::IAdd, bits_t, ids(&[bits, one]));
        let dec = self.emit(b, Op::ISub, bits_t, ids(&[bits, one]));
        // Toward +inf: a larger magnitude when positive, smaller when
        // negative; toward -inf the other way.
        let up = self.emit(b, Op::Select, bits_t, ids(&[neg, dec, inc]));
        let down = self.emit(b, Op::Select, bits_t, ids(&[neg, inc, dec]));
        let raised = self.emit(b, Op::Select, bits_t, ids(&[below, up, bits]));
        let lowered = self.emit(b, Op::Select, bits_t, ids(&[above, down, bits]));
        match mode {
            R::RTP => raised,
            R::RTN => lowered,
            // Toward zero: up from below when negative, down otherwise.
            _ => self.emit(b, Op::Select, bits_t, ids(&[neg, raised, lowered])),
        }
    }

    /// convert_T_sat from float (output types `st` → `t`): the converted
    /// value, NaN → 0, below the range → its minimum, at or above 2^w (2^(w-1)
    /// signed) → its maximum. The clamp bound is the largest float below
    /// that limit (2^31 - 1 is not a float: clamping to it would round up to
    /// 2^31 and overflow the conversion); values at the limit or above
    /// select the integer maximum after the conversion.
    pub(crate) fn saturating_float_to_int(
        &mut self,
        b: &mut Block,
        op: Op,
        x: Word,
        st: Word,
        t: Word,
        signed: bool,
    ) -> Word {
        let w = self.out.scalar_width(self.out.elem(t)).unwrap_or(32) as i32;
        let fw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
        let (precision, max_finite) = match fw {
            16 => (11, 65504.0),
            32 => (24, f32::MAX as f64),
            _ => (53, f64::MAX),
        };
        let k = if signed { w - 1 } else { w };
        let limit = 2f64.powi(k);
        let (limit, hi) = if limit <= max_finite {
            (limit, limit - 2f64.powi(k - precision))
        } else {
            (f64::INFINITY, max_finite)
        };
        let lo = if signed {
            (-2f64.powi(k)).max(-max_finite)
        } else {
            0.0
        };
        let lo_c = self.splat(st, 0, lo);
        let hi_c = self.splat(st, 0, hi);
        let c = self.glsl(b, GLOp::NClamp, st, &[x, lo_c, hi_c]);
        let bt = self.bool_ty(st);
        let nan = self.emit(b, Op::IsNan, bt, ids(&[x]));
        let z = self.splat(st, 0, 0.0);
        let c = self.emit(b, Op::Select, st, ids(&[nan, z, c]));
        let conv = self.emit(b, op, t, ids(&[c]));
        let limit_c = self.splat(st, 0, limit);
        let over = self.emit(b, Op::FOrdGreaterThanEqual, bt, ids(&[x, limit_c]));
        let max = if signed {
            (1u64 << (w - 1)) - 1
        } else if w == 64 {
            u64::MAX
        } else {
            (1u64 << w) - 1
        };
        let max_c = self.splat(t, max, 0.0);
        let r = self.emit(b, Op::Select, t, ids(&[over, max_c, conv]));
        if !(signed && limit.is_infinite()) {
            return r;
        }
        // A half converted to a wider signed type: -inf → the minimum.
        let neg = self.splat(st, 0, f64::NEG_INFINITY);
        let under = self.emit(b, Op::FOrdEqual, bt, ids(&[x, neg]));
        let min_c = self.splat(t, 1u64 << (w - 1), 0.0);
        self.emit(b, Op::Select, t, ids(&[under, min_c, r]))
    }

    /// A double converted to an integer type without `_sat`: out-of-range
    /// values and NaN have undefined results in OpenCL, so they get the
    /// saturated ones (NaN → 0), as on GPUs whose conversion instructions
    /// saturate. libclc's double-precision math turns arguments such as NaN
    /// or infinity into table indices this way and discards the value
    /// later: with x86's conversion (lavapipe: INT_MIN) the table read would
    /// leave the buffer. `x` of output type `st` (double or double vector)
    /// → the clamped double.
    pub(crate) fn clamp_double_to_int(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        t: Word,
        signed: bool,
    ) -> Word {
        let w = self.out.scalar_width(self.out.elem(t)).unwrap_or(32) as i32;
        // The extreme doubles that convert in range.
        let (lo, hi) = match (signed, w) {
            (true, 64) => (-(2f64.powi(63)), 2f64.powi(63) - 1024.0),
            (false, 64) => (0.0, 2f64.powi(64) - 2048.0),
            (true, w) => (-(2f64.powi(w - 1)), 2f64.powi(w - 1) - 1.0),
            (false, w) => (0.0, 2f64.powi(w) - 1.0),
        };
        let lo_c = self.splat(st, 0, lo);
        let hi_c = self.splat(st, 0, hi);
        let c = self.glsl(b, GLOp::NClamp, st, &[x, lo_c, hi_c]);
        let bt = self.bool_ty(st);
        let nan = self.emit(b, Op::IsNan, bt, ids(&[x]));
        let z = self.splat(st, 0, 0.0);
        self.emit(b, Op::Select, st, ids(&[nan, z, c]))
    }

    /// Integer saturation before a width change: clamps `x` (output type
    /// `st`, `sw` bits, signed or not) to the range of the destination
    /// (`dw` bits, signed or not), in the source width.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn saturate_int(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        sw: u32,
        dw: u32,
        src_signed: bool,
        dst_signed: bool,
    ) -> Word {
        let max_of = |w: u32, signed: bool| {
            if signed {
                (1u128 << (w - 1)) - 1
            } else {
                (1u128 << w) - 1
            }
        };
        let hi = max_of(dw, dst_signed).min(max_of(sw, src_signed)) as u64;
        if src_signed {
            let lo = if dst_signed {
                (-(1i128 << (dw.min(sw) - 1))) as u64
            } else {
                0
            };
            let lo = self.splat(st, lo, 0.0);
            let hi = self.splat(st, hi, 0.0);
            self.glsl(b, GLOp::SClamp, st, &[x, lo, hi])
        } else {
            let hi = self.splat(st, hi, 0.0);
            self.glsl(b, GLOp::UMin, st, &[x, hi])
        }
    }
}
