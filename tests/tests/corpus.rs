//! The execution corpus: small OpenCL C kernels, one feature per file in
//! `tests/corpus/`, each run through the ICD and checked against a CPU
//! reference computed here.
//!
//! Convention: every corpus file defines one kernel named `k` taking three
//! buffers, `k(A* a, B* b, R* out)`: two inputs (declared `global const`
//! or `constant`; a kernel that needs one input ignores `b`) and the
//! output. A kernel writing several results per work-item writes
//! `out[m * i + j]`; vectors are flattened to their scalars. `out` starts
//! as `Case::init` (zeroes unless given), so atomics can accumulate in it.
//! Files build with `-cl-std=CL1.2` unless the case says otherwise.
//!
//! Each [`Case`] names its file, inputs, NDRange and the expected output:
//! integers must match exactly, floats within the case's ulp bound (NaN
//! matches NaN). A case marked `known_bug` is a ferrocl bug found by the
//! corpus: its failure is reported on stderr and does not fail the test
//! (a known bug that passes is reported too, so the mark can be removed).
//! One test function per feature family; a failure lists every failing
//! file of the family.

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
    /// An extension the device must report, else the case is skipped.
    requires: Option<&'static str>,
    known_bug: Option<&'static str>,
    run: Runner,
}

impl Case {
    fn cl3(mut self) -> Self {
        self.options = "-cl-std=CL3.0";
        self
    }
    fn requires(mut self, ext: &'static str) -> Self {
        self.requires = Some(ext);
        self
    }
    #[allow(dead_code)]
    fn known_bug(mut self, what: &'static str) -> Self {
        self.known_bug = Some(what);
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
    let extensions = device_string(cl.device(), sys::CL_DEVICE_EXTENSIONS);
    let mut failures = Vec::new();
    for case in cases {
        if let Some(ext) = case.requires {
            if !extensions.split_whitespace().any(|e| e == ext) {
                eprintln!("corpus/{}: skipped, device lacks {ext}", case.file);
                continue;
            }
        }
        let path = format!("{}/corpus/{}", env!("CARGO_MANIFEST_DIR"), case.file);
        let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let result = cl
            .try_build(&source, case.options)
            .map_err(|e| format!("build failed: {e}"))
            .and_then(|program| {
                let kernel = program
                    .try_kernel("k")
                    .map_err(|e| format!("clCreateKernel failed: {e}"))?;
                (case.run)(&cl, &kernel)
            });
        match (result, case.known_bug) {
            (Ok(()), None) => {}
            (Ok(()), Some(bug)) => {
                eprintln!("corpus/{}: known bug now passes ({bug})", case.file)
            }
            (Err(e), Some(bug)) => {
                eprintln!("corpus/{}: KNOWN BUG ({bug}): {e}", case.file)
            }
            (Err(e), None) => failures.push(format!("corpus/{}: {e}", case.file)),
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
        v.push(T::from_u64(if x & 1 == 0 { (x >> 1) % 300 } else { x >> 1 }));
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
            map2(concat!("int_arith_", $name, ".cl"), a.clone(), b.clone(), 0, |x: $t, y: $t| {
                [x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y)]
            }),
            map2(concat!("int_divrem_", $name, ".cl"), a.clone(), div_b, 0, |x: $t, y: $t| {
                [x.wrapping_div(y), x.wrapping_rem(y)]
            }),
            map2(concat!("int_shift_", $name, ".cl"), a.clone(), shift_b, 0, |x: $t, y: $t| {
                [x.wrapping_shl(y as u32), x.wrapping_shr(y as u32)]
            }),
            map2(concat!("int_rotate_", $name, ".cl"), a.clone(), b.clone(), 0, |x: $t, y: $t| {
                [x.rotate_left((y as u64 % u64::from(W)) as u32)]
            }),
            map2(concat!("int_sat_", $name, ".cl"), a.clone(), b.clone(), 0, |x: $t, y: $t| {
                [x.saturating_add(y), x.saturating_sub(y)]
            }),
            map2(concat!("int_hadd_", $name, ".cl"), a.clone(), b.clone(), 0, move |x: $t, y: $t| {
                [narrow((wide(x) + wide(y)) >> 1), narrow((wide(x) + wide(y) + 1) >> 1)]
            }),
            map2(concat!("int_mulhi_", $name, ".cl"), a.clone(), b.clone(), 0, move |x: $t, y: $t| {
                let hi = narrow(wide(x).wrapping_mul(wide(y)) >> W);
                [hi, hi.wrapping_add(x)]
            }),
            map1(concat!("int_bits_", $name, ".cl"), a.clone(), 0, |x: $t| {
                [x.leading_zeros() as $t, x.count_ones() as $t]
            }),
            map2(concat!("int_abs_", $name, ".cl"), a.clone(), b.clone(), 0, move |x: $t, y: $t| {
                [wide(x).unsigned_abs() as $u, (wide(x) - wide(y)).unsigned_abs() as $u]
            }),
            map2(concat!("int_minmax_", $name, ".cl"), a.clone(), b.clone(), 0, |x: $t, y: $t| {
                [x.min(y), x.max(y), x.clamp(10, 100)]
            }),
        ]
    }};
}

macro_rules! upsample_case {
    ($t:ty, $u:ty, $w:ty, $name:literal) => {{
        let a: Vec<$t> = ints(3);
        let b: Vec<$u> = ints(4);
        map2(concat!("int_upsample_", $name, ".cl"), a, b, 0, |x: $t, y: $u| {
            [((x as $w) << <$t>::BITS) | (y as $w)]
        })
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
    run_family(cases);
}

#[test]
fn integer_ops_32_64() {
    let mut cases = int_family!(i32, u32, "int");
    cases.extend(int_family!(u32, u32, "uint"));
    cases.extend(int_family!(i64, u64, "long"));
    cases.extend(int_family!(u64, u64, "ulong"));
    cases.push(upsample_case!(i32, u32, i64, "int"));
    cases.push(upsample_case!(u32, u32, u64, "uint"));
    run_family(cases);
}
