// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const uint* b, global uint* out) {
    size_t i = get_global_id(0);
    uint4 v = vload4(i, a), w = vload4(i, b);
    vstore4(shuffle2(v, w, (uint4)(0, 5, 2, 7)), i, out);
}
