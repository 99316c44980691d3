// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    local float2 s[64];
    size_t l = get_local_id(0);
    s[l] = (float2)(a[i], b[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = s[(l + 7) & 63].x * s[(l + 9) & 63].y;
}
