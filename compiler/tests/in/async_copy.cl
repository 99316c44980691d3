kernel void k(const global float4 *src, global float4 *dst, local float4 *lb, int n) {
  event_t ev = async_work_group_copy(lb, src + n*get_group_id(0), (size_t)n, 0);
  wait_group_events(1, &ev);
  event_t e2[2];
  e2[0] = async_work_group_strided_copy(dst, lb, (size_t)n, 3, 0);
  e2[1] = async_work_group_copy(dst, lb, (size_t)n, e2[0]);
  wait_group_events(2, e2);
}
