// A correctly rounded double-precision fma from integer arithmetic, for
// devices whose GLSL.std.450 Fma on doubles is not fused (`libclc.rs`):
// the exact product of the two 53-bit significands (106 bits) and the
// addend are aligned in a 128-bit accumulator, added, normalized and
// rounded once to nearest even, subnormal results and overflow included.
//
// Also compiles as C (the unit test in `libclc.rs` checks it against the C
// library's fma): FMA64_C selects the few spellings that differ.

#ifndef FMA64_C
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define FMA64_BITS(x) as_ulong(x)
#define FMA64_DOUBLE(u) as_double(u)
#define FMA64_CLZ(u) ((int)clz(u))
#define FMA64_MULHI(a, b) mul_hi(a, b)
#define FMA64_STATIC static
#define FMA64_OVERLOAD __attribute__((overloadable))
#else
#include <stdint.h>
#include <string.h>
typedef uint64_t ulong;
static ulong fma64_bits(double x) { ulong u; memcpy(&u, &x, 8); return u; }
static double fma64_double(ulong u) { double x; memcpy(&x, &u, 8); return x; }
#define FMA64_BITS(x) fma64_bits(x)
#define FMA64_DOUBLE(u) fma64_double(u)
#define FMA64_CLZ(u) ((u) ? __builtin_clzll(u) : 64)
#define FMA64_MULHI(a, b) ((ulong)(((unsigned __int128)(a) * (b)) >> 64))
#define FMA64_STATIC static
#define FMA64_OVERLOAD
#endif

// A 128-bit unsigned number.
typedef struct {
    ulong hi, lo;
} u128;

// x >> n, any bit shifted out ORed into bit 0 ("jamming"): the result is
// inexact exactly when x was not a multiple of 2^n, which is all that
// rounding needs to know of the lost bits.
FMA64_STATIC u128 shr_jam(u128 x, int n)
{
    u128 r;
    if (n <= 0) {
        return x;
    } else if (n < 64) {
        r.lo = (x.lo >> n) | (x.hi << (64 - n)) | ((x.lo << (64 - n)) != 0);
        r.hi = x.hi >> n;
    } else if (n == 64) {
        r.lo = x.hi | (x.lo != 0);
        r.hi = 0;
    } else if (n < 128) {
        r.lo = (x.hi >> (n - 64)) | (((x.hi << (128 - n)) | x.lo) != 0);
        r.hi = 0;
    } else {
        r.lo = (x.hi | x.lo) != 0;
        r.hi = 0;
    }
    return r;
}

// x << n for 0 <= n < 128.
FMA64_STATIC u128 shl(u128 x, int n)
{
    u128 r;
    if (n == 0) {
        return x;
    } else if (n < 64) {
        r.hi = (x.hi << n) | (x.lo >> (64 - n));
        r.lo = x.lo << n;
    } else {
        r.hi = x.lo << (n - 64);
        r.lo = 0;
    }
    return r;
}

// Bits [n, n + 64) of x, for 0 < n < 128.
FMA64_STATIC ulong bits_from(u128 x, int n)
{
    if (n < 64)
        return (x.lo >> n) | (x.hi << (64 - n));
    return x.hi >> (n - 64);
}

// Whether any of the bits below bit n (0 < n <= 128) of x is set.
FMA64_STATIC int any_below(u128 x, int n)
{
    if (n < 64)
        return (x.lo << (64 - n)) != 0;
    if (n == 64)
        return x.lo != 0;
    if (n == 128)
        return (x.hi | x.lo) != 0;
    return ((x.hi << (128 - n)) | x.lo) != 0;
}

FMA64_STATIC int bit_at(u128 x, int n)
{
    return (int)((n < 64 ? x.lo >> n : x.hi >> (n - 64)) & 1);
}

// The significand of finite nonzero x with its leading bit at bit 52, and
// its exponent: |x| = m * 2^(e - 1075).
FMA64_STATIC ulong unpack(ulong u, int *e)
{
    ulong m = u & 0x000fffffffffffffUL;
    int be = (int)((u >> 52) & 0x7ff);
    if (be != 0) {
        *e = be;
        return m | 0x0010000000000000UL;
    }
    int s = FMA64_CLZ(m) - 11;
    *e = 1 - s;
    return m << s;
}

FMA64_STATIC double fma64(double a, double b, double c)
{
    ulong ua = FMA64_BITS(a), ub = FMA64_BITS(b), uc = FMA64_BITS(c);
    int sa = (int)((ua >> 52) & 0x7ff), sb = (int)((ub >> 52) & 0x7ff);
    int sc = (int)((uc >> 52) & 0x7ff);
    // Infinite or NaN operands, and zero factors: the IEEE expression is
    // exact (a zero or infinite product), except that a finite product
    // must not overflow against an infinite addend.
    if (sa == 0x7ff || sb == 0x7ff)
        return a * b + c;
    if (sc == 0x7ff)
        return c;
    if ((ua << 1) == 0 || (ub << 1) == 0)
        return a * b + c;

    int ea, eb, ec = 0;
    ulong ma = unpack(ua, &ea), mb = unpack(ub, &eb);
    ulong sign_p = (ua ^ ub) >> 63, sign_c = uc >> 63;
    // The product's significand in [2^104, 2^106), shifted to [2^124,
    // 2^126): |a*b| = p * 2^ep.
    u128 p;
    p.hi = FMA64_MULHI(ma, mb);
    p.lo = ma * mb;
    p = shl(p, 20);
    int ep = ea + eb - 2170;
    // The addend in [2^124, 2^125): |c| = q * 2^eq.
    u128 q;
    q.hi = 0;
    q.lo = 0;
    int eq = ep;
    if ((uc << 1) != 0) {
        q.lo = unpack(uc, &ec);
        q = shl(q, 72);
        eq = ec - 1147;
    }
    // Align to the larger exponent (the larger magnitude, up to a factor of
    // 4); the smaller operand keeps at least 20 exact low bits within two
    // positions of the other, so jamming only happens far below the
    // rounding position.
    int e;
    if (ep >= eq) {
        q = shr_jam(q, ep - eq);
        e = ep;
    } else {
        p = shr_jam(p, eq - ep);
        e = eq;
    }
    u128 s;
    ulong sign;
    if (sign_p == sign_c) {
        s.lo = p.lo + q.lo;
        s.hi = p.hi + q.hi + (s.lo < p.lo);
        sign = sign_p;
    } else if (p.hi > q.hi || (p.hi == q.hi && p.lo >= q.lo)) {
        s.lo = p.lo - q.lo;
        s.hi = p.hi - q.hi - (p.lo < q.lo);
        sign = sign_p;
    } else {
        s.lo = q.lo - p.lo;
        s.hi = q.hi - p.hi - (q.lo < p.lo);
        sign = sign_c;
    }
    if ((s.hi | s.lo) == 0)
        return 0.0; // exact cancellation: +0 when rounding to nearest
    // |result| = s * 2^e, its leading bit at bit m of s.
    int m = s.hi != 0 ? 127 - FMA64_CLZ(s.hi) : 63 - FMA64_CLZ(s.lo);
    int biased = m + e + 1023; // the result's biased exponent, if normal
    if (biased > 2046)
        return FMA64_DOUBLE((sign << 63) | 0x7ff0000000000000UL);
    // Bits kept: 53 below the leading one, or down to 2^-1074.
    int sh = m - 52;
    if (biased < 1)
        sh = -1074 - e;
    if (sh > m + 1) // below half the smallest subnormal
        return FMA64_DOUBLE(sign << 63);
    ulong kept;
    ulong up = 0;
    if (sh <= 0) {
        kept = shl(s, -sh).lo;
    } else {
        kept = bits_from(s, sh);
        int round = bit_at(s, sh - 1);
        int rest = sh > 1 && any_below(s, sh - 1);
        up = round && (rest || (kept & 1));
    }
    // A normal result's leading one adds 1 to the exponent field; a carry
    // out of the significand (rounding up to a power of two, to the smallest
    // normal, to infinity) carries into it.
    ulong field = biased < 1 ? 0 : (ulong)(biased - 1);
    return FMA64_DOUBLE((sign << 63) + (field << 52) + kept + up);
}

#ifndef FMA64_C
FMA64_OVERLOAD double __ferrocl_fma(double a, double b, double c)
{
    return fma64(a, b, c);
}

#define FMA64_VECTOR(n)                                                        \
    FMA64_OVERLOAD double##n __ferrocl_fma(double##n a, double##n b,          \
                                           double##n c)                        \
    {                                                                          \
        double x[n], y[n], z[n], r[n];                                         \
        vstore##n(a, 0, x);                                                    \
        vstore##n(b, 0, y);                                                    \
        vstore##n(c, 0, z);                                                    \
        for (int i = 0; i < n; i++)                                            \
            r[i] = fma64(x[i], y[i], z[i]);                                    \
        return vload##n(0, r);                                                 \
    }
FMA64_VECTOR(2)
FMA64_VECTOR(3)
FMA64_VECTOR(4)
FMA64_VECTOR(8)
FMA64_VECTOR(16)
#endif
