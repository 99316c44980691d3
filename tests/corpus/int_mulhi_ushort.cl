// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const ushort* a, global const ushort* b, global ushort* out) {
    size_t i = get_global_id(0);
    ushort x = a[i];
    ushort y = b[i];
    out[2 * i] = mul_hi(x, y);
    out[2 * i + 1] = mad_hi(x, y, x);
}
