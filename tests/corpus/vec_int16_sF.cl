// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int16 v = vload16(i, a);
    int16 r = v.sFEDCBA9876543210;
    r.s0 += v.sf;
    vstore16(r, i, out);
}
