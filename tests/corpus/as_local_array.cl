// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    local int tile[64];
    size_t l = get_local_id(0);
    tile[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tile[63 - l] + tile[(l + 1) & 63];
}
