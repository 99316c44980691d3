// Double-precision tgamma (`libclc.rs`: libclc-15's, exp(lgamma(x)), is
// hundreds of ulp off; OpenCL allows 16).
//
// Algorithm, for y = |x| or x:
// - 1/Γ(1 + z) on [0, 1] is a degree-20 polynomial (a Chebyshev fit made
//   with mpmath at 50 digits; the fit's error is 4e-25), so Γ(y) =
//   1 / P(y - 1) on [1, 2), and Γ(y) = 1 / (y P(y)) on (0, 1).
// - Above 2, Γ(y) = (y - 1)(y - 2)...(t) Γ(t) with t in [1, 2): every
//   factor is exact (subtracting 1 from a double of at least 2), the
//   product is accumulated as a double-double (fma for the exact partial
//   products), scaled by 2^-256 so that it cannot overflow on the way.
// - Negative x: Γ(x) = -π / (x sinpi(x) Γ(-x)) below -1 (reflection, with
//   -x exact), and Γ(x) = Γ(x + 1) / x on (-1, 0).
// Error: the polynomial and the few divisions about 3 ulp, sinpi's
// (libclc's, about 1.5 ulp) on top for negative x.
//
// Also compiles as C (for checking the algorithm against long double):
// FMA64_C is then defined and the caller provides fma and sinpi.

#ifndef FMA64_C
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define TGAMMA_OVERLOAD __attribute__((overloadable))
#endif

// 1/Γ(1 + z) for z in [0, 1].
static double inverse_gamma_1p(double z)
{
    double p = -0x1.126a11199c228p-37;
    p = fma(p, z, 0x1.46abfc244d472p-33);
    p = fma(p, z, -0x1.5d9138109d746p-30);
    p = fma(p, z, 0x1.6146b615b3ff1p-28);
    p = fma(p, z, 0x1.9906e8cb102b6p-28);
    p = fma(p, z, -0x1.b94532ef7ada7p-23);
    p = fma(p, z, 0x1.301d77945b8fdp-20);
    p = fma(p, z, -0x1.4fa8e459856b2p-20);
    p = fma(p, z, -0x1.51ceaad9e5f91p-16);
    p = fma(p, z, 0x1.0c8a7a3d21e88p-13);
    p = fma(p, z, -0x1.c364fed68aeb0p-13);
    p = fma(p, z, -0x1.317112cb6b2a0p-10);
    p = fma(p, z, 0x1.d919c527d8816p-8);
    p = fma(p, z, -0x1.3b4af2848218ap-7);
    p = fma(p, z, -0x1.59af103c3412fp-5);
    p = fma(p, z, 0x1.5512320b43fc1p-3);
    p = fma(p, z, -0x1.5815e8fa27048p-5);
    p = fma(p, z, -0x1.4fcf4026afa2ep-1);
    p = fma(p, z, 0x1.2788cfc6fb619p-1);
    return fma(p, z, 1.0);
}

// Γ(y) * 2^-256 for 1 <= y < 192.
static double gamma_scaled(double y)
{
    int n = (int)y - 1;
    double ph = 0x1p-256, pl = 0.0;
    double f = y;
    for (int k = 0; k < n; k++) {
        f = f - 1.0;
        double p = ph * f;
        double e = fma(ph, f, -p);
        double l = fma(pl, f, e);
        ph = p + l;
        pl = l - (ph - p);
    }
    // f = t in [1, 2): (ph + pl) * Γ(t) = (ph + pl) / q.
    double q = inverse_gamma_1p(f - 1.0);
    double d = ph / q;
    double r = fma(-d, q, ph);
    return d + (r + pl) / q;
}

// Γ(y) for 0 < y < 1.
static double gamma_below_1(double y)
{
    return 1.0 / inverse_gamma_1p(y) / y;
}

static double tgamma64(double x)
{
    const double pi = 0x1.921fb54442d18p+1;
    if (isnan(x))
        return x;
    if (x == 0.0)
        return 1.0 / x; // ±inf
    if (x > 0.0) {
        if (x < 1.0)
            return gamma_below_1(x);
        if (x >= 192.0)
            return INFINITY;
        return gamma_scaled(x) * 0x1p256;
    }
    if (x == floor(x)) // negative integers and -inf
        return NAN;
    if (x > -1.0)
        return gamma_below_1(x + 1.0) / x;
    double s = sinpi(x);
    if (x < -192.0)
        return copysign(0.0, s);
    double d = gamma_scaled(-x);
    return -pi / (x * s * d) * 0x1p-256;
}

#ifndef FMA64_C
TGAMMA_OVERLOAD double __ferrocl_tgamma(double x)
{
    return tgamma64(x);
}

// Vectors: one loop over the components, not unrolled (drivers inline
// every call; one copy of tgamma64 compiles faster than one per component).
#define TGAMMA_VECTOR(n)                                                       \
    TGAMMA_OVERLOAD double##n __ferrocl_tgamma(double##n x)                    \
    {                                                                          \
        double in[n], out[n];                                                  \
        vstore##n(x, 0, in);                                                   \
        __attribute__((opencl_unroll_hint(1))) for (int i = 0; i < n; i++)    \
            out[i] = tgamma64(in[i]);                                          \
        return vload##n(0, out);                                               \
    }
TGAMMA_VECTOR(2)
TGAMMA_VECTOR(3)
TGAMMA_VECTOR(4)
TGAMMA_VECTOR(8)
TGAMMA_VECTOR(16)
#endif
