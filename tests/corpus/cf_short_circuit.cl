// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int n = 0;
    int x = a[i], y = b[i];
    if (y != 0 && x / y > 2)
        n |= 1;
    if (x == 0 || y / x < 2)
        n |= 2;
    out[i] = n;
}
