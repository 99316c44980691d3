// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const uint* b, global long* out) {
    size_t i = get_global_id(0);
    int x = a[i];
    uint y = b[i];
    out[i] = upsample(x, y);
}
