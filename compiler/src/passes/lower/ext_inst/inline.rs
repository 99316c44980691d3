//! The OpenCL.std builtins that neither GLSL.std.450 nor a core instruction
//! implements (`Impl::Inline` in the table, `super`): inline code on the
//! output values, one builtin per match arm (`inline_builtin`). Integer
//! helpers it shares with others are in `int_ops`.
//!
//! Gaps: the float transcendental ones here (exp10, log10, expm1, ...) are
//! built from GLSL.std.450's, so they have Vulkan's precision, not
//! OpenCL's (see `super`'s module doc for when they are used at all).

use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op as GLOp, Op, Word};

use super::no_double_here;
use crate::passes::lower::context::{Lower, Res};
use crate::passes::lower::emit::{ids, Block};

impl Lower<'_> {
    pub(crate) fn inline_builtin(
        &mut self,
        b: &mut Block,
        name: &str,
        rt: Word,
        a: &[Word],
        arg_tys: &[Word],
        double: bool,
    ) -> Res<Word> {
        use std::f64::consts::{LN_10, LOG10_2, PI};
        let transcendental = matches!(
            name,
            "exp10"
                | "native_exp10"
                | "half_exp10"
                | "log10"
                | "native_log10"
                | "half_log10"
                | "expm1"
                | "log1p"
                | "cbrt"
                | "sinpi"
                | "cospi"
                | "tanpi"
                | "asinpi"
                | "acospi"
                | "atanpi"
                | "atan2pi"
                | "pown"
                | "rootn"
                | "hypot"
        );
        if double && transcendental {
            return Err(no_double_here(name));
        }
        let r = match name {
            // mad's precision is unspecified (OpenCL C §6.15.2): a fused
            // multiply-add is allowed, and for doubles on a device that
            // fuses them (`DeviceCaps::fused_fma64`) it must be one, as the
            // exact arithmetic of `decorate_exact_arithmetic` would
            // otherwise keep the multiply and the add apart (half the fp64
            // throughput on NVIDIA). Elsewhere GLSL's Fma of doubles is not
            // one rounding, and mad stays a multiply and an add. Floats
            // stay contractable FMul + FAdd, which drivers fuse where the
            // hardware can.
            "mad" if double && self.caps.fused_fma64 => {
                self.glsl(b, GLOp::Fma, rt, &[a[0], a[1], a[2]])
            }
            "mad" => {
                let m = self.op2(b, Op::FMul, rt, a[0], a[1]);
                let r = self.op2(b, Op::FAdd, rt, m, a[2]);
                self.extras.contractable.extend([m, r]);
                r
            }
            "native_recip" | "half_recip" => {
                let one = self.splat(rt, 1, 1.0);
                self.op2(b, Op::FDiv, rt, one, a[0])
            }
            "u_abs" => a[0],
            "u_mul24" | "s_mul24" => self.op2(b, Op::IMul, rt, a[0], a[1]),
            "u_mad24" | "s_mad24" => {
                let m = self.op2(b, Op::IMul, rt, a[0], a[1]);
                self.op2(b, Op::IAdd, rt, m, a[2])
            }
            "exp10" | "native_exp10" | "half_exp10" => {
                let k = self.splat(rt, 0, LN_10 / std::f64::consts::LN_2);
                let x = self.op2(b, Op::FMul, rt, a[0], k);
                self.glsl(b, GLOp::Exp2, rt, &[x])
            }
            "log10" | "native_log10" | "half_log10" => {
                let l = self.glsl(b, GLOp::Log2, rt, &[a[0]]);
                let k = self.splat(rt, 0, LOG10_2);
                self.op2(b, Op::FMul, rt, l, k)
            }
            "expm1" => {
                let e = self.glsl(b, GLOp::Exp, rt, &[a[0]]);
                let one = self.splat(rt, 1, 1.0);
                self.op2(b, Op::FSub, rt, e, one)
            }
            "log1p" => {
                let one = self.splat(rt, 1, 1.0);
                let x = self.op2(b, Op::FAdd, rt, a[0], one);
                self.glsl(b, GLOp::Log, rt, &[x])
            }
            "cbrt" => {
                let ax = self.glsl(b, GLOp::FAbs, rt, &[a[0]]);
                let third = self.splat(rt, 0, 1.0 / 3.0);
                let p = self.glsl(b, GLOp::Pow, rt, &[ax, third]);
                let s = self.glsl(b, GLOp::FSign, rt, &[a[0]]);
                self.op2(b, Op::FMul, rt, s, p)
            }
            "sinpi" | "cospi" | "tanpi" => {
                let pi = self.splat(rt, 0, PI);
                let x = self.op2(b, Op::FMul, rt, a[0], pi);
                let op = match name {
                    "sinpi" => GLOp::Sin,
                    "cospi" => GLOp::Cos,
                    _ => GLOp::Tan,
                };
                self.glsl(b, op, rt, &[x])
            }
            "asinpi" | "acospi" | "atanpi" | "atan2pi" => {
                let op = match name {
                    "asinpi" => GLOp::Asin,
                    "acospi" => GLOp::Acos,
                    "atanpi" => GLOp::Atan,
                    _ => GLOp::Atan2,
                };
                let x = self.glsl(b, op, rt, a);
                let k = self.splat(rt, 0, 1.0 / PI);
                self.op2(b, Op::FMul, rt, x, k)
            }
            "hypot" => {
                let x2 = self.op2(b, Op::FMul, rt, a[0], a[0]);
                let y2 = self.op2(b, Op::FMul, rt, a[1], a[1]);
                let s = self.op2(b, Op::FAdd, rt, x2, y2);
                self.glsl(b, GLOp::Sqrt, rt, &[s])
            }
            "round" => {
                // Halfway cases away from zero: trunc(x + copysign(0.5 - ulp/2, x))
                // is wrong near 0.5; use t = trunc(x), |x - t| >= 0.5 → t + sign(x).
                let t = self.glsl_round(b, GLOp::Trunc, rt, a[0]);
                let d = self.op2(b, Op::FSub, rt, a[0], t);
                let ad = self.glsl(b, GLOp::FAbs, rt, &[d]);
                let half = self.splat(rt, 0, 0.5);
                let bt = self.bool_ty(rt);
                let c = self.op2(b, Op::FOrdGreaterThanEqual, bt, ad, half);
                let s = self.glsl(b, GLOp::FSign, rt, &[a[0]]);
                let ts = self.op2(b, Op::FAdd, rt, t, s);
                self.emit(b, Op::Select, rt, ids(&[c, ts, t]))
            }
            "copysign" => self.copysign(b, rt, a[0], a[1]),
            "nextafter" => {
                // On the bits: one step away from zero when moving towards
                // y away from zero, else towards it; ±0 steps to the
                // smallest subnormal with y's sign; x == y gives y; NaN in
                // gives NaN.
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let it = self.int_like(rt, w);
                let bt = self.bool_ty(rt);
                let xi = self.emit(b, Op::Bitcast, it, ids(&[a[0]]));
                let yi = self.emit(b, Op::Bitcast, it, ids(&[a[1]]));
                let one = self.splat(it, 1, 0.0);
                let sign = self.splat(it, 1u64 << (w - 1), 0.0);
                let mag = self.splat(it, (1u64 << (w - 1)) - 1, 0.0);
                let zero_i = self.splat(it, 0, 0.0);
                let zero_f = self.splat(rt, 0, 0.0);
                let lt = self.op2(b, Op::FOrdLessThan, bt, a[0], a[1]);
                let pos = self.op2(b, Op::FOrdGreaterThan, bt, a[0], zero_f);
                let away = self.op2(b, Op::LogicalEqual, bt, lt, pos);
                let inc = self.op2(b, Op::IAdd, it, xi, one);
                let dec = self.op2(b, Op::ISub, it, xi, one);
                let stepped = self.emit(b, Op::Select, it, ids(&[away, inc, dec]));
                let ys = self.op2(b, Op::BitwiseAnd, it, yi, sign);
                let tiny = self.op2(b, Op::BitwiseOr, it, ys, one);
                let xm = self.op2(b, Op::BitwiseAnd, it, xi, mag);
                let xz = self.op2(b, Op::IEqual, bt, xm, zero_i);
                let r = self.emit(b, Op::Select, it, ids(&[xz, tiny, stepped]));
                let eq = self.op2(b, Op::FOrdEqual, bt, a[0], a[1]);
                let r = self.emit(b, Op::Select, it, ids(&[eq, yi, r]));
                let xn = self.emit(b, Op::IsNan, bt, ids(&[a[0]]));
                let yn = self.emit(b, Op::IsNan, bt, ids(&[a[1]]));
                let un = self.op2(b, Op::LogicalOr, bt, xn, yn);
                let sum = self.op2(b, Op::FAdd, rt, a[0], a[1]);
                let sum = self.emit(b, Op::Bitcast, it, ids(&[sum]));
                let r = self.emit(b, Op::Select, it, ids(&[un, sum, r]));
                self.emit(b, Op::Bitcast, rt, ids(&[r]))
            }
            "fdim" => {
                let d = self.op2(b, Op::FSub, rt, a[0], a[1]);
                let bt = self.bool_ty(rt);
                let le = self.op2(b, Op::FOrdLessThanEqual, bt, a[0], a[1]);
                let z = self.splat(rt, 0, 0.0);
                self.emit(b, Op::Select, rt, ids(&[le, z, d]))
            }
            "bitselect" => {
                let float = self.out.is_float(rt);
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let it = if float { self.int_like(rt, w) } else { rt };
                let cast = |l: &mut Self, b: &mut Block, x: Word| {
                    if float {
                        l.emit(b, Op::Bitcast, it, ids(&[x]))
                    } else {
                        x
                    }
                };
                let (x, y, c) = (
                    cast(self, b, a[0]),
                    cast(self, b, a[1]),
                    cast(self, b, a[2]),
                );
                let nc = self.emit(b, Op::Not, it, ids(&[c]));
                let xa = self.op2(b, Op::BitwiseAnd, it, x, nc);
                let yc = self.op2(b, Op::BitwiseAnd, it, y, c);
                let r = self.op2(b, Op::BitwiseOr, it, xa, yc);
                if float {
                    self.emit(b, Op::Bitcast, rt, ids(&[r]))
                } else {
                    r
                }
            }
            // Integer vectors: a blend by the most significant bit of c,
            // `(b & m) | (a & ~m)` with `m = c >> (w - 1)` (arithmetic),
            // not OpSelect: NVIDIA's Vulkan compiler (driver 580) divided
            // by the wrong lanes of `x % select(d, 1, d == 0 | ...)` with
            // a constant `d` (the fuzzer's guarded remainder; GPU sample
            // seed 7003 p6), and divides by the blend right (session 18
            // probes).
            "select"
                if self.out.vec_len(rt) > 1
                    && !self.out.is_float(self.out.elem(rt))
                    && self.out.scalar_width(arg_tys[2]) == self.out.scalar_width(rt) =>
            {
                let m = self.sign_mask(b, rt, a[2]);
                let nm = self.emit(b, Op::Not, rt, ids(&[m]));
                let bm = self.op2(b, Op::BitwiseAnd, rt, a[1], m);
                let an = self.op2(b, Op::BitwiseAnd, rt, a[0], nm);
                self.op2(b, Op::BitwiseOr, rt, bm, an)
            }
            "select" => {
                // Scalars: c != 0; vectors: the most significant bit of c.
                let ct = arg_tys[2];
                let bt = self.bool_ty(rt);
                let cond = if self.out.vec_len(rt) == 1 {
                    let z = self.splat(ct, 0, 0.0);
                    self.op2(b, Op::INotEqual, bt, a[2], z)
                } else {
                    let z = self.splat(ct, 0, 0.0);
                    self.op2(b, Op::SLessThan, bt, a[2], z)
                };
                self.emit(b, Op::Select, rt, ids(&[cond, a[1], a[0]]))
            }
            "popcount" => self.popcount(b, rt, a[0]),
            "clz" => self.clz(b, rt, a[0]),
            "ctz" => self.ctz(b, rt, a[0]),
            "s_mul_hi" | "u_mul_hi" => self.mul_hi(b, rt, a[0], a[1], name == "s_mul_hi"),
            "s_mad_hi" | "u_mad_hi" => {
                let h = self.mul_hi(b, rt, a[0], a[1], name == "s_mad_hi");
                self.op2(b, Op::IAdd, rt, h, a[2])
            }
            "s_mad_sat" | "u_mad_sat" => {
                self.mad_sat(b, rt, [a[0], a[1], a[2]], name == "s_mad_sat")
            }
            "rotate" if self.out.scalar_width(rt) == Some(16) => self.rotate16(b, rt, a[0], a[1]),
            "rotate" => {
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let mask = self.splat(rt, (w - 1) as u64, 0.0);
                let wc = self.splat(rt, w as u64, 0.0);
                let n = self.op2(b, Op::BitwiseAnd, rt, a[1], mask);
                let l = self.op2(b, Op::ShiftLeftLogical, rt, a[0], n);
                let rn = self.op2(b, Op::ISub, rt, wc, n);
                let rn = self.op2(b, Op::BitwiseAnd, rt, rn, mask);
                let r = self.op2(b, Op::ShiftRightLogical, rt, a[0], rn);
                // n == 0: x >> 0 | x << 0 = x, fine.
                self.op2(b, Op::BitwiseOr, rt, l, r)
            }
            // |x| = (x ^ s) - s, s = x >> (w - 1) (arithmetic), not
            // GLSL's SAbs: NVIDIA's Vulkan compiler (driver 580) got
            // `~clamp(0, min(-1, -abs(g)), max(-1, -abs(g)))` of a 64-bit
            // `g = 0` wrong with SAbs (GPU sample seed 7003 p21, session
            // 18 probes).
            "s_abs" => {
                let s = self.sign_mask(b, rt, a[0]);
                let x = self.op2(b, Op::BitwiseXor, rt, a[0], s);
                self.op2(b, Op::ISub, rt, x, s)
            }
            "u_abs_diff" | "s_abs_diff" => {
                let bt = self.bool_ty(rt);
                let cmp = if name == "s_abs_diff" {
                    Op::SGreaterThan
                } else {
                    Op::UGreaterThan
                };
                let gt = self.op2(b, cmp, bt, a[0], a[1]);
                let d1 = self.op2(b, Op::ISub, rt, a[0], a[1]);
                let d2 = self.op2(b, Op::ISub, rt, a[1], a[0]);
                self.emit(b, Op::Select, rt, ids(&[gt, d1, d2]))
            }
            "u_add_sat" => {
                let r = self.op2(b, Op::IAdd, rt, a[0], a[1]);
                let bt = self.bool_ty(rt);
                let ov = self.op2(b, Op::ULessThan, bt, r, a[0]);
                let ones = self.splat(rt, u64::MAX, 0.0);
                self.emit(b, Op::Select, rt, ids(&[ov, ones, r]))
            }
            "u_sub_sat" => {
                let r = self.op2(b, Op::ISub, rt, a[0], a[1]);
                let bt = self.bool_ty(rt);
                let un = self.op2(b, Op::ULessThan, bt, a[0], a[1]);
                let z = self.splat(rt, 0, 0.0);
                self.emit(b, Op::Select, rt, ids(&[un, z, r]))
            }
            "s_add_sat" | "s_sub_sat" => {
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let add = name == "s_add_sat";
                let r = self.op2(b, if add { Op::IAdd } else { Op::ISub }, rt, a[0], a[1]);
                // Overflow: the result's sign is impossible for the operands.
                let xr = self.op2(b, Op::BitwiseXor, rt, a[0], r);
                let other = if add {
                    self.op2(b, Op::BitwiseXor, rt, a[1], r)
                } else {
                    self.op2(b, Op::BitwiseXor, rt, a[0], a[1])
                };
                let both = self.op2(b, Op::BitwiseAnd, rt, xr, other);
                let z = self.splat(rt, 0, 0.0);
                let bt = self.bool_ty(rt);
                let ov = self.op2(b, Op::SLessThan, bt, both, z);
                let neg = self.op2(b, Op::SLessThan, bt, a[0], z);
                let min = self.splat(rt, 1u64 << (w - 1), 0.0);
                let max = self.splat(rt, (1u64 << (w - 1)) - 1, 0.0);
                let lim = self.emit(b, Op::Select, rt, ids(&[neg, min, max]));
                self.emit(b, Op::Select, rt, ids(&[ov, lim, r]))
            }
            "u_hadd" | "s_hadd" | "u_rhadd" | "s_rhadd" => {
                let sh = if name.starts_with('s') {
                    Op::ShiftRightArithmetic
                } else {
                    Op::ShiftRightLogical
                };
                let one = self.splat(rt, 1, 0.0);
                let x = self.op2(b, sh, rt, a[0], one);
                let y = self.op2(b, sh, rt, a[1], one);
                let s = self.op2(b, Op::IAdd, rt, x, y);
                let carry = if name.contains("rhadd") {
                    Op::BitwiseOr
                } else {
                    Op::BitwiseAnd
                };
                let c = self.op2(b, carry, rt, a[0], a[1]);
                let c = self.op2(b, Op::BitwiseAnd, rt, c, one);
                self.op2(b, Op::IAdd, rt, s, c)
            }
            "u_upsample" | "s_upsample" => {
                let w = self.out.scalar_width(arg_tys[0]).unwrap_or(8);
                let ext = if name == "s_upsample" {
                    Op::SConvert
                } else {
                    Op::UConvert
                };
                let hi = self.emit(b, ext, rt, ids(&[a[0]]));
                let lo = self.emit(b, Op::UConvert, rt, ids(&[a[1]]));
                let s = self.splat(rt, w as u64, 0.0);
                let hi = self.op2(b, Op::ShiftLeftLogical, rt, hi, s);
                self.op2(b, Op::BitwiseOr, rt, hi, lo)
            }
            "maxmag" | "minmag" => {
                let ax = self.glsl(b, GLOp::FAbs, rt, &[a[0]]);
                let ay = self.glsl(b, GLOp::FAbs, rt, &[a[1]]);
                let bt = self.bool_ty(rt);
                let max = name == "maxmag";
                let (first, second) = if max {
                    (Op::FOrdGreaterThan, Op::FOrdLessThan)
                } else {
                    (Op::FOrdLessThan, Op::FOrdGreaterThan)
                };
                let c1 = self.op2(b, first, bt, ax, ay);
                let c2 = self.op2(b, second, bt, ax, ay);
                let m = self.glsl(
                    b,
                    if max { GLOp::NMax } else { GLOp::NMin },
                    rt,
                    &[a[0], a[1]],
                );
                let r = self.emit(b, Op::Select, rt, ids(&[c2, a[1], m]));
                self.emit(b, Op::Select, rt, ids(&[c1, a[0], r]))
            }
            "nan" => {
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let it = self.int_like(rt, w);
                let q = self.splat(
                    it,
                    match w {
                        64 => 0x7ff8_0000_0000_0000,
                        16 => 0x7e00,
                        _ => 0x7fc0_0000,
                    },
                    0.0,
                );
                let code = if self.out.scalar_width(arg_tys[0]) == Some(w) {
                    a[0]
                } else {
                    self.emit(b, Op::UConvert, it, ids(&[a[0]]))
                };
                let bits = self.op2(b, Op::BitwiseOr, it, q, code);
                self.emit(b, Op::Bitcast, rt, ids(&[bits]))
            }
            "pown" | "rootn" => {
                // pow(|x|, n or 1/n), negated for odd n and negative x.
                let nf = self.emit(b, Op::ConvertSToF, rt, ids(&[a[1]]));
                let e = if name == "pown" {
                    nf
                } else {
                    let one = self.splat(rt, 0, 1.0);
                    self.op2(b, Op::FDiv, rt, one, nf)
                };
                let ax = self.glsl(b, GLOp::FAbs, rt, &[a[0]]);
                let p = self.glsl(b, GLOp::Pow, rt, &[ax, e]);
                let one_i = self.splat(arg_tys[1], 1, 0.0);
                let odd_bits = self.op2(b, Op::BitwiseAnd, arg_tys[1], a[1], one_i);
                let zi = self.splat(arg_tys[1], 0, 0.0);
                let bt = self.bool_ty(rt);
                let odd = self.op2(b, Op::INotEqual, bt, odd_bits, zi);
                let zf = self.splat(rt, 0, 0.0);
                let neg = self.op2(b, Op::FOrdLessThan, bt, a[0], zf);
                let flip = self.op2(b, Op::LogicalAnd, bt, odd, neg);
                let np = self.emit(b, Op::FNegate, rt, ids(&[p]));
                self.emit(b, Op::Select, rt, ids(&[flip, np, p]))
            }
            "remainder" => {
                let q = self.op2(b, Op::FDiv, rt, a[0], a[1]);
                let n = self.glsl_round(b, GLOp::RoundEven, rt, q);
                let m = self.op2(b, Op::FMul, rt, n, a[1]);
                self.op2(b, Op::FSub, rt, a[0], m)
            }
            "logb" | "ilogb" => {
                let xt = arg_tys[0];
                let it = self.int_like(xt, 32);
                let st = self.out.t_struct(&[xt, it]);
                let fr = self.glsl(b, GLOp::FrexpStruct, st, &[a[0]]);
                let e = self.emit(
                    b,
                    Op::CompositeExtract,
                    it,
                    vec![Operand::IdRef(fr), Operand::LiteralBit32(1)],
                );
                let one = self.splat(it, 1, 0.0);
                let e = self.op2(b, Op::ISub, it, e, one);
                if name == "ilogb" {
                    e
                } else {
                    self.emit(b, Op::ConvertSToF, rt, ids(&[e]))
                }
            }
            other => return Err(format!("builtin '{other}' is not supported yet")),
        };
        Ok(r)
    }
}
