// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global int* out) {
    size_t i = get_global_id(0);
    float4 x = vload4(i, a);
    vstore4(isnan(x) | (isinf(x) & 2), i, out);
}
