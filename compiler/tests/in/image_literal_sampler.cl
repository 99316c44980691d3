// Reads with literal samplers: LINEAR (emulated: four OpImageFetch, f32 weights)
// and NEAREST + CLAMP with unnormalized coordinates
// (OpenCL's addressing emulated, border colour from the channel order).
const sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

kernel void blur(read_only image2d_t src, global float4 *out) {
  const sampler_t linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  float2 uv = (float2)(p.x + 0.5f, p.y + 0.5f) / (float2)(get_image_dim(src).x, get_image_dim(src).y);
  out[p.y * get_global_size(0) + p.x] = read_imagef(src, linear, uv) + read_imagef(src, nearest, p + 1);
}
