// Single-precision erfc (`libclc.rs`): libclc-15's evaluates
// exp(-z * z - 0.5625) with z = x rounded to 12 bits, whose argument is not
// exact once it passes a power of two: up to 48 ulp off for x in
// [7.96, 10.05] (CTS math_brute_force; OpenCL allows 16), 16 in
// [3.93, 4), 5.5 in [1.854, 2). For 1.85 <= x <= 10.5 ferrocl uses erfc's
// continued fraction instead:
//
//   erfc(x) = exp(-x^2) / sqrt(pi) / F,
//   F = x + (1/2) / (x + 1 / (x + (3/2) / (x + 2 / (x + ...)))),
//
// evaluated backwards from depth 24 (truncation error below 0.04 ulp from
// x = 1.85 on, less further out). x^2 = hi + lo exactly (Dekker's product
// on 12-bit halves, every operation rounded as written: the lowering
// decorates this code NoContraction), and exp(-x^2) =
// exp(-hi) (1 - lo), or from hi = 64 on (where exp(-hi) nears the
// denormals) 2^-64 exp((c_hi - hi) + (c_lo - lo)) with c_hi + c_lo =
// 64 ln 2 (c_hi - hi is exact there, the small rest enters as a factor
// 1 + r), so that the result's denormals come from one final scaling. Error: exp's
// (libclc's, under 1 ulp measured) and a few roundings. Elsewhere
// libclc's erfc.

#pragma OPENCL FP_CONTRACT OFF

static float erfc_cf(float x)
{
    // x = xh + xl, 12 significant bits each: their products are exact.
    float xh = as_float(as_uint(x) & 0xfffff000u);
    float xl = x - xh;
    float hi = x * x;
    float lo = ((xh * xh - hi) + 2.0f * xh * xl) + xl * xl;
    // exp(-x^2) = exp(-hi) (1 - lo) while that is a normal float; beyond,
    // 2^-64 exp((c_hi - hi) + (c_lo - lo)) with 64 ln 2 = c_hi + c_lo, c_hi
    // with 16 significant bits: from hi = 64 on, c_hi - hi is exact.
    const float c_hi = 0x1.62e4p+5f;
    const float c_lo = 0x1.7f7d1cp-14f;
    bool big = hi >= 64.0f;
    float e = big ? exp(c_hi - hi) * (1.0f + (c_lo - lo)) : exp(-hi) * (1.0f - lo);
    float f = x;
    for (int k = 24; k > 0; k--)
        f = x + (0.5f * (float)k) / f;
    // 1 / sqrt(pi)
    const float inv_sqrt_pi = 0x1.20dd76p-1f;
    return ldexp(e * (inv_sqrt_pi / f), big ? -64 : 0);
}

static float erfc32(float x)
{
    if (x >= 1.85f && x <= 10.5f)
        return erfc_cf(x);
    return erfc(x);
}

__attribute__((overloadable)) float __ferrocl_erfc(float x)
{
    return erfc32(x);
}

// Vectors: one loop over the components, as tgamma32.cl.
#define ERFC_VECTOR(n)                                                         \
    __attribute__((overloadable)) float##n __ferrocl_erfc(float##n x)          \
    {                                                                          \
        float in[n], out[n];                                                   \
        vstore##n(x, 0, in);                                                   \
        __attribute__((opencl_unroll_hint(1))) for (int i = 0; i < n; i++)    \
            out[i] = erfc32(in[i]);                                            \
        return vload##n(0, out);                                               \
    }
ERFC_VECTOR(2)
ERFC_VECTOR(3)
ERFC_VECTOR(4)
ERFC_VECTOR(8)
ERFC_VECTOR(16)
