// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global uint* out) {
    size_t i = get_global_id(0);
    float f = a[i];
    uint* p = (uint*)&f;
    out[i] = *p >> 23;
}
