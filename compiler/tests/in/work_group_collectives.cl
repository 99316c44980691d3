// options: -cl-std=CL3.0
// Work-group collectives (`lower::work_group`): sub-group reductions and
// scans, the scratch slots between two barriers, the fold helper; the 2D
// broadcast's linear id; all/any as unsigned min/max.
kernel void wg(global int* o, global float* f, global long* l) {
    size_t i = get_global_id(0);
    int x = o[i];
    o[i] = work_group_reduce_add(x) + work_group_scan_exclusive_min(x)
        + work_group_broadcast(x, 1, 2) + work_group_all(x > 0);
    f[i] = work_group_scan_inclusive_max(f[i]);
    l[i] = work_group_reduce_min(l[i]);
}
