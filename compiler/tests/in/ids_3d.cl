// options: -cl-std=CL3.0
__kernel void ids_3d(__global uint *out, uint dim) {
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  size_t w = get_global_size(0), h = get_global_size(1);
  size_t idx = (z * h + y) * w + x;
  out[idx * 8 + 0] = get_local_id(0) + get_local_size(1) * 100;
  out[idx * 8 + 1] = get_group_id(2) + get_num_groups(0) * 100;
  out[idx * 8 + 2] = get_global_offset(1);
  out[idx * 8 + 3] = get_work_dim();
  out[idx * 8 + 4] = get_global_linear_id();
  out[idx * 8 + 5] = get_local_linear_id();
  out[idx * 8 + 6] = get_enqueued_local_size(0);
  out[idx * 8 + 7] = get_global_id(dim) + get_local_size(dim) * 1000;
}
