// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const long* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    long2 v = vload2(i, a);
    vstore2(shuffle(v, (ulong2)(1, 0)), i, out);
}
