typedef struct { int quotient; int remainder; } divmod_t;
divmod_t divmod(int a, int b) {
  divmod_t r = { a / b, a % b };
  return r;
}
// -O2 pairs the division and remainder with `freeze` (rewritten before
// llvm-spirv); dimension 3 queries are constants (0 for ids, 1 for sizes).
__kernel void divrem(__global const int *a, __global const int *b, __global int *out) {
  size_t i = get_global_id(0);
  divmod_t d = divmod(a[i], b[i]);
  out[2 * i] = d.quotient + get_global_id(3) + get_local_size(3);
  out[2 * i + 1] = d.remainder;
}
