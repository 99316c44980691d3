typedef struct { float x; int y; char c; double d; } S;
__kernel void struct_arg(__global float *out, S s, __global S *ss) {
  size_t i = get_global_id(0);
  out[i] = s.x + s.y + s.c + (float)s.d;
  ss[i] = s;
}
