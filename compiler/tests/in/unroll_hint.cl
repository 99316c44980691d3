// options: -cl-std=CL2.0
// Loop hints: llvm-spirv writes an OpLoopMerge where the hint sat (before
// the latch's compare); the structurizer must still get a valid CFG.
kernel void unroll_hint(global uint *dst, uint n) {
  __attribute__((opencl_unroll_hint(1)))
  for (uint i = 0; i < 100; ++i)
    dst[i] = i;
  #pragma unroll 4
  for (uint i = 0; i < n; ++i)
    dst[100 + i] = 2 * i;
}
