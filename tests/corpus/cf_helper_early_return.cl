// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
int classify(int x, int y) {
    for (int j = 0; j < 8; j++) {
        if (((x >> j) & 1) && ((y >> j) & 1))
            return j;
    }
    return -1;
}

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    out[i] = classify(a[i], b[i]);
}
