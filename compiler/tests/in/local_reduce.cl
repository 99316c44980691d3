__kernel void local_reduce(__global const float *in, __global float *out, __local float *scratch) {
  __local float partial[64];
  uint lid = get_local_id(0);
  uint lsz = get_local_size(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = lsz / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid < 64)
    partial[lid] = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (lid == 0)
    out[get_group_id(0)] = partial[lsz > 64 ? 63 : lsz - 1];
}
