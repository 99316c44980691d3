// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int3* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int3 v = a[i];
    out[3 * i] = v.x;
    out[3 * i + 1] = v.y;
    out[3 * i + 2] = v.z;
}
