// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const uint* b, global uint* out) {
    size_t i = get_global_id(0);
    vstore4(rotate(vload4(i, a), vload4(i, b)), i, out);
}
