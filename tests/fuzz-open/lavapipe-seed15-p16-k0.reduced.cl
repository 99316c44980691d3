// @ferrocl-fuzz global=64 local=16 slots=4 options=-cl-std=CL3.0
// @input 0xffffffffffffffff,0x7ffffffffffffffe,0x8000000000000001,0xacde8084fda535ac,0xffffffffffffffeb,0x8000000000000001,0xffffffffffffffd4,0x0,0x8000000000000000,0x7ffffffffffffffe,0xf7,0x0,0x52d18c2c069b056d,0x11b,0x0,0xffffffffffffffa2,0xb517d92618e2a630,0x8000000000000000,0xffffffffffffffff,0x8000000000000000,0x8000000000000001,0xffffffffffffff35,0x4,0x7ffffffffffffffe,0x7fffffffffffffff,0xffffffffffffffff,0x13,0x84,0x76,0x11c,0xffffffffffffffff,0x40,0xffffffffffffffff,0x5,0x9f,0x0,0xa1,0x107,0x122,0x8000000000000001,0xb0a7f6906faef8e5,0x7ffffffffffffffe,0xa6,0x7,0x0,0x8000000000000000,0x7ffffffffffffffe,0x1f22a59478077bdf,0xf,0x2,0xffffffffffffff55,0xffffffffffffffff,0x118,0xffffffffffffff01,0xa50c0bb3e8d18483,0x0,0x0,0x7ffffffffffffffe,0x0,0x0,0x7ffffffffffffffe,0x7fffffffffffffff,0xd0,0x61
// @kernel k0 arg=0xffffffffffffffff base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x1UL, 0x8000000000000001UL, 0x8000000000000001UL, 0x1UL, 0xffffffffffffff2bUL, 0x7fffffffffffffffUL, 0xffffffffffffffe3UL, 0x0UL, 0x5ce1de41de2a68aUL, 0x1UL, 0x5eUL, 0x7fffffffffffffffUL, 0x0UL, 0x102UL, 0x7ffffffffffffffeUL, 0x8000000000000000UL};
uint div_uint(uint a, uint b) { return (b == (uint)0) ? a : (uint)(a / b); }
ulong hash_char4(ulong h, char4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_uchar3(ulong h, uchar3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_int2(ulong h, int2 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); return h; }
ushort f3(uint p0, uint p1, ushort p2) {
    return (((short16)0)).s4;
}
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    int2 v1 = ((int2)((int)(in[0 & 63])));
    uint v2 = 0;
    uint w3 = 0;
    do {
        v1 = (clz((v1)));
        if (((((char)in[0 & 63])))) {
            if (bitselect(((char)all(((char)in[(gid) & 63]))), ((char)(((char)(ulong)get_group_id(0)))), ((char)0))) {
                uchar3 v4 = 0;
            } else {
                char4 v5 = (as_char4(as_uchar4((as_uchar4(((char4)((char)(in[(((long)268)) & 63])))) + (uchar)0)) + as_uchar4(((char4)(((char4)(((char)126), ((char)199), ((char)129), ((char)128))))))));
                if (((long)(ulong)w3)) break;
                h = hash_char4(h, v5);
            }
        }
    } while (++w3 < 3u);
    h = hash_int2(h, v1);
    out[ob] = h;
}
