// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
void divide(int x, int d, int* q, int* r) {
    *q = x / d;
    *r = x % d;
}

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int q, r;
    divide(a[i], 7, &q, &r);
    out[2 * i] = q;
    out[2 * i + 1] = r;
}
