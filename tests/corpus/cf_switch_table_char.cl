// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Seven char constants (SimplifyCFG with native widths packs them into
// one 56-bit integer) and three uchar ones (24 bits).
kernel void k(global const int* a, global const int* b, global char* out) {
    size_t i = get_global_id(0);
    char r;
    switch (a[i] & 15) {
    case 0: r = 1; break;
    case 1: r = 5; break;
    case 2: r = -3; break;
    case 3: r = 127; break;
    case 4: r = -128; break;
    case 5: r = 9; break;
    case 6: r = 100; break;
    default: r = 0; break;
    }
    uchar u;
    switch (b[i] & 7) {
    case 0: u = 200; break;
    case 1: u = 17; break;
    case 2: u = 255; break;
    default: u = 3; break;
    }
    out[2 * i] = r;
    out[2 * i + 1] = (char)u;
}
