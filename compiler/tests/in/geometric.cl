// Geometric builtins GLSL.std.450 lacks as OpenCL defines them: cross of
// 4-vectors, overflow-safe length/distance/normalize, double degrees.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void geometric(global float4 *a, global float *l, global double2 *d) {
  size_t i = get_global_id(0);
  a[2 * i] = cross(a[2 * i], a[2 * i + 1]);
  l[i] = length(a[2 * i + 1]) + distance(a[i].xy, a[i].zw);
  a[2 * i + 1] = normalize(a[2 * i + 1]);
  d[i] = degrees(d[i]) + radians(d[i].yx);
}
