// @ferrocl-fuzz global=64 local=16 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000001,0x7ffffffffffffffe,0x7ffffffffffffffe,0x4924eb26fa5631a1,0x5,0x40a6d7588d27b3ff,0xffffffffffffff4c,0xffffffffffffff5f,0xffffffffffffffff,0x4d,0x0,0x11,0x8000000000000000,0xffffffffffffffff,0x1,0xffffffffffffffff,0xffffffffffffffff,0x1,0x8000000000000001,0x7ffffffffffffffe,0x112,0x0,0x0,0x7ffffffffffffffe,0x7ffffffffffffffe,0xffffffffffffff4b,0x7ffffffffffffffe,0x739ab319163cdfa5,0x4,0x7fffffffffffffff,0x3a,0xb1,0x0,0x95098b24f9d72447,0xabb6c0578d479691,0x8000000000000001,0x7fffffffffffffff,0x0,0x1,0xffffffffffffff8d,0x7fffffffffffffff,0x1,0x7,0x1,0x6275029b1794589b,0x7fffffffffffffff,0xffffffffffffff90,0x7ffffffffffffffe,0xdd,0x6,0x1,0x7fffffffffffffff,0x8000000000000001,0x7ffffffffffffffe,0x4,0x0,0x7fffffffffffffff,0x0,0x3,0x8000000000000000,0x89,0x8000000000000001,0xaf08bd42fc978339,0x3
// @kernel k13 arg=0x64 base=3328
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
typedef struct { uint2 f0[2]; uint4 f1; uint f2[8]; uint f3; short2 f4; } S2;
ulong hash_uint4(ulong h, uint4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
kernel void k13(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 3328u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    S2 s2 = { { 0, 0 }, 0, { 0, 0, 0, 0, (((uint2)0)).s1, 0, 0, 0 }, 0, 0 };
    S2 s3 = { { s2.f0[0 & 1], 0 }, s2.f1, { s2.f3, s2.f2[0 & 7], s2.f2[0 & 7], s2.f2[5], 0, s2.f2[0 & 7], 0, s2.f2[0 & 7] }, s2.f3, 0 };
    uint4 v4 = 0;
        uint w5 = 0;
        while (w5++ < 5u) {
                if (ctz(((ulong)(ulong)w5))) break;
            if (((char)((uint)(((char)((uint)(((char)in[(((uchar)in[(((ushort)in[0 & 63])) & 63])) & 63])) - (uint)(((char)in[(gid) & 63]))))) - (uint)(((char)all(0)))))) {
            } else {
                if (((char)(((char)99) << rhadd(((ushort)(ulong)w5), ((ushort)(ulong)w5))))) break;
            }
        }
        for (uint i13 = 0; i13 < 5u; i13++) {
            switch ((((int)((uint)(((int)any(0)))))) & 7) {
                case 5: {
                    v4.s0 = (-rhadd(s2.f3, ((uint)0)));
                }
                case 4: {
                    S2 s16 = { { 0, 0 }, 0, { 0, 0, s3.f3, s3.f2[1], s2.f2[0 & 7], 0, s2.f2[1], 0 }, i13, s3.f4 };
                }
            }
        }
        h = ((ulong)(w5));
    h = hash_uint4(h, v4);
    out[ob] = h;
}
