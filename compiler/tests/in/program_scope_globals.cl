// options: -cl-std=CL2.0
// Program-scope __global variables: read-write state shared by kernels,
// initializers (scalar, array, pointer into an array, struct holding a
// pointer) and a static variable inside a kernel.
int counter;
global int g_var = 7;
int a_var[2] = {1, 2};
global int *p_var = &a_var[1];
struct S { int a; global int *p; } s = {3, &g_var};

__attribute__((noinline)) void bump(int by) { counter += by; }

kernel void writer(global int *src, uint idx) {
  g_var = src[0];
  a_var[0] = src[1];
  p_var = a_var + idx;
  bump(src[2]);
}

kernel void reader(global int *dst) {
  static global int calls = 100;
  dst[0] = counter;
  dst[1] = g_var;
  dst[2] = *p_var;
  dst[3] = *s.p + s.a;
  dst[4] = calls++;
}
