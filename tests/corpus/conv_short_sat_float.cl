// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global short* out) {
    size_t i = get_global_id(0);
    out[i] = convert_short_sat(a[i]);
}
