// @ferrocl-fuzz global=64 local=32 slots=4 options=-cl-std=CL3.0
// @input 0xffffffffffffffff,0x1b544b3e012cb38b,0x8000000000000000,0xffffffffffffff1a,0xffffffffffffff36,0xffffffffffffffff,0x7fffffffffffffff,0x86,0x67,0x7ffffffffffffffe,0x0,0xffffffffffffffff,0xac,0x10c,0xfffffffffffffedd,0x56,0x8000000000000000,0xac,0x5,0x0,0xfffffffffffffffa,0xbf,0xf8,0x7fffffffffffffff,0x1,0x7fffffffffffffff,0x1,0x1,0x106,0x1,0xa0,0xfffffffffffffed6,0x1,0x64a8f842af03b093,0xffffffffffffffff,0x7ffffffffffffffe,0x8000000000000000,0x1,0x8000000000000000,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffff05,0x8000000000000001,0x1,0x8000000000000000,0x2,0x8000000000000000,0x78,0x8000000000000001,0xffffffffffffffff,0xffffffffffffffcd,0x0,0x8000000000000000,0x919c3996636b96a2,0x7,0xe4,0x2aad203b77cc675e,0x7c,0x1,0x7ffffffffffffffe,0x8000000000000001,0x125,0x8000000000000000,0x4
// @kernel k0 arg=0xffffffffffffffff base=0
// @kernel k1 arg=0x6 base=256
// @kernel k2 arg=0x8000000000000001 base=512
// @kernel k3 arg=0x0 base=768
// @kernel k4 arg=0x8000000000000000 base=1024
// @kernel k5 arg=0xffffffffffffffa3 base=1280
// @kernel k6 arg=0xffffffffffffffff base=1536
// @kernel k7 arg=0xffffffffffffffff base=1792
// @kernel k8 arg=0xffffffffffffffff base=2048
// @kernel k9 arg=0x6 base=2304
// @kernel k10 arg=0xd492cc014e3e488 base=2560
// @kernel k11 arg=0x7ffffffffffffffe base=2816
// @kernel k12 arg=0xffffffffffffff7c base=3072
// @kernel k13 arg=0x63 base=3328
// @kernel k14 arg=0x0 base=3584
// @kernel k15 arg=0xffffffffffffffff base=3840
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x0UL, 0x7ffffffffffffffeUL, 0x7fffffffffffffffUL, 0x96UL, 0xffffffffffffff40UL, 0x8000000000000001UL, 0x7ffffffffffffffeUL, 0x88UL, 0x0UL, 0xffffffffffffffffUL, 0xf3f10c3ad9507698UL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0x7ffffffffffffffeUL, 0x8000000000000001UL, 0xffffffffffffff98UL};
typedef struct { short f0; short f1; uint f2; } S0;
typedef struct { uchar4 f0[8]; char f1; S0 f2[2]; uchar f3; } S1;
char4 rem_char4(char4 a, char4 b) { return a % select(b, (char4)(1), (b == (char4)(0)) | ((a == (char4)(((char)-128))) & (b == (char4)(-1)))); }
int rem_int(int a, int b) { return (b == (int)0 || (a == (int)(-2147483647 - 1) && b == (int)-1)) ? a : (int)(a % b); }
char clampx_char(char x, char a, char b) { return clamp(x, min(a, b), max(a, b)); }
ushort clampx_ushort(ushort x, ushort a, ushort b) { return clamp(x, min(a, b), max(a, b)); }
ulong16 clampx_ulong16(ulong16 x, ulong16 a, ulong16 b) { return clamp(x, min(a, b), max(a, b)); }
ulong hash_char4(ulong h, char4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_short3(ulong h, short3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_int16(ulong h, int16 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); h = mix(h, (ulong)v.s8); h = mix(h, (ulong)v.s9); h = mix(h, (ulong)v.sa); h = mix(h, (ulong)v.sb); h = mix(h, (ulong)v.sc); h = mix(h, (ulong)v.sd); h = mix(h, (ulong)v.se); h = mix(h, (ulong)v.sf); return h; }
ulong hash_uint8(ulong h, uint8 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); return h; }
ulong hash_ulong2(ulong h, ulong2 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); return h; }
ulong hash_ulong16(ulong h, ulong16 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); h = mix(h, (ulong)v.s8); h = mix(h, (ulong)v.s9); h = mix(h, (ulong)v.sa); h = mix(h, (ulong)v.sb); h = mix(h, (ulong)v.sc); h = mix(h, (ulong)v.sd); h = mix(h, (ulong)v.se); h = mix(h, (ulong)v.sf); return h; }
ulong hash_S0(ulong h, S0 v) {
    return h;
}
ulong hash_S1(ulong h, S1 v) {
    return h;
}
kernel void k4(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 1024u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    ushort a1[16] = { 0, 0, 0, 0, 0, 0, (((ushort16)0)).s7, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    short3 v2 = 0;
    if (convert_uchar(0)) {
        switch (((((char)out[ob + 1 + 00 % 3u]))) & 7) {
            case 7: {
                v2 = upsample(0, 0);
            }
            case 1: {
                if (((uint)(!((ushort)(a1[((((uchar4)0)).s3) & 15]))))) break;
            }
        }
    }
    int16 v6 = 0;
    h = hash_short3(h, v2);
    out[ob] = h;
}
kernel void k9(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 2304u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local uint8 l1[64];
    local char4 l2[128];
    l1[lid * 2 + 0] = (((uint8)(((uint)258), ((uint)0x5ac03a21u), ((uint)5), ((uint)0x80000001u), ((uint)277), ((uint)0x80000000u), ((uint)0x80000001u), ((uint)1))) + (((uint8)((uint)(out[ob + 1 + (uint)(((int)0x80000001u)) % 3u]))) - ((uint)0x7fffffffu))); /*@keep*/
    l1[lid * 2 + 1] = (min(((uint4)((uint)(out[ob + 1 + (uint)(((ulong)ctab[(((short)1)) & 15])) % 3u]))), (((uint4)((uint)((ulong)arg))) ^ ((uint4)(0, 37, 74, 111))))).s22031222; /*@keep*/
    l2[lid * 4 + 0] = as_char4(as_uchar4(((char4)(((char)53), ((char)0), ((char)126), ((char)7)))) + as_uchar4(as_char4(((uchar4)((uchar)(in[(gid + 19u) & 63]))) && (((uchar4)((uchar)(in[(gid + 33u) & 63]))) ^ ((uchar4)(0, 37, 74, 111)))))); /*@keep*/
    l2[lid * 4 + 1] = ((char4)((char)52)); /*@keep*/
    l2[lid * 4 + 2] = ((char4)(~as_char4(((uchar4)((uchar)0)) && (((uchar4)((uchar)(ctab[(((ulong)out[ob + 1 + (uint)(((int)0x80000000u)) % 3u])) & 15]))) ^ ((uchar4)(0, 37, 74, 111)))))); /*@keep*/
    l2[lid * 4 + 3] = rem_char4(shuffle(((char16)(((char)219), ((char)127), ((char)127), ((char)1), ((char)1), ((char)127), ((char)0), ((char)0), ((char)36), ((char)199), ((char)1), ((char)128), ((char)128), ((char)5), ((char)128), ((char)126))), ((uchar4)(((uchar)7), ((uchar)255), ((uchar)126), ((uchar)127)))), ((char4)((char)((ulong)lid)))); /*@keep*/
    S1 a3[4] = { { { 0, 0, 0, 0, ((uchar4)((uchar)126)), (((uchar8)((uchar)(in[(gid + 23u) & 63])))).even, 0, as_uchar4(((int)119)) }, 0, { { 0, 0, ((uint)96) }, { convert_short(((int)(ulong)gid)), 0, ((uint)(ulong)gid) } }, 0 }, { { 0, 0, 0, 0, 0, 0, 0, 0 }, ((char)(ulong)lid), { { 0, ((short)in[(gid + 58u) & 63]), ((uint)ctab[(((int)0x7fffffffu)) & 15]) }, { ((short)in[(gid + 49u) & 63]), ((short)195), ((uint)0xfffffefcu) } }, ((uchar)(ulong)gid) }, { { ((uchar4)((uchar)127)), ((uchar4)((uchar)190)), 0, 0, 0, 0, 0, ((uchar4)((uchar)129)) }, ((char)126), { { 0, ((short)0), ((uint)135) }, { ((short)0x7fffu), ((short)248), ((uint)(ulong)lid) } }, ((uchar)(ulong)get_group_id(0)) }, { { ((uchar4)((uchar)((ulong)lid))), 0, 0, 0, 0, 0, 0, ((uchar4)((uchar)51)) }, ((char)126), { { 0, ((short)(ulong)gid), ((uint)0xe9e4a00fu) }, { ((short)41), ((short)0x1d81u), ((uint)(ulong)lid) } }, ((uchar)in[(((char)(ulong)gid)) & 63]) } };
    ulong16 v4 = clampx_ulong16(((ulong16)(((((long16)((long)((ulong)get_group_id(0))))) ? ((ulong16)(((ulong)0x7fffffffffffffffUL), ((ulong)0x7fffffffffffffffUL), ((ulong)0x7ffffffffffffffeUL), ((ulong)0x7ffffffffffffffeUL), ((ulong)0), ((ulong)0), ((ulong)165), ((ulong)0x8000000000000000UL), ((ulong)0xffffffffffffffa6UL), ((ulong)0x7fffffffffffffffUL), ((ulong)0xa80a9cf8ddd9c076UL), ((ulong)0x8000000000000001UL), ((ulong)0x7fffffffffffffffUL), ((ulong)286), ((ulong)0x8000000000000000UL), ((ulong)0x8000000000000001UL))) : (((ulong16)((ulong)(out[ob + 1 + (uint)(((ulong)in[(gid + 16u) & 63])) % 3u]))) ^ ((ulong16)(0, 37, 74, 111, 20, 57, 94, 3, 40, 77, 114, 23, 60, 97, 6, 43)))) | as_ulong16(((ulong16)((ulong)0x7ffffffffffffffeUL))))), ((ulong16)(((((ulong2)((ulong)((ulong)gid))) ^ ((ulong2)(0, 37)))).s0100000000100011 | ((ulong16)((ulong)98)))), ((ulong16)((ulong)4)));
    ulong2 v6 = (((ulong3)((ulong)((ulong)lid)))).xy;
    char4 v7 = as_char4(as_char4(((((short2)((short)((ulong)gid)))) ? (((short2)((short)(in[(((ushort)out[ob + 1 + (uint)(((ushort)0x8001u)) % 3u])) & 63]))) ^ ((short2)(0, 37))) : (((short2)((short)((ulong)lid))) ^ ((short2)(0, 37))))) > (convert_char3_sat(((uint3)((uint)((ulong)gid))))).s0111);
    for (int i8 = 3; i8 > 0; i8--) {
        uint w9 = 0;
        do {
            uint w10 = 0;
            do {
                l1[lid * 2 + ((a3[(a3[(((ushort)out[ob + 1 + (uint)(((uchar)in[(gid + 16u) & 63])) % 3u])) & 3].f2[(((int)(((int)0x80000001u) ^ ((int)(ulong)gid)))) & 1].f1) & 3].f2[(((ushort)((((long)out[ob + 1 + (uint)(((uint)ctab[(((char)(ulong)gid)) & 15])) % 3u])) ? ((ushort)0xffffu) : ((ushort)0)))) & 1].f1) & 1)] = as_uint8(convert_short16(as_long16(as_ulong16(((long16)((long)(in[(gid + 62u) & 63])))) + as_ulong16(((long16)(((long)1), ((long)161), ((long)103), ((long)-1), ((long)-155), ((long)0xedf2008c95aa1505UL), ((long)-247), ((long)-1), ((long)1), ((long)0xc38aa6c26bf4026bUL), ((long)299), ((long)0), ((long)-32), ((long)176), ((long)196), ((long)1)))))));
                if (rem_int(convert_int_sat(((uchar)(ulong)get_group_id(0))), ctz(((int)0x7ffffffeu)))) break;
                int v11 = as_int(((uint)0x80000001u));
                out[ob + 2] = (ulong)(((long)(((long)(!(((uchar2)(((uchar)1), ((uchar)12)))).y)) << upsample(((ushort)(~((ushort)ctab[(v11) & 15]))), convert_ushort_sat(((ushort)0x7fffu))))));
                h = mix(h, (ulong)(v11));
            } while (++w10 < 3u);
            uint8 v12 = ((((uint8)(((uint)251), ((uint)295), ((uint)6), ((uint)0xffffffb0u), ((uint)147), ((uint)44), ((uint)3), ((uint)1)))).s21242750 + convert_uint_sat_rtp(((uchar)((uint)(((uchar)in[(((int)ctab[(((ulong)out[ob + 1 + (uint)(((int)0)) % 3u])) & 15])) & 63])) * (uint)(((uchar)in[(gid + 22u) & 63]))))));
        } while (++w9 < 5u);
    }
    h = hash_uint8(h, l1[lid * 2 + 1]);
    out[ob] = h;
}
