// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    out[4 * i] = sign(a[i]);
    out[4 * i + 1] = step(b[i], a[i]);
    out[4 * i + 2] = clamp(a[i], -10.0f, 10.0f);
    out[4 * i + 3] = max(a[i], b[i]);
}
