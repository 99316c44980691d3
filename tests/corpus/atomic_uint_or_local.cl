// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const uint* a, global const int* b, global uint* out) {
    size_t i = get_global_id(0);
    local uint s;
    if (get_local_id(0) == 0)
        s = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_or(&s, 1u << (a[i] & 31));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = s;
}
