// @ferrocl-fuzz global=256 local=16 slots=4 options=-cl-std=CL3.0
// @input 0x48,0x2,0xffffffffffffffff,0x7fffffffffffffff,0x7ffffffffffffffe,0x7,0x6,0x7fffffffffffffff,0x46,0xffffffffffffffff,0xd9,0xac,0x6af0e98ebe623e2f,0x8000000000000000,0x8000000000000001,0xf1,0xffffffffffffff01,0xd8,0xffffffffffffff9d,0x7fffffffffffffff,0x7fffffffffffffff,0x0,0x122,0x1,0x0,0x8000000000000001,0x0,0xffffffffffffffff,0xffffffffffffff8b,0x0,0xffffffffffffffff,0x8000000000000001,0xffffffffffffffff,0x3,0x1,0x7,0x1,0x8000000000000000,0x8000000000000001,0x7fffffffffffffff,0xffffffffffffffff,0x0,0xffffffffffffffb1,0x8000000000000000,0xffffffffffffffff,0x7ffffffffffffffe,0xb3,0x8000000000000001,0x7fffffffffffffff,0x8000000000000000,0xffffffffffffffff,0x0,0xfabb6dbdf2920176,0x7fffffffffffffff,0x8000000000000000,0x101,0x2f,0x7fffffffffffffff,0x1,0x2a,0x1,0x0,0xa1,0xfffffffffffffeec
// @kernel k0 arg=0xffffffffffffffbe base=0
// @kernel k1 arg=0x7fffffffffffffff base=1024
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x7fffffffffffffffUL, 0x1UL, 0xffffffffffffff68UL, 0x0UL, 0x8aUL, 0x7ffffffffffffffeUL, 0x7fffffffffffffffUL, 0xffffffffffffff1bUL, 0x8000000000000001UL, 0xffffffffffffff35UL, 0xfffffffffffffeeeUL, 0x6UL, 0x7fffffffffffffffUL, 0xffffffffffffffffUL, 0x91UL, 0x8000000000000000UL};
typedef struct { uint f0; uint f1[4]; short4 f2; } S0;
char2 div_char2(char2 a, char2 b) { return a / select(b, (char2)(1), (b == (char2)(0)) | ((a == (char2)(((char)-128))) & (b == (char2)(-1)))); }
ulong hash_S0(ulong h, S0 v) {
    for (uint j1 = 0; j1 < 4u; j1++) {
        h = mix(h, (ulong)(v.f1[j1]));
    }
    return h;
}
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local short2 l1[32];
    local ushort l2[32];
    l1[lid * 2 + 0] = convert_short2_rtz(((int2)((((int2)((int)((ulong)get_group_id(0)))) ^ ((int2)(0, 37)))))); /*@keep*/
    l1[lid * 2 + 1] = ((short2)((short)((ulong)arg))); /*@keep*/
    l2[lid * 2 + 0] = ((ushort)in[(((int)(ulong)lid)) & 63]); /*@keep*/
    l2[lid * 2 + 1] = ((ushort)((uint)(((ushort)out[ob + 1 + (uint)(((int)in[(((char)129)) & 63])) % 3u])) + (uint)(((((ushort3)((ushort)(in[(gid + 49u) & 63]))) ^ ((ushort3)(0, 37, 74)))).s1))); /*@keep*/
    uint v5 = ((((uint)0x7ffffffeu)));
    S0 a9[4] = { { 0, { 0, 0, 0, ((((uint8)0))).s0 }, 0 }, { 0, { v5, v5, v5, 0 }, 0 }, { v5, { v5, v5, v5, v5 }, 0 }, { v5, { v5, v5, v5, v5 }, 0 } };
    S0 s13 = { (((uint)in[(gid + 56u) & 63]) + ((uint)(ulong)get_group_id(0))), { ((uint)(((uint)in[(gid + 32u) & 63]))), ((uint)0x7fffffffu), ((uint)(ulong)arg), v5 }, a9[(((uint)0x7ffffffeu)) & 3].f2 };
    int v14 = ((int)(((long)(((long)ctab[(((short)ctab[(((short)ctab[(((long)in[(gid + 22u) & 63])) & 15])) & 15])) & 15]) >> ((short)((uint)(((short)101)) * (uint)(((short)3)))))) > ((long)((((uint)((int)1))) ? convert_long_rtn(((short)(ulong)gid)) : ((long)(((long)1) & ((long)in[(gid + 36u) & 63])))))));
    for (uchar i15 = 0; i15 != 5; i15++) {
        S0 a16[4] = { { (-s13.f1[3]), { (-s13.f1[1]), ((uint)(((uint)in[(gid + 24u) & 63]) & v5)), ((uint)((l2[lid * 2 + ((v14) & 1)]) ? v5 : s13.f0)), ((uint)in[(gid + 59u) & 63]) }, (((short8)(((short)2), ((short)0), ((short)173), ((short)0x7fffu), ((short)173), ((short)0x5162u), ((short)0x8c39u), ((short)899)))).s7447 }, { ((uint)(((uint)0x7ffffffeu) & v5)), { ((uint)0x80000000u), ((uint)(s13.f1[(a9[(((long)0x7ffffffffffffffeUL)) & 3].f0) & 3] >> ((int)out[ob + 1 + (uint)(((uint)out[ob + 1 + (uint)(((ushort)4)) % 3u])) % 3u]))), s13.f0, ((uint)in[(gid + 12u) & 63]) }, s13.f2 }, { a9[0].f1[(i15) & 3], { ((uint)0xffffffadu), s13.f0, a9[1].f1[(((ushort)0xffffu)) & 3], ((uint)0xffffffffu) }, ((short4)(((short)0x6ee8u), ((short)0x8001u), ((short)1), ((short)0x8bc4u))) }, { a9[(((long)in[(((char)(ulong)gid)) & 63])) & 3].f0, { a9[(((char)127)) & 3].f1[1], ((uint)15), s13.f1[(((ulong)0)) & 3], ((uint)(ulong)gid) }, a9[(((int)-295)) & 3].f2 } };
        v14 = ((int)(((char)((uint)((as_char16(as_uchar16(((char16)((char)((ulong)lid)))) + as_uchar16((((char16)((char)(ctab[(((ulong)6)) & 15]))) ^ ((char16)(0, 37, 74, 111, 20, 57, 94, 3, 40, 77, 114, 23, 60, 97, 6, 43)))))).sb) - (uint)(((char)(((char)((uint)(((char)in[(((long)in[(gid + 52u) & 63])) & 63])) * (uint)(((char)in[(gid + 31u) & 63])))) | ((char)181)))))) < ((char)((((char8)((char)((ulong)get_group_id(0))))).s3 >> ((long)in[(((char)255)) & 63])))));
        uint w17 = 0;
        for (uint j19 = 0; j19 < 4u; j19++) {
            h = hash_S0(h, a16[j19]);
        }
        h = mix(h, (ulong)(w17));
    }
    out[ob] = h;
}
