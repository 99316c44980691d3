// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Vector division by a divisor the compiler can fold to constants with
// lanes of 1 (GPU sample seed 7003 p6): NVIDIA's Vulkan compiler divided
// every lane by 1 (passes/sdiv_via_udiv.rs). PoCL 3.1 gets the guarded
// remainder wrong too (0 in lanes of nonzero divisors).
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int4 x = (int4)(a[i]);
    int4 d = (int4)(0, 0, 5, -1);
    int4 r = x % select(d, (int4)(1), (d == (int4)(0)) | ((x == (int4)(INT_MIN)) & (d == (int4)(-1))));
    int4 q = x / (int4)(1, 1, 7, 3);
    short4 s = convert_short4(x) / (short4)(1, -3, 5, 9);
    vstore4(r, 0, out + 12 * i);
    vstore4(q, 0, out + 12 * i + 4);
    vstore4(convert_int4(s), 0, out + 12 * i + 8);
}
