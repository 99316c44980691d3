// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Several cases branching straight to the code after the switch: LLVM's
// phi there names the switch block once per case.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int odd;
    switch (a[i]) {
    case 1: case 3: case 5: case 6: case 100:
        odd = 1; break;
    case -7: case 8:
        odd = -1; break;
    default:
        odd = b[i]; break;
    }
    out[i] = odd;
}
