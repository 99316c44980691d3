// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global char* out) {
    size_t i = get_global_id(0);
    out[i] = convert_char_sat_rte(a[i]);
}
