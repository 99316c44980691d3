// @ferrocl-fuzz global=256 local=16 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000000,0x0,0x8000000000000001,0x8000000000000000,0x822a97af6c2029c2,0x7ffffffffffffffe,0x1,0x77,0x0,0xffffffffffffffff,0x1,0x76,0x0,0x8000000000000001,0x8000000000000001,0x4c8cece39fc77d7f,0x8000000000000001,0xffffffffffffffff,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffffe0,0xffffffffffffffff,0x0,0x5b,0x4,0x8000000000000000,0x1,0x7ffffffffffffffe,0x7ffffffffffffffe,0xe8bffcc8c74d74be,0x439f5088a7ca2e06,0x30,0x61,0x7fffffffffffffff,0x0,0x7ffffffffffffffe,0x7ffffffffffffffe,0x39,0xdc,0x8000000000000001,0x7fffffffffffffff,0x1,0x8000000000000000,0x59,0x8000000000000000,0x8000000000000001,0x9d71f292581879a4,0x0,0xffffffffffffffff,0x8000000000000000,0xe8,0x78cc8a31ea515fac,0x62,0x50,0x8000000000000000,0x8000000000000001,0x6,0x7ffffffffffffffe,0x29,0x7,0xffffffffffffffff,0xc7540e2e63400efc,0x8000000000000001,0x7fffffffffffffff
// @kernel k0 arg=0x28 base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x8000000000000000UL, 0xa3UL, 0x8000000000000000UL, 0xe949af39db68d12aUL, 0xb6UL, 0xffffffffffffffffUL, 0x7fffffffffffffffUL, 0xffffffffffffffffUL, 0x8000000000000000UL, 0x7ffffffffffffffeUL, 0x2UL, 0xdfa41d0938343e0fUL, 0x5UL, 0xfffffffffffffee4UL, 0x8000000000000001UL, 0x7ffffffffffffffeUL};
typedef struct { ulong4 f0; uint4 f1; uint f2; } S0;
typedef struct { S0 f0[4]; short f1[2]; char3 f2; uint4 f3; ushort3 f4; } S1;
char div_char(char a, char b) { return (b == (char)0 || (a == (char)((char)-128) && b == (char)-1)) ? a : (char)(a / b); }
ulong hash_long4(ulong h, long4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    long v1 = 0;
    long4 a2[4] = { 0, 0, 0, 0 };
    uint w6 = 0;
        for (uint i7 = 0; i7 < 00 + 1u; i7++) {
            a2[0 & 3] = as_long4((((short16)(rotate(((short16)((short)(ctab[(((ulong)ctab[(((long)(ulong)gid)) & 15])) & 15]))), ((short16)(0, ((short)-1), ((short)6), ((short)6), ((short)152), ((short)-1), ((short)0x8000u), ((short)0), ((short)-1), ((short)267), ((short)176), ((short)0x7ffeu), ((short)0), ((short)0x8001u), ((short)-1), ((short)-232))))))));
        }
    for (uint j9 = 0; j9 < 4u; j9++) {
        h = hash_long4(h, a2[j9]);
    }
    out[ob] = h;
}
