// soft_long_sign_extension: int -> long sign extensions become a zero extension and arithmetic (lavapipe).
kernel void long_sign_extension(global const int* a, global const int2* v, global long* o) {
    size_t i = get_global_id(0);
    long x = convert_long(a[i]);
    long2 w = convert_long2(v[i]);
    o[3 * i] = x < 6;
    o[3 * i + 1] = x * 3 > 6;
    o[3 * i + 2] = (w < (long2)(6, 0)).y + convert_long((char)a[i]);
}
