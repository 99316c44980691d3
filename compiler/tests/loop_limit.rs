//! `DeviceCaps::loop_limiter` (lavapipe's loop limiter,
//! `passes::loop_limit`): a kernel with loops gets the end-of-kernel probe
//! and the loop-status binding (`Kernel::loop_status`); a kernel without
//! loops, and every kernel without the flag, is unchanged. The runtime
//! behaviour is in tests/tests/loop_limit.rs.

use ferrocl_compiler::{build_source, Addressing, DeviceCaps, LOOP_STATUS_SET};

mod common;

const SOURCE: &str = r#"
kernel void looped(global uint* out, uint n) {
    uint s = get_global_id(0);
    for (uint k = 0; k < n; k++)
        s = s * 1664525u + 1013904223u + k;
    out[get_global_id(0)] = s;
}

kernel void straight(global uint* out, uint n) {
    out[get_global_id(0)] = get_global_id(0) * n;
}
"#;

fn caps(addressing: Addressing, loop_limiter: bool) -> DeviceCaps {
    DeviceCaps {
        addressing,
        loop_limiter,
        ..common::test_caps()
    }
}

#[test]
fn only_kernels_with_loops_get_the_probe() {
    for addressing in [Addressing::Physical, Addressing::Descriptor] {
        let plain = build_source(SOURCE, "", &caps(addressing, false)).unwrap();
        let limited = build_source(SOURCE, "", &caps(addressing, true)).unwrap();
        let set = format!("DescriptorSet {LOOP_STATUS_SET}");
        for (p, l) in plain.kernels.iter().zip(&limited.kernels) {
            let what = format!("{addressing:?} {}", p.name);
            assert!(!p.loop_status, "{what}: no flag, no probe");
            let looped = p.name == "looped";
            assert_eq!(l.loop_status, looped, "{what}");
            if !looped {
                assert_eq!(p.spirv, l.spirv, "{what}: unchanged");
                continue;
            }
            common::spirv_val(l, "loop-limit");
            let asm = common::disassemble(l, "loop-limit");
            assert!(asm.contains(&set), "{what}: status binding\n{asm}");
            assert!(asm.contains("DontUnroll"), "{what}: the probe loop\n{asm}");
            let plain_asm = common::disassemble(p, "loop-limit");
            assert!(!plain_asm.contains(&set), "{what}: no status binding");
        }
    }
}
