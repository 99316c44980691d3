//! `DeviceCaps::branch_loop_exits` (lavapipe, `passes::branch_loop_exits`):
//! a break that the structurizer routed through the loop's latch becomes a
//! branch to the loop's merge block, also when it reaches the latch's
//! block of phis through the merge blocks of the selections it is nested
//! in (lavapipe fuzz seed 18 p26: a `goto` out of two loops, three such
//! paths, none taken before). Every module passes spirv-val. The behaviour
//! on lavapipe is `tests/tests/loop_exit_branches.rs`.

use std::collections::HashMap;

use ferrocl_compiler::{build_source, DeviceCaps};

mod common;

const SOURCE: &str = include_str!("../../tests/tests/goto_out_of_nested_loops.cl");

fn caps(branch: bool) -> DeviceCaps {
    DeviceCaps {
        branch_loop_exits: branch,
        ..common::test_caps()
    }
}

/// For each loop merge block of `text` (a disassembly), how many branch
/// targets name it.
fn merge_predecessors(text: &str) -> HashMap<String, usize> {
    let mut counts: HashMap<String, usize> = common::loop_merge_blocks(text)
        .into_iter()
        .map(|m| (m.to_string(), 0))
        .collect();
    for l in text.lines().map(str::trim) {
        let targets: Vec<&str> = if l.starts_with("OpBranchConditional ") {
            l.split_whitespace().skip(2).take(2).collect()
        } else if l.starts_with("OpBranch ") {
            l.split_whitespace().skip(1).take(1).collect()
        } else {
            continue;
        };
        for t in targets {
            if let Some(n) = counts.get_mut(t) {
                *n += 1;
            }
        }
    }
    counts
}

#[test]
fn nested_breaks_branch_to_the_merge_block() {
    let off = build_source(SOURCE, "-cl-std=CL3.0", &caps(false)).unwrap();
    let on = build_source(SOURCE, "-cl-std=CL3.0", &caps(true)).unwrap();
    let k1 = |p: &ferrocl_compiler::Program| {
        p.kernels
            .iter()
            .find(|k| k.name == "k1")
            .cloned()
            .expect("kernel k1")
    };
    let (off, on) = (k1(&off), k1(&on));
    common::spirv_val(&off, "branch-off");
    common::spirv_val(&on, "branch-on");
    let before = merge_predecessors(&common::disassemble(&off, "branch-off"));
    let after = merge_predecessors(&common::disassemble(&on, "branch-on"));
    let total = |m: &HashMap<String, usize>| m.values().sum::<usize>();
    // The two `goto` paths nested in the unrolled inner loop's selections
    // (the third goes to the merge block already) now branch there too.
    assert!(
        total(&after) >= total(&before) + 2,
        "branches to loop merge blocks: {before:?} without the pass, {after:?} with it"
    );
}
