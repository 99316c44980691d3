// @ferrocl-fuzz global=256 local=16 slots=4 options=-cl-std=CL3.0
// @input 0xffffffffffffff40,0x8000000000000000,0x32848fb7625b0853,0xffffffffffffffff,0x8000000000000001,0xffffffffffffffff,0x5,0x8000000000000001,0x8000000000000000,0x7ffffffffffffffe,0x122,0x7fffffffffffffff,0xdcb4df85b0fcf278,0x1,0x0,0x4d2e673093c313af,0x0,0xffffffffffffff91,0xffffffffffffffff,0x31,0x44450382f860605c,0x7ffffffffffffffe,0xfffffffffffffef7,0xfffffffffffffff2,0x0,0x0,0x7ffffffffffffffe,0x1,0xffffffffffffffa1,0x7d,0x8000000000000000,0x4,0xffffffffffffffff,0x0,0x1,0x102,0x86,0x8000000000000000,0x0,0x7ffffffffffffffe,0x8000000000000001,0x15a19f5875bf60d5,0xb15d21d550a5c333,0x8000000000000001,0x8000000000000000,0x0,0x0,0xff,0x7ffffffffffffffe,0x7ffffffffffffffe,0x89,0x0,0x7ffffffffffffffe,0x24,0xf1,0x7ffffffffffffffe,0xffffffffffffffb4,0x4,0x8000000000000000,0x1,0xe5,0x6f,0x921de9e989bd115a,0x3
// @kernel k2 arg=0xec base=2048
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x8000000000000001UL, 0x94UL, 0x0UL, 0x7fffffffffffffffUL, 0x7fffffffffffffffUL, 0xb159facd2d0638d6UL, 0x6dUL, 0x57UL, 0x8000000000000001UL, 0xffffffffffffffffUL, 0x3dUL, 0x7ffffffffffffffeUL, 0xffffffffffffff0fUL, 0x7UL, 0x1UL, 0xffffffffffffffffUL};
typedef struct { uchar8 f0; uchar2 f1[4]; } S0;
int div_int(int a, int b) { return (b == (int)0 || (a == (int)(-2147483647 - 1) && b == (int)-1)) ? a : (int)(a / b); }
ulong hash_int3(ulong h, int3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
kernel void k2(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 2048u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local ulong3 l1[16];
    l1[lid * 1 + 0] = (rotate(((ulong3)((ulong)(ctab[(((uchar)127)) & 15]))), (((ulong3)((ulong)(in[(((uint)(ulong)gid)) & 63]))) ^ ((ulong3)(0, 37, 74)))) * ((ulong)(((ulong)(ulong)lid) & ((ulong)0xfffffffffffffef3UL)))); /*@keep*/
    int3 v2 = 0;
    long v3 = ((long)(((long)(ctz(0)))));
    S0 a4[4] = { { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } } };
    for (uchar i7 = 0; i7 != 4; i7++) {
        if ((-abs(((uint)0x8cff7c04u)))) {
            a4[(v3) & 3] = a4[0 & 3];
            uint v8 = ((uint)0x7fffffffu);
            h = mix(h, (ulong)(v8));
        } else {
            if (((long)arg)) break;
            v2.s1 = div_int(select(0, 0, ((uint)in[0 & 63])), (44));
        }
        switch (((int)(convert_short_rtn(((ushort)ctab[(((uint)in[0 & 63])) & 15]))))) {
            case 0: {
                out[ob + 1] = 00;
            }
        }
    }
    h = hash_int3(h, v2);
    out[ob] = h;
}
