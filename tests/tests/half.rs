//! cl_khr_fp16: half arithmetic and builtins, against exact host
//! references.
//!
//! - Math builtins on every finite half (and the infinities and a NaN),
//!   within the half-precision ULP bounds the CTS uses (math_brute_force's
//!   `half_ulp` column: 2 ulp for most functions, 4 for erf, erfc, pow,
//!   pown, powr, rootn and tgamma, 1.5 for sqrt, 1 for rsqrt, exact for
//!   fmod and remainder), from a long double reference
//!   (`ferrocl_tests::mathref`). The device does not report CL_FP_DENORM
//!   for half, so a zero of the right sign is accepted where the exact
//!   result is a half denormal, and denormal arguments may be read as
//!   zeros.
//! - `fma` correctly rounded (CL_FP_FMA is reported), also where a * b is
//!   exactly halfway between two halves and c decides the direction.
//! - Division within 1 ulp.
//! - Conversions to half with each rounding mode (`convert_half_rt*` from
//!   float and double, `vstore_half_rt*`) exactly.
//!
//! Every test runs where the device reports cl_khr_fp16 (both devices this
//! project runs on do: shaderFloat16).

use ferrocl_tests::mathref::{reference, Rng};
use ferrocl_tests::{device_string, device_value, half_to_f64, Cl};
use opencl_sys::{
    cl_device_fp_config, CL_DEVICE_EXTENSIONS, CL_DEVICE_HALF_FP_CONFIG, CL_FP_FMA, CL_FP_INF_NAN,
    CL_FP_ROUND_TO_NEAREST,
};

/// The device reports cl_khr_fp16 (and then a consistent half config).
fn fp16(cl: &Cl) -> bool {
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let config: cl_device_fp_config = device_value(cl.device(), CL_DEVICE_HALF_FP_CONFIG);
    let has = ext.split_whitespace().any(|e| e == "cl_khr_fp16");
    if has {
        let want = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_FMA;
        assert_eq!(config & want, want, "CL_DEVICE_HALF_FP_CONFIG {config:#x}");
    } else {
        assert_eq!(config, 0, "CL_DEVICE_HALF_FP_CONFIG without cl_khr_fp16");
        eprintln!("cl_khr_fp16 is not reported: skipped");
    }
    has
}

/// Rounding modes of a conversion to half.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

/// `x` rounded to half as `mode` says: the bits. Exact: every finite half
/// is a multiple of 2^-24, and `x` is compared with the two halves around
/// it in double (exact for halves; `x` itself is the value to round).
fn f64_to_half(x: f64, mode: Mode) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    // The largest half of magnitude <= a (the bits, positive).
    let mut lo: u16 = 0;
    let (mut l, mut h) = (0u16, 0x7c00u16);
    while l <= h {
        let mid = l + (h - l) / 2;
        if half_to_f64(mid) <= a {
            lo = mid;
            l = mid + 1;
        } else {
            if mid == 0 {
                break;
            }
            h = mid - 1;
        }
    }
    let exact = half_to_f64(lo) == a;
    let up = if exact {
        false
    } else {
        let (below, above) = (half_to_f64(lo), half_to_f64(lo + 1));
        match (mode, sign != 0) {
            (Mode::Rtz, _) | (Mode::Rtp, true) | (Mode::Rtn, false) => false,
            (Mode::Rtp, false) | (Mode::Rtn, true) => true,
            (Mode::Rte, _) => {
                // Above 65504: the midpoint to "65536" decides overflow.
                let above = if lo == 0x7bff { 65536.0 } else { above };
                let (d0, d1) = (a - below, above - a);
                d1 < d0 || (d0 == d1 && lo & 1 == 1)
            }
        }
    };
    sign | (lo + up as u16)
}

/// Error of `got` against the exact `want` in ulps of half (the spacing
/// of halves at `want`; 2^-24 below 2^-14): 0 for the correctly rounded
/// half, an infinity where the exact value is beyond 65504 counting as
/// 65536 otherwise (the CTS's rule).
fn half_ulps(got: u16, want: f64) -> f64 {
    if got == f64_to_half(want, Mode::Rte) {
        return 0.0; // correctly rounded (an infinity beyond 65520 too)
    }
    let g = half_to_f64(got);
    if want.is_nan() {
        return if g.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if want.is_infinite() {
        return if g == want { 0.0 } else { f64::INFINITY };
    }
    let g = if g.is_infinite() && want.abs() > 65504.0 {
        65536f64.copysign(g)
    } else {
        g
    };
    if g.is_nan() || g.is_infinite() {
        return f64::INFINITY;
    }
    let a = want.abs();
    let ulp = if a < 2f64.powi(-14) {
        2f64.powi(-24)
    } else {
        2f64.powi(a.log2().floor() as i32 - 10)
    };
    (g - want).abs() / ulp
}

/// Every finite half, both infinities and a NaN.
fn all_halves() -> Vec<u16> {
    (0..=0xffffu16)
        .filter(|h| h & 0x7c00 != 0x7c00 || h & 0x3ff == 0 || *h == 0x7e00)
        .collect()
}

/// A pseudo-random finite half (the bits).
fn finite_half(rng: &mut Rng) -> u16 {
    let bits = rng.bits() as u16;
    (bits & 0x8000) | ((bits & 0x7fff) % 0x7c00)
}

fn is_denormal(h: u16) -> bool {
    h & 0x7c00 == 0 && h & 0x3ff != 0
}

/// How a builtin is called.
#[derive(Clone, Copy)]
enum Shape {
    Unary,
    /// `f(x, y)` with y from a fixed list.
    Binary,
    /// `f(x, n)`, n from a fixed list.
    WithInt,
}

const YS: &[f32] = &[-3.5, -1.0, 0.5, 1.0, 2.0, 2.75, 10.0, 0.1];
const NS: &[i32] = &[-3, -1, 1, 2, 3, 5];

/// Runs `name` over every half (and, for two-argument shapes, the
/// second arguments above), scalar and `half4`, and checks the bound.
fn check(cl: &Cl, name: &str, shape: Shape, bound: f64) {
    let call = match shape {
        Shape::Unary => format!("{name}(x)"),
        Shape::Binary => format!("{name}(x, y)"),
        Shape::WithInt => format!("{name}(x, n)"),
    };
    let call4 = call
        .replace("(x", "(x4")
        .replace("y)", "y4)")
        .replace("n)", "n4)");
    let source = format!(
        r#"#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void f(global const ushort *in, float yf, int n, global ushort *out) {{
            size_t i = get_global_id(0);
            half x = as_half(in[i]);
            half y = (half)yf;
            out[i] = as_ushort({call});
        }}
        kernel void f4(global const ushort4 *in, float yf, int n, global ushort4 *out) {{
            size_t i = get_global_id(0);
            half4 x4 = as_half4(in[i]);
            half4 y4 = (half4)((half)yf);
            int4 n4 = (int4)(n);
            out[i] = as_ushort4({call4});
        }}"#
    );
    let program = cl.build(&source);
    let mut xs = all_halves();
    while xs.len() % 4 != 0 {
        xs.push(0x3c00);
    }
    let seconds: Vec<(f32, i32)> = match shape {
        Shape::Unary => vec![(0.0, 0)],
        Shape::Binary => YS.iter().map(|&y| (y, 0)).collect(),
        Shape::WithInt => NS.iter().map(|&n| (0.0, n)).collect(),
    };
    let input = cl.buffer_from(&xs);
    let out = cl.buffer::<u16>(xs.len());
    let mut worst = (0.0f64, 0u16, 0f32, 0i32);
    for &(y, n) in &seconds {
        for (kernel, items) in [("f", xs.len()), ("f4", xs.len() / 4)] {
            let k = program.kernel(kernel);
            k.arg(0, &input).arg(1, &y).arg(2, &n).arg(3, &out);
            cl.queue.run(&k, &[items], None);
            let got = cl.queue.read(&out);
            // The kernel's y is (half)yf.
            let yh = half_to_f64(f64_to_half(f64::from(y), Mode::Rte));
            for (&x, &g) in xs.iter().zip(&got) {
                let xv = half_to_f64(x);
                let want = |xv: f64| -> f64 {
                    let r = reference(name, xv, yh, n);
                    r.hi + r.lo
                };
                let mut err = half_ulps(g, want(xv));
                if err > bound && is_denormal(x) {
                    // A denormal argument read as a zero of its sign.
                    err = err.min(half_ulps(g, want(0f64.copysign(xv))));
                }
                if err > bound && g & 0x7fff == 0 {
                    // A denormal result flushed to zero.
                    let w = want(xv);
                    if w.abs() < 2f64.powi(-14) * (1.0 + bound / 1024.0) {
                        err = 0.0;
                    }
                }
                if err > worst.0 || err.is_nan() {
                    worst = (err, x, y, n);
                }
                assert!(
                    err <= bound,
                    "{kernel}: {call} at x = {xv:e} ({x:#06x}), y = {y}, n = {n}: got {:e} \
                     ({g:#06x}), want {:e}: {err} ulp (bound {bound})",
                    half_to_f64(g),
                    want(xv)
                );
            }
        }
    }
    eprintln!(
        "{name}: max {:.3} ulp (at {:#06x}, y {}, n {})",
        worst.0, worst.1, worst.2, worst.3
    );
}

#[test]
fn math_builtins_within_half_bounds() {
    let cl = Cl::new();
    if !fp16(&cl) {
        return;
    }
    use Shape::*;
    let functions: &[(&str, Shape, f64)] = &[
        ("sin", Unary, 2.0),
        ("cos", Unary, 2.0),
        ("tan", Unary, 2.5),
        ("sinpi", Unary, 2.0),
        ("asin", Unary, 2.0),
        ("atan", Unary, 2.0),
        ("sinh", Unary, 2.0),
        ("tanh", Unary, 2.0),
        ("exp", Unary, 2.0),
        ("exp2", Unary, 2.0),
        ("exp10", Unary, 2.0),
        ("expm1", Unary, 2.0),
        ("log", Unary, 2.0),
        ("log2", Unary, 2.0),
        ("log1p", Unary, 2.0),
        ("sqrt", Unary, 1.5),
        ("rsqrt", Unary, 1.0),
        ("cbrt", Unary, 2.0),
        ("erf", Unary, 4.0),
        ("erfc", Unary, 4.0),
        ("tgamma", Unary, 4.0),
        ("atan2", Binary, 2.0),
        ("pow", Binary, 4.0),
        ("hypot", Binary, 2.0),
        ("fmod", Binary, 0.0),
        ("remainder", Binary, 0.0),
        ("pown", WithInt, 4.0),
        ("rootn", WithInt, 4.0),
    ];
    for &(name, shape, bound) in functions {
        check(&cl, name, shape, bound);
    }
}

/// The correctly rounded a * b + c of halves (bits): exact in integers
/// (every half is a multiple of 2^-24, so a * b + c is S * 2^-48).
fn fma_reference(a: u16, b: u16, c: u16) -> u16 {
    let (fa, fb, fc) = (half_to_f64(a), half_to_f64(b), half_to_f64(c));
    if !(fa.is_finite() && fb.is_finite() && fc.is_finite()) {
        return f64_to_half(fa.mul_add(fb, fc), Mode::Rte);
    }
    let int = |x: f64| (x * 2f64.powi(24)) as i128;
    let s = int(fa) * int(fb) + (int(fc) << 24);
    if s == 0 {
        // An exact zero: -0 only for (-0) + (-0) products and sums.
        let neg = (fa * fb).is_sign_negative() && fc.is_sign_negative();
        return if neg { 0x8000 } else { 0 };
    }
    // The halves around S * 2^-48, compared exactly (as S values).
    let approx = s as f64 * 2f64.powi(-48);
    let candidate = f64_to_half(approx, Mode::Rtz) & 0x7fff;
    let sign = if s < 0 { 0x8000 } else { 0 };
    let sv = |h: u16| -> i128 {
        if h >= 0x7c00 {
            65536i128 << 48
        } else {
            (half_to_f64(h) * 2f64.powi(48)) as i128
        }
    };
    let a_s = s.abs();
    // The candidate may be one off either way (approx is rounded).
    let mut lo = candidate.saturating_sub(1);
    while lo < 0x7c00 && sv(lo + 1) <= a_s {
        lo += 1;
    }
    while sv(lo) > a_s {
        lo -= 1;
    }
    if lo >= 0x7c00 {
        return sign | 0x7c00; // 65536 and beyond: infinite
    }
    let (d0, d1) = (a_s - sv(lo), sv(lo + 1) - a_s);
    let up = d1 < d0 || (d0 == d1 && lo & 1 == 1);
    sign | (lo + up as u16)
}

#[test]
fn fma_is_correctly_rounded() {
    let cl = Cl::new();
    if !fp16(&cl) {
        return;
    }
    let mut rng = Rng(0x16_9e37_79b9);
    let mut triples: Vec<[u16; 3]> = Vec::new();
    // a * b halfway between two halves (1.5 * (1 + 2^-10) = 1.5 + 2^-10 +
    // 2^-11), c the smallest denormal either way or zero: only a
    // correctly rounded fma gets all three.
    for (a, b) in [(0x3e00, 0x3c01), (0xbe00, 0x3c01), (0x4600, 0x3c03)] {
        for c in [0x0001, 0x8001, 0x0000, 0x8000, 0x0200] {
            triples.push([a, b, c]);
        }
    }
    while triples.len() < 1 << 14 {
        let (a, b, c) = (
            finite_half(&mut rng),
            finite_half(&mut rng),
            finite_half(&mut rng),
        );
        triples.push([a, b, c]);
        // A product and an addend of similar size: cancellations.
        let p = f64_to_half(half_to_f64(a) * half_to_f64(b), Mode::Rte);
        if p & 0x7c00 != 0x7c00 {
            triples.push([a, b, p ^ 0x8000]);
        }
    }
    let flat: Vec<u16> = triples.iter().flatten().copied().collect();
    let source = r#"#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void f(global const ushort *in, global ushort *out) {
            size_t i = get_global_id(0);
            half a = as_half(in[3 * i]), b = as_half(in[3 * i + 1]), c = as_half(in[3 * i + 2]);
            out[i] = as_ushort(fma(a, b, c));
        }"#;
    let (input, out) = (cl.buffer_from(&flat), cl.buffer::<u16>(triples.len()));
    let k = cl.kernel(source, "f");
    k.arg(0, &input).arg(1, &out);
    cl.queue.run(&k, &[triples.len()], None);
    let got = cl.queue.read(&out);
    let mut checked = 0;
    for (t, &g) in triples.iter().zip(&got) {
        let want = fma_reference(t[0], t[1], t[2]);
        let denormal = want & 0x7c00 == 0 && want & 0x3ff != 0;
        if denormal && g & 0x7fff == 0 || t.iter().any(|&h| is_denormal(h)) && g != want {
            continue; // flushed: allowed without CL_FP_DENORM
        }
        assert_eq!(
            g, want,
            "fma({:#06x}, {:#06x}, {:#06x}) = {g:#06x}, want {want:#06x}",
            t[0], t[1], t[2]
        );
        checked += 1;
    }
    assert!(
        checked > triples.len() * 9 / 10,
        "{checked} of {} checked",
        triples.len()
    );
}

#[test]
fn division_within_one_ulp() {
    let cl = Cl::new();
    if !fp16(&cl) {
        return;
    }
    let mut rng = Rng(0x7_9e37_79b9);
    let n = 1 << 15;
    let pairs: Vec<u16> = (0..2 * n).map(|_| finite_half(&mut rng)).collect();
    let source = r#"#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void f(global const ushort2 *in, global ushort *out) {
            size_t i = get_global_id(0);
            out[i] = as_ushort(as_half(in[i].x) / as_half(in[i].y));
        }
        kernel void f8(global const ushort16 *in, global ushort8 *out) {
            size_t i = get_global_id(0);
            half16 v = as_half16(in[i]);
            out[i] = as_ushort8(v.even / v.odd);
        }"#;
    let program = cl.build(source);
    let (input, out) = (cl.buffer_from(&pairs), cl.buffer::<u16>(n));
    for (kernel, items) in [("f", n), ("f8", n / 8)] {
        let k = program.kernel(kernel);
        k.arg(0, &input).arg(1, &out);
        cl.queue.run(&k, &[items], None);
        let got = cl.queue.read(&out);
        for (i, &g) in got.iter().enumerate() {
            let (x, y) = (pairs[2 * i], pairs[2 * i + 1]);
            if is_denormal(x) || is_denormal(y) {
                continue;
            }
            let want = half_to_f64(x) / half_to_f64(y);
            let mut err = half_ulps(g, want);
            if g & 0x7fff == 0 && want.abs() < 2f64.powi(-14) {
                err = 0.0;
            }
            assert!(
                err <= 1.0,
                "{kernel}: {:e} / {:e} = {:e} ({g:#06x}), want {want:e}: {err} ulp",
                half_to_f64(x),
                half_to_f64(y),
                half_to_f64(g)
            );
        }
    }
}

/// Values around the interesting places of each rounding: exact halves,
/// halfway and near-halfway points, beyond the largest half, the denormal
/// range and below it, both signs.
fn conversion_inputs() -> Vec<f64> {
    let mut v = vec![
        0.0,
        1.3,
        1.0,
        65504.0,
        65519.0,
        65520.0,
        65535.9,
        70000.0,
        1e6,
        1e-6,
        3e-8,
        2.9e-8,
        6e-8,
        1e-30,
        6.1e-5,
        1.0 + 2f64.powi(-11),
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
        1.0 + 2f64.powi(-11) - 2f64.powi(-40),
        1.0 + 3.0 * 2f64.powi(-11),
        2049.0,
        2051.0,
        0.1,
        1.0 / 3.0,
        123.456,
    ];
    let mut rng = Rng(0x3_9e37_79b9);
    for _ in 0..200 {
        v.push(rng.uniform(-70000.0, 70000.0));
        v.push(rng.uniform(-1.0, 1.0) * 2f64.powi(-((rng.bits() % 30) as i32)));
    }
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

#[test]
fn conversions_round_as_asked() {
    let cl = Cl::new();
    if !fp16(&cl) {
        return;
    }
    let xs = conversion_inputs();
    let xf: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    // from_float and from_double: each rounding mode, convert_half then
    // vstore_half.
    let kernel = |t: &str| {
        format!(
            r#"kernel void from_{t}(global const {t} *in, global ushort *out) {{
                size_t i = get_global_id(0);
                {t} x = in[i];
                global ushort *o = out + 8 * i;
                o[0] = as_ushort(convert_half_rte(x));
                o[1] = as_ushort(convert_half_rtz(x));
                o[2] = as_ushort(convert_half_rtp(x));
                o[3] = as_ushort(convert_half_rtn(x));
                vstore_half_rte(x, 4, (global half *)o);
                vstore_half_rtz(x, 5, (global half *)o);
                vstore_half_rtp(x, 6, (global half *)o);
                vstore_half_rtn(x, 7, (global half *)o);
            }}
            "#
        )
    };
    let fp64 = device_string(cl.device(), CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64");
    let mut source =
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n".to_string() + &kernel("float");
    if fp64 {
        source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
        source += &kernel("double");
    }
    let program = cl.build(&source);
    let modes = [Mode::Rte, Mode::Rtz, Mode::Rtp, Mode::Rtn];
    let out = cl.buffer::<u16>(8 * xs.len());
    let (in_float, in_double) = (cl.buffer_from(&xf), cl.buffer_from(&xs));
    let run = |kernel: &str, values: &[f64]| {
        let k = program.kernel(kernel);
        if kernel == "from_float" {
            k.arg(0, &in_float);
        } else {
            k.arg(0, &in_double);
        }
        k.arg(1, &out);
        cl.queue.run(&k, &[xs.len()], None);
        let got = cl.queue.read(&out);
        for (i, &x) in values.iter().enumerate() {
            for (j, what) in ["convert_half", "vstore_half"].iter().enumerate() {
                for (m, &mode) in modes.iter().enumerate() {
                    let g = got[8 * i + 4 * j + m];
                    let want = f64_to_half(x, mode);
                    // Denormal results may be flushed (no CL_FP_DENORM).
                    let flushed = is_denormal(want) && g & 0x7fff == 0;
                    assert!(
                        g == want || flushed,
                        "{kernel}: {what}_{mode:?}({x:e}) = {g:#06x}, want {want:#06x}"
                    );
                }
            }
        }
    };
    let as_float: Vec<f64> = xf.iter().map(|&x| f64::from(x)).collect();
    run("from_float", &as_float);
    if fp64 {
        run("from_double", &xs);
    }
}

#[test]
fn host_reference_rounds() {
    // The references above, on values whose roundings are known.
    assert_eq!(f64_to_half(1.0, Mode::Rte), 0x3c00);
    assert_eq!(f64_to_half(1.3, Mode::Rte), 0x3d33);
    assert_eq!(f64_to_half(1.3, Mode::Rtp), 0x3d34);
    assert_eq!(f64_to_half(-1.3, Mode::Rtn), 0xbd34);
    assert_eq!(f64_to_half(70000.0, Mode::Rtz), 0x7bff);
    assert_eq!(f64_to_half(70000.0, Mode::Rte), 0x7c00);
    assert_eq!(f64_to_half(65519.0, Mode::Rte), 0x7bff);
    assert_eq!(f64_to_half(65520.0, Mode::Rte), 0x7c00);
    assert_eq!(f64_to_half(1e-6, Mode::Rtz), 0x0010);
    assert_eq!(f64_to_half(2.9e-8, Mode::Rte), 0x0000);
    assert_eq!(f64_to_half(3e-8, Mode::Rte), 0x0001);
    assert_eq!(f64_to_half(1.0 + 2f64.powi(-11), Mode::Rte), 0x3c00);
    assert_eq!(f64_to_half(1.0 + 3.0 * 2f64.powi(-11), Mode::Rte), 0x3c02);
    // 1.5 * (1 + 2^-10) + 2^-24 rounds up, - 2^-24 down, + 0 to even.
    assert_eq!(fma_reference(0x3e00, 0x3c01, 0x0001), 0x3e02);
    assert_eq!(fma_reference(0x3e00, 0x3c01, 0x8001), 0x3e01);
    assert_eq!(fma_reference(0x3e00, 0x3c01, 0x0000), 0x3e02);
    assert_eq!(half_ulps(0x3c01, 1.0), 1.0);
}

/// Programs created from SPIR-V (clCreateProgramWithIL) get the same half
/// functions as source programs (`frontend::il_math`): erf and lgamma on
/// half were build errors there, sin kept Vulkan's 16-bit precision.
#[test]
fn il_programs_get_the_half_functions() {
    let cl = Cl::new();
    if !fp16(&cl) {
        return;
    }
    let source = r#"#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const ushort *in, global ushort *out) {
            size_t i = get_global_id(0);
            half x = as_half(in[i]);
            out[3 * i] = as_ushort(erf(x));
            out[3 * i + 1] = as_ushort(lgamma(x));
            out[3 * i + 2] = as_ushort(sin(x));
        }"#;
    let program = cl
        .try_build_il(source, "")
        .unwrap_or_else(|e| panic!("IL build failed: {e}"));
    let xs: Vec<u16> = (0..0x7c00u16).step_by(7).collect();
    let (input, out) = (cl.buffer_from(&xs), cl.buffer::<u16>(3 * xs.len()));
    let k = program.kernel("k");
    k.arg(0, &input).arg(1, &out);
    cl.queue.run(&k, &[xs.len()], None);
    let got = cl.queue.read(&out);
    for (i, &x) in xs.iter().enumerate() {
        if is_denormal(x) {
            continue; // may be read as zero
        }
        let xv = half_to_f64(x);
        for (j, (name, bound)) in [("erf", 4.0), ("lgamma", 4.0), ("sin", 2.0)]
            .iter()
            .enumerate()
        {
            let r = reference(name, xv, 0.0, 0);
            let g = got[3 * i + j];
            let mut err = half_ulps(g, r.hi + r.lo);
            if g & 0x7fff == 0 && (r.hi + r.lo).abs() < 2f64.powi(-14) {
                err = 0.0; // a denormal result flushed
            }
            assert!(err <= *bound, "IL {name}({xv:e}) = {:#06x}: {err} ulp", g);
        }
    }
}

/// A float rounded to half and widened again is the half's value, however
/// the program gets there: NVIDIA's compiler folded `(float)(half)x` (and
/// vstore_half / vload_half on a private array, `as_half(as_ushort(..))`,
/// `(half)x * 1`) into `x` itself, so `fmod((half)0.1f, (half)0.1f)` was
/// not 0 there (`compiler::passes::lower::narrow`).
#[test]
fn rounded_halves_widen_to_their_value() {
    let cl = Cl::new();
    if !fp16(&cl) {
        return;
    }
    let program = cl.build(
        r#"#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const float *in, global const ushort *rounded, global uint *out) {
            size_t i = get_global_id(0);
            float x = in[i];
            global uint *o = out + 6 * i;
            o[0] = as_uint((float)(half)x);
            o[1] = as_uint((float)as_half(as_ushort((half)x)));
            half t[2];
            vstore_half(x, 0, t);
            o[2] = as_uint(vload_half(0, t));
            o[3] = as_uint((float)((half)x * (half)1.0f));
            o[4] = as_uint((float)convert_half_rtz(x));
            o[5] = as_ushort(fmod(as_half(rounded[i]), (half)x));
        }"#,
    );
    let xs: Vec<f32> = conversion_inputs()
        .iter()
        .map(|&x| x as f32)
        .filter(|x| x.abs() < 65504.0)
        .collect();
    let rounded: Vec<u16> = xs
        .iter()
        .map(|&x| f64_to_half(f64::from(x), Mode::Rte))
        .collect();
    let (input, out) = (cl.buffer_from(&xs), cl.buffer::<u32>(6 * xs.len()));
    let rounded_in = cl.buffer_from(&rounded);
    let k = program.kernel("k");
    k.arg(0, &input).arg(1, &rounded_in).arg(2, &out);
    cl.queue.run(&k, &[xs.len()], None);
    let got = cl.queue.read(&out);
    for (i, &x) in xs.iter().enumerate() {
        let (rte, rtz) = (
            f64_to_half(f64::from(x), Mode::Rte),
            f64_to_half(f64::from(x), Mode::Rtz),
        );
        let widened = |h: u16| (half_to_f64(h) as f32).to_bits();
        for (j, want) in [rte, rte, rte, rte, rtz].into_iter().enumerate() {
            let g = got[6 * i + j];
            // Denormal halves may be flushed (no CL_FP_DENORM for half).
            let flushed = is_denormal(want) && g & 0x7fff_ffff == 0;
            assert!(
                g == widened(want) || flushed,
                "expression {j} at x = {x:e}: {g:#010x} ({:e}), want the half {want:#06x} ({:e})",
                f32::from_bits(g),
                half_to_f64(want)
            );
        }
        // fmod of the half by itself, once read as bits, once rounded by
        // the kernel.
        let h = rounded[i];
        if h & 0x7fff != 0 && !is_denormal(h) {
            let g = got[6 * i + 5];
            assert_eq!(g & 0x7fff, 0, "fmod({h:#06x}, (half){x:e}) = {g:#06x}");
        }
    }
}

/// Half, float and double vectors of 8 and 16: the classification
/// functions, fract, modf, sincos, frexp and fma give per component what
/// the scalar functions give, and isfinite / isunordered what the host
/// says. On half8/half16 they were build errors: the Kernel-only
/// OpIsFinite, OpIsNormal, OpSignBitSet, OpOrdered, OpUnordered and the
/// pointer-result functions had no 8/16-wide lowering (CTS
/// math_brute_force, half).
#[test]
fn wide_vectors_match_scalars() {
    let cl = Cl::new();
    if !fp16(&cl) {
        return;
    }
    const SLOTS: usize = 14;
    let kernel = |t: &str, u: &str, n: usize| {
        let w = |k: usize, v: &str| format!("vstore{n}(convert_ulong{n}({v}), {k}, w);");
        let s = |k: usize, v: &str| format!("s[{k} * {n} + j] = (ulong)({v});");
        format!(
            r#"kernel void k_{t}{n}(global const {t} *in, global ulong *o) {{
                size_t i = get_global_id(0);
                {t}{n} x = vload{n}(i, in), y = x.s{rev}, a, b, c, r;
                int{n} ex;
                global ulong *w = o + 2 * i * {SLOTS} * {n}, *s = w + {SLOTS} * {n};
                {c0} {c1} {c2} {c3} {c4}
                r = fract(x, &a); {f5} {f6}
                r = modf(x, &b); {f7} {f8}
                r = sincos(x, &c); {f9} {f10}
                r = frexp(x, &ex); {f11} {f12}
                r = fma(x, y, x); {f13}
                for (int j = 0; j < {n}; j++) {{
                    {t} sx = x[j], sy = y[j], sa, sb, sc, sr;
                    int se;
                    {s0} {s1} {s2} {s3} {s4}
                    sr = fract(sx, &sa); {s5} {s6}
                    sr = modf(sx, &sb); {s7} {s8}
                    sr = sincos(sx, &sc); {s9} {s10}
                    sr = frexp(sx, &se); {s11} {s12}
                    sr = fma(sx, sy, sx); {s13}
                }}
            }}
            "#,
            rev = if n == 8 {
                "76543210"
            } else {
                "fedcba9876543210"
            },
            c0 = w(0, &format!("-convert_long{n}(isfinite(x))")),
            c1 = w(1, &format!("-convert_long{n}(isnormal(x))")),
            c2 = w(2, &format!("-convert_long{n}(signbit(x))")),
            c3 = w(3, &format!("-convert_long{n}(isordered(x, y))")),
            c4 = w(4, &format!("-convert_long{n}(isunordered(x, y))")),
            f5 = w(5, &format!("as_{u}{n}(r)")),
            f6 = w(6, &format!("as_{u}{n}(a)")),
            f7 = w(7, &format!("as_{u}{n}(r)")),
            f8 = w(8, &format!("as_{u}{n}(b)")),
            f9 = w(9, &format!("as_{u}{n}(r)")),
            f10 = w(10, &format!("as_{u}{n}(c)")),
            f11 = w(11, &format!("as_{u}{n}(r)")),
            f12 = w(12, &format!("convert_long{n}(ex)")),
            f13 = w(13, &format!("as_{u}{n}(r)")),
            s0 = s(0, "isfinite(sx)"),
            s1 = s(1, "isnormal(sx)"),
            s2 = s(2, "signbit(sx)"),
            s3 = s(3, "isordered(sx, sy)"),
            s4 = s(4, "isunordered(sx, sy)"),
            s5 = s(5, &format!("as_{u}(sr)")),
            s6 = s(6, &format!("as_{u}(sa)")),
            s7 = s(7, &format!("as_{u}(sr)")),
            s8 = s(8, &format!("as_{u}(sb)")),
            s9 = s(9, &format!("as_{u}(sr)")),
            s10 = s(10, &format!("as_{u}(sc)")),
            s11 = s(11, &format!("as_{u}(sr)")),
            s12 = s(12, "(long)se"),
            s13 = s(13, &format!("as_{u}(sr)")),
        )
    };
    let fp64 = device_string(cl.device(), CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64");
    let mut source = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n".to_string();
    let mut types = vec![("half", "ushort"), ("float", "uint")];
    if fp64 {
        source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
        types.push(("double", "ulong"));
    }
    for &(t, u) in &types {
        for n in [8, 16] {
            source += &kernel(t, u, n);
        }
    }
    let program = cl.build(&source);
    let values: Vec<f64> = [
        0.0, -0.0, 1.0, -1.5, 2.75, 1e-6, -3e-7, 100.25, -65504.0, 0.3,
    ]
    .into_iter()
    .chain([f64::INFINITY, f64::NEG_INFINITY, f64::NAN])
    .chain((0..19).map(|k| (k as f64 - 9.0) * 0.7))
    .collect();
    for &(t, _) in &types {
        for n in [8usize, 16] {
            let items = values.len().div_ceil(n);
            let xs: Vec<f64> = (0..items * n).map(|k| values[k % values.len()]).collect();
            let bytes: Vec<u8> = match t {
                "half" => xs
                    .iter()
                    .flat_map(|&x| f64_to_half(x, Mode::Rte).to_le_bytes())
                    .collect(),
                "float" => xs.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect(),
                _ => xs.iter().flat_map(|&x| x.to_le_bytes()).collect(),
            };
            let input = cl.buffer_from(&bytes);
            let out = cl.buffer::<u64>(2 * items * SLOTS * n);
            let k = program.kernel(&format!("k_{t}{n}"));
            k.arg(0, &input).arg(1, &out);
            cl.queue.run(&k, &[items], None);
            let got = cl.queue.read(&out);
            for (item, pair) in got.chunks(2 * SLOTS * n).enumerate() {
                let (wide, scalar) = pair.split_at(SLOTS * n);
                for slot in 0..SLOTS {
                    for j in 0..n {
                        let x = xs[item * n + j];
                        let (wv, sv) = (wide[slot * n + j], scalar[slot * n + j]);
                        assert_eq!(
                            wv, sv,
                            "{t}{n}: slot {slot} at x = {x}: wide {wv:#x}, scalar {sv:#x}"
                        );
                        let host = match slot {
                            0 => Some(x.is_finite()),
                            4 => Some(x.is_nan() || xs[item * n + n - 1 - j].is_nan()),
                            _ => None,
                        };
                        if let Some(h) = host {
                            assert_eq!(wv, u64::from(h), "{t}{n}: slot {slot} at x = {x}");
                        }
                    }
                }
            }
        }
    }
}
