//! Robust mode (`runtime/src/core/robust.rs`): with the build option
//! `-ferrocl-robust`, or for every build with `FERROCL_ROBUST=1`, a
//! kernel's global reads outside its buffer arguments return 0 and its
//! writes there are dropped. A kernel writes just past the end of a
//! buffer (sweeping as far as the buffer is long), before its start and
//! 64 MiB past it, reads the same places back, and writes its own
//! elements: the neighbours (other buffers made around it, and the rest
//! of the parent buffer when it is a sub-buffer) must keep their
//! contents, the reads must be 0 and the buffer's own elements exact.
//!
//! Without robust mode (physical addressing, the default) nothing bounds
//! such accesses: they reach whatever the address holds (docs/design.md,
//! "Robust mode"), so that is not run here.

use std::time::{Duration, Instant};

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, device_value, Buffer, Cl, ClError};

const SOURCE: &str = r#"
kernel void stray(global uint* a, uint len, global uint* got) {
    uint i = get_global_id(0);
    a[i] = 0xa0000000u + i;
    // Just past the end: the next len words.
    a[len + i] = 0xdead0000u + i;
    // Before the start.
    global uint* before = a - 1 - i;
    *before = 0xbefe0000u + i;
    // 64 MiB past the start.
    a[0x1000000u + i] = 0xfa000000u + i;
    got[3 * i] = a[len + i];
    got[3 * i + 1] = *before;
    got[3 * i + 2] = a[0x1000000u + i];
}
"#;

/// Words of the buffer the kernel strays from (and of each neighbour).
const LEN: usize = 16 * 1024;

fn pattern(n: u32) -> Vec<u32> {
    (0..LEN as u32)
        .map(|i| (n << 24) ^ i.wrapping_mul(2_654_435_761))
        .collect()
}

fn sub_buffer(parent: &Buffer<u32>, origin_words: usize, words: usize) -> Buffer<u32> {
    let region = cl_buffer_region {
        origin: origin_words * 4,
        size: words * 4,
    };
    let mut status = CL_SUCCESS;
    // SAFETY: valid parent; the region lies inside it.
    let raw = unsafe {
        clCreateSubBuffer(
            parent.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut status,
        )
    };
    assert_eq!(ClError(status), ClError(CL_SUCCESS), "clCreateSubBuffer");
    Buffer::from_raw(raw, words)
}

/// Runs the straying kernel of `program` on `a`, then checks `a`, the
/// reads and every buffer of `neighbours` (with the pattern it was made
/// with).
fn check_contained(
    cl: &Cl,
    program: &ferrocl_tests::Program,
    a: &Buffer<u32>,
    neighbours: &[(&Buffer<u32>, Vec<u32>)],
    what: &str,
) {
    let got = cl.buffer_from(&vec![0x5555_5555u32; 3 * LEN]);
    let k = program.kernel("stray");
    k.arg(0, a).arg(1, &(LEN as u32)).arg(2, &got);
    cl.queue.run(&k, &[LEN], None);
    let want: Vec<u32> = (0..LEN as u32).map(|i| 0xa000_0000 + i).collect();
    assert_same(&format!("{what}: own elements"), &cl.queue.read(a), &want);
    assert_same(
        &format!("{what}: out-of-bounds reads"),
        &cl.queue.read(&got),
        &vec![0u32; 3 * LEN],
    );
    for (i, (b, pattern)) in neighbours.iter().enumerate() {
        assert_same(
            &format!("{what}: neighbour {i}"),
            &cl.queue.read(b),
            pattern,
        );
    }
}

/// Separate buffers made before and after the one the kernel strays from.
fn separate_buffers(cl: &Cl, program: &ferrocl_tests::Program) {
    let before: Vec<Buffer<u32>> = (0..4).map(|n| cl.buffer_from(&pattern(n))).collect();
    let a = cl.buffer_from(&vec![0u32; LEN]);
    let after: Vec<Buffer<u32>> = (4..8).map(|n| cl.buffer_from(&pattern(n))).collect();
    let neighbours: Vec<(&Buffer<u32>, Vec<u32>)> = before
        .iter()
        .chain(&after)
        .zip(0..)
        .map(|(b, n)| (b, pattern(n)))
        .collect();
    check_contained(cl, program, &a, &neighbours, "separate buffers");
}

/// A sub-buffer in the middle of a parent: the rest of the parent is the
/// neighbour.
fn sub_buffers(cl: &Cl, program: &ferrocl_tests::Program) {
    let align: u32 = device_value(cl.device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    // The sub-buffers' origins (multiples of LEN words) must be aligned.
    assert_eq!(
        (LEN * 4) % (align as usize / 8),
        0,
        "base address alignment"
    );
    let mut init = pattern(1);
    init.extend(vec![0u32; LEN]);
    init.extend(pattern(2));
    let parent = cl.buffer_from(&init);
    let first = sub_buffer(&parent, 0, LEN);
    let a = sub_buffer(&parent, LEN, LEN);
    let last = sub_buffer(&parent, 2 * LEN, LEN);
    check_contained(
        cl,
        program,
        &a,
        &[(&first, pattern(1)), (&last, pattern(2))],
        "sub-buffer",
    );
}

#[test]
fn build_option_contains_out_of_bounds_accesses() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let cl = Cl::new();
    let program = cl
        .try_build(SOURCE, "-ferrocl-robust")
        .unwrap_or_else(|e| panic!("-ferrocl-robust: {e}"));
    separate_buffers(&cl, &program);
    sub_buffers(&cl, &program);
}

#[test]
fn robust_mode_needs_descriptor_addressing() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let cl = Cl::new();
    let e = cl
        .try_build(SOURCE, "-ferrocl-robust -ferrocl-addressing=physical")
        .err()
        .expect("robust mode with physical addressing must not build");
    assert_eq!(e.status, ClError(CL_INVALID_BUILD_OPTIONS));
}

const CHILD: &str = "FERROCL_ROBUST_MODE_CHILD";

/// Runs test `name` of this binary in a child process with `env`.
fn run_in_child(name: &str, env: &[(&str, &str)]) {
    let start = Instant::now();
    let mut cmd = std::process::Command::new(std::env::current_exe().expect("test binary"));
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{name}: the child failed");
    assert!(
        stdout.contains("1 passed"),
        "{name}: the child did not run it"
    );
    assert!(start.elapsed() < Duration::from_secs(300));
}

/// `FERROCL_ROBUST=1`: a build without options is robust, one that asks
/// for physical addressing fails with a log.
#[test]
fn environment_switch_makes_every_build_robust() {
    if std::env::var_os(CHILD).is_none() {
        return run_in_child(
            "environment_switch_makes_every_build_robust",
            &[("FERROCL_ROBUST", "1")],
        );
    }
    let cl = Cl::new();
    let program = cl.build(SOURCE);
    separate_buffers(&cl, &program);
    let e = cl
        .try_build(SOURCE, "-ferrocl-addressing=physical")
        .err()
        .expect("a physical build under FERROCL_ROBUST=1 must fail");
    assert_eq!(e.status, ClError(CL_BUILD_PROGRAM_FAILURE));
    assert!(e.log.contains("FERROCL_ROBUST=1"), "log: {}", e.log);
}

/// `FERROCL_ROBUST=0`: the device is made without robust buffer access,
/// so `-ferrocl-robust` fails with a log instead of building an
/// unprotected kernel.
#[test]
fn robust_build_fails_where_the_device_is_not_robust() {
    if std::env::var_os(CHILD).is_none() {
        return run_in_child(
            "robust_build_fails_where_the_device_is_not_robust",
            &[("FERROCL_ROBUST", "0")],
        );
    }
    let cl = Cl::new();
    let e = cl
        .try_build(SOURCE, "-ferrocl-robust")
        .err()
        .expect("-ferrocl-robust without device robustness must fail");
    assert_eq!(e.status, ClError(CL_BUILD_PROGRAM_FAILURE));
    assert!(e.log.contains("robustBufferAccess2"), "log: {}", e.log);
    // Without robust mode, the program builds.
    assert!(cl.try_build(SOURCE, "").is_ok());
}
