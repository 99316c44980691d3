// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global uint* out) {
    size_t i = get_global_id(0);
    global const uint* p = (global const uint*)a;
    out[i] = p[i] ^ 0x80000000u;
}
