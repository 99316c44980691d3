//! Integer builtins on any width: popcount, clz, ctz, mul_hi, mad_sat (Vulkan's
//! bit instructions take 32-bit operands only; mad_sat is exact through a
//! wider or 128-bit intermediate).
//!
//! Gaps: none known.

use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op as GLOp, Op, Word};

use crate::passes::lower::context::Lower;
use crate::passes::lower::emit::{ids, Block};

impl Lower<'_> {
    fn widen_int(
        &mut self,
        b: &mut Block,
        rt: Word,
        x: Word,
        width: u32,
        signed: bool,
    ) -> (Word, Word) {
        let wt = self.int_like(rt, width);
        let op = if signed { Op::SConvert } else { Op::UConvert };
        (self.emit(b, op, wt, ids(&[x])), wt)
    }

    /// `x >> (w - 1)` (arithmetic) of integer type `rt`: every bit the
    /// sign bit of `x`.
    pub(crate) fn sign_mask(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        let top = self.splat(rt, u64::from(w - 1), 0.0);
        self.op2(b, Op::ShiftRightArithmetic, rt, x, top)
    }

    /// `rotate` of 16-bit integers: `x` doubled into 32 bits (`x << 16 |
    /// x`) and shifted right by `16 - (n & 15)`, the low half kept. Not
    /// the two shifts and an OR of the other widths: NVIDIA's Vulkan
    /// compiler (driver 580) turns those, where it finds the count to be
    /// 8 (a byte swap), into code that returns 0 or other bytes (GPU
    /// probes of session 18: `rotate(x, (short)8)`, a `short16` rotated by
    /// constant counts; NVIDIA's own OpenCL is right). This shape it
    /// compiles right; it is correct on every device.
    pub(crate) fn rotate16(&mut self, b: &mut Block, rt: Word, x: Word, n: Word) -> Word {
        let (x32, t32) = self.widen_int(b, rt, x, 32, false);
        let (n32, _) = self.widen_int(b, rt, n, 32, false);
        let sixteen = self.splat(t32, 16, 0.0);
        let hi = self.op2(b, Op::ShiftLeftLogical, t32, x32, sixteen);
        let doubled = self.op2(b, Op::BitwiseOr, t32, hi, x32);
        let fifteen = self.splat(t32, 15, 0.0);
        let k = self.op2(b, Op::BitwiseAnd, t32, n32, fifteen);
        let right = self.op2(b, Op::ISub, t32, sixteen, k);
        let r = self.op2(b, Op::ShiftRightLogical, t32, doubled, right);
        self.emit(b, Op::UConvert, rt, ids(&[r]))
    }

    /// OpBitCount of any width (Vulkan takes 32-bit operands only).
    pub(crate) fn popcount(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        match w {
            32 => self.emit(b, Op::BitCount, rt, ids(&[x])),
            64 => {
                let t32 = self.int_like(rt, 32);
                let lo = self.emit(b, Op::UConvert, t32, ids(&[x]));
                let s = self.splat(rt, 32, 0.0);
                let h = self.op2(b, Op::ShiftRightLogical, rt, x, s);
                let hi = self.emit(b, Op::UConvert, t32, ids(&[h]));
                let a = self.emit(b, Op::BitCount, t32, ids(&[lo]));
                let c = self.emit(b, Op::BitCount, t32, ids(&[hi]));
                let s = self.op2(b, Op::IAdd, t32, a, c);
                self.emit(b, Op::UConvert, rt, ids(&[s]))
            }
            _ => {
                let (x32, t32) = self.widen_int(b, rt, x, 32, false);
                let c = self.emit(b, Op::BitCount, t32, ids(&[x32]));
                self.emit(b, Op::UConvert, rt, ids(&[c]))
            }
        }
    }

    /// clz of a 32-bit value: 31 - FindUMsb (FindUMsb(0) = -1 gives 32).
    fn clz32(&mut self, b: &mut Block, t32: Word, x: Word) -> Word {
        let m = self.glsl(b, GLOp::FindUMsb, t32, &[x]);
        let c31 = self.splat(t32, 31, 0.0);
        self.op2(b, Op::ISub, t32, c31, m)
    }

    pub(crate) fn clz(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        match w {
            32 => self.clz32(b, rt, x),
            64 => {
                let t32 = self.int_like(rt, 32);
                let lo = self.emit(b, Op::UConvert, t32, ids(&[x]));
                let s = self.splat(rt, 32, 0.0);
                let h = self.op2(b, Op::ShiftRightLogical, rt, x, s);
                let hi = self.emit(b, Op::UConvert, t32, ids(&[h]));
                let ch = self.clz32(b, t32, hi);
                let cl = self.clz32(b, t32, lo);
                let c32 = self.splat(t32, 32, 0.0);
                let cl32 = self.op2(b, Op::IAdd, t32, cl, c32);
                let z = self.splat(t32, 0, 0.0);
                let bt = self.bool_ty(t32);
                let hz = self.op2(b, Op::IEqual, bt, hi, z);
                let r = self.emit(b, Op::Select, t32, ids(&[hz, cl32, ch]));
                self.emit(b, Op::UConvert, rt, ids(&[r]))
            }
            _ => {
                let (x32, t32) = self.widen_int(b, rt, x, 32, false);
                let c = self.clz32(b, t32, x32);
                let k = self.splat(t32, (32 - w) as u64, 0.0);
                let c = self.op2(b, Op::ISub, t32, c, k);
                self.emit(b, Op::UConvert, rt, ids(&[c]))
            }
        }
    }

    /// ctz of a 32-bit value with a guard bit at `guard` (the width).
    fn ctz32(&mut self, b: &mut Block, t32: Word, x: Word, guard: u32) -> Word {
        if guard < 32 {
            let g = self.splat(t32, 1 << guard, 0.0);
            let x = self.op2(b, Op::BitwiseOr, t32, x, g);
            return self.glsl(b, GLOp::FindILsb, t32, &[x]);
        }
        let l = self.glsl(b, GLOp::FindILsb, t32, &[x]);
        let z = self.splat(t32, 0, 0.0);
        let bt = self.bool_ty(t32);
        let iz = self.op2(b, Op::IEqual, bt, x, z);
        let c32 = self.splat(t32, 32, 0.0);
        self.emit(b, Op::Select, t32, ids(&[iz, c32, l]))
    }

    pub(crate) fn ctz(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        match w {
            32 => self.ctz32(b, rt, x, 32),
            64 => {
                let t32 = self.int_like(rt, 32);
                let lo = self.emit(b, Op::UConvert, t32, ids(&[x]));
                let s = self.splat(rt, 32, 0.0);
                let h = self.op2(b, Op::ShiftRightLogical, rt, x, s);
                let hi = self.emit(b, Op::UConvert, t32, ids(&[h]));
                let cl = self.ctz32(b, t32, lo, 32);
                let ch = self.ctz32(b, t32, hi, 32);
                let c32 = self.splat(t32, 32, 0.0);
                let ch32 = self.op2(b, Op::IAdd, t32, ch, c32);
                let z = self.splat(t32, 0, 0.0);
                let bt = self.bool_ty(t32);
                let lz = self.op2(b, Op::IEqual, bt, lo, z);
                let r = self.emit(b, Op::Select, t32, ids(&[lz, ch32, cl]));
                self.emit(b, Op::UConvert, rt, ids(&[r]))
            }
            _ => {
                let (x32, t32) = self.widen_int(b, rt, x, 32, false);
                let c = self.ctz32(b, t32, x32, w);
                self.emit(b, Op::UConvert, rt, ids(&[c]))
            }
        }
    }

    pub(crate) fn mul_hi(
        &mut self,
        b: &mut Block,
        rt: Word,
        x: Word,
        y: Word,
        signed: bool,
    ) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        if w >= 32 {
            let st = self.out.t_struct(&[rt, rt]);
            let op = if signed {
                Op::SMulExtended
            } else {
                Op::UMulExtended
            };
            let m = self.op2(b, op, st, x, y);
            return self.emit(
                b,
                Op::CompositeExtract,
                rt,
                vec![Operand::IdRef(m), Operand::LiteralBit32(1)],
            );
        }
        let (xw, t32) = self.widen_int(b, rt, x, 32, signed);
        let (yw, _) = self.widen_int(b, rt, y, 32, signed);
        let p = self.op2(b, Op::IMul, t32, xw, yw);
        let s = self.splat(t32, w as u64, 0.0);
        let h = self.op2(
            b,
            if signed {
                Op::ShiftRightArithmetic
            } else {
                Op::ShiftRightLogical
            },
            t32,
            p,
            s,
        );
        self.emit(b, Op::UConvert, rt, ids(&[h]))
    }

    /// mad_sat(x, y, z) = x * y + z saturated to the range of `rt`, exact:
    /// 8/16-bit operands in 32 bits and 32-bit ones in 64 bits (neither
    /// the product nor the sum can overflow there), then clamped and
    /// narrowed; 64-bit ones as a 128-bit value (hi, lo) = the full product
    /// (Op[SU]MulExtended) plus z (sign-extended when signed) with the
    /// carry out of lo. Unsigned, it fits where hi = 0 (the sum stays below
    /// 2^128); signed, where hi is lo's sign extension, else its sign picks
    /// the minimum or the maximum (|x * y + z| < 2^127).
    pub(crate) fn mad_sat(&mut self, b: &mut Block, rt: Word, a: [Word; 3], signed: bool) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        let bt = self.bool_ty(rt);
        let (min, max) = if signed {
            (1u64 << (w - 1), (1u64 << (w - 1)) - 1)
        } else {
            (0, u64::MAX >> (64 - w))
        };
        if w <= 32 {
            let ww = if w == 32 { 64 } else { 32 };
            let (x, wt) = self.widen_int(b, rt, a[0], ww, signed);
            let (y, _) = self.widen_int(b, rt, a[1], ww, signed);
            let (z, _) = self.widen_int(b, rt, a[2], ww, signed);
            let p = self.op2(b, Op::IMul, wt, x, y);
            let s = self.op2(b, Op::IAdd, wt, p, z);
            let c = if signed {
                // The limits sign-extended to the wide type.
                let ext = |v: u64| (((v << (64 - w)) as i64) >> (64 - w)) as u64;
                let lo = self.splat(wt, ext(min), 0.0);
                let hi = self.splat(wt, max, 0.0);
                self.glsl(b, GLOp::SClamp, wt, &[s, lo, hi])
            } else {
                let hi = self.splat(wt, max, 0.0);
                self.glsl(b, GLOp::UMin, wt, &[s, hi])
            };
            return self.emit(b, Op::UConvert, rt, ids(&[c]));
        }
        let st = self.out.t_struct(&[rt, rt]);
        let mul = if signed {
            Op::SMulExtended
        } else {
            Op::UMulExtended
        };
        let m = self.op2(b, mul, st, a[0], a[1]);
        let part = |l: &mut Self, b: &mut Block, k: u32| {
            l.emit(
                b,
                Op::CompositeExtract,
                rt,
                vec![Operand::IdRef(m), Operand::LiteralBit32(k)],
            )
        };
        let lo = part(self, b, 0);
        let hi = part(self, b, 1);
        let sum = self.op2(b, Op::IAdd, rt, lo, a[2]);
        let carried = self.op2(b, Op::ULessThan, bt, sum, lo);
        let one = self.splat(rt, 1, 0.0);
        let zero = self.splat(rt, 0, 0.0);
        let carry = self.emit(b, Op::Select, rt, ids(&[carried, one, zero]));
        let hi = self.op2(b, Op::IAdd, rt, hi, carry);
        let max_c = self.splat(rt, max, 0.0);
        if !signed {
            let over = self.op2(b, Op::INotEqual, bt, hi, zero);
            return self.emit(b, Op::Select, rt, ids(&[over, max_c, sum]));
        }
        // z's sign extension (0 or -1) added to the high half.
        let s63 = self.splat(rt, 63, 0.0);
        let z_ext = self.op2(b, Op::ShiftRightArithmetic, rt, a[2], s63);
        let hi = self.op2(b, Op::IAdd, rt, hi, z_ext);
        let sum_ext = self.op2(b, Op::ShiftRightArithmetic, rt, sum, s63);
        let fits = self.op2(b, Op::IEqual, bt, hi, sum_ext);
        let neg = self.op2(b, Op::SLessThan, bt, hi, zero);
        let min_c = self.splat(rt, min, 0.0);
        let lim = self.emit(b, Op::Select, rt, ids(&[neg, min_c, max_c]));
        self.emit(b, Op::Select, rt, ids(&[fits, sum, lim]))
    }
}
