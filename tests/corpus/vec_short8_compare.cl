// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const short* a, global const short* b, global short* out) {
    size_t i = get_global_id(0);
    short8 v = vload8(i, a), w = vload8(i, b);
    vstore8(v < w, i, out);
}
