// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    float8 v = vload8(i, a);
    float4 s = v.hi + v.lo;
    float4 d = v.even - v.odd;
    vstore8((float8)(s, d), i, out);
}
