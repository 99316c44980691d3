// options: -cl-std=CL3.0
// The optional sub-group extensions (test caps: every Vulkan sub-group
// operation): cl_khr_subgroup_extended_types (8/16-bit collectives, vector
// broadcasts) and cl_khr_subgroup_non_uniform_vote in a divergent branch:
// OpGroupNonUniformElect/All/Any/AllEqual with the Vote capability.
kernel void extended_types(global char* c, global ushort* s, global short4* v) {
    size_t i = get_global_id(0);
    c[i] = sub_group_reduce_add(c[i]) + sub_group_scan_inclusive_max(c[i]);
    s[i] = sub_group_scan_exclusive_min(s[i]) + sub_group_broadcast(s[i], 1);
    v[i] = sub_group_broadcast(v[i], 2);
}

kernel void non_uniform_vote(global int* o) {
    size_t i = get_global_id(0);
    if (get_sub_group_local_id() % 3u != 0u) {
        o[i] = sub_group_elect() + 2 * sub_group_non_uniform_all(o[i] > 0)
            + 4 * sub_group_non_uniform_any(o[i] > 0)
            + 8 * sub_group_non_uniform_all_equal(o[i])
            + 16 * sub_group_non_uniform_all_equal((uchar)o[i]);
    }
}

// cl_khr_subgroup_ballot: OpGroupNonUniformBallot* with the Ballot
// capability; the masks are computed from the sub-group local id and size
// (no Subgroup*Mask builtins); a broadcast from a run-time id is a shuffle.
kernel void ballot(global uint4* o, global uint* p) {
    size_t i = get_global_id(0);
    uint4 b = sub_group_ballot(p[i] > 3u);
    o[i] = b + get_sub_group_ge_mask() + get_sub_group_lt_mask();
    p[i] = sub_group_inverse_ballot(b) + sub_group_ballot_bit_extract(b, 2u)
        + sub_group_ballot_bit_count(b) + sub_group_ballot_inclusive_scan(b)
        + sub_group_ballot_exclusive_scan(b) + sub_group_ballot_find_lsb(b)
        + sub_group_ballot_find_msb(b) + sub_group_broadcast_first(p[i])
        + sub_group_non_uniform_broadcast(p[i], 1u)
        + sub_group_non_uniform_broadcast(p[i], p[0]);
}

// cl_khr_subgroup_shuffle(_relative): OpGroupNonUniformShuffle(Xor|Up|Down).
kernel void shuffles(global int* o, global float* h) {
    size_t i = get_global_id(0);
    uint l = get_sub_group_local_id();
    o[i] = sub_group_shuffle(o[i], l ^ 3u) + sub_group_shuffle_xor(o[i], 2u)
        + sub_group_shuffle_up(o[i], 1u) + sub_group_shuffle_down(o[i], 1u);
    h[i] = sub_group_shuffle_down(h[i], 2u);
}

// cl_khr_subgroup_non_uniform_arithmetic (Arithmetic) in a branch and
// cl_khr_subgroup_clustered_reduce (ClusteredReduce, Clustered).
kernel void arithmetic(global int* o, global float* f) {
    size_t i = get_global_id(0);
    if (o[i] > 0) {
        o[i] = sub_group_non_uniform_reduce_mul(o[i])
            + sub_group_non_uniform_scan_exclusive_xor(o[i])
            + sub_group_non_uniform_reduce_logical_and(o[i]);
        f[i] = sub_group_non_uniform_scan_inclusive_min(f[i]);
    }
    f[i + 1] = sub_group_clustered_reduce_add(f[i], 4)
        + (float)sub_group_clustered_reduce_or(o[i], 2);
}
