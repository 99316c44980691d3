//! Reference values for double- and single-precision math
//! (`csrc/mathref.c`, built by `build.rs`): the C library's long double evaluation, kept as an
//! unevaluated sum of two doubles, and the error of a device result in
//! ulps of the reference (OpenCL C spec §7.4).

use std::ffi::{c_char, c_int, CString};

extern "C" {
    fn ferrocl_math_ref(
        name: *const c_char,
        x: f64,
        y: f64,
        n: c_int,
        out: *mut f64,
        sign: *mut c_int,
    ) -> c_int;
}

/// The exact result `hi + lo` (to long double precision) of one builtin.
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    pub hi: f64,
    pub lo: f64,
    /// The exact result is finite beyond `f64::MAX` (`hi` is ±MAX): the
    /// infinity of its sign is the correctly rounded result.
    pub overflows: bool,
    /// The exact result is zero (its sign is the specified one), not a
    /// tiny value that rounds to zero.
    pub exact_zero: bool,
    /// lgamma_r's sign output.
    pub sign: i32,
}

/// The reference of OpenCL builtin `name` at `x` and `y` (second double
/// argument) or `n` (int argument). Panics for a name mathref.c lacks.
pub fn reference(name: &str, x: f64, y: f64, n: i32) -> Reference {
    let c = CString::new(name).expect("a name without NUL");
    let mut out = [0f64; 4];
    let mut sign = 0;
    // SAFETY: a NUL-terminated name, a 4-double output array and an int.
    let known = unsafe { ferrocl_math_ref(c.as_ptr(), x, y, n, out.as_mut_ptr(), &mut sign) };
    assert!(known != 0, "mathref.c has no reference for '{name}'");
    Reference {
        hi: out[0],
        lo: out[1],
        overflows: out[2] != 0.0,
        exact_zero: out[3] != 0.0,
        sign,
    }
}

/// ulp(r) of the real number `hi + lo` (OpenCL C §7.4: the distance
/// between the two finite doubles around it; at a power of two the
/// smaller spacing when the value is below it).
pub fn ulp_of(hi: f64, lo: f64) -> f64 {
    let bits = hi.abs().to_bits();
    let exp = bits >> 52;
    let spacing = match exp {
        0 | 1 => f64::from_bits(1),
        e if e > 52 => f64::from_bits((e - 52) << 52),
        e => f64::from_bits(1 << (e - 1)),
    };
    let power_of_two = bits & ((1 << 52) - 1) == 0 && exp > 1;
    if power_of_two && lo != 0.0 && lo.is_sign_negative() != hi.is_sign_negative() {
        spacing / 2.0
    } else {
        spacing
    }
}

/// The error of device result `got` against `r` in ulps, or why it is not
/// a number of ulps: a NaN, infinity or sign of an exact zero that
/// differs.
pub fn ulp_error(got: f64, r: &Reference) -> Result<f64, String> {
    if r.hi.is_nan() {
        return if got.is_nan() {
            Ok(0.0)
        } else {
            Err("want NaN".into())
        };
    }
    if r.hi.is_infinite() {
        return if got == r.hi {
            Ok(0.0)
        } else {
            Err(format!("want {}", r.hi))
        };
    }
    if r.overflows && got.is_infinite() && got.is_sign_negative() == r.hi.is_sign_negative() {
        return Ok(0.0);
    }
    if !got.is_finite() {
        return Err(format!("want finite {:e}", r.hi));
    }
    if r.exact_zero && got == 0.0 && got.is_sign_negative() != r.hi.is_sign_negative() {
        return Err(format!("want {:?} (zero sign)", r.hi));
    }
    Ok(((got - r.hi) - r.lo).abs() / ulp_of(r.hi, r.lo))
}

/// ulp(r) in single precision of the real number `hi + lo` (OpenCL C
/// §7.4, as [`ulp_of`]): 2^-149 below the smallest normal float, 2^104
/// beyond the largest.
pub fn ulp_of_f32(hi: f64, lo: f64) -> f64 {
    let a = hi.abs();
    if a < f32::MIN_POSITIVE as f64 {
        return 2f64.powi(-149);
    }
    let e = ((a.to_bits() >> 52) as i32 - 1023).min(127);
    let spacing = 2f64.powi(e - 23);
    let power_of_two = a == 2f64.powi(e) && e > -126;
    if power_of_two && lo != 0.0 && lo.is_sign_negative() != hi.is_sign_negative() {
        spacing / 2.0
    } else {
        spacing
    }
}

/// The error of single-precision device result `got` against `r` (a
/// reference computed from float arguments) in float ulps, or why it is
/// not a number of ulps, as [`ulp_error`]. An exact result beyond
/// `f32::MAX` may be returned as the infinity of its sign.
pub fn ulp_error_f32(got: f32, r: &Reference) -> Result<f64, String> {
    if r.hi.is_nan() {
        return if got.is_nan() {
            Ok(0.0)
        } else {
            Err("want NaN".into())
        };
    }
    if r.hi.is_infinite() {
        return if got as f64 == r.hi {
            Ok(0.0)
        } else {
            Err(format!("want {}", r.hi))
        };
    }
    let beyond = r.hi.abs() > f32::MAX as f64 || r.overflows;
    if beyond && got.is_infinite() && got.is_sign_negative() == r.hi.is_sign_negative() {
        return Ok(0.0);
    }
    if !got.is_finite() {
        return Err(format!("want finite {:e}", r.hi));
    }
    if r.exact_zero && got == 0.0 && got.is_sign_negative() != r.hi.is_sign_negative() {
        return Err(format!("want {:?} (zero sign)", r.hi));
    }
    Ok(((got as f64 - r.hi) - r.lo).abs() / ulp_of_f32(r.hi, r.lo))
}

/// A small deterministic generator (xorshift64*) for the math tests'
/// arguments.
pub struct Rng(pub u64);

impl Rng {
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.bits() >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi), as a float.
    pub fn uniform_f32(&mut self, lo: f64, hi: f64) -> f32 {
        self.uniform(lo, hi) as f32
    }

    /// A finite double with random bits: every magnitude equally likely.
    pub fn any_finite(&mut self) -> f64 {
        loop {
            let x = f64::from_bits(self.bits());
            if x.is_finite() {
                return x;
            }
        }
    }

    /// A finite float with random bits: every magnitude equally likely.
    pub fn any_finite_f32(&mut self) -> f32 {
        loop {
            let x = f32::from_bits((self.bits() >> 32) as u32);
            if x.is_finite() {
                return x;
            }
        }
    }
}

/// Pads `v` to a multiple of 4 elements (for the 4-wide kernels) with
/// copies of its first element.
pub fn pad4<T: Copy>(v: &mut Vec<T>) {
    while v.len() % 4 != 0 {
        v.push(v[0]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps() {
        assert_eq!(ulp_of(1.0, 0.0), f64::EPSILON);
        assert_eq!(ulp_of(1.0, -1e-30), f64::EPSILON / 2.0);
        assert_eq!(ulp_of(1.5, -1e-30), f64::EPSILON);
        assert_eq!(ulp_of(0.0, 0.0), f64::from_bits(1));
        assert_eq!(ulp_of(f64::MIN_POSITIVE, 0.0), f64::from_bits(1));
        assert_eq!(ulp_of(-8.0, 0.0), 8.0 * f64::EPSILON);
        let r = reference("exp", 1.0, 0.0, 0);
        assert_eq!(r.hi, std::f64::consts::E);
        assert!(ulp_error(std::f64::consts::E, &r).unwrap() < 0.5);
        let r = reference("sinpi", -2.0, 0.0, 0);
        assert!(r.hi == 0.0 && r.hi.is_sign_negative());
        let r = reference("exp", 710.0, 0.0, 0);
        assert!(r.overflows && r.hi == f64::MAX);
        assert_eq!(ulp_error(f64::INFINITY, &r), Ok(0.0));
    }

    #[test]
    fn float_ulps() {
        assert_eq!(ulp_of_f32(1.0, 0.0), f32::EPSILON as f64);
        assert_eq!(ulp_of_f32(1.0, -1e-30), f32::EPSILON as f64 / 2.0);
        assert_eq!(ulp_of_f32(0.0, 0.0), 2f64.powi(-149));
        assert_eq!(ulp_of_f32(1e-40, 0.0), 2f64.powi(-149));
        assert_eq!(ulp_of_f32(f32::MAX as f64, 0.0), 2f64.powi(104));
        assert_eq!(ulp_of_f32(1e300, 0.0), 2f64.powi(104));
        let r = reference("exp", 1.0, 0.0, 0);
        assert!(ulp_error_f32(std::f32::consts::E, &r).unwrap() < 0.5);
        let next = f32::from_bits(std::f32::consts::E.to_bits() + 1);
        let e = ulp_error_f32(next, &r).unwrap();
        assert!(e > 0.5 && e < 1.5, "{e}");
        let r = reference("exp", 89.0, 0.0, 0);
        assert_eq!(ulp_error_f32(f32::INFINITY, &r), Ok(0.0));
        let r = reference("remquo", 7.0, 2.0, 0);
        assert_eq!((r.hi, r.sign), (-1.0, 4));
    }
}
