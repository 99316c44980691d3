// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global ushort* out) {
    size_t i = get_global_id(0);
    vstore_half(a[i], i, (global half*)out);
}
