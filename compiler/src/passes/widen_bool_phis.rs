//! `widen_bool_phis`: every `OpPhi` of a boolean (or boolean vector)
//! becomes a phi of 32-bit integers, 1 for true and 0 for false, with the
//! boolean taken back by `OpINotEqual` right after the block's phis.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) crashed the process
//! (SIGSEGV in `libnvidia-gpucomp`, from `vkCreateComputePipelines`) on
//! valid modules of the GPU fuzz samples (`tests/fuzz-open`, seed 7008
//! p400015, seed 7011 p300099 and p500087). spirv-reduce, with "the
//! process dies" as its test, cut p400015's 13 KB module down to a loop
//! whose header has a boolean phi of a value from before the loop; the
//! fuzz programs' modules have boolean phis in loop headers and in the
//! merge blocks that feed a loop's back edge (session 23). The integer
//! form is what the driver makes of a boolean in a register anyway.
//!
//! Algorithm: for `%b = OpPhi %bool %v1 %p1 ... %vn %pn`, each `%vi` is
//! turned into `OpSelect %uint %vi 1 0` at the end of its parent `%pi`
//! (before the block's merge instruction and terminator, where `%vi` is
//! available by the rules of `OpPhi`), the phi takes those, and `%b =
//! OpINotEqual %bool %phi 0` follows the last phi of the block, so the
//! users of `%b` are untouched. Boolean vectors get vectors of 32-bit
//! integers.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::module_edit::{fresh_id, global, splat};

pub fn widen_bool_phis(module: &mut Module) {
    // Boolean types: id -> components.
    let mut bools: HashMap<Word, u32> = HashMap::new();
    for i in &module.types_global_values {
        match (i.class.opcode, i.result_id, i.operands.as_slice()) {
            (Op::TypeBool, Some(id), _) => {
                bools.insert(id, 1);
            }
            (Op::TypeVector, Some(id), [Operand::IdRef(c), Operand::LiteralBit32(n)])
                if bools.get(c) == Some(&1) =>
            {
                bools.insert(id, *n);
            }
            _ => {}
        }
    }
    let has_bool_phi = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .any(|i| {
            i.class.opcode == Op::Phi && i.result_type.is_some_and(|t| bools.contains_key(&t))
        });
    if !has_bool_phi {
        return;
    }
    let uint = global(
        module,
        Op::TypeInt,
        None,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    );
    for fi in 0..module.functions.len() {
        let labels: HashMap<Word, usize> = module.functions[fi]
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((b.label.as_ref()?.result_id?, i)))
            .collect();
        // Selects to add at the end of each parent block.
        let mut tails: HashMap<usize, Vec<Instruction>> = HashMap::new();
        for bi in 0..module.functions[fi].blocks.len() {
            let mut takes_back = Vec::new();
            let phis = module.functions[fi].blocks[bi]
                .instructions
                .iter()
                .take_while(|i| i.class.opcode == Op::Phi)
                .count();
            for ii in 0..phis {
                let inst = &module.functions[fi].blocks[bi].instructions[ii];
                let (Some(ty), Some(result)) = (inst.result_type, inst.result_id) else {
                    continue;
                };
                let Some(&n) = bools.get(&ty) else { continue };
                let pairs: Vec<(Word, Word)> = inst
                    .operands
                    .chunks(2)
                    .filter_map(|c| Some((c.first()?.id_ref_any()?, c.get(1)?.id_ref_any()?)))
                    .collect();
                // Every parent a block of this function (valid SPIR-V), or
                // the phi stays.
                if pairs.iter().any(|(_, p)| !labels.contains_key(p)) {
                    continue;
                }
                let ut = if n == 1 {
                    uint
                } else {
                    global(
                        module,
                        Op::TypeVector,
                        None,
                        vec![Operand::IdRef(uint), Operand::LiteralBit32(n)],
                    )
                };
                let one = splat(module, ut, uint, n, Operand::LiteralBit32(1));
                let zero = splat(module, ut, uint, n, Operand::LiteralBit32(0));
                let mut operands = Vec::with_capacity(pairs.len() * 2);
                for (value, parent) in pairs {
                    let s = fresh_id(module);
                    tails
                        .entry(labels[&parent])
                        .or_default()
                        .push(Instruction::new(
                            Op::Select,
                            Some(ut),
                            Some(s),
                            vec![
                                Operand::IdRef(value),
                                Operand::IdRef(one),
                                Operand::IdRef(zero),
                            ],
                        ));
                    operands.push(Operand::IdRef(s));
                    operands.push(Operand::IdRef(parent));
                }
                let phi = fresh_id(module);
                module.functions[fi].blocks[bi].instructions[ii] =
                    Instruction::new(Op::Phi, Some(ut), Some(phi), operands);
                takes_back.push(Instruction::new(
                    Op::INotEqual,
                    Some(ty),
                    Some(result),
                    vec![Operand::IdRef(phi), Operand::IdRef(zero)],
                ));
            }
            let block = &mut module.functions[fi].blocks[bi];
            block.instructions.splice(phis..phis, takes_back);
        }
        for (pi, selects) in tails {
            let block = &mut module.functions[fi].blocks[pi];
            // Before the terminator, and before a merge instruction that
            // must come right before it.
            let mut at = block.instructions.len().saturating_sub(1);
            if at > 0
                && matches!(
                    block.instructions[at - 1].class.opcode,
                    Op::SelectionMerge | Op::LoopMerge
                )
            {
                at -= 1;
            }
            block.instructions.splice(at..at, selects);
        }
    }
}

#[cfg(test)]
mod tests;
