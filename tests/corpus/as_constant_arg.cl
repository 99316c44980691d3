// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(constant int* a, constant int* b, global int* out) {
    size_t i = get_global_id(0);
    out[i] = a[i] * b[(i + 1) % 256];
}
