__kernel void conversions(__global const int *i, __global const float *f, __global uchar *uc, __global char *c,
                          __global ushort *us, __global int *cls, __global int8 *w) {
  size_t g = get_global_id(0);
  uc[g] = convert_uchar_sat(i[g]);
  c[g] = convert_char_sat((uint)i[g]);
  us[g] = convert_ushort_sat(f[g]);
  cls[g] = isfinite(f[g]) | (isnormal(f[g]) << 1) | (signbit(f[g]) << 2) | (isordered(f[g], 1.0f) << 3) |
           (convert_int_rtp(f[g]) << 4);
  w[g] = convert_int8_sat(vload8(0, f) * 1e9f) + convert_int8(vload8(0, i) > 5);
}
