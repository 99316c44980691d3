// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz (lavapipe seed 19 p53, reduced): a value computed
// in a loop from a load (a saturating conversion of it) and used after the
// loop, where work-item 0 leaves at once (a `break` on
// `clz(0)`, a constant) and the others run every iteration. On lavapipe
// that work-item read 0 (the value of the group's last iteration, where
// its load was masked). `passes::spill_loop_live_outs`.
kernel void k(global const ulong* a, global const int* b, global ulong* out) {
    const uint gid = get_global_id(0);
    ushort2 f = 0;
    for (uint j = 0; j < 4u; j++) {
        f = convert_ushort2_sat((ulong2)a[0]);
        out[256 + gid] = 0;
        if ((ushort)gid) continue;
        if (clz(0)) break;
    }
    out[gid] = ((ulong)f.s0 << 16) | f.s1;
}
