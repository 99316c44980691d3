// options: -cl-std=CL3.0
// Generic pointers whose spaces are all known statically: lowered as the
// named spaces, with no tag dispatch (compiler/tests/generic_overhead.rs).
__attribute__((noinline)) float sum2(const float *p) { return p[0] + p[1]; }
__attribute__((noinline)) void scale(float *p, float k) { p[0] *= k; p[1] *= k; }
kernel void generic_static(global float *a, global float *b) {
  local float l[64];
  float priv[2] = {1, 2};
  int i = get_global_id(0);
  int li = get_local_id(0);
  l[li] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  scale(a + 2 * i, 2.0f);
  scale(priv, 3.0f);
  b[i] = sum2(a + 2 * i) + sum2(l + (li & 62)) + sum2(priv) + (float)get_fence(l);
}
