// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const uint* b, global float* out) {
    size_t i = get_global_id(0);
    out[2 * i] = (float)a[i];
    out[2 * i + 1] = convert_float_rtp(a[i]);
}
