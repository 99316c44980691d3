// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Cases with holes (the table fills them with the default) and a second
// switch whose results are two values per case (two tables).
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int r;
    switch (a[i] & 15) {
    case 1: r = 10; break;
    case 2: r = 20; break;
    case 4: r = 40; break;
    case 5: r = -50; break;
    case 8: r = 80; break;
    case 9: r = 90; break;
    case 11: r = 110; break;
    default: r = -1; break;
    }
    int p, q;
    switch (b[i] & 7) {
    case 0: p = 3; q = -3; break;
    case 1: p = 1; q = 400; break;
    case 2: p = 4; q = 1; break;
    case 3: p = 1; q = -5; break;
    case 4: p = 5; q = 9; break;
    default: p = 9; q = 2; break;
    }
    out[3 * i] = r;
    out[3 * i + 1] = p;
    out[3 * i + 2] = q;
}
