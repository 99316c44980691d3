// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const ulong* a, global const ulong* b, global ulong* out) {
    size_t i = get_global_id(0);
    ulong x = a[i];
    ulong y = b[i];
    out[2 * i] = hadd(x, y);
    out[2 * i + 1] = rhadd(x, y);
}
