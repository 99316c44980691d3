// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    local int s[64];
    size_t l = get_local_id(0);
    s[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t d = 1; d < 64; d <<= 1) {
        int v = l >= d ? s[l - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[l] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = s[l];
}
