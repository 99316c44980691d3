// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int4 v = vload4(i, a);
    int4 w = vload4(i, b);
    vstore4(v.wzyx + w.xxyy, i, out);
}
