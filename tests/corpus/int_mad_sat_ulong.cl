// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// mad_sat(x, y, z) on ulong: a holds x[0..n] then z[0..n], b holds y.
// out[i] is the scalar result; out[n + i] the same through vectors:
// work-item i with i % 33 == 0 does lanes i..i+33 as a ulong16, a ulong8,
// a ulong4, a ulong3 and a ulong2.
kernel void k(global const ulong* a, global const ulong* b, global ulong* out) {
    size_t i = get_global_id(0), n = get_global_size(0);
    out[i] = mad_sat(a[i], b[i], a[n + i]);
    if (i % 33 != 0)
        return;
    global const ulong* x = a + i;
    global const ulong* y = b + i;
    global const ulong* z = a + n + i;
    global ulong* o = out + n + i;
    vstore16(mad_sat(vload16(0, x), vload16(0, y), vload16(0, z)), 0, o);
    vstore8(mad_sat(vload8(0, x + 16), vload8(0, y + 16), vload8(0, z + 16)), 0, o + 16);
    vstore4(mad_sat(vload4(0, x + 24), vload4(0, y + 24), vload4(0, z + 24)), 0, o + 24);
    vstore3(mad_sat(vload3(0, x + 28), vload3(0, y + 28), vload3(0, z + 28)), 0, o + 28);
    vstore2(mad_sat(vload2(0, x + 31), vload2(0, y + 31), vload2(0, z + 31)), 0, o + 31);
}
