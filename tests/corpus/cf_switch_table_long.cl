// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A dense switch on x & 15 returning long constants beyond 32 bits.
kernel void k(global const int* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    long r;
    switch (a[i] & 15) {
    case 0: r = 1L; break;
    case 1: r = 5000000000L; break;
    case 2: r = -3L; break;
    case 3: r = 0x7fffffffffffffffL; break;
    case 4: r = -9000000000000L; break;
    case 5: r = 9L; break;
    case 6: r = 100L; break;
    default: r = 0L; break;
    }
    out[i] = r;
}
