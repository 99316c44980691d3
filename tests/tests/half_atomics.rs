//! cl_ext_float_atomics on `atomic_half` (cl_khr_fp16 devices):
//! atomic_fetch_add/sub/min/max[_explicit] and atomic_load/store/exchange
//! in `__global` and `__local` memory (and through generic pointers).
//!
//! The objects are neighbouring halves, so two halves of one 32-bit word
//! are updated at once by different work-items: an update that loses its
//! neighbour's shows in the totals. Sums add multiples of 0.25 whose
//! partial sums stay below 512 (exact in half), so they do not depend on
//! the order; every returned old value must be a distinct partial sum.
//! Single adds of random halves must be rounded once (to nearest even),
//! min/max follow fmin/fmax (a NaN operand gives the other value) with -0
//! below +0, compared bit for bit with the CPU's. The queries, the
//! extension and the feature macros must agree
//! (float_atomics::queries_match_macros checks the macros).

use ferrocl_tests::sys::*;
use ferrocl_tests::{device_string, device_value, half_to_f64, testing_pocl, Cl, Local};

const CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4233;
/// Global and local load/store, add and min/max.
const ALL_CAPS: u64 = 0x7 | 0x7 << 16;

const SOURCE: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// acc[0..4]: adds, acc[4..8]: subs of the negated value, acc[8..10]:
// min, max; all neighbours in pairs of one word.
kernel void global_rmw(global atomic_half* acc, global const ushort* v,
                       global const ushort* w, global ushort* olds) {
    size_t i = get_global_id(0);
    half x = as_half(v[i]), y = as_half(w[i]);
    half o0 = atomic_fetch_add(&acc[i % 4], x);
    half o1 = atomic_fetch_sub_explicit(&acc[4 + i % 4], -x, memory_order_relaxed);
    half o2 = atomic_fetch_min_explicit(&acc[8], y, memory_order_acq_rel, memory_scope_device);
    half o3 = atomic_fetch_max(&acc[9], y);
    olds[i * 4] = as_ushort(o0);
    olds[i * 4 + 1] = as_ushort(o1);
    olds[i * 4 + 2] = as_ushort(o2);
    olds[i * 4 + 3] = as_ushort(o3);
}

// One add of b[i] to a[i], and one min and one max, per work-item, each
// on its own half (neighbours in one word); the old values must be a[i].
kernel void single(global atomic_half* a, global atomic_half* lo,
                   global atomic_half* hi, global const ushort* b,
                   global ushort* olds) {
    size_t i = get_global_id(0);
    half x = as_half(b[i]);
    olds[3 * i] = as_ushort(atomic_fetch_add_explicit(&a[i], x, memory_order_relaxed,
                                                      memory_scope_work_group));
    olds[3 * i + 1] = as_ushort(atomic_fetch_min(&lo[i], x));
    olds[3 * i + 2] = as_ushort(atomic_fetch_max_explicit(&hi[i], x, memory_order_release));
}

// __local: s[0..2] sums (add, then sub of the negated value), s[2] min,
// s[3] max; stored, read back with atomic_load.
kernel void local_rmw(global const ushort* v, global const ushort* w,
                      global ushort* out, local atomic_half* s) {
    size_t l = get_local_id(0);
    if (l < 4)
        atomic_store_explicit(&s[l], l < 2 ? (half)0 : l == 2 ? (half)INFINITY : (half)-INFINITY,
                              memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t i = get_global_id(0);
    half x = as_half(v[i]), y = as_half(w[i]);
    atomic_fetch_add(&s[l % 2], x);
    atomic_fetch_sub_explicit(&s[l % 2], -x, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_min_explicit(&s[2], y, memory_order_relaxed);
    atomic_fetch_max(&s[3], y);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4)
        out[get_group_id(0) * 4 + l] = as_ushort(atomic_load(&s[l]));
}

// Each work-item stores x[i] into its own half of h (neighbours in one
// word), exchanges x[i] into e[i] (old value to olds[i]) and into the
// one slot e1 (olds[n + i]), through global and local memory; the local
// halves are read back with atomic_load_explicit.
kernel void load_store(global atomic_half* h, global atomic_half* e,
                       global atomic_half* e1, global const ushort* x,
                       global ushort* olds, global ushort* loaded,
                       local atomic_half* s) {
    size_t i = get_global_id(0), l = get_local_id(0), n = get_global_size(0);
    half v = as_half(x[i]);
    atomic_store(&h[i], v);
    olds[i] = as_ushort(atomic_exchange(&e[i], v));
    olds[n + i] = as_ushort(atomic_exchange_explicit(e1, v, memory_order_acq_rel));
    atomic_store_explicit(&s[l], v, memory_order_release);
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t k = get_local_size(0) - 1 - l;
    loaded[i] = as_ushort(atomic_load_explicit(&s[k], memory_order_acquire));
}

// Generic pointers: sums into global or local halves by the same function.
void add_to(atomic_half* p, half x) { atomic_fetch_add(p, x); }
kernel void generic_rmw(global atomic_half* g, global const ushort* v,
                        global ushort* out, local atomic_half* s) {
    size_t l = get_local_id(0);
    if (l < 2)
        atomic_store(&s[l], (half)0);
    barrier(CLK_LOCAL_MEM_FENCE);
    half x = as_half(v[get_global_id(0)]);
    add_to(&g[l % 2], x);
    add_to(&s[l % 2], x);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 2)
        out[get_group_id(0) * 2 + l] = as_ushort(atomic_load(&s[l]));
}
"#;

/// `x` (not NaN) rounded to half to nearest even: the bits.
fn half_rne(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        // Denormals (and rounding up to the smallest normal, 0x400).
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    let mut e = 0i32;
    while a >= 2f64.powi(e + 1) {
        e += 1;
    }
    while a < 2f64.powi(e) {
        e -= 1;
    }
    let mut m = (a / 2f64.powi(e - 10)).round_ties_even() as u32;
    if m == 2048 {
        m = 1024;
        e += 1;
    }
    sign | ((e + 15) as u16) << 10 | (m - 1024) as u16
}

fn is_nan(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

/// fmin/fmax of halves as the atomics define them: a NaN operand gives
/// the other value, -0 is below +0.
fn half_min_max(a: u16, b: u16, max: bool) -> u16 {
    if is_nan(a) {
        return b;
    }
    if is_nan(b) {
        return a;
    }
    let (x, y) = (half_to_f64(a), half_to_f64(b));
    if x == y {
        return if max { a & b } else { a | b };
    }
    if (x < y) != max {
        a
    } else {
        b
    }
}

fn pseudo_random(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
        .collect()
}

/// The device reports half atomics (every capability on ferrocl with
/// cl_khr_fp16), else None.
fn half_atomics() -> Option<Cl> {
    let cl = Cl::new();
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let has = |e: &str| ext.split_whitespace().any(|x| x == e);
    if !testing_pocl() && has("cl_khr_fp16") {
        assert!(has("cl_ext_float_atomics"), "ferrocl: half atomics");
    }
    if !has("cl_ext_float_atomics") {
        return None;
    }
    let caps: u64 = device_value(cl.device(), CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT);
    if !testing_pocl() && has("cl_khr_fp16") {
        assert_eq!(caps, ALL_CAPS, "ferrocl: every half atomic");
    }
    if !has("cl_khr_fp16") {
        assert_eq!(caps, 0, "half atomics without cl_khr_fp16");
    }
    (caps == ALL_CAPS).then_some(cl)
}

/// Positive multiples of 0.25 up to 1: 256 of them sum to at most 256.
fn addends(n: usize) -> Vec<u16> {
    (0..n)
        .map(|i| half_rne(((i / 4) % 4 + 1) as f64 * 0.25))
        .collect()
}

/// Values in (-1000, 1000), with NaNs, +0 and -0 among them.
fn min_max_inputs(n: usize) -> Vec<u16> {
    pseudo_random(n, 0x1A1F)
        .into_iter()
        .enumerate()
        .map(|(i, r)| match i % 41 {
            3 => 0x7e00 | (r as u16 & 0x1ff), // NaN
            7 => 0xfe01,                      // negative NaN
            11 => 0x8000,
            13 => 0x0000,
            _ => half_rne((r % 2_000_000) as f64 / 1000.0 - 1000.0),
        })
        .collect()
}

fn build(cl: &Cl, options: &str) -> ferrocl_tests::Program {
    cl.context
        .try_build(SOURCE, &format!("-cl-std=CL3.0 {options}"))
        .unwrap_or_else(|e| panic!("{options}: {e}"))
}

fn fold_min_max(init: u16, w: &[u16], max: bool) -> u16 {
    w.iter().fold(init, |acc, &x| half_min_max(acc, x, max))
}

fn check_global_rmw(cl: &Cl, p: &ferrocl_tests::Program, what: &str) {
    let n = 1024;
    let v = addends(n);
    let w = min_max_inputs(n);
    let init: Vec<u16> = [0.0, 0.5, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5]
        .iter()
        .map(|&x| half_rne(x))
        .chain([0x7e00, 0xfc00]) // min from NaN, max from -inf
        .collect();
    let acc = cl.buffer_from(&init);
    let (vb, wb) = (cl.buffer_from(&v), cl.buffer_from(&w));
    let olds = cl.buffer_from(&vec![0u16; n * 4]);
    let k = p.kernel("global_rmw");
    k.arg(0, &acc).arg(1, &vb).arg(2, &wb).arg(3, &olds);
    cl.queue.run(&k, &[n], Some(&[64]));
    let got = cl.queue.read(&acc);
    let sum = |c: usize| -> f64 {
        let s: f64 = (c..n).step_by(4).map(|i| half_to_f64(v[i])).sum();
        s + half_to_f64(init[c])
    };
    let want: Vec<u16> = (0..8)
        .map(|c| half_rne(sum(c % 4)))
        .chain([
            fold_min_max(0x7e00, &w, false),
            fold_min_max(0xfc00, &w, true),
        ])
        .collect();
    assert_eq!(got, want, "{what}: __global add, sub, min, max (bits)");
    // The old values of each sum are its distinct partial sums.
    let olds = cl.queue.read(&olds);
    for c in 0..8 {
        let mut seen: Vec<u16> = (c % 4..n).step_by(4).map(|i| olds[i * 4 + c / 4]).collect();
        let count = seen.len();
        seen.sort_by(|a, b| half_to_f64(*a).total_cmp(&half_to_f64(*b)));
        seen.dedup();
        assert_eq!(seen.len(), count, "{what}: repeated old values of sum {c}");
        assert_eq!(seen[0], init[c], "{what}: first old value of sum {c}");
        assert!(half_to_f64(*seen.last().unwrap()) < half_to_f64(want[c]));
    }
}

fn check_single(cl: &Cl, p: &ferrocl_tests::Program, what: &str) {
    // Random finite halves of every exponent, so that sums are inexact
    // and exponents differ widely (a rounding through float that is not
    // single shows); ties and overflow come with them.
    let n = 4096;
    let r = pseudo_random(2 * n, 0x5EED);
    let finite = |x: u64| {
        let h = x as u16;
        if h & 0x7c00 == 0x7c00 {
            h & 0xbfff
        } else {
            h
        }
    };
    let mut a: Vec<u16> = r[..n].iter().map(|&x| finite(x)).collect();
    let mut b: Vec<u16> = r[n..].iter().map(|&x| finite(x >> 17)).collect();
    // Ties: a large even value plus half its ulp, and exact cancellations.
    a[0..4].copy_from_slice(&[0x6400, 0x6401, 0x3c00, 0x8000]);
    b[0..4].copy_from_slice(&[0x3800, 0x3800, 0xbc00, 0x8000]);
    // Infinities and NaN.
    a[4..7].copy_from_slice(&[0x7c00, 0x7c00, 0x7e00]);
    b[4..7].copy_from_slice(&[0xfc00, 0x3c00, 0x3c00]);
    let (ab, lo, hi) = (cl.buffer_from(&a), cl.buffer_from(&a), cl.buffer_from(&a));
    let bb = cl.buffer_from(&b);
    let olds = cl.buffer_from(&vec![0u16; 3 * n]);
    let k = p.kernel("single");
    k.arg(0, &ab)
        .arg(1, &lo)
        .arg(2, &hi)
        .arg(3, &bb)
        .arg(4, &olds);
    cl.queue.run(&k, &[n], None);
    let (sums, mins, maxs) = (cl.queue.read(&ab), cl.queue.read(&lo), cl.queue.read(&hi));
    let olds = cl.queue.read(&olds);
    for i in 0..n {
        let s = half_to_f64(a[i]) + half_to_f64(b[i]);
        let (x, y) = (a[i], b[i]);
        if s.is_nan() {
            assert!(
                is_nan(sums[i]),
                "{what}: {x:#06x} + {y:#06x} gave {:#06x}",
                sums[i]
            );
        } else {
            // f64 sums of halves are exact, with IEEE's signed zeros.
            assert_eq!(sums[i], half_rne(s), "{what}: {x:#06x} + {y:#06x}");
        }
        assert_eq!(
            mins[i],
            half_min_max(x, y, false),
            "{what}: min {x:#06x} {y:#06x}"
        );
        assert_eq!(
            maxs[i],
            half_min_max(x, y, true),
            "{what}: max {x:#06x} {y:#06x}"
        );
        assert_eq!(
            &olds[3 * i..3 * i + 3],
            &[x, x, x],
            "{what}: old values {i}"
        );
    }
}

fn check_local_rmw(cl: &Cl, p: &ferrocl_tests::Program, what: &str) {
    let m: usize = 1000;
    let wg: usize = 128;
    let groups = m.div_ceil(wg);
    let v = addends(m);
    let w = min_max_inputs(m);
    let (vb, wb) = (cl.buffer_from(&v), cl.buffer_from(&w));
    let out = cl.buffer_from(&vec![0xffffu16; groups * 4]);
    let k = p.kernel("local_rmw");
    k.arg(0, &vb).arg(1, &wb).arg(2, &out).arg(3, &Local(8));
    cl.queue.run(&k, &[m], Some(&[wg]));
    let got = cl.queue.read(&out);
    for g in 0..groups {
        let r = g * wg..(g * wg + wg).min(m);
        let sum = |par: usize| -> u16 {
            half_rne(
                r.clone()
                    .filter(|i| (i - g * wg) % 2 == par)
                    .map(|i| 2.0 * half_to_f64(v[i]))
                    .sum(),
            )
        };
        let want = [
            sum(0),
            sum(1),
            fold_min_max(0x7c00, &w[r.clone()], false),
            fold_min_max(0xfc00, &w[r.clone()], true),
        ];
        assert_eq!(
            &got[g * 4..g * 4 + 4],
            &want,
            "{what}: __local work-group {g}"
        );
    }
}

fn check_load_store(cl: &Cl, p: &ferrocl_tests::Program, what: &str) {
    let n = 512;
    let wg = 64;
    let x: Vec<u16> = (0..n).map(|i| half_rne(i as f64 * 0.5 - 100.0)).collect();
    let y: Vec<u16> = (0..n).map(|i| half_rne(-(i as f64))).collect();
    let h = cl.buffer_from(&vec![0x7e00u16; n]);
    let e = cl.buffer_from(&y);
    let e1 = cl.buffer_from(&[0x4321u16, 0x1234]);
    let xb = cl.buffer_from(&x);
    let olds = cl.buffer_from(&vec![0u16; 2 * n]);
    let loaded = cl.buffer_from(&vec![0u16; n]);
    let k = p.kernel("load_store");
    k.arg(0, &h)
        .arg(1, &e)
        .arg(2, &e1)
        .arg(3, &xb)
        .arg(4, &olds)
        .arg(5, &loaded)
        .arg(6, &Local(2 * wg));
    cl.queue.run(&k, &[n], Some(&[wg]));
    assert_eq!(cl.queue.read(&h), x, "{what}: atomic_store of neighbours");
    assert_eq!(cl.queue.read(&e), x, "{what}: atomic_exchange results");
    let olds = cl.queue.read(&olds);
    assert_eq!(&olds[..n], &y[..], "{what}: atomic_exchange old values");
    // One slot: the old values and the final one are the initial value
    // and every x, each once; its neighbour is untouched.
    let e1 = cl.queue.read(&e1);
    assert_eq!(e1[1], 0x1234, "{what}: neighbour of the exchanged half");
    let mut chain: Vec<u16> = olds[n..].to_vec();
    chain.push(e1[0]);
    chain.sort();
    let mut want = x.clone();
    want.push(0x4321);
    want.sort();
    assert_eq!(chain, want, "{what}: exchanges into one half");
    let loaded = cl.queue.read(&loaded);
    for (i, &got) in loaded.iter().enumerate() {
        let k = (i / wg) * wg + wg - 1 - i % wg;
        assert_eq!(got, x[k], "{what}: __local load {i}");
    }
}

fn check_generic(cl: &Cl, p: &ferrocl_tests::Program, what: &str) {
    let m = 512;
    let wg = 64;
    let v = addends(m);
    let vb = cl.buffer_from(&v);
    let g = cl.buffer_from(&[0u16, 0u16]);
    let out = cl.buffer_from(&vec![0u16; m / wg * 2]);
    let k = p.kernel("generic_rmw");
    k.arg(0, &g).arg(1, &vb).arg(2, &out).arg(3, &Local(4));
    cl.queue.run(&k, &[m], Some(&[wg]));
    let sum = |r: std::ops::Range<usize>, par: usize| -> u16 {
        half_rne(r.filter(|i| i % 2 == par).map(|i| half_to_f64(v[i])).sum())
    };
    assert_eq!(
        cl.queue.read(&g),
        [sum(0..m, 0), sum(0..m, 1)],
        "{what}: generic __global adds"
    );
    let out = cl.queue.read(&out);
    for grp in 0..m / wg {
        let r = grp * wg..grp * wg + wg;
        let want = [sum(r.clone(), 0), sum(r, 1)];
        assert_eq!(
            &out[grp * 2..grp * 2 + 2],
            &want,
            "{what}: generic __local adds {grp}"
        );
    }
}

/// Each check with the default addressing, without optimization (the
/// program's functions are then not inlined by clang) and (ferrocl) with
/// descriptor addressing.
fn each_addressing(check: fn(&Cl, &ferrocl_tests::Program, &str)) {
    let Some(cl) = half_atomics() else {
        eprintln!("no half atomics: skipped");
        return;
    };
    check(&cl, &build(&cl, ""), "default addressing");
    check(&cl, &build(&cl, "-cl-opt-disable"), "-cl-opt-disable");
    if !testing_pocl() {
        let opts = "-ferrocl-addressing=descriptor";
        check(&cl, &build(&cl, opts), "descriptor addressing");
    }
}

#[test]
fn global_add_sub_min_max() {
    each_addressing(check_global_rmw);
}

#[test]
fn single_adds_round_once() {
    each_addressing(check_single);
}

#[test]
fn local_add_sub_min_max() {
    each_addressing(check_local_rmw);
}

#[test]
fn load_store_exchange() {
    each_addressing(check_load_store);
}

#[test]
fn generic_pointers() {
    each_addressing(check_generic);
}
