// cl_khr_depth_images: a depth image's texel is a float (component 0 of
// the Vulkan texel read, (d, 0, 0, 0) written); sampled reads too.
kernel void depth(read_only image2d_depth_t src, write_only image2d_depth_t dst,
                  read_only image2d_array_depth_t layers, sampler_t s,
                  global float *out) {
    int x = get_global_id(0);
    float d = read_imagef(src, (int2)(x, 0));
    float f = read_imagef(src, s, (float2)(x + 0.5f, 0.5f));
    float l = read_imagef(layers, (int4)(x, 0, 1, 0));
    out[x] = d + f + l + get_image_width(src) + get_image_array_size(layers);
    write_imagef(dst, (int2)(x, 0), d * 2.0f);
}
