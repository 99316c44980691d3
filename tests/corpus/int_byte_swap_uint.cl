// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// 32- and 64-bit byte swaps and rotations by whole bytes, in the shapes
// hash and network code writes them (hashcat's hc_swap32, ntohl-style
// masks and shifts): clang's -O2 makes them llvm.bswap.i32 / .i64 and
// llvm.fshl, -O0 IL keeps the shifts, masks and ORs. NVIDIA's compiler
// got the 16-bit byte swap of two shifts and an OR wrong
// (passes::funnel_byte_swaps): these are the wider forms of the same idiom.
kernel void k(global const uint* a, global const uint* b, global uint* out) {
    size_t i = get_global_id(0);
    uint x = a[i];
    uint y = b[i];
    ulong w = ((ulong)x << 32) | y;
    out[8 * i] = (x << 24) | ((x & 0xff00u) << 8) | ((x >> 8) & 0xff00u) | (x >> 24);
    out[8 * i + 1] = ((x & 0xffu) << 24) | ((x & 0xff00u) << 8) | ((x & 0xff0000u) >> 8) | ((x & 0xff000000u) >> 24);
    out[8 * i + 2] = (x << 8) | (x >> 24);
    out[8 * i + 3] = (y >> 16) | (y << 16);
    ulong s = ((w & 0x00000000000000fful) << 56) | ((w & 0x000000000000ff00ul) << 40) |
              ((w & 0x0000000000ff0000ul) << 24) | ((w & 0x00000000ff000000ul) << 8) |
              ((w & 0x000000ff00000000ul) >> 8) | ((w & 0x0000ff0000000000ul) >> 24) |
              ((w & 0x00ff000000000000ul) >> 40) | ((w & 0xff00000000000000ul) >> 56);
    out[8 * i + 4] = (uint)s;
    out[8 * i + 5] = (uint)(s >> 32);
    uint4 v = (uint4)(x, y, x ^ y, x + y);
    uint4 sv = (v << 24) | ((v & 0xff00u) << 8) | ((v >> 8) & 0xff00u) | (v >> 24);
    out[8 * i + 6] = sv.s0 ^ sv.s3;
    out[8 * i + 7] = sv.s1 + sv.s2;
}
