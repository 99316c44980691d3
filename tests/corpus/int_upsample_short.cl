// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const short* a, global const ushort* b, global int* out) {
    size_t i = get_global_id(0);
    short x = a[i];
    ushort y = b[i];
    out[i] = upsample(x, y);
}
