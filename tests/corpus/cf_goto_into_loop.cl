// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A loop entered at two points (irreducible control flow), made
// reducible before structurizing (`frontend::make_reducible`).
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int x = a[i], n = b[i] & 15, s = 0, j = 0;
    if (x & 1) goto inside;
    while (j < n) {
        s += j * 3;
    inside:
        s ^= x + j;
        j++;
    }
    out[i] = s;
}
