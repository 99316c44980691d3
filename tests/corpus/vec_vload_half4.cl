// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const ushort* a, global const int* b, global float* out) {
    size_t i = get_global_id(0);
    vstore4(vload_half4(i, (global const half*)a), i, out);
}
