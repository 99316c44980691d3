// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    out[4 * i] = a[i] + b[i];
    out[4 * i + 1] = a[i] - b[i];
    out[4 * i + 2] = a[i] * b[i];
    out[4 * i + 3] = a[i] / b[i];
}
