// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    global int* o = out + 2 * i;
    o[0] = a[i];
    o[1] = -a[i];
}
