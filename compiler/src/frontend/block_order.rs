//! `order_blocks_by_dominance`: the basic blocks of each function of
//! textual LLVM IR put in an order where every block comes after the
//! blocks that dominate it, before llvm-spirv-15 translates the module.
//!
//! Why: LLVM keeps blocks in any order (its loop unroller places clones
//! of a loop's blocks after blocks they dominate), while llvm-spirv-15
//! writes them in LLVM's order and resolves a value used before its
//! definition in that order through a forward reference. It mends the
//! forward references of ordinary operands, but not that of an
//! `OpSwitch` selector: the switch keeps the placeholder id, which
//! nothing defines (spirv-val: "Invalid OpSwitch: selector id .. has no
//! type"; spirt: "malformed SPIR-V (in OpSwitch: missing type for
//! literal)"). Found by ferrocl-fuzz (seed 14 program 142: a `switch` on a
//! constant expression in two nested loops that LLVM unrolled; the
//! switches of the second outer pass read the selector computed in the
//! last inner pass of the first, placed after them). SPIR-V itself asks
//! for this order ("a block must appear before all blocks it dominates",
//! SPIR-V 2.16.1), so it is the translator's input that is fixed.
//!
//! Algorithm, per function: the blocks, with their successors (every
//! `label %name` of a block names a successor: terminators are the only
//! instructions with label operands), the immediate dominators (Cooper,
//! Harvey and Kennedy's iteration over the reverse postorder), and, only
//! when some reachable block comes before its immediate dominator, a new
//! order: a walk of the dominator tree that always takes the waiting block
//! earliest in the old order (so blocks already in place stay where they
//! were), unreachable blocks last in their old order. A function that is
//! in order is copied as it is, so most modules pass through unchanged.
//!
//! A phi's operand from a loop's back edge still comes after the phi in
//! any order; the translator resolves those, but loses a decoration put
//! on such a value (`frontend::saturate` avoids the one that matters).
//!
//! Unnamed values and blocks (`%7`, `7:`) must be numbered in textual
//! order, which moving blocks would break: a function with any is
//! reported (`Ordered::NeedsNames`) so that the caller names them first
//! (`opt -passes=instnamer`) and calls again.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// The outcome of `order_blocks_by_dominance`.
#[derive(Debug, PartialEq)]
pub enum Ordered {
    /// Every function was in order: the input is right as it is.
    Unchanged,
    /// The module with its functions' blocks reordered.
    Reordered(String),
    /// A function out of order has unnamed values or blocks.
    NeedsNames,
}

/// One basic block: its label (`None` for an unnamed entry block) and its
/// lines, the label line included.
struct Block<'a> {
    label: Option<String>,
    lines: Vec<&'a str>,
}

/// The label a line defines (`name:` or `"name":` at its start), if any.
fn label_of(line: &str) -> Option<String> {
    if let Some(q) = line.strip_prefix('"') {
        let end = q.find('"')?;
        return q[end + 1..]
            .starts_with(':')
            .then(|| format!("\"{}\"", &q[..end]));
    }
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || "-$._".contains(c)))
        .unwrap_or(line.len());
    (end > 0 && line[end..].starts_with(':')).then(|| line[..end].to_string())
}

/// The labels named by `label %name` in `line`.
fn label_operands(line: &str, out: &mut Vec<String>) {
    let mut rest = line;
    while let Some(p) = rest.find("label %") {
        let after = &rest[p + "label %".len()..];
        let len = if let Some(q) = after.strip_prefix('"') {
            q.find('"').map_or(after.len(), |e| e + 2)
        } else {
            after
                .find(|c: char| !(c.is_ascii_alphanumeric() || "-$._".contains(c)))
                .unwrap_or(after.len())
        };
        out.push(after[..len].to_string());
        rest = &after[len..];
    }
}

/// Whether a function body defines unnamed values or blocks.
fn has_unnamed_values(blocks: &[Block]) -> bool {
    let numbered = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    blocks.iter().any(|b| {
        b.label.as_deref().is_none_or(numbered)
            || b.lines.iter().any(|l| {
                l.trim_start()
                    .strip_prefix('%')
                    .and_then(|r| r.split_once(" = "))
                    .is_some_and(|(name, _)| numbered(name))
            })
    })
}

/// Immediate dominators of the blocks reachable from block 0 (`None` for
/// the entry and for unreachable blocks), and the reverse postorder.
fn dominators(succ: &[Vec<usize>]) -> (Vec<Option<usize>>, Vec<usize>) {
    let n = succ.len();
    // Postorder by an iterative depth-first walk.
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some((b, i)) = stack.pop() {
        if let Some(&s) = succ[b].get(i) {
            stack.push((b, i + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    let rpo: Vec<usize> = post.iter().rev().copied().collect();
    let mut order = vec![usize::MAX; n];
    for (i, &b) in post.iter().enumerate() {
        order[b] = i;
    }
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        if seen[b] {
            for &s in ss {
                preds[s].push(b);
            }
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = idom[a].unwrap_or(0);
            }
            while order[b] < order[a] {
                b = idom[b].unwrap_or(0);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = None;
            for &p in &preds[b] {
                if idom[p].is_some() {
                    new = Some(match new {
                        None => p,
                        Some(q) => intersect(&idom, p, q),
                    });
                }
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom[0] = None;
    (idom, rpo)
}

/// The blocks of one function body in dominance order (module doc), or
/// `None` when they already are.
fn reorder(blocks: &[Block]) -> Option<Vec<usize>> {
    let index: HashMap<&str, usize> = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((b.label.as_deref()?, i)))
        .collect();
    let succ: Vec<Vec<usize>> = blocks
        .iter()
        .map(|b| {
            let mut names = Vec::new();
            for l in &b.lines {
                label_operands(l, &mut names);
            }
            names
                .iter()
                .filter_map(|n| index.get(n.as_str()).copied())
                .collect()
        })
        .collect();
    let (idom, rpo) = dominators(&succ);
    if rpo.iter().all(|&b| idom[b].is_none_or(|d| d < b)) {
        return None;
    }
    let mut children = vec![Vec::new(); blocks.len()];
    for &b in &rpo {
        if let Some(d) = idom[b] {
            children[d].push(b);
        }
    }
    let mut order = Vec::with_capacity(blocks.len());
    let mut waiting = BinaryHeap::from([Reverse(0usize)]);
    while let Some(Reverse(b)) = waiting.pop() {
        order.push(b);
        waiting.extend(children[b].iter().map(|&c| Reverse(c)));
    }
    let mut placed = vec![false; blocks.len()];
    for &b in &order {
        placed[b] = true;
    }
    order.extend((0..blocks.len()).filter(|&b| !placed[b]));
    Some(order)
}

/// Textual IR `ll` with each function's blocks in dominance order (module
/// doc).
pub fn order_blocks_by_dominance(ll: &str) -> Ordered {
    let mut out = String::with_capacity(ll.len());
    let mut changed = false;
    let mut lines = ll.lines();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        if !(line.starts_with("define ") && line.trim_end().ends_with('{')) {
            continue;
        }
        let mut body: Vec<&str> = Vec::new();
        let mut end = None;
        for l in lines.by_ref() {
            if l == "}" {
                end = Some(l);
                break;
            }
            body.push(l);
        }
        // Blocks: a new one at each label line (an unnamed entry block
        // first); blank lines and comments stay with the block before.
        let mut blocks: Vec<Block> = Vec::new();
        for l in &body {
            match label_of(l) {
                Some(label) => blocks.push(Block {
                    label: Some(label),
                    lines: vec![l],
                }),
                None => match blocks.last_mut() {
                    Some(b) => b.lines.push(l),
                    None => blocks.push(Block {
                        label: None,
                        lines: vec![l],
                    }),
                },
            }
        }
        match (!blocks.is_empty()).then(|| reorder(&blocks)).flatten() {
            Some(order) => {
                if has_unnamed_values(&blocks) {
                    return Ordered::NeedsNames;
                }
                changed = true;
                // Blocks apart by one blank line, as LLVM prints them.
                for (k, b) in order.into_iter().enumerate() {
                    if k > 0 {
                        out.push('\n');
                    }
                    let lines = &blocks[b].lines;
                    let len = lines.len() - lines.iter().rev().take_while(|l| l.is_empty()).count();
                    for l in &lines[..len] {
                        out.push_str(l);
                        out.push('\n');
                    }
                }
            }
            None => {
                for l in &body {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        if let Some(e) = end {
            out.push_str(e);
            out.push('\n');
        }
    }
    if changed {
        Ordered::Reordered(out)
    } else {
        Ordered::Unchanged
    }
}

#[cfg(test)]
mod tests {
    use super::{order_blocks_by_dominance, Ordered};

    /// `use` reads `%v`, defined in `def`, which dominates it but comes
    /// after it.
    const OUT_OF_ORDER: &str = "define spir_func i32 @f(i32 %x) {\n\
        entry:\n  br label %def\n\n\
        use:                                              ; preds = %def\n  \
        switch i32 %v, label %out [\n    i32 1, label %one\n  ]\n\n\
        one:\n  br label %out\n\n\
        out:\n  %r = phi i32 [ 0, %use ], [ 5, %one ]\n  ret i32 %r\n\n\
        def:\n  %v = and i32 %x, 7\n  br label %use\n}\n";

    fn block_order(ll: &str) -> Vec<String> {
        ll.lines()
            .filter_map(|l| l.split_once(':').map(|(n, _)| n))
            .filter(|n| !n.starts_with(' ') && !n.starts_with("define"))
            .map(String::from)
            .collect()
    }

    #[test]
    fn dominators_come_first() {
        let Ordered::Reordered(ll) = order_blocks_by_dominance(OUT_OF_ORDER) else {
            panic!("not reordered");
        };
        assert_eq!(block_order(&ll), ["entry", "def", "use", "one", "out"]);
        // Every line kept, the block's own with it.
        assert_eq!(ll.lines().count(), OUT_OF_ORDER.lines().count());
        assert!(ll.contains("def:\n  %v = and i32 %x, 7\n  br label %use\n\nuse:"));
    }

    #[test]
    fn ordered_functions_are_left_alone() {
        let ll = "define void @g(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\n\n\
                  b:\n  ret void\n\na:\n  br label %b\n}\n";
        assert_eq!(order_blocks_by_dominance(ll), Ordered::Unchanged);
    }

    #[test]
    fn unnamed_values_must_be_named_first() {
        let ll = OUT_OF_ORDER.replace("%v", "%1").replace("%r", "%2");
        assert_eq!(order_blocks_by_dominance(&ll), Ordered::NeedsNames);
    }
}
