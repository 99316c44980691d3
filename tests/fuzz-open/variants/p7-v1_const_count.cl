// @ferrocl-fuzz global=128 local=64 slots=4 options=-cl-std=CL3.0
// @input 0x0,0x0,0xffffffffffffff7b,0x8000000000000000,0xffffffffffffffff,0x1,0x1,0x0,0xffffffffffffff66,0x0,0x8000000000000001,0x7ffffffffffffffe,0x7ffffffffffffffe,0xffffffffffffff6d,0x8000000000000000,0xffffffffffffffff,0x7fffffffffffffff,0x9e,0x6,0x44,0xa8,0x0,0xffffffffffffffff,0x8000000000000001,0x1,0x7fffffffffffffff,0xffffffffffffffff,0xffffffffffffffff,0xf7,0x0,0x7fffffffffffffff,0x1,0x2,0x1,0xb,0x0,0x8000000000000001,0x0,0xbc7aee605af8a532,0x7fffffffffffffff,0x8000000000000000,0x0,0x6,0x0,0x0,0xaa871ef3adef5c9e,0x7ffffffffffffffe,0x8000000000000000,0x16,0x813cdd4e87eb4db6,0x6,0x7fffffffffffffff,0x8000000000000001,0x7ffffffffffffffe,0x8000000000000001,0xf0279e71f3bad9ac,0x0,0x7ffffffffffffffe,0x1,0xffffffffffffffff,0x8000000000000001,0xc,0x105,0x5
// @kernel k4 arg=0x7fffffffffffffff base=2048
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x50UL, 0x0UL, 0x5bUL, 0x7fffffffffffffffUL, 0x1UL, 0x8aUL, 0x8000000000000001UL, 0xebUL, 0x8000000000000001UL, 0x4UL, 0xffffffffffffffffUL, 0x1UL, 0x7ffffffffffffffeUL, 0x4UL, 0x7ffffffffffffffeUL, 0xffffffffffffff15UL};
typedef struct { short4 f0; } S0;
typedef struct { S0 f0; uint2 f1[4]; S0 f2[4]; ushort4 f3; } S1;
short2 div_short2(short2 a, short2 b) { return a / select(b, (short2)(1), (b == (short2)(0)) | ((a == (short2)(((short)-32768))) & (b == (short2)(-1)))); }
long4 clampx_long4(long4 x, long4 a, long4 b) { return clamp(x, min(a, b), max(a, b)); }
ulong hash_short4(ulong h, short4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_S0(ulong h, S0 v) {
    h = hash_short4(h, v.f0);
    return h;
}
ulong hash_S1(ulong h, S1 v) {
    for (uint j2 = 0; j2 < 4u; j2++) {
        h = hash_S0(h, v.f2[j2]);
    }
    return h;
}
__attribute__((noinline)) ulong4 f1(short2 p0, S0* p1, char p2, char p3) {
    return 0;
}
kernel void k4(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 2048u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    S1 a1[4] = { { { 0 }, { 0, (((uint2)((uint)(ctab[0 & 15])))), 0, 0 }, { { 0 }, { ((short4)((036))) }, { 0 }, { 0 } }, 0 }, { { ((short4)(((short)0x8000u))) }, { 0, 0, 0, 0 }, { { 0 }, { 0 }, { 0 }, { 0 } }, 0 }, { { 0 }, { 0, 0, 0, 0 }, { { 0 }, { 0 }, { 0 }, { 0 } }, 0 }, { { 0 }, { 0, 0, 0, 0 }, { { 0 }, { 0 }, { 0 }, { 0 } }, 0 } };
    ulong v2 = (as_ulong(clz(a1[0 & 3].f1[1])));
    switch (7) {
        default: {
                    a1[0].f2[(((char)237)) & 3].f0 >>= (short4)(37);
        }
    }
    for (uint j15 = 0; j15 < 4u; j15++) {
        h = hash_S1(h, a1[j15]);
    }
    out[ob] = h;
}
