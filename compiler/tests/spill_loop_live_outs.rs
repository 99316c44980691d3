//! `DeviceCaps::spill_loop_live_outs` (lavapipe,
//! `passes::spill_loop_live_outs`): a value a loop defines and code after
//! the loop reads goes through a Function array indexed by
//! `LocalInvocationId.x >> 31`; kernels without such values, and every
//! kernel without the flag, are unchanged; a kernel that does not read
//! LocalInvocationId gets the built-in in its interface. Every module
//! passes spirv-val. The behaviour on lavapipe is corpus
//! `fuzz_loop_exit_converted.cl` / `fuzz_loop_exit_value.cl`.

use ferrocl_compiler::{build_source, DeviceCaps};

mod common;

const SOURCE: &str = r#"
kernel void live_out(global const ulong* in, global ulong* out) {
    const uint gid = get_global_id(0);
    ushort2 f = 0;
    for (uint j = 0; j < 4u; j++) {
        f = convert_ushort2_sat((ulong2)in[0]);
        out[256 + gid] = 0;
        if ((ushort)gid) continue;
        if (clz(0)) break;
    }
    out[gid] = ((ulong)f.s0 << 16) | f.s1;
}

kernel void no_ids(global const uint* in, global uint* out, uint n) {
    uint v = 0;
    for (uint j = 0; j < n; j++) {
        v = in[j] * 3u;
        if (v > 100u) break;
    }
    out[0] = v;
}

kernel void nothing_live(global uint* out, uint n) {
    for (uint j = 0; j < n; j++)
        out[j] = j;
}
"#;

fn caps(spill: bool) -> DeviceCaps {
    DeviceCaps {
        spill_loop_live_outs: spill,
        ..common::test_caps()
    }
}

#[test]
fn live_out_values_go_through_function_arrays() {
    let plain = build_source(SOURCE, "", &caps(false)).unwrap();
    let spilled = build_source(SOURCE, "", &caps(true)).unwrap();
    for (p, s) in plain.kernels.iter().zip(&spilled.kernels) {
        common::spirv_val(p, &format!("spill-off-{}", p.name));
        common::spirv_val(s, &format!("spill-on-{}", s.name));
        let off = common::disassemble(p, &format!("spill-off-{}", p.name));
        let on = common::disassemble(s, &format!("spill-on-{}", s.name));
        let arrays = |text: &str| {
            text.lines()
                .filter(|l| l.contains("OpVariable") && l.contains("Function") && l.contains("arr"))
                .count()
        };
        match s.name.as_str() {
            "nothing_live" => assert_eq!(off, on, "nothing_live: unchanged"),
            name => {
                assert!(arrays(&on) > arrays(&off), "{name}: a spill array\n{on}");
                assert!(
                    on.contains("OpShiftRightLogical"),
                    "{name}: the run-time zero"
                );
                assert!(
                    on.contains("BuiltIn LocalInvocationId"),
                    "{name}: the built-in"
                );
            }
        }
    }
}

/// A dead break that `branch_loop_exits` sends to the merge block brings
/// its values through phis of the merge block (lavapipe fuzz seed 27
/// p100595): with the spill, no loop merge block keeps a phi; the values
/// go through Function arrays stored by each predecessor.
const DEAD_BREAK: &str = r#"
kernel void dead_break(global const ulong* in, global ulong* out) {
    const uint gid = get_global_id(0);
    long3 v = 0;
    for (uint i = 0; i < (uint)(((int)in[gid & 63]) & 3) + 1u; i++) {
        if (convert_uchar_sat(0)) {
            if ((short)in[0]) break;
        }
        v = (long3)((long)in[(gid + 51u) & 63]);
    }
    out[gid] = v.s0 ^ v.s1 ^ v.s2;
}
"#;

/// How many phis the loop merge blocks of `text` (a disassembly) hold.
fn merge_block_phis(text: &str) -> usize {
    let merges = common::loop_merge_blocks(text);
    let mut count = 0;
    let mut in_merge = false;
    for l in text.lines().map(str::trim) {
        if let Some(label) = l.strip_suffix(" = OpLabel") {
            in_merge = merges.contains(&label);
        } else if in_merge && l.contains("= OpPhi ") {
            count += 1;
        }
    }
    count
}

#[test]
fn merge_block_phis_go_through_function_arrays() {
    let caps = |spill: bool| DeviceCaps {
        spill_loop_live_outs: spill,
        branch_loop_exits: true,
        ..common::test_caps()
    };
    let plain = build_source(DEAD_BREAK, "", &caps(false)).unwrap();
    let spilled = build_source(DEAD_BREAK, "", &caps(true)).unwrap();
    let (p, s) = (&plain.kernels[0], &spilled.kernels[0]);
    common::spirv_val(p, "dead-break-off");
    common::spirv_val(s, "dead-break-on");
    let off = common::disassemble(p, "dead-break-off");
    let on = common::disassemble(s, "dead-break-on");
    assert!(
        merge_block_phis(&off) > 0,
        "the break brings its values through the merge block's phis\n{off}"
    );
    assert_eq!(
        merge_block_phis(&on),
        0,
        "no phi left in a merge block\n{on}"
    );
}
