// options: -cl-std=CL3.0
// image2d_from_buffer: every 2D image argument also has a texel-buffer
// binding (1024 + position), chosen by SpecId 7; reads, writes, sampled
// reads and size queries branch on it.
kernel void from_buffer(read_only image2d_t src, write_only image2d_t dst,
                        read_write image2d_t rw, sampler_t s, global float4 *out) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float4 v = read_imagef(src, p) + read_imagef(src, s, (float2)(p.x + 0.5f, p.y + 0.5f));
    uint4 u = read_imageui(rw, p);
    write_imageui(rw, p, u + 1u);
    out[p.y * get_image_width(src) + p.x] = v + (float)get_image_height(dst);
    write_imagef(dst, p, v);
}
