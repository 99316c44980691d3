// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int8 x = vload8(i, a), y = vload8(i, b);
    vstore8(select(x, y, x < y), i, out);
}
