// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int3 v = vload3(i, a);
    int3 w = v.zxy * 2 + v;
    vstore3(w, i, out);
}
