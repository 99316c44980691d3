// @ferrocl-fuzz global=128 local=32 slots=4 options=-cl-std=CL3.0
// @input 0x8000000000000001,0x0,0x7ffffffffffffffe,0x6,0x3,0x0,0x0,0x7fffffffffffffff,0x0,0xffffffffffffff25,0xffffffffffffffc8,0x7ffffffffffffffe,0xffffffffffffff70,0x8000000000000000,0x91,0x8000000000000000,0x2,0xffffffffffffffff,0x0,0xffffffffffffffff,0xfffffffffffffed5,0x7fffffffffffffff,0x8000000000000000,0x0,0x7ffffffffffffffe,0x7ffffffffffffffe,0x88,0x9456c8909365fba9,0xffffffffffffffff,0xa5,0x46,0x8000000000000001,0x8000000000000001,0xe99d16dfdf8a06c4,0x8000000000000001,0x7fffffffffffffff,0x5,0x7ffffffffffffffe,0x0,0x8000000000000000,0x7fffffffffffffff,0x7fffffffffffffff,0xc5aec8dc226d1c3,0x8000000000000001,0xffffffffffffff76,0x0,0x3,0x7ffffffffffffffe,0x0,0x3e,0x7fffffffffffffff,0x0,0xffffffffffffff5f,0x0,0xe6,0x117,0x8000000000000001,0x7ffffffffffffffe,0xffffffffffffffff,0x7fffffffffffffff,0x4,0x8000000000000000,0x8000000000000000,0x8000000000000000
// @kernel k0 arg=0xffffffffffffffff base=0
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
typedef struct { ushort f0; long f1; long f2[8]; ushort2 f3; char3 f4; } S2;
ulong hash_char3(ulong h, char3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_S2(ulong h, S2 v) {
    h = hash_char3(h, v.f4);
    return h;
}
kernel void k0(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 0u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    local long2 l1[32];
    l1[lid * 1 + 0] = ((long2)(as_long2(as_ulong2((((long2)((long)(in[(gid + 41u) & 63]))) ^ ((long2)(0, 37)))) - as_ulong2((((long2)((long)(in[(((char)112)) & 63]))) ^ ((long2)(0, 37))))) | ((long2)(((long)1), ((long)0x8000000000000001UL))))); /*@keep*/
    S2 s2 = { 0, 0, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, ((char3)((char)255)) };
    barrier(CLK_LOCAL_MEM_FENCE);
    s2.f4 = as_char3(as_uchar3(s2.f4) * as_uchar3(convert_char3(((((short3)((short)(in[(gid) & 63]))) ^ ((short3)(37)))))));
    h = hash_S2(h, s2);
    out[ob] = h;
}
