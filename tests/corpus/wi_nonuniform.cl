// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    out[3 * i] = get_local_size(0);
    out[3 * i + 1] = get_enqueued_local_size(0);
    out[3 * i + 2] = get_global_linear_id();
}
