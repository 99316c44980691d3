//! `specialize_image_calls`: clones functions whose image or sampler
//! parameters receive different kernel arguments or literal samplers, so
//! that every image/sampler value of a kernel has one origin
//! (`analyses::image_origins`).
//!
//! # Algorithm
//!
//! Picks a function with a `Mixed` parameter whose call sites all pass
//! resolved roots, clones it once per distinct combination of roots, and
//! repeats (OpenCL forbids recursion, so this ends), as
//! `specialize::specialize_address_spaces` does for pointers.
//!
//! Gaps: an image or sampler chosen at run time (a phi or select of two
//! roots inside one function) stays `Mixed`; the lowering reports it.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Operand};
use rspirv::spirv::{Op, Word};

use super::specialize::clone_function;
use crate::analyses::image_origins::{has_images, opaque_origins, opaque_types, Origin};

/// See the module documentation.
pub fn specialize_image_calls(module: &mut dr::Module) {
    if !has_images(module) {
        return;
    }
    let limit = 4 * module.functions.len() + 16;
    for _round in 0..limit {
        let origins = opaque_origins(module);
        let opaque = opaque_types(module);
        let funcs: HashMap<Word, usize> = module
            .functions
            .iter()
            .enumerate()
            .filter_map(|(i, f)| Some((f.def_id()?, i)))
            .collect();
        let mixed = |f: &dr::Function| {
            f.parameters.iter().any(|p| {
                p.result_type.is_some_and(|t| opaque.contains(&t))
                    && origins.get(&p.result_id.unwrap_or(0)) == Some(&Origin::Mixed)
            })
        };
        // Call sites per callee with a mixed parameter, by the roots they
        // pass; a callee some of whose callers pass a mixed value waits
        // until those are specialized.
        type Sites = HashMap<Vec<Origin>, Vec<(usize, usize, usize)>>;
        let mut callees: Vec<Word> = Vec::new();
        let mut all: HashMap<Word, Sites> = HashMap::new();
        let mut blocked: HashSet<Word> = HashSet::new();
        for (fi, f) in module.functions.iter().enumerate() {
            for (bi, blk) in f.blocks.iter().enumerate() {
                for (ii, inst) in blk.instructions.iter().enumerate() {
                    if inst.class.opcode != Op::FunctionCall {
                        continue;
                    }
                    let callee = inst.operands[0].unwrap_id_ref();
                    let Some(&ci) = funcs.get(&callee) else {
                        continue;
                    };
                    let cf = &module.functions[ci];
                    if !mixed(cf) {
                        continue;
                    }
                    let mut sig = Vec::new();
                    let mut unknown = false;
                    for (p, a) in cf.parameters.iter().zip(&inst.operands[1..]) {
                        if !p.result_type.is_some_and(|t| opaque.contains(&t)) {
                            continue;
                        }
                        match a.id_ref_any().and_then(|a| origins.get(&a)) {
                            Some(Origin::Mixed) => {
                                blocked.insert(callee);
                            }
                            Some(o) => sig.push(*o),
                            None => unknown = true,
                        }
                    }
                    if unknown || blocked.contains(&callee) {
                        // `unknown`: unreachable from any kernel (left
                        // alone).
                        continue;
                    }
                    if !all.contains_key(&callee) {
                        callees.push(callee);
                    }
                    all.entry(callee)
                        .or_default()
                        .entry(sig)
                        .or_default()
                        .push((fi, bi, ii));
                }
            }
        }
        let target = callees
            .into_iter()
            .filter(|c| !blocked.contains(c))
            .find_map(|c| {
                let sites = all.remove(&c)?;
                (sites.len() >= 2).then_some((c, sites))
            });
        let Some((callee, sites)) = target else {
            return;
        };
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
