// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global ushort* out) {
    size_t i = get_global_id(0);
    out[i] = convert_ushort_sat(a[i]);
}
