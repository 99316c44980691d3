// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    if (a[i] < 0) {
        out[i] = -1;
        return;
    }
    if (a[i] > 1000) {
        out[i] = 1;
        return;
    }
    out[i] = 0;
}
