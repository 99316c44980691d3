// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A switch whose cases hold switches, all returning constants, in a
// helper called from a loop.
uint cell(uint x, uint y) {
    switch (x & 3) {
    case 0:
        switch (y & 3) {
        case 0: return 1; case 1: return 2; case 2: return 3; default: return 4;
        }
    case 1:
        switch (y & 3) {
        case 0: return 50; case 1: return 60; case 2: return 70; default: return 80;
        }
    case 2:
        switch (y % 3) {
        case 0: return 0xffffffffu; case 1: return 7u; default: return 0x80000000u;
        }
    default:
        return 9;
    }
}

kernel void k(global const uint* a, global const uint* b, global uint* out) {
    size_t i = get_global_id(0);
    uint s = 0;
    for (uint j = 0; j < 8; j++)
        s += cell(a[i] >> (2 * j), b[i] >> (3 * j));
    out[i] = s;
}
