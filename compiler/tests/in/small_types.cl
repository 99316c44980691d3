__kernel void small_types(__global char *c, __global uchar *uc, __global short *s, __global ushort *us,
                          __global long *l, __global ulong *ul, char a, short b, long d, uchar4 e) {
  size_t i = get_global_id(0);
  c[i] = c[i] + a;
  uc[i] = max(uc[i], e.y);
  s[i] = s[i] * b;
  us[i] = us[i] >> 1;
  l[i] = l[i] / d + popcount(ul[i]);
  ul[i] = clz(ul[i]) + (ulong)mul_hi(l[i], d) + rotate(ul[i], (ulong)3);
}
