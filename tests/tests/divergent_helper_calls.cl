// Helper functions with early returns, a goto, loops and a by-value
// struct they modify, called from divergent branches (two call sites
// each): the shape of pyopencl's Hankel functions, whose kernel NVIDIA's
// driver 580 ran forever while they stayed calls
// (`DeviceCaps::inline_functions`).
// Used by compiler/tests/inline_functions.rs and
// tests/tests/programs.rs (`divergent_helper_calls`).
typedef struct { double re, im; } cplx;
__attribute__((noinline)) double kept(double x) { return x * 3.0 + 1.0; }
double poly(__constant double *c, int m, double x) {
    double f = c[m - 1];
    for (int i = m - 2; i >= 0; i--) f = f * x + c[i];
    return f;
}
__constant double C1[] = {1.0, -0.5, 0.25, -0.125, 0.0625, 0.03125, 0.5, 0.75};
__constant double C2[] = {0.3, 0.2, -0.1, 0.05, -0.025, 0.0125, 0.9, 0.1, 0.7};
void region_a(cplx z, double *out) {
    z.re = z.re * 2.0;
    double d = z.re * z.re + z.im * z.im;
    if (d < 1.0) { *out = poly(C1, 8, z.re) + sin(z.im); return; }
    if (d > 16.0) goto big;
    *out = poly(C2, 9, z.im) * exp(-d);
    return;
big:
    *out = log(d) + kept(z.re);
}
void region_b(cplx z, double *out) {
    z.im = -z.im;
    if (z.re > 4.0) { *out = poly(C2, 7, 1.0 / z.re); return; }
    double s = 0.0;
    for (int i = 0; i < 16; i++) s += poly(C1, 4, z.im + i);
    *out = s + cos(z.re);
}
kernel void hankel_like(global const double2 *in, global double *out) {
    size_t g = get_global_id(0);
    cplx z = { in[g].x, in[g].y };
    double a = 0.0, b = 0.0;
    if (z.im < 0.0) {
        if (z.re < 0.0) { region_a(z, &a); region_b(z, &b); }
        else region_b(z, &b);
    } else {
        region_a(z, &a);
    }
    out[g] = a + b + z.re;
}
