// soft_int64_division: no 64-bit division reaches the driver (udivrem64).
kernel void int64_division(global const uint* f, global uint* o, ulong n, long s) {
    size_t i = get_global_id(0);
    o[3 * i] = f[(i + 1) % n];
    o[3 * i + 1] = (uint)((i + 2) / n);
    o[3 * i + 2] = (uint)(((long)i - 5) / s + ((long)i - 7) % s);
}
