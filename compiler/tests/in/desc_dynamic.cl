// descriptor:
// Descriptor addressing: a pointer passed to a helper, a select between
// two buffer arguments, a phi, a pointer loaded from memory, NULL checks.
int get(global const int *p, int i) { return p[i]; }

void put(global int *p, int i, int v) { p[i] = v; }

kernel void helper(global int *a, global int *b) {
    size_t i = get_global_id(0);
    put(b, i, get(a, i) + 1);
}

kernel void select_args(global float *x, global float *y, global float *out, int which) {
    size_t i = get_global_id(0);
    global float *src = which ? x : y;
    out[i] = src[i];
}

kernel void phi(global int *x, global int *y, global int *out, int n) {
    global int *p = x;
    for (int k = 0; k < n; k++) {
        if (p[k] < 0)
            p = y;
    }
    out[get_global_id(0)] = p[0];
}

kernel void loaded(global int *data, global int *out, global int *x) {
    global int *table[2];
    table[0] = data;
    table[1] = x;
    int k = get_global_id(0) & 1;
    out[get_global_id(0)] = table[k][0];
}

kernel void null_check(global int *maybe, global int *out) {
    out[0] = maybe != 0;
    if (maybe)
        out[1] = maybe[0];
}
