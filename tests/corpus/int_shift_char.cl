// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const char* a, global const char* b, global char* out) {
    size_t i = get_global_id(0);
    char x = a[i];
    char y = b[i];
    out[2 * i] = x << y;
    out[2 * i + 1] = x >> y;
}
