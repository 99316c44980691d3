// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    local int s[5];
    size_t l = get_local_id(0);
    if (l < 5)
        s[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&s[l % 4], a[i]);
    atomic_max(&s[4], a[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 5)
        out[5 * get_group_id(0) + l] = s[l];
}
