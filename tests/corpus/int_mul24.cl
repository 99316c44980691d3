// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int x = a[i] >> 8, y = b[i] >> 24;
    out[2 * i] = mul24(x, y);
    out[2 * i + 1] = mad24(x, y, x);
}
