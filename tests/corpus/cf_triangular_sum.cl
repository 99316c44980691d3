// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int n = a[i] & 255;
    int s = 0;
    for (int j = 0; j < n; j++)
        s += j;
    out[i] = s;
}
