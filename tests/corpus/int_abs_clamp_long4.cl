// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// 64-bit abs feeding min, max and clamp of a value built from the global
// id (GPU sample seed 7003 p21): NVIDIA's Vulkan compiler gave the wrong
// result for id 0 with GLSL's SAbs (passes/lower/ext_inst/inline.rs).
kernel void k(global const long* a, global const long* b, global long* out) {
    uint g = get_global_id(0);
    long4 s = ((long4)((long)((ulong)g))).wwzw;
    long4 n = as_long4(-(abs(s)));
    long4 lo = min((long4)(-1), n);
    long4 hi = max((long4)(-1), n);
    out[2 * g] = (~clamp((long4)(0), lo, hi)).x;
    out[2 * g + 1] = (long)abs(a[g]);
}
