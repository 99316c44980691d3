// @ferrocl-fuzz global=128 local=32 slots=4 options=-cl-std=CL3.0
// @input 0xa1,0x0,0x79991015f33ffd72,0x0,0x7ffffffffffffffe,0x7fffffffffffffff,0xbf,0x59,0x7fffffffffffffff,0x47,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffff2c,0x0,0xffffffffffffffd6,0x1,0x1,0xab,0x8000000000000000,0x7,0x67,0x0,0x6,0x6d,0x69,0x3,0x93160f2dd591de79,0x0,0x8000000000000000,0x8000000000000001,0x7ffffffffffffffe,0xb3,0x1,0x4e,0x8000000000000000,0x0,0x120,0x48,0x7ffffffffffffffe,0x8000000000000001,0x8000000000000001,0x7fffffffffffffff,0xffffffffffffffff,0x7ffffffffffffffe,0x7fffffffffffffff,0x5e,0x7fffffffffffffff,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffff20,0xffffffffffffff5e,0xffffffffffffffb4,0x8000000000000001,0x0,0x8000000000000001,0x1,0x7fffffffffffffff,0x4b,0xf2,0xcba8e3fa4d99c139,0xffffffffffffffff,0x1,0x7f,0x6f
// @kernel k1 arg=0x1 base=512
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0xffffffffffffffd2UL, 0x7ffffffffffffffeUL, 0x0UL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0x7afa577a6c3e9d19UL, 0x89UL, 0x0UL, 0xc6b59541a839c735UL, 0x7fffffffffffffffUL, 0xedUL, 0x128UL, 0x34653374be387030UL, 0x169ba1c761060886UL, 0x7ffffffffffffffeUL, 0x8000000000000001UL};
uint3 div_uint3(uint3 a, uint3 b) { return a / select(b, (uint3)(1), b == (uint3)(0)); }
ulong hash_uint3(ulong h, uint3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
kernel void k1(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 512u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    out[ob + 1] = 00;
    uint3 v7 = ((((uint3)((uint)0x7fffffffu))));
            v7 &= convert_uint3((short3)((short)in[gid & 63], (short)in[(gid + 1) & 63], (short)in[(gid + 2) & 63]));
    h = hash_uint3(h, v7);
    out[ob] = h;
}
