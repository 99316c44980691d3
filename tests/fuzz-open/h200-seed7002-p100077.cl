// @ferrocl-fuzz global=128 local=32 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000000,0x8000000000000000,0x1,0x0,0x1,0x7ffffffffffffffe,0x89,0x7fffffffffffffff,0x7ffffffffffffffe,0x8000000000000001,0x7,0x8000000000000001,0x0,0x1,0x7b,0x7ffffffffffffffe,0x7,0xfffffffffffffff9,0xc679ae1c0bf4db44,0x1,0x7ffffffffffffffe,0x8000000000000000,0xffffffffffffffff,0x8000000000000000,0x8000000000000000,0xd6deec8c4a034561,0x7fffffffffffffff,0xc3e39c1bf3b337b,0x0,0x12b,0x6,0xfffffffffffffff6,0x8000000000000001,0xb7,0x7,0xffffffffffffffff,0x8000000000000000,0x98,0x1,0x9b0edc16efc14efc,0x2,0xead856d4d328d305,0x537747bc192d591d,0x1,0x7ffffffffffffffe,0x8000000000000000,0x0,0x1,0x7,0x1,0x0,0x7fffffffffffffff,0xa7,0x8000000000000000,0xfd,0x7ffffffffffffffe,0x1,0xfffffffffffffeef,0x0,0x2,0x7fffffffffffffff,0x106,0x1,0x6
// @kernel k0 arg=0x7fffffffffffffff base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x8000000000000001UL, 0xedUL, 0x1UL, 0x0UL, 0x3UL, 0x2UL, 0x7fffffffffffffffUL, 0x0UL, 0x7fffffffffffffffUL, 0x6UL, 0x0UL, 0x5UL, 0xffffffffffffff52UL, 0x2aac53cb5bcd6427UL, 0x8000000000000001UL, 0xffffffffffffff41UL};
typedef struct { uchar f0; int16 f1; char f2; uchar16 f3; int f4[2]; } S0;
char div_char(char a, char b) { return (b == (char)0 || (a == (char)((char)-128) && b == (char)-1)) ? a : (char)(a / b); }
uchar4 div_uchar4(uchar4 a, uchar4 b) { return a / select(b, (uchar4)(1), b == (uchar4)(0)); }
short2 div_short2(short2 a, short2 b) { return a / select(b, (short2)(1), (b == (short2)(0)) | ((a == (short2)(((short)-32768))) & (b == (short2)(-1)))); }
int div_int(int a, int b) { return (b == (int)0 || (a == (int)(-2147483647 - 1) && b == (int)-1)) ? a : (int)(a / b); }
char rem_char(char a, char b) { return (b == (char)0 || (a == (char)((char)-128) && b == (char)-1)) ? a : (char)(a % b); }
short rem_short(short a, short b) { return (b == (short)0 || (a == (short)((short)-32768) && b == (short)-1)) ? a : (short)(a % b); }
int4 rem_int4(int4 a, int4 b) { return a % select(b, (int4)(1), (b == (int4)(0)) | ((a == (int4)((-2147483647 - 1))) & (b == (int4)(-1)))); }
char clampx_char(char x, char a, char b) { return clamp(x, min(a, b), max(a, b)); }
ulong hash_char2(ulong h, char2 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); return h; }
ulong hash_uchar16(ulong h, uchar16 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); h = mix(h, (ulong)v.s8); h = mix(h, (ulong)v.s9); h = mix(h, (ulong)v.sa); h = mix(h, (ulong)v.sb); h = mix(h, (ulong)v.sc); h = mix(h, (ulong)v.sd); h = mix(h, (ulong)v.se); h = mix(h, (ulong)v.sf); return h; }
ulong hash_short2(ulong h, short2 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); return h; }
ulong hash_int4(ulong h, int4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_int16(ulong h, int16 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); h = mix(h, (ulong)v.s8); h = mix(h, (ulong)v.s9); h = mix(h, (ulong)v.sa); h = mix(h, (ulong)v.sb); h = mix(h, (ulong)v.sc); h = mix(h, (ulong)v.sd); h = mix(h, (ulong)v.se); h = mix(h, (ulong)v.sf); return h; }
ulong hash_uint4(ulong h, uint4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_ulong4(ulong h, ulong4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_S0(ulong h, S0 v) {
    h = ((ulong)(v.f2));
    for (uint j1 = 0; j1 < 2u; j1++) {
    }
    return h;
}
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local char2 l1[128];
    l1[lid * 4 + 0] = (((char2)((char)(in[(((ushort)0x7ffeu)) & 63]))) ^ ((char2)(0, 37))); /*@keep*/
    l1[lid * 4 + 1] = (convert_char2_sat(((uint2)(((uint)0x80000000u), ((uint)135))))).xx; /*@keep*/
    l1[lid * 4 + 2] = as_char2(((((uchar3)((uchar)(in[(gid + 42u) & 63]))) ^ ((uchar3)(0, 37, 74)))).xx != (((uchar2)((uchar)(out[ob + 1 + (uint)(((uchar)in[(gid + 51u) & 63])) % 3u]))) ^ ((uchar2)(0, 37)))); /*@keep*/
    l1[lid * 4 + 3] = max(((char2)((char)(in[(gid + 39u) & 63]))), convert_char2_sat(((uchar2)((uchar)(in[(((ushort)in[(((long)(ulong)get_group_id(0))) & 63])) & 63]))))); /*@keep*/
    ulong4 v2 = (((((long4)((long)(in[(gid + 2u) & 63]))) ^ ((long4)(0, 37, 74, 111)))) ? (((ulong4)((ulong)((ulong)get_group_id(0)))) - ((ulong)0xcf0d463b8df42abaUL)) : ((ulong4)(((ulong)0xffffffffffffffd7UL), ((ulong)1), ((ulong)0x8000000000000000UL), ((ulong)19))));
    S0 s3 = { ((uchar)(((ushort)0xffffu) || ((uchar)out[ob + 1 + (uint)(((ushort)in[(((short)in[(((uint)1)) & 63])) & 63])) % 3u]))), as_int16((((int16)((int)((ulong)get_group_id(0)))) ^ ((int16)(0, 37, 74, 111, 20, 57, 94, 3, 40, 77, 114, 23, 60, 97, 6, 43)))), select(((char)129), ((char)ctab[(((short)ctab[(((long)-199)) & 15])) & 15]), ((uchar)126)), ((uchar16)(~((uchar16)((uchar)(out[ob + 1 + (uint)(((short)out[ob + 1 + (uint)(((uchar)in[(gid + 1u) & 63])) % 3u])) % 3u]))))), { div_int(((int)(ulong)arg), ((int)0)), div_int(((int)(ulong)arg), ((int)in[(gid + 7u) & 63])) } };
    int4 v4 = upsample((((short4)((short)(in[(gid + 25u) & 63]))) ^ ((short4)(0, 37, 74, 111))), as_ushort4(as_short4(-as_ushort4(((short4)((short)-145)))) <= ((short4)(((short)0), ((short)-1), ((short)0x7fffu), ((short)1)))));
    s3.f2 = ((char)((uint)(((char)((uint)(((char)((uint)(popcount(((char)0))) + (uint)(((char)((((long)in[(((short)0x8000u)) & 63])) ? s3.f2 : s3.f2)))))) + (uint)(((char)(((long)((ulong)(((long)0)) * (ulong)(((long)0x7fffffffffffffffUL)))) >= ((long)0x7ffffffffffffffeUL))))))) * (uint)(div_char(((char)(s3.f2 << upsample(((ushort)in[(((ulong)in[(((char)in[(((long)out[ob + 1 + (uint)(((ulong)ctab[(((char)ctab[(s3.f4[(((ushort)(ulong)get_group_id(0))) & 1]) & 15])) & 15])) % 3u])) & 63])) & 63])) & 63]), ((ushort)in[(gid + 15u) & 63])))), (l1[lid * 4 + ((((int)in[(((uint)0x80000001u)) & 63])) & 3)]).lo))));
    if (((long)0)) {
        switch ((((int)(~((int)((uint)(s3.f4[1]) * (uint)(s3.f4[(((ushort)(ulong)gid)) & 1])))))) & 7) {
        }
    } else {
        ushort v15 = ((ushort)((uint)(abs((short)((((short)(((short)(ulong)get_group_id(0)) ^ ((short)(ulong)gid)))) >> 1))) + (uint)(((ushort)((uint)(((ushort)in[(((ushort)in[(gid + 27u) & 63])) & 63])) - (uint)(((ushort)any(((long)in[(((ulong)0)) & 63])))))))));
            uint4 a17[8] = { (((uint4)((uint)(in[(gid + 58u) & 63]))) ^ ((uint4)(0, 37, 74, 111))), ((uint4)((uint)((ulong)gid))), clz((((uint4)((uint)((ulong)lid))) ^ ((uint4)(0, 37, 74, 111)))), convert_uint4_sat(((char4)((char)(in[(v15) & 63])))), ((uint4)(((uint)0xffffff1cu), ((uint)0), ((uint)15), ((uint)0x7ffffffeu))), ((uint4)((uint)(in[(((uint)0x7fffffffu)) & 63]))), ((uint4)((uint)(in[(((char)out[ob + 1 + (uint)(((uint)1)) % 3u])) & 63]))), ((uint4)((uint)1)) };
            short2 v18 = rotate(div_short2(convert_short2(((short2)(((short)0x7fffu), ((short)0x7fffu)))), ((short2)(((short)0), ((short)0x8000u)))), (((short2)((short)((ulong)get_group_id(0)))) ^ ((short2)(0, 37))));
            for (uint j19 = 0; j19 < 8u; j19++) {
            }
    }
    h = hash_S0(h, s3);
    out[ob] = h;
}
