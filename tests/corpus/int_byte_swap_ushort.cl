// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// 16-bit byte swaps and funnel shifts, which clang's -O2 makes
// llvm.bswap.i16 / llvm.fshl.i16 (frontend/swaps16.rs): NVIDIA's Vulkan
// compiler got the byte swap wrong (0 for every nonzero input).
kernel void k(global const ushort* a, global const ushort* b, global ushort* out) {
    size_t i = get_global_id(0);
    ushort x = a[i];
    ushort y = b[i];
    uint t = x;
    ushort2 v = (ushort2)(x, y);
    out[6 * i] = (ushort)((x << 8) | (x >> 8));
    out[6 * i + 1] = (ushort)(((t & 0xffu) << 8) | ((t >> 8) & 0xffu));
    vstore2((v << (ushort2)8) | (v >> (ushort2)8), 0, out + 6 * i + 2);
    out[6 * i + 4] = (ushort)(x << 3) | (ushort)(y >> 13);
    out[6 * i + 5] = (ushort)(x << (y & 15)) | (ushort)(x >> ((16 - (y & 15)) & 15));
}
