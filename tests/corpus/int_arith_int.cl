// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int x = a[i];
    int y = b[i];
    out[3 * i] = x + y;
    out[3 * i + 1] = x - y;
    out[3 * i + 2] = x * y;
}
