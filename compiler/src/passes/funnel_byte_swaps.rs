//! `funnel_byte_swaps`: the byte swap of a 16-bit value written in 32-bit
//! arithmetic, `(p << 8) | (q >> 8)` with `p` and `q` below 2^16 (the
//! same value, in a byte swap), becomes the funnel shift
//! `((p << 16) | q) >> 8`, scalars and vectors.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) compiles that OR into code
//! that stores 0x0020 whatever the input (GPU probe of session 25, H200:
//! corpus `int_byte_swap_ushort.cl` as IL made by clang at -O0, every
//! byte-swap field wrong for all 256 work-items, the shifts by 3 and the
//! variable rotation beside them right; with descriptor addressing, the
//! 16-bit stores done as 32-bit read-modify-writes, all right). The same
//! compiler got the byte swap wrong from OpenCL C until
//! `frontend::swaps16` defined LLVM's `llvm.bswap.i16` in the funnel shape
//! (the "dup" shape of session 18's probes, which it compiles right):
//! this pass does the same for SPIR-V that arrives with the swap already
//! written as shifts and an OR (other producers, or clang at -O0, whose
//! IL reaches ferrocl without LLVM's optimizer), after
//! `widen_narrow_arithmetic` has made 16-bit arithmetic 32-bit.
//!
//! The terms matched (`b16(v)`: `v` is known below 2^16, as a zero
//! extension of a 16-bit or narrower value, a mask of at most 0xffff, or
//! a logical right shift by 16 or more):
//!
//! - left: `p << 8` with `b16(p)`; `(p << 8) & 0xff00` or `& 0xffff`, or
//!   `p << 8` truncated to 16 bits and zero-extended back, which are
//!   `(p & 0xff) << 8`;
//! - right: `q >> 8` (logical, or arithmetic: `q` is not negative) with
//!   `b16(q)`, also truncated to 16 bits and extended back or masked with
//!   0xffff; `(q >> 8) & 0xff`, which is `(q & 0xff00) >> 8` for any `q`.
//!
//! With `P` and `Q` the left and right values so normalized (both below
//! 2^16), `(P << 8) | (Q >> 8)` equals `((P << 16) | Q) >> 8` in every
//! bit of the 32-bit result: the rewrite is exact on every device, so it
//! runs everywhere (on devices without `wide_narrow_arithmetic` a 16-bit
//! swap stays 16-bit and is not matched).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::module_edit::{component_type, fresh_id, int_types, rewrite_instructions, splat};

/// What the pass reads of the module before it edits it.
struct Facts {
    /// The defining instruction of each value of interest (conversions,
    /// masks, shifts).
    defs: HashMap<Word, Instruction>,
    /// Integer constants, and vector constants whose lanes are all one
    /// value: id -> value.
    constants: HashMap<Word, u64>,
    /// The element width of each integer value's type.
    widths: HashMap<Word, u32>,
}

impl Facts {
    fn of(module: &Module) -> Facts {
        let ints = int_types(module);
        let mut widths = HashMap::new();
        let mut constants = HashMap::new();
        for i in &module.types_global_values {
            let (Some(id), Some(ty)) = (i.result_id, i.result_type) else {
                continue;
            };
            if let Some(&(w, _)) = ints.get(&ty) {
                widths.insert(id, w);
            }
            match (i.class.opcode, i.operands.as_slice()) {
                (Op::Constant, [Operand::LiteralBit32(v)]) => {
                    constants.insert(id, u64::from(*v));
                }
                (Op::Constant, [Operand::LiteralBit64(v)]) => {
                    constants.insert(id, *v);
                }
                (Op::ConstantComposite, ops) => {
                    let lanes: Option<Vec<u64>> = ops
                        .iter()
                        .map(|o| match o {
                            Operand::IdRef(c) => constants.get(c).copied(),
                            _ => None,
                        })
                        .collect();
                    if let Some(first) = lanes.as_ref().and_then(|l| l.first().copied()) {
                        if lanes.iter().flatten().all(|&v| v == first) {
                            constants.insert(id, first);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut defs = HashMap::new();
        let values = module.functions.iter().flat_map(|f| {
            f.parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
        });
        for i in values {
            let (Some(id), Some(ty)) = (i.result_id, i.result_type) else {
                continue;
            };
            if let Some(&(w, _)) = ints.get(&ty) {
                widths.insert(id, w);
            }
            if matches!(
                i.class.opcode,
                Op::UConvert
                    | Op::BitwiseAnd
                    | Op::ShiftLeftLogical
                    | Op::ShiftRightLogical
                    | Op::ShiftRightArithmetic
            ) {
                defs.insert(id, i.clone());
            }
        }
        Facts {
            defs,
            constants,
            widths,
        }
    }

    /// The opcode and id operands of `id`'s definition.
    fn def(&self, id: Word) -> Option<(Op, Vec<Word>)> {
        let i = self.defs.get(&id)?;
        let ids = i
            .operands
            .iter()
            .map(|o| match o {
                Operand::IdRef(v) => Some(*v),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some((i.class.opcode, ids))
    }

    /// `x` if `id` is `x OP 8` (a constant count of 8).
    fn shifted_by_8(&self, id: Word, ops: &[Op]) -> Option<Word> {
        match self.def(id)? {
            (op, v)
                if ops.contains(&op) && v.len() == 2 && self.constants.get(&v[1]) == Some(&8) =>
            {
                Some(v[0])
            }
            _ => None,
        }
    }

    /// `x` if `id` is `x` (32-bit) truncated to 16 bits and zero-extended
    /// back to 32.
    fn truncated_to_16(&self, id: Word) -> Option<Word> {
        let (Op::UConvert, t) = self.def(id)? else {
            return None;
        };
        let (Op::UConvert, x) = self.def(t[0])? else {
            return None;
        };
        (self.widths.get(&t[0]) == Some(&16) && self.widths.get(&x[0]) == Some(&32)).then_some(x[0])
    }

    /// `(x, mask)` if `id` is `x & mask` with a constant mask.
    fn masked(&self, id: Word) -> Option<(Word, u64)> {
        let (Op::BitwiseAnd, v) = self.def(id)? else {
            return None;
        };
        match (self.constants.get(&v[0]), self.constants.get(&v[1])) {
            (_, Some(&m)) => Some((v[0], m)),
            (Some(&m), _) => Some((v[1], m)),
            _ => None,
        }
    }

    /// Whether 32-bit `id` is known to be below 2^16.
    fn below_2_16(&self, id: Word) -> bool {
        match self.def(id) {
            Some((Op::UConvert, v)) => self.widths.get(&v[0]).is_some_and(|&w| w <= 16),
            Some((Op::BitwiseAnd, _)) => self.masked(id).is_some_and(|(_, m)| m <= 0xffff),
            Some((Op::ShiftRightLogical, v)) => self
                .constants
                .get(&v[1])
                .is_some_and(|&c| (16..32).contains(&c)),
            _ => false,
        }
    }

    /// The left term `P << 8`: `(p, mask)` with `P = p & mask` (no mask:
    /// `P = p`).
    fn left(&self, id: Word) -> Option<(Word, Option<u64>)> {
        let shl = [Op::ShiftLeftLogical];
        if let Some(x) = self.truncated_to_16(id) {
            return Some((self.shifted_by_8(x, &shl)?, Some(0xff)));
        }
        if let Some((x, m)) = self.masked(id) {
            return (m == 0xff00 || m == 0xffff)
                .then_some((self.shifted_by_8(x, &shl)?, Some(0xff)));
        }
        let p = self.shifted_by_8(id, &shl)?;
        self.below_2_16(p).then_some((p, None))
    }

    /// The right term `Q >> 8`: `(q, mask)` with `Q = q & mask`.
    fn right(&self, id: Word) -> Option<(Word, Option<u64>)> {
        let shr = [Op::ShiftRightLogical, Op::ShiftRightArithmetic];
        let (x, mask) = if let Some(x) = self.truncated_to_16(id) {
            (x, Some(0xffff))
        } else if let Some((x, m)) = self.masked(id) {
            (x, Some(m))
        } else {
            (id, None)
        };
        let q = self.shifted_by_8(x, &shr)?;
        match mask {
            Some(0xff) => Some((q, Some(0xff00))),
            None | Some(0xffff) => self.below_2_16(q).then_some((q, None)),
            Some(_) => None,
        }
    }
}

pub fn funnel_byte_swaps(module: &mut Module) {
    let facts = Facts::of(module);
    if !facts
        .defs
        .values()
        .any(|i| i.class.opcode == Op::ShiftLeftLogical)
    {
        return;
    }
    let ints = int_types(module);
    rewrite_instructions(module, |module, inst, out| {
        let terms = match (
            inst.class.opcode,
            inst.result_type,
            inst.operands.as_slice(),
        ) {
            (Op::BitwiseOr, Some(ty), [Operand::IdRef(a), Operand::IdRef(b)])
                if ints.get(&ty).is_some_and(|&(w, _)| w == 32) =>
            {
                let pair = |l: Word, r: Word| Some((facts.left(l)?, facts.right(r)?));
                pair(*a, *b).or_else(|| pair(*b, *a)).map(|t| (ty, t))
            }
            _ => None,
        };
        let (Some((ty, ((p, pm), (q, qm)))), Some(id)) = (terms, inst.result_id) else {
            out.push(inst);
            return;
        };
        let scalar = component_type(module, ty);
        let n = ints[&ty].1;
        let k = |module: &mut Module, v: u64| {
            splat(module, ty, scalar, n, Operand::LiteralBit32(v as u32))
        };
        let op = |module: &mut Module, out: &mut Vec<Instruction>, opcode: Op, a: Word, b: Word| {
            let r = fresh_id(module);
            out.push(Instruction::new(
                opcode,
                Some(ty),
                Some(r),
                vec![Operand::IdRef(a), Operand::IdRef(b)],
            ));
            r
        };
        let masked =
            |module: &mut Module, out: &mut Vec<Instruction>, v: Word, m: Option<u64>| match m {
                Some(m) => {
                    let c = k(module, m);
                    op(module, out, Op::BitwiseAnd, v, c)
                }
                None => v,
            };
        let p = masked(module, out, p, pm);
        let q = masked(module, out, q, qm);
        let c16 = k(module, 16);
        let hi = op(module, out, Op::ShiftLeftLogical, p, c16);
        let both = op(module, out, Op::BitwiseOr, hi, q);
        let c8 = k(module, 8);
        out.push(Instruction::new(
            Op::ShiftRightLogical,
            Some(ty),
            Some(id),
            vec![Operand::IdRef(both), Operand::IdRef(c8)],
        ));
    });
}

#[cfg(test)]
mod tests;
