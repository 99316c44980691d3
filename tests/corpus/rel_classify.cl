// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global int* out) {
    size_t i = get_global_id(0);
    float x = a[i];
    out[5 * i] = isnan(x);
    out[5 * i + 1] = isinf(x);
    out[5 * i + 2] = signbit(x);
    out[5 * i + 3] = isfinite(x);
    out[5 * i + 4] = isnormal(x);
}
