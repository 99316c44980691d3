// @ferrocl-fuzz global=64 local=64 slots=4 options=-cl-std=CL3.0
// @input 0xa3,0x8000000000000000,0xe0,0x7ffffffffffffffe,0x8000000000000000,0x8000000000000001,0x1,0xf6,0x6d,0x8d,0x7fffffffffffffff,0x6,0x0,0x1,0x47,0x7fffffffffffffff,0x8000000000000000,0x83,0x8000000000000000,0xffffffffffffff9d,0x8000000000000001,0x0,0x7ffffffffffffffe,0x7fffffffffffffff,0x392328fbf4a8a72c,0x0,0x0,0x7fffffffffffffff,0x1,0xe,0x7ffffffffffffffe,0xffffffffffffffc1,0x5,0x7fffffffffffffff,0x0,0x7fffffffffffffff,0x0,0x102,0x6,0x8000000000000000,0x7fffffffffffffff,0x1,0x14,0x1,0x7ffffffffffffffe,0x8000000000000000,0x1,0x8000000000000000,0x36,0x41,0xffffffffffffffff,0x15ea3ed02ae64858,0xffffffffffffffc6,0x8000000000000001,0x7ffffffffffffffe,0x7ffffffffffffffe,0x1,0xffffffffffffffa4,0x575024f437c6a64c,0x7fffffffffffffff,0xffffffffffffffff,0xffffffffffffff43,0xffffffffffffff9c,0xf7
// @kernel k1 arg=0x7fffffffffffffff base=256
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0xfbUL, 0x0UL, 0x8000000000000001UL, 0x7UL, 0x7fffffffffffffffUL, 0x7fffffffffffffffUL, 0x8000000000000001UL, 0x3dUL, 0xffffffffffffffffUL, 0x60UL, 0x1UL, 0x0UL, 0x7ffffffffffffffeUL, 0xffffffffffffffffUL, 0x7fffffffffffffffUL, 0x10fUL};
typedef struct { long2 f0; short f1; short f2; int f3[4]; } S0;
int div_int(int a, int b) { return (b == (int)0 || (a == (int)(-2147483647 - 1) && b == (int)-1)) ? a : (int)(a / b); }
uint div_uint(uint a, uint b) { return (b == (uint)0) ? a : (uint)(a / b); }
ulong hash_int16(ulong h, int16 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); h = mix(h, (ulong)v.s8); h = mix(h, (ulong)v.s9); h = mix(h, (ulong)v.sa); h = mix(h, (ulong)v.sb); h = mix(h, (ulong)v.sc); h = mix(h, (ulong)v.sd); h = mix(h, (ulong)v.se); h = mix(h, (ulong)v.sf); return h; }
ulong hash_long2(ulong h, long2 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); return h; }
ulong hash_ulong2(ulong h, ulong2 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); return h; }
ulong hash_S0(ulong h, S0 v) {
    return h;
}
ushort3 f0(S0* p0, uint p1) {
    return 0;
}
kernel void k1(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 256u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local char l1[256];
    l1[lid * 4 + 0] = ((char)((uint)((((char4)(((char)15), ((char)126), ((char)1), ((char)128)))).s2) * (uint)(((char)(((char)in[(gid + 57u) & 63]) ^ ((char)126)))))); /*@keep*/
    l1[lid * 4 + 1] = ((char)ctab[(((char)in[(((ushort)ctab[(((short)134)) & 15])) & 63])) & 15]); /*@keep*/
    l1[lid * 4 + 2] = hadd(((char)(-(uint)(((char)(ulong)gid)))), ((char)((uint)(((char)ctab[(((int)in[(((int)in[(gid + 29u) & 63])) & 63])) & 15])) * (uint)(((char)126))))); /*@keep*/
    l1[lid * 4 + 3] = ((char)((((ushort)(~((ushort)(ulong)arg)))) ? convert_char(((long)78)) : hadd(((char)0), ((char)in[(((uint)0x7ffffffeu)) & 63])))); /*@keep*/
    int v2 = 0;
    ushort v3 = 0;
    int16 v4 = 0;
    for (uchar i5 = 0; i5 != 1; i5++) {
            if (min(((short)((((char)ctab[(((int)-1)) & 15])) ? ((short)in[(gid + 38u) & 63]) : ((short)(ulong)lid))), ((short)(i5 != i5)))) {
                ulong2 v6 = ((ulong2)((ulong)((ulong)arg)));
                h = hash_ulong2(h, v6);
            }
            uint w8 = 0;
                long2 v9 = ((long2)(((long)0x7fffffffffffffffUL), ((long)0)));
                int v10 = mad_sat(((int)((convert_uint_sat(((long)0x7fffffffffffffffUL))) ? ((int)((uint)(((int)(ulong)lid)) - (uint)(((int)0x7ffffffeu)))) : popcount(v2))), ((int)104), v2);
            uint v11 = ((uint)(div_uint(((uint)((((uchar)255)) ? w8 : w8)), w8) << clz(max(w8, w8))));
    }
    S0 a12[2] = { { (((long2)(((long)-1), ((long)7))) << ((long2)((long)(in[(((ulong)ctab[(((char)in[(((char)1)) & 63])) & 15])) & 63])))), (((short8)(((short)0x7fffu), ((short)0x7ffeu), ((short)0), ((short)242), ((short)0x8000u), ((short)94), ((short)7), ((short)45)))).s4, ((short)((uint)(((short)5)) + (uint)(((short)in[(gid + 21u) & 63])))), { ((int)(v2 >> ((short)-1))), ((int)((ulong)in[(gid + 58u) & 63])), v2, ((int)((((ushort)(ulong)get_group_id(0))) ? v2 : v2)) } }, { (((long2)((long)(in[(gid + 26u) & 63]))) ^ ((long2)(0, 37))), ((short)((uint)(((short)-275)) * (uint)(((short)60)))), convert_short(((ulong)out[ob + 1 + (uint)(((char)out[ob + 1 + (uint)(l1[lid * 4 + ((((uchar)in[(gid + 57u) & 63])) & 3)]) % 3u])) % 3u])), { add_sat(v2, ((int)-14)), v2, ((int)0x7ffffffeu), v2 } } };
    barrier(CLK_LOCAL_MEM_FENCE);
    out[ob] = h;
}
