// descriptor:
// printf with descriptor addressing: the buffer is the binding after every
// other; a call in a helper, and a kernel whose only binding is printf's.
__attribute__((noinline)) void note(int i) { printf("note %d\n", i); }

kernel void show(global const float4 *v, global int *ret, int base) {
  int i = get_global_id(0);
  ret[i] = printf("%d: %v4hlf %s %ld\n", i + base, v[i], "end", (long)i);
  note(i);
}

kernel void hello(void) { printf("hello %u\n", (uint)get_global_id(0)); }
