//! OpenCL C 2.0/3.0 atomics with memory orders and scopes
//! (`ferrocl_compiler::passes::lower::atomic`), run and checked against CPU
//! references: release/acquire message passing between work-groups and
//! inside one (through atomics and through atomic_work_item_fence),
//! seq_cst ticket counters, every fetch-op as a reduction, compare-
//! exchange loops (a maximum, a lock-free stack), flags electing leaders,
//! float/double exchanges, 64-bit variants, `__local` variants with
//! work_group_barrier; and the device's atomic capabilities against the
//! OpenCL C 3.0 feature macros.
//!
//! Every kernel is built with -cl-std=CL2.0 and CL3.0 and, on ferrocl, in
//! both address formats. Message passing cannot wait for the producer
//! (OpenCL promises no forward progress between work-groups): consumers
//! poll a bounded number of times, and each one that sees the flag must
//! see the data.

use ferrocl_tests::info::{device_info, query, testing_pocl};
use ferrocl_tests::{assert_same, device_value, Cl, Kernel, Local};
use opencl_sys::*;

/// Build options of every variant: language version × address format
/// (PoCL: OpenCL C 3.0 only, its own address format).
fn variants() -> Vec<String> {
    let (stds, addressing): (&[&str], &[&str]) = if testing_pocl() {
        (&["-cl-std=CL3.0"], &[""])
    } else {
        (
            &["-cl-std=CL2.0", "-cl-std=CL3.0"],
            &["", " -ferrocl-addressing=descriptor"],
        )
    };
    let mut v = Vec::new();
    for std in stds {
        for a in addressing {
            v.push(format!("{std}{a}"));
        }
    }
    v
}

#[track_caller]
fn kernel(cl: &Cl, source: &str, options: &str, name: &str) -> Kernel {
    cl.try_build(source, options)
        .unwrap_or_else(|e| panic!("{options}: {e}"))
        .kernel(name)
}

/// Builds a kernel with 64-bit atomics, or `None` where the device has
/// none: it does not report cl_khr_int64_base_atomics, and the build fails
/// (atomic_long is undeclared there).
fn kernel64(cl: &Cl, source: &str, options: &str, name: &str) -> Option<Kernel> {
    let exts = ferrocl_tests::info::device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let has = exts.split(' ').any(|e| e == "cl_khr_int64_base_atomics");
    match cl.try_build(source, options) {
        Ok(p) => {
            assert!(
                has || testing_pocl(),
                "{options}: built without cl_khr_int64_base_atomics"
            );
            Some(p.kernel(name))
        }
        Err(e) if !has => {
            eprintln!("skipped: {}", e.log);
            None
        }
        Err(e) => panic!("{options}: {e}"),
    }
}

// ---------------------------------------------------------------------
// Capabilities and feature macros

const FEATURE_BITS: [(cl_device_atomic_capabilities, &str); 4] = [
    (
        CL_DEVICE_ATOMIC_ORDER_ACQ_REL,
        "__opencl_c_atomic_order_acq_rel",
    ),
    (
        CL_DEVICE_ATOMIC_ORDER_SEQ_CST,
        "__opencl_c_atomic_order_seq_cst",
    ),
    (
        CL_DEVICE_ATOMIC_SCOPE_DEVICE,
        "__opencl_c_atomic_scope_device",
    ),
    (
        CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES,
        "__opencl_c_atomic_scope_all_devices",
    ),
];

fn c_features(cl: &Cl) -> Vec<String> {
    // cl_name_version entries, read as bytes (version, then the name).
    let raw: Vec<u8> = query(device_info(cl.device(), CL_DEVICE_OPENCL_C_FEATURES))
        .expect("CL_DEVICE_OPENCL_C_FEATURES");
    raw.chunks(4 + CL_NAME_VERSION_MAX_NAME_SIZE)
        .map(|c| {
            let name = &c[4..];
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            String::from_utf8_lossy(&name[..end]).into_owned()
        })
        .collect()
}

/// The widest memory scope a kernel built with `options` may name: all
/// (SVM) devices in OpenCL C 2.0, and in 3.0 where the feature is there.
fn widest_scope(cl: &Cl, options: &str) -> &'static str {
    if !options.contains("CL3.0") {
        "memory_scope_all_svm_devices"
    } else if c_features(cl)
        .iter()
        .any(|f| f == "__opencl_c_atomic_scope_all_devices")
    {
        "memory_scope_all_devices"
    } else {
        "memory_scope_device"
    }
}

#[test]
fn capabilities_match_the_feature_macros() {
    let cl = Cl::new();
    let memory: cl_device_atomic_capabilities =
        device_value(cl.device(), CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    let fence: cl_device_atomic_capabilities =
        device_value(cl.device(), CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    // The OpenCL 3.0 minimum.
    let min_memory = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
    let min_fence = min_memory | CL_DEVICE_ATOMIC_ORDER_ACQ_REL;
    assert_eq!(memory & min_memory, min_memory, "memory {memory:#x}");
    assert_eq!(fence & min_fence, min_fence, "fence {fence:#x}");
    if !testing_pocl() {
        // ferrocl: every order and scope (all devices = device scope:
        // SVM contexts have one device, and SVM atomics are reported only
        // on CPU devices, whose atomics are the host's), for atomics and
        // fences alike.
        let all = CL_DEVICE_ATOMIC_ORDER_RELAXED
            | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
            | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
            | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM
            | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
            | CL_DEVICE_ATOMIC_SCOPE_DEVICE
            | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
        assert_eq!(memory, all, "CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES");
        assert_eq!(fence, all, "CL_DEVICE_ATOMIC_FENCE_CAPABILITIES");
    }
    // CL_DEVICE_OPENCL_C_FEATURES lists a feature iff the memory
    // capabilities have its bit, and an OpenCL C 3.0 kernel sees exactly
    // those macros (it reports them as bits, in FEATURE_BITS order).
    let features = c_features(&cl);
    let mut want_mask = 0u32;
    for (k, (bit, name)) in FEATURE_BITS.iter().enumerate() {
        let listed = features.iter().any(|f| f == name);
        // PoCL reports SCOPE_ALL_DEVICES without its feature.
        let pocl_gap = testing_pocl() && *bit == CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
        if !pocl_gap {
            assert_eq!(
                listed,
                memory & bit != 0,
                "{name} in {features:?}, memory {memory:#x}"
            );
        }
        if listed {
            want_mask |= 1 << k;
        }
    }
    let mut src = String::from("kernel void k(global uint *o) {\n    uint m = 0;\n");
    for (k, (_, name)) in FEATURE_BITS.iter().enumerate() {
        src += &format!("#ifdef {name}\n    m |= {};\n#endif\n", 1 << k);
    }
    src +=
        "#if defined(__opencl_c_atomic_order_seq_cst) && defined(__opencl_c_atomic_scope_device)\n\
            m |= atomic_load((volatile global atomic_uint *)o + 1) << 8;\n\
            #endif\n    o[0] = m;\n}\n";
    let k = kernel(&cl, &src, "-cl-std=CL3.0", "k");
    let out = cl.buffer_from(&[0u32, 1]);
    k.arg(0, &out);
    cl.queue.run(&k, &[1], None);
    let got = cl.queue.read(&out)[0];
    let seq_device = want_mask & 0b110 == 0b110;
    assert_eq!(
        got,
        want_mask | if seq_device { 1 << 8 } else { 0 },
        "feature macros defined in a CL3.0 kernel (bits in FEATURE_BITS order)"
    );
}

// ---------------------------------------------------------------------
// Message passing

const MP_SOURCE: &str = r#"
#define WORDS 4
#ifndef SCOPE
#define SCOPE memory_scope_device
#endif

#if defined(REL_ACQ)
#define PUBLISH(p) atomic_store_explicit(p, 1, memory_order_release, SCOPE)
#define OBSERVE(p) atomic_load_explicit(p, memory_order_acquire, SCOPE)
#elif defined(SEQ_CST)
#define PUBLISH(p) atomic_store(p, 1)
#define OBSERVE(p) atomic_load(p)
#elif defined(RMW)
#define PUBLISH(p) atomic_exchange_explicit(p, 1, memory_order_acq_rel, SCOPE)
#define OBSERVE(p) atomic_fetch_or_explicit(p, 0, memory_order_acquire, SCOPE)
#elif defined(FENCES)
#define PUBLISH(p) do { \
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, SCOPE); \
    atomic_store_explicit(p, 1, memory_order_relaxed, SCOPE); } while (0)
int observe(volatile global atomic_int *p) {
    int v = atomic_load_explicit(p, memory_order_relaxed, SCOPE);
    if (v)
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, SCOPE);
    return v;
}
#define OBSERVE(p) observe(p)
#endif

// Work-group 2p produces the slots of pair p, work-group 2p+1 consumes
// them: result 1 = flag seen and data right, 2 = flag seen, data wrong,
// 0 = flag not seen within `polls` polls.
kernel void mp(global int *data, global atomic_int *flag, global int *result, int polls) {
    int g = get_group_id(0), l = get_local_id(0), ls = get_local_size(0);
    int slot = (g / 2) * ls + l;
    if ((g & 1) == 0) {
        for (int j = 0; j < WORDS; j++)
            data[slot * WORDS + j] = slot * 7 + j + 1;
        PUBLISH(&flag[slot]);
    } else {
        int seen = 0;
        for (int i = 0; i < polls && !seen; i++)
            seen = OBSERVE(&flag[slot]);
        int r = seen ? 1 : 0;
        if (seen)
            for (int j = 0; j < WORDS; j++)
                if (data[slot * WORDS + j] != slot * 7 + j + 1)
                    r = 2;
        result[slot] = r;
    }
}

// The same inside one work-group through __local memory: the first nprod
// of the work-items produce, the second nprod consume.
kernel void mp_local(global int *result, int polls) {
    local int data[64 * WORDS];
    local atomic_int flag[64];
    int l = get_local_id(0), nprod = get_local_size(0) / 2;
    if (l < nprod)
        atomic_init(&flag[l], 0);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    int slot = l % nprod;
    if (l < nprod) {
        for (int j = 0; j < WORDS; j++)
            data[slot * WORDS + j] = slot * 5 + j + get_group_id(0);
#if defined(FENCES)
        atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_release, memory_scope_work_group);
        atomic_store_explicit(&flag[slot], 1, memory_order_relaxed, memory_scope_work_group);
#elif defined(SEQ_CST)
        atomic_store(&flag[slot], 1);
#else
        atomic_store_explicit(&flag[slot], 1, memory_order_release, memory_scope_work_group);
#endif
    } else {
        int seen = 0;
        for (int i = 0; i < polls && !seen; i++) {
#if defined(FENCES)
            seen = atomic_load_explicit(&flag[slot], memory_order_relaxed, memory_scope_work_group);
            if (seen)
                atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acquire, memory_scope_work_group);
#elif defined(SEQ_CST)
            seen = atomic_load(&flag[slot]);
#else
            seen = atomic_load_explicit(&flag[slot], memory_order_acquire, memory_scope_work_group);
#endif
        }
        int r = seen ? 1 : 0;
        if (seen)
            for (int j = 0; j < WORDS; j++)
                if (data[slot * WORDS + j] != slot * 5 + j + (int)get_group_id(0))
                    r = 2;
        result[get_group_id(0) * nprod + slot] = r;
    }
}
"#;

const MP_MODES: [&str; 4] = ["-DREL_ACQ", "-DSEQ_CST", "-DRMW", "-DFENCES"];

/// Counts of (not seen, seen with the data) after asserting that no
/// consumer saw the flag without the data and that each one reported.
fn check_observers(what: &str, result: &[i32]) -> (usize, usize) {
    for (slot, &r) in result.iter().enumerate() {
        assert!(
            r == 0 || r == 1,
            "{what}: consumer {slot} reported {r} (2: flag seen, data stale; -1: no report)"
        );
    }
    let seen = result.iter().filter(|&&r| r == 1).count();
    (result.len() - seen, seen)
}

#[test]
fn release_acquire_message_passing_between_work_groups() {
    let cl = Cl::new();
    let (ls, pairs) = (32usize, 8usize);
    let slots = ls * pairs;
    for options in variants() {
        let mut modes: Vec<String> = MP_MODES.iter().map(|m| m.to_string()).collect();
        modes.push(format!("-DREL_ACQ -DSCOPE={}", widest_scope(&cl, &options)));
        for mode in modes {
            let opts = format!("{options} {mode}");
            let k = kernel(&cl, MP_SOURCE, &opts, "mp");
            let data = cl.buffer_from(&vec![0i32; slots * 4]);
            let flag = cl.buffer_from(&vec![0i32; slots]);
            let result = cl.buffer_from(&vec![-1i32; slots]);
            k.arg(0, &data)
                .arg(1, &flag)
                .arg(2, &result)
                .arg(3, &100_000i32);
            cl.queue.run(&k, &[ls * pairs * 2], Some(&[ls]));
            let (missed, seen) = check_observers(&opts, &cl.queue.read(&result));
            eprintln!("{opts}: {seen} consumers saw the flag, {missed} gave up");
            // After the launch every flag and every datum is there.
            assert_same(&opts, &cl.queue.read(&flag), &vec![1; slots]);
            let want: Vec<i32> = (0..slots * 4)
                .map(|i| (i / 4) as i32 * 7 + (i % 4) as i32 + 1)
                .collect();
            assert_same(&opts, &cl.queue.read(&data), &want);
        }
    }
}

#[test]
fn release_acquire_message_passing_in_local_memory() {
    let cl = Cl::new();
    let (ls, groups) = (64usize, 4usize);
    for options in variants() {
        for mode in ["-DREL_ACQ", "-DSEQ_CST", "-DFENCES"] {
            let opts = format!("{options} {mode}");
            let k = kernel(&cl, MP_SOURCE, &opts, "mp_local");
            let n = groups * ls / 2;
            let result = cl.buffer_from(&vec![-1i32; n]);
            k.arg(0, &result).arg(1, &100_000i32);
            cl.queue.run(&k, &[ls * groups], Some(&[ls]));
            let (missed, seen) = check_observers(&opts, &cl.queue.read(&result));
            eprintln!("{opts}: {seen} local consumers saw the flag, {missed} gave up");
        }
    }
}

// ---------------------------------------------------------------------
// Counters and reductions

const COUNTER_SOURCE: &str = r#"
#ifndef FETCH_ADD
#define FETCH_ADD(p, v) atomic_fetch_add(p, v)
#endif
kernel void tickets(global atomic_int *counter, global int *owner) {
    int t = FETCH_ADD(counter, 1);
    owner[t] = get_global_id(0);
}
kernel void countdown(global atomic_uint *counter, global int *owner) {
    uint t = atomic_fetch_sub(counter, 1u) - 1u;
    owner[t] = get_global_id(0);
}
kernel void local_tickets(global int *owner, global int *count) {
    local atomic_int c;
    int l = get_local_id(0), g = get_group_id(0), ls = get_local_size(0);
    if (l == 0)
        atomic_init(&c, 0);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    int t = atomic_fetch_add_explicit(&c, 1, memory_order_relaxed, memory_scope_work_group);
    owner[g * ls + t] = l;
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0)
        count[g] = atomic_load_explicit(&c, memory_order_acquire, memory_scope_work_group);
}
"#;

const TICKETS64_SOURCE: &str = r#"
#ifndef FETCH_ADD
#define FETCH_ADD(p, v) atomic_fetch_add(p, v)
#endif
kernel void tickets64(global atomic_long *counter, global int *owner, long base) {
    long t = FETCH_ADD(counter, 1) - base;
    owner[t] = get_global_id(0);
}
"#;

/// `owner[t]` for tickets 0..n: a permutation of 0..n.
fn assert_permutation(what: &str, owner: &[i32]) {
    let mut sorted = owner.to_vec();
    sorted.sort_unstable();
    let want: Vec<i32> = (0..owner.len() as i32).collect();
    assert_same(what, &sorted, &want);
}

#[test]
fn seq_cst_fetch_add_tickets_are_unique() {
    let cl = Cl::new();
    let n = 4096usize;
    for options in variants() {
        let all = widest_scope(&cl, &options);
        let adds = [
            String::new(),
            "-DFETCH_ADD(p,v)=atomic_fetch_add_explicit(p,v,memory_order_seq_cst,memory_scope_device)"
                .into(),
            "-DFETCH_ADD(p,v)=atomic_fetch_add_explicit(p,v,memory_order_relaxed)".into(),
            "-DFETCH_ADD(p,v)=atomic_fetch_add_explicit(p,v,memory_order_acq_rel)".into(),
            format!("-DFETCH_ADD(p,v)=atomic_fetch_add_explicit(p,v,memory_order_acquire,{all})"),
        ];
        for add in adds {
            let opts = format!("{options} {add}");
            let p = cl
                .try_build(COUNTER_SOURCE, &opts)
                .unwrap_or_else(|e| panic!("{opts}: {e}"));
            let k = p.kernel("tickets");
            let counter = cl.buffer_from(&[0i32]);
            let owner = cl.buffer_from(&vec![-1i32; n]);
            k.arg(0, &counter).arg(1, &owner);
            cl.queue.run(&k, &[n], Some(&[64]));
            assert_same(&opts, &cl.queue.read(&counter), &[n as i32]);
            assert_permutation(&opts, &cl.queue.read(&owner));

            let k = p.kernel("countdown");
            let counter = cl.buffer_from(&[n as u32]);
            let owner = cl.buffer_from(&vec![-1i32; n]);
            k.arg(0, &counter).arg(1, &owner);
            cl.queue.run(&k, &[n], Some(&[32]));
            assert_same(&opts, &cl.queue.read(&counter), &[0u32]);
            assert_permutation(&opts, &cl.queue.read(&owner));

            // 64 bits: the counter crosses 2^32.
            let base = (1i64 << 32) - 1000;
            let p64 = match kernel64(&cl, TICKETS64_SOURCE, &opts, "tickets64") {
                Some(k) => k,
                None => continue,
            };
            let counter = cl.buffer_from(&[base]);
            let owner = cl.buffer_from(&vec![-1i32; n]);
            p64.arg(0, &counter).arg(1, &owner).arg(2, &base);
            cl.queue.run(&p64, &[n], Some(&[64]));
            assert_same(&opts, &cl.queue.read(&counter), &[base + n as i64]);
            assert_permutation(&opts, &cl.queue.read(&owner));
        }
    }
}

#[test]
fn local_fetch_add_tickets_per_work_group() {
    let cl = Cl::new();
    let (ls, groups) = (128usize, 8usize);
    for options in variants() {
        let k = kernel(&cl, COUNTER_SOURCE, &options, "local_tickets");
        let owner = cl.buffer_from(&vec![-1i32; ls * groups]);
        let count = cl.buffer_from(&vec![-1i32; groups]);
        k.arg(0, &owner).arg(1, &count);
        cl.queue.run(&k, &[ls * groups], Some(&[ls]));
        assert_same(&options, &cl.queue.read(&count), &vec![ls as i32; groups]);
        for (g, chunk) in cl.queue.read(&owner).chunks(ls).enumerate() {
            assert_permutation(&format!("{options} group {g}"), chunk);
        }
    }
}

const REDUCE_SOURCE: &str = r#"
#ifdef WIDE
typedef long T;
typedef ulong U;
typedef atomic_long AT;
typedef atomic_ulong AU;
#else
typedef int T;
typedef uint U;
typedef atomic_int AT;
typedef atomic_uint AU;
#endif
// r: [sum, sub, smin, smax, and, or, xor]; u: [umin, umax].
kernel void reduce(global const T *x, global AT *r, global AU *u) {
    T v = x[get_global_id(0)];
    atomic_fetch_add(&r[0], v);
    atomic_fetch_sub_explicit(&r[1], v, memory_order_acq_rel);
    atomic_fetch_min_explicit(&r[2], v, memory_order_relaxed, memory_scope_device);
    atomic_fetch_max_explicit(&r[3], v, memory_order_release);
    atomic_fetch_and_explicit(&r[4], v | (T)0x10, memory_order_acquire);
    atomic_fetch_or(&r[5], v & (T)0x3f0f);
    atomic_fetch_xor_explicit(&r[6], v, memory_order_seq_cst, memory_scope_device);
    atomic_fetch_min(&u[0], (U)v);
    atomic_fetch_max_explicit(&u[1], (U)v, memory_order_acq_rel, memory_scope_device);
}
// The same on __local objects, then copied out.
kernel void reduce_local(global const int *x, global int *r, global uint *u) {
    local atomic_int lr[7];
    local atomic_uint lu[2];
    int l = get_local_id(0);
    if (l == 0) {
        atomic_init(&lr[0], 0); atomic_init(&lr[1], 0);
        atomic_init(&lr[2], INT_MAX); atomic_init(&lr[3], INT_MIN);
        atomic_init(&lr[4], -1); atomic_init(&lr[5], 0); atomic_init(&lr[6], 0);
        atomic_init(&lu[0], UINT_MAX); atomic_init(&lu[1], 0u);
    }
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    int v = x[get_global_id(0)];
    atomic_fetch_add(&lr[0], v);
    atomic_fetch_sub_explicit(&lr[1], v, memory_order_acq_rel, memory_scope_work_group);
    atomic_fetch_min_explicit(&lr[2], v, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_max_explicit(&lr[3], v, memory_order_release);
    atomic_fetch_and_explicit(&lr[4], v | 0x10, memory_order_acquire);
    atomic_fetch_or(&lr[5], v & 0x3f0f);
    atomic_fetch_xor_explicit(&lr[6], v, memory_order_seq_cst, memory_scope_work_group);
    atomic_fetch_min(&lu[0], (uint)v);
    atomic_fetch_max_explicit(&lu[1], (uint)v, memory_order_acq_rel, memory_scope_work_group);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    int g = get_group_id(0);
    if (l < 7)
        r[g * 7 + l] = atomic_load_explicit(&lr[l], memory_order_relaxed, memory_scope_work_group);
    if (l < 2)
        u[g * 2 + l] = atomic_load_explicit(&lu[l], memory_order_acquire, memory_scope_work_group);
}
"#;

/// The CPU reference of `reduce`: (r, u) as i128 to serve both widths.
fn reduce_ref(x: &[i64], bits: u32) -> (Vec<i64>, Vec<u64>) {
    let wrap = |v: i128| -> i64 {
        if bits == 32 {
            v as i32 as i64
        } else {
            v as i64
        }
    };
    let umask: u64 = if bits == 32 {
        u32::MAX as u64
    } else {
        u64::MAX
    };
    let sum = x.iter().fold(0i128, |s, &v| s + v as i128);
    let r = vec![
        wrap(sum),
        wrap(-sum),
        *x.iter().min().unwrap(),
        *x.iter().max().unwrap(),
        x.iter().fold(-1i64, |s, &v| s & (v | 0x10)),
        x.iter().fold(0i64, |s, &v| s | (v & 0x3f0f)),
        x.iter().fold(0i64, |s, &v| s ^ v),
    ];
    let u = vec![
        x.iter().map(|&v| v as u64 & umask).min().unwrap(),
        x.iter().map(|&v| v as u64 & umask).max().unwrap(),
    ];
    (r, u)
}

fn reduce_inputs(n: usize, wide: bool) -> Vec<i64> {
    let mut rng = ferrocl_tests::mathref::Rng(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            let b = rng.bits();
            if wide {
                b as i64 >> 3
            } else {
                (b as i32 >> 3) as i64
            }
        })
        .collect()
}

#[test]
fn fetch_ops_reduce_like_the_cpu() {
    let cl = Cl::new();
    let n = 2048usize;
    for options in variants() {
        // 32 bits.
        let x = reduce_inputs(n, false);
        let (r_want, u_want) = reduce_ref(&x, 32);
        let k = kernel(&cl, REDUCE_SOURCE, &options, "reduce");
        let xb = cl.buffer_from(&x.iter().map(|&v| v as i32).collect::<Vec<_>>());
        let r = cl.buffer_from(&[0i32, 0, i32::MAX, i32::MIN, -1, 0, 0]);
        let u = cl.buffer_from(&[u32::MAX, 0]);
        k.arg(0, &xb).arg(1, &r).arg(2, &u);
        cl.queue.run(&k, &[n], Some(&[64]));
        let want: Vec<i32> = r_want.iter().map(|&v| v as i32).collect();
        assert_same(&options, &cl.queue.read(&r), &want);
        let want: Vec<u32> = u_want.iter().map(|&v| v as u32).collect();
        assert_same(&options, &cl.queue.read(&u), &want);

        // 64 bits.
        let wopts = format!("{options} -DWIDE");
        if let Some(k) = kernel64(&cl, REDUCE_SOURCE, &wopts, "reduce") {
            let x = reduce_inputs(n, true);
            let (r_want, u_want) = reduce_ref(&x, 64);
            let xb = cl.buffer_from(&x);
            let r = cl.buffer_from(&[0i64, 0, i64::MAX, i64::MIN, -1, 0, 0]);
            let u = cl.buffer_from(&[u64::MAX, 0]);
            k.arg(0, &xb).arg(1, &r).arg(2, &u);
            cl.queue.run(&k, &[n], Some(&[64]));
            assert_same(&wopts, &cl.queue.read(&r), &r_want);
            assert_same(&wopts, &cl.queue.read(&u), &u_want);
        }

        // __local, per work-group.
        let (ls, groups) = (64usize, 8usize);
        let x = reduce_inputs(ls * groups, false);
        let k = kernel(&cl, REDUCE_SOURCE, &options, "reduce_local");
        let xb = cl.buffer_from(&x.iter().map(|&v| v as i32).collect::<Vec<_>>());
        let r = cl.buffer_from(&vec![0i32; 7 * groups]);
        let u = cl.buffer_from(&vec![0u32; 2 * groups]);
        k.arg(0, &xb).arg(1, &r).arg(2, &u);
        cl.queue.run(&k, &[ls * groups], Some(&[ls]));
        let (mut r_all, mut u_all) = (Vec::new(), Vec::new());
        for chunk in x.chunks(ls) {
            let (r, u) = reduce_ref(chunk, 32);
            r_all.extend(r.iter().map(|&v| v as i32));
            u_all.extend(u.iter().map(|&v| v as u32));
        }
        assert_same(&format!("{options} local"), &cl.queue.read(&r), &r_all);
        assert_same(&format!("{options} local"), &cl.queue.read(&u), &u_all);
    }
}

// ---------------------------------------------------------------------
// Compare-exchange loops

const CAS_SOURCE: &str = r#"
#ifdef WIDE
typedef long T;
typedef atomic_long AT;
#else
typedef int T;
typedef atomic_int AT;
#endif
// Every retry loop below is capped at TRIES iterations (far more than any
// schedule needs) and reports giving up, so that a wrong lowering fails
// the host test instead of spinning forever (a kernel that never ends
// blocks the GPU for every other process).
#define TRIES 100000
// The maximum by a compare-exchange loop (weak, explicit orders); gave_up
// counts the work-items that gave up.
kernel void cas_max(global const T *x, global AT *m, global atomic_int *gave_up) {
    T v = x[get_global_id(0)];
    T cur = atomic_load_explicit(m, memory_order_relaxed);
    int t = 0;
    while (cur < v && !atomic_compare_exchange_weak_explicit(m, &cur, v,
                          memory_order_acq_rel, memory_order_relaxed))
        if (++t == TRIES) {
            atomic_fetch_add_explicit(gave_up, 1, memory_order_relaxed);
            break;
        }
}
// The same on a __local object, one maximum per work-group.
kernel void cas_max_local(global const int *x, global int *out, global atomic_int *gave_up) {
    local atomic_int m;
    if (get_local_id(0) == 0)
        atomic_init(&m, INT_MIN);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    int v = x[get_global_id(0)];
    int cur = atomic_load_explicit(&m, memory_order_relaxed, memory_scope_work_group);
    int t = 0;
    while (cur < v && !atomic_compare_exchange_strong_explicit(&m, &cur, v,
                          memory_order_acq_rel, memory_order_acquire, memory_scope_work_group))
        if (++t == TRIES) {
            atomic_fetch_add_explicit(gave_up, 1, memory_order_relaxed);
            break;
        }
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = atomic_load(&m);
}
// A lock-free (Treiber) stack of node indices: each work-item pushes its
// node (the node's `next` published by the release), then pops one
// (reading `next` after an acquire). Every node is pushed once, so `next`
// never changes after its push and a pop cannot suffer ABA; each
// work-item's push completes before its pop, so no pop finds the stack
// empty. popped[me]: the node popped, -3 when the push gave up, -4 when
// the pop gave up, -5 when the pop saw an empty stack or a node index out
// of range (stale `next`).
kernel void stack(global atomic_int *head, global int *next, global int *popped) {
    int me = get_global_id(0), n = get_global_size(0);
    int h = atomic_load_explicit(head, memory_order_relaxed);
    int t = 0;
    do {
        next[me] = h;
    } while (!atomic_compare_exchange_weak_explicit(head, &h, me,
                 memory_order_release, memory_order_relaxed) && ++t < TRIES);
    if (t == TRIES) {
        popped[me] = -3;
        return;
    }
    h = atomic_load_explicit(head, memory_order_acquire);
    for (t = 0; t < TRIES; t++) {
        if (h < 0 || h >= n) {
            popped[me] = -5;
            return;
        }
        if (atomic_compare_exchange_strong(head, &h, next[h]))
            break;
    }
    popped[me] = t == TRIES ? -4 : h;
}
// Push only: the host walks the list (next[me] stays -3 where the push
// gave up).
kernel void push(global atomic_int *head, global int *next) {
    int me = get_global_id(0);
    int h = atomic_load(head);
    int t = 0;
    do {
        next[me] = h;
    } while (!atomic_compare_exchange_strong_explicit(head, &h, me,
                 memory_order_seq_cst, memory_order_seq_cst, memory_scope_device) && ++t < TRIES);
    if (t == TRIES)
        next[me] = -3;
}
"#;

#[test]
fn compare_exchange_loop_maximum() {
    let cl = Cl::new();
    let n = 4096usize;
    for options in variants() {
        let x = reduce_inputs(n, false);
        let k = kernel(&cl, CAS_SOURCE, &options, "cas_max");
        let xb = cl.buffer_from(&x.iter().map(|&v| v as i32).collect::<Vec<_>>());
        let m = cl.buffer_from(&[i32::MIN]);
        let gave_up = cl.buffer_from(&[0i32]);
        k.arg(0, &xb).arg(1, &m).arg(2, &gave_up);
        cl.queue.run(&k, &[n], Some(&[64]));
        assert_same(
            &format!("{options} gave up"),
            &cl.queue.read(&gave_up),
            &[0],
        );
        let want = *x.iter().max().unwrap() as i32;
        assert_same(&options, &cl.queue.read(&m), &[want]);

        let wopts = format!("{options} -DWIDE");
        if let Some(k) = kernel64(&cl, CAS_SOURCE, &wopts, "cas_max") {
            let x = reduce_inputs(n, true);
            let xb = cl.buffer_from(&x);
            let m = cl.buffer_from(&[i64::MIN]);
            let gave_up = cl.buffer_from(&[0i32]);
            k.arg(0, &xb).arg(1, &m).arg(2, &gave_up);
            cl.queue.run(&k, &[n], Some(&[64]));
            assert_same(&format!("{wopts} gave up"), &cl.queue.read(&gave_up), &[0]);
            assert_same(&wopts, &cl.queue.read(&m), &[*x.iter().max().unwrap()]);
        }

        let (ls, groups) = (128usize, 8usize);
        let x = reduce_inputs(ls * groups, false);
        let k = kernel(&cl, CAS_SOURCE, &options, "cas_max_local");
        let xb = cl.buffer_from(&x.iter().map(|&v| v as i32).collect::<Vec<_>>());
        let out = cl.buffer_from(&vec![0i32; groups]);
        let gave_up = cl.buffer_from(&[0i32]);
        k.arg(0, &xb).arg(1, &out).arg(2, &gave_up);
        cl.queue.run(&k, &[ls * groups], Some(&[ls]));
        assert_same(
            &format!("{options} local gave up"),
            &cl.queue.read(&gave_up),
            &[0],
        );
        let want: Vec<i32> = x
            .chunks(ls)
            .map(|c| *c.iter().max().unwrap() as i32)
            .collect();
        assert_same(&format!("{options} local"), &cl.queue.read(&out), &want);
    }
}

#[test]
fn lock_free_stack_push_and_pop() {
    let cl = Cl::new();
    let n = 1024usize;
    for options in variants() {
        let p = cl
            .try_build(CAS_SOURCE, &options)
            .unwrap_or_else(|e| panic!("{options}: {e}"));
        // Push only: the list from head holds every node once.
        let k = p.kernel("push");
        let head = cl.buffer_from(&[-1i32]);
        let next = cl.buffer_from(&vec![-2i32; n]);
        k.arg(0, &head).arg(1, &next);
        cl.queue.run(&k, &[n], Some(&[64]));
        let next_v = cl.queue.read(&next);
        assert!(
            !next_v.contains(&-3),
            "{options} push: a push gave up after TRIES compare-exchanges"
        );
        let mut node = cl.queue.read(&head)[0];
        let mut visited = Vec::new();
        while node != -1 && visited.len() <= n {
            visited.push(node);
            node = next_v[node as usize];
        }
        assert_permutation(&format!("{options} push"), &visited);

        // Push then pop.
        let k = p.kernel("stack");
        let head = cl.buffer_from(&[-1i32]);
        let next = cl.buffer_from(&vec![-2i32; n]);
        let popped = cl.buffer_from(&vec![-1i32; n]);
        k.arg(0, &head).arg(1, &next).arg(2, &popped);
        cl.queue.run(&k, &[n], Some(&[64]));
        let popped_v = cl.queue.read(&popped);
        for (code, what) in [
            (-3, "a push gave up"),
            (-4, "a pop gave up"),
            (-5, "a pop read an empty stack or a stale next"),
        ] {
            let count = popped_v.iter().filter(|&&p| p == code).count();
            assert_eq!(count, 0, "{options} stack: {what} ({count} work-items)");
        }
        assert_same(
            &format!("{options} stack head"),
            &cl.queue.read(&head),
            &[-1],
        );
        assert_permutation(&format!("{options} popped"), &cl.queue.read(&popped));
    }
}

// ---------------------------------------------------------------------
// Flags, exchanges, fences

/// The double kernels (64-bit atomics: a program of their own).
const MISC64_SOURCE: &str = r#"
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
kernel void swap_double(global atomic_double *a, global const double *x, global double *old) {
    size_t i = get_global_id(0);
    old[i] = atomic_exchange_explicit(a, x[i], memory_order_acq_rel, memory_scope_device);
}
kernel void float_load_store(global atomic_float *f, global atomic_double *d) {
    float x = atomic_load_explicit(&f[0], memory_order_acquire);
    atomic_store_explicit(&f[1], x * 2.0f, memory_order_release);
    atomic_store(&f[2], atomic_load(&f[0]) + 0.5f);
    double y = atomic_load(&d[0]);
    atomic_store_explicit(&d[1], y * 3.0, memory_order_relaxed, memory_scope_device);
}
#endif
"#;

const MISC_SOURCE: &str = r#"
// One winner per flag among all work-items, and per work-group among its
// work-items (a __local flag).
kernel void elect(global atomic_flag *flags, global atomic_int *winners, global int *local_winner) {
    local atomic_flag lf;
    local atomic_int lw;
    int l = get_local_id(0), g = get_group_id(0);
    if (l == 0) {
        atomic_flag_clear_explicit(&lf, memory_order_relaxed, memory_scope_work_group);
        atomic_init(&lw, 0);
    }
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    int k = get_global_id(0) % 4;
    if (!atomic_flag_test_and_set_explicit(&flags[k], memory_order_acq_rel, memory_scope_device))
        atomic_fetch_add_explicit(&winners[k], 1, memory_order_relaxed, memory_scope_device);
    if (!atomic_flag_test_and_set_explicit(&lf, memory_order_acquire, memory_scope_work_group))
        atomic_fetch_add_explicit(&lw, 1, memory_order_relaxed, memory_scope_work_group);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        local_winner[g] = atomic_load_explicit(&lw, memory_order_relaxed, memory_scope_work_group);
        // Cleared flags can be won again.
        atomic_flag_clear(&lf);
        local_winner[g] += atomic_flag_test_and_set(&lf) ? 100 : 10;
    }
}
// Every work-item swaps its value into one object: the old values and the
// final one are the initial one and all the values.
kernel void swap_float(global atomic_float *a, global const float *x, global float *old) {
    size_t i = get_global_id(0);
    old[i] = atomic_exchange(a, x[i]);
}
"#;

#[test]
fn flags_elect_one_winner() {
    let cl = Cl::new();
    let (ls, groups) = (64usize, 8usize);
    for options in variants() {
        let k = kernel(&cl, MISC_SOURCE, &options, "elect");
        let flags = cl.buffer_from(&[0i32; 4]);
        let winners = cl.buffer_from(&[0i32; 4]);
        let local_winner = cl.buffer_from(&vec![-1i32; groups]);
        k.arg(0, &flags).arg(1, &winners).arg(2, &local_winner);
        cl.queue.run(&k, &[ls * groups], Some(&[ls]));
        assert_same(&options, &cl.queue.read(&winners), &[1; 4]);
        assert_same(
            &options,
            &cl.queue
                .read(&flags)
                .iter()
                .map(|&f| f != 0)
                .collect::<Vec<_>>(),
            &[true; 4],
        );
        assert_same(&options, &cl.queue.read(&local_winner), &vec![11; groups]);
    }
}

fn assert_exchanges<T: Copy + PartialOrd + std::fmt::Debug>(
    what: &str,
    init: T,
    x: &[T],
    old: &[T],
    last: T,
) {
    let mut before: Vec<T> = std::iter::once(init).chain(x.iter().copied()).collect();
    let mut after: Vec<T> = old.iter().copied().chain(std::iter::once(last)).collect();
    let cmp = |a: &T, b: &T| a.partial_cmp(b).unwrap();
    before.sort_by(cmp);
    after.sort_by(cmp);
    assert_same(what, &after, &before);
}

#[test]
fn float_and_double_exchange_load_store() {
    let cl = Cl::new();
    let n = 2048usize;
    let has_fp64 =
        device_value::<cl_device_fp_config>(cl.device(), CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
    for options in variants() {
        let p = cl
            .try_build(MISC_SOURCE, &options)
            .unwrap_or_else(|e| panic!("{options}: {e}"));
        let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 + 1.0).collect();
        let k = p.kernel("swap_float");
        let a = cl.buffer_from(&[-5.5f32]);
        let xb = cl.buffer_from(&x);
        let old = cl.buffer_from(&vec![0f32; n]);
        k.arg(0, &a).arg(1, &xb).arg(2, &old);
        cl.queue.run(&k, &[n], Some(&[64]));
        let last = cl.queue.read(&a)[0];
        assert_exchanges(&options, -5.5f32, &x, &cl.queue.read(&old), last);

        if has_fp64 {
            let x: Vec<f64> = (0..n).map(|i| i as f64 * 1e10 + 0.125).collect();
            if let Some(k) = kernel64(&cl, MISC64_SOURCE, &options, "swap_double") {
                let a = cl.buffer_from(&[-1e300f64]);
                let xb = cl.buffer_from(&x);
                let old = cl.buffer_from(&vec![0f64; n]);
                k.arg(0, &a).arg(1, &xb).arg(2, &old);
                cl.queue.run(&k, &[n], Some(&[64]));
                let last = cl.queue.read(&a)[0];
                assert_exchanges(&options, -1e300, &x, &cl.queue.read(&old), last);
            }
            if let Some(k) = kernel64(&cl, MISC64_SOURCE, &options, "float_load_store") {
                let f = cl.buffer_from(&[1.25f32, 0.0, 0.0]);
                let d = cl.buffer_from(&[2.5e200f64, 0.0]);
                k.arg(0, &f).arg(1, &d);
                cl.queue.run(&k, &[1], None);
                assert_same(&options, &cl.queue.read(&f), &[1.25, 2.5, 1.75]);
                assert_same(&options, &cl.queue.read(&d), &[2.5e200, 7.5e200]);
            }
        }
    }
}

#[test]
fn local_pointer_arguments_hold_atomics() {
    // An atomic counter in a __local pointer argument (sized by the host),
    // shared by work_group_barrier-separated phases.
    let src = r#"
    kernel void k(local atomic_uint *c, global uint *out) {
        uint l = get_local_id(0);
        if (l < 2)
            atomic_init(&c[l], 0u);
        work_group_barrier(CLK_LOCAL_MEM_FENCE);
        atomic_fetch_add_explicit(&c[0], l, memory_order_relaxed, memory_scope_work_group);
        atomic_fetch_or_explicit(&c[1], 1u << (l % 32), memory_order_release, memory_scope_work_group);
        work_group_barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0) {
            out[get_group_id(0) * 2] = atomic_load(&c[0]);
            out[get_group_id(0) * 2 + 1] = atomic_load_explicit(&c[1], memory_order_acquire, memory_scope_work_group);
        }
    }"#;
    let cl = Cl::new();
    let (ls, groups) = (48usize, 3usize);
    for options in variants() {
        let k = kernel(&cl, src, &options, "k");
        let out = cl.buffer_from(&vec![0u32; groups * 2]);
        k.arg(0, &Local(8)).arg(1, &out);
        cl.queue.run(&k, &[ls * groups], Some(&[ls]));
        let sum = (0..ls as u32).sum::<u32>();
        let want: Vec<u32> = (0..groups).flat_map(|_| [sum, u32::MAX]).collect();
        assert_same(&options, &cl.queue.read(&out), &want);
    }
}
