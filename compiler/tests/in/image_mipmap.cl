// options: -cl-std=CL3.0
// cl_khr_mipmap_image: a read with a lod picks the level in the shader
// (NEAREST with a literal sampler; NEAREST or LINEAR between two levels,
// clamped to the lod range, with a sampler argument), a read with
// gradients computes the lod from level 0's size, and
// get_image_num_mip_levels reads the image's implicit field.
const sampler_t lit = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void mip(read_only image2d_t im, sampler_t s, float lod, global float4 *out,
                global int *levels) {
    out[0] = read_imagef(im, lit, (float2)(0.25f, 0.75f), lod);
    out[1] = read_imagef(im, s, (float2)(0.25f, 0.75f), lod);
    out[2] = read_imagef(im, lit, (float2)(0.25f, 0.75f), (float2)(0.5f, 0.0f),
                         (float2)(0.0f, 0.25f));
    levels[0] = get_image_num_mip_levels(im);
}

// cl_khr_mipmap_image_writes: level 0 is the image's own binding, levels
// 1 to 14 storage images of their own (IMAGE_LEVEL_BINDING_BASE), chosen
// by a switch in a helper.
kernel void mipwrite(write_only image2d_t w, int lod) {
    write_imagef(w, (int2)(get_global_id(0), 0), lod, (float4)(1.0f, 2.0f, 3.0f, 4.0f));
}
