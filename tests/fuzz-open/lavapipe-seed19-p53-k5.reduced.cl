// @ferrocl-fuzz global=128 local=16 slots=4 options=-cl-std=CL3.0
// @input 0x7ffffffffffffffe,0x0,0xffffffffffffffff,0x7fffffffffffffff,0x122,0x3,0x7fffffffffffffff,0x33,0xc9,0x1,0x1,0x8000000000000001,0xffffffffffffffff,0xb1,0x8000000000000001,0x7ffffffffffffffe,0xffffffffffffffff,0x1,0x7ffffffffffffffe,0xfffffffffffffef0,0x7ffffffffffffffe,0xedc424b0e6f98675,0xffffffffffffffff,0x9885cfc63a4fb9ec,0x8000000000000001,0x112,0x1,0xffffffffffffffff,0x1,0x7fffffffffffffff,0x8000000000000001,0x7ffffffffffffffe,0x10c,0x8000000000000001,0x19,0x1,0xffffffffffffffd0,0xaa,0x0,0xe8,0x8000000000000000,0x8000000000000000,0x8000000000000000,0xffffffffffffffab,0xffffffffffffffff,0x6d,0x0,0x6,0x49,0x7fffffffffffffff,0x1,0x7e,0x0,0x8000000000000001,0x51,0xffffffffffffffcc,0x2f,0x8000000000000001,0x8000000000000000,0x1,0x0,0x7ffffffffffffffe,0x1,0xffffffffffffffff
// @kernel k5 arg=0x1 base=2560
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
typedef struct { int3 f0[2]; ushort2 f1; } S0;
ulong hash_ushort2(ulong h, ushort2 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); return h; }
ulong hash_S0(ulong h, S0 v) {
    h = hash_ushort2(h, v.f1);
    return h;
}
kernel void k5(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 2560u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    S0 s2 = { { 0, 0 }, 0 };
    for (uint i5 = 0; i5 < (uint)(3) + 1u; i5++) {
            s2.f1 = convert_ushort2_sat((((((ulong2)((ulong)(in[0 & 63])))))));
                out[ob + 1] = 00;
            if (((ushort)((uint)((((ushort)(ulong)gid)))))) continue;
        if (((long)((ulong)(clz(0))))) break;
    }
    h = hash_S0(h, s2);
    out[ob] = h;
}
