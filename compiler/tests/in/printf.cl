// printf: a scalar, a vector, a string literal and a call in a helper.
__attribute__((noinline)) void note(int i) { printf("note %d\n", i); }

kernel void show(global const float4 *v, global int *ret) {
  int i = get_global_id(0);
  ret[i] = printf("%d: %v4hlf %s\n", i, v[i], "end");
  note(i);
}
