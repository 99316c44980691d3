//! Descriptor addressing (`-ferrocl-addressing=descriptor`) where a pointer
//! picks one of several global buffers at run time, beside `__local`
//! atomics and sub-word `__local` stores: the kernels `ferrocl_compiler`'s
//! `passes::branch_buffer_selects` exists for. With the
//! VariablePointersStorageBuffer capability in the module, NVIDIA's
//! driver 580 lost every Workgroup atomic: the `__local` bytes read back
//! as 0 and the local sums stayed 0 (GPU probes, session 25). The pass is
//! on for NVIDIA; these tests turn it on elsewhere too
//! (`FERROCL_BRANCH_BUFFER_SELECTS=1`, unless the environment says
//! otherwise), so lavapipe runs the same code. Values are checked against
//! CPU references.

use ferrocl_tests::{assert_same, Cl};

const OPTIONS: &str = "-cl-std=CL3.0 -ferrocl-addressing=descriptor";
const N: usize = 64;
const WG: usize = 32;

const SOURCE: &str = r#"
kernel void local_bytes(global int *a, global int *b, global int *out, int sel) {
    local uchar l[64];
    int lid = get_local_id(0), gid = get_global_id(0);
    global int *p = (gid + sel) & 1 ? a : b;
    l[lid] = (uchar)(p[gid] * 3 + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = l[lid ^ 1] + p[gid];
}
kernel void local_sums(global int *a, global int *b, global int *out, int sel) {
    local int sum[2];
    int lid = get_local_id(0), gid = get_global_id(0);
    global int *p = (gid + sel) & 1 ? a : b;
    if (lid < 2) sum[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&sum[lid & 1], p[gid] & 7);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = sum[lid & 1] + p[gid];
}
kernel void selected_writes(global int *a, global int *b, global int *out, int sel) {
    int gid = get_global_id(0);
    global int *p = (gid + sel) % 3 == 0 ? a : (gid + sel) % 3 == 1 ? b : out;
    if (gid < 48) p[gid] = gid * 10 + 1;
    else atomic_add(p + 48 + gid % 4, 1);
}
"#;

fn inputs() -> (Vec<i32>, Vec<i32>) {
    let a = (0..N as i32).map(|i| i * 7 + 3).collect();
    let b = (0..N as i32).map(|i| 1000 - i * 5).collect();
    (a, b)
}

fn cl() -> Cl {
    if std::env::var_os("FERROCL_BRANCH_BUFFER_SELECTS").is_none() {
        std::env::set_var("FERROCL_BRANCH_BUFFER_SELECTS", "1");
    }
    Cl::new()
}

/// Runs `name` with a, b, a zeroed out and `sel`; returns (a, b, out).
fn run(cl: &Cl, name: &str, sel: i32) -> (Vec<i32>, Vec<i32>, Vec<i32>) {
    let program = cl
        .try_build(SOURCE, OPTIONS)
        .unwrap_or_else(|e| panic!("{OPTIONS}: {e}"));
    let (a, b) = inputs();
    let (ba, bb) = (cl.buffer_from(&a), cl.buffer_from(&b));
    let out = cl.buffer_from(&vec![0i32; N]);
    let k = program.kernel(name);
    k.arg(0, &ba).arg(1, &bb).arg(2, &out).arg(3, &sel);
    cl.queue.run(&k, &[N], Some(&[WG]));
    (cl.queue.read(&ba), cl.queue.read(&bb), cl.queue.read(&out))
}

/// The buffer work-item `gid` picks in `local_bytes` and `local_sums`.
fn picked(a: &[i32], b: &[i32], gid: usize, sel: i32) -> i32 {
    if (gid as i32 + sel) & 1 == 1 {
        a[gid]
    } else {
        b[gid]
    }
}

#[test]
fn local_byte_stores_beside_a_selected_buffer() {
    let cl = cl();
    let (a, b) = inputs();
    for sel in 0..2 {
        let (_, _, out) = run(&cl, "local_bytes", sel);
        let byte = |gid: usize| i32::from((picked(&a, &b, gid, sel) * 3 + 1) as u8);
        let want: Vec<i32> = (0..N)
            .map(|gid| {
                let lid = gid % WG;
                byte(gid - lid + (lid ^ 1)) + picked(&a, &b, gid, sel)
            })
            .collect();
        assert_same(&format!("local_bytes sel {sel}"), &out, &want);
    }
}

#[test]
fn local_atomics_beside_a_selected_buffer() {
    let cl = cl();
    let (a, b) = inputs();
    for sel in 0..2 {
        let (_, _, out) = run(&cl, "local_sums", sel);
        let want: Vec<i32> = (0..N)
            .map(|gid| {
                let group = gid / WG * WG;
                let sum: i32 = (group..group + WG)
                    .filter(|g| g % 2 == gid % 2)
                    .map(|g| picked(&a, &b, g, sel) & 7)
                    .sum();
                sum + picked(&a, &b, gid, sel)
            })
            .collect();
        assert_same(&format!("local_sums sel {sel}"), &out, &want);
    }
}

#[test]
fn stores_and_atomics_through_a_pointer_to_one_of_three_buffers() {
    let cl = cl();
    for sel in 0..3 {
        let (got_a, got_b, got_out) = run(&cl, "selected_writes", sel);
        let (mut a, mut b) = inputs();
        let mut out = vec![0i32; N];
        for gid in 0..N {
            let target = match (gid as i32 + sel) % 3 {
                0 => &mut a,
                1 => &mut b,
                _ => &mut out,
            };
            if gid < 48 {
                target[gid] = gid as i32 * 10 + 1;
            } else {
                target[48 + gid % 4] += 1;
            }
        }
        assert_same(&format!("selected_writes sel {sel}: a"), &got_a, &a);
        assert_same(&format!("selected_writes sel {sel}: b"), &got_b, &b);
        assert_same(&format!("selected_writes sel {sel}: out"), &got_out, &out);
    }
}
