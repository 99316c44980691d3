__kernel void builtins(__global const int *a, __global const int *b, __global int *iout, __global const float *f,
                       __global float *fout, __global half *h, __global const uchar *c) {
  size_t g = get_global_id(0);
  int x = a[g], y = b[g];
  iout[g * 8 + 0] = add_sat(x, y);
  iout[g * 8 + 1] = sub_sat(x, y);
  iout[g * 8 + 2] = (int)add_sat((uint)x, (uint)y);
  iout[g * 8 + 3] = hadd(x, y) + rhadd(x, y);
  iout[g * 8 + 4] = (int)abs_diff(x, y);
  iout[g * 8 + 5] = upsample(c[g], c[g + 1]) + upsample((char)c[g], c[g + 1]);
  iout[g * 8 + 6] = ilogb(f[g] + 10.0f);
  iout[g * 8 + 7] = (int)sub_sat((ushort)x, (ushort)y);
  float v = f[g], ip, cv;
  int e;
  fout[g * 8 + 0] = fract(v, &ip);
  fout[g * 8 + 1] = ip;
  fout[g * 8 + 2] = modf(v, &ip) + ip * 10.0f;
  fout[g * 8 + 3] = sincos(v, &cv) + cv * 10.0f;
  fout[g * 8 + 4] = frexp(v + 10.0f, &e) + e;
  fout[g * 8 + 5] = maxmag(v, -2.0f) + pown(v, 3);
  fout[g * 8 + 6] = vload_half(g, h);
  fout[g * 8 + 7] = isnan(nan(1u)) ? 1.0f : 0.0f;
  vstore_half(v * 2.0f, g + 64, h);
  vstore_half4(vload_half4(g, h) + 1.0f, g + 32, h);
}
