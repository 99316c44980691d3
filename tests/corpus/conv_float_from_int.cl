// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global float* out) {
    size_t i = get_global_id(0);
    out[3 * i] = convert_float(a[i]);
    out[3 * i + 1] = convert_float_rtz(a[i]);
    out[3 * i + 2] = convert_float_rtn(a[i]);
}
