//! The execution corpus: small OpenCL C kernels, one feature per file in
//! `tests/corpus/`, each run through the ICD and checked against a CPU
//! reference computed here.
//!
//! Convention: every corpus file defines one kernel named `k` taking three
//! buffers, `k(A* a, B* b, R* out)`: two inputs (declared `global const`
//! or `constant`; a kernel that needs one input ignores `b`) and the
//! output. A kernel writing several results per work-item writes
//! `out[m * i + j]`; vectors are flattened to their scalars. `out` starts
//! as the case's `init` (zeroes for [`map1`]/[`map2`]), so atomics can
//! accumulate in it. The NDRange is one-dimensional ([`Range`]: global
//! size, optional local size and offset). Files build with
//! `-cl-std=CL1.2` unless the case says [`Case::cl3`]; a case may
//! [`Case::requires`] an extension or OpenCL C feature, and is skipped
//! (reported on stderr) where the device lacks it.
//!
//! Each [`Case`] names its file, inputs, NDRange and the expected output:
//! integers must match exactly, floats within the case's ulp bound (NaN
//! matches NaN, +0 matches -0). A case marked [`Case::known_bug`] is a
//! ferrocl bug found by the corpus: its failure is reported on stderr and
//! does not fail the test (a known bug that passes is reported too, so the
//! mark can be removed). The marker applies to ferrocl only: checked
//! against PoCL, a marked case must pass. One test function per feature family; a failure
//! lists every failing file of the family with its first wrong values.
//!
//! Adding a kernel: write `tests/corpus/<feature>.cl` following the
//! convention and add a case to its family's table.

use std::fmt::Debug;

use ferrocl_tests::{device_string, sys, Cl, Kernel, KernelArg, Pod};

/// An element type of a corpus buffer: how two values compare.
trait Elem: Pod + Debug + PartialEq {
    fn matches(got: Self, want: Self, ulp: u32) -> bool {
        let _ = ulp;
        got == want
    }
}

macro_rules! exact_elem {
    ($($t:ty),*) => { $(impl Elem for $t {})* };
}
exact_elem!(i8, u8, i16, u16, i32, u32, i64, u64);

impl Elem for f32 {
    fn matches(got: f32, want: f32, ulp: u32) -> bool {
        if got.is_nan() || want.is_nan() {
            return got.is_nan() && want.is_nan();
        }
        // Bits on a line where adjacent floats differ by 1 (±0 equal).
        let key = |x: f32| {
            let b = x.to_bits() as i32;
            if b < 0 {
                i64::from(i32::MIN) - i64::from(b)
            } else {
                i64::from(b)
            }
        };
        (key(got) - key(want)).unsigned_abs() <= u64::from(ulp)
    }
}

type Runner = Box<dyn Fn(&Cl, &Kernel) -> Result<(), String>>;

/// One corpus entry.
struct Case {
    file: &'static str,
    options: &'static str,
    /// An extension or OpenCL C feature the device must report, else the
    /// case is skipped.
    requires: Option<&'static str>,
    known_bug: Option<&'static str>,
    /// `known_bug` where the device is lavapipe (`Case::lavapipe_bug`).
    lavapipe_bug: Option<&'static str>,
    /// Built through clCreateProgramWithIL (clang-15 + llvm-spirv-15 IL of
    /// the file) instead of from source.
    il: bool,
    /// clang arguments after `-O2` for the IL (`Case::il_with`).
    il_args: &'static [&'static str],
    run: Runner,
}

impl Case {
    fn cl3(mut self) -> Self {
        self.options = "-cl-std=CL3.0";
        self
    }
    fn il(mut self) -> Self {
        self.il = true;
        self
    }
    /// [`Case::il`] with the IL made with extra clang arguments (`-O0`).
    fn il_with(mut self, args: &'static [&'static str]) -> Self {
        self.il = true;
        self.il_args = args;
        self
    }
    /// The case as failures name it: the file, with how it was built when
    /// that is not from source with no options.
    fn label(&self) -> String {
        let mut how: Vec<String> = Vec::new();
        if self.il {
            how.push(
                std::iter::once("IL")
                    .chain(self.il_args.iter().copied())
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        if !self.options.is_empty() {
            how.push(self.options.to_string());
        }
        if how.is_empty() {
            format!("corpus/{}", self.file)
        } else {
            format!("corpus/{} ({})", self.file, how.join(", "))
        }
    }
    fn options(mut self, options: &'static str) -> Self {
        self.options = options;
        self
    }
    fn requires(mut self, ext: &'static str) -> Self {
        self.requires = Some(ext);
        self
    }
    /// A known bug of ferrocl's, on every device: the case must fail (so a
    /// fix shows) and is reported. No case has one today; the fuzzer's next
    /// finding that cannot be fixed at once takes it.
    #[allow(dead_code)]
    fn known_bug(mut self, what: &'static str) -> Self {
        self.known_bug = Some(what);
        self
    }
    /// A known bug of lavapipe's (Mesa 22.3) only: elsewhere the case must
    /// pass. No case has one today (`fuzz_loop_exit_value.cl` had one until
    /// `passes::spill_loop_live_outs`).
    #[allow(dead_code)]
    fn lavapipe_bug(mut self, what: &'static str) -> Self {
        self.lavapipe_bug = Some(what);
        self
    }
}

/// The NDRange of a case: global size, optional local size and offset.
#[derive(Clone, Copy)]
struct Range {
    global: usize,
    local: Option<usize>,
    offset: Option<usize>,
}

fn global(n: usize) -> Range {
    Range {
        global: n,
        local: None,
        offset: None,
    }
}

fn groups(n: usize, local: usize) -> Range {
    Range {
        global: n,
        local: Some(local),
        offset: None,
    }
}

/// The general case: inputs `a` and `b`, output starting as `init`,
/// expected `want`, floats within `ulp`.
#[allow(clippy::too_many_arguments)]
fn raw<A: Elem, B: Elem, R: Elem>(
    file: &'static str,
    a: Vec<A>,
    b: Vec<B>,
    range: Range,
    init: Vec<R>,
    want: Vec<R>,
    ulp: u32,
) -> Case {
    assert_eq!(init.len(), want.len(), "{file}: init and want lengths");
    let run: Runner = Box::new(move |cl: &Cl, kernel: &Kernel| {
        let da = cl.buffer_from(&a);
        let db = cl.buffer_from(&b);
        let dout = cl.buffer_from(&init);
        let args: [&dyn KernelArg; 3] = [&da, &db, &dout];
        for (i, arg) in (0u32..).zip(args) {
            kernel
                .try_arg(i, arg)
                .map_err(|e| format!("clSetKernelArg({i}) failed: {e}"))?;
        }
        let offset = range.offset.map(|o| [o]);
        let local = range.local.map(|l| [l]);
        cl.queue
            .try_enqueue(
                kernel,
                offset.as_ref().map(|o| &o[..]),
                &[range.global],
                local.as_ref().map(|l| &l[..]),
            )
            .map_err(|e| format!("clEnqueueNDRangeKernel failed: {e}"))?;
        let got = cl.queue.read(&dout);
        let bad: Vec<String> = got
            .iter()
            .zip(&want)
            .enumerate()
            .filter(|(_, (&g, &w))| !R::matches(g, w, ulp))
            .take(4)
            .map(|(i, (g, w))| format!("out[{i}]: got {g:?}, want {w:?}"))
            .collect();
        if bad.is_empty() {
            Ok(())
        } else {
            let count = got
                .iter()
                .zip(&want)
                .filter(|(&g, &w)| !R::matches(g, w, ulp))
                .count();
            Err(format!("{count} wrong, first: {}", bad.join("; ")))
        }
    });
    Case {
        file,
        options: "-cl-std=CL1.2",
        requires: None,
        known_bug: None,
        lavapipe_bug: None,
        il: false,
        il_args: &[],
        run,
    }
}

/// `out[m*i..m*i+m] = f(a[i], b[i])` over `a.len()` work-items.
fn map2<A: Elem, B: Elem, R: Elem, const M: usize>(
    file: &'static str,
    a: Vec<A>,
    b: Vec<B>,
    ulp: u32,
    f: impl Fn(A, B) -> [R; M],
) -> Case {
    assert_eq!(a.len(), b.len(), "{file}: input lengths");
    let want: Vec<R> = a.iter().zip(&b).flat_map(|(&x, &y)| f(x, y)).collect();
    let init = vec![R::zeroed(); want.len()];
    raw(file, a.clone(), b, global(a.len()), init, want, ulp)
}

/// `out[m*i..m*i+m] = f(a[i])`; `b` is a dummy.
fn map1<A: Elem, R: Elem, const M: usize>(
    file: &'static str,
    a: Vec<A>,
    ulp: u32,
    f: impl Fn(A) -> [R; M],
) -> Case {
    let b = vec![0i32; a.len()];
    map2(file, a, b, ulp, move |x, _| f(x))
}

/// Runs a family's cases; panics listing every failing file.
fn run_family(cases: Vec<Case>) {
    let cl = Cl::new();
    let on_lavapipe = device_string(cl.device(), sys::CL_DEVICE_NAME).contains("llvmpipe");
    // Extensions and OpenCL C features (cl_name_version: a version, then
    // a NUL-padded name of 64 bytes).
    let mut available: Vec<String> = device_string(cl.device(), sys::CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .map(String::from)
        .collect();
    let features: Vec<u8> = ferrocl_tests::info::query(ferrocl_tests::info::device_info(
        cl.device(),
        sys::CL_DEVICE_OPENCL_C_FEATURES,
    ))
    .unwrap_or_default();
    available.extend(features.chunks_exact(68).map(|c| {
        let name = &c[4..];
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        String::from_utf8_lossy(&name[..end]).into_owned()
    }));
    // ferrocl compiles half arithmetic where the Vulkan device has
    // shaderFloat16 but does not report cl_khr_fp16 yet
    // (icd/src/api/device.rs): cases that require it run where such a
    // kernel builds.
    let wants_fp16 = cases.iter().any(|c| c.requires == Some("cl_khr_fp16"));
    if wants_fp16 && !available.iter().any(|e| e == "cl_khr_fp16") {
        let probe = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
                     kernel void k(global half* p) { p[0] = p[0] * (half)3; }";
        if cl.try_build(probe, "").is_ok() {
            available.push("cl_khr_fp16".into());
        }
    }
    let mut failures = Vec::new();
    for case in cases {
        if let Some(ext) = case.requires {
            if !available.iter().any(|e| e == ext) {
                eprintln!("corpus/{}: skipped, device lacks {ext}", case.file);
                continue;
            }
        }
        if case.il
            && device_string(cl.device(), sys::CL_DEVICE_IL_VERSION)
                .trim()
                .is_empty()
        {
            eprintln!("corpus/{} (IL): skipped, the device takes no IL", case.file);
            continue;
        }
        let path = format!("{}/corpus/{}", env!("CARGO_MANIFEST_DIR"), case.file);
        let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let built = if case.il {
            cl.try_build_spirv(
                &ferrocl_tests::spirv_of_with(&source, None, case.il_args),
                case.options,
            )
        } else {
            cl.try_build(&source, case.options)
        };
        let result = built
            .map_err(|e| format!("build failed: {e}"))
            .and_then(|program| {
                let kernel = program
                    .try_kernel("k")
                    .map_err(|e| format!("clCreateKernel failed: {e}"))?;
                (case.run)(&cl, &kernel)
            });
        let label = case.label();
        // A known-bug marker is about ferrocl: on another implementation
        // (checking the corpus against PoCL) the case must pass.
        let known_bug = case
            .known_bug
            .or(case.lavapipe_bug.filter(|_| on_lavapipe))
            .filter(|_| !ferrocl_tests::testing_pocl());
        match (result, known_bug) {
            (Ok(()), None) => {}
            // A fixed bug must lose its marker, or the marker would hide
            // a regression later.
            (Ok(()), Some(bug)) => failures.push(format!(
                "{label}: known bug now passes, remove its marker ({bug})"
            )),
            (Err(e), Some(bug)) => {
                eprintln!("{label}: KNOWN BUG ({bug}): {e}")
            }
            (Err(e), None) => failures.push(format!("{label}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A deterministic pseudo-random stream (splitmix64).
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Integer test values: edge cases then pseudo-random ones.
trait IntGen: Elem + Copy {
    fn from_u64(x: u64) -> Self;
    fn edges() -> Vec<Self>;
}

macro_rules! int_gen {
    ($($t:ty),*) => { $(
        impl IntGen for $t {
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            fn edges() -> Vec<Self> {
                vec![0, 1, 2, 7, <$t>::MAX, <$t>::MIN, <$t>::MAX - 1,
                     <$t>::MIN.wrapping_add(1), (0 as $t).wrapping_sub(1),
                     (0 as $t).wrapping_sub(2), 100, 10, 11, 99]
            }
        }
    )* };
}
int_gen!(i8, u8, i16, u16, i32, u32, i64, u64);

const N: usize = 256;

fn ints<T: IntGen>(seed: u64) -> Vec<T> {
    let mut r = rng(seed);
    let mut v = T::edges();
    // Rotate the edge list by the seed so `a` and `b` pair edges
    // differently.
    let k = seed as usize % v.len();
    v.rotate_left(k);
    while v.len() < N {
        let x = r();
        // Half small magnitudes, half full-range.
        v.push(T::from_u64(if x & 1 == 0 {
            (x >> 1) % 300
        } else {
            x >> 1
        }));
    }
    v
}

fn floats(seed: u64, n: usize, scale: f32) -> Vec<f32> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| ((r() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale)
        .collect()
}

macro_rules! int_family {
    ($t:ty, $u:ty, $name:literal) => {{
        const W: u32 = <$t>::BITS;
        let a: Vec<$t> = ints(1);
        let b: Vec<$t> = ints(2);
        let wide = |x: $t| x as i128;
        let narrow = |x: i128| x as $t;
        // Divisors: never 0, never MIN / -1.
        let div_b: Vec<$t> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| {
                if y == 0 || (x == <$t>::MIN && y == (0 as $t).wrapping_sub(1)) {
                    3
                } else {
                    y
                }
            })
            .collect();
        // Shift counts below the width (char and short promote to int).
        let shift_b: Vec<$t> = b.iter().map(|&y| (y as u32 % W) as $t).collect();
        vec![
            map2(
                concat!("int_arith_", $name, ".cl"),
                a.clone(),
                b.clone(),
                0,
                |x: $t, y: $t| [x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y)],
            ),
            map2(
                concat!("int_divrem_", $name, ".cl"),
                a.clone(),
                div_b,
                0,
                |x: $t, y: $t| [x.wrapping_div(y), x.wrapping_rem(y)],
            ),
            map2(
                concat!("int_shift_", $name, ".cl"),
                a.clone(),
                shift_b,
                0,
                |x: $t, y: $t| [x.wrapping_shl(y as u32), x.wrapping_shr(y as u32)],
            ),
            map2(
                concat!("int_rotate_", $name, ".cl"),
                a.clone(),
                b.clone(),
                0,
                |x: $t, y: $t| [x.rotate_left((y as u64 % u64::from(W)) as u32)],
            ),
            map2(
                concat!("int_sat_", $name, ".cl"),
                a.clone(),
                b.clone(),
                0,
                |x: $t, y: $t| [x.saturating_add(y), x.saturating_sub(y)],
            ),
            map2(
                concat!("int_hadd_", $name, ".cl"),
                a.clone(),
                b.clone(),
                0,
                move |x: $t, y: $t| {
                    [
                        narrow((wide(x) + wide(y)) >> 1),
                        narrow((wide(x) + wide(y) + 1) >> 1),
                    ]
                },
            ),
            map2(
                concat!("int_mulhi_", $name, ".cl"),
                a.clone(),
                b.clone(),
                0,
                move |x: $t, y: $t| {
                    let hi = narrow(wide(x).wrapping_mul(wide(y)) >> W);
                    [hi, hi.wrapping_add(x)]
                },
            ),
            map1(concat!("int_bits_", $name, ".cl"), a.clone(), 0, |x: $t| {
                [x.leading_zeros() as $t, x.count_ones() as $t]
            }),
            map2(
                concat!("int_abs_", $name, ".cl"),
                a.clone(),
                b.clone(),
                0,
                move |x: $t, y: $t| {
                    [
                        wide(x).unsigned_abs() as $u,
                        (wide(x) - wide(y)).unsigned_abs() as $u,
                    ]
                },
            ),
            map2(
                concat!("int_minmax_", $name, ".cl"),
                a.clone(),
                b.clone(),
                0,
                |x: $t, y: $t| [x.min(y), x.max(y), x.clamp(10, 100)],
            ),
        ]
    }};
}

macro_rules! upsample_case {
    ($t:ty, $u:ty, $w:ty, $name:literal) => {{
        let a: Vec<$t> = ints(3);
        let b: Vec<$u> = ints(4);
        map2(
            concat!("int_upsample_", $name, ".cl"),
            a,
            b,
            0,
            |x: $t, y: $u| [((x as $w) << <$t>::BITS) | (y as $w)],
        )
    }};
}

#[test]
fn integer_ops_8_16() {
    let mut cases = int_family!(i8, u8, "char");
    cases.extend(int_family!(u8, u8, "uchar"));
    cases.extend(int_family!(i16, u16, "short"));
    cases.extend(int_family!(u16, u16, "ushort"));
    cases.push(upsample_case!(i8, u8, i16, "char"));
    cases.push(upsample_case!(u8, u8, u16, "uchar"));
    cases.push(upsample_case!(i16, u16, i32, "short"));
    cases.push(upsample_case!(u16, u16, u32, "ushort"));
    const COUNTS: [i16; 16] = [
        0,
        -1,
        6,
        6,
        152,
        -1,
        i16::MIN,
        0,
        -1,
        267,
        176,
        0x7ffe,
        0,
        -0x7fff,
        -1,
        -232,
    ];
    cases.push(map1(
        "int_rotate_short16_splat.cl",
        ints::<i16>(3),
        0,
        |x| COUNTS.map(|n| x.rotate_left(u32::from(n as u16 % 16))),
    ));
    cases.push(map2(
        "int_narrow_negate_max.cl",
        ints::<i16>(5),
        ints::<i16>(6),
        0,
        |x: i16, y: i16| {
            let v = [x, y, i16::MIN, x ^ y];
            let w = [y, 0, x & 3, -1];
            let mut r = [0i16; 12];
            for l in 0..4 {
                r[l] = (37 | w[l]).max(v[l].wrapping_neg());
                r[4 + l] = (-37 & w[l]).min(v[l].wrapping_neg());
                r[8 + l] = 30 >> (r[l] & 15);
            }
            r
        },
    ));
    let byte_swaps = |x: u16, y: u16| {
        let s = x.swap_bytes();
        [
            s,
            s,
            s,
            y.swap_bytes(),
            (x << 3) | (y >> 13),
            x.rotate_left(u32::from(y & 15)),
        ]
    };
    cases.push(map2(
        "int_byte_swap_ushort.cl",
        ints::<u16>(4),
        ints::<u16>(5),
        0,
        byte_swaps,
    ));
    // The same as IL: llvm-spirv-15 writes llvm.bswap.i16 and llvm.fshl.i16
    // as functions of two 16-bit shifts and an OR, the shape NVIDIA's
    // compiler got wrong from OpenCL C (frontend/swaps16.rs); from IL,
    // ferrocl's 32-bit narrow arithmetic on NVIDIA gives it other shapes:
    // the -O2 case passed on the H200 before and after session 23. At -O0
    // clang writes the swaps in `int` arithmetic: zero-extended operands,
    // shifts (the right one arithmetic), an OR, the result truncated; on
    // the H200 every swap of it stored 0x0020 until
    // `passes::funnel_byte_swaps` (session 25).
    for clang_args in [&[][..], &["-O0"][..]] {
        cases.push(
            map2(
                "int_byte_swap_ushort.cl",
                ints::<u16>(4),
                ints::<u16>(5),
                0,
                byte_swaps,
            )
            .il_with(clang_args),
        );
    }
    run_family(cases);
}

#[test]
fn integer_ops_32_64() {
    let mut cases = int_family!(i32, u32, "int");
    cases.push(map1(
        "int_divrem_const_vector.cl",
        ints::<i32>(6),
        0,
        |x: i32| {
            let guarded = |d: i32| {
                if d == 0 || (x == i32::MIN && d == -1) {
                    1
                } else {
                    d
                }
            };
            let s = x as i16;
            let mut r = [0i32; 12];
            for (l, d) in [0, 0, 5, -1].into_iter().enumerate() {
                r[l] = x.wrapping_rem(guarded(d));
            }
            for (l, d) in [1, 1, 7, 3].into_iter().enumerate() {
                r[4 + l] = x / d;
            }
            for (l, d) in [1i16, -3, 5, 9].into_iter().enumerate() {
                r[8 + l] = i32::from(s.wrapping_div(d));
            }
            r
        },
    ));
    cases.push(map2(
        "int_umul_overflow_compare.cl",
        ints::<u32>(8),
        ints::<u32>(9),
        0,
        |a: u32, b: u32| {
            let d = a | 1;
            let x = b >> (a & 31);
            let lt = |d: u32, x: u32| -i32::from(u32::MAX / d < x);
            [
                i32::from(u32::MAX / d < x),
                lt(d, x),
                lt(d.wrapping_add(2), x ^ 5),
                lt(1, 0),
            ]
        },
    ));
    cases.push(map1(
        "int_divrem_ternary_vector.cl",
        ints::<i32>(6),
        0,
        |x: i32| {
            let mut r = [0i32; 12];
            let d = [0, 0, 5, -1];
            let e = [3, -7, 0, 1];
            for l in 0..4 {
                // `?:` of vectors selects by each lane's sign bit.
                let g = if d[l] == 0 || (x == i32::MIN && d[l] == -1) {
                    1
                } else {
                    d[l]
                };
                r[l] = x.wrapping_rem(g);
                let u = if e[l] < 0 { 9 } else { e[l] | 1 };
                r[4 + l] = x.wrapping_div(u);
                r[8 + l] = (x as u32 / (if x & (1 << l) != 0 { 6 } else { 11 })) as i32;
            }
            r
        },
    ));
    cases.push({
        let a: Vec<i64> = ints(7);
        let want: Vec<i64> = (0..a.len() as i64)
            .zip(&a)
            .flat_map(|(g, &x)| [!0i64.clamp((-g).min(-1), (-g).max(-1)), x.wrapping_abs()])
            .collect();
        let n = a.len();
        raw(
            "int_abs_clamp_long4.cl",
            a,
            vec![0i64; n],
            global(n),
            vec![0i64; 2 * n],
            want,
            0,
        )
    });
    cases.extend(int_family!(u32, u32, "uint"));
    cases.extend(int_family!(i64, u64, "long"));
    cases.extend(int_family!(u64, u64, "ulong"));
    cases.push(upsample_case!(i32, u32, i64, "int"));
    cases.push(upsample_case!(u32, u32, u64, "uint"));
    let swaps32 = |x: u32, y: u32| {
        let w = (u64::from(x) << 32) | u64::from(y);
        let s = w.swap_bytes();
        let sv = [x, y, x ^ y, x.wrapping_add(y)].map(u32::swap_bytes);
        [
            x.swap_bytes(),
            x.swap_bytes(),
            x.rotate_left(8),
            y.rotate_left(16),
            s as u32,
            (s >> 32) as u32,
            sv[0] ^ sv[3],
            sv[1].wrapping_add(sv[2]),
        ]
    };
    // From source and as IL at -O2 and -O0 (the last keeps the shifts and
    // masks as written).
    for clang_args in [None, Some(&[][..]), Some(&["-O0"][..])] {
        let case = map2(
            "int_byte_swap_uint.cl",
            ints::<u32>(8),
            ints::<u32>(9),
            0,
            swaps32,
        );
        cases.push(match clang_args {
            None => case,
            Some(args) => case.il_with(args),
        });
    }
    run_family(cases);
}

/// mad_sat on one integer type: triples (x, y, z) around the limits —
/// every triple of edge values; products near MAX and MIN (x, y around
/// ±2^(w/2), ±sqrt(MAX), the edges) with z pulling the sum to one below,
/// onto and one past each limit; pseudo-random ones — padded to a multiple
/// of 33 (the kernel's vector chunk). The reference is exact in i128.
macro_rules! mad_sat_case {
    ($t:ty, $name:literal) => {{
        const W: u32 = <$t>::BITS;
        let (min, max) = (<$t>::MIN as i128, <$t>::MAX as i128);
        let fits = |v: i128| (min..=max).contains(&v);
        let edges = <$t>::edges();
        let root = (max as f64).sqrt() as i128;
        let mut factors: Vec<i128> = edges.iter().map(|&e| e as i128).collect();
        for m in [1i128 << (W / 2), 1 << (W / 2 - 1), root, root + 1] {
            for v in [m - 1, m, m + 1, -m + 1, -m, -m - 1] {
                if fits(v) && !factors.contains(&v) {
                    factors.push(v);
                }
            }
        }
        let mut t: Vec<($t, $t, $t)> = Vec::new();
        for &x in &edges {
            for &y in &edges {
                for &z in &edges {
                    t.push((x, y, z));
                }
            }
        }
        for &x in &factors {
            for &y in &factors {
                // (ulong products beyond i128 saturate anyway.)
                let Some(p) = x.checked_mul(y) else { continue };
                for limit in [min, max] {
                    for d in [-1, 0, 1] {
                        let z = limit - p + d;
                        if fits(z) {
                            t.push((x as $t, y as $t, z as $t));
                        }
                    }
                }
            }
        }
        let (ra, rb, rc): (Vec<$t>, Vec<$t>, Vec<$t>) = (ints(120), ints(121), ints(122));
        t.extend((0..N).map(|i| (ra[i], rb[i], rc[i])));
        t.resize(t.len().div_ceil(33) * 33, (0, 0, 0));
        let n = t.len();
        let a: Vec<$t> = t.iter().map(|v| v.0).chain(t.iter().map(|v| v.2)).collect();
        let b: Vec<$t> = t.iter().map(|v| v.1).collect();
        let want: Vec<$t> = t
            .iter()
            .map(|&(x, y, z)| {
                // Only ulong products and sums leave i128, upwards.
                let s = (x as i128)
                    .checked_mul(y as i128)
                    .and_then(|p| p.checked_add(z as i128));
                s.map_or(max, |s| s.clamp(min, max)) as $t
            })
            .collect();
        let want = [want.clone(), want].concat();
        raw(
            concat!("int_mad_sat_", $name, ".cl"),
            a,
            b,
            global(n),
            vec![0; 2 * n],
            want,
            0,
        )
    }};
}

#[test]
fn integer_mad_sat() {
    run_family(vec![
        mad_sat_case!(i8, "char"),
        mad_sat_case!(u8, "uchar"),
        mad_sat_case!(i16, "short"),
        mad_sat_case!(u16, "ushort"),
        mad_sat_case!(i32, "int"),
        mad_sat_case!(u32, "uint"),
        mad_sat_case!(i64, "long"),
        mad_sat_case!(u64, "ulong"),
    ]);
}

/// `v` with its first values replaced by `specials`.
fn with(mut v: Vec<f32>, specials: &[f32]) -> Vec<f32> {
    v[..specials.len()].copy_from_slice(specials);
    v
}

/// Small integers as floats: products and sums of them are exact.
fn small_floats(seed: u64, n: usize, max: i64) -> Vec<f32> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| ((r() % (2 * max as u64 + 1)) as i64 - max) as f32)
        .collect()
}

fn small_ints(seed: u64, n: usize, max: i64) -> Vec<i32> {
    small_floats(seed, n, max)
        .iter()
        .map(|&x| x as i32)
        .collect()
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

/// f32 rounded from an f64 reference.
fn via64(f: impl Fn(f64) -> f64) -> impl Fn(f32) -> f32 {
    move |x| f(f64::from(x)) as f32
}

/// The next float above `x` (f32::next_up needs Rust 1.86, above the MSRV).
fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == INF {
        x
    } else if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

fn frexp(x: f32) -> (f32, i32) {
    if x == 0.0 {
        return (x, 0);
    }
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 126;
    (f32::from_bits((bits & !(0xff << 23)) | (126 << 23)), e)
}

#[test]
fn float_ops() {
    let n = N;
    let a = floats(10, n, 100.0);
    let b = floats(11, n, 100.0);
    let nonzero: Vec<f32> = floats(12, n, 10.0)
        .iter()
        .map(|&y| if y.abs() < 0.01 { 1.5 } else { y })
        .collect();
    let halves: Vec<f32> = small_floats(13, n, 20).iter().map(|x| x / 2.0).collect();
    let halves = with(halves, &[2.5, -2.5, 0.5, -0.5, 1.5, -1.5, 0.49999997, -0.4]);
    let nan_a = with(a.clone(), &[NAN, 1.0, NAN, -INF, 3.0]);
    let nan_b = with(b.clone(), &[1.0, NAN, NAN, 2.0, INF]);
    let exps: Vec<i32> = small_ints(14, n, 20);
    let no_zero: Vec<f32> = a.iter().map(|&x| if x == 0.0 { 1.0 } else { x }).collect();
    let cases = vec![
        map2("float_fma.cl", a.clone(), b.clone(), 0, |x: f32, y: f32| {
            [x.mul_add(y, x)]
        }),
        map2(
            "float_mad.cl",
            small_floats(15, n, 100),
            small_floats(16, n, 100),
            0,
            |x: f32, y: f32| [x * y + y],
        ),
        map2(
            "float_fminmax.cl",
            nan_a.clone(),
            nan_b.clone(),
            0,
            |x: f32, y: f32| [x.min(y), x.max(y)],
        ),
        map2(
            "float_fmod.cl",
            a.clone(),
            nonzero.clone(),
            0,
            |x: f32, y: f32| [x % y],
        ),
        map1("float_rounding.cl", halves, 0, |x: f32| {
            [
                x.floor(),
                x.ceil(),
                x.round(),
                x.trunc(),
                x.round_ties_even(),
            ]
        }),
        map2(
            "float_copysign.cl",
            a.clone(),
            with(b.clone(), &[-0.0, 0.0, -INF]),
            0,
            |x: f32, y: f32| [x.copysign(y)],
        ),
        map2("float_ldexp.cl", a.clone(), exps, 0, |x: f32, e: i32| {
            [x * 2f32.powi(e)]
        }),
        map1(
            "float_frexp.cl",
            with(a.clone(), &[0.0, 1.0, -0.75, 1e30]),
            0,
            |x: f32| {
                let (m, e) = frexp(x);
                [m, e as f32]
            },
        ),
        map1("float_ilogb.cl", no_zero.clone(), 0, |x: f32| {
            [((x.to_bits() >> 23) & 0xff) as i32 - 127]
        }),
        map2(
            "float_nextafter.cl",
            no_zero.clone(),
            b.clone(),
            0,
            |x: f32, y: f32| {
                [if x == y {
                    y
                } else if y > x {
                    next_up(x)
                } else {
                    next_down(x)
                }]
            },
        ),
        map2(
            "float_arith.cl",
            a.clone(),
            nonzero.clone(),
            3,
            |x: f32, y: f32| [x + y, x - y, x * y, x / y],
        ),
        map1("float_sqrt.cl", a.clone(), 3, |x: f32| {
            [via64(f64::sqrt)(x.abs())]
        }),
        map1("float_fabs_neg.cl", nan_a.clone(), 0, |x: f32| {
            [x.abs(), -x]
        }),
        map1("float_exp_log.cl", floats(17, n, 10.0), 3, |x: f32| {
            [via64(f64::exp)(x), via64(f64::ln)(x.abs() + 1.0)]
        }),
        map1("float_sin_cos.cl", floats(18, n, 10.0), 4, |x: f32| {
            [via64(f64::sin)(x), via64(f64::cos)(x)]
        }),
        map2(
            "float_compare.cl",
            with(nan_a.clone(), &[NAN, 1.0, 2.0, -0.0]),
            with(nan_b.clone(), &[1.0, NAN, 2.0, 0.0]),
            0,
            |x: f32, y: f32| {
                [(x < y) as i32
                    | ((x <= y) as i32) << 1
                    | ((x == y) as i32) << 2
                    | ((x != y) as i32) << 3
                    | ((x > y) as i32) << 4
                    | ((x >= y) as i32) << 5]
            },
        ),
    ];
    run_family(cases);
}

/// `x` (exact in f64) rounded to f32 toward zero, up or down.
fn round_dir(x: f64, dir: &str) -> f32 {
    let f = x as f32;
    let fx = f64::from(f);
    match dir {
        "rtz" if fx.abs() > x.abs() => {
            if x > 0.0 {
                next_down(f)
            } else {
                next_up(f)
            }
        }
        "rtn" if fx > x => next_down(f),
        "rtp" if fx < x => next_up(f),
        _ => f,
    }
}

#[test]
fn conversions() {
    let n = N;
    let specials = [NAN, INF, -INF, -0.0, 0.5, -0.5, 2.5, -2.5];
    let big = |seed, scale| with(floats(seed, n, scale), &specials);
    let a32: Vec<i32> = ints(20);
    let a_u32: Vec<u32> = ints(21);
    let a16: Vec<i16> = ints(22);
    let a64: Vec<i64> = ints(23);
    let a8: Vec<i8> = ints(24);
    let normal_bits: Vec<u32> = floats(25, n, 1e6).iter().map(|x| x.to_bits()).collect();
    let cases = vec![
        map1("conv_int_sat_rtz.cl", big(26, 3e9), 0, |x: f32| [x as i32]),
        map1(
            "conv_int_rounding.cl",
            with(
                floats(27, n, 1000.0),
                &[0.5, -0.5, 1.5, -1.5, 2.5, 1e9, -7.25],
            ),
            0,
            |x: f32| {
                [
                    x.round_ties_even() as i32,
                    x.ceil() as i32,
                    x.floor() as i32,
                    x.trunc() as i32,
                ]
            },
        ),
        map1("conv_cast_float_int.cl", floats(28, n, 1e6), 0, |x: f32| {
            [x as i32]
        }),
        map1("conv_uchar_sat.cl", a32.clone(), 0, |x: i32| {
            [x.clamp(0, 255) as u8]
        }),
        map1("conv_char_sat_short.cl", a16, 0, |x: i16| {
            [x.clamp(-128, 127) as i8]
        }),
        map1("conv_short_sat_float.cl", big(29, 1e5), 0, |x: f32| {
            [x as i16]
        }),
        map1("conv_long_sat_float.cl", big(30, 3e19), 0, |x: f32| {
            [x as i64]
        }),
        map1("conv_uint_sat_float.cl", big(31, 6e9), 0, |x: f32| {
            [x as u32]
        }),
        map1("conv_float_from_int.cl", a32.clone(), 0, |x: i32| {
            let w = f64::from(x);
            [x as f32, round_dir(w, "rtz"), round_dir(w, "rtn")]
        }),
        map1("conv_float_from_uint.cl", a_u32, 0, |x: u32| {
            [x as f32, round_dir(f64::from(x), "rtp")]
        }),
        map1("conv_float_from_long.cl", a64, 0, |x: i64| [x as f32]),
        map1(
            "conv_as_uint.cl",
            with(floats(32, n, 1e3), &[-0.0, INF, -INF, 1.0]),
            0,
            |x: f32| [x.to_bits()],
        ),
        map1("conv_as_float.cl", normal_bits, 0, |x: u32| {
            [f32::from_bits(x)]
        }),
        map1("conv_as_char4.cl", a32.clone(), 0, |x: i32| {
            let b = x.to_le_bytes().map(|b| b as i8);
            [b[3], b[2], b[1], b[0]]
        }),
        map1("conv_sign_extend.cl", a8, 0, |x: i8| {
            [i64::from(x), i64::from(x as u8)]
        }),
        {
            let f = floats(33, n, 1e7);
            let want: Vec<i32> = f.iter().map(|&x| (x * 1000.0) as i32).collect();
            raw(
                "conv_int4_float4.cl",
                f,
                vec![0i32],
                global(n / 4),
                vec![0; n],
                want,
                0,
            )
        },
    ];
    run_family(cases);
}

/// The rounding modes of `convert_T{,_rtz,_rtn,_rtp}`, in the corpus
/// kernels' order.
const MODES: [&str; 4] = ["rte", "rtz", "rtn", "rtp"];

/// Integer `x` rounded to a float of `precision` significant bits in
/// `mode`, exactly: (negative, magnitude), the magnitude `None` for an
/// infinity (above `max_finite` after rounding away from zero; rounding
/// toward zero stops at `max_finite`).
fn round_int(x: i128, precision: u32, max_finite: u128, mode: &str) -> (bool, Option<u128>) {
    let neg = x < 0;
    let m = x.unsigned_abs();
    let len = 128 - m.leading_zeros();
    let k = len.saturating_sub(precision);
    let lower = (m >> k) << k;
    let upper = if lower == m { m } else { lower + (1 << k) };
    let away = match mode {
        "rtz" => false,
        "rtn" => neg,
        "rtp" => !neg,
        // Nearest, ties to the even significand.
        _ => m - lower > upper - m || (m - lower == upper - m && (lower >> k) & 1 == 1),
    };
    let r = if away { upper } else { lower };
    if r <= max_finite {
        (neg, Some(r))
    } else if away || mode == "rte" {
        (neg, None)
    } else {
        (neg, Some(max_finite))
    }
}

fn float_bits(x: i128, mode: &str) -> u32 {
    let (neg, m) = round_int(x, 24, u128::MAX, mode);
    let f = m.expect("in range") as f32;
    (if neg { -f } else { f }).to_bits()
}

fn double_bits(x: i128, mode: &str) -> u64 {
    let (neg, m) = round_int(x, 53, u128::MAX, mode);
    let f = m.expect("in range") as f64;
    (if neg { -f } else { f }).to_bits()
}

fn half_bits(x: i128, mode: &str) -> u16 {
    let (neg, m) = round_int(x, 11, 65504, mode);
    let mag = match m {
        None => 0x7c00,
        Some(0) => 0,
        // An integer below 2^16 with at most 11 significant bits: normal.
        Some(m) => {
            let e = 127 - m.leading_zeros();
            let significand = if e >= 10 {
                m >> (e - 10)
            } else {
                m << (10 - e)
            };
            (((e + 15) << 10) | (significand as u32 & 0x3ff)) as u16
        }
    };
    mag | if neg { 0x8000 } else { 0 }
}

/// Integers where rounding to half, float or double is decided: powers
/// of two and the midpoints between neighbouring floats around them
/// (2^24 + 1, 2^53 + 1, 2^40 + 2^16, ...), the largest floats below 2^63
/// and 2^64 and the midpoints above them, half's largest finite value and
/// overflow threshold; each with its neighbours, both signs. Then
/// pseudo-random values of every magnitude: at least 512, a multiple of 8.
fn rounding_ints(seed: u64) -> Vec<i128> {
    let mut v: Vec<i128> = Vec::new();
    let mut push3 = |c: i128| {
        for d in [-1, 0, 1] {
            for s in [1, -1] {
                v.push(s * (c + d));
            }
        }
    };
    for e in [11, 12, 15, 16, 24, 25, 31, 32, 40, 53, 54, 62, 63] {
        push3(1 << e);
    }
    for (e, p) in [
        (11, 11),
        (12, 11),
        (15, 11),
        (24, 24),
        (25, 24),
        (40, 24),
        (53, 53),
        (54, 53),
        (62, 53),
    ] {
        // The midpoint above 2^e at precision p, and the one below.
        push3((1i128 << e) + (1 << (e + 1 - p)) / 2);
        push3((1i128 << e) - (1 << (e - p)) / 2);
    }
    for (e, p) in [(63, 24), (64, 24), (63, 53), (64, 53)] {
        let top = (1i128 << e) - (1 << (e - p));
        push3(top);
        push3(top + (1 << (e - p)) / 2);
        push3(top - (1 << (e - p)) / 2);
    }
    for c in [
        65504, 65519, 65520, 65535, 100_000, 32767, 2049, 2051, 4097, 16_777_217,
    ] {
        push3(c);
    }
    v.push(i64::MIN.into());
    v.push(u64::MAX.into());
    v.push(0);
    let mut r = rng(seed);
    while v.len() % 8 != 0 || v.len() < 512 {
        let x = r();
        v.push(if x & 1 == 0 {
            i128::from(x as i64)
        } else {
            i128::from(x >> (x % 64))
        });
    }
    v
}

/// A corpus case of conv_<T>_rounding_<long|ulong>.cl: 4 modes per value,
/// scalar then through 2- and 8-wide vectors.
fn rounding_case<A: Elem, R: Elem + Copy>(
    file: &'static str,
    a: Vec<A>,
    exact: &[i128],
    bits: impl Fn(i128, &str) -> R,
) -> Case {
    let n = a.len();
    let by_mode: Vec<Vec<R>> = MODES
        .iter()
        .map(|m| exact.iter().map(|&x| bits(x, m)).collect())
        .collect();
    let mut want: Vec<R> = Vec::new();
    for i in 0..n {
        want.extend(by_mode.iter().map(|m| m[i]));
    }
    for _width in [2, 8] {
        for m in &by_mode {
            want.extend_from_slice(m);
        }
    }
    let init = vec![R::zeroed(); want.len()];
    raw(file, a, vec![0i32], global(n), init, want, 0)
}

/// convert_float/double/half with every rounding mode from 64-bit integers
/// (and from 16/32-bit ones to half), against an exact reference: Vulkan
/// converts with round-to-nearest-even; the directed modes of 64-bit
/// sources rounded to nearest too.
#[test]
fn directed_rounding_from_integers() {
    let v = rounding_ints(130);
    let longs: Vec<i64> = v.iter().map(|&x| x as i64).collect();
    let ulongs: Vec<u64> = v.iter().map(|&x| x as u64).collect();
    let exact_l: Vec<i128> = longs.iter().map(|&x| x.into()).collect();
    let exact_u: Vec<i128> = ulongs.iter().map(|&x| x.into()).collect();
    let half_want: Vec<u16> = {
        let n = longs.len();
        let src = |x: i64, s: usize| -> i128 {
            match s {
                0 => (x as i16).into(),
                1 => (x as u16).into(),
                2 => (x as i32).into(),
                3 => (x as u32).into(),
                4 => x.into(),
                _ => (x as u64).into(),
            }
        };
        let mut w: Vec<u16> = longs
            .iter()
            .flat_map(|&x| (0..6).flat_map(move |s| MODES.map(|m| half_bits(src(x, s), m))))
            .collect();
        for m in MODES {
            w.extend((0..n).map(|i| half_bits(src(longs[i], 2), m)));
        }
        w
    };
    let n = longs.len();
    let cases = vec![
        rounding_case(
            "conv_float_rounding_long.cl",
            longs.clone(),
            &exact_l,
            float_bits,
        ),
        rounding_case(
            "conv_float_rounding_ulong.cl",
            ulongs.clone(),
            &exact_u,
            float_bits,
        ),
        rounding_case(
            "conv_double_rounding_long.cl",
            longs.clone(),
            &exact_l,
            double_bits,
        )
        .requires("cl_khr_fp64"),
        rounding_case(
            "conv_double_rounding_ulong.cl",
            ulongs,
            &exact_u,
            double_bits,
        )
        .requires("cl_khr_fp64"),
        raw(
            "conv_half_rounding.cl",
            longs,
            vec![0i32],
            global(n),
            vec![0; half_want.len()],
            half_want,
            0,
        )
        .requires("cl_khr_fp16"),
    ];
    run_family(cases);
}

/// A half's bits as the float they denote (exact: every half is a float).
fn half_to_f32(h: u16) -> f32 {
    ferrocl_tests::half_to_f64(h) as f32
}

/// Runs a vector kernel over `a.len() / width_in` work-items, `out`
/// holding `want`.
fn vec_case<A: Elem, B: Elem, R: Elem>(
    file: &'static str,
    a: Vec<A>,
    b: Vec<B>,
    items: usize,
    want: Vec<R>,
    ulp: u32,
) -> Case {
    let init = vec![R::zeroed(); want.len()];
    raw(file, a, b, global(items), init, want, ulp)
}

#[test]
fn vectors() {
    let n = N;
    let a: Vec<i32> = ints(40);
    let b: Vec<i32> = ints(41);
    let fa = floats(42, n, 100.0);
    let fb = floats(43, n, 100.0);
    let chunks =
        |v: &[i32], w: usize| -> Vec<Vec<i32>> { v.chunks(w).map(<[i32]>::to_vec).collect() };
    let halves: Vec<u16> = ints(44);
    let finite_halves: Vec<u16> = halves
        .iter()
        .map(|&h| {
            if (h >> 10) & 0x1f == 31 {
                h & 0x83ff
            } else {
                h
            }
        })
        .collect();
    let s_a: Vec<i16> = ints(45);
    let s_b: Vec<i16> = ints(46);
    let u_a: Vec<u8> = ints(47);
    let l_a: Vec<i64> = ints(48);
    let u32_a: Vec<u32> = ints(49);
    let u32_b: Vec<u32> = ints(50);
    let cases = vec![
        vec_case(
            "vec_int4_swizzle.cl",
            a.clone(),
            b.clone(),
            n / 4,
            chunks(&a, 4)
                .iter()
                .zip(chunks(&b, 4))
                .flat_map(|(v, w)| {
                    [
                        v[3].wrapping_add(w[0]),
                        v[2].wrapping_add(w[0]),
                        v[1].wrapping_add(w[1]),
                        v[0].wrapping_add(w[1]),
                    ]
                })
                .collect(),
            0,
        ),
        vec_case(
            "vec_int2_ops.cl",
            a.clone(),
            b.clone(),
            n / 2,
            chunks(&a, 2)
                .iter()
                .zip(chunks(&b, 2))
                .flat_map(|(v, w)| [v[1].wrapping_mul(w[0]), v[0].wrapping_sub(w[1])])
                .collect(),
            0,
        ),
        vec_case(
            "vec_float8_hilo.cl",
            fa.clone(),
            vec![0f32],
            n / 8,
            fa.chunks(8)
                .flat_map(|v| {
                    let mut r = [0f32; 8];
                    for j in 0..4 {
                        r[j] = v[4 + j] + v[j];
                        r[4 + j] = v[2 * j] - v[2 * j + 1];
                    }
                    r
                })
                .collect(),
            0,
        ),
        vec_case(
            "vec_int16_sF.cl",
            a.clone(),
            vec![0i32],
            n / 16,
            chunks(&a, 16)
                .iter()
                .flat_map(|v| {
                    let mut r: Vec<i32> = v.iter().rev().copied().collect();
                    r[0] = r[0].wrapping_add(v[15]);
                    r
                })
                .collect(),
            0,
        ),
        vec_case(
            "vec_int3_vload3.cl",
            a[..255].to_vec(),
            vec![0i32],
            85,
            chunks(&a[..255], 3)
                .iter()
                .flat_map(|v| {
                    let (x, y, z) = (v[0], v[1], v[2]);
                    [
                        z.wrapping_mul(2).wrapping_add(x),
                        x.wrapping_mul(2).wrapping_add(y),
                        y.wrapping_mul(2).wrapping_add(z),
                    ]
                })
                .collect(),
            0,
        ),
        vec_case(
            "vec_int3_layout.cl",
            a.clone(),
            vec![0i32],
            n / 4,
            chunks(&a, 4)
                .iter()
                .flat_map(|v| [v[0], v[1], v[2]])
                .collect(),
            0,
        ),
        vec_case(
            "vec_uchar4_literal.cl",
            u_a.clone(),
            vec![0i32],
            n / 4,
            u_a.iter()
                .enumerate()
                .map(|(i, &x)| x.wrapping_add([1, 2, 3, 250][i % 4]))
                .collect(),
            0,
        ),
        vec_case(
            "vec_float4_scalar_widen.cl",
            fa.clone(),
            vec![0f32],
            n / 4,
            fa.iter().map(|x| x * 2.0 + 1.0).collect(),
            0,
        ),
        vec_case(
            "vec_short8_compare.cl",
            s_a.clone(),
            s_b.clone(),
            n / 8,
            s_a.iter()
                .zip(&s_b)
                .map(|(x, y)| -i16::from(x < y))
                .collect(),
            0,
        ),
        map1("vec_vload_half.cl", halves.clone(), 0, |h: u16| {
            [half_to_f32(h)]
        }),
        // Floats that are halves exactly: any rounding mode stores them back.
        vec_case(
            "vec_vstore_half.cl",
            finite_halves
                .iter()
                .map(|&h| half_to_f32(h))
                .collect::<Vec<f32>>(),
            vec![0f32],
            n,
            finite_halves.clone(),
            0,
        ),
        vec_case(
            "vec_vload_half4.cl",
            halves.clone(),
            vec![0i32],
            n / 4,
            halves.iter().map(|&h| half_to_f32(h)).collect(),
            0,
        ),
        vec_case(
            "vec_long2_shuffle.cl",
            l_a.clone(),
            vec![0i32],
            n / 2,
            l_a.chunks(2).flat_map(|v| [v[1], v[0]]).collect(),
            0,
        ),
        vec_case(
            "vec_uint4_shuffle2.cl",
            u32_a.clone(),
            u32_b.clone(),
            n / 4,
            u32_a
                .chunks(4)
                .zip(u32_b.chunks(4))
                .flat_map(|(v, w)| [v[0], w[1], v[2], w[3]])
                .collect(),
            0,
        ),
        vec_case(
            "vec_component_write.cl",
            fa.clone(),
            fb.clone(),
            n,
            fa.iter()
                .zip(&fb)
                .flat_map(|(&x, &y)| [4.0, x, y, 3.0])
                .collect(),
            0,
        ),
    ];
    run_family(cases);
}

#[test]
fn relational_geometric() {
    let n = N;
    let classes = with(
        floats(60, n, 100.0),
        &[
            NAN,
            INF,
            -INF,
            -0.0,
            0.0,
            1.0,
            -1.0,
            f32::MAX,
            f32::MIN_POSITIVE,
            -NAN,
        ],
    );
    let fb = with(floats(61, n, 100.0), &[1.0, NAN, 2.0]);
    let a: Vec<i32> = ints(62);
    let b: Vec<i32> = ints(63);
    let u_a: Vec<u32> = ints(64);
    let u_b: Vec<u32> = ints(65);
    // Some all-negative and all-non-negative vectors for any/all.
    let mut signs = a.clone();
    signs[..4].copy_from_slice(&[-1, -5, i32::MIN, -7]);
    signs[4..8].copy_from_slice(&[1, 0, 5, 7]);
    let sa = small_floats(66, n, 50);
    let sb = small_floats(67, n, 50);
    let sa_nonzero: Vec<f32> = sa.iter().map(|&x| if x == 0.0 { 3.0 } else { x }).collect();
    let dot4 = |v: &[f32], w: &[f32]| -> f64 {
        v.iter()
            .zip(w)
            .map(|(&x, &y)| f64::from(x) * f64::from(y))
            .sum()
    };
    let cases = vec![
        map1("rel_classify.cl", classes.clone(), 0, |x: f32| {
            [
                x.is_nan() as i32,
                x.is_infinite() as i32,
                x.is_sign_negative() as i32,
                x.is_finite() as i32,
                x.is_normal() as i32,
            ]
        }),
        vec_case(
            "rel_classify_vec.cl",
            classes.clone(),
            vec![0i32],
            n / 4,
            classes
                .iter()
                .map(|x| {
                    if x.is_nan() {
                        -1
                    } else if x.is_infinite() {
                        2
                    } else {
                        0
                    }
                })
                .collect(),
            0,
        ),
        map2(
            "rel_select_scalar.cl",
            classes.clone(),
            fb.clone(),
            0,
            |x: f32, y: f32| [if x < y { y } else { x }],
        ),
        vec_case(
            "rel_select_vec.cl",
            a.clone(),
            b.clone(),
            n / 4,
            a.iter()
                .zip(&b)
                .map(|(&x, &y)| if x < 0 { y } else { x })
                .collect(),
            0,
        ),
        map2("rel_bitselect.cl", u_a, u_b, 0, |x: u32, y: u32| {
            [(x & !0x0ff0_f00f) | (y & 0x0ff0_f00f)]
        }),
        vec_case(
            "rel_any_all.cl",
            signs.clone(),
            vec![0i32],
            n / 4,
            signs
                .chunks(4)
                .flat_map(|v| {
                    [
                        v.iter().any(|&x| x < 0) as i32,
                        v.iter().all(|&x| x < 0) as i32,
                    ]
                })
                .collect(),
            0,
        ),
        map2(
            "rel_isordered.cl",
            classes.clone(),
            fb.clone(),
            0,
            |x: f32, y: f32| {
                let unordered = x.is_nan() || y.is_nan();
                [(!unordered) as i32, unordered as i32]
            },
        ),
        vec_case(
            "geo_dot.cl",
            sa.clone(),
            sb.clone(),
            n / 4,
            sa.chunks(4)
                .zip(sb.chunks(4))
                .map(|(v, w)| dot4(v, w) as f32)
                .collect(),
            0,
        ),
        vec_case(
            "geo_cross.cl",
            sa[..255].to_vec(),
            sb[..255].to_vec(),
            85,
            sa[..255]
                .chunks(3)
                .zip(sb[..255].chunks(3))
                .flat_map(|(v, w)| {
                    [
                        v[1] * w[2] - v[2] * w[1],
                        v[2] * w[0] - v[0] * w[2],
                        v[0] * w[1] - v[1] * w[0],
                    ]
                })
                .collect(),
            0,
        ),
        vec_case(
            "geo_length.cl",
            sa_nonzero.clone(),
            sb.clone(),
            n / 4,
            sa_nonzero
                .chunks(4)
                .zip(sb.chunks(4))
                .flat_map(|(v, w)| {
                    let d: Vec<f32> = v.iter().zip(w).map(|(x, y)| x - y).collect();
                    [dot4(v, v).sqrt() as f32, dot4(&d, &d).sqrt() as f32]
                })
                .collect(),
            4,
        ),
        vec_case(
            "geo_normalize.cl",
            sa_nonzero.clone(),
            vec![0f32],
            n / 4,
            sa_nonzero
                .chunks(4)
                .flat_map(|v| {
                    let len = dot4(v, v).sqrt();
                    v.iter()
                        .map(|&x| (f64::from(x) / len) as f32)
                        .collect::<Vec<f32>>()
                })
                .collect(),
            4,
        ),
    ];
    run_family(cases);
}

/// Applies `f` to each work-group's slice of `v` (groups of `local`).
fn per_group<T: Copy, R>(v: &[T], local: usize, f: impl Fn(&[T]) -> Vec<R>) -> Vec<R> {
    v.chunks(local).flat_map(f).collect()
}

#[test]
fn address_spaces_and_structs() {
    let n = N;
    let a: Vec<i32> = ints(70);
    let b: Vec<i32> = ints(71);
    let fa = floats(72, n, 100.0);
    let fb = floats(73, n, 100.0);
    let table = [1, 1, 2, 3, 5, 8, 13, 21];
    let grouped = |file, want: Vec<i32>| {
        raw(
            file,
            a.clone(),
            b.clone(),
            groups(n, 64),
            vec![0; n],
            want,
            0,
        )
    };
    // Records { int x; float y; short z; char w; } (12 bytes each), with
    // small x and y in quarters so x * y + z - w is exact.
    let small = small_ints(74, n, 1000);
    let quarters: Vec<f32> = small_floats(75, n, 400).iter().map(|y| y / 4.0).collect();
    let records: Vec<u8> = (0..n)
        .flat_map(|i| {
            let mut r = [0u8; 12];
            r[..4].copy_from_slice(&small[i].to_le_bytes());
            r[4..8].copy_from_slice(&quarters[i].to_le_bytes());
            r[8..10].copy_from_slice(&(small[i] as i16).wrapping_mul(5).to_le_bytes());
            r[10] = (small[i] as i8).wrapping_add(3) as u8;
            r
        })
        .collect();
    let record_want: Vec<f32> = (0..n)
        .map(|i| {
            let z = (small[i] as i16).wrapping_mul(5);
            let w = (small[i] as i8).wrapping_add(3);
            small[i] as f32 * quarters[i] + f32::from(z) - f32::from(w)
        })
        .collect();
    let cases = vec![
        map1("as_constant_table.cl", a.clone(), 0, move |x: i32| {
            [table[(x & 7) as usize] + table[7 - (x & 7) as usize]]
        }),
        {
            let want = (0..n).map(|i| a[i].wrapping_mul(b[(i + 1) % n])).collect();
            raw(
                "as_constant_arg.cl",
                a.clone(),
                b.clone(),
                global(n),
                vec![0; n],
                want,
                0,
            )
        },
        map2(
            "as_private_array.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                [x.wrapping_mul(y & 15)
                    .wrapping_add(x.wrapping_mul((y >> 4) & 15))]
            },
        ),
        grouped(
            "as_local_array.cl",
            per_group(&a, 64, |g| {
                (0..64)
                    .map(|l| g[63 - l].wrapping_add(g[(l + 1) & 63]))
                    .collect()
            }),
        ),
        {
            let want = (0..n)
                .map(|i| {
                    if i + 1 < n {
                        a[i + 1].wrapping_sub(a[i]).wrapping_add(1)
                    } else {
                        0
                    }
                })
                .collect();
            raw(
                "as_pointer_arith.cl",
                a.clone(),
                b.clone(),
                global(n),
                vec![0; n],
                want,
                0,
            )
        },
        map1("as_pointer_cast_global.cl", fa.clone(), 0, |x: f32| {
            [x.to_bits() ^ 0x8000_0000]
        }),
        map1("as_pointer_cast_bytes.cl", a.clone(), 0, |x: i32| {
            [x.to_le_bytes().iter().map(|&b| u32::from(b)).sum::<u32>() as u8]
        }),
        map1("as_pointer_cast_private.cl", fa.clone(), 0, |x: f32| {
            [x.to_bits() >> 23]
        }),
        {
            let want = (0..n).map(|i| b[(2 * i) % n].wrapping_add(a[i])).collect();
            raw(
                "as_struct_with_pointer.cl",
                a.clone(),
                b.clone(),
                global(n),
                vec![0; n],
                want,
                0,
            )
        },
        map1("as_helper_pointer.cl", a.clone(), 0, |x: i32| {
            [x.wrapping_mul(6)]
        }),
        grouped(
            "as_helper_local_pointer.cl",
            per_group(&a, 64, |g| {
                (0..64).map(|l| g[l].wrapping_add(g[l ^ 1])).collect()
            }),
        ),
        map2(
            "as_select_pointer.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| [x.max(y)],
        ),
        map1("as_private_pointer_helper.cl", a.clone(), 0, |x: i32| {
            [x / 7, x % 7]
        }),
        map1("as_global_write_offset.cl", a.clone(), 0, |x: i32| {
            [x, x.wrapping_neg()]
        }),
        grouped(
            "as_generic_pointer.cl",
            a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect(),
        )
        .cl3()
        .requires("__opencl_c_generic_address_space"),
        map2(
            "struct_by_value.cl",
            small.clone(),
            fb.clone(),
            0,
            |x: i32, y: f32| [x as f32 + y + f32::from((x * 3) as i16) + f32::from(x as i8)],
        ),
        raw(
            "struct_in_buffer.cl",
            records,
            vec![0i32],
            global(n),
            vec![0f32; n],
            record_want,
            0,
        ),
        map2(
            "struct_write_buffer.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| [x.wrapping_add(y), y],
        ),
        map2(
            "struct_nested_array.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| [x.wrapping_add(y & 3)],
        ),
        map1("union_punning.cl", fa.clone(), 0, |x: f32| {
            [x.to_bits(), x.to_bits() >> 24]
        }),
        vec_case(
            "struct_vector_member.cl",
            fa.clone(),
            fb.clone(),
            n / 4,
            fa.iter().zip(&fb).map(|(p, v)| p + v * 0.5).collect(),
            0,
        ),
    ];
    run_family(cases);
}

#[test]
fn local_memory_and_atomics() {
    let n = N;
    let a: Vec<i32> = ints(80);
    let fa = floats(81, n, 100.0);
    let fb = floats(82, n, 100.0);
    let u: Vec<u32> = ints(83);
    let l64: Vec<i64> = ints(84);
    let wsum = |v: &[i32]| v.iter().fold(0i32, |s, &x| s.wrapping_add(x));
    // out[j] for j in 0..4 folds the values of work-items i with i % 4 == j.
    let lanes = |init: i32, f: fn(i32, i32) -> i32| -> Vec<i32> {
        (0..4)
            .map(|j| a.iter().skip(j).step_by(4).fold(init, |s, &x| f(s, x)))
            .collect()
    };
    let atomic = |file, init: i32, f: fn(i32, i32) -> i32| {
        raw(
            file,
            a.clone(),
            vec![0i32],
            global(n),
            vec![init; 4],
            lanes(init, f),
            0,
        )
    };
    let cases = vec![
        raw(
            "local_reduce_sum.cl",
            a.clone(),
            vec![0i32],
            groups(n, 64),
            vec![0; 4],
            per_group(&a, 64, |g| vec![wsum(g)]),
            0,
        ),
        raw(
            "local_reduce_max_float.cl",
            fa.clone(),
            vec![0f32],
            groups(n, 64),
            vec![0.0; 4],
            per_group(&fa, 64, |g| {
                vec![g.iter().copied().fold(f32::MIN, f32::max)]
            }),
            0,
        ),
        raw(
            "local_prefix_sum.cl",
            a.clone(),
            vec![0i32],
            groups(n, 64),
            vec![0; n],
            per_group(&a, 64, |g| (0..64).map(|l| wsum(&g[..=l])).collect()),
            0,
        ),
        raw(
            "local_2d_shared_struct.cl",
            fa.clone(),
            fb.clone(),
            groups(n, 64),
            vec![0.0; n],
            fa.chunks(64)
                .zip(fb.chunks(64))
                .flat_map(|(x, y)| {
                    (0..64)
                        .map(|l| x[(l + 7) & 63] * y[(l + 9) & 63])
                        .collect::<Vec<_>>()
                })
                .collect(),
            0,
        ),
        atomic("atomic_add_global.cl", 0, i32::wrapping_add),
        atomic("atomic_sub_global.cl", 0, i32::wrapping_sub),
        atomic("atomic_min_global.cl", i32::MAX, i32::min),
        atomic("atomic_max_global.cl", i32::MIN, i32::max),
        atomic("atomic_and_global.cl", -1, |s, x| s & x),
        atomic("atomic_or_global.cl", 0, |s, x| s | x),
        atomic("atomic_xor_global.cl", 0, |s, x| s ^ x),
        raw(
            "atomic_inc_dec_global.cl",
            a.clone(),
            vec![0i32],
            global(n),
            vec![0; 2],
            vec![
                n as i32,
                -(a.iter().filter(|&&x| x & 1 != 0).count() as i32),
            ],
            0,
        ),
        raw(
            "atomic_xchg_global.cl",
            a[..4].to_vec(),
            vec![0i32],
            global(4),
            vec![10, 20, 30, 40, 0, 0, 0, 0],
            vec![a[0], a[1], a[2], a[3], 10, 20, 30, 40],
            0,
        ),
        raw(
            "atomic_cmpxchg_global.cl",
            a.clone(),
            vec![0i32],
            global(n),
            vec![0],
            vec![wsum(&a)],
            0,
        ),
        raw(
            "atomic_add_local.cl",
            a.clone(),
            vec![0i32],
            groups(n, 64),
            vec![0; 20],
            per_group(&a, 64, |g| {
                let mut r: Vec<i32> = (0..4)
                    .map(|j| {
                        g.iter()
                            .skip(j)
                            .step_by(4)
                            .fold(0i32, |s, &x| s.wrapping_add(x))
                    })
                    .collect();
                r.push(g.iter().copied().fold(0, i32::max));
                r
            }),
            0,
        ),
        raw(
            "atomic_minmax_local.cl",
            a.clone(),
            vec![0i32],
            groups(n, 64),
            vec![0; 8],
            per_group(&a, 64, |g| {
                vec![*g.iter().min().unwrap(), *g.iter().max().unwrap()]
            }),
            0,
        ),
        raw(
            "atomic_uint_or_local.cl",
            u.clone(),
            vec![0i32],
            groups(n, 64),
            vec![0u32; 4],
            per_group(&u, 64, |g| {
                vec![g.iter().fold(0u32, |s, &x| s | 1 << (x & 31))]
            }),
            0,
        ),
        raw(
            "atom_add_long.cl",
            l64.clone(),
            vec![0i32],
            global(n),
            vec![0i64; 4],
            (0..4)
                .map(|j| {
                    l64.iter()
                        .skip(j)
                        .step_by(4)
                        .fold(0i64, |s, &x| s.wrapping_add(x))
                })
                .collect(),
            0,
        )
        .requires("cl_khr_int64_base_atomics"),
        atomic("atomic_fetch_add_c11.cl", 0, i32::wrapping_add)
            .cl3()
            .requires("__opencl_c_atomic_scope_device"),
    ];
    run_family(cases);
}

#[test]
fn work_items() {
    let n = N;
    let cases = vec![
        raw(
            "wi_global_offset.cl",
            vec![0i32],
            vec![0i32],
            Range {
                global: 64,
                local: Some(16),
                offset: Some(100),
            },
            vec![0; 64],
            (100..164).map(|i| i * 1000 + 100).collect(),
            0,
        ),
        raw(
            "wi_ids.cl",
            vec![0i32],
            vec![0i32],
            groups(n, 32),
            vec![0; 4 * n],
            (0..n as i32)
                .flat_map(|i| [i % 32, i / 32, 32, 8])
                .collect(),
            0,
        ),
        raw(
            "wi_nonuniform.cl",
            vec![0i32],
            vec![0i32],
            groups(100, 16),
            vec![0; 300],
            (0..100)
                .flat_map(|i| [if i >= 96 { 4 } else { 16 }, 16, i])
                .collect(),
            0,
        )
        .cl3(),
        raw(
            "wi_work_dim.cl",
            vec![0i32],
            vec![0i32],
            global(n),
            vec![0; 2 * n],
            (0..n).flat_map(|_| [1, n as i32 + 110]).collect(),
            0,
        ),
    ];
    run_family(cases);
}

fn collatz_steps(x: i32) -> i32 {
    let mut x = x as u32 | 1;
    let mut steps = 0;
    loop {
        x = if x & 1 != 0 {
            x.wrapping_mul(3).wrapping_add(1)
        } else {
            x / 2
        };
        steps += 1;
        if x == 1 || steps >= 500 {
            return steps;
        }
    }
}

#[test]
fn control_flow() {
    let n = N;
    let a: Vec<i32> = ints(90);
    let b: Vec<i32> = ints(91);
    let sa = small_ints(92, n, 1000);
    let sb = small_ints(93, n, 1000);
    let cases = vec![
        map1("cf_loop_break_continue.cl", a.clone(), 0, |x: i32| {
            let mut s = 0;
            for j in 0..100 {
                if j % 3 == 0 {
                    continue;
                }
                if s > x {
                    break;
                }
                s += j;
            }
            [s]
        }),
        map1("cf_switch_fallthrough.cl", a.clone(), 0, |x: i32| {
            [match x & 7 {
                0 => 11,
                1 => 10,
                2 | 3 => 100,
                5 => 995,
                _ => 1000,
            }]
        }),
        map1("cf_nested_loops.cl", a.clone(), 0, |x: i32| {
            let mut s = 0;
            for i in 0..(x & 15) {
                for j in 0..=i {
                    s += i ^ j;
                }
            }
            [s]
        }),
        map1("cf_do_while.cl", a.clone(), 0, |x: i32| [collatz_steps(x)]),
        map1("cf_early_return.cl", a.clone(), 0, |x: i32| {
            [if x < 0 {
                -1
            } else if x > 1000 {
                1
            } else {
                0
            }]
        }),
        map2(
            "cf_helper_early_return.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                [(0..8)
                    .find(|j| (x >> j) & 1 != 0 && (y >> j) & 1 != 0)
                    .unwrap_or(-1)]
            },
        ),
        map1("cf_triangular_sum.cl", a.clone(), 0, |x: i32| {
            let n = x & 255;
            [n * (n - 1) / 2]
        }),
        map1("cf_ternary_chain.cl", a.clone(), 0, |x: i32| {
            [if x < -100 {
                0
            } else if x < 0 {
                1
            } else if x == 0 {
                2
            } else if x < 100 {
                3
            } else {
                4
            }]
        }),
        map2(
            "cf_short_circuit.cl",
            sa.clone(),
            sb.clone(),
            0,
            |x: i32, y: i32| {
                let mut r = 0;
                if y != 0 && x / y > 2 {
                    r |= 1;
                }
                if x == 0 || y / x < 2 {
                    r |= 2;
                }
                [r]
            },
        ),
        map2(
            "cf_divergent_loop_trip.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let (mut s, mut m) = (0i32, x & 63);
                while m > 0 {
                    s = s.wrapping_add(m.wrapping_mul(y));
                    m -= if m & 1 != 0 { 1 } else { 2 };
                }
                [s]
            },
        ),
        map2(
            "cf_multi_exit_loop.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let mut r = -1;
                for j in 0..32 {
                    if x & (1 << j) != 0 {
                        r = j;
                        break;
                    }
                    if y & (1 << j) != 0 {
                        r = 100 + j;
                        break;
                    }
                }
                [r]
            },
        ),
    ];
    run_family(cases);
}

/// The triangular sum `0 + 1 + ... + (n - 1)`: LLVM's closed form needs 33
/// bits, so kernels with such a loop take the native-widths -O2 pipeline
/// (`frontend::optimize_with_native_widths`), as do switches on `x & 15`.
fn tri(n: i32) -> i32 {
    n * (n - 1) / 2
}

/// Dense switches that pick constants: with native integer widths
/// SimplifyCFG would turn them into lookup tables (a private array in the
/// default address space), bitmaps (`i56` for seven chars) or linear maps,
/// which failed to build; several cases sharing a target gave a phi that
/// named the switch block once per case (invalid SPIR-V).
#[test]
fn switch_tables() {
    let n = N;
    let a: Vec<i32> = ints(110);
    let b: Vec<i32> = ints(111);
    let sa = small_ints(112, n, 120);
    let pick = |x: i32| match x % 7 {
        0 => 13,
        1 => 27,
        2 => -5,
        3 => 99,
        4 => 1000,
        5 => 7,
        6 => 42,
        _ => -1,
    };
    let cases = vec![
        map2(
            "cf_switch_table_int.cl",
            a.clone(),
            b.clone(),
            0,
            move |x: i32, y: i32| [pick(x), tri(x & 255) + pick(y)],
        ),
        map1("cf_switch_table_long.cl", a.clone(), 0, |x: i32| {
            [match x & 15 {
                0 => 1,
                1 => 5_000_000_000,
                2 => -3,
                3 => i64::MAX,
                4 => -9_000_000_000_000,
                5 => 9,
                6 => 100,
                _ => 0,
            }]
        }),
        map2(
            "cf_switch_table_char.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let r: i8 = match x & 15 {
                    0 => 1,
                    1 => 5,
                    2 => -3,
                    3 => 127,
                    4 => -128,
                    5 => 9,
                    6 => 100,
                    _ => 0,
                };
                let u: u8 = match y & 7 {
                    0 => 200,
                    1 => 17,
                    2 => 255,
                    _ => 3,
                };
                [r, u as i8]
            },
        ),
        map2(
            "cf_switch_table_short.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let r: i16 = match x & 7 {
                    0 => 1,
                    1 => -32768,
                    2 => 32767,
                    3 => 12345,
                    4 => -2,
                    _ => 77,
                };
                let u: u16 = match y & 3 {
                    0 => 65535,
                    1 => 1,
                    2 => 40000,
                    _ => 300,
                };
                [r, u as i16]
            },
        ),
        map2(
            "cf_switch_table_float.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let r = match x & 15 {
                    0 => 1.5,
                    1 => 2.25,
                    2 => -3.0,
                    3 => 7.0,
                    4 => 0.125,
                    5 => 9.5,
                    6 => 1e30,
                    _ => 0.0,
                };
                let t = match y as u32 % 5 {
                    0 => -1.0,
                    1 => 0.5,
                    2 => 3.75,
                    3 => -0.0,
                    _ => 100.0,
                };
                [r, t]
            },
        ),
        map2(
            "cf_switch_table_loop.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let (mut s, mut c) = (0i64, 0i64);
                for j in 0..(x & 63) {
                    s += match (j + (y & 7)) & 7 {
                        0 => 3,
                        1 => 1_000_000_007,
                        2 => -11,
                        3 => 64,
                        4 => 5,
                        5 => -1,
                        _ => 2,
                    };
                    c += match j % 6 {
                        0 => 1,
                        1 => 10,
                        2 => 100,
                        3 => 7,
                        4 => 70,
                        _ => 700,
                    };
                }
                [s, c]
            },
        ),
        map2(
            "cf_switch_table_large.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                const R: [i32; 32] = [
                    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, -59, -61, -67, -71,
                    -73, -79, -83, -89, 97000, 101000, 103000, 107000, 109000, 113000, 127000,
                    131000,
                ];
                let k = y & 15;
                [R[(x & 31) as usize], k * k]
            },
        ),
        map2(
            "cf_switch_table_sparse.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let r = match x & 15 {
                    1 => 10,
                    2 => 20,
                    4 => 40,
                    5 => -50,
                    8 => 80,
                    9 => 90,
                    11 => 110,
                    _ => -1,
                };
                let (p, q) = match y & 7 {
                    0 => (3, -3),
                    1 => (1, 400),
                    2 => (4, 1),
                    3 => (1, -5),
                    4 => (5, 9),
                    _ => (9, 2),
                };
                [r, p, q]
            },
        ),
        map2(
            "cf_switch_table_linear.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let k = x & 15;
                let r = if k <= 5 { 10 * (k + 1) } else { 0 };
                let odd = i32::from(matches!(x & 7, 1 | 3 | 5 | 6));
                [r, odd, tri(y & 127)]
            },
        ),
        map2(
            "cf_switch_table_nested.cl",
            a.iter().map(|&x| x as u32).collect(),
            b.iter().map(|&y| y as u32).collect(),
            0,
            |x: u32, y: u32| {
                let cell = |x: u32, y: u32| -> u32 {
                    match x & 3 {
                        0 => [1, 2, 3, 4][(y & 3) as usize],
                        1 => [50, 60, 70, 80][(y & 3) as usize],
                        2 => [0xffff_ffff, 7, 0x8000_0000][(y % 3) as usize],
                        _ => 9,
                    }
                };
                [(0..8).fold(0u32, |s, j| {
                    s.wrapping_add(cell(x >> (2 * j), y >> (3 * j)))
                })]
            },
        ),
        map1("cf_switch_table_double.cl", a.clone(), 0, |x: i32| {
            let r: f64 = match x & 15 {
                0 => 0.1,
                1 => -2.5,
                2 => 1e300,
                3 => 3.0,
                4 => 4.75,
                5 => -1e-300,
                6 => 6.0,
                _ => 0.0,
            };
            [r.to_bits() as i64]
        })
        .requires("cl_khr_fp64"),
        map2(
            "cf_switch_shared_target.cl",
            sa,
            b.clone(),
            0,
            |x: i32, y: i32| {
                [match x {
                    1 | 3 | 5 | 6 | 100 => 1,
                    -7 | 8 => -1,
                    _ => y,
                }]
            },
        ),
    ];
    run_family(cases);
}

/// Kernels added in a second pass, across families: more control flow,
/// conversions, vectors, integer and float built-ins, program-scope data.
#[test]
fn mixed_second_pass() {
    let n = N;
    let a: Vec<i32> = ints(100);
    let b: Vec<i32> = ints(101);
    let fa = floats(102, n, 100.0);
    let fb = floats(103, n, 100.0);
    let sa = small_floats(104, n, 50);
    let sb = small_floats(105, n, 50);
    let a8: Vec<i8> = ints(106);
    let b8: Vec<u8> = ints(107);
    let a16: Vec<i16> = ints(108);
    let l_a: Vec<i64> = ints(109);
    let l_b: Vec<i64> = ints(110);
    let u_a: Vec<u32> = ints(111);
    let u_b: Vec<u32> = ints(112);
    let packed: Vec<u8> = a8
        .iter()
        .zip(&a)
        .flat_map(|(&c, &x)| {
            let mut r = [c as u8, 0, 0, 0, 0];
            r[1..].copy_from_slice(&x.to_le_bytes());
            r
        })
        .collect();
    let ops = [(1, 0), (2, 1), (-1, 7), (5, -3)];
    let offsets = [10, 20, 30, 40];
    let cases = vec![
        map1("cf_state_machine.cl", a.clone(), 0, |x: i32| {
            let (mut state, mut count) = (0, 0);
            for j in 0..32 {
                let bit = (x as u32 >> j) & 1 != 0;
                state = match state {
                    0 => bit as i32,
                    1 => 2 * bit as i32,
                    _ if !bit => {
                        count += 1;
                        0
                    }
                    s => s,
                };
            }
            [count * 4 + state]
        }),
        map1("cf_loop_with_flags.cl", a.clone(), 0, |x: i32| {
            let t = x & 63;
            [(t / 8) * 100 + t % 8]
        }),
        map1(
            "conv_char_sat_rte.cl",
            with(
                floats(113, n, 300.0),
                &[NAN, INF, -INF, 0.5, 1.5, -2.5, 127.5, -128.5],
            ),
            0,
            |x: f32| [x.round_ties_even() as i8],
        ),
        map1("conv_ushort_sat_int.cl", a.clone(), 0, |x: i32| {
            [x.clamp(0, 65535) as u16]
        }),
        map2("conv_promotion.cl", a8.clone(), b8, 0, |x: i8, y: u8| {
            let (x, y) = (i32::from(x), i32::from(y));
            [x * y, (x + y) >> 1]
        }),
        vec_case(
            "conv_short4_int4.cl",
            a16,
            vec![0i32],
            n / 4,
            ints::<i16>(108).iter().map(|&x| i32::from(x) * 3).collect(),
            0,
        ),
        vec_case(
            "vec_float3_ops.cl",
            sa[..255].to_vec(),
            sb[..255].to_vec(),
            85,
            sa[..255]
                .chunks(3)
                .zip(sb[..255].chunks(3))
                .flat_map(|(v, w)| [v[0] * w[0] + v[1], v[1] * w[1] + v[2], v[2] * w[2] + v[0]])
                .collect(),
            0,
        ),
        vec_case(
            "vec_int8_select.cl",
            a.clone(),
            b.clone(),
            n / 8,
            a.iter().zip(&b).map(|(&x, &y)| x.max(y)).collect(),
            0,
        ),
        vec_case(
            "vec_int4_ternary.cl",
            a.clone(),
            b.clone(),
            n / 4,
            a.iter()
                .zip(&b)
                .map(|(&x, &y)| {
                    if x > y {
                        x.wrapping_sub(y)
                    } else {
                        y.wrapping_sub(x)
                    }
                })
                .collect(),
            0,
        ),
        vec_case(
            "vec_int4_logical.cl",
            a.clone(),
            b.clone(),
            n / 4,
            a.iter()
                .zip(&b)
                .map(|(&x, &y)| {
                    -i32::from(x != 0 && y != 0)
                        - 2 * i32::from(x != 0 || y != 0)
                        - 4 * i32::from(x == 0)
                })
                .collect(),
            0,
        ),
        map2("int_mul24.cl", a.clone(), b.clone(), 0, |x: i32, y: i32| {
            let (x, y) = (x >> 8, y >> 24);
            [x * y, x * y + x]
        }),
        map2(
            "int_mad_sat.cl",
            a.clone(),
            b.clone(),
            0,
            |x: i32, y: i32| {
                let r = i64::from(x) * i64::from(y) + i64::from(x);
                [r.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32]
            },
        ),
        map2("int_bitwise_long.cl", l_a, l_b, 0, |x: i64, y: i64| {
            [x & y, x | y, x ^ y, !x]
        }),
        vec_case(
            "int_uint4_rotate.cl",
            u_a.clone(),
            u_b.clone(),
            n / 4,
            u_a.iter()
                .zip(&u_b)
                .map(|(&x, &y)| x.rotate_left(y % 32))
                .collect(),
            0,
        ),
        map1(
            "float_fract_modf.cl",
            with(fa.clone(), &[-0.5, 3.0, -7.25]),
            0,
            |x: f32| {
                [
                    (x - x.floor()).min(f32::from_bits(0x3f7f_ffff)),
                    x.floor(),
                    x - x.trunc(),
                    x.trunc(),
                ]
            },
        ),
        map2(
            "float_fdim_maxmag.cl",
            fa.clone(),
            fb.clone(),
            0,
            |x: f32, y: f32| {
                let maxmag = if x.abs() > y.abs() {
                    x
                } else if y.abs() > x.abs() {
                    y
                } else {
                    x.max(y)
                };
                let minmag = if x.abs() < y.abs() {
                    x
                } else if y.abs() < x.abs() {
                    y
                } else {
                    x.min(y)
                };
                [if x > y { x - y } else { 0.0 }, maxmag, minmag]
            },
        ),
        map2(
            "float_common.cl",
            with(fa.clone(), &[0.0, -0.0, 5.0]),
            with(fb.clone(), &[1.0, 1.0, 5.0]),
            0,
            |x: f32, y: f32| {
                let sign = if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                };
                [
                    sign,
                    if x < y { 0.0 } else { 1.0 },
                    x.clamp(-10.0, 10.0),
                    x.max(y),
                ]
            },
        ),
        map2(
            "as_constant_struct_table.cl",
            a.clone(),
            b.clone(),
            0,
            move |x: i32, y: i32| {
                let (m, c) = ops[(x & 3) as usize];
                [y.wrapping_mul(m).wrapping_add(c)]
            },
        ),
        raw(
            "as_program_scope_global.cl",
            a.clone(),
            vec![0i32],
            global(n),
            vec![0; n],
            (0..n)
                .map(|i| a[i].wrapping_mul(3).wrapping_add(offsets[i & 3]))
                .collect(),
            0,
        )
        .cl3()
        .requires("__opencl_c_program_scope_global_variables"),
        raw(
            "struct_packed.cl",
            packed,
            vec![0i32],
            global(n),
            vec![0; 2 * n],
            a8.iter()
                .zip(&a)
                .flat_map(|(&c, &x)| [i32::from(c), x])
                .collect(),
            0,
        ),
    ];
    run_family(cases);
}

/// Constructs real applications use that the compiler got wrong: by-value
/// aggregates modified in the callee (the caller's copy changed, at -O0
/// and wherever the call stays); irreducible loops (`goto` into a loop,
/// Duff's device: build errors), also as IL programs.
#[test]
fn real_world_constructs() {
    let a: Vec<i32> = (0..64).map(|i| i * 3 + 1).collect();
    let b: Vec<i32> = (0..64).map(|i| 10 - i).collect();
    let byval = |x: i32, y: i32| {
        let consume = |k: i32| (0..4).map(|j| (x + j + k) * (y - j)).sum::<i32>() + 99;
        [consume(1), consume(2), x + 1]
    };
    let cases = vec![
        map2("fn_byval_struct.cl", a.clone(), b.clone(), 0, byval),
        map2("fn_byval_struct.cl", a.clone(), b.clone(), 0, byval)
            .options("-cl-std=CL1.2 -cl-opt-disable"),
    ];
    let goto_into_loop = |x: i32, y: i32| {
        let (n, mut s, mut j) = (y & 15, 0i32, 0i32);
        let mut inside = x & 1 != 0;
        while inside || j < n {
            if !inside {
                s = s.wrapping_add(j * 3);
            }
            inside = false;
            s ^= x.wrapping_add(j);
            j += 1;
        }
        [s]
    };
    let duff = |x: i32, y: i32| {
        let (mut s, mut acc) = (x, 0i32);
        for _ in 0..(y & 31) {
            acc = acc.wrapping_mul(3).wrapping_add(s);
            s = s.wrapping_add(1);
        }
        [acc]
    };
    let mut cases = cases;
    for options in ["-cl-std=CL1.2", "-cl-std=CL1.2 -cl-opt-disable"] {
        cases.push(
            map2(
                "cf_goto_into_loop.cl",
                a.clone(),
                b.clone(),
                0,
                goto_into_loop,
            )
            .options(options),
        );
        cases.push(map2("cf_duffs_device.cl", a.clone(), b.clone(), 0, duff).options(options));
    }
    cases.push(
        map2(
            "cf_goto_into_loop.cl",
            a.clone(),
            b.clone(),
            0,
            goto_into_loop,
        )
        .il(),
    );
    // (Duff's device has no IL case: llvm-spirv-15 cannot translate the
    // `i3` switch clang's -O2 makes of it, with or without
    // SPV_INTEL_arbitrary_precision_integers.)
    run_family(cases);
}

/// Kernels reduced from ferrocl-fuzz findings (`src/bin/ferrocl-fuzz.rs`):
/// each is the smallest form of a ferrocl bug the differential fuzzer found
/// against PoCL.
#[test]
fn fuzz_findings() {
    const FILL: u64 = 0xA5A5_5A5A_DEAD_BEEF;
    let a: Vec<u64> = ints(200);
    let la: Vec<i64> = ints(201);
    let ia: Vec<i32> = ints(202);
    let ib: Vec<i32> = ints(203);
    let cases = vec![
        map1("fuzz_popcount_wide.cl", a.clone(), 0, |x: u64| {
            let mut r = [0u64; 32];
            let bytes: Vec<u8> = x
                .to_le_bytes()
                .into_iter()
                .chain((!x).to_le_bytes())
                .collect();
            for (j, b) in bytes.iter().enumerate() {
                r[j] = u64::from(b.count_ones());
            }
            let y = x.wrapping_mul(3);
            let halves: Vec<u16> = x
                .to_le_bytes()
                .chunks(2)
                .chain(y.to_le_bytes().chunks(2))
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            for (j, h) in halves.iter().enumerate() {
                r[16 + j] = u64::from(h.count_ones());
            }
            let longs = [x, x >> 1, x >> 2, x >> 3, x << 1, x << 2, x << 3, !x];
            for (j, l) in longs.iter().enumerate() {
                r[24 + j] = u64::from(l.count_ones());
            }
            r
        }),
        map1("fuzz_convert_sat_widen.cl", la.clone(), 0, |x: i64| {
            [
                i64::from(x as i8),
                i64::from(x as i8),
                i64::from(x as i8),
                i64::from(x as i16),
                i64::from(x as i16),
                i64::from(x as i32),
                i64::from((x >> 16) as i16),
                i64::from((x >> 8) as i8),
            ]
        }),
        raw(
            "fuzz_constinit_private.cl",
            ia.clone(),
            ib.clone(),
            global(N),
            vec![0i32; 3 * N],
            (0..N)
                .flat_map(|i| {
                    let rows = [[-108, 5, 1, 2, 3, 4, 5, 6], [ia[i], 7, 0, 0, 0, 0, 0, 0]];
                    let f = [10, 20, 30, 40, 50, 60, 70, 80];
                    [
                        rows[(ib[i] & 1) as usize][i & 7],
                        rows[0][(ia[i] & 7) as usize],
                        f[(ia[i] & 7) as usize] ^ ib[i],
                    ]
                })
                .collect(),
            0,
        ),
        raw(
            "fuzz_loop_exit_value.cl",
            ia.clone(),
            ib.clone(),
            global(N),
            vec![0i32; 2 * N],
            (0..N)
                .flat_map(|i| [ia[0], (ib[i] & 3).max(1) - 1])
                .collect(),
            0,
        ),
        {
            let sat = a[0].min(0xffff);
            let want: Vec<u64> = [vec![(sat << 16) | sat; N], vec![0; N]].concat();
            raw(
                "fuzz_loop_exit_converted.cl",
                a.clone(),
                ib.clone(),
                groups(N, 16),
                vec![FILL; 2 * N],
                want,
                0,
            )
        },
        map1("fuzz_sconvert_compare.cl", ia.clone(), 0, |x: i32| {
            let x = i64::from(x);
            [
                i64::from(x < 6),
                i64::from(5 >= x),
                i64::from(0 < x),
                i64::from(x >= 7),
                x,
                -i64::from(x < 6),
                i64::from(x * 3 > 6),
                i64::from(-x <= 2),
            ]
        }),
        raw(
            "fuzz_dangling_decoration.cl",
            a.clone(),
            ib.clone(),
            global(N),
            vec![0u64; 2 * N],
            (0..N)
                .flat_map(|_| {
                    let last = if a[0] as u16 != 0 {
                        (-127i32 >> (a[0] & 31)) as i8 as i64 as u64
                    } else {
                        0
                    };
                    [0, last]
                })
                .collect(),
            0,
        ),
        raw(
            "fuzz_sat_convert_in_loop.cl",
            a.clone(),
            vec![0i32; N],
            global(N),
            vec![FILL; 4 * N],
            (0..N)
                .flat_map(|_| {
                    let mix = |h: u64, v: u64| {
                        let h = (h ^ v).wrapping_mul(0x100_0000_01B3);
                        h ^ (h >> 32)
                    };
                    let mut h = 0xcbf2_9ce4_8422_2325u64;
                    for _ in 0..5 {
                        h = mix(mix(h, 1), FILL);
                    }
                    [h, FILL, FILL, FILL]
                })
                .collect(),
            0,
        ),
        raw(
            "fuzz_native_widths_reduce.cl",
            a.clone(),
            vec![0i32; N],
            global(N),
            vec![0u64; N],
            (0..N)
                .map(|i| {
                    let h: u64 = match (a[1] as i32).min(0) & 7 {
                        1 | 7 => 0,
                        _ => 0xcbf2_9ce4_8422_2325,
                    };
                    let s = (1u32 & !(i as u32)) | (0x8000_0001u32 & i as u32);
                    let m = ((a[0] as u8) as u32 >> (s & 31)) as u8;
                    let mut v = a[0] as u8;
                    for _ in 0..20 {
                        v = v.wrapping_mul(m);
                    }
                    u64::from(v) ^ h
                })
                .collect(),
            0,
        ),
    ];
    run_family(cases);
}
