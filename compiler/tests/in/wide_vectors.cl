__kernel void wide_vectors(__global const float8 *a, __global float16 *b, __global uchar16 *c, float8 s, int k,
                           __global ulong *d) {
  size_t i = get_global_id(0);
  float8 v = a[i] * s + (float8)(1.0f);
  v = fmax(v, (float8)(0.5f));
  float16 w = (float16)(v, v.s76543210);
  w.s3 = (float)k;
  b[i] = w;
  c[i] = as_uchar16(v.lo) + (uchar16)(1);
  float8 x = vload8(i, (__global const float *)a);
  d[i] = as_ulong(convert_uchar8(x));
  float16 y = w;
  y[k & 15] = 42.0f;
  b[i + 64].s0 = y[(k + 1) & 15] + y[k & 15] + (any(v > 3.0f) ? 1000.0f : 0.0f);
}
