// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A splat rotated by a constant vector of counts, some negative or past
// the width (GPU fuzz sample, seed 7002 p100052).
kernel void k(global const short* a, global const short* b, global short* out) {
    size_t i = get_global_id(0);
    short16 x = (short16)(a[i]);
    short16 n = (short16)(0, -1, 6, 6, 152, -1, (short)0x8000, 0, -1, 267, 176, 0x7ffe, 0,
                          (short)0x8001, -1, -232);
    vstore16(rotate(x, n), i, out);
}
