// @ferrocl-fuzz global=128 local=64 slots=4 options=-cl-std=CL3.0
// @input 0x7fffffffffffffff,0x0,0xffffffffffffffb2,0xffffffffffffff09,0xf5ddd1e489e29fa7,0x7fffffffffffffff,0x1,0xffffffffffffffff,0x0,0xd5229cb3834e7fdc,0xf4,0x7fffffffffffffff,0xffffffffffffffff,0x0,0x7ffffffffffffffe,0x8000000000000001,0x7ffffffffffffffe,0xffffffffffffffff,0x2,0x32,0x0,0x8000000000000001,0x7fffffffffffffff,0xffffffffffffffff,0x7ffffffffffffffe,0x8000000000000001,0x8000000000000000,0x19f76bcf000c9f76,0x7fffffffffffffff,0x102,0xffffffffffffffff,0x7fffffffffffffff,0xffffffffffffffff,0x77,0x7d7977e57b906e89,0x8000000000000000,0xffffffffffffffff,0xc5,0xcfa92ffe70b77a66,0x7ffffffffffffffe,0x8000000000000000,0x1,0x7fffffffffffffff,0x7ffffffffffffffe,0x81,0x1,0x7ffffffffffffffe,0xa7e65218171cee75,0x3,0x1b,0xc6,0x8000000000000001,0x8000000000000000,0x5ff33422011292a5,0x1,0x0,0xe8,0xffffffffffffffff,0x0,0xb1,0x7ffffffffffffffe,0x8000000000000001,0x1,0xea
// @kernel k1 arg=0x1 base=512
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x1UL, 0xe6UL, 0x6594757bbee8288dUL, 0x1UL, 0x7ffffffffffffffeUL, 0x2UL, 0xc6afc71452c484ffUL, 0x8000000000000001UL, 0x6UL, 0x70UL, 0x8000000000000000UL, 0xeaUL, 0x73c922505acd880UL, 0x77UL, 0xffffffffffffffffUL, 0xffffffffffffffffUL};
typedef struct { uchar8 f0; int4 f1; ulong4 f2; long16 f3; int4 f4[2]; } S0;
uchar2 rem_uchar2(uchar2 a, uchar2 b) { return a % select(b, (uchar2)(1), b == (uchar2)(0)); }
long16 rem_long16(long16 a, long16 b) { return a % select(b, (long16)(1), (b == (long16)(0)) | ((a == (long16)((-9223372036854775807L - 1L))) & (b == (long16)(-1)))); }
ulong hash_long4(ulong h, long4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
kernel void k1(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 512u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local ulong4 l1[256];
    l1[lid * 4 + 0] = as_ulong4(rhadd((((ulong4)((ulong)(in[(gid + 59u) & 63]))) ^ ((ulong4)(0, 37, 74, 111))), ((ulong4)((ulong)((ulong)gid)))) < (((ulong2)(((ulong)0), ((ulong)4)))).s0111); /*@keep*/
    l1[lid * 4 + 1] = as_ulong4(convert_ulong4(((ushort4)(((ushort)0xcc59u), ((ushort)0), ((ushort)6), ((ushort)0xffffu)))) > ((ulong4)(((ulong)0x7ffffffffffffffeUL), ((ulong)0x7ffffffffffffffeUL), ((ulong)0xffffffffffffffffUL), ((ulong)0)))); /*@keep*/
    l1[lid * 4 + 2] = upsample(convert_uint4(((ushort4)((ushort)(out[ob + 1 + (uint)(((short)-242)) % 3u])))), ctz(((uint4)(((uint)0x2fe0b009u), ((uint)1), ((uint)1), ((uint)0x7ffffffeu))))); /*@keep*/
    l1[lid * 4 + 3] = (((ulong4)((ulong)(in[(((char)in[(gid + 41u) & 63])) & 63]))) ^ ((ulong4)(0, 37, 74, 111))); /*@keep*/
    char v2 = 0;
    ulong4 v3 = 0;
    short v4 = 0;
    S0 s5 = { 0, (((int4)((int)6))).s2130, 0, rem_long16(((long16)((long)(in[0 & 63]))), ((long16)(((long)56), 0, ((long)6), ((long)-1), 0, ((long)0), ((long)0), ((long)-1), 0, 0, ((long)6), 0, 0, 0, 0, ((long)0x65b6851516b2aa74UL)))), { 0, 0 } };
    uint4 v6 = ((uint4)((((uint4)(((uint)0x80000000u), ((uint)238), ((uint)0), ((uint)0x7ffffffeu))) * ((uint4)((uint)(in[(gid + 52u) & 63])))) ^ ((uint4)(((uint)4), ((uint)0xffffffaeu), ((uint)1), ((uint)10)))));
    long4 v7 = ((long4)(((long4)(~(s5.f3).s365f)) & ((long4)((((long4)((long)0x7ffffffffffffffeUL)) << ((long4)(((long)0x6e76bc7c1eb29d88UL), ((long)0x8000000000000000UL), ((long)0x7fffffffffffffffUL), ((long)1)))) & rhadd(((long4)((long)((ulong)gid))), (((long4)((long)((ulong)gid))) ^ ((long4)(0, 37, 74, 111))))))));
    S0 s8 = { hadd(s5.f0, (((uchar8)((uchar)(in[(((uint)(ulong)lid)) & 63]))) ^ ((uchar8)(0, 37, 74, 111, 20, 57, 94, 3)))), ((v6) ? s5.f4[(((ulong)ctab[(((int)0x441daa7u)) & 15])) & 1] : s5.f4[(((uchar)out[ob + 1 + (uint)(((short)in[(((long)(ulong)get_group_id(0))) & 63])) % 3u])) & 1]), v3, s5.f3, { s5.f1, (((int4)((int)(in[(((long)out[ob + 1 + (uint)(((long)in[(gid + 58u) & 63])) % 3u])) & 63]))) ^ ((int4)(0, 37, 74, 111))) } };
    h = hash_long4(h, v7);
    out[ob] = h;
}
