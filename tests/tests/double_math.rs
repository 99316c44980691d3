//! Double-precision math builtins (linked from libclc by the compiler) on
//! `double` and `double4`: each function over special values (±0,
//! subnormals, ±inf, NaN, huge trigonometric arguments, arguments outside
//! the domain) and a few thousand pseudo-random arguments across its range,
//! against a long double reference (`ferrocl_tests::mathref`), within the
//! OpenCL C specification's double-precision ULP bounds (§7.4; the same
//! numbers as the CTS's math_brute_force). NaN, infinities and the sign of
//! exact zeros must match the reference.
//!
//! `cargo test -p ferrocl-tests --test double_math -- --nocapture` prints
//! the largest error of every function.

use ferrocl_tests::mathref::{pad4, reference, ulp_error, Reference, Rng};
use ferrocl_tests::{device_value, Buffer, Cl, KernelArg};
use opencl_sys::{cl_device_fp_config, CL_DEVICE_DOUBLE_FP_CONFIG};

/// How a builtin is called.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `f(x)`.
    Unary,
    /// `f(x, y)`.
    Binary,
    /// `f(x, n)` with an int `n` (pown, rootn).
    WithInt,
    /// `sincos(x, &c)`: sin, then cos.
    SinCos,
    /// `lgamma_r(x, &sign)`.
    LgammaR,
}

const SPECIAL: &[f64] = &[
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    1e-310,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    1e-300,
    1e-20,
    -1e-8,
    0.1,
    0.25,
    0.5,
    -0.5,
    0.75,
    1.0,
    -1.0,
    1.5,
    2.0,
    -2.0,
    2.5,
    3.0,
    -3.5,
    10.0,
    -10.0,
    100.5,
    700.0,
    709.7,
    710.0,
    -745.0,
    1e10,
    1e22,
    -1e22,
    1e100,
    1e300,
    f64::MAX,
    -f64::MAX,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

/// Fewer special values, for the grid of two-argument functions.
const SPECIAL_PAIRS: &[f64] = &[
    0.0,
    -0.0,
    5e-324,
    0.5,
    1.0,
    -1.0,
    2.0,
    -2.0,
    3.0,
    -3.5,
    0.75,
    1e300,
    -1e300,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

/// The int arguments of pown and rootn (cycled).
const INTS: &[i32] = &[
    0, 1, -1, 2, -2, 3, -3, 4, 5, -5, 7, -8, 10, -10, 31, -31, 100, 1000, -1000,
];

/// Arguments of a one-argument function: the special values, then random
/// ones at several scales.
fn unary_args(seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed);
    let mut x = SPECIAL.to_vec();
    for (n, lo, hi) in [
        (512, -1.0, 1.0),
        (512, -8.0, 8.0),
        (512, -100.0, 100.0),
        (256, -1000.0, 1000.0),
    ] {
        x.extend((0..n).map(|_| rng.uniform(lo, hi)));
    }
    x.extend((0..1024).map(|_| rng.any_finite()));
    x
}

/// Arguments of a two-double function.
fn binary_args(seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for &a in SPECIAL_PAIRS {
        for &b in SPECIAL_PAIRS {
            x.push(a);
            y.push(b);
        }
    }
    for _ in 0..512 {
        x.push(rng.uniform(-10.0, 10.0));
        y.push(rng.uniform(-10.0, 10.0));
    }
    for _ in 0..512 {
        x.push(rng.any_finite());
        y.push(rng.any_finite());
    }
    // pow's interesting range: moderate bases, exponents up to ±60,
    // negative bases with integral exponents.
    for _ in 0..512 {
        x.push(rng.uniform(0.0, 4.0));
        y.push(rng.uniform(-60.0, 60.0));
    }
    for _ in 0..256 {
        x.push(rng.uniform(-4.0, 0.0));
        y.push(rng.uniform(-40.0, 40.0).round());
    }
    (x, y)
}

/// Arguments of pown / rootn: every special value with every int, then
/// random values with the ints cycled.
fn int_args(seed: u64) -> (Vec<f64>, Vec<i32>) {
    let (mut x, mut n) = (Vec::new(), Vec::new());
    for &a in SPECIAL {
        for &k in INTS {
            x.push(a);
            n.push(k);
        }
    }
    for (i, a) in unary_args(seed).into_iter().enumerate() {
        x.push(a);
        n.push(INTS[i % INTS.len()]);
    }
    (x, n)
}

/// The kernels `s` (doubles) and `v` (double4) calling `name`.
fn source(name: &str, shape: Shape) -> String {
    let mut src = String::from("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    for (kernel, w) in [("s", ""), ("v", "4")] {
        let d = format!("double{w}");
        let i = format!("int{w}");
        let (params, body) = match shape {
            Shape::Unary => (
                format!("global const {d} *x, global {d} *o"),
                format!("o[i] = {name}(x[i]);"),
            ),
            Shape::Binary => (
                format!("global const {d} *x, global const {d} *y, global {d} *o"),
                format!("o[i] = {name}(x[i], y[i]);"),
            ),
            Shape::WithInt => (
                format!("global const {d} *x, global const {i} *n, global {d} *o"),
                format!("o[i] = {name}(x[i], n[i]);"),
            ),
            Shape::SinCos => (
                format!("global const {d} *x, global {d} *o, global {d} *c"),
                format!("{d} k; o[i] = sincos(x[i], &k); c[i] = k;"),
            ),
            Shape::LgammaR => (
                format!("global const {d} *x, global {d} *o, global {i} *s"),
                format!("{i} k; o[i] = lgamma_r(x[i], &k); s[i] = k;"),
            ),
        };
        src.push_str(&format!(
            "kernel void {kernel}({params}) {{ size_t i = get_global_id(0); {body} }}\n"
        ));
    }
    src
}

/// What one function's check found: its largest error and the failures.
/// The error a result may have: `ulps`, or, where `absolute` is not 0,
/// an absolute error of at most `absolute`.
#[derive(Clone, Copy)]
struct Bound {
    ulps: f64,
    absolute: f64,
}

#[derive(Default)]
struct Report {
    max_ulps: f64,
    worst: String,
    failures: Vec<String>,
}

impl Report {
    fn record(&mut self, what: &str, args: String, got: f64, r: &Reference, bound: Bound) {
        let absolute = ((got - r.hi) - r.lo).abs();
        match ulp_error(got, r) {
            Ok(e) if e <= bound.ulps || absolute <= bound.absolute => {
                if e > self.max_ulps {
                    self.max_ulps = e;
                    self.worst = format!("{what}({args}) = {got:e}");
                }
            }
            Ok(e) => self.failures.push(format!(
                "{what}({args}) = {got:e}, want {:e} ({e:.2} ulp > {})",
                r.hi, bound.ulps
            )),
            Err(why) => self
                .failures
                .push(format!("{what}({args}) = {got:e}: {why}")),
        }
    }
}

fn require_fp64(cl: &Cl) {
    let config: cl_device_fp_config = device_value(cl.device(), CL_DEVICE_DOUBLE_FP_CONFIG);
    assert!(
        config != 0,
        "the device under test has no double precision (CL_DEVICE_DOUBLE_FP_CONFIG is 0)"
    );
}

/// Runs kernel `kernel` over `n` work-items with `args`.
fn launch(
    cl: &Cl,
    program: &ferrocl_tests::Program,
    kernel: &str,
    n: usize,
    args: &[&dyn KernelArg],
) {
    let k = program.kernel(kernel);
    for (i, a) in args.iter().enumerate() {
        k.arg(i as u32, *a);
    }
    cl.queue.run(&k, &[n], None);
}

/// Checks `name` of `shape` on double and double4 against the reference
/// within `bound`.
fn check_function(name: &str, shape: Shape, bound: Bound) {
    check_built(name, shape, bound, false);
}

/// `check_function`, the program built from source or, where `il`, from
/// the SPIR-V clang-15 and llvm-spirv-15 make of it
/// (clCreateProgramWithIL).
fn check_built(name: &str, shape: Shape, bound: Bound, il: bool) {
    let cl = Cl::new();
    require_fp64(&cl);
    let seed = name.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    let (mut x, mut y, mut n) = match shape {
        Shape::Binary => {
            let (x, y) = binary_args(seed);
            (x, y, Vec::new())
        }
        Shape::WithInt => {
            let (x, n) = int_args(seed);
            (x, Vec::new(), n)
        }
        _ => (unary_args(seed), Vec::new(), Vec::new()),
    };
    pad4(&mut x);
    if !y.is_empty() {
        pad4(&mut y);
    }
    if !n.is_empty() {
        pad4(&mut n);
    }
    let len = x.len();
    let program = if il {
        cl.try_build_il(&source(name, shape), "")
    } else {
        cl.try_build(&source(name, shape), "")
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let dx = cl.buffer_from(&x);
    let mut report = Report::default();
    for (kernel, items, what) in [
        ("s", len, name.to_string()),
        ("v", len / 4, format!("{name}4")),
    ] {
        let o: Buffer<f64> = cl.buffer(len);
        let second_f: Buffer<f64> = cl.buffer(len);
        let second_i: Buffer<i32> = cl.buffer(len);
        match shape {
            Shape::Unary => launch(&cl, &program, kernel, items, &[&dx, &o]),
            Shape::Binary => {
                let dy = cl.buffer_from(&y);
                launch(&cl, &program, kernel, items, &[&dx, &dy, &o]);
            }
            Shape::WithInt => {
                let dn = cl.buffer_from(&n);
                launch(&cl, &program, kernel, items, &[&dx, &dn, &o]);
            }
            Shape::SinCos => launch(&cl, &program, kernel, items, &[&dx, &o, &second_f]),
            Shape::LgammaR => launch(&cl, &program, kernel, items, &[&dx, &o, &second_i]),
        }
        let got = cl.queue.read(&o);
        let (cos, sign) = match shape {
            Shape::SinCos => (cl.queue.read(&second_f), Vec::new()),
            Shape::LgammaR => (Vec::new(), cl.queue.read(&second_i)),
            _ => (Vec::new(), Vec::new()),
        };
        for i in 0..len {
            let (yi, ni) = (
                y.get(i).copied().unwrap_or(0.0),
                n.get(i).copied().unwrap_or(0),
            );
            let args = match shape {
                Shape::Binary => format!("{:e}, {yi:e}", x[i]),
                Shape::WithInt => format!("{:e}, {ni}", x[i]),
                _ => format!("{:e}", x[i]),
            };
            match shape {
                Shape::SinCos => {
                    let s = reference("sin", x[i], 0.0, 0);
                    report.record(&format!("{what}.sin"), args.clone(), got[i], &s, bound);
                    let c = reference("cos", x[i], 0.0, 0);
                    report.record(&format!("{what}.cos"), args, cos[i], &c, bound);
                }
                Shape::LgammaR => {
                    let r = reference("lgamma_r", x[i], 0.0, 0);
                    report.record(&what, args.clone(), got[i], &r, bound);
                    // The sign is defined where the result is finite and
                    // the argument not a pole.
                    let pole = x[i] <= 0.0 && x[i] == x[i].floor();
                    if r.hi.is_finite() && !pole && sign[i] != r.sign {
                        report.failures.push(format!(
                            "{what}({args}) sign = {}, want {}",
                            sign[i], r.sign
                        ));
                    }
                }
                _ => {
                    let r = reference(name, x[i], yi, ni);
                    report.record(&what, args, got[i], &r, bound);
                }
            }
        }
    }
    println!(
        "{name:>9}: max {:.3} ulp over {len} arguments ({})",
        report.max_ulps, report.worst
    );
    if !report.failures.is_empty() {
        let shown: Vec<&String> = report.failures.iter().take(12).collect();
        panic!(
            "{name}: {} results out of bounds, e.g.\n  {}",
            report.failures.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n  ")
        );
    }
}

/// One #[test] per builtin: name, shape, bound in ulps (OpenCL C §7.4,
/// double precision), and optionally an absolute error bound accepted
/// instead.
macro_rules! ulp_tests {
    ($($name:ident: $shape:ident, $ulps:expr $(, absolute $abs:expr)?;)*) => {
        $(
            #[test]
            fn $name() {
                let bound = Bound { ulps: $ulps, absolute: 0.0 $(+ $abs)? };
                check_function(stringify!($name), Shape::$shape, bound);
            }
        )*
    };
}

ulp_tests! {
    acos: Unary, 4.0;
    acosh: Unary, 4.0;
    acospi: Unary, 5.0;
    asin: Unary, 4.0;
    asinh: Unary, 4.0;
    asinpi: Unary, 5.0;
    atan: Unary, 5.0;
    atanh: Unary, 5.0;
    atanpi: Unary, 5.0;
    atan2: Binary, 6.0;
    atan2pi: Binary, 6.0;
    cbrt: Unary, 2.0;
    cos: Unary, 4.0;
    cosh: Unary, 4.0;
    cospi: Unary, 4.0;
    erf: Unary, 16.0;
    erfc: Unary, 16.0;
    exp: Unary, 3.0;
    exp2: Unary, 3.0;
    exp10: Unary, 3.0;
    expm1: Unary, 3.0;
    hypot: Binary, 4.0;
    log: Unary, 3.0;
    log2: Unary, 3.0;
    log10: Unary, 3.0;
    log1p: Unary, 2.0;
    pow: Binary, 16.0;
    pown: WithInt, 16.0;
    powr: Binary, 16.0;
    rootn: WithInt, 16.0;
    sin: Unary, 4.0;
    sincos: SinCos, 4.0;
    sinh: Unary, 4.0;
    sinpi: Unary, 4.0;
    tan: Unary, 5.0;
    tanh: Unary, 5.0;
    tanpi: Unary, 6.0;
}

// OpenCL sets no bound for lgamma (§7.4: "undefined"): held to tgamma's
// 16 ulp, except near its zeros (x ≈ 1, 2 and between the negative
// integers), where any algorithm's relative error grows without bound and
// an absolute error of 2^-50 (less than lgamma changes over one ulp of x
// there) is accepted instead.
ulp_tests! {
    lgamma: Unary, 16.0, absolute 2f64.powi(-50);
    lgamma_r: LgammaR, 16.0, absolute 2f64.powi(-50);
}

/// tgamma (16 ulp) is either within its bound or refused at build time
/// with the reason: ferrocl refuses it (libclc-15's is exp(lgamma(x)),
/// hundreds of ulp off), never runs it imprecisely.
#[test]
fn tgamma() {
    let cl = Cl::new();
    require_fp64(&cl);
    match cl.try_build(&source("tgamma", Shape::Unary), "") {
        Ok(_) => check_function(
            "tgamma",
            Shape::Unary,
            Bound {
                ulps: 16.0,
                absolute: 0.0,
            },
        ),
        Err(e) => assert!(
            e.log.contains("double-precision 'tgamma' is not supported"),
            "{}",
            e.log
        ),
    }
}

/// Programs created from SPIR-V (clCreateProgramWithIL) get the same
/// functions (`frontend::il_math`; before, double ones were build errors),
/// within the same bounds.
#[test]
fn il_programs() {
    let ulps = |ulps| Bound {
        ulps,
        absolute: 0.0,
    };
    for (name, shape, bound) in [
        ("sin", Shape::Unary, ulps(4.0)),
        ("exp", Shape::Unary, ulps(3.0)),
        ("log", Shape::Unary, ulps(3.0)),
        ("pow", Shape::Binary, ulps(16.0)),
        ("tgamma", Shape::Unary, ulps(16.0)),
    ] {
        check_built(name, shape, bound, true);
    }
}

/// sincos and lgamma_r write through generic pointers in OpenCL C 2.0
/// (libclc only has the private, local and global overloads): to private
/// variables and global memory, on double and double2.
#[test]
fn pointer_outputs_through_generic_pointers() {
    let cl = Cl::new();
    require_fp64(&cl);
    let src = "kernel void k(global const double *x, global double *o, global int *q) {\n\
                 size_t i = get_global_id(0);\n\
                 double c; int s; double2 c2; int2 s2;\n\
                 o[6 * i] = sincos(x[i], &c);\n\
                 o[6 * i + 1] = c;\n\
                 o[6 * i + 2] = lgamma_r(x[i], &s);\n\
                 q[2 * i] = s;\n\
                 double2 v = sincos((double2)(x[i], -x[i]), &c2);\n\
                 o[6 * i + 3] = v.y + c2.y;\n\
                 o[6 * i + 4] = lgamma_r((double2)(x[i]), &s2).y;\n\
                 q[2 * i + 1] = s2.y;\n\
                 sincos(x[i], o + 6 * i + 5);\n\
               }\n";
    let program = cl
        .try_build(src, "-cl-std=CL2.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let x = [0.5, -2.5, 3.0, 100.25, -0.75, 1e-3, 7.5, -20.5];
    let (dx, o, q) = (
        cl.buffer_from(&x),
        cl.buffer::<f64>(6 * x.len()),
        cl.buffer::<i32>(2 * x.len()),
    );
    launch(&cl, &program, "k", x.len(), &[&dx, &o, &q]);
    let (o, q) = (cl.queue.read(&o), cl.queue.read(&q));
    let close = |got: f64, name: &str, x: f64| {
        let r = reference(name, x, 0.0, 0);
        let e = ulp_error(got, &r).unwrap_or(f64::INFINITY);
        assert!(e <= 4.0, "{name}({x}) = {got:e}, want {:e}", r.hi);
    };
    for (i, &x) in x.iter().enumerate() {
        close(o[6 * i], "sin", x);
        close(o[6 * i + 1], "cos", x);
        let lg = reference("lgamma", x, 0.0, 0).hi;
        for got in [o[6 * i + 2], o[6 * i + 4]] {
            assert!(
                (got - lg).abs() <= 1e-14 * lg.abs().max(1.0),
                "lgamma({x}) = {got:e}"
            );
        }
        close(o[6 * i + 5], "cos", x);
        let want = reference("sin", -x, 0.0, 0).hi + reference("cos", -x, 0.0, 0).hi;
        assert!((o[6 * i + 3] - want).abs() <= 1e-15 * want.abs().max(1.0));
        let sign = reference("lgamma_r", x, 0.0, 0).sign;
        assert_eq!((q[2 * i], q[2 * i + 1]), (sign, sign), "lgamma_r({x}) sign");
    }
}

/// fma must be correctly rounded (OpenCL C §7.4: 0 ulp), and libclc's
/// algorithms rely on it for exact products: (1 + 2^-30)(1 - 2^-30) - 1 is
/// -2^-60 fused and 0 when the product is rounded first.
#[test]
fn fma_is_fused() {
    let cl = Cl::new();
    require_fp64(&cl);
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               kernel void k(global const double *x, global double *o) {\n\
                 o[0] = fma(x[0], x[1], x[2]);\n\
                 double2 a = (double2)(x[0]), b = (double2)(x[1]), c = (double2)(x[2]);\n\
                 o[1] = fma(a, b, c).y;\n\
               }\n";
    let x = cl.buffer_from(&[1.0 + 2f64.powi(-30), 1.0 - 2f64.powi(-30), -1.0]);
    let o: Buffer<f64> = cl.buffer(2);
    let program = cl.try_build(src, "").unwrap_or_else(|e| panic!("{e}"));
    launch(&cl, &program, "k", 1, &[&x, &o]);
    let want = -(2f64.powi(-60));
    assert_eq!(cl.queue.read(&o), [want, want]);
}

/// fma on double and double4 against the CPU's (correctly rounded) fma,
/// over random and special operands (the software fma where the device's is
/// not fused: `DeviceCaps::fused_fma64`).
#[test]
fn fma_is_correctly_rounded() {
    let cl = Cl::new();
    require_fp64(&cl);
    let mut rng = Rng(7);
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for &x in SPECIAL_PAIRS {
        for &y in SPECIAL_PAIRS {
            for &z in &[0.0, -0.0, 1.0, -1e300, 5e-324, f64::INFINITY, f64::NAN] {
                a.push(x);
                b.push(y);
                c.push(z);
            }
        }
    }
    for i in 0..20000 {
        let (x, y) = match i % 4 {
            0 => (rng.any_finite(), rng.any_finite()),
            1 => (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)),
            2 => (rng.uniform(-1e-150, 1e-150), rng.uniform(-1e-160, 1e-160)),
            _ => (rng.uniform(-1e150, 1e150), rng.uniform(-1e158, 1e158)),
        };
        // Addends near -x*y exercise cancellation.
        let z = match i % 3 {
            0 => rng.any_finite(),
            1 => -(x * y),
            _ => f64::from_bits(
                (-(x * y))
                    .to_bits()
                    .wrapping_add(rng.bits() % 5)
                    .wrapping_sub(2),
            ),
        };
        a.push(x);
        b.push(y);
        c.push(z);
    }
    pad4(&mut a);
    pad4(&mut b);
    pad4(&mut c);
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               kernel void s(global const double *a, global const double *b,\n\
                             global const double *c, global double *o) {\n\
                 size_t i = get_global_id(0); o[i] = fma(a[i], b[i], c[i]); }\n\
               kernel void v(global const double4 *a, global const double4 *b,\n\
                             global const double4 *c, global double4 *o) {\n\
                 size_t i = get_global_id(0); o[i] = fma(a[i], b[i], c[i]); }\n";
    let program = cl.try_build(src, "").unwrap_or_else(|e| panic!("{e}"));
    let (da, db, dc) = (cl.buffer_from(&a), cl.buffer_from(&b), cl.buffer_from(&c));
    for (kernel, items) in [("s", a.len()), ("v", a.len() / 4)] {
        let o: Buffer<f64> = cl.buffer(a.len());
        launch(&cl, &program, kernel, items, &[&da, &db, &dc, &o]);
        let got = cl.queue.read(&o);
        let bad: Vec<String> = (0..a.len())
            .filter(|&i| {
                let want = a[i].mul_add(b[i], c[i]);
                !(got[i].to_bits() == want.to_bits() || got[i].is_nan() && want.is_nan())
            })
            .take(8)
            .map(|i| {
                format!(
                    "fma({:e}, {:e}, {:e}) = {:e}, want {:e}",
                    a[i],
                    b[i],
                    c[i],
                    got[i],
                    a[i].mul_add(b[i], c[i])
                )
            })
            .collect();
        assert!(bad.is_empty(), "{kernel}:\n  {}", bad.join("\n  "));
    }
}

/// trunc, rint, round, floor, ceil and the conversions that round on
/// doubles are exact (0 ulp), signed zeros included (lavapipe's own double
/// trunc and round-to-even are not from about 2^30 up).
#[test]
fn rounding_is_exact() {
    let cl = Cl::new();
    require_fp64(&cl);
    let mut x = unary_args(11);
    x.extend([
        1.0185916362881302e9,
        6.366197724175814e9,
        4503599627370495.5,
        -4503599627370495.5,
        2.5,
        -2.5,
        0.5,
        -0.5,
        -0.3,
    ]);
    pad4(&mut x);
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               kernel void s(global const double *x, global double *o, global long *l) {\n\
                 size_t i = get_global_id(0); double a = x[i];\n\
                 o[5*i] = trunc(a); o[5*i+1] = rint(a); o[5*i+2] = round(a);\n\
                 o[5*i+3] = floor(a); o[5*i+4] = ceil(a);\n\
                 l[i] = fabs(a) < 0x1p62 ? convert_long_rte(a) : 0; }\n\
               kernel void v(global const double4 *x, global double4 *o, global long4 *l) {\n\
                 size_t i = get_global_id(0); double4 a = x[i];\n\
                 o[5*i] = trunc(a); o[5*i+1] = rint(a); o[5*i+2] = round(a);\n\
                 o[5*i+3] = floor(a); o[5*i+4] = ceil(a);\n\
                 l[i] = select((long4)0, convert_long4_rte(a), fabs(a) < 0x1p62); }\n";
    let program = cl.try_build(src, "").unwrap_or_else(|e| panic!("{e}"));
    let dx = cl.buffer_from(&x);
    let names = ["trunc", "rint", "round", "floor", "ceil"];
    for (kernel, items, width) in [("s", x.len(), 1), ("v", x.len() / 4, 4)] {
        let o: Buffer<f64> = cl.buffer(5 * x.len());
        let l: Buffer<i64> = cl.buffer(x.len());
        launch(&cl, &program, kernel, items, &[&dx, &o, &l]);
        let (got, longs) = (cl.queue.read(&o), cl.queue.read(&l));
        let mut bad = Vec::new();
        for (i, &a) in x.iter().enumerate() {
            let want = [
                a.trunc(),
                a.round_ties_even(),
                a.round(),
                a.floor(),
                a.ceil(),
            ];
            for (k, w) in want.iter().enumerate() {
                // Element i's k-th result: 5 values per work-item, `width`
                // elements each.
                let at = (i / width) * 5 * width + k * width + i % width;
                let g = got[at];
                if !(g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan()) {
                    bad.push(format!("{}{}({a:e}) = {g:e}, want {w:e}", names[k], kernel));
                }
            }
            let want_long = if a.abs() < 2f64.powi(62) {
                a.round_ties_even() as i64
            } else {
                0
            };
            if longs[i] != want_long {
                bad.push(format!(
                    "convert_long_rte{kernel}({a:e}) = {}, want {want_long}",
                    longs[i]
                ));
            }
        }
        assert!(
            bad.is_empty(),
            "{} wrong, e.g.\n  {}",
            bad.len(),
            bad[..bad.len().min(10)].join("\n  ")
        );
    }
}
