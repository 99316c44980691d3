// nextafter on the bits (scalar, vector, double); __local pointer
// arguments aligned to 128 bytes whatever their pointee type.
kernel void next(global const float *x, global const float *y, global float *r,
                 global double2 *d, global float4 *v) {
    size_t i = get_global_id(0);
    r[i] = nextafter(x[i], y[i]);
    d[i] = nextafter(d[i], (double2)(0.0, 1.0));
    v[i] = nextafter(v[i], (float4)(-1.0f));
}

kernel void local_align(local char *a, local long16 *b, local double4 *c, global ulong *out) {
    out[0] = (ulong)a;
    out[1] = (ulong)b;
    out[2] = (ulong)c;
}
