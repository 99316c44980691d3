// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
global int scale = 1;
global int offsets[4] = {10, 20, 30, 40};

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    if (i == 0)
        scale = 3;
    out[i] = a[i] * 3 + offsets[i & 3];
}
