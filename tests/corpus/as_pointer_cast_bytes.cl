// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global uchar* out) {
    size_t i = get_global_id(0);
    global const uchar* p = (global const uchar*)(a + i);
    out[i] = p[0] + p[1] + p[2] + p[3];
}
