// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
void accumulate(global int* dst, global const int* src, int n) {
    int s = 0;
    for (int j = 0; j < n; j++)
        s += src[0] * (j + 1);
    *dst = s;
}

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    accumulate(out + i, a + i, 3);
}
