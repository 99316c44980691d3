//! `fold_select_shifts`: a shift by a constant of a select between two
//! constants becomes a select between the two shifted constants:
//! `OpShiftLeftLogical(OpSelect(c, A, B), K)` → `OpSelect(c, A << K,
//! B << K)` (and the same for the right shifts), scalars and vectors.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) miscompiles the 64-bit
//! `select(c, -1, 0) << 31`, which is how LLVM writes
//! `(ulong)-(long)cond << 31` or a vector `&&` shifted: it gives
//! `0x0000000080000000` instead of `0xffffffff80000000` (GPU fuzz sample,
//! `tests/fuzz-open` p200061, reduced on the H200; every other count from
//! 1 to 63 and the same select of folded constants are right, and NVIDIA's
//! own OpenCL is right). The fold removes the pattern; it is exact on
//! every device (the shift of each constant is computed here with the
//! operation's own width), so it runs everywhere.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

/// A scalar integer constant's (width, value), a vector constant's
/// components, or a null of any integer type (zero in every lane).
#[derive(Clone)]
enum Constant {
    Scalar(u32, u64),
    Vector(Vec<Word>),
    Null,
}

fn constants(module: &Module) -> HashMap<Word, (Word, Constant)> {
    let mut widths = HashMap::new();
    let mut out = HashMap::new();
    for inst in &module.types_global_values {
        let (Some(id), ty) = (inst.result_id, inst.result_type) else {
            continue;
        };
        match (inst.class.opcode, inst.operands.as_slice(), ty) {
            (Op::TypeInt, [Operand::LiteralBit32(w), ..], _) => {
                widths.insert(id, *w);
            }
            (Op::Constant, [Operand::LiteralBit32(v)], Some(t)) => {
                if let Some(&w) = widths.get(&t) {
                    out.insert(id, (t, Constant::Scalar(w, u64::from(*v))));
                }
            }
            (Op::Constant, [Operand::LiteralBit64(v)], Some(t)) => {
                if let Some(&w) = widths.get(&t) {
                    out.insert(id, (t, Constant::Scalar(w, *v)));
                }
            }
            (Op::ConstantNull, [], Some(t)) => {
                out.insert(id, (t, Constant::Null));
            }
            (Op::ConstantComposite, ops, Some(t)) => {
                let parts: Option<Vec<Word>> = ops
                    .iter()
                    .map(|o| match o {
                        Operand::IdRef(c) => Some(*c),
                        _ => None,
                    })
                    .collect();
                if let Some(parts) = parts {
                    out.insert(id, (t, Constant::Vector(parts)));
                }
            }
            _ => {}
        }
    }
    out
}

/// `value OP count` in `width` bits, with SPIR-V's meaning for counts below
/// the width; `None` for a count at or beyond it (undefined in SPIR-V:
/// left to the driver as it was).
fn shift(op: Op, width: u32, value: u64, count: u64) -> Option<u64> {
    if count >= u64::from(width) || width > 64 {
        return None;
    }
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let v = value & mask;
    let r = match op {
        Op::ShiftLeftLogical => v << count,
        Op::ShiftRightLogical => v >> count,
        _ => {
            let signed = ((v << (64 - width)) as i64) >> (64 - width);
            (signed >> count) as u64
        }
    };
    Some(r & mask)
}

/// The constant `value OP count` as a new (or reused) global of `value`'s
/// type, for scalars and vectors alike.
fn fold(
    module: &mut Module,
    known: &mut HashMap<Word, (Word, Constant)>,
    op: Op,
    value: Word,
    count: Word,
) -> Option<Word> {
    let (ty, v) = known.get(&value)?.clone();
    let (_, c) = known.get(&count)?.clone();
    match (v, c) {
        // Every shift of zero is zero.
        (Constant::Null, _) => Some(value),
        (Constant::Scalar(w, v), Constant::Scalar(_, c)) => {
            let r = shift(op, w, v, c)?;
            let literal = if w == 64 {
                Operand::LiteralBit64(r)
            } else {
                Operand::LiteralBit32(r as u32)
            };
            let id = super::module_edit::global(module, Op::Constant, Some(ty), vec![literal]);
            // A later shift may read it.
            known.insert(id, (ty, Constant::Scalar(w, r)));
            Some(id)
        }
        (Constant::Vector(vs), c) => {
            let counts = match c {
                Constant::Vector(cs) if cs.len() == vs.len() => cs,
                _ => return None,
            };
            let parts = vs
                .iter()
                .zip(&counts)
                .map(|(&v, &c)| fold(module, known, op, v, c))
                .collect::<Option<Vec<_>>>()?;
            let operands = parts.iter().map(|&p| Operand::IdRef(p)).collect();
            let id = super::module_edit::global(module, Op::ConstantComposite, Some(ty), operands);
            known.insert(id, (ty, Constant::Vector(parts)));
            Some(id)
        }
        _ => None,
    }
}

pub fn fold_select_shifts(module: &mut Module) {
    let mut known = constants(module);
    // The selects between two constants: id -> (condition, a, b).
    let mut selects: HashMap<Word, (Word, Word, Word)> = HashMap::new();
    for f in &module.functions {
        for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
            if let (
                Op::Select,
                Some(id),
                [Operand::IdRef(c), Operand::IdRef(a), Operand::IdRef(b)],
            ) = (inst.class.opcode, inst.result_id, inst.operands.as_slice())
            {
                if known.contains_key(a) && known.contains_key(b) {
                    selects.insert(id, (*c, *a, *b));
                }
            }
        }
    }
    if selects.is_empty() {
        return;
    }
    for fi in 0..module.functions.len() {
        for bi in 0..module.functions[fi].blocks.len() {
            for ii in 0..module.functions[fi].blocks[bi].instructions.len() {
                let inst = &module.functions[fi].blocks[bi].instructions[ii];
                let op = inst.class.opcode;
                if !matches!(
                    op,
                    Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic
                ) {
                    continue;
                }
                let (Some(ty), Some(id), [Operand::IdRef(base), Operand::IdRef(count)]) =
                    (inst.result_type, inst.result_id, inst.operands.as_slice())
                else {
                    continue;
                };
                let (count, Some(&(c, a, b))) = (*count, selects.get(base)) else {
                    continue;
                };
                if known.get(&a).map(|k| k.0) != Some(ty) || known.get(&b).map(|k| k.0) != Some(ty)
                {
                    continue;
                }
                let Some(fa) = fold(module, &mut known, op, a, count) else {
                    continue;
                };
                let Some(fb) = fold(module, &mut known, op, b, count) else {
                    continue;
                };
                module.functions[fi].blocks[bi].instructions[ii] = Instruction::new(
                    Op::Select,
                    Some(ty),
                    Some(id),
                    vec![Operand::IdRef(c), Operand::IdRef(fa), Operand::IdRef(fb)],
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::shift;
    use rspirv::spirv::Op;

    #[test]
    fn shifts_in_the_operations_width() {
        assert_eq!(
            shift(Op::ShiftLeftLogical, 64, u64::MAX, 31),
            Some(0xffff_ffff_8000_0000)
        );
        assert_eq!(shift(Op::ShiftLeftLogical, 8, 0xff, 4), Some(0xf0));
        assert_eq!(
            shift(Op::ShiftRightArithmetic, 16, 0x8000, 15),
            Some(0xffff)
        );
        assert_eq!(shift(Op::ShiftRightLogical, 32, 0x8000_0000, 31), Some(1));
        assert_eq!(shift(Op::ShiftLeftLogical, 32, 1, 32), None);
    }
}
