// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Five short constants (80 bits: a table, not a bitmap) and four ushort
// ones (64 bits: a bitmap).
kernel void k(global const int* a, global const int* b, global short* out) {
    size_t i = get_global_id(0);
    short r;
    switch (a[i] & 7) {
    case 0: r = 1; break;
    case 1: r = -32768; break;
    case 2: r = 32767; break;
    case 3: r = 12345; break;
    case 4: r = -2; break;
    default: r = 77; break;
    }
    ushort u;
    switch (b[i] & 3) {
    case 0: u = 65535; break;
    case 1: u = 1; break;
    case 2: u = 40000; break;
    default: u = 300; break;
    }
    out[2 * i] = r;
    out[2 * i + 1] = (short)u;
}
