//! The Kernel-only float classification instructions (OpOrdered,
//! OpUnordered, OpIsFinite, OpIsNormal, OpSignBitSet, OpLessOrGreater),
//! which Vulkan lacks: comparisons and bit tests on the value.
//!
//! Gaps: none known.

use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};

use crate::passes::lower::context::{Lower, Res};
use crate::passes::lower::emit::{ids, Block};

impl Lower<'_> {
    /// The Kernel-only float classification instructions: OpOrdered,
    /// OpUnordered, OpIsFinite, OpIsNormal, OpSignBitSet, OpLessOrGreater.
    pub(crate) fn lower_float_class(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let args: Vec<Word> = inst
            .operands
            .iter()
            .filter_map(|o| o.id_ref_any())
            .collect();
        let xt = self.lower_ty(self.ty_of(args[0]))?;
        let x = self.v(args[0]);
        let y = args.get(1).map(|&a| self.v(a)).unwrap_or(0);
        let r = self.float_class(b, inst.class.opcode, rt, xt, [x, y])?;
        self.alias.insert(inst.result_id.unwrap_or(0), r);
        Ok(())
    }

    /// One float classification `op` on output values: `x` of type `xt`
    /// (and `y`, for the two-operand ones), result type `rt` (bool or a
    /// bool vector). Also used per 4-wide part of 8/16-wide vectors.
    pub(crate) fn float_class(
        &mut self,
        b: &mut Block,
        op: Op,
        rt: Word,
        xt: Word,
        [x, y]: [Word; 2],
    ) -> Res<Word> {
        Ok(match op {
            Op::Ordered | Op::Unordered => {
                let nx = self.emit(b, Op::IsNan, rt, ids(&[x]));
                let ny = self.emit(b, Op::IsNan, rt, ids(&[y]));
                let u = self.emit(b, Op::LogicalOr, rt, ids(&[nx, ny]));
                if op == Op::Unordered {
                    u
                } else {
                    self.emit(b, Op::LogicalNot, rt, ids(&[u]))
                }
            }
            Op::LessOrGreater => self.emit(b, Op::FOrdNotEqual, rt, ids(&[x, y])),
            Op::IsFinite => {
                let n = self.emit(b, Op::IsNan, rt, ids(&[x]));
                let i = self.emit(b, Op::IsInf, rt, ids(&[x]));
                let u = self.emit(b, Op::LogicalOr, rt, ids(&[n, i]));
                self.emit(b, Op::LogicalNot, rt, ids(&[u]))
            }
            Op::SignBitSet | Op::IsNormal => {
                let w = self.out.scalar_width(xt).unwrap_or(32);
                let it = self.int_like(xt, w);
                let bits = self.emit(b, Op::Bitcast, it, ids(&[x]));
                if op == Op::SignBitSet {
                    let z = self.splat(it, 0, 0.0);
                    self.emit(b, Op::SLessThan, rt, ids(&[bits, z]))
                } else {
                    let mant = match w {
                        16 => 10,
                        32 => 23,
                        _ => 52,
                    };
                    let emask = (1u64 << (w - 1 - mant)) - 1;
                    let sh = self.splat(it, mant as u64, 0.0);
                    let e = self.emit(b, Op::ShiftRightLogical, it, ids(&[bits, sh]));
                    let m = self.splat(it, emask, 0.0);
                    let e = self.emit(b, Op::BitwiseAnd, it, ids(&[e, m]));
                    let z = self.splat(it, 0, 0.0);
                    let nz = self.emit(b, Op::INotEqual, rt, ids(&[e, z]));
                    let nm = self.emit(b, Op::INotEqual, rt, ids(&[e, m]));
                    self.emit(b, Op::LogicalAnd, rt, ids(&[nz, nm]))
                }
            }
            _ => return Err(format!("Op{op:?} is not supported")),
        })
    }
}
