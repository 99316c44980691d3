// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const long* a, global const long* b, global long* out) {
    size_t i = get_global_id(0);
    long x = a[i];
    long y = b[i];
    out[3 * i] = min(x, y);
    out[3 * i + 1] = max(x, y);
    out[3 * i + 2] = clamp(x, (long)10, (long)100);
}
