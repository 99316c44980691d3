// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz: failed to build with "internal compiler error:
// spirt could not read the lowered module: malformed SPIR-V (decorated IDs
// never defined)". LLVM folds the saturating conversion of the comparison
// (clz of a zeroed uchar3 is 8, never 0), and llvm-spirv-15 keeps its
// `OpDecorate %id SaturatedConversion` for an id it no longer defines
// (passes/drop_dangling_decorations.rs).
constant ulong tab[4] = {3, 0, 2, 1};

kernel void k(global const ulong* a, global const int* b, global ulong* out) {
    size_t i = get_global_id(0);
    short3 v = (short3)((short)b[i]);
    uchar3 z[4] = { 0, 0, 0, 0 };
    for (uchar j = 0; j != 5; j++) {
        out[2 * i + 1] = (ulong)(char)((ushort)a[0] ? (char)(((char)129) >> (long)a[j & 3]) : 0);
        v = convert_short3_sat(clz(z[(0 - (uint)tab[(uint)a[0] & 3]) & 3]) == ((uchar3)0).s111);
    }
    out[2 * i] = (ulong)(long)v.s2;
}
