// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const char* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    out[2 * i] = (long)a[i];
    out[2 * i + 1] = (long)(uchar)a[i];
}
