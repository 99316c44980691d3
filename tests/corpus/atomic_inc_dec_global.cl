// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    atomic_inc(&out[0]);
    if (a[i] & 1)
        atomic_dec(&out[1]);
}
