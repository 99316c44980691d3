// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    float4 v = (float4)(0.0f);
    v.y = a[i];
    v.zw = (float2)(b[i], 3.0f);
    v.s0 = v.s3 + 1.0f;
    vstore4(v, i, out);
}
