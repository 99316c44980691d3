// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
int sum2(local const int* p, size_t l) {
    return p[l] + p[l ^ 1];
}

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    local int buf[64];
    size_t l = get_local_id(0);
    buf[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = sum2(buf, l);
}
