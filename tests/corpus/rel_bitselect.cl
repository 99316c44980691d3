// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const uint* b, global uint* out) {
    size_t i = get_global_id(0);
    out[i] = bitselect(a[i], b[i], 0x0ff0f00fu);
}
