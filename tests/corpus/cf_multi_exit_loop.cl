// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int j = 0;
    int r = -1;
    for (; j < 32; j++) {
        if (a[i] & (1 << j)) { r = j; break; }
        if (b[i] & (1 << j)) { r = 100 + j; break; }
    }
    out[i] = r;
}
