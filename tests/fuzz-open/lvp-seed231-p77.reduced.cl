// @ferrocl-fuzz global=256 local=64 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000000,0xffffffffffffffff,0xe6340c28dc28075,0x8000000000000001,0xdc,0xb6,0xffffffffffffffff,0x6f,0xa8,0x7ffffffffffffffe,0x0,0x86,0x0,0x16,0x8000000000000000,0x5ef9bec71b22f57b,0x8000000000000000,0xffffffffffffff20,0x1,0x2527e99f450e2545,0xfa,0xdc,0x8000000000000001,0x1,0xd5717cd2b981b4ed,0xc8de727cbf2abe09,0x7ffffffffffffffe,0x42,0x7ffffffffffffffe,0x480d83b4eeb3a8b2,0x161226e0d8e820b3,0x77,0xffffffffffffff76,0x8000000000000001,0x7ffffffffffffffe,0x8000000000000001,0xffffffffffffffff,0x1,0x1,0x0,0x8000000000000001,0x8000000000000001,0x7fffffffffffffff,0x8000000000000000,0x8000000000000000,0x6923e07d635ccc5b,0xa457807a95554612,0x7ffffffffffffffe,0x0,0x0,0x0,0x8000000000000001,0x0,0x7,0xffffffffffffffff,0xd8,0x1,0x25,0x0,0x8000000000000001,0x1,0x0,0x58,0x4
// @kernel k7 arg=0x8000000000000000 base=7168
uint3 div_uint3(uint3 a, uint3 b) { return a / select(b, (uint3)(1), b == (uint3)(0)); }
kernel void k7(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 7168u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
            int v13 = ((div_uint3(((uint3)(((uint)0xffffffffu))), 0) < (((uint3)((uint)((ulong)arg)))))).s0;
            h = ((ulong)(v13));
    out[ob] = h;
}
