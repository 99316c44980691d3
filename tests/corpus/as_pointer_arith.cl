// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    global const int* p = a + i;
    global const int* q = p + 1;
    out[i] = (i + 1 < get_global_size(0)) ? *q - *p + (int)(q - p) : 0;
}
