// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int4 x = vload4(i, a), y = vload4(i, b);
    vstore4((x && y) + 2 * (x || y) + 4 * (!x), i, out);
}
