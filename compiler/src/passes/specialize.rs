//! `specialize_address_spaces`: clones functions whose pointer parameters
//! receive pointers into different address spaces.
//!
//! The lowering must know statically where each pointer points (a generic
//! pointer, or a `__constant` one that may address a kernel argument or a
//! program-scope table). A function called with, say, a global pointer at
//! one call site and a local one at another is cloned once per distinct
//! combination of argument spaces, and each call site calls its clone.
//! Repeats until no function has mixed parameters (clones may in turn
//! call shared functions), at most 16 rounds.
//!
//! A pointer whose space is mixed inside one function (a phi of a global
//! and a local pointer, a generic pointer loaded from memory) stays
//! `Mixed`: `dispatch_generic` handles its accesses at run time.

use std::collections::HashMap;

use rspirv::dr::{self, Operand};
use rspirv::spirv::{Op, Word};

use super::global_vars::global_offsets;
use crate::analyses::address_space::{infer_program_spaces, Space};

/// Call sites of one function by the spaces of their arguments:
/// (function index, block index, instruction index) of each call.
type CallSites = HashMap<Vec<Option<Space>>, Vec<(usize, usize, usize)>>;

/// See the module documentation.
pub fn specialize_address_spaces(module: &mut dr::Module) {
    for _round in 0..16 {
        let spaces = infer_program_spaces(module, &global_offsets(module));
        if spaces.is_empty() {
            return;
        }
        let funcs: HashMap<Word, usize> = module
            .functions
            .iter()
            .enumerate()
            .filter_map(|(i, f)| Some((f.def_id()?, i)))
            .collect();
        // Call sites per callee with a mixed pointer parameter: signature →
        // the (function index, block, instruction) of each call.
        let mut target: Option<(Word, CallSites)> = None;
        'search: for (fi, f) in module.functions.iter().enumerate() {
            for (bi, blk) in f.blocks.iter().enumerate() {
                for (ii, inst) in blk.instructions.iter().enumerate() {
                    if inst.class.opcode != Op::FunctionCall {
                        continue;
                    }
                    let callee = inst.operands[0].unwrap_id_ref();
                    let Some(&ci) = funcs.get(&callee) else {
                        continue;
                    };
                    let mixed = module.functions[ci]
                        .parameters
                        .iter()
                        .any(|p| spaces.get(&p.result_id.unwrap_or(0)) == Some(&Space::Mixed));
                    if !mixed {
                        continue;
                    }
                    match &target {
                        Some((t, _)) if *t != callee => continue,
                        None => target = Some((callee, HashMap::new())),
                        _ => {}
                    }
                    let sig: Vec<Option<Space>> = inst.operands[1..]
                        .iter()
                        .map(|o| spaces.get(&o.unwrap_id_ref()).copied())
                        .collect();
                    if sig.contains(&Some(Space::Mixed)) {
                        // The caller itself must be specialized first.
                        target = None;
                        continue 'search;
                    }
                    if let Some((_, sites)) = &mut target {
                        sites.entry(sig).or_default().push((fi, bi, ii));
                    }
                }
            }
        }
        let Some((callee, sites)) = target else {
            return;
        };
        if sites.len() < 2 {
            return;
        }
        let mut sigs: Vec<_> = sites.into_iter().collect();
        sigs.sort_by_key(|(_, calls)| calls[0]);
        for (_, calls) in sigs.into_iter().skip(1) {
            let clone = clone_function(module, callee);
            for (fi, bi, ii) in calls {
                module.functions[fi].blocks[bi].instructions[ii].operands[0] =
                    Operand::IdRef(clone);
            }
        }
    }
}

/// Copies function `id` with fresh ids (its decorations and names too);
/// returns the copy's id.
pub(crate) fn clone_function(module: &mut dr::Module, id: Word) -> Word {
    let Some(orig) = module
        .functions
        .iter()
        .find(|f| f.def_id() == Some(id))
        .cloned()
    else {
        return id;
    };
    let mut bound = module.header.as_ref().map_or(1, |h| h.bound);
    let mut map: HashMap<Word, Word> = HashMap::new();
    for inst in orig.all_inst_iter() {
        if let Some(r) = inst.result_id {
            map.insert(r, bound);
            bound += 1;
        }
    }
    let mut f = orig;
    for inst in f.all_inst_iter_mut() {
        if let Some(r) = &mut inst.result_id {
            *r = map[r];
        }
        for o in &mut inst.operands {
            if let Some(x) = o.id_ref_any_mut() {
                if let Some(&n) = map.get(x) {
                    *x = n;
                }
            }
        }
    }
    let copy_targeted = |list: &[dr::Instruction]| -> Vec<dr::Instruction> {
        list.iter()
            .filter_map(|a| {
                let Some(Operand::IdRef(t)) = a.operands.first() else {
                    return None;
                };
                let n = *map.get(t)?;
                let mut a = a.clone();
                a.operands[0] = Operand::IdRef(n);
                Some(a)
            })
            .collect()
    };
    let decorations = copy_targeted(&module.annotations);
    // The copy is not exported: drop its linkage attributes.
    module
        .annotations
        .extend(decorations.into_iter().filter(|a| {
            !matches!(
                a.operands.get(1),
                Some(Operand::Decoration(
                    rspirv::spirv::Decoration::LinkageAttributes
                ))
            )
        }));
    let names = copy_targeted(&module.debug_names);
    module.debug_names.extend(names);
    if let Some(h) = &mut module.header {
        h.bound = bound;
    }
    let new_id = map[&id];
    module.functions.push(f);
    new_id
}
