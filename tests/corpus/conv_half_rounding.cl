// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// convert_half{,_rtz,_rtn,_rtp} of a[i] cast to short, ushort, int, uint,
// long and ulong, as bits: out[24i + 4s + m] for source s and mode m (rte,
// rtz, rtn, rtp); out[24n + mn + i] through int4 (work-items i % 4 == 0).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global const long* a, global const int* b, global ushort* out) {
    size_t i = get_global_id(0), n = get_global_size(0);
    long x = a[i];
    global ushort* o = out + 24 * i;
    o[0] = as_ushort(convert_half((short)x));
    o[1] = as_ushort(convert_half_rtz((short)x));
    o[2] = as_ushort(convert_half_rtn((short)x));
    o[3] = as_ushort(convert_half_rtp((short)x));
    o[4] = as_ushort(convert_half((ushort)x));
    o[5] = as_ushort(convert_half_rtz((ushort)x));
    o[6] = as_ushort(convert_half_rtn((ushort)x));
    o[7] = as_ushort(convert_half_rtp((ushort)x));
    o[8] = as_ushort(convert_half((int)x));
    o[9] = as_ushort(convert_half_rtz((int)x));
    o[10] = as_ushort(convert_half_rtn((int)x));
    o[11] = as_ushort(convert_half_rtp((int)x));
    o[12] = as_ushort(convert_half((uint)x));
    o[13] = as_ushort(convert_half_rtz((uint)x));
    o[14] = as_ushort(convert_half_rtn((uint)x));
    o[15] = as_ushort(convert_half_rtp((uint)x));
    o[16] = as_ushort(convert_half((long)x));
    o[17] = as_ushort(convert_half_rtz((long)x));
    o[18] = as_ushort(convert_half_rtn((long)x));
    o[19] = as_ushort(convert_half_rtp((long)x));
    o[20] = as_ushort(convert_half((ulong)x));
    o[21] = as_ushort(convert_half_rtz((ulong)x));
    o[22] = as_ushort(convert_half_rtn((ulong)x));
    o[23] = as_ushort(convert_half_rtp((ulong)x));
    if (i % 4 == 0) {
        int4 v = convert_int4(vload4(0, a + i));
        vstore4(as_ushort4(convert_half4(v)), 0, out + 24 * n + i);
        vstore4(as_ushort4(convert_half4_rtz(v)), 0, out + 25 * n + i);
        vstore4(as_ushort4(convert_half4_rtn(v)), 0, out + 26 * n + i);
        vstore4(as_ushort4(convert_half4_rtp(v)), 0, out + 27 * n + i);
    }
}
