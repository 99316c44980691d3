// @ferrocl-fuzz global=64 local=16 slots=4 options=-cl-std=CL3.0
// @input 0xffffffffffffffea,0x8000000000000001,0x1,0xffffffffffffffff,0x59,0xb6,0xe5b0abe4a0fd0b8a,0xffffffffffffffd5,0xe6,0x8000000000000001,0x1,0xffffffffffffff97,0x8000000000000000,0x0,0xffffffffffffffff,0x7fffffffffffffff,0x59ef7ae06a969caf,0x8000000000000001,0x7ffffffffffffffe,0x0,0x0,0xffffffffffffffff,0x0,0x8000000000000001,0x7fffffffffffffff,0xffffffffffffffab,0xffffffffffffff28,0x8000000000000000,0xf9,0x7,0xffffffffffffffff,0x32,0xffffffffffffffff,0x5,0x7fffffffffffffff,0xffffffffffffffff,0x996dc22841be5e53,0x3,0x1,0x9ef60110c15b37c0,0x7ffffffffffffffe,0xbf,0x8f6c84e7531cc3da,0xffffffffffffffc4,0x0,0xffffffffffffff6b,0x1,0xffffffffffffffff,0xa4,0x8000000000000000,0x8000000000000001,0xff,0x50,0xffffffffffffffff,0x8000000000000001,0xb80d40e751700fd0,0x8000000000000000,0x8000000000000001,0x0,0x8000000000000001,0x8000000000000001,0x7ffffffffffffffe,0x8000000000000001,0x1
// @kernel k1 arg=0xffffffffffffffff base=256
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
typedef struct { ulong f0; short f1; } S0;
ulong hash_ulong4(ulong h, ulong4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
kernel void k1(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 256u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
                ulong4 v16 = ((as_ulong4(((long4)((long)((ulong)get_group_id(0)))) && ((long4)((long)0x8000000000000000UL)))) << ((ulong4)(((ulong)159))));
                h = hash_ulong4(h, v16);
    out[ob] = h;
}
