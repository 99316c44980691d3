// image1d_buffer_t: a uniform texel buffer (read_only) and a storage
// texel buffer (write_only), unsigned texels.
kernel void scale(read_only image1d_buffer_t in, write_only image1d_buffer_t out) {
  int i = get_global_id(0);
  if (i < get_image_width(in))
    write_imageui(out, i, read_imageui(in, i) * 2);
}
