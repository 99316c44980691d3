// Image queries: sizes (OpImageQuerySizeLod on sampled images,
// OpImageQuerySize on storage ones), channel order and data type
// (implicit fields).
kernel void info(read_only image2d_array_t a, write_only image3d_t b, global int *out) {
  int4 d = get_image_dim(b);
  out[0] = get_image_width(a);
  out[1] = get_image_height(a);
  out[2] = get_image_array_size(a);
  out[3] = d.z + get_image_depth(b);
  out[4] = get_image_channel_order(a);
  out[5] = get_image_channel_data_type(b);
}
