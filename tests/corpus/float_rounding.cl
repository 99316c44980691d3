// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    float x = a[i];
    out[5 * i] = floor(x);
    out[5 * i + 1] = ceil(x);
    out[5 * i + 2] = round(x);
    out[5 * i + 3] = trunc(x);
    out[5 * i + 4] = rint(x);
}
