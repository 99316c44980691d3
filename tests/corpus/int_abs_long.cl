// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const long* a, global const long* b, global ulong* out) {
    size_t i = get_global_id(0);
    long x = a[i];
    long y = b[i];
    out[2 * i] = abs(x);
    out[2 * i + 1] = abs_diff(x, y);
}
