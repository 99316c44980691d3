// options: -cl-std=CL3.0
// Sub-group queries, collectives of 32/64-bit integers and floats,
// broadcasts with a constant and a run-time id, and sub-group barriers:
// GroupNonUniform* instructions, Subgroup builtins, a one-dimensional
// work-group (WorkgroupSize = (SpecId 0 × 1 × 2, 1, 1)) with local ids
// from LocalInvocationIndex.
kernel void queries(global uint* o) {
    size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
    o[i * 7 + 0] = get_sub_group_size();
    o[i * 7 + 1] = get_max_sub_group_size();
    o[i * 7 + 2] = get_num_sub_groups();
    o[i * 7 + 3] = get_enqueued_num_sub_groups();
    o[i * 7 + 4] = get_sub_group_id();
    o[i * 7 + 5] = get_sub_group_local_id();
    o[i * 7 + 6] = (uint)get_local_id(2);
}

kernel void collectives(global int* a, global ulong* b, global float* c, global double* d) {
    size_t i = get_global_id(0);
    a[i] = sub_group_reduce_add(a[i]) + sub_group_scan_exclusive_min(a[i])
         + sub_group_scan_inclusive_max(a[i]) + sub_group_broadcast(a[i], 3)
         + sub_group_all(a[i] > 0) + sub_group_any(a[i] < 0);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    b[i] = sub_group_reduce_max(b[i]) + sub_group_scan_inclusive_add(b[i])
         + sub_group_broadcast(b[i], (uint)(b[0] & 7));
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_sub_group);
    c[i] = sub_group_reduce_min(c[i]) + sub_group_scan_exclusive_add(c[i]);
    d[i] = sub_group_reduce_add(d[i]) + sub_group_scan_inclusive_min(d[i]);
}

__attribute__((reqd_work_group_size(4, 2, 3)))
kernel void reqd(global uint* o) {
    o[get_global_id(0) + 4 * (get_global_id(1) + 2 * get_global_id(2))] = get_sub_group_id() + get_num_sub_groups();
}
