// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const short* a, global const short* b, global short* out) {
    size_t i = get_global_id(0);
    short x = a[i];
    short y = b[i];
    out[2 * i] = clz(x);
    out[2 * i + 1] = popcount(x);
}
