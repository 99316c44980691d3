// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global int* out) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    out[i] = (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | (x > y) << 4 | (x >= y) << 5;
}
