// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    out[4 * i] = get_local_id(0);
    out[4 * i + 1] = get_group_id(0);
    out[4 * i + 2] = get_local_size(0);
    out[4 * i + 3] = get_num_groups(0);
}
