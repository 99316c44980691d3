//! `branch_loop_exits`: a loop exit that the structurizer routed through
//! the loop's latch becomes a branch to the loop's merge block again.
//!
//! spirt's structured loops have one exit, at the latch: the body ends in
//! a block `P` of phis that merges every path, the continue target `C`
//! branches on one of them (`OpBranchConditional %again H M`), and a
//! `break` of the source is a path into `P` that gives `%again` the
//! constant `false`. This pass sends each such path `B → P` to the merge
//! block `M` instead (a break out of the selection, which structured
//! SPIR-V allows) and moves the values it carried into phis of `M`:
//!
//! ```text
//!   B: OpBranch P                B: OpBranch M
//!   P: %again = OpPhi .. false B   P: %again = OpPhi ..   (B's entries gone)
//!      %x = OpPhi .. %xb B            %x = OpPhi ..
//!      OpBranch C                     OpBranch C
//!   C: OpBranchConditional        C: (unchanged)
//!        %again H M               M: %x' = OpPhi %x C, %xb B
//!   M: .. uses %x                    .. uses %x'
//! ```
//!
//! Why: lavapipe 22.3 (Mesa's NIR) runs such a loop for two passes only
//! when the exit path turns out dead during its own optimization (the
//! branch into it depends on a constant that NIR folds late, such as a
//! `mul_hi` of a constant 0 or an `if` on a constant compare): fuzz seed 14
//! p173 and seed 12 p42 (`tests/tests/loop_exit_branches.rs`). Measured
//! on lavapipe with the final modules edited by hand: the same loop with
//! its break as a branch to the merge block runs every pass, for any
//! trip count; a condition NIR cannot fold runs right in either form.
//!
//! Taken only where it is plainly valid: `C` holds nothing but its branch
//! and has `P` as its only predecessor; `P` holds only phis and its branch
//! to `C` and is no loop's merge block (a path into it then comes from the
//! loop's own body, not from a nested loop); `B` ends in a plain `OpBranch
//! P` without a merge instruction; and some path into `P` stays, so that
//! the loop can still repeat. Values of the loop used after it are `P`'s
//! phis or dominate `P`, hence `B` too: the phis are the only ones that
//! need a phi in `M`.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Block, Function, Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::module_edit::fresh_id;

/// Rewrites every loop exit of the kind above in every function of
/// `module`; returns whether it changed anything.
pub fn branch_loop_exits(module: &mut Module) -> bool {
    let (mut trues, mut falses) = (HashSet::new(), HashSet::new());
    for inst in &module.types_global_values {
        match (inst.class.opcode, inst.result_id) {
            (Op::ConstantTrue, Some(id)) => {
                trues.insert(id);
            }
            (Op::ConstantFalse, Some(id)) => {
                falses.insert(id);
            }
            _ => {}
        }
    }
    let mut changed = false;
    for fi in 0..module.functions.len() {
        let mut done = HashSet::new();
        while let Some(exit) = find_exit(&module.functions[fi], &trues, &falses, &done) {
            done.insert(exit.header);
            let ids: Vec<Word> = (0..exit.phis_used_after.len())
                .map(|_| fresh_id(module))
                .collect();
            rewrite_exit(&mut module.functions[fi], &exit, &ids);
            changed = true;
        }
    }
    changed
}

/// One loop whose exits through the latch are to become branches.
struct Exit {
    header: Word,
    merge: Word,
    latch: Word,
    /// The block of phis that branches to the continue target.
    phi_block: Word,
    /// The blocks whose path into `phi_block` leaves the loop.
    breaks: Vec<Word>,
    /// `phi_block`'s phis (result ids) used after the loop.
    phis_used_after: Vec<Word>,
}

pub(super) fn label(b: &Block) -> Word {
    b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0)
}

pub(super) fn id(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(w) => Some(*w),
        _ => None,
    }
}

/// The blocks a terminator can branch to.
pub(super) fn targets(term: &Instruction) -> Vec<Word> {
    match term.class.opcode {
        Op::Branch => term.operands.first().and_then(id).into_iter().collect(),
        Op::BranchConditional => term.operands[1..].iter().take(2).filter_map(id).collect(),
        Op::Switch => term
            .operands
            .iter()
            .skip(1)
            .filter_map(id)
            .collect::<Vec<_>>(),
        _ => Vec::new(),
    }
}

/// `(value, parent)` pairs of an OpPhi.
pub(super) fn phi_pairs(phi: &Instruction) -> Vec<(Word, Word)> {
    phi.operands
        .chunks(2)
        .filter_map(|p| Some((id(&p[0])?, id(p.get(1)?)?)))
        .collect()
}

/// Whether `b` ends in an `OpBranch` without a merge instruction.
fn is_plain_branch(b: &Block) -> bool {
    match b.instructions.split_last() {
        Some((last, rest)) => {
            last.class.opcode == Op::Branch
                && !rest
                    .iter()
                    .any(|i| matches!(i.class.opcode, Op::SelectionMerge | Op::LoopMerge))
        }
        None => false,
    }
}

fn find_exit(
    f: &Function,
    trues: &HashSet<Word>,
    falses: &HashSet<Word>,
    done: &HashSet<Word>,
) -> Option<Exit> {
    let index: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (label(b), i))
        .collect();
    let mut preds: HashMap<Word, Vec<Word>> = HashMap::new();
    let mut loop_merges = HashSet::new();
    for b in &f.blocks {
        if let Some(t) = b.instructions.last() {
            for s in targets(t) {
                preds.entry(s).or_default().push(label(b));
            }
        }
        for i in &b.instructions {
            if i.class.opcode == Op::LoopMerge {
                loop_merges.extend(i.operands.first().and_then(id));
            }
        }
    }
    for hb in &f.blocks {
        let header = label(hb);
        if done.contains(&header) {
            continue;
        }
        let Some(lm) = hb
            .instructions
            .iter()
            .find(|i| i.class.opcode == Op::LoopMerge)
        else {
            continue;
        };
        let (Some(merge), Some(latch)) = (
            lm.operands.first().and_then(id),
            lm.operands.get(1).and_then(id),
        ) else {
            continue;
        };
        let Some(&ci) = index.get(&latch) else {
            continue;
        };
        let [term] = f.blocks[ci].instructions.as_slice() else {
            continue;
        };
        if term.class.opcode != Op::BranchConditional {
            continue;
        }
        let (Some(cond), Some(t), Some(e)) = (
            term.operands.first().and_then(id),
            term.operands.get(1).and_then(id),
            term.operands.get(2).and_then(id),
        ) else {
            continue;
        };
        // The constant that `cond` takes on an exit path.
        let exits = if (t, e) == (header, merge) {
            falses
        } else if (t, e) == (merge, header) {
            trues
        } else {
            continue;
        };
        let [phi_block] = preds.get(&latch).map(Vec::as_slice).unwrap_or(&[]) else {
            continue;
        };
        let phi_block = *phi_block;
        if phi_block == header || loop_merges.contains(&phi_block) {
            continue;
        }
        let Some(&pi) = index.get(&phi_block) else {
            continue;
        };
        let Some((last, phis)) = f.blocks[pi].instructions.split_last() else {
            continue;
        };
        if last.class.opcode != Op::Branch || phis.iter().any(|i| i.class.opcode != Op::Phi) {
            continue;
        }
        let Some(cond_phi) = phis.iter().find(|i| i.result_id == Some(cond)) else {
            continue;
        };
        let pairs = phi_pairs(cond_phi);
        let breaks: Vec<Word> = pairs
            .iter()
            .filter(|(v, parent)| {
                exits.contains(v)
                    && index
                        .get(parent)
                        .is_some_and(|&bi| is_plain_branch(&f.blocks[bi]))
            })
            .map(|&(_, parent)| parent)
            .collect();
        if breaks.is_empty() || breaks.len() == pairs.len() {
            continue;
        }
        let phi_ids: HashSet<Word> = phis.iter().filter_map(|i| i.result_id).collect();
        let mut used_after = HashSet::new();
        for b in &f.blocks {
            let l = label(b);
            if l == latch || l == phi_block {
                continue;
            }
            for i in &b.instructions {
                // The header's phis read them on the back edge, from `C`.
                let ops: Vec<Word> = if i.class.opcode == Op::Phi {
                    phi_pairs(i)
                        .into_iter()
                        .filter(|&(_, p)| p != latch)
                        .map(|(v, _)| v)
                        .collect()
                } else {
                    i.operands.iter().filter_map(id).collect()
                };
                used_after.extend(ops.into_iter().filter(|v| phi_ids.contains(v)));
            }
        }
        let phis_used_after = phis
            .iter()
            .filter_map(|i| i.result_id)
            .filter(|v| used_after.contains(v))
            .collect();
        return Some(Exit {
            header,
            merge,
            latch,
            phi_block,
            breaks,
            phis_used_after,
        });
    }
    None
}

fn rewrite_exit(f: &mut Function, exit: &Exit, new_ids: &[Word]) {
    let breaks: HashSet<Word> = exit.breaks.iter().copied().collect();
    // The value each phi of `P` had on each break path, and its type.
    let mut on_break: HashMap<Word, (Word, HashMap<Word, Word>)> = HashMap::new();
    for b in f.blocks.iter_mut() {
        let l = label(b);
        if breaks.contains(&l) {
            if let Some(t) = b.instructions.last_mut() {
                t.operands[0] = Operand::IdRef(exit.merge);
            }
        } else if l == exit.phi_block {
            for phi in b
                .instructions
                .iter_mut()
                .filter(|i| i.class.opcode == Op::Phi)
            {
                let pairs = phi_pairs(phi);
                let (gone, kept): (Vec<_>, Vec<_>) =
                    pairs.into_iter().partition(|(_, p)| breaks.contains(p));
                let (Some(r), Some(ty)) = (phi.result_id, phi.result_type) else {
                    continue;
                };
                on_break.insert(r, (ty, gone.into_iter().map(|(v, p)| (p, v)).collect()));
                phi.operands = kept
                    .into_iter()
                    .flat_map(|(v, p)| [Operand::IdRef(v), Operand::IdRef(p)])
                    .collect();
            }
        }
    }
    let renamed: HashMap<Word, Word> = exit
        .phis_used_after
        .iter()
        .copied()
        .zip(new_ids.iter().copied())
        .collect();
    // The value that reaches `M` along break `b` for a value `v` that
    // reached it from `C`.
    let along = |v: Word, b: Word| on_break.get(&v).map_or(v, |(_, m)| m[&b]);
    for blk in f.blocks.iter_mut() {
        let l = label(blk);
        if l == exit.latch || l == exit.phi_block {
            continue;
        }
        for i in blk.instructions.iter_mut() {
            if i.class.opcode == Op::Phi {
                if l == exit.merge {
                    // From `C` they stay; each break brings its own value.
                    let mut extra = Vec::new();
                    for (v, p) in phi_pairs(i) {
                        if p == exit.latch {
                            for &b in &exit.breaks {
                                extra.push(Operand::IdRef(along(v, b)));
                                extra.push(Operand::IdRef(b));
                            }
                        }
                    }
                    i.operands.extend(extra);
                    continue;
                }
                if l == exit.header {
                    for k in (0..i.operands.len()).step_by(2) {
                        let parent = i.operands.get(k + 1).and_then(id);
                        if parent != Some(exit.latch) {
                            rename(&mut i.operands[k], &renamed);
                        }
                    }
                    continue;
                }
            }
            for o in i.operands.iter_mut() {
                rename(o, &renamed);
            }
        }
    }
    let Some(m) = f.blocks.iter_mut().find(|b| label(b) == exit.merge) else {
        return;
    };
    let new_phis = exit.phis_used_after.iter().map(|&v| {
        let (ty, vals) = &on_break[&v];
        let mut ops = vec![Operand::IdRef(v), Operand::IdRef(exit.latch)];
        for &b in &exit.breaks {
            ops.push(Operand::IdRef(vals[&b]));
            ops.push(Operand::IdRef(b));
        }
        Instruction::new(Op::Phi, Some(*ty), Some(renamed[&v]), ops)
    });
    let tail = std::mem::take(&mut m.instructions);
    m.instructions = new_phis.chain(tail).collect();
}

fn rename(o: &mut Operand, renamed: &HashMap<Word, Word>) {
    if let Operand::IdRef(w) = o {
        if let Some(&n) = renamed.get(w) {
            *w = n;
        }
    }
}
