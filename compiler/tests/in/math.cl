// options: -cl-fast-relaxed-math
__kernel void math(__global float *x, __global int *n) {
  size_t i = get_global_id(0);
  float v = x[i];
  float r = sqrt(v) + rsqrt(v) + fabs(v) + native_sin(v) + native_exp(v) + exp(v) + log(v) + pow(v, 2.5f)
          + sin(v) + cos(v) + tan(v) + floor(v) + ceil(v) + round(v) + trunc(v) + fmin(v, 1.0f) + fmax(v, 2.0f)
          + fma(v, v, v) + native_divide(v, 3.0f) + copysign(v, -1.0f) + exp10(v) + log10(v);
  int k = n[i];
  n[i] = min(k, 7) + max(k, -3) + clamp(k, 0, 100) + abs(k) + convert_int_rte(v) + convert_int_sat(v);
  x[i] = r;
}
