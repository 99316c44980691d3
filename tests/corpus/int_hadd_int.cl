// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int x = a[i];
    int y = b[i];
    out[2 * i] = hadd(x, y);
    out[2 * i + 1] = rhadd(x, y);
}
