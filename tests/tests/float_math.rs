//! Single-precision math builtins (libclc's float code linked by the
//! compiler, `frontend::libclc`) on `float` and `float4`: each function
//! over special values (±0, denormals, ±inf, NaN, huge trigonometric
//! arguments such as 1e6 and 1e30, arguments outside the domain) and a few
//! thousand pseudo-random arguments across its range, against a long
//! double reference (`ferrocl_tests::mathref`, evaluated at the float
//! arguments), within the OpenCL C specification's full-profile
//! single-precision ULP bounds (§7.4). NaN, infinities and the sign of
//! exact zeros must match the reference.
//!
//! Denormals: where the device does not report CL_FP_DENORM, OpenCL lets
//! it flush them, so a result is also accepted when it is right for the
//! denormal arguments replaced by zeros of their sign, or when it is a
//! zero where the exact result is within the bound of a denormal (the
//! CTS's rule, `IsFloatResultSubnormal`).
//!
//! `-cl-fast-relaxed-math` is checked separately against the relaxed
//! bounds (`relaxed_*`).
//!
//! `cargo test -p ferrocl-tests --test float_math -- --nocapture` prints
//! the largest error of every function.

use ferrocl_tests::mathref::{pad4, reference, ulp_error_f32, ulp_of_f32, Reference, Rng};
use ferrocl_tests::{device_value, Buffer, Cl, KernelArg};
use opencl_sys::{cl_device_fp_config, CL_DEVICE_SINGLE_FP_CONFIG, CL_FP_DENORM};

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
    /// `remquo(x, y, &quo)`.
    RemQuo,
}

const SPECIAL: &[f32] = &[
    0.0,
    -0.0,
    1e-45,
    -1e-45,
    1e-40,
    -3e-39,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-30,
    1e-10,
    -1e-5,
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
    std::f32::consts::PI,
    -std::f32::consts::FRAC_PI_2,
    10.0,
    -10.0,
    35.5,
    88.7,
    89.0,
    -87.3,
    -103.5,
    100.5,
    8388607.5,
    1e6,
    -1e6,
    1e10,
    1e20,
    1e30,
    -1e30,
    3e38,
    f32::MAX,
    -f32::MAX,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// Fewer special values, for the grid of two-argument functions.
const SPECIAL_PAIRS: &[f32] = &[
    0.0,
    -0.0,
    1e-45,
    -3e-39,
    0.5,
    1.0,
    -1.0,
    2.0,
    -2.0,
    3.0,
    -3.5,
    0.75,
    1e30,
    -1e30,
    f32::MAX,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// The int arguments of pown and rootn (cycled).
const INTS: &[i32] = &[
    0, 1, -1, 2, -2, 3, -3, 4, 5, -5, 7, -8, 10, -10, 31, -31, 100, 1000, -1000,
];

/// Arguments of a one-argument function: the special values, then random
/// ones at several scales.
fn unary_args(seed: u64) -> Vec<f32> {
    let mut rng = Rng(seed);
    let mut x = SPECIAL.to_vec();
    for (n, lo, hi) in [
        (512, -1.0, 1.0),
        (512, -8.0, 8.0),
        (512, -100.0, 100.0),
        (256, -1e4, 1e4),
        (256, -1e7, 1e7),
    ] {
        x.extend((0..n).map(|_| rng.uniform_f32(lo, hi)));
    }
    x.extend((0..1024).map(|_| rng.any_finite_f32()));
    x
}

/// Arguments of a two-float function.
fn binary_args(seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut rng = Rng(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for &a in SPECIAL_PAIRS {
        for &b in SPECIAL_PAIRS {
            x.push(a);
            y.push(b);
        }
    }
    for _ in 0..512 {
        x.push(rng.uniform_f32(-10.0, 10.0));
        y.push(rng.uniform_f32(-10.0, 10.0));
    }
    for _ in 0..512 {
        x.push(rng.any_finite_f32());
        y.push(rng.any_finite_f32());
    }
    // pow's interesting range: moderate bases, exponents up to ±30,
    // negative bases with integral exponents.
    for _ in 0..512 {
        x.push(rng.uniform_f32(0.0, 4.0));
        y.push(rng.uniform_f32(-30.0, 30.0));
    }
    for _ in 0..256 {
        x.push(rng.uniform_f32(-4.0, 0.0));
        y.push(rng.uniform_f32(-20.0, 20.0).round());
    }
    // fmod / remainder with large quotients.
    for _ in 0..256 {
        x.push(rng.uniform_f32(-1e30, 1e30));
        y.push(rng.uniform_f32(-10.0, 10.0));
    }
    (x, y)
}

/// Arguments of pown / rootn: every special value with every int, then
/// random values with the ints cycled.
fn int_args(seed: u64) -> (Vec<f32>, Vec<i32>) {
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

/// The kernels `s` (floats) and `v` (float4) calling `name`.
fn source(name: &str, shape: Shape) -> String {
    let mut src = String::new();
    for (kernel, w) in [("s", ""), ("v", "4")] {
        let f = format!("float{w}");
        let i = format!("int{w}");
        let (params, body) = match shape {
            Shape::Unary => (
                format!("global const {f} *x, global {f} *o"),
                format!("o[i] = {name}(x[i]);"),
            ),
            Shape::Binary => (
                format!("global const {f} *x, global const {f} *y, global {f} *o"),
                format!("o[i] = {name}(x[i], y[i]);"),
            ),
            Shape::WithInt => (
                format!("global const {f} *x, global const {i} *n, global {f} *o"),
                format!("o[i] = {name}(x[i], n[i]);"),
            ),
            Shape::SinCos => (
                format!("global const {f} *x, global {f} *o, global {f} *c"),
                format!("{f} k; o[i] = sincos(x[i], &k); c[i] = k;"),
            ),
            Shape::LgammaR => (
                format!("global const {f} *x, global {f} *o, global {i} *s"),
                format!("{i} k; o[i] = lgamma_r(x[i], &k); s[i] = k;"),
            ),
            Shape::RemQuo => (
                format!("global const {f} *x, global const {f} *y, global {f} *o, global {i} *q"),
                format!("{i} k; o[i] = remquo(x[i], y[i], &k); q[i] = k;"),
            ),
        };
        src.push_str(&format!(
            "kernel void {kernel}({params}) {{ size_t i = get_global_id(0); {body} }}\n"
        ));
    }
    src
}

/// The error a result may have: `ulps`, or, where `absolute` is not 0,
/// an absolute error of at most `absolute`.
#[derive(Clone, Copy)]
struct Bound {
    ulps: f64,
    absolute: f64,
}

/// What one function's check found: its largest error and the failures.
#[derive(Default)]
struct Report {
    /// Denormals may be flushed (no CL_FP_DENORM).
    ftz: bool,
    max_ulps: f64,
    /// The largest absolute error of the results accepted by the absolute
    /// bound rather than the ulp bound.
    max_absolute: f64,
    worst: String,
    failures: Vec<String>,
}

/// A denormal float flushed to a zero of its sign.
fn flush(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

impl Report {
    /// Records result `got` of `what(args)` against the references `refs`
    /// (the first at the arguments; more where denormals may be flushed):
    /// the smallest error counts.
    fn record(&mut self, what: &str, args: String, got: f32, refs: &[Reference], bound: Bound) {
        let results: Vec<Result<f64, String>> = refs
            .iter()
            .map(|r| {
                let absolute = ((got as f64 - r.hi) - r.lo).abs();
                match ulp_error_f32(got, r) {
                    // Accepted by the absolute bound: not counted in the
                    // largest ulp error (max_absolute reports it).
                    Ok(e) if absolute <= bound.absolute => {
                        Ok(if e <= bound.ulps { e } else { -absolute })
                    }
                    // A zero for an exact result within the bound of a
                    // denormal, where denormals may be flushed.
                    _ if self.ftz
                        && got == 0.0
                        && r.hi != 0.0
                        && r.hi.abs() - bound.ulps * 2f64.powi(-149) < f32::MIN_POSITIVE as f64 =>
                    {
                        Ok(0.0)
                    }
                    other => other,
                }
            })
            .collect();
        // The smallest error; a result within the ulp bound before one
        // accepted by the absolute bound (a negative number).
        let best = results
            .iter()
            .filter_map(|r| r.as_ref().ok().copied())
            .reduce(|a, b| match (a >= 0.0, b >= 0.0) {
                (true, true) => a.min(b),
                (true, false) => a,
                (false, true) => b,
                (false, false) => a.max(b),
            })
            .map_or_else(|| results[0].clone(), Ok);
        match best {
            // Accepted by the absolute bound (record's negative errors).
            Ok(e) if e < 0.0 => self.max_absolute = self.max_absolute.max(-e),
            Ok(e) if e <= bound.ulps => {
                if e > self.max_ulps {
                    self.max_ulps = e;
                    self.worst = format!("{what}({args}) = {got:e}");
                }
            }
            Ok(e) => self.failures.push(format!(
                "{what}({args}) = {got:e}, want {:e} ({e:.2} ulp > {})",
                refs[0].hi, bound.ulps
            )),
            Err(why) => self
                .failures
                .push(format!("{what}({args}) = {got:e}: {why}")),
        }
    }
}

/// Whether the device keeps single-precision denormals
/// (CL_DEVICE_SINGLE_FP_CONFIG has CL_FP_DENORM).
fn denorms(cl: &Cl) -> bool {
    let config: cl_device_fp_config = device_value(cl.device(), CL_DEVICE_SINGLE_FP_CONFIG);
    config & CL_FP_DENORM != 0
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

/// The references of `name` at (x, y, n): at the arguments, then, where
/// the device may flush denormals and an argument is one, at the flushed
/// arguments.
fn references(name: &str, x: f32, y: f32, n: i32, denorms: bool) -> Vec<Reference> {
    let mut refs = vec![reference(name, x as f64, y as f64, n)];
    if !denorms {
        let (fx, fy) = (flush(x), flush(y));
        if fx.to_bits() != x.to_bits() || fy.to_bits() != y.to_bits() {
            refs.push(reference(name, fx as f64, fy as f64, n));
        }
    }
    refs
}

/// Checks `name` of `shape` on float and float4 against the reference
/// within `bound`, built with `options`; `domain` restricts the arguments
/// (relaxed bounds hold on part of the range only).
fn check_with(
    name: &str,
    shape: Shape,
    bound: Bound,
    options: &str,
    domain: impl Fn(f32) -> bool,
    relaxed_bound: Option<&dyn Fn(f32) -> Bound>,
) {
    check_built(name, shape, bound, options, domain, relaxed_bound, false);
}

/// `check_with`, the program built from source or, where `il`, from the
/// SPIR-V clang-15 and llvm-spirv-15 make of it (clCreateProgramWithIL).
fn check_built(
    name: &str,
    shape: Shape,
    bound: Bound,
    options: &str,
    domain: impl Fn(f32) -> bool,
    relaxed_bound: Option<&dyn Fn(f32) -> Bound>,
    il: bool,
) {
    let cl = Cl::new();
    let denorms = denorms(&cl);
    let seed = name.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    let (x, y, n) = match shape {
        Shape::Binary | Shape::RemQuo => {
            let (x, y) = binary_args(seed);
            (x, y, Vec::new())
        }
        Shape::WithInt => {
            let (x, n) = int_args(seed);
            (x, Vec::new(), n)
        }
        _ => {
            let mut x = unary_args(seed);
            // Where libclc-15's erfc is 4 to 48 ulp off (ferrocl's own
            // there).
            if name == "erfc" {
                let mut rng = Rng(seed);
                for (lo, hi) in [(1.84, 2.0), (3.92, 4.0), (7.9, 10.1)] {
                    x.extend((0..512).map(|_| rng.uniform_f32(lo, hi)));
                }
            }
            (x, Vec::new(), Vec::new())
        }
    };
    let keep: Vec<usize> = (0..x.len()).filter(|&i| domain(x[i])).collect();
    let mut x: Vec<f32> = keep.iter().map(|&i| x[i]).collect();
    let mut y: Vec<f32> = keep.iter().filter_map(|&i| y.get(i).copied()).collect();
    let mut n: Vec<i32> = keep.iter().filter_map(|&i| n.get(i).copied()).collect();
    pad4(&mut x);
    if !y.is_empty() {
        pad4(&mut y);
    }
    if !n.is_empty() {
        pad4(&mut n);
    }
    let len = x.len();
    let program = if il {
        cl.try_build_il(&source(name, shape), options)
    } else {
        cl.try_build(&source(name, shape), options)
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let dx = cl.buffer_from(&x);
    let mut report = Report {
        ftz: !denorms,
        ..Default::default()
    };
    for (kernel, items, what) in [
        ("s", len, name.to_string()),
        ("v", len / 4, format!("{name}4")),
    ] {
        let o: Buffer<f32> = cl.buffer(len);
        let second_f: Buffer<f32> = cl.buffer(len);
        let second_i: Buffer<i32> = cl.buffer(len);
        match shape {
            Shape::Unary => launch(&cl, &program, kernel, items, &[&dx, &o]),
            Shape::Binary => {
                let dy = cl.buffer_from(&y);
                launch(&cl, &program, kernel, items, &[&dx, &dy, &o]);
            }
            Shape::RemQuo => {
                let dy = cl.buffer_from(&y);
                launch(&cl, &program, kernel, items, &[&dx, &dy, &o, &second_i]);
            }
            Shape::WithInt => {
                let dn = cl.buffer_from(&n);
                launch(&cl, &program, kernel, items, &[&dx, &dn, &o]);
            }
            Shape::SinCos => launch(&cl, &program, kernel, items, &[&dx, &o, &second_f]),
            Shape::LgammaR => launch(&cl, &program, kernel, items, &[&dx, &o, &second_i]),
        }
        let got = cl.queue.read(&o);
        let (cos, ints) = match shape {
            Shape::SinCos => (cl.queue.read(&second_f), Vec::new()),
            Shape::LgammaR | Shape::RemQuo => (Vec::new(), cl.queue.read(&second_i)),
            _ => (Vec::new(), Vec::new()),
        };
        for i in 0..len {
            let (yi, ni) = (
                y.get(i).copied().unwrap_or(0.0),
                n.get(i).copied().unwrap_or(0),
            );
            let args = match shape {
                Shape::Binary | Shape::RemQuo => format!("{:e}, {yi:e}", x[i]),
                Shape::WithInt => format!("{:e}, {ni}", x[i]),
                _ => format!("{:e}", x[i]),
            };
            let bound = relaxed_bound.map_or(bound, |b| b(x[i]));
            match shape {
                Shape::SinCos => {
                    let s = references("sin", x[i], 0.0, 0, denorms);
                    report.record(&format!("{what}.sin"), args.clone(), got[i], &s, bound);
                    let c = references("cos", x[i], 0.0, 0, denorms);
                    report.record(&format!("{what}.cos"), args, cos[i], &c, bound);
                }
                Shape::LgammaR => {
                    let r = references("lgamma_r", x[i], 0.0, 0, denorms);
                    report.record(&what, args.clone(), got[i], &r, bound);
                    // The sign is defined where the result is finite and
                    // the argument not a pole.
                    let pole = x[i] <= 0.0 && x[i] == x[i].floor();
                    let sign_ok = r.iter().any(|r| ints[i] == r.sign);
                    if r[0].hi.is_finite() && !pole && !sign_ok {
                        report.failures.push(format!(
                            "{what}({args}) sign = {}, want {}",
                            ints[i], r[0].sign
                        ));
                    }
                }
                Shape::RemQuo => {
                    let r = references("remquo", x[i], yi, 0, denorms);
                    report.record(&what, args.clone(), got[i], &r, bound);
                    // quo: the sign of x/y and at least its 7 low bits,
                    // where the remainder is a number.
                    let q = ints[i];
                    let low7 = if q < 0 { -((-q) & 0x7f) } else { q & 0x7f };
                    let quo_ok = r.iter().any(|r| low7 == r.sign || r.sign == 0 && q == 0);
                    if !r[0].hi.is_nan() && !quo_ok {
                        report.failures.push(format!(
                            "{what}({args}) quo = {q}, want {} (low 7 bits)",
                            r[0].sign
                        ));
                    }
                }
                _ => {
                    let r = references(name, x[i], yi, ni, denorms);
                    report.record(&what, args, got[i], &r, bound);
                }
            }
        }
    }
    let absolute = if report.max_absolute > 0.0 {
        format!(
            ", max absolute error {:.3e} where the absolute bound holds",
            report.max_absolute
        )
    } else {
        String::new()
    };
    println!(
        "{name:>9}{}: max {:.3} ulp over {len} arguments ({}){absolute}",
        if options.is_empty() { "" } else { " (relaxed)" },
        report.max_ulps,
        report.worst
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

/// Full profile: every argument.
fn check_function(name: &str, shape: Shape, bound: Bound) {
    check_with(name, shape, bound, "", |_| true, None);
}

/// One #[test] per builtin: name, shape, bound in ulps (OpenCL C §7.4,
/// single precision, full profile), and optionally an absolute error
/// bound accepted instead.
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
    fmod: Binary, 0.0;
    hypot: Binary, 4.0;
    log: Unary, 3.0;
    log2: Unary, 3.0;
    log10: Unary, 3.0;
    log1p: Unary, 2.0;
    pow: Binary, 16.0;
    pown: WithInt, 16.0;
    powr: Binary, 16.0;
    remainder: Binary, 0.0;
    remquo: RemQuo, 0.0;
    rootn: WithInt, 16.0;
    sin: Unary, 4.0;
    sincos: SinCos, 4.0;
    sinh: Unary, 4.0;
    sinpi: Unary, 4.0;
    sqrt: Unary, 3.0;
    rsqrt: Unary, 2.0;
    tan: Unary, 5.0;
    tanh: Unary, 5.0;
    tanpi: Unary, 6.0;
    tgamma: Unary, 16.0;
}

// OpenCL sets no bound for lgamma (§7.4: "undefined"): held to tgamma's
// 16 ulp, except near its zeros (x ≈ 1, 2 and between the negative
// integers), where any algorithm's relative error grows without bound and
// an absolute error of 2^-21 (less than lgamma changes over one ulp of x
// there) is accepted instead.
ulp_tests! {
    lgamma: Unary, 16.0, absolute 2f64.powi(-21);
    lgamma_r: LgammaR, 16.0, absolute 2f64.powi(-21);
}

/// Programs created from SPIR-V (clCreateProgramWithIL) get the same
/// functions (`frontend::il_math`), within the same bounds.
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
        check_built(name, shape, bound, "", |_| true, None, true);
    }
}

/// sincos, lgamma_r and remquo write through generic pointers in OpenCL C
/// 2.0 (libclc only has the private, local and global overloads): to
/// private variables and global memory, on float and float2.
#[test]
fn pointer_outputs_through_generic_pointers() {
    let cl = Cl::new();
    let src = "kernel void k(global const float *x, global float *o, global int *q) {\n\
                 size_t i = get_global_id(0);\n\
                 float c; int s, s3; float2 c2;\n\
                 o[6 * i] = sincos(x[i], &c);\n\
                 o[6 * i + 1] = c;\n\
                 o[6 * i + 2] = lgamma_r(x[i], &s);\n\
                 q[4 * i] = s;\n\
                 float2 v = sincos((float2)(x[i], -x[i]), &c2);\n\
                 o[6 * i + 3] = v.y + c2.y;\n\
                 o[6 * i + 4] = remquo(x[i], 0.75f, &s3);\n\
                 q[4 * i + 1] = s3;\n\
                 remquo((float2)(x[i]), (float2)(0.75f), (global int2 *)(q + 4 * i + 2));\n\
                 sincos(x[i], o + 6 * i + 5);\n\
               }\n";
    let program = cl
        .try_build(src, "-cl-std=CL2.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let x: [f32; 8] = [0.5, -2.5, 3.0, 100.25, -0.75, 1e-3, 7.5, -20.5];
    let (dx, o, q) = (
        cl.buffer_from(&x),
        cl.buffer::<f32>(6 * x.len()),
        cl.buffer::<i32>(4 * x.len()),
    );
    launch(&cl, &program, "k", x.len(), &[&dx, &o, &q]);
    let (o, q) = (cl.queue.read(&o), cl.queue.read(&q));
    let close = |got: f32, name: &str, x: f32, y: f32| {
        let r = reference(name, x as f64, y as f64, 0);
        let e = ulp_error_f32(got, &r).unwrap_or(f64::INFINITY);
        let bound = if name == "lgamma" { 16.0 } else { 4.0 };
        assert!(e <= bound, "{name}({x}) = {got:e}, want {:e}", r.hi);
    };
    for (i, &x) in x.iter().enumerate() {
        close(o[6 * i], "sin", x, 0.0);
        close(o[6 * i + 1], "cos", x, 0.0);
        close(o[6 * i + 2], "lgamma", x, 0.0);
        close(o[6 * i + 4], "remainder", x, 0.75);
        close(o[6 * i + 5], "cos", x, 0.0);
        let want = reference("sin", -x as f64, 0.0, 0).hi + reference("cos", -x as f64, 0.0, 0).hi;
        assert!(
            (o[6 * i + 3] as f64 - want).abs() <= 1e-6 * want.abs().max(1.0),
            "sincos2({x})"
        );
        let sign = reference("lgamma_r", x as f64, 0.0, 0).sign;
        assert_eq!(q[4 * i], sign, "lgamma_r({x}) sign");
        let quo = reference("remquo", x as f64, 0.75, 0).sign;
        assert_eq!(
            (q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]),
            (quo, quo, quo),
            "remquo({x}, 0.75)"
        );
    }
}

/// fma must be correctly rounded (OpenCL C §7.4: 0 ulp), and libclc's
/// float code relies on it where it calls it: (1 + 2^-12)^2 - 1 is
/// 2^-11 + 2^-24 fused and 2^-11 when the product is rounded first
/// (lavapipe's GLSL.std.450 Fma; ferrocl gives it libclc's software fma,
/// `DeviceCaps::fused_fma32`).
#[test]
fn fma_is_fused() {
    let cl = Cl::new();
    let src = "kernel void k(global const float *x, global float *o) {\n\
                 o[0] = fma(x[0], x[1], x[2]);\n\
                 float2 a = (float2)(x[0]), b = (float2)(x[1]), c = (float2)(x[2]);\n\
                 o[1] = fma(a, b, c).y;\n\
               }\n";
    let a = 1.0 + 2f32.powi(-12);
    let x = cl.buffer_from(&[a, a, -1.0f32]);
    let o: Buffer<f32> = cl.buffer(2);
    let program = cl.try_build(src, "").unwrap_or_else(|e| panic!("{e}"));
    launch(&cl, &program, "k", 1, &[&x, &o]);
    let want = 2f32.powi(-11) + 2f32.powi(-24);
    assert_eq!(cl.queue.read(&o), [want, want]);
}

/// `x / y` for divisors of magnitude beyond 2^126, where Vulkan's OpFDiv
/// precision ends and NVIDIA's `x * rcp(y)` gave 0 (CTS math_brute_force
/// `divide` on the H200), in scalars and vectors, against the host's
/// correctly rounded quotient (OpenCL allows 2.5 ulp; the results here
/// are normal numbers, so the bound is checked in ulps of the result).
#[test]
fn division_by_divisors_beyond_2_pow_126() {
    let cl = Cl::new();
    let src = "kernel void k(global const float *x, global const float *y, global float *o) {\n\
                 int i = get_global_id(0);\n\
                 o[i] = x[i] / y[i];\n\
                 if (i % 4 == 0) {\n\
                   float4 a = vload4(i / 4, x), b = vload4(i / 4, y);\n\
                   vstore4(a / b, i / 4, o + 64);\n\
                 }\n\
               }\n";
    let mut rng = Rng(126);
    let n = 64usize;
    let mut xs = Vec::with_capacity(n);
    let mut ys = Vec::with_capacity(n);
    for i in 0..n {
        // Divisors in (2^126, 2^128), both signs; dividends 2^4..2^120,
        // so that every quotient is a normal number.
        let sign = |odd: bool| if odd { -1.0 } else { 1.0 };
        let y = rng.uniform_f32(1.0, 2.0) * 2f32.powi(126 + (i % 2) as i32) * sign(i % 3 == 0);
        let x = rng.uniform_f32(1.0, 2.0) * 2f32.powi(4 + (i as i32 * 7) % 116) * sign(i % 5 == 0);
        xs.push(x);
        ys.push(y);
    }
    let x = cl.buffer_from(&xs);
    let y = cl.buffer_from(&ys);
    let o: Buffer<f32> = cl.buffer(2 * n);
    let program = cl.try_build(src, "").unwrap_or_else(|e| panic!("{e}"));
    launch(&cl, &program, "k", n, &[&x, &y, &o]);
    let got = cl.queue.read(&o);
    for i in 0..n {
        let want = xs[i] / ys[i];
        assert!(
            want.is_normal(),
            "test operands must give normal quotients: {want:e}"
        );
        let q = f64::from(xs[i]) / f64::from(ys[i]);
        for (what, g) in [("scalar", got[i]), ("float4", got[64 + i])] {
            let err = (f64::from(g) - q).abs() / ulp_of_f32(q, 0.0);
            assert!(
                err <= 2.5,
                "{what} {:e} / {:e}: got {g:e}, want {want:e} ({err} ulp)",
                xs[i],
                ys[i]
            );
        }
    }
}

/// `a * b + c` under `#pragma OPENCL FP_CONTRACT OFF` is two roundings,
/// in scalars, vectors and halves of separate statements: the operands of
/// the CTS's contractions test, where the rounded product is exactly -c
/// (0 unfused, 0x1.f6b9dp+94 fused). NVIDIA's driver fused it while the
/// multiply and the add were undecorated.
#[test]
fn no_contraction_under_fp_contract_off() {
    let cl = Cl::new();
    let src = "#pragma OPENCL FP_CONTRACT OFF\n\
               kernel void k(global const float *x, global float *o) {\n\
                 o[0] = x[0] * x[1] + x[2];\n\
                 float4 a = (float4)(x[0]), b = (float4)(x[1]), c = (float4)(x[2]);\n\
                 o[1] = (a * b + c).w;\n\
                 float m = x[0] * x[1];\n\
                 o[2] = c.x - -m;\n\
                 o[3] = -(x[0] * x[1] - -x[2]);\n\
               }\n";
    let a = f32::from_bits(0x746b_99d3); // 0x1.d733a6p+105
    let b = f32::from_bits(0xc6ac_e262); // -0x1.59c4c4p+14
    let c = -(a * b);
    assert_eq!(a * b + c, 0.0);
    assert_ne!(a.mul_add(b, c), 0.0);
    let x = cl.buffer_from(&[a, b, c]);
    let o: Buffer<f32> = cl.buffer(4);
    let program = cl.try_build(src, "").unwrap_or_else(|e| panic!("{e}"));
    launch(&cl, &program, "k", 1, &[&x, &o]);
    let got: Vec<u32> = cl
        .queue
        .read(&o)
        .iter()
        .map(|v| v.abs().to_bits())
        .collect();
    assert_eq!(got, [0, 0, 0, 0], "fused where FP_CONTRACT is OFF");
}

/// fma on float and float4 against the CPU's (correctly rounded) fma, over
/// random and special operands.
#[test]
fn fma_is_correctly_rounded() {
    let cl = Cl::new();
    let denorms = denorms(&cl);
    let mut rng = Rng(7);
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for &x in SPECIAL_PAIRS {
        for &y in SPECIAL_PAIRS {
            for &z in &[0.0, -0.0, 1.0, -1e30, 1e-45, f32::INFINITY, f32::NAN] {
                a.push(x);
                b.push(y);
                c.push(z);
            }
        }
    }
    for i in 0..20000 {
        let (x, y) = match i % 4 {
            0 => (rng.any_finite_f32(), rng.any_finite_f32()),
            1 => (rng.uniform_f32(-2.0, 2.0), rng.uniform_f32(-2.0, 2.0)),
            2 => (
                rng.uniform_f32(-1e-19, 1e-19),
                rng.uniform_f32(-1e-20, 1e-20),
            ),
            _ => (rng.uniform_f32(-1e19, 1e19), rng.uniform_f32(-1e19, 1e19)),
        };
        // Addends near -x*y exercise cancellation.
        let z = match i % 3 {
            0 => rng.any_finite_f32(),
            1 => -(x * y),
            _ => f32::from_bits(
                (-(x * y))
                    .to_bits()
                    .wrapping_add((rng.bits() % 5) as u32)
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
    let src = "kernel void s(global const float *a, global const float *b,\n\
                             global const float *c, global float *o) {\n\
                 size_t i = get_global_id(0); o[i] = fma(a[i], b[i], c[i]); }\n\
               kernel void v(global const float4 *a, global const float4 *b,\n\
                             global const float4 *c, global float4 *o) {\n\
                 size_t i = get_global_id(0); o[i] = fma(a[i], b[i], c[i]); }\n";
    let program = cl.try_build(src, "").unwrap_or_else(|e| panic!("{e}"));
    let (da, db, dc) = (cl.buffer_from(&a), cl.buffer_from(&b), cl.buffer_from(&c));
    for (kernel, items) in [("s", a.len()), ("v", a.len() / 4)] {
        let o: Buffer<f32> = cl.buffer(a.len());
        launch(&cl, &program, kernel, items, &[&da, &db, &dc, &o]);
        let got = cl.queue.read(&o);
        let bad: Vec<String> = (0..a.len())
            .filter(|&i| {
                let want = a[i].mul_add(b[i], c[i]);
                let same =
                    |w: f32| got[i].to_bits() == w.to_bits() || got[i].is_nan() && w.is_nan();
                // Without CL_FP_DENORM: denormal operands (to zeros of
                // either sign) or a denormal result may be flushed.
                let f = flush(a[i]).mul_add(flush(b[i]), flush(c[i]));
                let flushed = !denorms
                    && (same(f)
                        || got[i] == 0.0 && f == 0.0
                        || got[i] == 0.0 && want.abs() < f32::MIN_POSITIVE);
                !(same(want) || flushed)
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

/// With `-cl-fast-relaxed-math`, sin and cos (GLSL.std.450's) are within
/// OpenCL's relaxed bound: an absolute error of 2^-11 in [-pi, pi].
#[test]
fn relaxed_sin_cos() {
    for name in ["sin", "cos"] {
        check_with(
            name,
            Shape::Unary,
            Bound {
                ulps: 0.0,
                absolute: 2f64.powi(-11),
            },
            "-cl-fast-relaxed-math",
            |x| x.abs() <= std::f32::consts::PI,
            None,
        );
    }
}

/// With `-cl-fast-relaxed-math`, exp and exp2 are within 3 + floor(|2x|)
/// ulp (OpenCL's relaxed bound), log and log2 within 3 ulp outside
/// [0.5, 2] and an absolute error of 2^-21 inside.
#[test]
fn relaxed_exp_log() {
    let exp_bound = |x: f32| Bound {
        ulps: 3.0 + (2.0 * x.abs()).floor() as f64,
        absolute: 0.0,
    };
    let log_bound = |x: f32| Bound {
        ulps: 3.0,
        absolute: if (0.5..=2.0).contains(&x) {
            2f64.powi(-21)
        } else {
            0.0
        },
    };
    let any = Bound {
        ulps: 0.0,
        absolute: 0.0,
    };
    for name in ["exp", "exp2"] {
        check_with(
            name,
            Shape::Unary,
            any,
            "-cl-fast-relaxed-math",
            |x| x.is_finite() && x.abs() < 80.0,
            Some(&exp_bound),
        );
    }
    for name in ["log", "log2"] {
        check_with(
            name,
            Shape::Unary,
            any,
            "-cl-fast-relaxed-math",
            |x| x.is_finite() && x > 0.0 && x >= f32::MIN_POSITIVE,
            Some(&log_bound),
        );
    }
}

/// Builtins without a relaxed bound keep the full-profile one under
/// `-cl-unsafe-math-optimizations`: fmod and remainder stay exact.
#[test]
fn relaxed_keeps_exact_remainders() {
    let exact = Bound {
        ulps: 0.0,
        absolute: 0.0,
    };
    for name in ["fmod", "remainder"] {
        check_with(
            name,
            Shape::Binary,
            exact,
            "-cl-unsafe-math-optimizations",
            |_| true,
            None,
        );
    }
}

/// The reference's ulp is that of the float format (sanity check of the
/// harness: one float ulp off is one ulp, not 2^29).
#[test]
fn harness_measures_float_ulps() {
    let r = reference("sin", 1.0, 0.0, 0);
    let s = r.hi as f32;
    let next = f32::from_bits(s.to_bits() + 1);
    let e = ulp_error_f32(next, &r).unwrap();
    assert!((0.5..=1.5).contains(&e), "{e}");
    assert_eq!(ulp_of_f32(1.0, 0.0), f32::EPSILON as f64);
}

/// half_log, half_log2, half_log10 and half_powr on float: within their
/// 8192 ulp near 1, where Vulkan's Log is only 2^-21 absolute (the CTS
/// measured 14910 ulp on lavapipe before they became the precise
/// functions), and NaN in, NaN out for half_powr.
#[test]
fn half_prefixed_log_and_powr() {
    let cl = Cl::new();
    let source = r#"kernel void k(global const float *x, global float *o) {
            size_t i = get_global_id(0);
            o[4 * i] = half_log(x[i]);
            o[4 * i + 1] = half_log2(x[i]);
            o[4 * i + 2] = half_log10(x[i]);
            o[4 * i + 3] = half_powr(x[i], 0.5f);
        }"#;
    let mut xs: Vec<f32> = (1..200).map(|k| 1.0 - k as f32 * 2f32.powi(-23)).collect();
    xs.extend((1..200).map(|k| 1.0 + k as f32 * 2f32.powi(-22)));
    xs.extend([0.999, 1.001, 0.5, 2.0, 10.0]);
    let nans = xs.len();
    xs.push(f32::NAN);
    let k = cl.kernel(source, "k");
    let (dx, o) = (cl.buffer_from(&xs), cl.buffer::<f32>(4 * xs.len()));
    k.arg(0, &dx).arg(1, &o);
    cl.queue.run(&k, &[xs.len()], None);
    let o = cl.queue.read(&o);
    for (i, &x) in xs[..nans].iter().enumerate() {
        for (j, name) in ["log", "log2", "log10", "powr"].iter().enumerate() {
            let r = reference(name, f64::from(x), 0.5, 0);
            let err = ulp_error_f32(o[4 * i + j], &r).unwrap_or(f64::INFINITY);
            assert!(
                err <= 8192.0,
                "half_{name}({x:e}) = {:e}: {err} ulp",
                o[4 * i + j]
            );
        }
    }
    assert!(
        o[4 * nans + 3].is_nan(),
        "half_powr(NaN, 0.5) = {}",
        o[4 * nans + 3]
    );
}
