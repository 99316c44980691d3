// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global int* out) {
    size_t i = get_global_id(0);
    float x = a[i];
    out[4 * i] = convert_int_rte(x);
    out[4 * i + 1] = convert_int_rtp(x);
    out[4 * i + 2] = convert_int_rtn(x);
    out[4 * i + 3] = convert_int_rtz(x);
}
