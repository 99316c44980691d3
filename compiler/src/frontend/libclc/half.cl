// Half-precision math (cl_khr_fp16) through the float functions
// (`libclc.rs`, "Half precision"). Vulkan's 16-bit GLSL.std.450 functions
// are far from OpenCL's half bounds (sin, cos: 2^-7 absolute; exp:
// 1 + 2|x| ulp; OpenCL: 2 ulp), so every non-exact builtin on half
// converts its arguments to float (exactly), calls the float function
// (at most a few float ulp off, 2^-13 of a half ulp each) and rounds the
// result to half once: within OpenCL's half bounds (2-4 ulp; 1.5 for
// sqrt, 1 for rsqrt). fma is exact (below). The exact frexp, ilogb, logb,
// ldexp and modf go through float too: Vulkan's 16-bit Frexp and Ldexp
// get denormals, zeros and out-of-range exponents wrong.
//
// Each overload is named __ferrocl_half_<name> with the parameters of the
// builtin it replaces (libclc.rs renames the program's calls), for half
// and half2/3/4/8/16, with pointer results in every address space
// (compiled as OpenCL C 2.0: the unqualified pointer is the generic one).

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL FP_CONTRACT OFF

#define OVL __attribute__((overloadable))

// M(H, F, I, U): half type, float type, int type, uint type of one width.
#define EACH_WIDTH(M, X)                                                    \
    M(half, float, int, uint, X)                                           \
    M(half2, float2, int2, uint2, X)                                       \
    M(half3, float3, int3, uint3, X)                                       \
    M(half4, float4, int4, uint4, X)                                       \
    M(half8, float8, int8, uint8, X)                                       \
    M(half16, float16, int16, uint16, X)

#define UNARY_W(H, F, I, U, NAME)                                          \
    OVL H __ferrocl_half_##NAME(H x)                                       \
    {                                                                      \
        return convert_##H(NAME(convert_##F(x)));                          \
    }
#define UNARY(NAME) EACH_WIDTH(UNARY_W, NAME)

#define BINARY_W(H, F, I, U, NAME)                                         \
    OVL H __ferrocl_half_##NAME(H x, H y)                                  \
    {                                                                      \
        return convert_##H(NAME(convert_##F(x), convert_##F(y)));         \
    }
#define BINARY(NAME) EACH_WIDTH(BINARY_W, NAME)

// pown, rootn: (halfn, intn).
#define HALF_INT_W(H, F, I, U, NAME)                                       \
    OVL H __ferrocl_half_##NAME(H x, I n)                                  \
    {                                                                      \
        return convert_##H(NAME(convert_##F(x), n));                       \
    }
#define HALF_INT(NAME) EACH_WIDTH(HALF_INT_W, NAME)

// Pointer results, in each address space AS (empty: generic).
#define SINCOS_AS(H, F, AS)                                                \
    OVL H __ferrocl_half_sincos(H x, AS H *c)                              \
    {                                                                      \
        F fc;                                                              \
        F s = sincos(convert_##F(x), &fc);                                 \
        *c = convert_##H(fc);                                              \
        return convert_##H(s);                                             \
    }
#define LGAMMA_R_AS(H, F, I, AS)                                           \
    OVL H __ferrocl_half_lgamma_r(H x, AS I *sign)                         \
    {                                                                      \
        I s;                                                               \
        F r = lgamma_r(convert_##F(x), &s);                                \
        *sign = s;                                                         \
        return convert_##H(r);                                             \
    }
#define REMQUO_AS(H, F, I, AS)                                             \
    OVL H __ferrocl_half_remquo(H x, H y, AS I *quo)                       \
    {                                                                      \
        I q;                                                               \
        F r = remquo(convert_##F(x), convert_##F(y), &q);                  \
        *quo = q;                                                          \
        return convert_##H(r);                                             \
    }
#define FREXP_AS(H, F, I, AS)                                              \
    OVL H __ferrocl_half_frexp(H x, AS I *e)                               \
    {                                                                      \
        I k;                                                               \
        F m = frexp(convert_##F(x), &k);                                   \
        *e = k;                                                            \
        return convert_##H(m);                                             \
    }
#define MODF_AS(H, F, AS)                                                  \
    OVL H __ferrocl_half_modf(H x, AS H *ip)                               \
    {                                                                      \
        F i;                                                               \
        F r = modf(convert_##F(x), &i);                                    \
        *ip = convert_##H(i);                                              \
        return convert_##H(r);                                             \
    }
#define POINTER_RESULTS_W(H, F, I, U, AS)                                  \
    SINCOS_AS(H, F, AS) LGAMMA_R_AS(H, F, I, AS) REMQUO_AS(H, F, I, AS)    \
    FREXP_AS(H, F, I, AS) MODF_AS(H, F, AS)

// ilogb: an int result (FP_ILOGB0 and FP_ILOGBNAN are the float ones).
#define ILOGB_W(H, F, I, U, X)                                             \
    OVL I __ferrocl_half_ilogb(H x) { return ilogb(convert_##F(x)); }

// ldexp(halfn, int): the vector overloads with one exponent.
#define LDEXP_SCALAR_N(H, F)                                               \
    OVL H __ferrocl_half_ldexp(H x, int n)                                 \
    {                                                                      \
        return convert_##H(ldexp(convert_##F(x), n));                      \
    }

// fma(a, b, c) rounded once: a * b is exact in float (22 bits), s =
// a * b + c is rounded to float and its error err is exact (Knuth's
// TwoSum). s rounded "to odd" (toward zero, the last bit set when err is
// not 0) then to half is the correctly rounded result: 24 bits are more
// than 11 + 2, so the second rounding sees the exact value's side.
// Infinite or NaN operands leave s as it is.
#define FMA_W(H, F, I, U, X)                                               \
    OVL H __ferrocl_half_fma(H a, H b, H c)                                \
    {                                                                      \
        F p = convert_##F(a) * convert_##F(b);                             \
        F cf = convert_##F(c);                                             \
        F s = p + cf;                                                      \
        F bb = s - p;                                                      \
        F err = (p - (s - bb)) + (cf - bb);                                \
        U u = as_##U(s);                                                   \
        I toward_zero = signbit(err) ^ signbit(s);                         \
        U odd = select(u, u - (U)1, toward_zero) | (U)1;                   \
        I inexact = isfinite(s) & (err != (F)0);                           \
        return convert_##H(as_##F(select(u, odd, inexact)));              \
    }

// Geometric functions of half vectors (and scalars).
#define GEOMETRIC_W(H, F, I, U, X)                                         \
    OVL half __ferrocl_half_length(H x)                                    \
    {                                                                      \
        return convert_half(length(convert_##F(x)));                       \
    }                                                                      \
    OVL half __ferrocl_half_distance(H x, H y)                             \
    {                                                                      \
        return convert_half(distance(convert_##F(x), convert_##F(y)));     \
    }                                                                      \
    OVL H __ferrocl_half_normalize(H x)                                    \
    {                                                                      \
        return convert_##H(normalize(convert_##F(x)));                     \
    }

UNARY(acos) UNARY(acosh) UNARY(acospi) UNARY(asin) UNARY(asinh)
UNARY(asinpi) UNARY(atan) UNARY(atanh) UNARY(atanpi) UNARY(cbrt)
UNARY(cos) UNARY(cosh) UNARY(cospi) UNARY(erf) UNARY(erfc) UNARY(exp)
UNARY(exp2) UNARY(exp10) UNARY(expm1) UNARY(lgamma) UNARY(log)
UNARY(log2) UNARY(log10) UNARY(log1p) UNARY(rsqrt) UNARY(sin)
UNARY(sinh) UNARY(sinpi) UNARY(sqrt) UNARY(tan) UNARY(tanh) UNARY(tanpi)
UNARY(tgamma)

BINARY(atan2) BINARY(atan2pi) BINARY(fmod) BINARY(hypot) BINARY(pow)
BINARY(powr) BINARY(remainder)

HALF_INT(pown) HALF_INT(rootn) HALF_INT(ldexp)
LDEXP_SCALAR_N(half2, float2) LDEXP_SCALAR_N(half3, float3)
LDEXP_SCALAR_N(half4, float4) LDEXP_SCALAR_N(half8, float8)
LDEXP_SCALAR_N(half16, float16)

UNARY(logb)
EACH_WIDTH(ILOGB_W, )

EACH_WIDTH(POINTER_RESULTS_W, __private)
EACH_WIDTH(POINTER_RESULTS_W, __global)
EACH_WIDTH(POINTER_RESULTS_W, __local)
EACH_WIDTH(POINTER_RESULTS_W, )

EACH_WIDTH(FMA_W, )

GEOMETRIC_W(half, float, int, uint, )
GEOMETRIC_W(half2, float2, int2, uint2, )
GEOMETRIC_W(half3, float3, int3, uint3, )
GEOMETRIC_W(half4, float4, int4, uint4, )
