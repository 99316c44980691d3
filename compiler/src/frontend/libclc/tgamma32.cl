// Single-precision tgamma (`libclc.rs`: libclc-15's is up to 70 ulp off,
// infinite for tiny negative arguments and for -x beyond 35 where the
// result is tiny; OpenCL allows 16 ulp).
//
// The algorithm of tgamma64.cl in float, for y = |x| or x:
// - 1/Γ(1 + z) on [0, 1] is tgamma64.cl's polynomial (its coefficients
//   rounded to float; the terms below 2^-30 dropped), so Γ(y) =
//   1 / P(y - 1) on [1, 2), and Γ(y) = 1 / (y P(y)) on (0, 1).
// - Above 2, Γ(y) = (y - 1)(y - 2)...(t) Γ(t) with t in [1, 2): every
//   factor is exact (subtracting 1 from a float of at least 2, below
//   2^24), the product is accumulated as a float-float (fma for the exact
//   partial products), scaled by 2^-64 so that it cannot overflow on the
//   way (Γ(41) * 2^-64 is about 4e28).
// - Negative x: Γ(x) = -π / (x sinpi(x) Γ(-x)) below -1 (reflection, with
//   -x exact), and Γ(x) = Γ(x + 1) / x on (-1, 0).
// Error: the polynomial and the few divisions about 3 ulp, sinpi's
// (libclc's, about 2 ulp) on top for negative x.

#pragma OPENCL FP_CONTRACT OFF

// 1/Γ(1 + z) for z in [0, 1].
static float inverse_gamma_1p(float z)
{
    float p = 0x1.6146b615b3ff1p-28f;
    p = fma(p, z, 0x1.9906e8cb102b6p-28f);
    p = fma(p, z, -0x1.b94532ef7ada7p-23f);
    p = fma(p, z, 0x1.301d77945b8fdp-20f);
    p = fma(p, z, -0x1.4fa8e459856b2p-20f);
    p = fma(p, z, -0x1.51ceaad9e5f91p-16f);
    p = fma(p, z, 0x1.0c8a7a3d21e88p-13f);
    p = fma(p, z, -0x1.c364fed68aeb0p-13f);
    p = fma(p, z, -0x1.317112cb6b2a0p-10f);
    p = fma(p, z, 0x1.d919c527d8816p-8f);
    p = fma(p, z, -0x1.3b4af2848218ap-7f);
    p = fma(p, z, -0x1.59af103c3412fp-5f);
    p = fma(p, z, 0x1.5512320b43fc1p-3f);
    p = fma(p, z, -0x1.5815e8fa27048p-5f);
    p = fma(p, z, -0x1.4fcf4026afa2ep-1f);
    p = fma(p, z, 0x1.2788cfc6fb619p-1f);
    return fma(p, z, 1.0f);
}

// Γ(y) * 2^-64 for 1 <= y < 41.
static float gamma_scaled(float y)
{
    int n = (int)y - 1;
    float ph = 0x1p-64f, pl = 0.0f;
    float f = y;
    for (int k = 0; k < n; k++) {
        f = f - 1.0f;
        float p = ph * f;
        float e = fma(ph, f, -p);
        float l = fma(pl, f, e);
        ph = p + l;
        pl = l - (ph - p);
    }
    // f = t in [1, 2): (ph + pl) * Γ(t) = (ph + pl) / q.
    float q = inverse_gamma_1p(f - 1.0f);
    float d = ph / q;
    float r = fma(-d, q, ph);
    return d + (r + pl) / q;
}

// Γ(y) for 0 < y < 1.
static float gamma_below_1(float y)
{
    return 1.0f / inverse_gamma_1p(y) / y;
}

static float tgamma32(float x)
{
    const float pi = 0x1.921fb6p+1f;
    if (isnan(x))
        return x;
    if (x == 0.0f)
        return 1.0f / x; // ±inf
    if (x > 0.0f) {
        if (x < 1.0f)
            return gamma_below_1(x);
        if (x >= 36.0f)
            return INFINITY;
        return gamma_scaled(x) * 0x1p64f;
    }
    if (x == floor(x)) // negative integers and -inf
        return NAN;
    if (x > -1.0f)
        return gamma_below_1(x + 1.0f) / x;
    float s = sinpi(x);
    if (x < -40.0f) // |Γ(x)| < 2^-150
        return copysign(0.0f, s);
    float d = gamma_scaled(-x);
    // -π / (x s d) * 2^-64, the scaling split so that no step overflows
    // or underflows before the last.
    return -pi / (x * s * d * 0x1p32f) * 0x1p-32f;
}

__attribute__((overloadable)) float __ferrocl_tgamma(float x)
{
    return tgamma32(x);
}

// Vectors: one loop over the components, not unrolled (drivers inline
// every call; one copy of tgamma32 compiles faster than one per component).
#define TGAMMA_VECTOR(n)                                                       \
    __attribute__((overloadable)) float##n __ferrocl_tgamma(float##n x)        \
    {                                                                          \
        float in[n], out[n];                                                   \
        vstore##n(x, 0, in);                                                   \
        __attribute__((opencl_unroll_hint(1))) for (int i = 0; i < n; i++)    \
            out[i] = tgamma32(in[i]);                                          \
        return vload##n(0, out);                                               \
    }
TGAMMA_VECTOR(2)
TGAMMA_VECTOR(3)
TGAMMA_VECTOR(4)
TGAMMA_VECTOR(8)
TGAMMA_VECTOR(16)
