// Lavapipe fuzz seed 18 p26 (session 16), reduced: kernel k1 leaves two
// nested loops with a `goto` whose condition NIR folds to false only late;
// k11 is not run, but its presence makes clang's -O2 give k1 the shape
// that went wrong. tests/tests/loop_exit_branches.rs runs k1 against a
// CPU reference (passes::branch_loop_exits, breaks nested in selections).
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
constant ulong ctab[16] = {0x16UL, 0xffffffffffffffdfUL, 0x697e94039b429ca0UL, 0x2UL, 0x7fffffffffffffffUL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0x8000000000000000UL, 0xffffffffffffff83UL, 0xffffffffffffffffUL, 0x8000000000000000UL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0x99b35bde4fd3b1d0UL, 0x0UL};
typedef struct { long4 f0; } S0;
typedef struct { uint8 f0; } S1;
long rem_long(long a, long b) { return (b == (long)0 || (a == (long)(-9223372036854775807L - 1L) && b == (long)-1)) ? a : (long)(a % b); }
long clampx_long(long x, long a, long b) { return clamp(x, min(a, b), max(a, b)); }
long4 clampx_long4(long4 x, long4 a, long4 b) { return clamp(x, min(a, b), max(a, b)); }
ulong hash_uint8(ulong h, uint8 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); h = mix(h, (ulong)v.s4); h = mix(h, (ulong)v.s5); h = mix(h, (ulong)v.s6); h = mix(h, (ulong)v.s7); return h; }
ulong hash_long4(ulong h, long4 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); h = mix(h, (ulong)v.s3); return h; }
ulong hash_S0(ulong h, S0 v) {
    h = hash_long4(h, v.f0);
    return h;
}
S0 f0(uint16 p0, uchar p1, ulong4 p2) {
    S0 a1[2] = { { 0 }, { 0 } };
    return a1[0 & 1];
}
kernel void k1(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 256u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    char a4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    S0 s5 = { ((long4)((long)0x8000000000000001UL)) };
    uint w9 = 0;
    do {
    } while (++w9 < 3u);
        uint8 v16 = ((uint8)(((uint4)(((uint)0x80000001u), ((uint)0x80000001u), ((uint)0xffffffffu), ((uint)0xffffffffu))), rhadd(((((uint16)((uint)(ctab[(((ulong)in[(((ushort)in[(w9) & 63])) & 63])) & 15]))) ^ ((uint16)(0, 37, 74, 111, 20, 57, 94, 3, 40, 77, 114, 23, 60, 97, 6, 43)))).s5052, convert_uint4(((long4)((long)(in[(gid + 55u) & 63])))))));
        for (uint i17 = 0; i17 < 5u; i17++) {
            for (uchar i18 = 0; i18 != 3; i18++) {
                if (((uchar)((uint)(((uchar)((uint)(((uchar)arg)) * (uint)(((uchar)(ulong)w9))))) * (uint)(((uchar)all(((short3)((short)((ulong)i18))))))))) goto L15;
            }
            if (((uint)(((char)(-(uint)(a4[(convert_long_sat(((uchar)in[(((ulong)217)) & 63]))) & 15]))) > (((char4)((char)(in[(((long)in[(((ulong)out[ob + 1 + (uint)(((ushort)(ulong)arg)) % 3u])) & 63])) & 63])))).s0))) continue;
            s5 = f0((((uint16)((uint)0x80000000u)) - i17), ((uchar)(ulong)lid), (((ulong4)((ulong)((ulong)get_group_id(0)))) * (((ulong4)((ulong)(in[(((ushort)5)) & 63]))) ^ ((ulong4)(0, 37, 74, 111)))));
        }
        h = hash_uint8(h, v16);
    L15: ;
    h = hash_S0(h, s5);
    out[ob] = h;
}
kernel void k11(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint ob = 2816u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    long v1 = clampx_long((clampx_long4(((long4)(((long)0x6063e894e8c16ce9UL), ((long)1), ((long)0x80e2162f02d040f0UL), ((long)1))), (((long4)((long)(ctab[(((ulong)6)) & 15]))) ^ ((long4)(0, 37, 74, 111))), ((long4)(((long)0x7fffffffffffffffUL), ((long)1), ((long)1), ((long)0x7ffffffffffffffeUL))))).s0, ((long)any(((char2)(((char)255), ((char)181))))), ((long)(-(ulong)(rhadd(((long)1), ((long)ctab[(((uchar)(ulong)lid)) & 15]))))));
    short v4 = ((short)((((short)(((short)((uint)(((short)in[(((uchar)in[(((short)196)) & 63])) & 63])) * (uint)(((short)2)))) != ((short)abs_diff((short)((((short)out[ob + 1 + (uint)(v1) % 3u])) >> 1), (short)((((short)0x8001u)) >> 1)))))) ? ((short)(((short)(((ulong)(ulong)get_group_id(0)) < ((ulong)7))) | ((short)((uint)(((short)(ulong)get_group_id(0))) - (uint)(((short)0x8001u)))))) : upsample(((char)(~((char)in[(gid + 61u) & 63]))), ((uchar)in[(gid + 5u) & 63]))));
        uint w5 = 0;
        for (int i6 = 4; i6 > 0; i6--) {
            switch ((((short)(((short)0x8001u) ^ ((short)((uint)(v4) * (uint)(((short)in[(((uint)0xffffff3fu)) & 63]))))))) & 7) {
                case 7: {
                }
                case 1: {
                    v1 = ((long)((((ushort)((uint)(((ushort)((uint)(((ushort)0xfadbu)) * (uint)(((ushort)134))))) * (uint)(((ushort)0x7ffeu))))) ? ((long)(((long)abs_diff((long)((rem_long(v1, ((long)in[(((int)77)) & 63]))) >> 1), (long)((((long)(~v1))) >> 1))) ^ ((long)abs((long)((((long)((ulong)(((long)in[(gid + 32u) & 63])) + (ulong)(v1)))) >> 1))))) : convert_long(((ushort)((uint)(((ushort)any(i6))) - (uint)(((ushort)((uint)(((ushort)ctab[(v4) & 15])) + (uint)(((ushort)1))))))))));
                }
            }
        }
    h = mix(h, (ulong)(v1));
    out[ob] = h;
}
