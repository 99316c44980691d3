/* Reference values for the double- and single-precision math tests
 * (tests/tests/double_math.rs, float_math.rs): each function evaluated in the C library's
 * long double (x87 extended precision on x86-64: 64-bit significand, so
 * its rounding error is 2^-11 of a double's ulp), returned as an unevaluated
 * sum hi + lo of two doubles so that the caller measures a device result's
 * error in ulps without rounding the reference to double first.
 *
 * The OpenCL-only functions (the *pi family, pown, powr, rootn) are written
 * here from their definitions in the OpenCL C specification, with the
 * argument reductions done exactly so that the long double evaluation keeps
 * its precision. Edge cases follow the specification's edge-case section.
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>

static const long double PI_L = 3.14159265358979323846264338327950288L;

/* out[0] + out[1] = r; a finite r beyond DBL_MAX is +-DBL_MAX plus the
 * excess, with out[2] = 1 (a device may return the infinity or a finite
 * value within its error bound of r); out[3] = 1 when r is exactly zero
 * (not a tiny value that underflowed to zero, even in long double: the
 * evaluation raised no underflow). */
static void split(long double r, double out[4])
{
    double hi = (double)r;
    out[2] = 0.0;
    out[3] = r == 0.0L && !fetestexcept(FE_UNDERFLOW);
    if (isinf(hi) && isfinite(r)) {
        hi = copysign(DBL_MAX, (double)r);
        out[2] = 1.0;
    }
    out[0] = hi;
    out[1] = isfinite(hi) ? (double)(r - (long double)hi) : 0.0;
}

/* sin(pi * r) for |r| <= 1, keeping the relative precision near the zeros
 * at r = +-1 (pi * (1 - r) is evaluated instead: 1 - r is exact). */
static long double sinpi_reduced(long double r)
{
    if (r > 0.5L)
        r = 1.0L - r;
    else if (r < -0.5L)
        r = -1.0L - r;
    return sinl(PI_L * r);
}

static long double ref_sinpi(double x)
{
    if (isnan(x) || isinf(x))
        return NAN;
    /* fmod is exact: r in (-2, 2) with the sign of x. */
    long double r = fmodl((long double)x, 2.0L);
    if (r == floorl(r))
        return copysignl(0.0L, x); /* sinpi(+-n) = +-0 */
    if (r > 1.0L)
        r -= 2.0L;
    else if (r < -1.0L)
        r += 2.0L;
    return sinpi_reduced(r);
}

static long double ref_cospi(double x)
{
    if (isnan(x) || isinf(x))
        return NAN;
    long double r = fmodl(fabsl((long double)x), 2.0L); /* [0, 2) */
    if (r > 1.0L)
        r = 2.0L - r; /* [0, 1] */
    /* cos(pi r) = sin(pi (1/2 - r)); +0 at n + 1/2. */
    return sinpi_reduced(0.5L - r);
}

static long double ref_tanpi(double x)
{
    if (isnan(x) || isinf(x))
        return NAN;
    long double s = ref_sinpi(x), c = ref_cospi(x);
    if (c == 0.0L) {
        /* n + 1/2: +inf for even n, -inf for odd n. */
        long double n = floorl((long double)x);
        return fmodl(n, 2.0L) == 0.0L ? INFINITY : -INFINITY;
    }
    return s / c;
}

static long double ref_rootn(double x, int n)
{
    if (n == 0 || isnan(x))
        return NAN;
    int odd = n & 1;
    if (x < 0 && !odd)
        return NAN;
    if (x == 0) {
        if (n < 0)
            return odd ? copysignl(INFINITY, x) : INFINITY;
        return odd ? copysignl(0.0L, x) : 0.0L;
    }
    long double a = fabsl((long double)x), r;
    if (n == 1)
        r = a;
    else if (n == -1)
        r = 1.0L / a;
    else if (n == 2)
        r = sqrtl(a);
    else if (n == 3)
        r = cbrtl(a);
    else
        r = powl(a, 1.0L / (long double)n);
    return x < 0 ? -r : r;
}

static long double ref_powr(double x, double y)
{
    if (isnan(x) || isnan(y) || x < 0)
        return NAN;
    if (x == 0) {
        if (y == 0)
            return NAN;
        return y < 0 ? INFINITY : 0.0L;
    }
    if (isinf(x) && y == 0)
        return NAN;
    if (x == 1)
        return isinf(y) ? NAN : 1.0L;
    if (y == 0)
        return 1.0L;
    return powl(x, y);
}

/* The reference of builtin `name` at (x, y) or (x, n), as hi + lo in
 * out[0..2] and the flags in out[2..4] (see split); lgamma_r's sign in
 * *sign. Returns 0 for an unknown name. */
int ferrocl_math_ref(const char *name, double x, double y, int n, double out[4], int *sign)
{
    long double X = x, Y = y, r;
    *sign = 0;
    feclearexcept(FE_ALL_EXCEPT);
#define F1(fname, expr)               \
    if (strcmp(name, fname) == 0) {   \
        r = (expr);                   \
        split(r, out);                \
        return 1;                     \
    }
    F1("acos", acosl(X));
    F1("acosh", acoshl(X));
    F1("acospi", acosl(X) / PI_L);
    F1("asin", asinl(X));
    F1("asinh", asinhl(X));
    F1("asinpi", asinl(X) / PI_L);
    F1("atan", atanl(X));
    F1("atanh", atanhl(X));
    F1("atanpi", atanl(X) / PI_L);
    F1("atan2", atan2l(X, Y));
    F1("atan2pi", atan2l(X, Y) / PI_L);
    F1("cbrt", cbrtl(X));
    F1("cos", cosl(X));
    F1("cosh", coshl(X));
    F1("cospi", ref_cospi(x));
    F1("erf", erfl(X));
    F1("erfc", erfcl(X));
    F1("exp", expl(X));
    F1("exp2", exp2l(X));
    F1("exp10", exp10l(X));
    F1("expm1", expm1l(X));
    F1("hypot", hypotl(X, Y));
    F1("lgamma", lgammal(X));
    F1("log", logl(X));
    F1("log2", log2l(X));
    F1("log10", log10l(X));
    F1("log1p", log1pl(X));
    F1("pow", powl(X, Y));
    F1("pown", powl(X, (long double)n));
    F1("powr", ref_powr(x, y));
    F1("rootn", ref_rootn(x, n));
    F1("sin", sinl(X));
    F1("sinh", sinhl(X));
    F1("sinpi", ref_sinpi(x));
    F1("tan", tanl(X));
    F1("tanh", tanhl(X));
    F1("tanpi", ref_tanpi(x));
    F1("tgamma", tgammal(X));
    /* Exact in any precision (the remainder of two floats or doubles is
     * one), with OpenCL's and C's special cases alike. */
    F1("fmod", fmodl(X, Y));
    F1("remainder", remainderl(X, Y));
    F1("sqrt", sqrtl(X));
    F1("rsqrt", 1.0L / sqrtl(X));
#undef F1
    if (strcmp(name, "remquo") == 0) {
        /* *sign: the quotient's sign and its 7 low bits (what OpenCL
         * promises of remquo's quo; the C library's remquo only 3). The
         * quotient of xr = |x| mod 128|y| (exact) has the same low 7 bits
         * and the same rounding (128 is even), and xr - remainder(xr, |y|)
         * is exact in long double for float and double arguments of
         * nearby exponents (xr < 128|y|). */
        r = remainderl(X, Y);
        *sign = 0;
        if (isfinite(x) && isfinite(y) && y != 0.0) {
            long double ay = fabsl(Y);
            long double xr = fmodl(fabsl(X), 128.0L * ay);
            long double n = (xr - remainderl(xr, ay)) / ay;
            int q = (int)n & 0x7f;
            *sign = signbit(x) != signbit(y) ? -q : q;
        }
        split(r, out);
        return 1;
    }
    if (strcmp(name, "lgamma_r") == 0) {
        r = lgammal_r(X, sign);
        split(r, out);
        return 1;
    }
    return 0;
}
