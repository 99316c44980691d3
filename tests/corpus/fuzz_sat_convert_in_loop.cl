// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz (seed 7, program 144), reduced; not understood
// yet: on lavapipe a same-type saturating vector conversion of a value
// loaded from a computed index, inside a loop, gives another value than
// the load (without the loop, without the conversion, or with a constant
// index, the result is right). NVIDIA's driver (H200) and PoCL pass it. out[4i + 1..3] start as 0xA5A55A5ADEADBEEF.
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
