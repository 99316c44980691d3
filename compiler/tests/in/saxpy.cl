__kernel void saxpy(float alpha, __global const float *x, __global float *y) {
  size_t i = get_global_id(0);
  y[i] = mad(alpha, x[i], y[i]);
}
