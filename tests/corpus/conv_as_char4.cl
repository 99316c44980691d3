// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global char* out) {
    size_t i = get_global_id(0);
    char4 c = as_char4(a[i]);
    vstore4(c.wzyx, i, out);
}
