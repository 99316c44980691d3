// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const uint* b, global float* out) {
    size_t i = get_global_id(0);
    out[i] = as_float(a[i]) * 1.0f;
}
