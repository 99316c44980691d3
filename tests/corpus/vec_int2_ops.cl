// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int2 v = vload2(i, a);
    int2 w = vload2(i, b);
    vstore2((int2)(v.y * w.x, v.x - w.y), i, out);
}
