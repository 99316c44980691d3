// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const ulong* a, global const ulong* b, global ulong* out) {
    size_t i = get_global_id(0);
    ulong x = a[i];
    ulong y = b[i];
    out[3 * i] = x + y;
    out[3 * i + 1] = x - y;
    out[3 * i + 2] = x * y;
}
