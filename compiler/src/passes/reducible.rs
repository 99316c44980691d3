//! `irreducible_function`: finds a function whose control flow is
//! irreducible (a loop entered at more than one point: `goto` into a loop,
//! Duff's device). Vulkan's structured control flow, and so spirt's
//! structurizer, need every loop to have one header; the front end makes
//! such functions reducible with LLVM's `fix-irreducible`
//! (`frontend::make_reducible`) when this finds one.
//!
//! Algorithm, per function, on the module's words: the blocks and their
//! successors (OpBranch, OpBranchConditional, OpSwitch), a depth-first
//! search from the entry block marking retreating edges (to a block still
//! on the search's stack), dominators by the iterative data-flow method
//! (Cooper, Harvey and Kennedy) over reverse postorder; the function is
//! irreducible when a retreating edge's target does not dominate its
//! source. An OpSwitch literal equal to a label id adds an edge that is not
//! there, which can only call a reducible function irreducible (the fix
//! then changes nothing).

use std::collections::HashMap;

use crate::tools;

const NAME: u32 = 5;
const FUNCTION: u32 = 54;
const FUNCTION_END: u32 = 56;
const LABEL: u32 = 248;
const BRANCH: u32 = 249;
const BRANCH_CONDITIONAL: u32 = 250;
const SWITCH: u32 = 251;

/// The name (or `%id`) of the first function with irreducible control
/// flow.
pub fn irreducible_function(words: &[u32]) -> Option<String> {
    let insts: Vec<&[u32]> = tools::instructions(words)
        .map_while(Result::ok)
        .map(|(_, i)| i)
        .collect();
    let names: HashMap<u32, String> = insts
        .iter()
        .filter(|i| i[0] & 0xffff == NAME && i.len() >= 3)
        .map(|i| (i[1], tools::literal_string(&i[2..])))
        .collect();
    let mut k = 0;
    while k < insts.len() {
        if insts[k][0] & 0xffff != FUNCTION || insts[k].len() < 3 {
            k += 1;
            continue;
        }
        let id = insts[k][2];
        let end = (k..insts.len())
            .find(|&j| insts[j][0] & 0xffff == FUNCTION_END)
            .unwrap_or(insts.len());
        if is_irreducible(&insts[k..end]) {
            return Some(names.get(&id).cloned().unwrap_or_else(|| format!("%{id}")));
        }
        k = end + 1;
    }
    None
}

/// Whether one function's instructions form an irreducible CFG.
fn is_irreducible(func: &[&[u32]]) -> bool {
    let labels: Vec<u32> = func
        .iter()
        .filter(|i| i[0] & 0xffff == LABEL && i.len() >= 2)
        .map(|i| i[1])
        .collect();
    if labels.len() < 2 {
        return false;
    }
    let index: HashMap<u32, usize> = labels.iter().enumerate().map(|(n, &l)| (l, n)).collect();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); labels.len()];
    let mut block = 0;
    for i in func {
        let targets: &[u32] = match i[0] & 0xffff {
            // (A one-word OpLabel of a malformed module names no block.)
            LABEL => {
                if let Some(b) = i.get(1).and_then(|l| index.get(l)) {
                    block = *b;
                }
                continue;
            }
            BRANCH if i.len() >= 2 => &i[1..2],
            BRANCH_CONDITIONAL if i.len() >= 4 => &i[2..4],
            SWITCH if i.len() >= 3 => &i[2..],
            _ => continue,
        };
        succ[block].extend(targets.iter().filter_map(|t| index.get(t)));
    }
    // Depth-first search: postorder and retreating edges.
    let n = labels.len();
    let (mut state, mut post, mut retreating) = (vec![0u8; n], Vec::new(), Vec::new());
    let mut stack = vec![(0usize, 0usize)];
    state[0] = 1;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succ[b].get(*next) {
            *next += 1;
            match state[s] {
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 => retreating.push((b, s)),
                _ => {}
            }
        } else {
            state[b] = 2;
            post.push(b);
            stack.pop();
        }
    }
    if retreating.is_empty() {
        return false;
    }
    // Dominators over reverse postorder.
    let mut order = vec![usize::MAX; n];
    for (k, &b) in post.iter().enumerate() {
        order[b] = k;
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            if order[b] != usize::MAX {
                preds[s].push(b);
            }
        }
    }
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = idom[a];
            }
            while order[b] < order[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in post.iter().rev().skip(1) {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] != usize::MAX {
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, p, new)
                    };
                }
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    let dominates = |a: usize, mut b: usize| loop {
        if a == b {
            return true;
        }
        if b == 0 || idom[b] == usize::MAX {
            return false;
        }
        b = idom[b];
    };
    retreating.iter().any(|&(from, to)| !dominates(to, from))
}
