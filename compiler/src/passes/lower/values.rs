//! Small value builders every concern uses: GLSL.std.450 calls (with exact
//! double rounding, `glsl_round`), splatted constants, and the bool,
//! float and integer types shaped like a given scalar or vector type.
//!
//! Gaps: none (builders).

use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op as GLOp, Op, Word};

use crate::passes::lower::context::Lower;
use crate::passes::lower::emit::{ids, Block};

impl Lower<'_> {
    pub(crate) fn glsl(&mut self, b: &mut Block, op: GLOp, ty: Word, args: &[Word]) -> Word {
        let set = self.out.glsl();
        let mut ops = vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(op as u32),
        ];
        ops.extend(args.iter().map(|&a| Operand::IdRef(a)));
        self.emit(b, Op::ExtInst, ty, ops)
    }

    /// GLSL.std.450 rounding `op` (Trunc, RoundEven, Floor, Ceil) of `x`
    /// (output type `ty`). On doubles, Trunc and RoundEven are built from
    /// Floor, Ceil and exact additions: lavapipe (Mesa 22.3) returns large
    /// arguments (from about 2^30) unrounded and loses the sign of zero
    /// results, and OpenCL wants them exact (libclc's argument reductions
    /// depend on it).
    pub(crate) fn glsl_round(&mut self, b: &mut Block, op: GLOp, ty: Word, x: Word) -> Word {
        let e = self.out.elem(ty);
        let double = self.out.is_float(e) && self.out.scalar_width(e) == Some(64);
        if !double || !matches!(op, GLOp::Trunc | GLOp::RoundEven) {
            return self.glsl(b, op, ty, &[x]);
        }
        let bt = self.bool_ty(ty);
        if op == GLOp::Trunc {
            // Towards zero: ceil below zero, floor above (and for ±0, NaN).
            let zero = self.splat(ty, 0, 0.0);
            let neg = self.op2(b, Op::FOrdLessThan, bt, x, zero);
            let up = self.glsl(b, GLOp::Ceil, ty, &[x]);
            let down = self.glsl(b, GLOp::Floor, ty, &[x]);
            return self.emit(b, Op::Select, ty, ids(&[neg, up, down]));
        }
        // Nearest, ties to even: below 2^52, (|x| + 2^52) - 2^52 rounds
        // |x| to an integer in the adder (exact with NoContraction,
        // `decorate_exact_double_arithmetic`); from 2^52 on (and for
        // NaN/inf) every double is an integer. Then x's sign.
        let ax = self.glsl(b, GLOp::FAbs, ty, &[x]);
        let big = self.splat(ty, 0, 4503599627370496.0);
        let s = self.op2(b, Op::FAdd, ty, ax, big);
        let r = self.op2(b, Op::FSub, ty, s, big);
        let small = self.op2(b, Op::FOrdLessThan, bt, ax, big);
        let m = self.emit(b, Op::Select, ty, ids(&[small, r, ax]));
        self.copysign(b, ty, m, x)
    }

    /// A constant of (scalar or vector) output type `ty`: every component
    /// `v` (float types take `f`).
    pub(crate) fn splat(&mut self, ty: Word, v: u64, f: f64) -> Word {
        let e = self.out.elem(ty);
        let n = self.out.vec_len(ty);
        let w = self.out.scalar_width(e).unwrap_or(32);
        let s = if self.out.is_float(e) {
            self.out.c_float(w, f)
        } else {
            self.out.c_int(w, v)
        };
        if n == 1 {
            s
        } else {
            self.out.c_composite(ty, &vec![s; n as usize])
        }
    }

    pub(crate) fn bool_ty(&mut self, like: Word) -> Word {
        let bt = self.out.t_bool();
        let n = self.out.vec_len(like);
        if n == 1 {
            bt
        } else {
            self.out.t_vec(bt, n)
        }
    }

    /// The float type with the shape of `ty` and `width`-bit elements.
    pub(crate) fn float_like(&mut self, ty: Word, width: u32) -> Word {
        let ft = self.out.t_float(width);
        let n = self.out.vec_len(ty);
        if n == 1 {
            ft
        } else {
            self.out.t_vec(ft, n)
        }
    }

    /// The integer type with the shape of `ty` and `width`-bit elements.
    pub(crate) fn int_like(&mut self, ty: Word, width: u32) -> Word {
        let it = self.out.t_int(width);
        let n = self.out.vec_len(ty);
        if n == 1 {
            it
        } else {
            self.out.t_vec(it, n)
        }
    }

    pub(crate) fn op2(&mut self, b: &mut Block, op: Op, ty: Word, x: Word, y: Word) -> Word {
        self.emit(b, op, ty, ids(&[x, y]))
    }

    /// `copysign(x, y)` for float values of output type `ty`.
    pub(crate) fn copysign(&mut self, b: &mut Block, ty: Word, x: Word, y: Word) -> Word {
        let w = self.out.scalar_width(self.out.elem(ty)).unwrap_or(32);
        let it = self.int_like(ty, w);
        let xi = self.emit(b, Op::Bitcast, it, ids(&[x]));
        let yi = self.emit(b, Op::Bitcast, it, ids(&[y]));
        let sign = self.splat(it, 1u64 << (w - 1), 0.0);
        let mag = self.splat(it, (1u64 << (w - 1)) - 1, 0.0);
        let xm = self.op2(b, Op::BitwiseAnd, it, xi, mag);
        let ys = self.op2(b, Op::BitwiseAnd, it, yi, sign);
        let r = self.op2(b, Op::BitwiseOr, it, xm, ys);
        self.emit(b, Op::Bitcast, ty, ids(&[r]))
    }
}
