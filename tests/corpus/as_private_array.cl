// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int p[16];
    for (int j = 0; j < 16; j++)
        p[j] = a[i] * j;
    out[i] = p[b[i] & 15] + p[(b[i] >> 4) & 15];
}
