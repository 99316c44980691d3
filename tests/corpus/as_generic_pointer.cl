// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
int load(int* p) {
    return *p;
}

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int p = a[i];
    local int l[64];
    l[get_local_id(0)] = b[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = load(&p) + load(&l[get_local_id(0)]);
}
