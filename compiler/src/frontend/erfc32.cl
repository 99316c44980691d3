// Single-precision erfc (`libclc.rs`): libclc-15's is up to 48 ulp off for
// x in [7.96, 10.05] (CTS math_brute_force; OpenCL allows 16), where it
// evaluates exp(-z * z - 0.5625) with z = x rounded to 12 bits, whose
// argument is no longer exact once it passes -64. There ferrocl uses
// erfc's asymptotic series instead:
//
//   erfc(x) = exp(-x^2) / (x sqrt(pi)) * S(t),  t = 1 / (2 x^2),
//   S(t) = 1 - t + 3 t^2 - 15 t^3 + 105 t^4 - 945 t^5 + 10395 t^6,
//
// whose truncation error (below the first omitted term, 135135 t^7 <
// 3e-10 for x >= 7.5) is far below a float ulp. x^2 = hi + lo exactly
// (Dekker's product on 12-bit halves, every operation rounded as written:
// the lowering decorates this code NoContraction), and
// exp(-x^2) = 2^-64 exp((c_hi - hi) + (c_lo - lo)) with c_hi + c_lo =
// 64 ln 2 (c_hi - hi is exact, the small rest enters as a factor 1 + r),
// so that the result's denormals come from one final scaling. Error: exp's
// (libclc's, under 1 ulp measured) and a few roundings, about 3 ulp.
// Elsewhere libclc's erfc.

#pragma OPENCL FP_CONTRACT OFF

static float erfc_tail(float x)
{
    // x = xh + xl, 12 significant bits each: their products are exact.
    float xh = as_float(as_uint(x) & 0xfffff000u);
    float xl = x - xh;
    float hi = x * x;
    float lo = ((xh * xh - hi) + 2.0f * xh * xl) + xl * xl;
    // 64 ln 2 = c_hi + c_lo, c_hi with 16 significant bits.
    const float c_hi = 0x1.62e4p+5f;
    const float c_lo = 0x1.7f7d1cp-14f;
    float e = exp(c_hi - hi) * (1.0f + (c_lo - lo));
    float t = 0.5f / hi;
    float s = 10395.0f;
    s = s * t - 945.0f;
    s = s * t + 105.0f;
    s = s * t - 15.0f;
    s = s * t + 3.0f;
    s = s * t - 1.0f;
    s = s * t + 1.0f;
    // 1 / sqrt(pi)
    const float inv_sqrt_pi = 0x1.20dd76p-1f;
    return ldexp(e * (s * inv_sqrt_pi / x), -64);
}

static float erfc32(float x)
{
    if (x >= 7.5f && x <= 10.5f)
        return erfc_tail(x);
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
