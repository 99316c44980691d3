// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const ushort* a, global const int* b, global float* out) {
    size_t i = get_global_id(0);
    out[i] = vload_half(i, (global const half*)a);
}
