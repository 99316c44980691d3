// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz (seed 7, program 144), reduced. On lavapipe the
// loop ran two passes instead of five: its `break` on a product with
// any(0), dead once Mesa's NIR folds it late, went through the loop's
// latch (compiler/src/passes/branch_loop_exits.rs, which gives lavapipe
// the break as a branch to the loop's merge block; test
// tests/tests/loop_exit_branches.rs). NVIDIA's driver (H200) and PoCL
// pass it. out[4i + 1..3] start as 0xA5A55A5ADEADBEEF.
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }

kernel void k(global const ulong* a, global const int* b, global ulong* out) {
    const uint i = get_global_id(0);
    const uint ob = i * 4u;
    ulong h = 0xcbf29ce484222325UL;
    for (uchar j = 0; j != 5; j++) {
        if ((int)((uint)any(0) * (uint)(int)a[31])) break;
        uint w = 0;
        while (w++) {
        }
        long v = (convert_long4_sat((long4)((long)(out[ob + 1 + (uint)((short)out[ob + 1]) % 3u])))).s3;
        h = mix(h, (ulong)w);
        h = mix(h, (ulong)v);
    }
    out[ob] = h;
}
