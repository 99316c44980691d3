// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Switches whose results are linear in the case (SimplifyCFG: a
// multiply-add) or a bit set (a bitmap of i1), next to a 33-bit loop sum.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int n = b[i] & 127;
    int s = 0;
    for (int j = 0; j < n; j++)
        s += j;
    int r;
    switch (a[i] & 15) {
    case 0: r = 10; break;
    case 1: r = 20; break;
    case 2: r = 30; break;
    case 3: r = 40; break;
    case 4: r = 50; break;
    case 5: r = 60; break;
    default: r = 0; break;
    }
    int odd;
    switch (a[i] & 7) {
    case 1: case 3: case 5: case 6:
        odd = 1; break;
    default:
        odd = 0; break;
    }
    out[3 * i] = r;
    out[3 * i + 1] = odd;
    out[3 * i + 2] = s;
}
