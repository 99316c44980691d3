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
//! A break nested in selections reaches `P` through their merge blocks,
//! each holding only phis and a branch onward (`B → X1 → X2 → P`, a `goto`
//! out of two loops: lavapipe fuzz seed 18 p26, where lavapipe returned the
//! `goto` path's result although the `goto` never ran). These merge blocks
//! and `P` are the loop's chain; each path into the chain from outside it
//! is a break when `%again`, followed back through the chain's phis along
//! that path, is the exit constant. A break branches to `M` directly (out
//! of every selection it is in, which structured SPIR-V allows for
//! two-way selections: a merge block of an `OpSwitch` is no chain block),
//! its entries leave the chain's phis, and `M`'s phis get the values the
//! path would have carried. A chain block that only breaks reach keeps
//! them (it would be left without a predecessor).
//!
//! Taken only where it is plainly valid: `C` holds nothing but its branch
//! and has `P` as its only predecessor; `P` holds only phis and its branch
//! to `C` and is no loop's merge block (a path into it then comes from the
//! loop's own body, not from a nested loop); `B` ends in a plain `OpBranch
//! P` without a merge instruction; and some path into `P` stays, so that
//! the loop can still repeat. Values of the loop used after it are the
//! chain's phis or dominate `P`, hence `B` too: the phis are the only ones
//! that need a phi in `M`.

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
    /// `P` (the block of phis that branches to the continue target) and
    /// the phi-only selection merge blocks that lead into it.
    chain: HashSet<Word>,
    /// The blocks whose path into the chain leaves the loop, each with
    /// the chain blocks that path passes (from its target to `P`).
    breaks: Vec<(Word, Vec<Word>)>,
    /// The chain's phis (result ids) used after the loop.
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
    let index = block_index(f);
    let mut preds: HashMap<Word, Vec<Word>> = HashMap::new();
    let mut loop_merges = HashSet::new();
    let mut selection_merges = HashSet::new();
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
            // Merges of two-way selections only: a break out of a switch
            // may not go to the loop's merge block.
            if i.class.opcode == Op::SelectionMerge
                && b.instructions.last().map(|t| t.class.opcode) == Some(Op::BranchConditional)
            {
                selection_merges.extend(i.operands.first().and_then(id));
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
        if !phis.iter().any(|i| i.result_id == Some(cond)) {
            continue;
        }
        // The chain: `P` and the selection merge blocks of only phis and a
        // plain branch whose paths lead into it (a break nested in several
        // selections passes one such block per selection).
        let mut chain = vec![phi_block];
        let mut in_chain: HashSet<Word> = HashSet::from([phi_block]);
        let mut k = 0;
        while k < chain.len() {
            let q = chain[k];
            k += 1;
            for &x in preds.get(&q).map(Vec::as_slice).unwrap_or(&[]) {
                if in_chain.contains(&x)
                    || !selection_merges.contains(&x)
                    || loop_merges.contains(&x)
                {
                    continue;
                }
                if index
                    .get(&x)
                    .is_some_and(|&xi| phis_and_branch(&f.blocks[xi]))
                {
                    in_chain.insert(x);
                    chain.push(x);
                }
            }
        }
        // Every path into the chain from outside it: a break where `cond`
        // reaches the latch as the exit constant along it.
        let mut breaks = Vec::new();
        let mut stays = 0;
        for &x in &chain {
            let path = path_to(f, &index, &in_chain, x, phi_block);
            let into_x = preds.get(&x).map(Vec::as_slice).unwrap_or(&[]);
            let mut left = 0;
            for &b in into_x.iter().filter(|b| !in_chain.contains(b)) {
                let plain = index
                    .get(&b)
                    .is_some_and(|&bi| is_plain_branch(&f.blocks[bi]));
                if plain && exits.contains(&resolve(f, &index, cond, &path, b)) {
                    breaks.push((b, path.clone()));
                } else {
                    stays += 1;
                    left += 1;
                }
            }
            // A chain block that only breaks reach would be left without
            // a predecessor: its breaks stay as they are.
            left += into_x.iter().filter(|b| in_chain.contains(b)).count();
            if left == 0 {
                breaks.retain(|(_, p)| p[0] != x);
            }
        }
        if breaks.is_empty() || stays == 0 {
            continue;
        }
        let mut chain_phis = HashSet::new();
        for &x in &chain {
            chain_phis.extend(
                f.blocks[index[&x]]
                    .instructions
                    .iter()
                    .filter(|i| i.class.opcode == Op::Phi)
                    .filter_map(|i| i.result_id),
            );
        }
        let mut used_after = HashSet::new();
        for b in &f.blocks {
            let l = label(b);
            if l == latch || in_chain.contains(&l) {
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
                used_after.extend(ops.into_iter().filter(|v| chain_phis.contains(v)));
            }
        }
        let mut phis_used_after: Vec<Word> = used_after.into_iter().collect();
        phis_used_after.sort_unstable();
        return Some(Exit {
            header,
            merge,
            latch,
            chain: in_chain,
            breaks,
            phis_used_after,
        });
    }
    None
}

/// Each block's position in `f`, by label.
fn block_index(f: &Function) -> HashMap<Word, usize> {
    f.blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (label(b), i))
        .collect()
}

/// Whether `b` holds only phis and an `OpBranch`.
fn phis_and_branch(b: &Block) -> bool {
    match b.instructions.split_last() {
        Some((last, rest)) => {
            last.class.opcode == Op::Branch && rest.iter().all(|i| i.class.opcode == Op::Phi)
        }
        None => false,
    }
}

/// The chain blocks from `x` to `p` (both included), following the
/// chain's plain branches.
fn path_to(
    f: &Function,
    index: &HashMap<Word, usize>,
    chain: &HashSet<Word>,
    x: Word,
    p: Word,
) -> Vec<Word> {
    let mut path = vec![x];
    let mut at = x;
    while at != p && path.len() <= chain.len() {
        let next = f.blocks[index[&at]]
            .instructions
            .last()
            .and_then(|t| t.operands.first())
            .and_then(id);
        match next {
            Some(n) if chain.contains(&n) => {
                path.push(n);
                at = n;
            }
            _ => break,
        }
    }
    path
}

/// The value that `v`, as `path`'s last block sees it, has when the path
/// is entered from `b`: each phi of a path block on the way is replaced by
/// its operand from the block before it.
fn resolve(f: &Function, index: &HashMap<Word, usize>, v: Word, path: &[Word], b: Word) -> Word {
    let mut v = v;
    for k in (0..path.len()).rev() {
        let pred = if k == 0 { b } else { path[k - 1] };
        let blk = &f.blocks[index[&path[k]]];
        let phi = blk
            .instructions
            .iter()
            .find(|i| i.class.opcode == Op::Phi && i.result_id == Some(v));
        if let Some(phi) = phi {
            match phi_pairs(phi).into_iter().find(|&(_, p)| p == pred) {
                Some((u, _)) => v = u,
                None => return v,
            }
        }
    }
    v
}

fn rewrite_exit(f: &mut Function, exit: &Exit, new_ids: &[Word]) {
    let index = block_index(f);
    let breaks: HashSet<Word> = exit.breaks.iter().map(|(b, _)| *b).collect();
    // The values each break carries to `M`, found before any edit: for
    // `M`'s phis (their values from `C`) and the chain's phis used after.
    let mut wanted: Vec<Word> = exit.phis_used_after.clone();
    if let Some(&mi) = index.get(&exit.merge) {
        for i in &f.blocks[mi].instructions {
            if i.class.opcode == Op::Phi {
                wanted.extend(
                    phi_pairs(i)
                        .into_iter()
                        .filter(|&(_, p)| p == exit.latch)
                        .map(|(v, _)| v),
                );
            }
        }
    }
    let mut along: HashMap<(Word, Word), Word> = HashMap::new();
    for &v in &wanted {
        for (b, path) in &exit.breaks {
            along.insert((v, *b), resolve(f, &index, v, path, *b));
        }
    }
    let types: HashMap<Word, Word> = f
        .blocks
        .iter()
        .filter(|b| exit.chain.contains(&label(b)))
        .flat_map(|b| b.instructions.iter())
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    let renamed: HashMap<Word, Word> = exit
        .phis_used_after
        .iter()
        .copied()
        .zip(new_ids.iter().copied())
        .collect();
    for blk in f.blocks.iter_mut() {
        let l = label(blk);
        if breaks.contains(&l) {
            if let Some(t) = blk.instructions.last_mut() {
                t.operands[0] = Operand::IdRef(exit.merge);
            }
            continue;
        }
        if exit.chain.contains(&l) {
            for phi in blk
                .instructions
                .iter_mut()
                .filter(|i| i.class.opcode == Op::Phi)
            {
                phi.operands = phi_pairs(phi)
                    .into_iter()
                    .filter(|(_, p)| !breaks.contains(p))
                    .flat_map(|(v, p)| [Operand::IdRef(v), Operand::IdRef(p)])
                    .collect();
            }
            continue;
        }
        if l == exit.latch {
            continue;
        }
        for i in blk.instructions.iter_mut() {
            if i.class.opcode == Op::Phi {
                if l == exit.merge {
                    // From `C` they stay; each break brings its own value.
                    let mut extra = Vec::new();
                    for (v, p) in phi_pairs(i) {
                        if p == exit.latch {
                            for (b, _) in &exit.breaks {
                                extra.push(Operand::IdRef(along[&(v, *b)]));
                                extra.push(Operand::IdRef(*b));
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
        let mut ops = vec![Operand::IdRef(v), Operand::IdRef(exit.latch)];
        for (b, _) in &exit.breaks {
            ops.push(Operand::IdRef(along[&(v, *b)]));
            ops.push(Operand::IdRef(*b));
        }
        Instruction::new(Op::Phi, Some(types[&v]), Some(renamed[&v]), ops)
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
