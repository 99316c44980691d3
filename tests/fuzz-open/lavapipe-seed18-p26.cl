// @ferrocl-fuzz global=64 local=16 slots=4 options=-cl-std=CL3.0
// @input 0xfffffffffffffee9,0x8000000000000000,0xffffffffffffff3e,0x7fffffffffffffff,0x7ffffffffffffffe,0x8000000000000001,0xffffffffffffffff,0x7ffffffffffffffe,0x4e21e3d2a3d8d891,0x7ffffffffffffffe,0x1,0x7,0x7fffffffffffffff,0x8000000000000000,0x8000000000000000,0x8000000000000000,0x2,0x8b,0xffffffffffffff71,0x7d,0xffffffffffffffff,0xffffffffffffff9c,0x8000000000000001,0x11d,0x7ffffffffffffffe,0xffffffffffffffff,0x8000000000000001,0x104,0x7ffffffffffffffe,0x5,0xffffffffffffff6b,0x1,0xfffffffffffffef8,0x7ffffffffffffffe,0x0,0xffffffffffffffff,0x11d,0xad,0x7fffffffffffffff,0x8000000000000000,0x0,0xffffffffffffff4c,0x1,0xfd,0x8000000000000001,0x1,0xffffffffffffffa3,0x1,0xffffffffffffff9b,0x7,0x79,0xffffffffffffffff,0x7fffffffffffffff,0x7ffffffffffffffe,0x7fffffffffffffff,0x1,0x8000000000000000,0xffffffffffffffff,0xae770a5e61f7e6a7,0x7fffffffffffffff,0x7fffffffffffffff,0xfffffffffffffee6,0xffffffffffffff52,0x123
// @kernel k0 arg=0x7ffffffffffffffe base=0
// @kernel k1 arg=0x1 base=256
// @kernel k2 arg=0xd3 base=512
// @kernel k3 arg=0x4 base=768
// @kernel k4 arg=0x0 base=1024
// @kernel k5 arg=0x8000000000000000 base=1280
// @kernel k6 arg=0xffffffffffffff3f base=1536
// @kernel k7 arg=0x7fffffffffffffff base=1792
// @kernel k8 arg=0xbd base=2048
// @kernel k9 arg=0x0 base=2304
// @kernel k10 arg=0xffffffffffffffff base=2560
// @kernel k11 arg=0xffffffffffffffff base=2816
// @kernel k12 arg=0x65 base=3072
// @kernel k13 arg=0xc5 base=3328
// @kernel k14 arg=0xcbe60eacb6d02357 base=3584
// @kernel k15 arg=0x66 base=3840
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x16UL, 0xffffffffffffffdfUL, 0x697e94039b429ca0UL, 0x2UL, 0x7fffffffffffffffUL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0x8000000000000000UL, 0xffffffffffffff83UL, 0xffffffffffffffffUL, 0x8000000000000000UL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0x99b35bde4fd3b1d0UL, 0x0UL};
typedef struct { long4 f0; } S0;
typedef struct { uint8 f0; } S1;
char div_char(char a, char b) { return (b == (char)0 || (a == (char)((char)-128) && b == (char)-1)) ? a : (char)(a / b); }
long div_long(long a, long b) { return (b == (long)0 || (a == (long)(-9223372036854775807L - 1L) && b == (long)-1)) ? a : (long)(a / b); }
ulong4 div_ulong4(ulong4 a, ulong4 b) { return a / select(b, (ulong4)(1), b == (ulong4)(0)); }
uint rem_uint(uint a, uint b) { return (b == (uint)0) ? a : (uint)(a % b); }
long rem_long(long a, long b) { return (b == (long)0 || (a == (long)(-9223372036854775807L - 1L) && b == (long)-1)) ? a : (long)(a % b); }
long4 rem_long4(long4 a, long4 b) { return a % select(b, (long4)(1), (b == (long4)(0)) | ((a == (long4)((-9223372036854775807L - 1L))) & (b == (long4)(-1)))); }
uint2 clampx_uint2(uint2 x, uint2 a, uint2 b) { return clamp(x, min(a, b), max(a, b)); }
long clampx_long(long x, long a, long b) { return clamp(x, min(a, b), max(a, b)); }
long4 clampx_long4(long4 x, long4 a, long4 b) { return clamp(x, min(a, b), max(a, b)); }
ulong hash_uchar3(ulong h, uchar3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_uchar4(ulong h, uchar4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_short3(ulong h, short3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_uint8(ulong h, uint8 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); return h; }
ulong hash_long4(ulong h, long4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_ulong4(ulong h, ulong4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_S0(ulong h, S0 v) {
    h = hash_long4(h, v.f0);
    return h;
}
ulong hash_S1(ulong h, S1 v) {
    return h;
}
S0 f0(uint16 p0, uchar p1, ulong4 p2) {
    S0 a1[2] = { { 0 }, { 0 } };
    return a1[0 & 1];
}
long f1(char p0, S0* p1, S1 p2) {
    uint w1 = 0;
    return 0;
}
char2 f2(S0 p0, int2 p1, short p2, char* p3) {
    return 0;
}
S1 f4(char4 p0, S0 p1) {
    S1 s4 = { 0 };
    return s4;
}
kernel void k1(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 256u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    short3 v1 = 0;
    S1 s2 = { 0 };
    uint v3 = 0;
    char a4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    S0 s5 = { ((long4)((long)0x8000000000000001UL)) };
    uint w9 = 0;
    do {
        ushort v10 = 0;
        ulong4 v11 = 0;
    } while (++w9 < 3u);
        uint8 v16 = ((uint8)(((uint4)(((uint)0x80000001u), ((uint)0x80000001u), ((uint)0xffffffffu), ((uint)0xffffffffu))), rhadd(((((uint16)((uint)(ctab[(((ulong)in[(((ushort)in[(w9) & 63])) & 63])) & 15]))) ^ ((uint16)(0, 37, 74, 111, 20, 57, 94, 3, 40, 77, 114, 23, 60, 97, 6, 43)))).s5052, convert_uint4(((long4)((long)(in[(gid + 55u) & 63])))))));
        for (uint i17 = 0; i17 < 5u; i17++) {
            for (uchar i18 = 0; i18 != 3; i18++) {
                if (((uchar)((uint)(((uchar)((uint)(((uchar)arg)) * (uint)(((uchar)(ulong)w9))))) * (uint)(((uchar)all(((short3)((short)((ulong)i18))))))))) goto L15;
                S0 s19 = { ((((long4)(((long)0x8000000000000000UL), ((long)1), ((long)-1), ((long)0x56f8a4904ccba844UL)))) ? ((long4)((long)0xad5c210aaf26028fUL)) : s5.f0) };
            }
            if (((uint)(((char)(-(uint)(a4[(convert_long_sat(((uchar)in[(((ulong)217)) & 63]))) & 15]))) > (((char4)((char)(in[(((long)in[(((ulong)out[ob + 1 + (uint)(((ushort)(ulong)arg)) % 3u])) & 63])) & 63])))).s0))) continue;
            s5 = f0((((uint16)((uint)0x80000000u)) - i17), ((uchar)(ulong)lid), (((ulong4)((ulong)((ulong)get_group_id(0)))) * (((ulong4)((ulong)(in[(((ushort)5)) & 63]))) ^ ((ulong4)(0, 37, 74, 111)))));
        }
        h = hash_uint8(h, v16);
    L15: ;
    h = hash_S0(h, s5);
    out[ob] = h;
}
kernel void k11(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 2816u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    long v1 = clampx_long((clampx_long4(((long4)(((long)0x6063e894e8c16ce9UL), ((long)1), ((long)0x80e2162f02d040f0UL), ((long)1))), (((long4)((long)(ctab[(((ulong)6)) & 15]))) ^ ((long4)(0, 37, 74, 111))), ((long4)(((long)0x7fffffffffffffffUL), ((long)1), ((long)1), ((long)0x7ffffffffffffffeUL))))).s0, ((long)any(((char2)(((char)255), ((char)181))))), ((long)(-(ulong)(rhadd(((long)1), ((long)ctab[(((uchar)(ulong)lid)) & 15]))))));
    uchar3 v2 = add_sat((((uchar3)(((uchar)1), ((uchar)128), ((uchar)61))) >> convert_uchar3((((char3)((char)(in[(gid + 16u) & 63]))) ^ ((char3)(0, 37, 74))))), ((uchar3)(as_uchar(((char)2)), ((uchar)((uint)(((uchar)out[ob + 1 + (uint)(((short)-1)) % 3u])) - (uint)(((uchar)out[ob + 1 + (uint)(((uchar)(ulong)gid)) % 3u])))), ((uchar)((uint)(((uchar)in[(gid + 46u) & 63])) * (uint)(((uchar)6)))))));
    uchar4 v3 = clz(as_uchar4(((short2)((((short2)((short)((ulong)lid))) ^ ((short2)(0, 37))) | ((short2)((short)((ulong)lid)))))));
    short v4 = ((short)((((short)(((short)((uint)(((short)in[(((uchar)in[(((short)196)) & 63])) & 63])) * (uint)(((short)2)))) != ((short)abs_diff((short)((((short)out[ob + 1 + (uint)(v1) % 3u])) >> 1), (short)((((short)0x8001u)) >> 1)))))) ? ((short)(((short)(((ulong)(ulong)get_group_id(0)) < ((ulong)7))) | ((short)((uint)(((short)(ulong)get_group_id(0))) - (uint)(((short)0x8001u)))))) : upsample(((char)(~((char)in[(gid + 61u) & 63]))), ((uchar)in[(gid + 5u) & 63]))));
    if (((ushort)in[(v1) & 63])) {
        uint w5 = 0;
        for (int i6 = 4; i6 > 0; i6--) {
            switch ((((short)(((short)0x8001u) ^ ((short)((uint)(v4) * (uint)(((short)in[(((uint)0xffffff3fu)) & 63]))))))) & 7) {
                case 7: {
                    short3 v7 = ((short3)(~as_short3(((short3)((short)(in[(gid + 48u) & 63]))) == (((short8)(((short)0), ((short)0x7fffu), ((short)0), ((short)-119), ((short)0x8001u), ((short)0x8001u), ((short)177), ((short)0x8000u)))).s614)));
                    uint v8 = ((((uint)(~((uint)in[(((ulong)in[(gid + 17u) & 63])) & 63]))) + (w5 + w5)) + ((uint)((v1) ? w5 : ((uint)((((int)ctab[(((ulong)in[(((int)0x7fffffffu)) & 63])) & 15])) ? w5 : ((uint)171))))));
                }
                case 1: {
                    v1 = ((long)((((ushort)((uint)(((ushort)((uint)(((ushort)0xfadbu)) * (uint)(((ushort)134))))) * (uint)(((ushort)0x7ffeu))))) ? ((long)(((long)abs_diff((long)((rem_long(v1, ((long)in[(((int)77)) & 63]))) >> 1), (long)((((long)(~v1))) >> 1))) ^ ((long)abs((long)((((long)((ulong)(((long)in[(gid + 32u) & 63])) + (ulong)(v1)))) >> 1))))) : convert_long(((ushort)((uint)(((ushort)any(i6))) - (uint)(((ushort)((uint)(((ushort)ctab[(v4) & 15])) + (uint)(((ushort)1))))))))));
                }
            }
        }
    }
    h = mix(h, (ulong)(v1));
    out[ob] = h;
}
