// @ferrocl-fuzz global=128 local=16 slots=4 options=-cl-std=CL3.0
// @input 0xf3e7a3a85e96468c,0x7fffffffffffffff,0x0,0x631fde36ab20d868,0x95e08234bc226ff1,0x7fffffffffffffff,0x8000000000000000,0x1,0x0,0x59,0xbed814cf931be323,0x1,0x8000000000000000,0x8000000000000000,0x7fffffffffffffff,0x7ffffffffffffffe,0x7ffffffffffffffe,0x7fffffffffffffff,0xffffffffffffff1b,0x7ffffffffffffffe,0x4,0x1,0xffffffffffffff46,0x0,0x1,0x7ffffffffffffffe,0x8000000000000000,0x7ffffffffffffffe,0x18,0x7fffffffffffffff,0x1,0x1,0x8000000000000001,0x8000000000000000,0xfffffffffffffed6,0x0,0xbcfddd17cd3c2eda,0xffffffffffffffff,0x7fffffffffffffff,0x0,0xffffffffffffffff,0xffffffffffffffff,0x0,0x8000000000000000,0x0,0x3a42801f9f12a52d,0x8000000000000001,0x30117cf0fcf6d022,0xe3,0x3e3cf17d4bb67316,0x6,0x1,0x1,0x8000000000000001,0x1,0x8000000000000000,0x8000000000000001,0xeb,0x6,0x8d,0x5d129e7fc4dcdae9,0x7,0x8000000000000001,0x7ffffffffffffffe
// @kernel k0 arg=0x1 base=0
// @kernel k1 arg=0x880c91af6f16b916 base=512
// @kernel k2 arg=0x7fffffffffffffff base=1024
// @kernel k3 arg=0x7ffffffffffffffe base=1536
typedef struct { ushort2 f0; short2 f1; char16 f2; ushort f3[8]; uint f4; } S0;
typedef struct { S0 f0[4]; uchar f1; uchar4 f2; } S1;
typedef struct { uint2 f0; ulong2 f1; ushort f2[2]; char8 f3; } S2;
uchar4 rem_uchar4(uchar4 a, uchar4 b) { return a % select(b, (uchar4)(1), b == (uchar4)(0)); }
S1 f2(S0 p0, uint* p1, S2* p2, S0 p3) {
    uint w1 = 0;
    while (w1++ < 4u) {
        uint w2 = 0;
        while (w2++ < 5u) {
            (*p2).f1.s1 = 0;
            switch ((as_int(rem_uchar4(((uchar4)((uchar)248)), 0))) & 7) {
                case 6: {
                    (*p2).f1.s1 = 0;
                }
                case 1: {
                    (*p2).f0.s0 = 0;
                    (*p2).f1 = shuffle(((ulong16)(~((ulong16)(max(((ulong16)0), 0) ^ ((ulong16)(0, 0, ((ulong8)0), 0, (*p2).f1, ((ulong3)0))))))), (-(*p2).f1));
                }
            }
        }
    }
}
