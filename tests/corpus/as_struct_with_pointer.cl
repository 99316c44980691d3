// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    struct view { global const int* base; int stride; } v;
    v.base = b;
    v.stride = 2;
    out[i] = v.base[(i * v.stride) % 256] + a[i];
}
