// options: -cl-std=CL3.0
// cl_ext_float_atomics (`lower::atomic::float`; test caps: no native float
// atomics): compare-exchange loop helpers on __global and __local floats,
// the local64 lock for __local doubles.
kernel void fa(global atomic_float* f, global atomic_double* d, local atomic_float* lf,
               local atomic_double* ld, global float* v) {
    size_t i = get_global_id(0);
    float x = atomic_fetch_add(f, v[i]) + atomic_fetch_min(f + 1, v[i]);
    x += atomic_fetch_sub_explicit(lf, v[i], memory_order_relaxed);
    x += atomic_fetch_max(d, v[i]) + atomic_fetch_add(ld, v[i]);
    v[i] = x;
}
