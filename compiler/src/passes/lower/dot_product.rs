//! cl_khr_integer_dot_product (and SPV_KHR_integer_dot_product in IL):
//! OpSDot, OpUDot, OpSUDot and their AccSat forms on 4-component vectors
//! of 8-bit integers or on 32-bit packed values
//! (PackedVectorFormat4x8Bit), also reached as calls of the packed
//! builtins (`analyses::builtin_imports`).
//!
//! * Where the device has shaderIntegerDotProduct
//!   (`DeviceCaps::integer_dot_product`) the instruction goes to Vulkan as
//!   it is, with DotProduct and DotProductInput4x8Bit or
//!   DotProductInput4x8BitPacked (SPV_KHR_integer_dot_product: SPIR-V 1.6
//!   core, an extension in the 1.5 modules ferrocl makes).
//! * Elsewhere, and for other vector shapes, it is computed exactly: each
//!   component sign- or zero-extended to 64 bits, the products summed
//!   (exact for components of up to 16 bits; wider ones wrap, which the
//!   truncation to the result width makes no difference to), then
//!   truncated to the result width or, for AccSat, the accumulator added
//!   in 64 bits and the sum clamped to the result type's range (signed
//!   for SDot and SUDot, unsigned for UDot). Packed operands are bitcast
//!   to 4 x 8-bit vectors first (component 0 in the low byte).
//!
//! Gaps: none known.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Op, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};

/// Whether `op` is an integer dot product.
pub(super) fn is_dot_op(op: Op) -> bool {
    matches!(
        op,
        Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat
    )
}

impl Lower<'_> {
    /// Lowers an input OpSDot/OpUDot/OpSUDot(AccSat) instruction.
    pub(crate) fn lower_dot_inst(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let mut vals = Vec::new();
        let mut packed = false;
        let mut vt = 0;
        for o in &inst.operands {
            match o {
                Operand::IdRef(x) => {
                    if vals.is_empty() {
                        vt = self.lower_ty(self.ty_of(*x))?;
                    }
                    vals.push(self.v(*x));
                }
                Operand::PackedVectorFormat(_) => packed = true,
                _ => {}
            }
        }
        let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let r = self.dot_product(b, inst.class.opcode, rt, vt, &vals, packed)?;
        self.alias.insert(inst.result_id.unwrap_or(0), r);
        Ok(())
    }

    /// `op` on output values `args` (two vectors of output type `vt`, then
    /// the accumulator of an AccSat form); `packed`: the vectors are
    /// 4x8-bit packed 32-bit scalars.
    pub(crate) fn dot_product(
        &mut self,
        b: &mut Block,
        op: Op,
        rt: Word,
        vt: Word,
        args: &[Word],
        packed: bool,
    ) -> Res<Word> {
        let (x, y) = (args[0], args[1]);
        let sat = matches!(op, Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat);
        let acc = if sat {
            Some(*args.get(2).ok_or("dot product without an accumulator")?)
        } else {
            None
        };
        let u8t = self.out.t_int(8);
        let v4 = self.out.t_vec(u8t, 4);
        let four_by_8 = packed || vt == v4;
        if self.caps.integer_dot_product && four_by_8 && self.out.int_width(rt) == Some(32) {
            let input = if packed {
                Capability::DotProductInput4x8BitPacked
            } else {
                Capability::DotProductInput4x8Bit
            };
            self.extras.require(
                &[Capability::DotProduct, input],
                "SPV_KHR_integer_dot_product",
            );
            let mut ops = ids(args);
            if packed {
                ops.push(Operand::PackedVectorFormat(
                    rspirv::spirv::PackedVectorFormat::PackedVectorFormat4x8Bit,
                ));
            }
            return Ok(self.emit(b, op, rt, ops));
        }
        let (x, y, vt) = if packed {
            (
                self.emit(b, Op::Bitcast, v4, ids(&[x])),
                self.emit(b, Op::Bitcast, v4, ids(&[y])),
                v4,
            )
        } else {
            (x, y, vt)
        };
        let n = self.out.vec_len(vt);
        let et = self.out.elem(vt);
        let (sx, sy) = match op {
            Op::SDot | Op::SDotAccSat => (true, true),
            Op::UDot | Op::UDotAccSat => (false, false),
            _ => (true, false),
        };
        let u64t = self.out.t_u64();
        let mut sum = self.out.c_u64(0);
        for i in 0..n {
            let a = self.emit(
                b,
                Op::CompositeExtract,
                et,
                vec![Operand::IdRef(x), Operand::LiteralBit32(i)],
            );
            let c = self.emit(
                b,
                Op::CompositeExtract,
                et,
                vec![Operand::IdRef(y), Operand::LiteralBit32(i)],
            );
            let a = self.extend64(b, a, et, sx);
            let c = self.extend64(b, c, et, sy);
            let p = self.op2(b, Op::IMul, u64t, a, c);
            sum = self.op2(b, Op::IAdd, u64t, sum, p);
        }
        let w = self.out.int_width(rt).unwrap_or(32);
        let Some(acc) = acc else {
            return Ok(if w == 64 {
                sum
            } else {
                self.emit(b, Op::UConvert, rt, ids(&[sum]))
            });
        };
        let signed = op != Op::UDotAccSat;
        let acc = self.extend64(b, acc, rt, signed);
        let total = self.op2(b, Op::IAdd, u64t, sum, acc);
        if w == 64 {
            // A 64-bit accumulator: saturate on overflow of the add.
            return self.saturate_add64(b, acc, sum, total, signed);
        }
        let (lo, hi) = if signed {
            (
                self.out.c_u64((-(1i64 << (w - 1))) as u64),
                self.out.c_u64((1u64 << (w - 1)) - 1),
            )
        } else {
            (self.out.c_u64(0), self.out.c_u64((1u64 << w) - 1))
        };
        let clamp = if signed {
            rspirv::spirv::GlslStd450Op::SClamp
        } else {
            rspirv::spirv::GlslStd450Op::UClamp
        };
        let c = self.glsl(b, clamp, u64t, &[total, lo, hi]);
        Ok(self.emit(b, Op::UConvert, rt, ids(&[c])))
    }

    /// 64-bit accumulators: `acc + sum` saturated (signed or unsigned).
    fn saturate_add64(
        &mut self,
        b: &mut Block,
        acc: Word,
        sum: Word,
        total: Word,
        signed: bool,
    ) -> Res<Word> {
        let u64t = self.out.t_u64();
        let bt = self.out.t_bool();
        let zero = self.out.c_u64(0);
        if signed {
            // Overflow: operands of one sign, the result of the other.
            let neg_sum = self.emit(b, Op::SLessThan, bt, ids(&[sum, zero]));
            let neg_acc = self.emit(b, Op::SLessThan, bt, ids(&[acc, zero]));
            let neg_tot = self.emit(b, Op::SLessThan, bt, ids(&[total, zero]));
            let same = self.emit(b, Op::LogicalEqual, bt, ids(&[neg_sum, neg_acc]));
            let flipped = self.emit(b, Op::LogicalNotEqual, bt, ids(&[neg_tot, neg_acc]));
            let over = self.emit(b, Op::LogicalAnd, bt, ids(&[same, flipped]));
            let min = self.out.c_u64(1u64 << 63);
            let max = self.out.c_u64(i64::MAX as u64);
            let lim = self.emit(b, Op::Select, u64t, ids(&[neg_acc, min, max]));
            Ok(self.emit(b, Op::Select, u64t, ids(&[over, lim, total])))
        } else {
            let wrapped = self.emit(b, Op::ULessThan, bt, ids(&[total, acc]));
            let max = self.out.c_u64(u64::MAX);
            Ok(self.emit(b, Op::Select, u64t, ids(&[wrapped, max, total])))
        }
    }

    /// Integer `x` of output type `t` sign- or zero-extended to 64 bits.
    fn extend64(&mut self, b: &mut Block, x: Word, t: Word, signed: bool) -> Word {
        let u64t = self.out.t_u64();
        if self.out.int_width(t) == Some(64) {
            return x;
        }
        let op = if signed { Op::SConvert } else { Op::UConvert };
        self.emit(b, op, u64t, ids(&[x]))
    }
}
