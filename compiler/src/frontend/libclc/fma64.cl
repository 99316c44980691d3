// A correctly rounded double-precision fma from correctly rounded double
// additions and multiplications, for devices whose GLSL.std.450 Fma on
// doubles is not fused (`libclc.rs`). The lowering decorates double
// arithmetic NoContraction, so every operation below rounds once, as
// written.
//
// Algorithm (Boldo and Melquiond, "Emulation of FMA and correctly rounded
// sums: proved algorithms using rounding to odd", IEEE TC 2008), made safe
// over the whole range by scaling:
//
// 1. a = as * 2^ea, b = bs * 2^eb with as, bs in [1, 2) (subnormals are
//    first multiplied by 2^64); c is scaled by 2^-(ea+eb) too, its exponent
//    clamped: more than 2^60 above the product c is the result, more than
//    2^-300 below only its sign matters (as a sticky bit).
// 2. as * bs = p + e exactly (Dekker's product), c + p = th + tl exactly
//    (TwoSum), v = tl + e rounded to odd (TwoSum, then the last bit), and
//    th + v rounded to nearest is the correctly rounded scaled result.
// 3. Scaled back on the exponent field when the result is normal; a
//    subnormal result is rounded again from th + v, exactly, to the
//    subnormals' quantum (a magic addend, the tie broken by the exact
//    remainder), so it is rounded once.
//
// Branch-free: Vulkan drivers inline every call, and libclc's functions
// call fma dozens of times (lavapipe compiles a 128-bit integer version
// several times slower).
//
// Also compiles as C (compiler/tests/double_math.rs checks it against the
// C library's fma): FMA64_C selects the few spellings that differ.

#ifndef FMA64_C
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define FMA64_BITS(x) as_ulong(x)
#define FMA64_DOUBLE(u) as_double(u)
#define FMA64_OVERLOAD __attribute__((overloadable))
#else
#include <stdint.h>
#include <string.h>
typedef uint64_t ulong;
static ulong fma64_bits(double x) { ulong u; memcpy(&u, &x, 8); return u; }
static double fma64_double(ulong u) { double x; memcpy(&x, &u, 8); return x; }
#define FMA64_BITS(x) fma64_bits(x)
#define FMA64_DOUBLE(u) fma64_double(u)
#define FMA64_OVERLOAD
#endif

#define FMA64_FIELD(u) ((int)(((u) >> 52) & 0x7ff))
#define FMA64_SIGN 0x8000000000000000UL

// x * 2^64 for a subnormal x (exact), else x; the exponent field of x as if
// it were normal.
static double scale_up(double x, int *field)
{
    int f = FMA64_FIELD(FMA64_BITS(x));
    double n = f == 0 ? x * 0x1p64 : x;
    *field = FMA64_FIELD(FMA64_BITS(n)) - (f == 0 ? 64 : 0);
    return n;
}

// The significand of normal x with x's sign, in [1, 2) in magnitude.
static double fraction_of(double x)
{
    return FMA64_DOUBLE((FMA64_BITS(x) & 0x800fffffffffffffUL) | 0x3ff0000000000000UL);
}

// 2^k for -1022 <= k <= 1023.
static double pow2(int k)
{
    return FMA64_DOUBLE((ulong)(k + 1023) << 52);
}

static double fma64(double a, double b, double c)
{
    ulong ua = FMA64_BITS(a), ub = FMA64_BITS(b), uc = FMA64_BITS(c);
    int ea, eb, ec;
    double as = fraction_of(scale_up(a, &ea));
    double bs = fraction_of(scale_up(b, &eb));
    double cs = fraction_of(scale_up(c, &ec));
    // 1. a * b = as * bs * 2^s; c scaled by 2^-s: exponent kc.
    int s = ea + eb - 2046;
    int kc = ec - 1023 - s;
    int c_zero = (uc << 1) == 0;
    int kc_clamped = kc > 60 ? 60 : kc < -300 ? -300 : kc;
    double c1 = c_zero ? c : FMA64_DOUBLE(FMA64_BITS(cs) + ((ulong)(long)kc_clamped << 52));
    // 2. Dekker's exact product (as, bs < 2: no overflow, e exact).
    double p = as * bs;
    double ah = as * 134217729.0;
    ah = ah - (ah - as);
    double al = as - ah;
    double bh = bs * 134217729.0;
    bh = bh - (bh - bs);
    double bl = bs - bh;
    double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    // th + tl = c1 + p.
    double th = c1 + p;
    double z1 = th - c1;
    double tl = (c1 - (th - z1)) + (p - z1);
    // v = tl + e rounded to odd: rounded to nearest, then moved one ulp
    // towards the exact sum when inexact and even.
    double sum = tl + e;
    double z2 = sum - tl;
    double err = (tl - (sum - z2)) + (e - z2);
    ulong us = FMA64_BITS(sum);
    ulong towards = (err > 0) == (sum > 0) ? 1 : (ulong)-1;
    double v = err != 0 && (us & 1) == 0 ? FMA64_DOUBLE(us + towards) : sum;
    double z = th + v;
    ulong uz = FMA64_BITS(z);
    // 3. The result's exponent field, if normal.
    int ez = FMA64_FIELD(uz) + s;
    ulong normal = uz + ((ulong)(long)s << 52);
    ulong inf = (uz & FMA64_SIGN) | 0x7ff0000000000000UL;
    // Subnormal: th + v = s2 + t2 exactly; r = s2 rounded to a multiple of
    // the quantum 2^k (k = -1074 - s, between -105 and 121 when used) by
    // adding and subtracting ±2^(k+52); the remainder decides ties.
    int k = -1074 - s;
    k = k < -200 ? -200 : k > 200 ? 200 : k;
    double q = pow2(k);
    double s2 = th + v;
    double z3 = s2 - th;
    double t2 = (th - (s2 - z3)) + (v - z3);
    double magic = s2 < 0 ? -q * 0x1p52 : q * 0x1p52;
    double r = (s2 + magic) - magic;
    double rem = s2 - r;
    double midpoint = q * 0.5;
    double adj = rem == midpoint && t2 > 0 ? q : rem == -midpoint && t2 < 0 ? -q : 0.0;
    // The count of 2^-1074 quanta: the subnormal's bits.
    double n = (r + adj) * pow2(-k);
    n = n < 0 ? -n : n;
    ulong sub = (FMA64_BITS(s2) & FMA64_SIGN) | (ulong)(n < 0x1p53 ? n : 0.0);
    ulong bits = ez > 2046 ? inf : ez >= 1 ? normal : ez >= -60 ? sub : uz & FMA64_SIGN;
    // Exact cancellation: +0 when rounding to nearest.
    bits = z == 0 ? 0 : bits;
    // c more than 2^60 above a * b: the product is below half its ulp.
    bits = kc > 60 && !c_zero ? uc : bits;
    // Infinite or NaN operands and zero factors: the IEEE expression is
    // exact (a zero or infinite product), except that a finite product
    // must not overflow against an infinite addend.
    int fa = FMA64_FIELD(ua), fb = FMA64_FIELD(ub), fc = FMA64_FIELD(uc);
    int ab_special = fa == 0x7ff || fb == 0x7ff || (ua << 1) == 0 || (ub << 1) == 0;
    double plain = a * b + c;
    return ab_special ? plain : fc == 0x7ff ? c : FMA64_DOUBLE(bits);
}

#ifndef FMA64_C
FMA64_OVERLOAD double __ferrocl_fma(double a, double b, double c)
{
    return fma64(a, b, c);
}

FMA64_OVERLOAD double2 __ferrocl_fma(double2 a, double2 b, double2 c)
{
    return (double2)(fma64(a.s0, b.s0, c.s0), fma64(a.s1, b.s1, c.s1));
}

FMA64_OVERLOAD double3 __ferrocl_fma(double3 a, double3 b, double3 c)
{
    return (double3)(__ferrocl_fma(a.s01, b.s01, c.s01), fma64(a.s2, b.s2, c.s2));
}

FMA64_OVERLOAD double4 __ferrocl_fma(double4 a, double4 b, double4 c)
{
    return (double4)(__ferrocl_fma(a.lo, b.lo, c.lo), __ferrocl_fma(a.hi, b.hi, c.hi));
}

FMA64_OVERLOAD double8 __ferrocl_fma(double8 a, double8 b, double8 c)
{
    return (double8)(__ferrocl_fma(a.lo, b.lo, c.lo), __ferrocl_fma(a.hi, b.hi, c.hi));
}

FMA64_OVERLOAD double16 __ferrocl_fma(double16 a, double16 b, double16 c)
{
    return (double16)(__ferrocl_fma(a.lo, b.lo, c.lo), __ferrocl_fma(a.hi, b.hi, c.hi));
}
#endif
