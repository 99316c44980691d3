//! 64-bit atomics on `__local` memory (cl_khr_int64_base_atomics /
//! cl_khr_int64_extended_atomics and OpenCL C 2.0/3.0 `atomic_long`,
//! `atomic_ulong`, `atomic_double`; ferrocl emulates them under a
//! work-group lock, `ferrocl_compiler::passes::lower::local64`), run and
//! checked against CPU references: per-work-group reductions whose sums
//! overflow 32 bits, min/max (signed and unsigned), and/or/xor, inc/dec
//! tickets, exchanges, compare-exchange counters, C11 fetch-ops with
//! relaxed and acq_rel orders, release/acquire publication through a
//! 64-bit flag, `__local` pointer arguments, and CL_KERNEL_LOCAL_MEM_SIZE.
//! Work-group sizes 1, 37, 64 and 256; every kernel in both address
//! formats (and, for the C11 ones, OpenCL C 2.0 and 3.0).

use std::ptr;

use ferrocl_tests::info::{device_string, testing_pocl};
use ferrocl_tests::{assert_same, Cl, Kernel, Local};
use opencl_sys::*;

/// The work-group sizes every test runs with (37: not a multiple of the
/// SIMD width).
const SIZES: [usize; 4] = [1, 37, 64, 256];
const GROUPS: usize = 3;

/// Whether the device reports the 64-bit atomics; when it does not, the
/// tests check that the build fails and skip the rest.
fn int64_atomics(cl: &Cl) -> bool {
    let e = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let base = e.split(' ').any(|x| x == "cl_khr_int64_base_atomics");
    let ext = e.split(' ').any(|x| x == "cl_khr_int64_extended_atomics");
    assert_eq!(base, ext, "only one of the int64 atomics extensions");
    if !base {
        eprintln!("skipped: no cl_khr_int64_base_atomics");
    }
    base
}

fn address_formats() -> Vec<&'static str> {
    if testing_pocl() {
        vec![""]
    } else {
        vec!["", " -ferrocl-addressing=descriptor"]
    }
}

#[track_caller]
fn kernel(cl: &Cl, source: &str, options: &str, name: &str) -> Kernel {
    cl.try_build(source, options)
        .unwrap_or_else(|e| panic!("{options}: {e}"))
        .kernel(name)
}

/// Inputs: values of up to 60 bits, both signs (their sums overflow 32
/// bits whatever the work-group).
fn inputs(n: usize, seed: u64) -> Vec<i64> {
    let mut rng = ferrocl_tests::mathref::Rng(seed);
    (0..n).map(|_| rng.bits() as i64 >> 4).collect()
}

#[track_caller]
fn assert_permutation(what: &str, got: &[i64], want: impl Iterator<Item = i64>) {
    let mut got = got.to_vec();
    got.sort_unstable();
    let want: Vec<i64> = want.collect();
    assert_same(what, &got, &want);
}

// ---------------------------------------------------------------------
// OpenCL 1.x atom_* on __local long / ulong

const ATOM_SOURCE: &str = r#"
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define K ((1L << 33) + 1)
#define TRIES 100000
// s: [sum, sub, smin, smax, and, or, xor, inc, dec, xchg, cmpxchg], u: [umin, umax].
// old[4 * gid ..]: what atom_inc, atom_dec, atom_xchg and the successful
// atom_cmpxchg returned (-7 when the compare-exchange loop gave up).
kernel void atoms(global const long *x, global long *out, global long *old) {
    local long s[11];
    local ulong u[2];
    size_t l = get_local_id(0), g = get_group_id(0), gid = get_global_id(0);
    if (l == 0) {
        s[0] = 0; s[1] = 0; s[2] = LONG_MAX; s[3] = LONG_MIN;
        s[4] = -1; s[5] = 0; s[6] = 0;
        s[7] = 5000000000L; s[8] = 1L << 32; s[9] = -1; s[10] = 0;
        u[0] = ULONG_MAX; u[1] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    long v = x[gid];
    atom_add(&s[0], v);
    atom_sub(&s[1], v);
    atom_min(&s[2], v);
    atom_max(&s[3], v);
    atom_and(&s[4], v | 0x10);
    atom_or(&s[5], v & 0x3f0f00000f0fL);
    atom_xor(&s[6], v);
    atom_min(&u[0], (ulong)v);
    atom_max(&u[1], (ulong)v);
    old[4 * gid] = atom_inc(&s[7]);
    old[4 * gid + 1] = atom_dec(&s[8]);
    old[4 * gid + 2] = atom_xchg(&s[9], ((long)l << 32) | (long)l);
    // A counter by compare-exchange (each success adds K).
    long cur = atom_add(&s[10], 0);
    int t = 0;
    for (;;) {
        long prev = atom_cmpxchg(&s[10], cur, cur + K);
        if (prev == cur)
            break;
        cur = prev;
        if (++t == TRIES) {
            cur = -7;
            break;
        }
    }
    old[4 * gid + 3] = cur;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        for (int k = 0; k < 11; k++)
            out[13 * g + k] = s[k];
        out[13 * g + 11] = (long)u[0];
        out[13 * g + 12] = (long)u[1];
    }
}
"#;

/// The CPU reference of `atoms` for one work-group's inputs.
fn atoms_ref(x: &[i64]) -> Vec<i64> {
    let n = x.len() as i64;
    let sum = x.iter().fold(0i64, |s, &v| s.wrapping_add(v));
    let mut r = vec![
        sum,
        sum.wrapping_neg(),
        *x.iter().min().unwrap(),
        *x.iter().max().unwrap(),
        x.iter().fold(-1i64, |s, &v| s & (v | 0x10)),
        x.iter().fold(0i64, |s, &v| s | (v & 0x3f0f_0000_0f0f)),
        x.iter().fold(0i64, |s, &v| s ^ v),
        5_000_000_000 + n,
        (1i64 << 32) - n,
    ];
    // s[9]: one of the exchanged values (checked with the returned ones).
    r.push(0);
    r.push(n * ((1i64 << 33) + 1));
    r.push(x.iter().map(|&v| v as u64).min().unwrap() as i64);
    r.push(x.iter().map(|&v| v as u64).max().unwrap() as i64);
    r
}

#[test]
fn atom_functions_on_local_longs() {
    let cl = Cl::new();
    if !int64_atomics(&cl) {
        assert!(cl.try_build(ATOM_SOURCE, "").is_err());
        return;
    }
    for options in address_formats() {
        let k = kernel(&cl, ATOM_SOURCE, options, "atoms");
        for ls in SIZES {
            let what = format!("'{options}' local size {ls}");
            let n = ls * GROUPS;
            let x = inputs(n, 0x5851_f42d_4c95_7f2d ^ ls as u64);
            let xb = cl.buffer_from(&x);
            let out = cl.buffer_from(&vec![0i64; 13 * GROUPS]);
            let old = cl.buffer_from(&vec![0i64; 4 * n]);
            k.arg(0, &xb).arg(1, &out).arg(2, &old);
            cl.queue.run(&k, &[n], Some(&[ls]));
            let out = cl.queue.read(&out);
            let old = cl.queue.read(&old);
            for g in 0..GROUPS {
                let what = format!("{what} group {g}");
                let chunk = &x[g * ls..(g + 1) * ls];
                let mut want = atoms_ref(chunk);
                let got = &out[13 * g..13 * (g + 1)];
                want[9] = got[9];
                assert_same(&what, got, &want);
                let olds = &old[4 * g * ls..4 * (g + 1) * ls];
                let col =
                    |c: usize| -> Vec<i64> { olds.iter().skip(c).step_by(4).copied().collect() };
                let l = ls as i64;
                assert_permutation(
                    &format!("{what} inc"),
                    &col(0),
                    5_000_000_000..5_000_000_000 + l,
                );
                assert_permutation(
                    &format!("{what} dec"),
                    &col(1),
                    (1i64 << 32) - l + 1..(1i64 << 32) + 1,
                );
                // The exchanged values: the initial one and every lane's,
                // each once, between the returned values and the final one.
                let mut xs = col(2);
                xs.push(got[9]);
                assert_permutation(
                    &format!("{what} xchg"),
                    &xs,
                    std::iter::once(-1).chain((0..l).map(|i| (i << 32) | i)),
                );
                let k = (1i64 << 33) + 1;
                assert!(
                    col(3).iter().all(|&c| c % k == 0),
                    "{what} cmpxchg: {:?}",
                    col(3)
                );
                let tickets: Vec<i64> = col(3).iter().map(|&c| c / k).collect();
                assert_permutation(&format!("{what} cmpxchg"), &tickets, 0..l);
            }
        }
    }
}

// ---------------------------------------------------------------------
// OpenCL C 2.0/3.0 atomic_long / atomic_ulong / atomic_double

const C11_SOURCE: &str = r#"
#define K ((1L << 35) + 3)
#define TRIES 100000
// r: [relaxed sum, acq_rel sum, seq_cst sub, min, umax, and, or, xor,
//     strong counter, weak counter, stored], d: the final double.
// old[3 * gid ..]: the successful strong / weak compare-exchange's
// expected value and the double exchange's result.
kernel void c11(global const long *x, global long *r, global long *old, global double *d) {
    local atomic_long a[10];
    local atomic_ulong um;
    local atomic_long st;
    local atomic_double ad;
    size_t l = get_local_id(0), g = get_group_id(0), gid = get_global_id(0);
    if (l == 0) {
        for (int k = 0; k < 10; k++)
            atomic_init(&a[k], 0L);
        atomic_store_explicit(&a[3], LONG_MAX, memory_order_relaxed, memory_scope_work_group);
        atomic_store(&a[5], -1L);
        atomic_init(&um, 0UL);
        atomic_init(&st, 0L);
        atomic_init(&ad, -1.0);
    }
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    long v = x[gid];
    atomic_fetch_add_explicit(&a[0], v, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_add_explicit(&a[1], v, memory_order_acq_rel, memory_scope_work_group);
    atomic_fetch_sub_explicit(&a[2], v, memory_order_seq_cst, memory_scope_work_group);
    atomic_fetch_min_explicit(&a[3], v, memory_order_acquire, memory_scope_work_group);
    atomic_fetch_max_explicit(&um, (ulong)v, memory_order_release, memory_scope_work_group);
    atomic_fetch_and_explicit(&a[5], v | 0x100, memory_order_relaxed);
    atomic_fetch_or(&a[6], v & 0x7700000000ffL);
    atomic_fetch_xor_explicit(&a[7], v, memory_order_acq_rel);
    // Counters by compare-exchange (strong, then weak).
    long cur = atomic_load_explicit(&a[8], memory_order_acquire, memory_scope_work_group);
    int t = 0;
    while (!atomic_compare_exchange_strong_explicit(&a[8], &cur, cur + K,
               memory_order_acq_rel, memory_order_acquire, memory_scope_work_group))
        if (++t == TRIES) { cur = -7; break; }
    old[3 * gid] = cur;
    cur = atomic_load_explicit(&a[9], memory_order_relaxed, memory_scope_work_group);
    t = 0;
    while (!atomic_compare_exchange_weak_explicit(&a[9], &cur, cur + K,
               memory_order_relaxed, memory_order_relaxed, memory_scope_work_group))
        if (++t == TRIES) { cur = -7; break; }
    old[3 * gid + 1] = cur;
    double e = atomic_exchange_explicit(&ad, (double)l + 0.5, memory_order_acq_rel, memory_scope_work_group);
    old[3 * gid + 2] = (long)(e * 2.0);
    // Some lane's store is the last: each stores one the host recognises.
    atomic_store_explicit(&st, ((long)l << 40) | 0xabc, memory_order_release, memory_scope_work_group);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        for (int k = 0; k < 10; k++)
            r[12 * g + k] = atomic_load_explicit(&a[k], memory_order_relaxed, memory_scope_work_group);
        r[12 * g + 4] = (long)atomic_load_explicit(&um, memory_order_acquire, memory_scope_work_group);
        r[12 * g + 10] = atomic_load(&st);
        r[12 * g + 11] = 0;
        d[g] = atomic_load_explicit(&ad, memory_order_acquire, memory_scope_work_group);
    }
}
"#;

#[test]
fn c11_atomics_on_local_atomic_long() {
    let cl = Cl::new();
    if !int64_atomics(&cl) {
        return;
    }
    let stds: &[&str] = if testing_pocl() {
        &["-cl-std=CL3.0"]
    } else {
        &["-cl-std=CL2.0", "-cl-std=CL3.0"]
    };
    for std in stds {
        for fmt in address_formats() {
            let options = format!("{std}{fmt}");
            let k = kernel(&cl, C11_SOURCE, &options, "c11");
            for ls in SIZES {
                let what = format!("'{options}' local size {ls}");
                let n = ls * GROUPS;
                let x = inputs(n, 0x2545_f491_4f6c_dd1d ^ ls as u64);
                let xb = cl.buffer_from(&x);
                let r = cl.buffer_from(&vec![0i64; 12 * GROUPS]);
                let old = cl.buffer_from(&vec![0i64; 3 * n]);
                let d = cl.buffer_from(&[0f64; GROUPS]);
                k.arg(0, &xb).arg(1, &r).arg(2, &old).arg(3, &d);
                cl.queue.run(&k, &[n], Some(&[ls]));
                let (r, old, d) = (cl.queue.read(&r), cl.queue.read(&old), cl.queue.read(&d));
                let kk = (1i64 << 35) + 3;
                for g in 0..GROUPS {
                    let what = format!("{what} group {g}");
                    let c = &x[g * ls..(g + 1) * ls];
                    let l = ls as i64;
                    let sum = c.iter().fold(0i64, |s, &v| s.wrapping_add(v));
                    let got = &r[12 * g..12 * (g + 1)];
                    // The stored value: some lane's.
                    let stored = got[10];
                    assert_eq!(stored & 0xff_ffff_ffff, 0xabc, "{what} store {stored:#x}");
                    assert!((0..l).contains(&(stored >> 40)), "{what} store {stored:#x}");
                    let want = vec![
                        sum,
                        sum,
                        sum.wrapping_neg(),
                        *c.iter().min().unwrap(),
                        c.iter().map(|&v| v as u64).max().unwrap() as i64,
                        c.iter().fold(-1i64, |s, &v| s & (v | 0x100)),
                        c.iter().fold(0i64, |s, &v| s | (v & 0x7700_0000_00ff)),
                        c.iter().fold(0i64, |s, &v| s ^ v),
                        l * kk,
                        l * kk,
                        stored,
                        0,
                    ];
                    assert_same(&what, got, &want);
                    let olds = &old[3 * g * ls..3 * (g + 1) * ls];
                    let col = |k: usize| -> Vec<i64> {
                        olds.iter().skip(k).step_by(3).copied().collect()
                    };
                    for (k, name) in [(0, "strong"), (1, "weak")] {
                        let c = col(k);
                        assert!(c.iter().all(|&v| v % kk == 0), "{what} {name}: {c:?}");
                        let t: Vec<i64> = c.iter().map(|&v| v / kk).collect();
                        assert_permutation(&format!("{what} {name}"), &t, 0..l);
                    }
                    // Exchanged doubles (×2): -1 then each lane's l + 0.5.
                    let mut xs = col(2);
                    xs.push((d[g] * 2.0) as i64);
                    assert_permutation(
                        &format!("{what} exchange"),
                        &xs,
                        std::iter::once(-2).chain((0..l).map(|i| 2 * i + 1)),
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------
// Release/acquire through a 64-bit flag, pointer arguments, sizes

const PUBLISH_SOURCE: &str = r#"
// Lane 0 writes data, then publishes it with a release store of a 64-bit
// flag whose halves both change; every lane polls the flag (a bounded
// number of times: lanes may run before lane 0) and, once it sees the
// flag, must see the data. seen[gid]: 1 saw flag and data, 2 saw the flag
// but stale data, 3 saw a torn flag, 0 gave up.
kernel void publish(global int *seen, local atomic_long *flag, local int *data) {
    size_t l = get_local_id(0);
    if (l == 0) {
        atomic_init(flag, 0x100000001L);
        data[0] = 0;
    }
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        data[0] = 42;
        atomic_store_explicit(flag, 0x700000007L, memory_order_release, memory_scope_work_group);
    }
    int r = 0;
    for (int t = 0; t < 1000; t++) {
        long f = atomic_load_explicit(flag, memory_order_acquire, memory_scope_work_group);
        if (f == 0x700000007L) {
            r = data[0] == 42 ? 1 : 2;
            break;
        }
        if (f != 0x100000001L) {
            r = 3;
            break;
        }
    }
    seen[get_global_id(0)] = r;
}
"#;

#[test]
fn release_acquire_through_a_local_64_bit_flag() {
    let cl = Cl::new();
    if !int64_atomics(&cl) {
        return;
    }
    for fmt in address_formats() {
        let options = format!("-cl-std=CL3.0{fmt}");
        let k = kernel(&cl, PUBLISH_SOURCE, &options, "publish");
        for ls in SIZES {
            let n = ls * GROUPS;
            let seen = cl.buffer_from(&vec![-1i32; n]);
            k.arg(0, &seen).arg(1, &Local(8)).arg(2, &Local(4));
            cl.queue.run(&k, &[n], Some(&[ls]));
            let seen = cl.queue.read(&seen);
            let what = format!("'{options}' local size {ls}");
            assert!(seen.iter().all(|&s| s == 0 || s == 1), "{what}: {seen:?}");
            // Lane 0 itself always sees its own store.
            for g in 0..GROUPS {
                assert_eq!(seen[g * ls], 1, "{what} group {g}");
            }
        }
    }
}

const ARG_SOURCE: &str = r#"
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
// Static __local data, then the lock table, then a __local pointer
// argument: each lane adds into slot l % 4 of the argument and the
// static array, so an overlap of any two would show.
kernel void args(global long *out, local long *p, local int *q) {
    local long s[4];
    size_t l = get_local_id(0), g = get_group_id(0);
    if (l < 4) { p[l] = 0; s[l] = 0; q[l] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    atom_add(&p[l % 4], (1L << 32) + (long)l);
    atom_add(&s[l % 4], (3L << 40) - (long)l);
    atomic_inc(&q[l % 4]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4) {
        out[12 * g + l] = p[l];
        out[12 * g + 4 + l] = s[l];
        out[12 * g + 8 + l] = q[l];
    }
}
"#;

fn local_mem_size(cl: &Cl, k: &Kernel) -> u64 {
    let mut size: cl_ulong = 0;
    // SAFETY: one cl_ulong out.
    let status = unsafe {
        clGetKernelWorkGroupInfo(
            k.raw(),
            cl.device(),
            CL_KERNEL_LOCAL_MEM_SIZE,
            size_of::<cl_ulong>(),
            (&mut size as *mut cl_ulong).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    size
}

#[test]
fn local_pointer_arguments_and_local_mem_size() {
    let cl = Cl::new();
    if !int64_atomics(&cl) {
        return;
    }
    for fmt in address_formats() {
        let k = kernel(&cl, ARG_SOURCE, fmt, "args");
        for ls in [4usize, 37, 256] {
            let out = cl.buffer_from(&vec![0i64; 12 * GROUPS]);
            k.arg(0, &out).arg(1, &Local(32)).arg(2, &Local(16));
            cl.queue.run(&k, &[ls * GROUPS], Some(&[ls]));
            let mut want = vec![0i64; 12];
            for l in 0..ls as i64 {
                let j = (l % 4) as usize;
                want[j] += (1i64 << 32) + l;
                want[4 + j] += (3i64 << 40) - l;
                want[8 + j] += 1;
            }
            let want: Vec<i64> = (0..GROUPS).flat_map(|_| want.clone()).collect();
            assert_same(
                &format!("'{fmt}' local size {ls}"),
                &cl.queue.read(&out),
                &want,
            );
        }
        // The size includes the static array and both arguments; on
        // ferrocl also the lock words (32 bytes).
        let size = local_mem_size(&cl, &k);
        assert!(size >= 32 + 32 + 16, "CL_KERNEL_LOCAL_MEM_SIZE {size}");
        if !testing_pocl() {
            assert_eq!(size, 32 + 32 + 32 + 16, "CL_KERNEL_LOCAL_MEM_SIZE");
        }
    }
}

/// Exchanges per work-item. lavapipe ends any loop after 65535 iterations
/// in all (a kernel's loops together, per invocation), and each emulated
/// atomic is a loop of up to (SIMD lanes contending) iterations: the CTS's
/// 10000 exchanges per work-item go past that there (module docs of
/// `lower::local64`).
const ITER: u32 = 1000;
const CHAIN_SOURCE: &str = r#"
// Each work-item exchanges its id into one __local atomic_long, then
// exchanges what it got back ITER more times: the values returned plus
// the final one are the start value and every id, each once.
kernel void chain(global long *old, global long *fin, volatile local atomic_long *d) {
    size_t l = get_local_id(0), gid = get_global_id(0);
    if (l == 0)
        atomic_store_explicit(d, 1234L, memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    old[gid] = atomic_exchange_explicit(d, (long)l, ORDER, memory_scope_work_group);
    for (int i = 0; i < ITER; i++)
        old[gid] = atomic_exchange_explicit(d, old[gid], ORDER, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0)
        fin[get_group_id(0)] = atomic_load_explicit(d, memory_order_relaxed, memory_scope_work_group);
}
"#;

#[test]
fn exchange_chains_are_permutations() {
    let cl = Cl::new();
    if !int64_atomics(&cl) {
        return;
    }
    for fmt in address_formats() {
        for (order, iter) in [("memory_order_relaxed", ITER), ("memory_order_acq_rel", 10)] {
            let options = format!("-cl-std=CL3.0{fmt} -DORDER={order} -DITER={iter}");
            let k = kernel(&cl, CHAIN_SOURCE, &options, "chain");
            for ls in [1usize, 37, 64, 256, 1024] {
                let n = ls * GROUPS;
                let old = cl.buffer_from(&vec![0i64; n]);
                let fin = cl.buffer_from(&[0i64; GROUPS]);
                k.arg(0, &old).arg(1, &fin).arg(2, &Local(8));
                cl.queue.run(&k, &[n], Some(&[ls]));
                let (old, fin) = (cl.queue.read(&old), cl.queue.read(&fin));
                for g in 0..GROUPS {
                    let mut v = old[g * ls..(g + 1) * ls].to_vec();
                    v.push(fin[g]);
                    assert_permutation(
                        &format!("'{options}' local size {ls} group {g}"),
                        &v,
                        (0..ls as i64).chain(std::iter::once(1234)),
                    );
                }
            }
        }
    }
}
