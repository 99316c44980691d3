// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const uint* b, global uint* out) {
    size_t i = get_global_id(0);
    uint x = a[i];
    uint y = b[i];
    out[2 * i] = x / y;
    out[2 * i + 1] = x % y;
}
