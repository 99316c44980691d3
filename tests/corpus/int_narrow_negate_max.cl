// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A 16-bit negation that wraps (-(-32768) is -32768) read as signed by
// max, the maximum then used as a shift count (GPU fuzz sample seed 7003
// p7 k4): NVIDIA's Vulkan compiler took the widened negation's 32-bit
// result as already sign-extended (passes/widen_narrow_arithmetic.rs).
kernel void k(global const short* a, global const short* b, global short* out) {
    uint g = get_global_id(0);
    short4 v = (short4)(a[g], b[g], (short)-32768, a[g] ^ b[g]);
    short4 w = (short4)(b[g], 0, a[g] & 3, -1);
    short4 c = max((short4)(37) | w, -v);
    short4 m = min((short4)(-37) & w, -v);
    vstore4(c, 0, out + 12 * g);
    vstore4(m, 0, out + 12 * g + 4);
    vstore4((short4)(30) >> c, 0, out + 12 * g + 8);
}
