// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// convert_float{,_rtz,_rtn,_rtp}(long) as bits, over n = global size
// work-items: out[4i + m] the scalar result of mode m (rte, rtz, rtn,
// rtp), out[4n + mn + i] through long2 (work-items i % 2 == 0),
// out[8n + mn + i] through long8 (work-items i % 8 == 0).
kernel void k(global const long* a, global const int* b, global uint* out) {
    size_t i = get_global_id(0), n = get_global_size(0);
    long x = a[i];
    out[4 * i] = as_uint(convert_float(x));
    out[4 * i + 1] = as_uint(convert_float_rtz(x));
    out[4 * i + 2] = as_uint(convert_float_rtn(x));
    out[4 * i + 3] = as_uint(convert_float_rtp(x));
    if (i % 2 == 0) {
        long2 v = vload2(0, a + i);
        vstore2(as_uint2(convert_float2(v)), 0, out + 4 * n + i);
        vstore2(as_uint2(convert_float2_rtz(v)), 0, out + 5 * n + i);
        vstore2(as_uint2(convert_float2_rtn(v)), 0, out + 6 * n + i);
        vstore2(as_uint2(convert_float2_rtp(v)), 0, out + 7 * n + i);
    }
    if (i % 8 == 0) {
        long8 v = vload8(0, a + i);
        vstore8(as_uint8(convert_float8(v)), 0, out + 8 * n + i);
        vstore8(as_uint8(convert_float8_rtz(v)), 0, out + 9 * n + i);
        vstore8(as_uint8(convert_float8_rtn(v)), 0, out + 10 * n + i);
        vstore8(as_uint8(convert_float8_rtp(v)), 0, out + 11 * n + i);
    }
}
