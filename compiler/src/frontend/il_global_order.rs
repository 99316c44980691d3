//! `order_global_definitions`: an application's SPIR-V module whose
//! module-scope types, constants and variables use an id before the
//! instruction that defines it, put in an order where each definition
//! comes first, when such an order exists.
//!
//! Why: llvm-spirv-14 (Debian 12's `llvm-spirv-14`, an older producer
//! than the one ferrocl uses) writes a constant vector expression such as
//! `(-as_ushort8((ulong2)7)).s576` as `OpSpecConstantOp CompositeExtract`
//! of an `OpSpecConstantOp Bitcast` that it emits further down, after the
//! types that one needs. SPIR-V requires definitions first (spirv-val
//! refuses the module), and `il_definitions` refuses it with a build
//! error; the module means one thing all the same, and readers that
//! resolve ids lazily (llvm-spirv's, so PoCL) run it. Found by
//! `ferrocl-fuzz --il` with `FERROCL_FUZZ_IL_VERSION=14`.
//!
//! Algorithm: Kahn's topological sort of the types-and-globals section,
//! stable (among the instructions ready, the first in the module goes
//! first), so a module already in order is left untouched and one out of
//! order moves as little as it can. The dependencies are each id operand
//! and result type defined in the section; a pointer type that an
//! OpTypeForwardPointer declares counts as defined there. A cycle (no
//! order exists) leaves the module as it is, for `il_definitions` to name
//! the fault. Only the section is reordered; a module rspirv cannot read
//! is left as it is too.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op;

/// The module with its global definitions ordered, or None when it needs
/// no change (or cannot be ordered or read). `words` must be a sound
/// instruction stream (`il_structure::check_il_stream`).
pub fn order_global_definitions(words: &[u32]) -> Option<Vec<u32>> {
    let mut module = rspirv::dr::load_words(words).ok()?;
    let order = definition_order(&module.types_global_values)?;
    let mut slots: Vec<Option<Instruction>> = std::mem::take(&mut module.types_global_values)
        .into_iter()
        .map(Some)
        .collect();
    module.types_global_values = order
        .iter()
        .map(|&i| slots[i].take().expect("each once"))
        .collect();
    Some(module.assemble())
}

/// The ids an instruction uses: its result type and id operands.
fn uses(inst: &Instruction) -> impl Iterator<Item = u32> + '_ {
    inst.result_type
        .into_iter()
        .chain(inst.operands.iter().filter_map(|o| match o {
            Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) => Some(*id),
            _ => None,
        }))
}

/// The stable topological order of `insts`, or None when they are in
/// order already or no order exists.
fn definition_order(insts: &[Instruction]) -> Option<Vec<usize>> {
    // Where each id is defined; a forward-declared pointer type at its
    // OpTypeForwardPointer, which may precede the pointer's own definition.
    let mut defined_at = HashMap::new();
    for (i, inst) in insts.iter().enumerate() {
        if inst.class.opcode == Op::TypeForwardPointer {
            if let Some(Operand::IdRef(p)) = inst.operands.first() {
                defined_at.entry(*p).or_insert(i);
            }
        } else if let Some(id) = inst.result_id {
            defined_at.entry(id).or_insert(i);
        }
    }
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); insts.len()];
    let mut in_order = true;
    for (i, inst) in insts.iter().enumerate() {
        let skip = match inst.class.opcode {
            // Its operand is what it declares.
            Op::TypeForwardPointer => inst.operands.first().cloned(),
            _ => None,
        };
        for id in uses(inst) {
            if skip == Some(Operand::IdRef(id)) {
                continue;
            }
            match defined_at.get(&id) {
                Some(&d) if d != i => {
                    in_order &= d < i;
                    deps[i].push(d);
                }
                _ => {} // defined elsewhere (a function) or not at all: il_definitions' to judge
            }
        }
    }
    if in_order {
        return None;
    }
    let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); insts.len()];
    for (i, ds) in deps.iter().enumerate() {
        for &d in ds {
            users[d].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..insts.len())
        .filter(|&i| waiting[i] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(insts.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &u in &users[i] {
            waiting[u] -= 1;
            if waiting[u] == 0 {
                ready.push(Reverse(u));
            }
        }
    }
    (order.len() == insts.len()).then_some(order)
}

#[cfg(test)]
mod tests;
