// @ferrocl-fuzz global=128 local=32 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000000,0x7fffffffffffffff,0xe1,0x0,0x7fffffffffffffff,0x0,0x5f19134d39250187,0x7fffffffffffffff,0xffffffffffffffff,0x21,0x7fffffffffffffff,0xffffffffffffff74,0x8000000000000001,0x3ff3391ed22b5e5b,0x7ffffffffffffffe,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffffff,0x0,0x3a1b24a81cceb290,0x3,0x1,0x0,0x4,0xe4c1ab906c2ce184,0x7ffffffffffffffe,0xda6bdd3c03c424,0xffffffffffffff91,0x1,0x8000000000000000,0x3,0x7fffffffffffffff,0x7fffffffffffffff,0x0,0x7ffffffffffffffe,0x1,0x7fffffffffffffff,0x8000000000000001,0xc0,0x1,0xffffffffffffffff,0x7f2d906bef8f456d,0x7fffffffffffffff,0xe151225cf58e9888,0x8000000000000001,0x8d,0x0,0xffffffffffffffff,0xd41e32f0693341ae,0x0,0x7ffffffffffffffe,0x5c,0x8000000000000001,0x556629e80694dc35,0x8b,0x7f,0x7ffc5bc7d1cc496b,0x8000000000000001,0xffffffffffffffff,0xce,0xfffffffffffffff6,0xbf0e54b431d3a6cb,0x10d,0x1
// @kernel k0 arg=0x8000000000000001 base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x1UL, 0xffffffffffffffffUL, 0x7fffffffffffffffUL, 0x6UL, 0x0UL, 0x7fffffffffffffffUL, 0x7fffffffffffffffUL, 0x0UL, 0xffffffffffffffffUL, 0x7ffffffffffffffeUL, 0x7fffffffffffffffUL, 0x1UL, 0x8000000000000001UL, 0x8df399546fe9c7b5UL, 0x7fffffffffffffffUL, 0x8000000000000000UL};
uchar3 div_uchar3(uchar3 a, uchar3 b) { return a / select(b, (uchar3)(1), b == (uchar3)(0)); }
uint2 div_uint2(uint2 a, uint2 b) { return a / select(b, (uint2)(1), b == (uint2)(0)); }
uchar16 rem_uchar16(uchar16 a, uchar16 b) { return a % select(b, (uchar16)(1), b == (uchar16)(0)); }
short rem_short(short a, short b) { return (b == (short)0 || (a == (short)((short)-32768) && b == (short)-1)) ? a : (short)(a % b); }
ushort3 rem_ushort3(ushort3 a, ushort3 b) { return a % select(b, (ushort3)(1), b == (ushort3)(0)); }
ulong hash_uchar3(ulong h, uchar3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_uchar8(ulong h, uchar8 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); return h; }
ulong hash_uint3(ulong h, uint3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
short f1(long p0) {
    long a1[4] = { 0, ((((long8)0))).s0, p0, 0 };
    uint8 v2 = 0;
    ushort2 v5 = 0;
    return 0;
}
__attribute__((noinline)) short2 f2(uchar p0, int4 p1, uint2 p2, int2 p3) {
    return 0;
}
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    out[ob + 2] = 0;
    short v1 = 0;
    uint3 v2 = 0;
    uint v3 = 0;
    uchar8 v4 = 0;
    uchar3 v5 = 0;
    for (uchar i6 = 0; i6 != 5; i6++) {
        for (int i7 = 4; i7 > 0; i7--) {
            uint w12 = 0;
            while (w12++ < 3u) {
                uint v13 = 0;
                uchar8 v14 = 0;
                v2 = ((uint3)(mad_hi((((uint)92)), upsample((-(((ushort3)(37)))), ((ushort3)((ushort)(in[0 & 63])))), v2)));
            }
        }
    }
    h = hash_uint3(h, v2);
    out[ob] = h;
}
