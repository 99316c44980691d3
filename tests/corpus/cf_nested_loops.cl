// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int s = 0;
    for (int x = 0; x < (a[i] & 15); x++)
        for (int y = 0; y <= x; y++)
            s += x ^ y;
    out[i] = s;
}
