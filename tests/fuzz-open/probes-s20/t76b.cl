// @ferrocl-fuzz global=128 local=32 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000000,0x7fffffffffffffff,0xe1,0x0,0x7fffffffffffffff,0x0,0x5f19134d39250187,0x7fffffffffffffff,0xffffffffffffffff,0x21,0x7fffffffffffffff,0xffffffffffffff74,0x8000000000000001,0x3ff3391ed22b5e5b,0x7ffffffffffffffe,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffffff,0x0,0x3a1b24a81cceb290,0x3,0x1,0x0,0x4,0xe4c1ab906c2ce184,0x7ffffffffffffffe,0xda6bdd3c03c424,0xffffffffffffff91,0x1,0x8000000000000000,0x3,0x7fffffffffffffff,0x7fffffffffffffff,0x0,0x7ffffffffffffffe,0x1,0x7fffffffffffffff,0x8000000000000001,0xc0,0x1,0xffffffffffffffff,0x7f2d906bef8f456d,0x7fffffffffffffff,0xe151225cf58e9888,0x8000000000000001,0x8d,0x0,0xffffffffffffffff,0xd41e32f0693341ae,0x0,0x7ffffffffffffffe,0x5c,0x8000000000000001,0x556629e80694dc35,0x8b,0x7f,0x7ffc5bc7d1cc496b,0x8000000000000001,0xffffffffffffffff,0xce,0xfffffffffffffff6,0xbf0e54b431d3a6cb,0x10d,0x1
// @kernel k0 arg=0x8000000000000001 base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    uint4 v2 = 0;
    for (uchar i6 = 0; i6 != 5; i6++) {
        for (int i7 = 4; i7 > 0; i7--) {
            uint w12 = 0;
            while (w12++ < 3u) {
                v2 = mad_hi((uint4)(92u), upsample(-((ushort4)(37)), (ushort4)((ushort)(in[0 & 63]))), v2);
            }
        }
    }
    h = mix(h, (ulong)v2.s0); h = mix(h, (ulong)v2.s1); h = mix(h, (ulong)v2.s2); h = mix(h, (ulong)v2.s3);
    out[ob] = h;
}
