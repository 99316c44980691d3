// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int found = 0, j = 0, k = 0;
    for (j = 0; j < 8 && !found; j++)
        for (k = 0; k < 8; k++)
            if (j * 8 + k == (a[i] & 63)) {
                found = 1;
                break;
            }
    out[i] = found ? (j - 1) * 100 + k : -1;
}
