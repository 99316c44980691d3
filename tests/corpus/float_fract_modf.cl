// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    float ip, mp;
    out[4 * i] = fract(a[i], &ip);
    out[4 * i + 1] = ip;
    out[4 * i + 2] = modf(a[i], &mp);
    out[4 * i + 3] = mp;
}
