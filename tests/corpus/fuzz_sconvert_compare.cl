// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz: a signed comparison of convert_long(int) (an
// OpSConvert from 32 to 64 bits, scalar or vector) with a constant gave
// wrong answers on lavapipe, as if the 64-bit value were a large positive
// number: (0 >= convert_long(0)) was 0, (convert_long(-1) < 6) was 0. The
// converted value itself was right, and so were char -> long and
// short -> int, and a (long) cast (LLVM folds it into the comparison).
// Values computed from the conversion were compared wrongly too (the last
// two words). ferrocl's way round it: passes::expand_long_sign_extensions.
kernel void k(global const int* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    int x = a[i];
    out[8 * i + 0] = convert_long(x) < 6;
    out[8 * i + 1] = 5 >= convert_long(x);
    out[8 * i + 2] = 0 < convert_long(x);
    out[8 * i + 3] = convert_long(x) >= 7;
    out[8 * i + 4] = convert_long(x);
    out[8 * i + 5] = (convert_long2((int2)(x, b[i])) < (long2)(6, 0)).x;
    out[8 * i + 6] = convert_long(x) * 3 > 6;
    out[8 * i + 7] = -convert_long(x) <= 2;
}
