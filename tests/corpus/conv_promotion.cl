// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const char* a, global const uchar* b, global int* out) {
    size_t i = get_global_id(0);
    out[2 * i] = a[i] * b[i];
    out[2 * i + 1] = (a[i] + b[i]) >> 1;
}
