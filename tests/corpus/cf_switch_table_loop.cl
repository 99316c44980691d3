// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Dense switches inside a loop: each iteration looks up two tables.
kernel void k(global const int* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    int n = a[i] & 63;
    long s = 0;
    int c = 0;
    for (int j = 0; j < n; j++) {
        switch ((j + (b[i] & 7)) & 7) {
        case 0: s += 3; break;
        case 1: s += 1000000007L; break;
        case 2: s -= 11; break;
        case 3: s += 64; break;
        case 4: s += 5; break;
        case 5: s -= 1; break;
        default: s += 2; break;
        }
        switch (j % 6) {
        case 0: c += 1; break;
        case 1: c += 10; break;
        case 2: c += 100; break;
        case 3: c += 7; break;
        case 4: c += 70; break;
        default: c += 700; break;
        }
    }
    out[2 * i] = s;
    out[2 * i + 1] = c;
}
