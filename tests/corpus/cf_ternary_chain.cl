// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int x = a[i];
    out[i] = x < -100 ? 0 : x < 0 ? 1 : x == 0 ? 2 : x < 100 ? 3 : 4;
}
