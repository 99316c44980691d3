// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A dense switch returning double constants (bits written as longs).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global const int* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    double r;
    switch (a[i] & 15) {
    case 0: r = 0.1; break;
    case 1: r = -2.5; break;
    case 2: r = 1e300; break;
    case 3: r = 3.0; break;
    case 4: r = 4.75; break;
    case 5: r = -1e-300; break;
    case 6: r = 6.0; break;
    default: r = 0.0; break;
    }
    out[i] = as_long(r);
}
