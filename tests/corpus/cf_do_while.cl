// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    uint x = (uint)a[i] | 1u;
    int steps = 0;
    do {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        steps++;
    } while (x != 1 && steps < 500);
    out[i] = steps;
}
