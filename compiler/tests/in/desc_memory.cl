// descriptor:
// Descriptor addressing: pointer arithmetic, type punning, char/short
// accesses, vectors (aligned and vload/vstore), atomics.
kernel void arith(global int *a, global int *b, int n) {
    size_t i = get_global_id(0);
    global int *p = a + 2 * i;
    p += n;
    b[i] = p[1] - *(b + i + 1);
}

kernel void pun(global float *f, global uint *out) {
    size_t i = get_global_id(0);
    global uint *u = (global uint *)f;
    out[i] = u[i] ^ 0x80000000u;
    ((global float *)out)[i + 1] = f[i] * 2.0f;
}

kernel void small(global uchar *c, global short *s, global char4 *c4) {
    size_t i = get_global_id(0);
    c[i] = c[i + 1] + 1;
    s[i] = (short)(s[2 * i] * 3);
    c4[i] = c4[i].wzyx;
}

kernel void vectors(global float4 *v, global float *f, global double2 *d) {
    size_t i = get_global_id(0);
    float4 x = v[i];
    float4 y = vload4(1, f + i);
    vstore4(x + y, 0, f + 3);
    v[i + 1] = x * y;
    d[i] = d[i].yx;
}

kernel void atomics(global int *counter, global uint *bits) {
    atomic_inc(counter);
    atomic_or(bits + 1, 1u << get_local_id(0));
}
