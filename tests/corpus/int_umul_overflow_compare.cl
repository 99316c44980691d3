// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// `UINT_MAX / d < x`, which clang's -O2 turns into "d * x overflows"
// (llvm.umul.with.overflow): llvm-spirv-15 lowers that intrinsic as
// `a != (a * b) / a`, the wrong operand (frontend/overflow_multiplies.rs;
// lavapipe fuzz seed 231 p77).
kernel void k(global const uint* a, global const uint* b, global int* out) {
    size_t i = get_global_id(0);
    uint d = a[i] | 1u;
    uint x = b[i] >> (a[i] & 31u);
    uint3 dv = (uint3)(d, d + 2u, 1u);
    uint3 xv = (uint3)(x, x ^ 5u, 0u);
    int3 c = 0xffffffffu / dv < xv;
    out[4 * i] = 0xffffffffu / d < x;
    vstore3(c, 0, out + 4 * i + 1);
}
