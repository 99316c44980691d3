__kernel __attribute__((reqd_work_group_size(16, 4, 1))) __attribute__((vec_type_hint(float4)))
void reqd_size(__global int *out) {
  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = get_local_size(0) * get_local_size(1);
}
