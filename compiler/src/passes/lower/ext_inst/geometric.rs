//! Geometric and common builtins that GLSL.std.450 does not cover as
//! OpenCL defines them: `lower_geometric`.
//!
//! * `length`, `distance`, `normalize`: GLSL's versions square the
//!   components, which overflows (or underflows) long before the result
//!   does. Here the vector is first scaled by the power of two `2^k` of its
//!   largest magnitude's binade (ldexp: exact, no division a driver may
//!   approximate): `length(v) = 2^k * sqrt(dot(s, s))`, `normalize(v) = s /
//!   sqrt(dot(s, s))` with `s = v * 2^-k`; a zero vector gives 0 (length) or itself
//!   (normalize); a vector with infinite components gives +inf (length) or
//!   the normalized vector of ±1 at the infinite components and ±0
//!   elsewhere (normalize), as OpenCL C specifies.
//! * `cross` of 4-component vectors (GLSL's takes 3): the cross product of
//!   the first three components and 0 in the fourth.
//! * `degrees` / `radians` of doubles (GLSL's are 16/32-bit only): a
//!   multiplication by the constant.
//!
//! Gaps: none known.

use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op as GLOp, Op, Word};

use crate::passes::lower::context::{Lower, Res};
use crate::passes::lower::emit::{ids, Block};

impl Lower<'_> {
    /// The builtins of the module doc; None for anything else. `rt` is the
    /// output result type, `a` the argument values, `arg_tys` their output
    /// types.
    pub(crate) fn lower_geometric(
        &mut self,
        b: &mut Block,
        name: &str,
        rt: Word,
        a: &[Word],
        arg_tys: &[Word],
        double: bool,
    ) -> Res<Option<Word>> {
        use std::f64::consts::PI;
        Ok(Some(match name {
            "degrees" | "radians" if double => {
                let k = if name == "degrees" {
                    180.0 / PI
                } else {
                    PI / 180.0
                };
                let c = self.splat(rt, 0, k);
                self.op2(b, Op::FMul, rt, a[0], c)
            }
            "cross" if self.out.vec_len(rt) == 4 => {
                let e = self.out.elem(rt);
                let v3 = self.out.t_vec(e, 3);
                let xyz = |l: &mut Self, b: &mut Block, v: Word| {
                    l.emit(
                        b,
                        Op::VectorShuffle,
                        v3,
                        vec![
                            Operand::IdRef(v),
                            Operand::IdRef(v),
                            Operand::LiteralBit32(0),
                            Operand::LiteralBit32(1),
                            Operand::LiteralBit32(2),
                        ],
                    )
                };
                let (x, y) = (xyz(self, b, a[0]), xyz(self, b, a[1]));
                let c = self.glsl(b, GLOp::Cross, v3, &[x, y]);
                let w = self.out.scalar_width(e).unwrap_or(32);
                let zero = self.out.c_float(w, 0.0);
                self.emit(b, Op::CompositeConstruct, rt, ids(&[c, zero]))
            }
            "length" | "distance" | "normalize" => {
                let vt = arg_tys[0];
                let v = if name == "distance" {
                    self.op2(b, Op::FSub, vt, a[0], a[1])
                } else {
                    a[0]
                };
                self.scaled_geometry(b, name == "normalize", vt, v)?
            }
            _ => return Ok(None),
        }))
    }

    /// `length(v)` or `normalize(v)` by scaling (see the module doc).
    fn scaled_geometry(&mut self, b: &mut Block, normalize: bool, vt: Word, v: Word) -> Res<Word> {
        let n = self.out.vec_len(vt);
        let e = self.out.elem(vt);
        let w = self.out.scalar_width(e).unwrap_or(32);
        let bt = self.out.t_bool();
        let abs = self.glsl(b, GLOp::FAbs, vt, &[v]);
        let comp = |l: &mut Self, b: &mut Block, x: Word, i: u32| {
            if n == 1 {
                x
            } else {
                l.emit(
                    b,
                    Op::CompositeExtract,
                    e,
                    vec![Operand::IdRef(x), Operand::LiteralBit32(i)],
                )
            }
        };
        let mut m = comp(self, b, abs, 0);
        for i in 1..n {
            let c = comp(self, b, abs, i);
            m = self.glsl(b, GLOp::NMax, e, &[m, c]);
        }
        let zero = self.out.c_float(w, 0.0);
        let one = self.out.c_float(w, 1.0);
        let m_zero = self.emit(b, Op::FOrdEqual, bt, ids(&[m, zero]));
        let m_inf = self.emit(b, Op::IsInf, bt, ids(&[m]));
        let divisor = self.emit(b, Op::Select, e, ids(&[m_zero, one, m]));
        let splat = |l: &mut Self, b: &mut Block, x: Word, t: Word| {
            if n == 1 {
                x
            } else {
                l.emit(b, Op::CompositeConstruct, t, ids(&vec![x; n as usize]))
            }
        };
        // Scale by a power of two (exact, and no reciprocal of a huge m
        // that a driver's fast division would flush to zero: NVIDIA gave
        // length(0x1.fffffep+126) = 0 with v / m): s = ldexp(v, -k), where
        // 2^k is m's binade, k from the exponent bits.
        let (mant_bits, bias) = if w == 64 { (52u64, 1023u64) } else { (23, 127) };
        let it = self.int_like(e, w);
        let bits = self.emit(b, Op::Bitcast, it, ids(&[divisor]));
        let shift = self.out.c_int(w, mant_bits);
        let biased = self.op2(b, Op::ShiftRightLogical, it, bits, shift);
        let mask = self.out.c_int(w, if w == 64 { 0x7ff } else { 0xff });
        let biased = self.op2(b, Op::BitwiseAnd, it, biased, mask);
        let i32t = self.out.t_int(32);
        let biased = if w == 64 {
            self.emit(b, Op::UConvert, i32t, ids(&[biased]))
        } else {
            biased
        };
        // A denormal m (exponent field 0) scales like the smallest normal.
        let one_i = self.out.c_int(32, 1);
        let biased = self.glsl(b, GLOp::UMax, i32t, &[biased, one_i]);
        let bias_c = self.out.c_int(32, bias);
        let k = self.op2(b, Op::ISub, i32t, biased, bias_c);
        let zero_i = self.out.c_int(32, 0);
        let neg_k = self.op2(b, Op::ISub, i32t, zero_i, k);
        let ivt = if n == 1 {
            i32t
        } else {
            self.out.t_vec(i32t, n)
        };
        let nk = splat(self, b, neg_k, ivt);
        let mut s = self.glsl(b, GLOp::Ldexp, vt, &[v, nk]);
        let bvt = if n == 1 { bt } else { self.out.t_vec(bt, n) };
        if normalize {
            // Infinite components: ±1 there, ±0 elsewhere.
            let v_inf = self.emit(b, Op::IsInf, bvt, ids(&[v]));
            let ones = self.splat(vt, 0, 1.0);
            let zeros = self.splat(vt, 0, 0.0);
            let t = self.emit(b, Op::Select, vt, ids(&[v_inf, ones, zeros]));
            let signed = self.copysign(b, vt, t, v);
            let cond = splat(self, b, m_inf, bvt);
            s = self.emit(b, Op::Select, vt, ids(&[cond, signed, s]));
        }
        let d = if n == 1 {
            self.op2(b, Op::FMul, e, s, s)
        } else {
            self.emit(b, Op::Dot, e, ids(&[s, s]))
        };
        let root = self.glsl(b, GLOp::Sqrt, e, &[d]);
        if normalize {
            let rs = splat(self, b, root, vt);
            let r = self.op2(b, Op::FDiv, vt, s, rs);
            let cond = splat(self, b, m_zero, bvt);
            Ok(self.emit(b, Op::Select, vt, ids(&[cond, v, r])))
        } else {
            let r = self.glsl(b, GLOp::Ldexp, e, &[root, k]);
            let inf = self.out.c_float(w, f64::INFINITY);
            let r = self.emit(b, Op::Select, e, ids(&[m_inf, inf, r]));
            Ok(self.emit(b, Op::Select, e, ids(&[m_zero, zero, r])))
        }
    }
}
