// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uchar* a, global const uchar* b, global uchar* out) {
    size_t i = get_global_id(0);
    uchar x = a[i];
    uchar y = b[i];
    out[2 * i] = hadd(x, y);
    out[2 * i + 1] = rhadd(x, y);
}
