__kernel void vectors(__global const float4 *a, __global float4 *b, __global float *c, float3 s, int2 t) {
  size_t i = get_global_id(0);
  float4 v = a[i] * (float4)(s, 1.0f);
  b[i] = v.wzyx + (float4)(convert_float2(t), 0.0f, 0.0f);
  float4 w = vload4(i, c);
  vstore3(w.xyz + dot(v, w), i, c + 4096);
  c[i] = length(v) + fmax(w.x, w.y) + clamp(w.z, 0.0f, 1.0f);
}
