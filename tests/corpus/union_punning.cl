// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global uint* out) {
    size_t i = get_global_id(0);
    union { float f; uint u; uchar b[4]; } x;
    x.f = a[i];
    out[2 * i] = x.u;
    out[2 * i + 1] = x.b[3];
}
