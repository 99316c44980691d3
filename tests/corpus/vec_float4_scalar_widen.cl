// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    float4 v = vload4(i, a);
    vstore4(v * 2.0f + 1.0f, i, out);
}
