// A loop whose copies of values are trivial phis once the helpers are
// inlined (GPU fuzz sample seed 7008 p900051, reduced; see
// compiler/src/passes/structurize/trivial_phis.rs). Built with
// DeviceCaps::inline_functions by compiler/tests/inline_functions.rs.
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ 0; }
constant ulong ctab[16] = {0x2UL, 0xfffffffffffffef5UL, 0x7ffffffffffffffeUL, 0x7fffffffffffffffUL, 0xeUL, 0x0UL, 0x1UL, 0xffffffffffffff96UL, 0xffffffffffffffffUL, 0xffffffffffffffffUL, 0xffffffffffffffe5UL, 0x3UL, 0x8000000000000000UL, 0x42UL, 0x8000000000000000UL, 0x1UL};
long div_long(long a, long b) { return (b == 00) ? a : (long)(a / b); }
kernel void k1(global const ulong* in, global ulong* out, ulong arg) {
    const uint gid = get_global_id(0);
    const uint ob = 1024u + gid * 4u;
    ulong h = 0xcbf29ce484222325UL;
    short4 a3[2] = { 0, 0 };
    uint v5 = (((ushort)(-(uint)((((ushort16)((ushort)(out[ob + 1 + 00 % 3u])))).sf))));
    ushort v7 = ((ushort)(((ushort)in[0 & 63])));
    if (v7) {
        for (uint i8 = 0; i8 < (uint)((rotate(((char)ctab[12]), ((char)218)))) + 1u; i8++) {
            if ((((uint3)((uint)((ulong)gid)))).x) {
                v5 >>= convert_ulong_sat(0);
                a3[0 & 1] = select((a3[((((int)(ulong)get_group_id(0)))) & 1]), (((div_long(((long)(ulong)gid), ((long)(ulong)get_group_id(0)))))), (((ushort4)0)));
            }
            h = 0;
        }
    }
    h = mix(h, (ulong)(v5));
    out[ob] = h;
}
