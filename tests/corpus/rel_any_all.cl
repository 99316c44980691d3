// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int4 v = vload4(i, a);
    out[2 * i] = any(v);
    out[2 * i + 1] = all(v);
}
