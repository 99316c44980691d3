// @ferrocl-fuzz global=64 local=16 slots=4 options=-cl-std=CL3.0
// @input 0x0,0x0,0xffffffffffffff48,0x71e760bd90a77a74,0xe7,0xfffffffffffffedd,0x4,0x8000000000000001,0x7ffffffffffffffe,0x8000000000000000,0x8f05cbe7c4d41f03,0x8000000000000001,0x8000000000000000,0x1,0x7ffffffffffffffe,0x1,0x3,0x7fffffffffffffff,0x0,0x7fffffffffffffff,0x7fffffffffffffff,0x7fffffffffffffff,0xfffffffffffffff0,0x7ffffffffffffffe,0xffffffffffffff35,0xffffffffffffffda,0x1,0x11c,0xffffffffffffffff,0x1,0xffffffffffffff35,0x7fffffffffffffff,0x7fffffffffffffff,0x1,0x1,0x7ffffffffffffffe,0x7ffffffffffffffe,0x8000000000000000,0xffffffffffffff9a,0x1,0xffffffffffffffff,0x105,0x8000000000000000,0xffffffffffffffe2,0x7fffffffffffffff,0xffffffffffffff6b,0x1,0x1,0x8000000000000001,0x8000000000000001,0x84,0x111,0x1,0x8000000000000000,0x7ffffffffffffffe,0xe5,0x7fffffffffffffff,0x86,0x7ffffffffffffffe,0x7ffffffffffffffe,0x7fffffffffffffff,0x7ffffffffffffffe,0xffffffffffffff13,0x7ffffffffffffffe
// @kernel k0 arg=0x8000000000000000 base=0
constant ulong ctab[16] = {0x8000000000000000UL, 0xffffffffffffffffUL, 0x54UL, 0x7ffffffffffffffeUL, 0x1UL, 0x116UL, 0x8000000000000001UL, 0xf2UL, 0x1UL, 0x8000000000000001UL, 0x26UL, 0xa1UL, 0x7ffffffffffffffeUL, 0x8000000000000000UL, 0x8000000000000001UL, 0x7fffffffffffffffUL};
short div_short(short a, short b) { return (b == (short)0 || (a == (short)((short)-32768) && b == (short)-1)) ? a : (short)(a / b); }
short rem_short(short a, short b) { return (b == (short)0 || (a == (short)((short)-32768) && b == (short)-1)) ? a : (short)(a % b); }
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    out[ob + 1] = 0;
    local short l1[64];
    local int l2[64];
    l1[lid * 4 + 0] = ((short)0xd6b4u); /*@keep*/
    l1[lid * 4 + 1] = ((short)-50); /*@keep*/
    l1[lid * 4 + 2] = ((short)(~rem_short(((short)in[(gid + 6u) & 63]), ((short)out[ob + 1 + (uint)(((long)in[(((uchar)255)) & 63])) % 3u])))); /*@keep*/
    l1[lid * 4 + 3] = div_short(((short)ctab[(((ulong)0x300973e98864a8b1UL)) & 15]), max(((short)ctab[(((ushort)out[ob + 1 + (uint)(((ushort)0x8001u)) % 3u])) & 15]), ((short)(ulong)gid))); /*@keep*/
    l2[lid * 4 + 0] = ((int)((uint)(((int)((uint)(((int)out[ob + 1 + (uint)(((int)in[(gid + 24u) & 63])) % 3u])) * (uint)(((int)-1))))) - (uint)(((int)(((int)in[(gid + 6u) & 63]) & ((int)0)))))); /*@keep*/
    l2[lid * 4 + 1] = convert_int(((ushort)3)); /*@keep*/
    l2[lid * 4 + 2] = sub_sat(as_int((((ushort2)((ushort)(in[(((uchar)in[(((uchar)(ulong)lid)) & 63])) & 63]))) ^ ((ushort2)(0, 37)))), ((int)(((int)-285) >> ((long)ctab[(((uchar)43)) & 15])))); /*@keep*/
    l2[lid * 4 + 3] = as_int(((uint)0xfce99c76u)); /*@keep*/
    h = ((ulong)(l1[lid * 4 + 3]));
    out[ob] = h;
}
