// @ferrocl-fuzz global=64 local=32 slots=4 options=-cl-std=CL3.0
// @input 0x7ffffffffffffffe,0x7fffffffffffffff,0x7ffffffffffffffe,0x2,0x1,0x7fffffffffffffff,0x8000000000000000,0x8000000000000001,0xffffffffffffffff,0x7ffffffffffffffe,0xe6,0x0,0x57,0x44,0xda,0x8000000000000001,0x87,0xffffffffffffffff,0x7fffffffffffffff,0xd4a79f1732c0b82a,0x7fffffffffffffff,0x0,0xdb13a4d8f342d539,0x35688c0eb4b19133,0x0,0x7fffffffffffffff,0xac426574e21b13b5,0xffffffffffffff7e,0x7fffffffffffffff,0x7fffffffffffffff,0x0,0x8000000000000000,0x0,0xe5,0x0,0x8d,0xb2,0x0,0xffffffffffffffff,0x1,0x8000000000000001,0x1,0x4d464b665d9d70f,0x6,0x8000000000000000,0x7fffffffffffffff,0x8000000000000001,0x0,0x7b,0x7ffffffffffffffe,0x7ffffffffffffffe,0xffffffffffffffff,0x7ffffffffffffffe,0x8000000000000000,0xbb8f6ec3d2cbb44a,0xffffffffffffffff,0x7ffffffffffffffe,0x8000000000000001,0x7fffffffffffffff,0x680eff56c736d735,0x122,0x5,0xffffffffffffff50,0x5
// @kernel k0 arg=0x7fffffffffffffff base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x1UL, 0x8000000000000000UL, 0x8000000000000000UL, 0xffffffffffffff2dUL, 0xc5ffca050f74937bUL, 0xe5UL, 0x8000000000000001UL, 0x7fffffffffffffffUL, 0xe9UL, 0x7fffffffffffffffUL, 0x0UL, 0x5UL, 0x4UL, 0xffffffffffffff82UL, 0x2UL, 0x17UL};
typedef struct { long8 f0; uint f1; uchar f2[4]; uchar f3; uint8 f4; } S0;
ushort div_ushort(ushort a, ushort b) { return (b == (ushort)0) ? a : (ushort)(a / b); }
ushort3 div_ushort3(ushort3 a, ushort3 b) { return a / select(b, (ushort3)(1), b == (ushort3)(0)); }
uint div_uint(uint a, uint b) { return (b == (uint)0) ? a : (uint)(a / b); }
short rem_short(short a, short b) { return (b == (short)0 || (a == (short)((short)-32768) && b == (short)-1)) ? a : (short)(a % b); }
ushort rem_ushort(ushort a, ushort b) { return (b == (ushort)0) ? a : (ushort)(a % b); }
ulong hash_ushort3(ulong h, ushort3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
__attribute__((noinline)) short f2(S0 p0, ulong p1, uint2 p2, uchar2 p3) {
    uchar2 a3[2] = { p3, 0 };
    return 0;
}
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local ushort3 l1[32];
    l1[lid * 1 + 0] = rotate(((ushort3)(((ushort)6), ((ushort)0x8000u), ((ushort)0x7fffu))), (((ushort3)(((ushort)0x7fffu), ((ushort)0xffffu), ((ushort)0))) << ((ushort)0xffffu))); /*@keep*/
    ushort a2[4] = { 0, 0, 0, 0 };
    ulong v3 = 0;
    switch ((((uint)((((uint)in[(gid) & 63])))))) {
        case 1: {
            l1[lid] = div_ushort3(convert_ushort3(((char3)(((char)in[0 & 63]), 0, 0))), ((ushort3)((ushort)0x7fffu)));
        }
    }
    h = hash_ushort3(h, l1[lid * 1 + 0]);
    out[ob] = h;
}
