// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const long* a, global const long* b, global long* out) {
    size_t i = get_global_id(0);
    long x = a[i], y = b[i];
    out[4 * i] = x & y;
    out[4 * i + 1] = x | y;
    out[4 * i + 2] = x ^ y;
    out[4 * i + 3] = ~x;
}
