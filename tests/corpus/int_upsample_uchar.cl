// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uchar* a, global const uchar* b, global ushort* out) {
    size_t i = get_global_id(0);
    uchar x = a[i];
    uchar y = b[i];
    out[i] = upsample(x, y);
}
