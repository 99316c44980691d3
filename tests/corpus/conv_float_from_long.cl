// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const long* a, global const int* b, global float* out) {
    size_t i = get_global_id(0);
    out[i] = convert_float(a[i]);
}
