// options: -cl-std=CL2.0
__constant float tbl[4] = {10, 20, 30, 40};
__attribute__((noinline)) float get(float *p, int i) { return p[i]; }
__attribute__((noinline)) void put(float *p, int i, float v) { p[i] = v; }
__attribute__((noinline)) float pick(__constant float *t, int i) { return t[i & 3]; }
kernel void generic_ptrs(global float *a, global float *b) {
  local float l[64];
  float priv[4] = {1, 2, 3, 4};
  int i = get_global_id(0);
  int li = get_local_id(0);
  put(l, li, get(a, i));
  barrier(CLK_LOCAL_MEM_FENCE);
  b[i] = get(l, 63 - li) + get(priv, i & 3);
}
kernel void constant_mix(__constant float *arg, global float *out) {
  int i = get_global_id(0);
  out[i] = pick(tbl, i) + pick(arg, i + 1);
}
