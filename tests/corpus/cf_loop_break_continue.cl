// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int s = 0;
    for (int j = 0; j < 100; j++) {
        if (j % 3 == 0)
            continue;
        if (s > a[i])
            break;
        s += j;
    }
    out[i] = s;
}
