__constant float weights[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
__kernel void constant_table(__global const float *in, __global float *out, __constant float *bias) {
  int i = get_global_id(0);
  float acc = bias[0] + weights[i % 5];
  for (int k = 0; k < 5; k++)
    acc += weights[k] * in[i + k];
  out[i] = acc;
}
