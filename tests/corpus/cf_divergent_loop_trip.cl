// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int s = 0;
    int n = a[i] & 63;
    while (n > 0) {
        s += n * b[i];
        n -= (n & 1) ? 1 : 2;
    }
    out[i] = s;
}
