// @ferrocl-fuzz global=256 local=16 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000000,0x0,0x8000000000000001,0x8000000000000000,0x822a97af6c2029c2,0x7ffffffffffffffe,0x1,0x77,0x0,0xffffffffffffffff,0x1,0x76,0x0,0x8000000000000001,0x8000000000000001,0x4c8cece39fc77d7f,0x8000000000000001,0xffffffffffffffff,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffffe0,0xffffffffffffffff,0x0,0x5b,0x4,0x8000000000000000,0x1,0x7ffffffffffffffe,0x7ffffffffffffffe,0xe8bffcc8c74d74be,0x439f5088a7ca2e06,0x30,0x61,0x7fffffffffffffff,0x0,0x7ffffffffffffffe,0x7ffffffffffffffe,0x39,0xdc,0x8000000000000001,0x7fffffffffffffff,0x1,0x8000000000000000,0x59,0x8000000000000000,0x8000000000000001,0x9d71f292581879a4,0x0,0xffffffffffffffff,0x8000000000000000,0xe8,0x78cc8a31ea515fac,0x62,0x50,0x8000000000000000,0x8000000000000001,0x6,0x7ffffffffffffffe,0x29,0x7,0xffffffffffffffff,0xc7540e2e63400efc,0x8000000000000001,0x7fffffffffffffff
// @kernel k0 arg=0x28 base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x8000000000000000UL, 0xa3UL, 0x8000000000000000UL, 0xe949af39db68d12aUL, 0xb6UL, 0xffffffffffffffffUL, 0x7fffffffffffffffUL, 0xffffffffffffffffUL, 0x8000000000000000UL, 0x7ffffffffffffffeUL, 0x2UL, 0xdfa41d0938343e0fUL, 0x5UL, 0xfffffffffffffee4UL, 0x8000000000000001UL, 0x7ffffffffffffffeUL};
typedef struct { ulong4 f0; uint4 f1; uint f2; } S0;
typedef struct { S0 f0[4]; short f1[2]; char3 f2; uint4 f3; ushort3 f4; } S1;
typedef struct { int2 f0[8]; } S2;
char div_char(char a, char b) { return (b == (char)0 || (a == (char)((char)-128) && b == (char)-1)) ? a : (char)(a / b); }
ulong hash_char3(ulong h, char3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_short3(ulong h, short3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_ushort3(ulong h, ushort3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_uint4(ulong h, uint4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_long4(ulong h, long4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_ulong4(ulong h, ulong4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_ulong16(ulong h, ulong16 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); h = mix(h, (ulong)v.s8); h = mix(h, (ulong)v.s9); h = mix(h, (ulong)v.sa); h = mix(h, (ulong)v.sb); h = mix(h, (ulong)v.sc); h = mix(h, (ulong)v.sd); h = mix(h, (ulong)v.se); h = mix(h, (ulong)v.sf); return h; }
ulong hash_S0(ulong h, S0 v) {
    return h;
}
ulong hash_S1(ulong h, S1 v) {
    return h;
}
S0 f4(long p0, uchar8 p1, S2* p2, long4* p3) {
    uint w1 = 0;
    S0 s2 = { 0, 0, 0 };
    return s2;
}
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    long v1 = 0;
    long4 a2[4] = { 0, 0, 0, 0 };
    short3 v3 = 0;
    ulong16 v4 = 0;
    S1 a5[4] = { { { { 0, 0, 0 }, { (-((ulong4)((ulong)(in[(gid + 24u) & 63])))), 0, abs(((uint)0x7fffffffu)) }, { 0, 0, 0 }, { 0, (((uint4)((uint)1)) << ((uint)0xffffffffu)), clz(((uint)0x220c336du)) } }, { 0, ((short)(ulong)get_group_id(0)) }, 0, 0, ((ushort3)((ushort)295)) }, { { { 0, ((uint4)((uint)((ulong)gid))), ((uint)(ulong)arg) }, { 0, ((uint4)((uint)0)), ((uint)ctab[(((char)(ulong)gid)) & 15]) }, { ((ulong4)((ulong)298)), 0, ((uint)in[(((ushort)(ulong)lid)) & 63]) }, { 0, 0, ((uint)out[ob + 1 + (uint)(v1) % 3u]) } }, { 0, ((short)ctab[(((int)(ulong)gid)) & 15]) }, 0, 0, 0 }, { { { 0, 0, 0 }, { 0, 0, ((uint)1) }, { ((ulong4)((ulong)((ulong)lid))), 0, ((uint)(ulong)arg) }, { 0, 0, ((uint)(ulong)arg) } }, { ((short)(ulong)arg), ((short)(ulong)gid) }, 0, ((uint4)((uint)161)), 0 }, { { { ((ulong4)((ulong)0xffffffffffffffffUL)), ((uint4)((uint)3)), ((uint)6) }, { 0, 0, ((uint)in[(((char)126)) & 63]) }, { 0, 0, ((uint)143) }, { 0, ((uint4)((uint)0x80000001u)), 0 } }, { ((short)2), ((short)ctab[(((int)(ulong)gid)) & 15]) }, ((char3)((char)((ulong)lid))), ((uint4)((uint)(in[(gid + 43u) & 63]))), 0 } };
    uint w6 = 0;
        for (uint i7 = 0; i7 < (uint)((((ulong)(((ulong)(ulong)w6) << ((uint)(ulong)w6)))) & 3) + 1u; i7++) {
            a2[(((int)(((int)(ulong)lid) <= ((int)ctab[(v1) & 15])))) & 3] = as_long4((((short16)(rotate(((short16)((short)(ctab[(((ulong)ctab[(((long)(ulong)gid)) & 15])) & 15]))), ((short16)(((short)0x7ffeu), ((short)-1), ((short)6), ((short)6), ((short)152), ((short)-1), ((short)0x8000u), ((short)0), ((short)-1), ((short)267), ((short)176), ((short)0x7ffeu), ((short)0), ((short)0x8001u), ((short)-1), ((short)-232)))) & as_short16(((uint8)((uint)(in[(gid + 46u) & 63])))))) << ((((short16)(((short)0), ((short)0x8000u), ((short)147), ((short)3), ((short)-168), ((short)0), ((short)1), ((short)0x17dfu), ((short)0x8001u), ((short)0x8001u), ((short)0x7ffeu), ((short)0x7ffeu), ((short)0x8001u), ((short)-1), ((short)0x7fffu), ((short)0x8001u))) << (((short16)((short)(in[(gid + 63u) & 63]))) ^ ((short16)(0, 37, 74, 111, 20, 57, 94, 3, 40, 77, 114, 23, 60, 97, 6, 43)))) >> ((((short4)((short)(ctab[(((char)126)) & 15]))) ^ ((short4)(0, 37, 74, 111)))).s1112332131330203)));
            char v8 = ((char)((((ulong)(ulong)arg)) ? div_char(((char)((i7) ? ((char)147) : ((char)0))), ((char)(((char)in[(gid + 29u) & 63]) ^ ((char)(ulong)lid)))) : ((char)(((char)(((char)128) ^ ((char)out[ob + 1 + (uint)(((uchar)ctab[(((ulong)0x8000000000000000UL)) & 15])) % 3u]))) << ((uint)0)))));
        }
    for (uint j9 = 0; j9 < 4u; j9++) {
        h = hash_long4(h, a2[j9]);
    }
    out[ob] = h;
}
