// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    out[3 * i] = fdim(a[i], b[i]);
    out[3 * i + 1] = maxmag(a[i], b[i]);
    out[3 * i + 2] = minmag(a[i], b[i]);
}
