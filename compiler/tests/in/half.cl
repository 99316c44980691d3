// cl_khr_fp16: conversions with a rounding mode (float and double to
// half, compared back and stepped one ulp), vstore_half_rtz, half division
// in float, and half math through the float functions (half.cl).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void half_ops(__global const float *f, __global const double *d, __global half *h,
                       __global half *out) {
  size_t g = get_global_id(0);
  out[4 * g] = convert_half_rtz(f[g]);
  out[4 * g + 1] = convert_half_rtp(d[g]);
  vstore_half_rtn(f[g], 4 * g + 2, out);
  out[4 * g + 3] = h[g] / h[g + 1] + sqrt(h[g]);
}
