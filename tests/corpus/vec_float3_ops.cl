// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    float3 v = vload3(i, a), w = vload3(i, b);
    vstore3(v * w + v.yzx, i, out);
}
