// options: -cl-std=CL3.0
// Storage images: write_only and read_write, components permuted by the
// channel order; integer texels (signed sampled type).
kernel void copy(read_write image2d_t img, write_only image2d_array_t out) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  int4 v = read_imagei(img, p);
  write_imagei(img, p, v + 1);
  write_imagef(out, (int4)(p, 2, 0), convert_float4(v));
}
