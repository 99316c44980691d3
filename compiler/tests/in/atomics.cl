__kernel void atomics(__global int *counters, __global uint *hist, __global const uint *data, __global float *fx) {
  __local uint lhist[16];
  uint lid = get_local_id(0);
  if (lid < 16)
    lhist[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint v = data[get_global_id(0)];
  atomic_inc(&lhist[v & 15]);
  atomic_add(&counters[0], (int)v);
  atomic_max(&counters[1], (int)v);
  atomic_min(&counters[2], (int)v);
  atomic_or(&counters[3], 1 << (v & 31));
  atomic_cmpxchg(&counters[4], 0, (int)get_global_id(0) + 1);
  atomic_xchg(&fx[get_global_id(0)], 2.5f);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 16)
    atomic_add(&hist[lid], lhist[lid]);
}
