// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uchar4* a, global const int* b, global uchar4* out) {
    size_t i = get_global_id(0);
    out[i] = a[i] + (uchar4)(1, 2, 3, 250);
}
