// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    local int s[2];
    size_t l = get_local_id(0);
    if (l == 0) {
        s[0] = INT_MAX;
        s[1] = INT_MIN;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_min(&s[0], a[i]);
    atomic_max(&s[1], a[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 2)
        out[2 * get_group_id(0) + l] = s[l];
}
