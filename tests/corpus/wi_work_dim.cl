// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    out[2 * i] = get_work_dim();
    out[2 * i + 1] = get_global_size(0) + get_global_size(1) * 10 + get_local_size(1) * 100;
}
