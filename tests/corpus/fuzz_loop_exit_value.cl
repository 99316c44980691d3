// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz (reduced from a generated kernel): a value loaded
// inside a loop whose trip count differs between work-items, and used
// after the loop, read 0 on lavapipe in the work-items that left the loop
// before others of their group. The load stays in the loop (the store to
// `out` may alias `a`); the SPIR-V uses the load's result directly in the
// loop's merge block, and lavapipe's masked load gives 0 to the lanes that
// are no longer in the loop when the last iteration runs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int v = 0;
    uint n = 0;
    do {
        v = a[0];
        out[2 * i + 1] = n;
        n++;
    } while (n < (b[i] & 3));
    out[2 * i] = v;
}
