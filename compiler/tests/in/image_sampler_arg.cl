// A sampler argument: its mode is read at run time (SamplerValue), so
// both the LINEAR and the emulated NEAREST paths are computed and selected.
kernel void sample(read_only image3d_t vol, sampler_t s, global float4 *out, float4 pos) {
  out[get_global_id(0)] = read_imagef(vol, s, pos);
}
