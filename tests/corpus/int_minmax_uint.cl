// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const uint* b, global uint* out) {
    size_t i = get_global_id(0);
    uint x = a[i];
    uint y = b[i];
    out[3 * i] = min(x, y);
    out[3 * i + 1] = max(x, y);
    out[3 * i + 2] = clamp(x, (uint)10, (uint)100);
}
