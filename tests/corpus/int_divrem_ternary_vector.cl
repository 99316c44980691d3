// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Vector division by a divisor chosen with the `?:` operator, which
// OpenCL C defines on vectors as a per-lane choice by the condition's sign
// bit (clang: icmp slt + select, SPIR-V OpSelect). The `select` builtin's
// form of this divided the wrong lanes on NVIDIA's Vulkan compiler (GPU
// sample seed 7003 p6, int_divrem_const_vector.cl).
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int x = a[i];
    int4 xv = (int4)(x);
    int4 d = (int4)(0, 0, 5, -1);
    int4 bad = (d == (int4)(0)) | ((xv == (int4)(INT_MIN)) & (d == (int4)(-1)));
    int4 r = xv % (bad ? (int4)(1) : d);
    int4 e = (int4)(3, -7, 0, 1);
    int4 q = xv / (e ? (int4)(9) : (e | (int4)(1)));
    uint4 m = (uint4)(1, 2, 4, 8) & (uint4)(x);
    uint4 u = as_uint4(xv) / (as_int4(m) != (int4)(0) ? (uint4)(6) : (uint4)(11));
    vstore4(r, 0, out + 12 * i);
    vstore4(q, 0, out + 12 * i + 4);
    vstore4(as_int4(u), 0, out + 12 * i + 8);
}
