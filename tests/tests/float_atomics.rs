//! cl_ext_float_atomics: atomic_fetch_add/sub/min/max on atomic_float and
//! atomic_double in `__global` and `__local` memory.
//!
//! Many work-items update a few objects at once. Sums add multiples of
//! 0.25 small enough that every partial sum is exact, so the result does
//! not depend on the order; min/max of pseudo-random values (and NaNs,
//! which fmin/fmax semantics ignore) are compared with the CPU's. Every
//! returned old value must be one the object held: for adds of positive
//! values, below the final sum. Each check runs with physical and (on
//! ferrocl) descriptor addressing, and with the native Vulkan float atomics
//! and the compare-exchange loops (`FERROCL_NATIVE_FLOAT_ATOMICS=0`).
//! The queries, extension string and feature macros must agree.

use ferrocl_tests::sys::*;
use ferrocl_tests::{device_string, device_value, testing_pocl, Cl, Local, Pod};

const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4231;
const CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4232;
const CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4233;
/// Global and local load/store, add and min/max.
const ALL_CAPS: u64 = 0x7 | 0x7 << 16;

const SOURCE: &str = r#"
#ifdef IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
// Objects 0..3: sums (add, then sub of the negated value), 4: min, 5: max.
kernel void global_ops(global atomic_T* acc, global const T* v, global const T* w,
                       global T* olds) {
    size_t i = get_global_id(0);
    T o0 = atomic_fetch_add(&acc[i % 2], v[i]);
    T o1 = atomic_fetch_sub_explicit(&acc[2 + i % 2], -v[i], memory_order_relaxed);
    T o2 = atomic_fetch_min_explicit(&acc[4], w[i], memory_order_relaxed, memory_scope_device);
    T o3 = atomic_fetch_max(&acc[5], w[i]);
    olds[i * 4] = o0;
    olds[i * 4 + 1] = o1;
    olds[i * 4 + 2] = o2;
    olds[i * 4 + 3] = o3;
}

kernel void local_ops(global const T* v, global const T* w, global T* out,
                      local atomic_T* s) {
    size_t l = get_local_id(0);
    if (l == 0) {
        atomic_store_explicit(&s[0], (T)0, memory_order_relaxed);
        atomic_store_explicit(&s[1], (T)INFINITY, memory_order_relaxed);
        atomic_store_explicit(&s[2], (T)-INFINITY, memory_order_relaxed);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t i = get_global_id(0);
    atomic_fetch_add(&s[0], v[i]);
    atomic_fetch_sub(&s[0], -v[i]);
    atomic_fetch_min(&s[1], w[i]);
    atomic_fetch_max_explicit(&s[2], w[i], memory_order_relaxed);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        size_t g = get_group_id(0);
        out[g * 3] = atomic_load_explicit(&s[0], memory_order_relaxed);
        out[g * 3 + 1] = atomic_load_explicit(&s[1], memory_order_relaxed);
        out[g * 3 + 2] = atomic_load_explicit(&s[2], memory_order_relaxed);
    }
}
"#;

trait Float: Pod + PartialOrd + std::fmt::Debug {
    const NAME: &'static str;
    const CAPS: cl_device_info;
    fn of(x: f64) -> Self;
    fn get(self) -> f64;
}

impl Float for f32 {
    const NAME: &'static str = "float";
    const CAPS: cl_device_info = CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn get(self) -> f64 {
        self as f64
    }
}

impl Float for f64 {
    const NAME: &'static str = "double";
    const CAPS: cl_device_info = CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT;
    fn of(x: f64) -> Self {
        x
    }
    fn get(self) -> f64 {
        self
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

fn supported<T: Float>(cl: &Cl) -> bool {
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let caps: u64 = device_value(cl.device(), T::CAPS);
    ext.split_whitespace().any(|e| e == "cl_ext_float_atomics") && caps == ALL_CAPS
}

/// Inputs: `v` positive multiples of 0.25 (exact sums), `w` values in
/// (-1000, 1000) with a NaN every 37th.
fn inputs<T: Float>(n: usize, nan: bool) -> (Vec<T>, Vec<T>) {
    let v = (0..n).map(|i| T::of((i % 17 + 1) as f64 * 0.25)).collect();
    let w = pseudo_random(n, 0xF10A7)
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            if nan && i % 37 == 5 {
                T::of(f64::NAN)
            } else {
                T::of((r % 2_000_000) as f64 / 1000.0 - 1000.0)
            }
        })
        .collect();
    (v, w)
}

/// The -D options that instantiate `SOURCE` for `T`.
fn type_defines<T: Float>() -> Vec<String> {
    let mut d = vec![
        format!("-DT={}", T::NAME),
        format!("-Datomic_T=atomic_{}", T::NAME),
    ];
    if T::NAME == "double" {
        d.push("-DIS_DOUBLE".into());
    }
    d
}

fn check<T: Float>(cl: &Cl, options: &str, what: &str) {
    let opts = format!("-cl-std=CL3.0 {} {options}", type_defines::<T>().join(" "));
    let program = cl
        .context
        .try_build(SOURCE, &opts)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    check_program::<T>(cl, &program, what);
}

/// `SOURCE` for `T` as SPIR-V from clang-15 and llvm-spirv-15 with
/// SPV_EXT_shader_atomic_float_add and _min_max (OpAtomicFAddEXT,
/// OpAtomicFMinEXT, OpAtomicFMaxEXT), given to clCreateProgramWithIL: the
/// device reports both extensions and their capabilities
/// (CL_DEVICE_SPIRV_EXTENSIONS_KHR, CTS api spirv_query_requirements) and
/// must take such modules.
fn check_il<T: Float>(cl: &Cl) {
    let width = if T::NAME == "double" { "fp64" } else { "fp32" };
    let mut clang: Vec<String> = vec!["-cl-std=CL3.0".into()];
    clang.extend(type_defines::<T>());
    for f in [
        "global_atomic_add",
        "global_atomic_min_max",
        "local_atomic_add",
        "local_atomic_min_max",
    ] {
        clang.push(format!("-D__opencl_c_ext_{width}_{f}=1"));
    }
    let clang: Vec<&str> = clang.iter().map(String::as_str).collect();
    let il = ferrocl_tests::spirv_of_tools(
        SOURCE,
        &clang,
        &["--spirv-ext=+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max"],
    );
    let program = cl
        .context
        .try_build_spirv(&il, "")
        .unwrap_or_else(|e| panic!("IL: {e}"));
    check_program::<T>(cl, &program, "IL");
}

fn check_program<T: Float>(cl: &Cl, program: &ferrocl_tests::Program, what: &str) {
    let n = 4096;
    let (v, w) = inputs::<T>(n, true);
    let finite: Vec<f64> = w.iter().map(|x| x.get()).filter(|x| !x.is_nan()).collect();
    let wmin = finite.iter().cloned().fold(f64::INFINITY, f64::min);
    let wmax = finite.iter().cloned().fold(f64::NEG_INFINITY, f64::max);

    // __global
    let k = program.kernel("global_ops");
    let init: Vec<T> = [0.0, 0.5, 0.0, 0.5, f64::INFINITY, f64::NEG_INFINITY]
        .iter()
        .map(|&x| T::of(x))
        .collect();
    let acc = cl.buffer_from(&init);
    let vb = cl.buffer_from(&v);
    let wb = cl.buffer_from(&w);
    let olds = cl.buffer_from(&vec![T::of(0.0); n * 4]);
    k.arg(0, &acc).arg(1, &vb).arg(2, &wb).arg(3, &olds);
    cl.queue.run(&k, &[n], Some(&[64]));
    let got: Vec<f64> = cl.queue.read(&acc).iter().map(|x| x.get()).collect();
    let sum = |parity: usize| -> f64 {
        v.iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == parity)
            .map(|(_, x)| x.get())
            .sum()
    };
    let want = [sum(0), 0.5 + sum(1), sum(0), 0.5 + sum(1), wmin, wmax];
    assert_eq!(got, want, "{what}: {} __global add, sub, min, max", T::NAME);
    let olds: Vec<f64> = cl.queue.read(&olds).iter().map(|x| x.get()).collect();
    for (i, o) in olds.chunks(4).enumerate() {
        let (a, s) = (want[i % 2], want[2 + i % 2]);
        assert!(
            o[0] < a && o[0] >= init[i % 2].get(),
            "{what}: old value {} of add {i}",
            o[0]
        );
        assert!(o[1] < s, "{what}: old value {} of sub {i}", o[1]);
        assert!(o[2] >= wmin, "{what}: old value {} of min {i}", o[2]);
        assert!(o[3] <= wmax, "{what}: old value {} of max {i}", o[3]);
    }

    // __local, in work-groups of 128 (and a partial last one).
    let k = program.kernel("local_ops");
    let m: usize = 1000;
    let groups = m.div_ceil(128);
    let out = cl.buffer_from(&vec![T::of(-1.0); groups * 3]);
    k.arg(0, &vb)
        .arg(1, &wb)
        .arg(2, &out)
        .arg(3, &Local(3 * size_of::<T>()));
    cl.queue.run(&k, &[m], Some(&[128]));
    let got: Vec<f64> = cl.queue.read(&out).iter().map(|x| x.get()).collect();
    for g in 0..groups {
        let r = g * 128..(g * 128 + 128).min(m);
        let s: f64 = v[r.clone()].iter().map(|x| 2.0 * x.get()).sum();
        let fin: Vec<f64> = w[r]
            .iter()
            .map(|x| x.get())
            .filter(|x| !x.is_nan())
            .collect();
        let lo = fin.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = fin.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(
            &got[g * 3..g * 3 + 3],
            &[s, lo, hi],
            "{what}: {} __local add+sub, min, max of work-group {g}",
            T::NAME
        );
    }
}

fn check_all<T: Float>() {
    let cl = Cl::new();
    if !supported::<T>(&cl) {
        return;
    }
    check::<T>(&cl, "", "default addressing");
    // PoCL 3.1 reports no SPIR-V extensions for float atomics.
    if !testing_pocl() {
        check_il::<T>(&cl);
    }
    if !testing_pocl() {
        check::<T>(
            &cl,
            "-ferrocl-addressing=descriptor",
            "descriptor addressing",
        );
    }
}

#[test]
fn float_atomics() {
    check_all::<f32>();
}

#[test]
fn double_atomics() {
    check_all::<f64>();
}

/// The compare-exchange loops where the device has native float atomics
/// (ferrocl only): the same checks, in this binary run again with
/// `FERROCL_NATIVE_FLOAT_ATOMICS=0` (setting the variable here would race
/// with the tests running beside this one, and with getenv in C code).
#[test]
fn compare_exchange_loops() {
    if testing_pocl() || std::env::var_os("FERROCL_NATIVE_FLOAT_ATOMICS").is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("current_exe");
    let out = std::process::Command::new(exe)
        .env("FERROCL_NATIVE_FLOAT_ATOMICS", "0")
        .args(["--exact", "float_atomics", "double_atomics"])
        .output()
        .expect("rerun the test binary");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "with FERROCL_NATIVE_FLOAT_ATOMICS=0:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("2 passed"), "{text}");
}

/// The extension, the capability queries and the feature macros agree.
#[test]
fn queries_match_macros() {
    let cl = Cl::new();
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    if !ext.split_whitespace().any(|e| e == "cl_ext_float_atomics") {
        return;
    }
    let src = r#"
kernel void k(global int* o) {
    int m = 0;
#ifdef __opencl_c_ext_fp32_global_atomic_add
    m |= 1 << 1;
#endif
#ifdef __opencl_c_ext_fp32_global_atomic_min_max
    m |= 1 << 2;
#endif
#ifdef __opencl_c_ext_fp32_local_atomic_add
    m |= 1 << 17;
#endif
#ifdef __opencl_c_ext_fp32_local_atomic_min_max
    m |= 1 << 18;
#endif
    o[0] = m;
    m = 0;
#ifdef __opencl_c_ext_fp64_global_atomic_add
    m |= 1 << 1;
#endif
#ifdef __opencl_c_ext_fp64_global_atomic_min_max
    m |= 1 << 2;
#endif
#ifdef __opencl_c_ext_fp64_local_atomic_add
    m |= 1 << 17;
#endif
#ifdef __opencl_c_ext_fp64_local_atomic_min_max
    m |= 1 << 18;
#endif
    o[1] = m;
    m = 0;
#ifdef __opencl_c_ext_fp16_global_atomic_load_store
    m |= 1 << 0;
#endif
#ifdef __opencl_c_ext_fp16_global_atomic_add
    m |= 1 << 1;
#endif
#ifdef __opencl_c_ext_fp16_global_atomic_min_max
    m |= 1 << 2;
#endif
#ifdef __opencl_c_ext_fp16_local_atomic_load_store
    m |= 1 << 16;
#endif
#ifdef __opencl_c_ext_fp16_local_atomic_add
    m |= 1 << 17;
#endif
#ifdef __opencl_c_ext_fp16_local_atomic_min_max
    m |= 1 << 18;
#endif
    o[2] = m;
}
"#;
    let k = cl
        .context
        .try_build(src, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel("k");
    let out = cl.buffer_from(&[-1i32; 3]);
    k.arg(0, &out);
    cl.queue.run(&k, &[1], None);
    let got = cl.queue.read(&out);
    // Load/store have no macro for float and double (core atomics).
    let no_load_store = !(1u64 | 1 << 16);
    for (q, (param, mask)) in [
        (CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT, no_load_store),
        (CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT, no_load_store),
        (CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT, !0u64),
    ]
    .into_iter()
    .enumerate()
    {
        let caps: u64 = device_value(cl.device(), param);
        assert_eq!(caps & !ALL_CAPS, 0, "query {param:#x}: unknown bits");
        assert_eq!(got[q] as u64, caps & mask, "macros vs query {param:#x}");
    }
    if !testing_pocl() {
        let single: u64 = device_value(cl.device(), CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT);
        assert_eq!(single, ALL_CAPS, "ferrocl: every float atomic");
    }
}
