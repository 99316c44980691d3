// @ferrocl-fuzz global=128 local=64 slots=4 options=-cl-std=CL3.0
// @input 0x0,0x0,0xffffffffffffff7b,0x8000000000000000,0xffffffffffffffff,0x1,0x1,0x0,0xffffffffffffff66,0x0,0x8000000000000001,0x7ffffffffffffffe,0x7ffffffffffffffe,0xffffffffffffff6d,0x8000000000000000,0xffffffffffffffff,0x7fffffffffffffff,0x9e,0x6,0x44,0xa8,0x0,0xffffffffffffffff,0x8000000000000001,0x1,0x7fffffffffffffff,0xffffffffffffffff,0xffffffffffffffff,0xf7,0x0,0x7fffffffffffffff,0x1,0x2,0x1,0xb,0x0,0x8000000000000001,0x0,0xbc7aee605af8a532,0x7fffffffffffffff,0x8000000000000000,0x0,0x6,0x0,0x0,0xaa871ef3adef5c9e,0x7ffffffffffffffe,0x8000000000000000,0x16,0x813cdd4e87eb4db6,0x6,0x7fffffffffffffff,0x8000000000000001,0x7ffffffffffffffe,0x8000000000000001,0xf0279e71f3bad9ac,0x0,0x7ffffffffffffffe,0x1,0xffffffffffffffff,0x8000000000000001,0xc,0x105,0x5
// @kernel k4 arg=0x7fffffffffffffff base=2048
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x50UL, 0x0UL, 0x5bUL, 0x7fffffffffffffffUL, 0x1UL, 0x8aUL, 0x8000000000000001UL, 0xebUL, 0x8000000000000001UL, 0x4UL, 0xffffffffffffffffUL, 0x1UL, 0x7ffffffffffffffeUL, 0x4UL, 0x7ffffffffffffffeUL, 0xffffffffffffff15UL};
typedef struct { short4 f0; } S0;
typedef struct { S0 f0; uint2 f1[4]; S0 f2[4]; ushort4 f3; } S1;
char div_char(char a, char b) { return (b == (char)0 || (a == (char)((char)-128) && b == (char)-1)) ? a : (char)(a / b); }
short div_short(short a, short b) { return (b == (short)0 || (a == (short)((short)-32768) && b == (short)-1)) ? a : (short)(a / b); }
short2 div_short2(short2 a, short2 b) { return a / select(b, (short2)(1), (b == (short2)(0)) | ((a == (short2)(((short)-32768))) & (b == (short2)(-1)))); }
ushort4 div_ushort4(ushort4 a, ushort4 b) { return a / select(b, (ushort4)(1), b == (ushort4)(0)); }
ulong2 div_ulong2(ulong2 a, ulong2 b) { return a / select(b, (ulong2)(1), b == (ulong2)(0)); }
ulong rem_ulong(ulong a, ulong b) { return (b == (ulong)0) ? a : (ulong)(a % b); }
long4 clampx_long4(long4 x, long4 a, long4 b) { return clamp(x, min(a, b), max(a, b)); }
ulong hash_short4(ulong h, short4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_ushort4(ulong h, ushort4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_ulong4(ulong h, ulong4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
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
    S1 a1[4] = { { { 0 }, { 0, (((uint2)((uint)(ctab[(((uchar)(ulong)gid)) & 15]))) + ((uint2)((uint)0x80000000u))), 0, 0 }, { { 0 }, { ((short4)(((short)36))) }, { 0 }, { 0 } }, 0 }, { { ((short4)(((short)0x8000u))) }, { ((uint2)((uint)((ulong)arg))), ((uint2)((uint)0xffffff59u)), 0, 0 }, { { 0 }, { 0 }, { 0 }, { 0 } }, 0 }, { { ((short4)((short)1)) }, { 0, ((uint2)((uint)1)), ((uint2)(((uint)2), ((uint)0xffffffffu))), 0 }, { { 0 }, { 0 }, { 0 }, { 0 } }, 0 }, { { ((short4)((short)1)) }, { ((uint2)((uint)((ulong)arg))), ((uint2)((uint)18)), ((uint2)((uint)124)), ((uint2)((uint)0)) }, { { 0 }, { 0 }, { ((short4)((short)(ctab[(((int)0)) & 15]))) }, { ((short4)((short)(in[(gid + 21u) & 63]))) } }, 0 } };
    ulong v2 = select(((ulong)(((((ulong)in[(((uchar)243)) & 63]) * ((ulong)0x7ffffffffffffffeUL))) ? (((ulong4)((ulong)(in[(((ushort)out[ob + 1 + (uint)(((short)(ulong)get_group_id(0))) % 3u])) & 63])))).y : (((ulong)0x108c3a8443e8a822UL) - ((ulong)in[(gid + 33u) & 63])))), as_ulong(clz(a1[(as_ulong(((int2)(((int)256), ((int)49))))) & 3].f1[1])), ((ulong)((((ulong)in[(gid + 8u) & 63]) * ((ulong)0x7ffffffffffffffeUL)) ^ ((ulong)out[ob + 1 + (uint)(((int)0x80000001u)) % 3u]))));
    long4 a3[2] = { clampx_long4(((long4)((long)1)), ((long4)((long)(in[(((uint)0xffffff4au)) & 63]))), ((long4)((long)0x8000000000000000UL))), (((long3)(((long)-10), ((long)0x7fffffffffffffffUL), ((long)0x7fffffffffffffffUL)))).yzxx };
    ulong4 r4 = f1(((short2)((short)(out[ob + 1 + (uint)(((long)(ulong)get_group_id(0))) % 3u]))), &a1[0].f0, sub_sat(rotate(((char)ctab[(((char)(ulong)lid)) & 15]), ((char)(ulong)get_group_id(0))), ((char)in[(((ulong)in[(gid + 31u) & 63])) & 63])), ((char)ctab[(((uint)(ulong)gid)) & 15]));
    switch ((mul_hi(min(((ulong)(ulong)lid), v2), ((ulong)(((ulong)ctab[(((ushort)0x7ffeu)) & 15]) << ((long)0xfd74faae351ebe9fUL))))) & 7) {
        default: {
            switch ((div_short(((short)0x7fffu), mad_sat(((short)1), ((short)-196), ((short)in[(((char)in[(gid + 62u) & 63])) & 63])))) & 7) {
                case 2: {
                    long v10 = convert_long(as_short(max(((short)-166), ((short)ctab[(((char)41)) & 15]))));
                }
                    a1[0].f2[(((char)237)) & 3].f0 >>= max(((short4)((((short4)((short)((ulong)get_group_id(0)))) ^ ((short4)(0, 37, 74, 111))) | a1[(((short)in[(gid + 5u) & 63])) & 3].f2[(((int)0x7ffffffeu)) & 3].f0)), as_short4(-as_ushort4(a1[(v2) & 3].f0.f0)));
                    ulong4 r11 = f1(div_short2(as_short2(as_ushort2(((short2)((short)((ulong)gid)))) + as_ushort2(((short2)(((short)1), ((short)0x1187u))))), min(((short2)((short)0x7ffeu)), (((short2)((short)((ulong)arg))) ^ ((short2)(0, 37))))), &a1[3].f2[(v2) & 3], ((char)(~as_char(((char)68)))), ((char)in[(((ulong)289)) & 63]));
            }
        }
    }
    for (uint j15 = 0; j15 < 4u; j15++) {
        h = hash_S1(h, a1[j15]);
    }
    out[ob] = h;
}
