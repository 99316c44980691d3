// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int old = out[0];
    for (;;) {
        int seen = atomic_cmpxchg(&out[0], old, old + a[i]);
        if (seen == old)
            break;
        old = seen;
    }
}
