//! Work-group collective functions (OpenCL C 3.0
//! `__opencl_c_work_group_collective_functions`).
//!
//! Every work-item computes every collective of its input (reduce and
//! inclusive/exclusive scans by add/min/max, broadcasts from the middle
//! and the last work-item of its work-group in the 1D/2D/3D forms,
//! all/any); the host checks each result against a CPU reference computed
//! per work-group in local linear id order. Types: int, uint, long, ulong,
//! float, double (with cl_khr_fp64), half (with cl_khr_fp16); float inputs
//! are small integers, so every sum is exact whatever the order. Launches:
//! 1D/2D/3D, work-group sizes that are and are not multiples of the
//! sub-group size, the largest work-group the kernel allows, global
//! offsets, and non-uniform NDRanges (the last work-groups smaller). The
//! same kernel also runs from SPIR-V (clCreateProgramWithIL).
//!
//! On a device that does not report the feature the tests check the
//! refusal (CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT false, the
//! macro undefined).

use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{device_string, device_value, spirv_of_with, Cl, Kernel, Pod};

const OPTIONS: &str = "-cl-std=CL3.0";

/// Results per work-item of `collectives`.
const OPS: usize = 11;

const SOURCE: &str = r#"
#ifdef IS_HALF
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif
kernel void collectives(global const T* in, global T* out, global const int* flags,
                        global int* votes) {
    size_t i = get_global_linear_id();
    T x = in[i];
    global T* o = out + i * 11;
    o[0] = work_group_reduce_add(x);
    o[1] = work_group_reduce_min(x);
    o[2] = work_group_reduce_max(x);
    o[3] = work_group_scan_exclusive_add(x);
    o[4] = work_group_scan_exclusive_min(x);
    o[5] = work_group_scan_exclusive_max(x);
    o[6] = work_group_scan_inclusive_add(x);
    o[7] = work_group_scan_inclusive_min(x);
    o[8] = work_group_scan_inclusive_max(x);
    size_t m0 = (get_local_size(0) - 1) / 2, m1 = (get_local_size(1) - 1) / 2,
           m2 = (get_local_size(2) - 1) / 2;
    size_t l0 = get_local_size(0) - 1, l1 = get_local_size(1) - 1, l2 = get_local_size(2) - 1;
    uint dim = get_work_dim();
    if (dim == 1) {
        o[9] = work_group_broadcast(x, m0);
        o[10] = work_group_broadcast(x, l0);
    } else if (dim == 2) {
        o[9] = work_group_broadcast(x, m0, m1);
        o[10] = work_group_broadcast(x, l0, l1);
    } else {
        o[9] = work_group_broadcast(x, m0, m1, m2);
        o[10] = work_group_broadcast(x, l0, l1, l2);
    }
    int p = flags[i];
    votes[i * 2] = work_group_all(p) != 0;
    votes[i * 2 + 1] = work_group_any(p) != 0;
}
"#;

/// An element type: its OpenCL C name and host arithmetic.
trait Elem: Pod + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    /// A test input from a pseudo-random word.
    fn from_bits(x: u64) -> Self;
    fn zero() -> Self;
    fn add(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    /// The exclusive min scan's identity (the type's largest value).
    fn min_identity() -> Self;
    /// The exclusive max scan's identity (the type's smallest value).
    fn max_identity() -> Self;
}

macro_rules! int_elem {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn from_bits(x: u64) -> Self {
                x as $t
            }
            fn zero() -> Self {
                0
            }
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn min(a: Self, b: Self) -> Self {
                a.min(b)
            }
            fn max(a: Self, b: Self) -> Self {
                a.max(b)
            }
            fn min_identity() -> Self {
                <$t>::MAX
            }
            fn max_identity() -> Self {
                <$t>::MIN
            }
        }
    };
}
int_elem!(i32, "int");
int_elem!(u32, "uint");
int_elem!(i64, "long");
int_elem!(u64, "ulong");

macro_rules! float_elem {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn from_bits(x: u64) -> Self {
                // Integers in [-64, 64]: every partial sum of up to 2^17
                // of them is exact.
                ((x % 129) as i64 - 64) as $t
            }
            fn zero() -> Self {
                0.0
            }
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn min(a: Self, b: Self) -> Self {
                a.min(b)
            }
            fn max(a: Self, b: Self) -> Self {
                a.max(b)
            }
            fn min_identity() -> Self {
                <$t>::INFINITY
            }
            fn max_identity() -> Self {
                <$t>::NEG_INFINITY
            }
        }
    };
}
float_elem!(f32, "float");
float_elem!(f64, "double");

/// A half, as its bits.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
struct Half(u16);
// SAFETY: a plain 16-bit value.
unsafe impl Pod for Half {}

impl Half {
    /// Small integers only (|v| ≤ 2048), exactly.
    fn of_int(v: i32) -> Half {
        if v == 0 {
            return Half(0);
        }
        let sign = if v < 0 { 0x8000 } else { 0 };
        let a = v.unsigned_abs();
        let e = 31 - a.leading_zeros();
        let man = (a << (10 - e)) & 0x3ff;
        Half(sign | (((e + 15) as u16) << 10) | man as u16)
    }

    fn to_f32(self) -> f32 {
        let s = if self.0 & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = ((self.0 >> 10) & 0x1f) as i32;
        let m = (self.0 & 0x3ff) as f32;
        match e {
            0 => s * m * 2f32.powi(-24),
            31 if m == 0.0 => s * f32::INFINITY,
            31 => f32::NAN,
            _ => s * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
        }
    }
}

impl Elem for Half {
    const NAME: &'static str = "half";
    fn from_bits(x: u64) -> Self {
        // Integers in [-3, 3]: partial sums of up to 256 stay exact.
        Half::of_int((x % 7) as i32 - 3)
    }
    fn zero() -> Self {
        Half(0)
    }
    fn add(a: Self, b: Self) -> Self {
        Half::of_int((a.to_f32() + b.to_f32()) as i32)
    }
    fn min(a: Self, b: Self) -> Self {
        if b.to_f32() < a.to_f32() {
            b
        } else {
            a
        }
    }
    fn max(a: Self, b: Self) -> Self {
        if b.to_f32() > a.to_f32() {
            b
        } else {
            a
        }
    }
    fn min_identity() -> Self {
        Half(0x7c00)
    }
    fn max_identity() -> Self {
        Half(0xfc00)
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

/// One NDRange: offset, global and local sizes (1 to 3 dimensions).
#[derive(Debug)]
struct Launch {
    offset: Option<&'static [usize]>,
    global: &'static [usize],
    local: &'static [usize],
}

const LAUNCHES: [Launch; 9] = [
    Launch {
        offset: None,
        global: &[256],
        local: &[64],
    },
    Launch {
        offset: None,
        global: &[300],
        local: &[100],
    },
    // Non-uniform: the last work-group has 58 work-items.
    Launch {
        offset: Some(&[7]),
        global: &[250],
        local: &[64],
    },
    Launch {
        offset: None,
        global: &[5],
        local: &[1],
    },
    Launch {
        offset: None,
        global: &[24, 12],
        local: &[8, 6],
    },
    Launch {
        offset: Some(&[3, 5]),
        global: &[20, 11],
        local: &[8, 4],
    },
    Launch {
        offset: None,
        global: &[8, 6, 4],
        local: &[4, 3, 2],
    },
    Launch {
        offset: None,
        global: &[9, 7, 5],
        local: &[4, 4, 2],
    },
    Launch {
        offset: None,
        global: &[21, 3, 2],
        local: &[5, 3, 2],
    },
];

/// The work-items of each work-group, by local linear id: global linear
/// ids, and the local size of the group.
fn work_groups(global: &[usize], local: &[usize]) -> Vec<(Vec<usize>, [usize; 3])> {
    let dim = |v: &[usize], d: usize| v.get(d).copied().unwrap_or(1);
    let g = [dim(global, 0), dim(global, 1), dim(global, 2)];
    let l = [dim(local, 0), dim(local, 1), dim(local, 2)];
    let n = [0, 1, 2].map(|d| g[d].div_ceil(l[d]));
    let mut out = Vec::new();
    for gz in 0..n[2] {
        for gy in 0..n[1] {
            for gx in 0..n[0] {
                let start = [gx * l[0], gy * l[1], gz * l[2]];
                let size = [0, 1, 2].map(|d| l[d].min(g[d] - start[d]));
                let mut items = Vec::new();
                for z in 0..size[2] {
                    for y in 0..size[1] {
                        for x in 0..size[0] {
                            let (a, b, c) = (start[0] + x, start[1] + y, start[2] + z);
                            items.push(a + g[0] * (b + g[1] * c));
                        }
                    }
                }
                out.push((items, size));
            }
        }
    }
    out
}

fn supported(cl: &Cl) -> bool {
    let b: cl_bool = device_value(
        cl.device(),
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
    );
    b == CL_TRUE
}

fn has_extension(cl: &Cl, name: &str) -> bool {
    device_string(cl.device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == name)
}

/// CL_KERNEL_WORK_GROUP_SIZE.
fn kernel_wg_size(cl: &Cl, kernel: &Kernel) -> usize {
    let mut wg = 0usize;
    // SAFETY: one size_t out.
    let status = unsafe {
        clGetKernelWorkGroupInfo(
            kernel.raw(),
            cl.device(),
            CL_KERNEL_WORK_GROUP_SIZE,
            size_of::<usize>(),
            (&mut wg as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    wg
}

/// Runs every launch (and one with the largest work-group the kernel
/// allows) and checks every result against the CPU reference.
fn check_kernel<T: Elem>(cl: &Cl, kernel: &Kernel, what: &str) {
    let largest = kernel_wg_size(cl, kernel).min(1024);
    let big_global: &'static [usize] =
        Box::leak(vec![largest * 2 + largest / 3].into_boxed_slice());
    let big_local: &'static [usize] = Box::leak(vec![largest].into_boxed_slice());
    let mut launches: Vec<&Launch> = LAUNCHES.iter().collect();
    let big = Launch {
        offset: None,
        global: big_global,
        local: big_local,
    };
    if T::NAME != "half" {
        launches.push(&big);
    }
    for (k, launch) in launches.into_iter().enumerate() {
        let n: usize = launch.global.iter().product();
        let input: Vec<T> = pseudo_random(n, 0x51_7CC1 + k as u64)
            .into_iter()
            .map(T::from_bits)
            .collect();
        let groups = work_groups(launch.global, launch.local);
        // all true / all false / one true, by work-group.
        let mut flags = vec![0i32; n];
        for (g, (items, _)) in groups.iter().enumerate() {
            for (j, &i) in items.iter().enumerate() {
                flags[i] = match g % 3 {
                    0 => 1 + (i % 5) as i32,
                    1 => 0,
                    _ => i32::from(j == items.len() / 2),
                };
            }
        }
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![T::zero(); n * OPS]);
        let fl = cl.buffer_from(&flags);
        let votes = cl.buffer_from(&vec![-1i32; n * 2]);
        kernel.arg(0, &inp).arg(1, &out).arg(2, &fl).arg(3, &votes);
        cl.queue
            .run_at(kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        let got_votes = cl.queue.read(&votes);
        for (g, (items, size)) in groups.iter().enumerate() {
            let xs: Vec<T> = items.iter().map(|&i| input[i]).collect();
            let fold = |f: fn(T, T) -> T, init: T, upto: usize| {
                xs[..upto].iter().fold(init, |a, &b| f(a, b))
            };
            let lin = |c: [usize; 3]| c[0] + size[0] * (c[1] + size[1] * c[2]);
            let mid = lin([0, 1, 2].map(|d| (size[d] - 1) / 2));
            let last = lin([0, 1, 2].map(|d| size[d] - 1));
            let all = items.iter().all(|&i| flags[i] != 0);
            let any = items.iter().any(|&i| flags[i] != 0);
            let m = xs.len();
            for (j, &i) in items.iter().enumerate() {
                let want = [
                    fold(T::add, T::zero(), m),
                    fold(T::min, T::min_identity(), m),
                    fold(T::max, T::max_identity(), m),
                    fold(T::add, T::zero(), j),
                    fold(T::min, T::min_identity(), j),
                    fold(T::max, T::max_identity(), j),
                    fold(T::add, T::zero(), j + 1),
                    fold(T::min, T::min_identity(), j + 1),
                    fold(T::max, T::max_identity(), j + 1),
                    xs[mid],
                    xs[last],
                ];
                const NAMES: [&str; OPS] = [
                    "reduce_add",
                    "reduce_min",
                    "reduce_max",
                    "scan_exclusive_add",
                    "scan_exclusive_min",
                    "scan_exclusive_max",
                    "scan_inclusive_add",
                    "scan_inclusive_min",
                    "scan_inclusive_max",
                    "broadcast(middle)",
                    "broadcast(last)",
                ];
                for (q, w) in want.iter().enumerate() {
                    assert_eq!(
                        got[i * OPS + q],
                        *w,
                        "{what}: work_group_{} of {} (work-group {g}, local linear id {j}), {launch:?}",
                        NAMES[q],
                        T::NAME
                    );
                }
                assert_eq!(
                    [got_votes[i * 2], got_votes[i * 2 + 1]],
                    [i32::from(all), i32::from(any)],
                    "{what}: work_group_all/any (work-group {g}, local linear id {j}), {launch:?}"
                );
            }
        }
    }
}

fn check<T: Elem>() {
    let cl = Cl::new();
    if !supported(&cl) {
        return;
    }
    let ext = match T::NAME {
        "double" => Some("cl_khr_fp64"),
        "half" => Some("cl_khr_fp16"),
        _ => None,
    };
    if ext.is_some_and(|e| !has_extension(&cl, e)) {
        return;
    }
    let mut options = format!("{OPTIONS} -DT={}", T::NAME);
    if T::NAME == "half" {
        options.push_str(" -DIS_HALF");
    }
    let kernel = cl
        .context
        .try_build(SOURCE, &options)
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel("collectives");
    check_kernel::<T>(&cl, &kernel, "source");
}

#[test]
fn collectives_int() {
    check::<i32>();
}

#[test]
fn collectives_uint() {
    check::<u32>();
}

#[test]
fn collectives_long() {
    check::<i64>();
}

#[test]
fn collectives_ulong() {
    check::<u64>();
}

#[test]
fn collectives_float() {
    check::<f32>();
}

#[test]
fn collectives_double() {
    check::<f64>();
}

#[test]
fn collectives_half() {
    check::<Half>();
}

/// The same kernel from SPIR-V (OpGroup* instructions of Workgroup scope),
/// for int and float.
#[test]
fn collectives_from_il() {
    let cl = Cl::new();
    if !supported(&cl) {
        return;
    }
    for (t, is_float) in [("int", false), ("float", true)] {
        let def = format!("-DT={t}");
        let il = spirv_of_with(SOURCE, None, &["-cl-std=CL3.0", &def]);
        let kernel = cl
            .context
            .try_build_spirv(&il, OPTIONS)
            .unwrap_or_else(|e| panic!("{e}"))
            .kernel("collectives");
        if is_float {
            check_kernel::<f32>(&cl, &kernel, "IL");
        } else {
            check_kernel::<i32>(&cl, &kernel, "IL");
        }
    }
}

/// The query, the feature list and the macro agree.
#[test]
fn feature_is_reported_consistently() {
    let cl = Cl::new();
    let on = supported(&cl);
    let features: Vec<cl_name_version> = ferrocl_tests::info::query(
        ferrocl_tests::info::device_info(cl.device(), CL_DEVICE_OPENCL_C_FEATURES),
    )
    .expect("CL_DEVICE_OPENCL_C_FEATURES");
    let listed = features.iter().any(|f| {
        // SAFETY: NUL-terminated name.
        let name = unsafe { std::ffi::CStr::from_ptr(f.name.as_ptr().cast()) };
        name.to_bytes() == b"__opencl_c_work_group_collective_functions"
    });
    assert_eq!(listed, on, "CL_DEVICE_OPENCL_C_FEATURES vs the query");
    let src = r#"
kernel void k(global int* o) {
#ifdef __opencl_c_work_group_collective_functions
    o[0] = 1;
#else
    o[0] = 0;
#endif
}
"#;
    let kernel = cl
        .context
        .try_build(src, OPTIONS)
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel("k");
    let out = cl.buffer_from(&[7i32]);
    kernel.arg(0, &out);
    cl.queue.run(&kernel, &[1], None);
    assert_eq!(
        cl.queue.read(&out)[0],
        i32::from(on),
        "the macro vs the query"
    );
}
