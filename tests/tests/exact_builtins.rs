//! Builtins whose results are exact, where Vulkan's instructions are not:
//! frexp, ilogb, logb, ldexp and modf at the values where Frexp and Ldexp
//! are undefined or wrong (zeros, infinities, NaN, denormals, exponents
//! far beyond the range), on double (the device reports CL_FP_DENORM for
//! it: exact, no flushing) and float (whose denormals may be flushed to
//! zeros of their sign); double fmod, remainder and remquo with quotients
//! far beyond 2^53 (OpFRem is x - y * trunc(x / y)); fract of a NaN. The
//! results are exact in every case (OpenCL C §7.5.1 and the CTS's
//! references).

use ferrocl_tests::mathref::{reference, Rng};
use ferrocl_tests::{device_string, Cl};
use opencl_sys::CL_DEVICE_EXTENSIONS;

/// One type's kernel: for each x, frexp's mantissa and exponent, ilogb,
/// logb, ldexp(x, n) for the n below, modf's fraction and integral part.
fn source(t: &str) -> String {
    format!(
        r#"kernel void k(global const {t} *x, global const int *n, global {t} *f, global int *i) {{
            size_t g = get_global_id(0);
            {t} v = x[g];
            int e;
            {t} ip;
            f[5 * g] = frexp(v, &e);
            i[2 * g] = e;
            i[2 * g + 1] = ilogb(v);
            f[5 * g + 1] = logb(v);
            f[5 * g + 2] = ldexp(v, n[g]);
            f[5 * g + 3] = modf(v, &ip);
            f[5 * g + 4] = ip;
        }}"#
    )
}

/// One argument pair: x (as a double, rounded to the type) and ldexp's n.
struct Case {
    x: f64,
    n: i32,
}

fn cases(min_normal: f64, max: f64) -> Vec<Case> {
    let denormal = min_normal / 8.0 * 3.0; // 0.375 * min normal
    vec![
        Case { x: 0.0, n: 3 },
        Case { x: -0.0, n: -3 },
        Case { x: 1.0, n: 1 },
        Case { x: -3.5, n: 4 },
        Case { x: 0.1, n: -2 },
        Case { x: 1.0, n: 100_000 },
        Case {
            x: -1.0,
            n: 100_000,
        },
        Case {
            x: 1.0,
            n: -100_000,
        },
        Case {
            x: max,
            n: i32::MAX,
        },
        Case {
            x: -max,
            n: i32::MAX - 1000,
        },
        Case {
            x: denormal,
            n: i32::MAX,
        },
        Case { x: denormal, n: 4 },
        Case {
            x: -denormal,
            n: -1,
        },
        Case {
            x: f64::INFINITY,
            n: 5,
        },
        Case {
            x: f64::NEG_INFINITY,
            n: -5,
        },
        Case {
            x: f64::NAN,
            n: i32::MAX,
        },
        Case {
            x: f64::NAN,
            n: i32::MIN,
        },
        Case {
            x: 1e30_f64.min(max),
            n: -100,
        },
        Case { x: 12345.678, n: 0 },
    ]
}

/// x * 2^k, exactly where the result is normal (two steps: 2^k alone
/// may be out of range).
fn scale(x: f64, k: i32) -> f64 {
    x * 2f64.powi(k / 2) * 2f64.powi(k - k / 2)
}

/// frexp's mantissa and ilogb of a finite non-zero double (exact).
fn decompose(x: f64) -> (f64, i32) {
    let mut e = x.abs().log2().floor() as i32;
    // Correct an off-by-one at powers of two from log2's rounding.
    while scale(x.abs(), -e) >= 2.0 {
        e += 1;
    }
    while scale(x.abs(), -e) < 1.0 {
        e -= 1;
    }
    (scale(x, -e - 1), e)
}

/// The expected results for `x` of a type whose values are `round`ed
/// from doubles: (frexp mantissa, frexp exponent, ilogb, logb, ldexp,
/// modf fraction, modf integral part).
fn expected(c: &Case, round: &dyn Fn(f64) -> f64) -> (f64, i32, i32, f64, f64, f64, f64) {
    let x = c.x;
    let ldexp = if x.is_nan() || x == 0.0 || x.is_infinite() {
        x
    } else {
        // Clamp the exponent to a range beyond every type's.
        let n = c.n.clamp(-3000, 3000);
        let mut r = x;
        let step = if n > 0 {
            2f64.powi(100)
        } else {
            2f64.powi(-100)
        };
        let mut left = n.abs();
        while left >= 100 && r != 0.0 && r.is_finite() {
            r *= step;
            left -= 100;
        }
        round(r * 2f64.powi(if n > 0 { left } else { -left }))
    };
    let (frac, int) = if x.is_infinite() {
        (0f64.copysign(x), x)
    } else if x.is_nan() {
        (x, x)
    } else {
        ((x - x.trunc()).copysign(x), x.trunc())
    };
    if x.is_nan() {
        (x, 0, i32::MAX, x, ldexp, frac, int)
    } else if x.is_infinite() {
        (x, 0, i32::MAX, f64::INFINITY, ldexp, frac, int)
    } else if x == 0.0 {
        (x, 0, i32::MIN, f64::NEG_INFINITY, ldexp, frac, int)
    } else {
        let (m, e) = decompose(x);
        (m, e + 1, e, f64::from(e), ldexp, frac, int)
    }
}

fn same(got: f64, want: f64) -> bool {
    got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan()
}

/// Checks one type, in a source program and in an IL program
/// (clCreateProgramWithIL: `frontend::il_math` links the same functions):
/// `from_t` turns the device's results back into doubles.
fn check<T: ferrocl_tests::Pod + Copy>(
    cl: &Cl,
    t: &str,
    to_t: &dyn Fn(f64) -> T,
    from_t: &dyn Fn(T) -> f64,
    min_normal: f64,
    max: f64,
    may_flush: bool,
) {
    for il in [false, true] {
        check_program(cl, t, il, to_t, from_t, min_normal, max, may_flush);
    }
}

/// `ilogb` alone in an IL program: `frontend::il_math` chose the builtins
/// by their result type, int for ilogb, so a module calling no other
/// libclc function kept the inline Frexp version (ilogb(0) = -1, wrong at
/// infinities and NaN).
#[test]
fn ilogb_alone_in_an_il_program() {
    let cl = Cl::new();
    let fp64 = device_string(cl.device(), CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64");
    for t in ["float", "double"] {
        if t == "double" && !fp64 {
            continue;
        }
        let src = format!(
            "{}kernel void k(global const {t} *x, global int *o) {{ o[get_global_id(0)] = ilogb(x[get_global_id(0)]); }}",
            if t == "double" { "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" } else { "" }
        );
        let program = cl
            .try_build_il(&src, "")
            .unwrap_or_else(|e| panic!("IL build failed: {e}"));
        let k = program.kernel("k");
        let xs = [0.0, -0.0, 1.0, 3.0, -0.375, 1e30, f64::INFINITY, f64::NAN];
        let want = [i32::MIN, i32::MIN, 0, 1, -2, 99, i32::MAX, i32::MAX];
        let o = cl.buffer::<i32>(xs.len());
        let bytes: Vec<u8> = if t == "float" {
            xs.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
        } else {
            xs.iter().flat_map(|&x| x.to_le_bytes()).collect()
        };
        let d = cl.buffer_from(&bytes);
        k.arg(0, &d).arg(1, &o);
        cl.queue.run(&k, &[xs.len()], None);
        let got = cl.queue.read(&o);
        for ((x, g), w) in xs.iter().zip(&got).zip(want) {
            assert_eq!(*g, w, "IL program: ilogb(({t}){x:e})");
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_program<T: ferrocl_tests::Pod + Copy>(
    cl: &Cl,
    t: &str,
    il: bool,
    to_t: &dyn Fn(f64) -> T,
    from_t: &dyn Fn(T) -> f64,
    min_normal: f64,
    max: f64,
    may_flush: bool,
) {
    let cs = cases(min_normal, max);
    let xs: Vec<T> = cs.iter().map(|c| to_t(c.x)).collect();
    let ns: Vec<i32> = cs.iter().map(|c| c.n).collect();
    let pragma = match t {
        "double" => "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
        _ => "",
    };
    let src = pragma.to_string() + &source(t);
    let program = if il {
        cl.try_build_il(&src, "")
            .unwrap_or_else(|e| panic!("IL build failed: {e}"))
    } else {
        cl.build(&src)
    };
    let k = program.kernel("k");
    let what = if il { "IL program" } else { "source program" };
    let (dx, dn) = (cl.buffer_from(&xs), cl.buffer_from(&ns));
    let (df, di) = (cl.buffer::<T>(5 * cs.len()), cl.buffer::<i32>(2 * cs.len()));
    k.arg(0, &dx).arg(1, &dn).arg(2, &df).arg(3, &di);
    cl.queue.run(&k, &[cs.len()], None);
    let (f, i) = (cl.queue.read(&df), cl.queue.read(&di));
    let round = |v: f64| from_t(to_t(v));
    for (g, c) in cs.iter().enumerate() {
        let c = Case {
            x: round(c.x),
            n: c.n,
        };
        let got = (
            from_t(f[5 * g]),
            i[2 * g],
            i[2 * g + 1],
            from_t(f[5 * g + 1]),
            from_t(f[5 * g + 2]),
            from_t(f[5 * g + 3]),
            from_t(f[5 * g + 4]),
        );
        let want = expected(&c, &round);
        let flushed = Case {
            x: 0f64.copysign(c.x),
            n: c.n,
        };
        let denormal = c.x != 0.0 && c.x.abs() < min_normal;
        let ok = |w: &(f64, i32, i32, f64, f64, f64, f64)| {
            same(got.0, w.0)
                && got.1 == w.1
                && got.2 == w.2
                && same(got.3, w.3)
                && (same(got.4, w.4) || may_flush && w.4 != 0.0 && w.4.abs() < min_normal)
                && same(got.5, w.5)
                && same(got.6, w.6)
        };
        let flush_ok = may_flush && denormal && ok(&expected(&flushed, &round));
        assert!(
            ok(&want) || flush_ok,
            "{what}: {t} x = {:e}, n = {}: got (frexp {:e}, {}; ilogb {}; logb {:e}; ldexp {:e}; \
             modf {:e}, {:e}), want {want:?}",
            c.x,
            c.n,
            got.0,
            got.1,
            got.2,
            got.3,
            got.4,
            got.5,
            got.6
        );
    }
}

#[test]
fn double_exponent_builtins() {
    let cl = Cl::new();
    if !device_string(cl.device(), CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64") {
        eprintln!("no cl_khr_fp64: skipped");
        return;
    }
    check(
        &cl,
        "double",
        &|x| x,
        &|x| x,
        f64::MIN_POSITIVE,
        f64::MAX,
        false,
    );
}

#[test]
fn float_exponent_builtins() {
    let cl = Cl::new();
    check(
        &cl,
        "float",
        &|x| x as f32,
        &f64::from,
        f64::from(f32::MIN_POSITIVE),
        f64::from(f32::MAX),
        true,
    );
}

#[test]
fn double_remainders_are_exact() {
    let cl = Cl::new();
    if !device_string(cl.device(), CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64") {
        eprintln!("no cl_khr_fp64: skipped");
        return;
    }
    let mut rng = Rng(0x5eed_1234_abcd);
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for i in 0..512 {
        // Exponents of x far above y's: quotients up to 2^600.
        let x = rng.uniform(1.0, 2.0) * 2f64.powi((rng.bits() % 600) as i32 - 100);
        let y = rng.uniform(1.0, 2.0) * 2f64.powi((rng.bits() % 200) as i32 - 150);
        xs.push(if i % 2 == 0 { x } else { -x });
        ys.push(if i % 3 == 0 { -y } else { y });
    }
    let source = r#"#pragma OPENCL EXTENSION cl_khr_fp64 : enable
        kernel void k(global const double *x, global const double *y, global double *o,
                      global int *q) {
            size_t i = get_global_id(0);
            int n;
            o[3 * i] = fmod(x[i], y[i]);
            o[3 * i + 1] = remainder(x[i], y[i]);
            o[3 * i + 2] = remquo(x[i], y[i], &n);
            q[i] = n;
        }"#;
    let k = cl.kernel(source, "k");
    let (dx, dy) = (cl.buffer_from(&xs), cl.buffer_from(&ys));
    let (o, q) = (cl.buffer::<f64>(3 * xs.len()), cl.buffer::<i32>(xs.len()));
    k.arg(0, &dx).arg(1, &dy).arg(2, &o).arg(3, &q);
    cl.queue.run(&k, &[xs.len()], None);
    let (o, q) = (cl.queue.read(&o), cl.queue.read(&q));
    for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
        let fmod = x % y; // Rust's % on floats is C's fmod: exact
        let rem = reference("remainder", x, y, 0).hi;
        assert!(
            same(o[3 * i], fmod),
            "fmod({x:e}, {y:e}) = {:e}, want {fmod:e}",
            o[3 * i]
        );
        assert!(
            same(o[3 * i + 1], rem),
            "remainder({x:e}, {y:e}) = {:e}, want {rem:e}",
            o[3 * i + 1]
        );
        assert!(
            same(o[3 * i + 2], rem),
            "remquo({x:e}, {y:e}) = {:e}, want {rem:e}",
            o[3 * i + 2]
        );
        // remquo's quotient: the sign of x / y, at least its 3 low bits
        // (the quotient x / y rounded to nearest is huge here: only the
        // sign and the low bits are specified; check the sign).
        let sign = (x / y).signum() as i32;
        assert!(
            q[i] == 0 || q[i].signum() == sign,
            "remquo({x:e}, {y:e}) quo {}",
            q[i]
        );
    }
}

#[test]
fn fract_of_nan_is_nan() {
    let cl = Cl::new();
    let source = r#"kernel void k(global const float *x, global float *o) {
            size_t i = get_global_id(0);
            float ip;
            o[2 * i] = fract(x[i], &ip);
            o[2 * i + 1] = ip;
        }"#;
    let xs = [f32::NAN, -f32::NAN, 1.25, -1.25];
    let k = cl.kernel(source, "k");
    let (dx, o) = (cl.buffer_from(&xs), cl.buffer::<f32>(8));
    k.arg(0, &dx).arg(1, &o);
    cl.queue.run(&k, &[xs.len()], None);
    let o = cl.queue.read(&o);
    assert!(
        o[0].is_nan() && o[1].is_nan() && o[2].is_nan() && o[3].is_nan(),
        "{o:?}"
    );
    assert_eq!(&o[4..], &[0.25, 1.0, 0.75, -2.0]);
}
