__kernel void private_array(__global const int *in, __global int *out, int sel) {
  int hist[16];
  for (int i = 0; i < 16; i++)
    hist[i] = 0;
  size_t g = get_global_id(0);
  for (int i = 0; i < 32; i++)
    hist[in[g * 32 + i] & 15]++;
  out[g] = hist[sel & 15];
}
