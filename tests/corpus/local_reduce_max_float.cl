// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    local float s[64];
    size_t l = get_local_id(0);
    s[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t w = 32; w > 0; w >>= 1) {
        if (l < w)
            s[l] = fmax(s[l], s[l + w]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0)] = s[0];
}
