//! cl_khr_extended_bit_ops (and SPV_KHR_bit_instructions in IL): OpBitFieldInsert,
//! OpBitFieldSExtract, OpBitFieldUExtract and OpBitReverse on every integer
//! width, scalar or vector (`bit_field`).
//!
//! Vulkan takes these instructions on 32-bit operands only (its SPIR-V
//! environment: "Base must be a 32-bit integer", unless maintenance9), so:
//!
//! * 32 bits: the instruction as it is.
//! * 8 and 16 bits: on the value zero-extended to 32 bits, then truncated.
//!   A field lies inside the narrow value (offset + count <= width), so the
//!   32-bit insert or extract gives the same low bits; a signed extract
//!   sign-extends from the field's top bit, which truncation keeps.
//!   bit_reverse reverses 32 bits and shifts the result down by 32 - width.
//! * 64 bits: shifts and masks. With `m` = count ones (`~0 >> (64 -
//!   count)`, 0 for count 0): insert = `base & ~(m << offset) | (insert &
//!   m) << offset`, unsigned extract = `(base >> offset) & m`, signed
//!   extract = `(base << (64 - offset - count)) >> (64 - count)`
//!   (arithmetic). Count 0 gives `base` (insert) or 0 (extracts) through a
//!   select, since the shifts would then be by 64. bit_reverse reverses
//!   both 32-bit halves and swaps them.
//!
//! OpenCL leaves the result undefined only where offset + count exceeds
//! the width; every other case (count 0, a field reaching the top bit) is
//! exact here.
//!
//! Gaps: none known.

use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};
use crate::analyses::type_table::Ty;

/// Whether `op` is one of the bit-field instructions lowered here.
pub(super) fn is_bit_field_op(op: Op) -> bool {
    matches!(
        op,
        Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract | Op::BitReverse
    )
}

impl Lower<'_> {
    /// Lowers one bit-field instruction of the input (any width, 8/16-wide
    /// vectors part by part).
    pub(crate) fn lower_bit_field_inst(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let op = inst.class.opcode;
        let rty = inst.result_type.unwrap_or(0);
        let values = match op {
            Op::BitFieldInsert => 2,
            _ => 1,
        };
        let mut args = Vec::new();
        for (k, o) in inst.operands.iter().enumerate() {
            let x = o
                .id_ref_any()
                .ok_or("bit-field instruction without operands")?;
            let v = self.v(x);
            if k < values {
                args.push(v);
                continue;
            }
            // Offset and count: 32-bit scalars from here on.
            args.push(match self.tys.get(self.ty_of(x)) {
                Ty::Int(32) => v,
                Ty::Int(_) => {
                    let u32t = self.out.t_u32();
                    self.emit(b, Op::UConvert, u32t, ids(&[v]))
                }
                _ => return Err(format!("Op{op:?} with a non-integer offset or count")),
            });
        }
        let r = if self.is_wide(rty) {
            let part_rt = self.wide_part_ty(rty)?;
            let t = self.lower_ty(rty)?;
            let mut parts = Vec::new();
            for i in 0..self.wide_parts(rty) {
                let mut a = args.clone();
                for x in &mut a[..values] {
                    *x = self.wide_part(b, *x, part_rt, i);
                }
                parts.push(self.bit_field(b, op, part_rt, &a));
            }
            self.emit(b, Op::CompositeConstruct, t, ids(&parts))
        } else {
            let rt = self.lower_ty(rty)?;
            self.bit_field(b, op, rt, &args)
        };
        self.alias.insert(inst.result_id.unwrap_or(0), r);
        Ok(())
    }

    /// `op` (`is_bit_field_op`) with result type `rt` (output type, scalar
    /// or vector of up to 4) on output values `args`: base, [insert,]
    /// offset, count (offset and count 32-bit scalars), or base alone for
    /// OpBitReverse.
    fn bit_field(&mut self, b: &mut Block, op: Op, rt: Word, args: &[Word]) -> Word {
        let w = self.out.scalar_width(self.out.elem(rt)).unwrap_or(32);
        match w {
            32 => self.emit(b, op, rt, ids(args)),
            64 => self.bit_field64(b, op, rt, args),
            _ => {
                let t32 = self.int_like(rt, 32);
                let mut a = args.to_vec();
                let values = if op == Op::BitFieldInsert { 2 } else { 1 };
                for x in &mut a[..values] {
                    *x = self.emit(b, Op::UConvert, t32, ids(&[*x]));
                }
                let mut r = self.emit(b, op, t32, ids(&a));
                if op == Op::BitReverse {
                    let s = self.splat(t32, 32 - w as u64, 0.0);
                    r = self.op2(b, Op::ShiftRightLogical, t32, r, s);
                }
                self.emit(b, Op::UConvert, rt, ids(&[r]))
            }
        }
    }

    /// A 32-bit scalar offset or count as a value of `rt`'s shape and
    /// width 64.
    fn shift_amount64(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let u64t = self.out.t_u64();
        let x = self.emit(b, Op::UConvert, u64t, ids(&[x]));
        let n = self.out.vec_len(rt);
        if n == 1 {
            x
        } else {
            self.emit(b, Op::CompositeConstruct, rt, ids(&vec![x; n as usize]))
        }
    }

    fn bit_field64(&mut self, b: &mut Block, op: Op, rt: Word, args: &[Word]) -> Word {
        if op == Op::BitReverse {
            let t32 = self.int_like(rt, 32);
            let s32 = self.splat(rt, 32, 0.0);
            let lo = self.emit(b, Op::UConvert, t32, ids(&[args[0]]));
            let h = self.op2(b, Op::ShiftRightLogical, rt, args[0], s32);
            let hi = self.emit(b, Op::UConvert, t32, ids(&[h]));
            let rlo = self.emit(b, Op::BitReverse, t32, ids(&[lo]));
            let rhi = self.emit(b, Op::BitReverse, t32, ids(&[hi]));
            let top = self.emit(b, Op::UConvert, rt, ids(&[rlo]));
            let top = self.op2(b, Op::ShiftLeftLogical, rt, top, s32);
            let bottom = self.emit(b, Op::UConvert, rt, ids(&[rhi]));
            return self.op2(b, Op::BitwiseOr, rt, top, bottom);
        }
        let (base, fields) = if op == Op::BitFieldInsert {
            (args[0], &args[2..4])
        } else {
            (args[0], &args[1..3])
        };
        let offset = self.shift_amount64(b, rt, fields[0]);
        let count = self.shift_amount64(b, rt, fields[1]);
        let bt = self.bool_ty(rt);
        let zero = self.splat(rt, 0, 0.0);
        let ones = self.splat(rt, u64::MAX, 0.0);
        let c64 = self.splat(rt, 64, 0.0);
        let empty = self.emit(b, Op::IEqual, bt, ids(&[count, zero]));
        let unused = self.op2(b, Op::ISub, rt, c64, count);
        let mask = self.op2(b, Op::ShiftRightLogical, rt, ones, unused);
        let (r, if_empty) = match op {
            Op::BitFieldInsert => {
                let field = self.op2(b, Op::ShiftLeftLogical, rt, mask, offset);
                let hole = self.emit(b, Op::Not, rt, ids(&[field]));
                let kept = self.op2(b, Op::BitwiseAnd, rt, base, hole);
                let ins = self.op2(b, Op::BitwiseAnd, rt, args[1], mask);
                let ins = self.op2(b, Op::ShiftLeftLogical, rt, ins, offset);
                (self.op2(b, Op::BitwiseOr, rt, kept, ins), base)
            }
            Op::BitFieldUExtract => {
                let s = self.op2(b, Op::ShiftRightLogical, rt, base, offset);
                (self.op2(b, Op::BitwiseAnd, rt, s, mask), zero)
            }
            _ => {
                let up = self.op2(b, Op::ISub, rt, unused, offset);
                let s = self.op2(b, Op::ShiftLeftLogical, rt, base, up);
                (self.op2(b, Op::ShiftRightArithmetic, rt, s, unused), zero)
            }
        };
        self.emit(b, Op::Select, rt, ids(&[empty, if_empty, r]))
    }
}
