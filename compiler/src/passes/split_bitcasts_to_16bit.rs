//! `split_bitcasts_to_16bit`: a bitcast of a 64-bit scalar to four 16-bit
//! components goes through two 32-bit halves:
//!
//! ```text
//!   %r = OpBitcast %v4ushort %x        %t  = OpBitcast %v2uint %x
//!                                      %lo = OpCompositeExtract %uint %t 0
//!                                      %hi = OpCompositeExtract %uint %t 1
//!                                      %a  = OpBitcast %v2ushort %lo
//!                                      %b  = OpBitcast %v2ushort %hi
//!                                      %r  = OpVectorShuffle %v4ushort %a %b 0 1 2 3
//! ```
//!
//! Why: lavapipe 22.3 (Mesa's NIR) gives 0 as the last component when it
//! folds such a bitcast of a constant: `as_ushort4(rotate(x, 0UL))`, whose
//! rotate NIR folds, lost `x`'s top 16 bits (lavapipe fuzz run, seed 14
//! p212: `as_ushort16` of a `shuffle2` of constants;
//! `tests/tests/bitcast_to_16bit.rs`). The same bitcast of a value NIR
//! cannot fold is right, and so are the 64 → 2 × 32 and 32 → 2 × 16
//! bitcasts this pass uses instead, folded or not (measured). Applies to
//! every 16-bit component type (short, ushort, half) and every 64-bit
//! scalar source (long, ulong, double).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::module_edit::{fresh_id, global, value_types};

/// Rewrites every 64-bit → 4 × 16-bit bitcast of `module` (module doc);
/// returns whether there was one.
pub fn split_bitcasts_to_16bit(module: &mut Module) -> bool {
    // Scalar types by id: (opcode, width); vectors: (component, count).
    let mut scalars: HashMap<Word, (Op, u32)> = HashMap::new();
    let mut vectors: HashMap<Word, (Word, u32)> = HashMap::new();
    for i in &module.types_global_values {
        match (i.class.opcode, i.result_id, i.operands.as_slice()) {
            (Op::TypeInt | Op::TypeFloat, Some(id), [Operand::LiteralBit32(w), ..]) => {
                scalars.insert(id, (i.class.opcode, *w));
            }
            (Op::TypeVector, Some(id), [Operand::IdRef(c), Operand::LiteralBit32(n)]) => {
                vectors.insert(id, (*c, *n));
            }
            _ => {}
        }
    }
    let value_types = value_types(module);
    let is_64bit_scalar = |v: Word| {
        value_types
            .get(&v)
            .and_then(|t| scalars.get(t))
            .is_some_and(|&(_, w)| w == 64)
    };
    // The bitcasts to rewrite: (function, block, instruction index), with
    // the 16-bit component type.
    let mut sites = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                if i.class.opcode != Op::Bitcast {
                    continue;
                }
                let Some(&(component, 4)) = i.result_type.and_then(|t| vectors.get(&t)) else {
                    continue;
                };
                let source = match i.operands.first() {
                    Some(Operand::IdRef(v)) => *v,
                    _ => continue,
                };
                if scalars.get(&component).is_some_and(|&(_, w)| w == 16) && is_64bit_scalar(source)
                {
                    sites.push((fi, bi, ii, component));
                }
            }
        }
    }
    if sites.is_empty() {
        return false;
    }
    let uint = global(
        module,
        Op::TypeInt,
        None,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    );
    let v2uint = global(
        module,
        Op::TypeVector,
        None,
        vec![Operand::IdRef(uint), Operand::LiteralBit32(2)],
    );
    // Later sites of a block first, so that earlier indices stay valid.
    for &(fi, bi, ii, component) in sites.iter().rev() {
        let v2half = global(
            module,
            Op::TypeVector,
            None,
            vec![Operand::IdRef(component), Operand::LiteralBit32(2)],
        );
        let [t, lo, hi, a, b] = [0; 5].map(|_| fresh_id(module));
        let old = &module.functions[fi].blocks[bi].instructions[ii];
        let (result_type, result, source) =
            (old.result_type, old.result_id, old.operands[0].clone());
        let extract = |id: Word, k: u32| {
            Instruction::new(
                Op::CompositeExtract,
                Some(uint),
                Some(id),
                vec![Operand::IdRef(t), Operand::LiteralBit32(k)],
            )
        };
        let half = |id: Word, of: Word| {
            Instruction::new(
                Op::Bitcast,
                Some(v2half),
                Some(id),
                vec![Operand::IdRef(of)],
            )
        };
        let replacement = vec![
            Instruction::new(Op::Bitcast, Some(v2uint), Some(t), vec![source]),
            extract(lo, 0),
            extract(hi, 1),
            half(a, lo),
            half(b, hi),
            Instruction::new(
                Op::VectorShuffle,
                result_type,
                result,
                [Operand::IdRef(a), Operand::IdRef(b)]
                    .into_iter()
                    .chain((0..4).map(Operand::LiteralBit32))
                    .collect(),
            ),
        ];
        module.functions[fi].blocks[bi]
            .instructions
            .splice(ii..=ii, replacement);
    }
    true
}
