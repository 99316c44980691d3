// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uchar* a, global const uchar* b, global uchar* out) {
    size_t i = get_global_id(0);
    uchar x = a[i];
    uchar y = b[i];
    out[3 * i] = min(x, y);
    out[3 * i + 1] = max(x, y);
    out[3 * i + 2] = clamp(x, (uchar)10, (uchar)100);
}
