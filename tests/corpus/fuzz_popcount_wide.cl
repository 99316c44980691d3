// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz: popcount of an 8- or 16-wide vector of 8-, 16- or
// 64-bit integers failed to build ("Expected 32-bit int type for Base
// operand: BitCount": OpBitCount of a non-32-bit type is not valid Vulkan
// SPIR-V). 2- to 4-wide vectors and 32-bit elements were fine.
kernel void k(global const ulong* a, global const int* b, global ulong* out) {
    size_t i = get_global_id(0);
    ulong x = a[i];
    uchar16 c = popcount(as_uchar16((ulong2)(x, ~x)));
    short8 s = popcount(as_short8((ulong2)(x, x * 3)));
    ulong8 l = popcount((ulong8)(x, x >> 1, x >> 2, x >> 3, x << 1, x << 2, x << 3, ~x));
    vstore16(convert_ulong16(c), 2 * i, out);
    vstore8(convert_ulong8(s), 4 * i + 2, out);
    vstore8(l, 4 * i + 3, out);
}
