// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz: convert_T_sat from a narrower signed integer type
// to a wider signed one (char -> short/int/long, short -> int/long,
// int -> long; scalars and vectors) zero-extended negative values:
// convert_int_sat((char)-5) was 251. Every value is in range, so the
// result is the value, sign-extended.
kernel void k(global const long* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    long x = a[i];
    out[8 * i + 0] = convert_short_sat((char)x);
    out[8 * i + 1] = convert_int_sat((char)x);
    out[8 * i + 2] = convert_long_sat((char)x);
    out[8 * i + 3] = convert_int_sat((short)x);
    out[8 * i + 4] = convert_long_sat((short)x);
    out[8 * i + 5] = convert_long_sat((int)x);
    out[8 * i + 6] = convert_int4_sat((short4)((short)x, (short)(x >> 16), 1, -1)).y;
    out[8 * i + 7] = convert_long2_sat((char2)((char)(x >> 8), (char)x)).x;
}
