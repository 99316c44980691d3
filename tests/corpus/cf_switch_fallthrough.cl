// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int r = 0;
    switch (a[i] & 7) {
    case 0:
        r += 1;
    case 1:
        r += 10;
        break;
    case 2:
    case 3:
        r = 100;
        break;
    case 5:
        r = -5;
    default:
        r += 1000;
    }
    out[i] = r;
}
