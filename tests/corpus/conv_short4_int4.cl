// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const short* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    vstore4(convert_int4(vload4(i, a)) * 3, i, out);
}
