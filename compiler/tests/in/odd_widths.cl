// LLVM's optimizer counts the true lanes of the four byte comparisons as
// `ctpop(bitcast <4 x i1> to i4)` and sums the loop in closed form
// (`passes::legalize_int_widths`).
int count_char(const uint *buf, const int elems, const uint c)
{
    int r = 0;
    for (int i = 0; i < elems; i++) {
        const uint v = buf[i];
        if (((v >>  0) & 0xff) == c) r++;
        if (((v >>  8) & 0xff) == c) r++;
        if (((v >> 16) & 0xff) == c) r++;
        if (((v >> 24) & 0xff) == c) r++;
    }
    return r;
}
int triangle(int n)
{
    int s = 0;
    for (int j = 0; j < n; j++) s += j;
    return s;
}
kernel void k(global const uint *a, global const uint *b, global int *out)
{
    size_t i = get_global_id(0);
    uint buf[4] = { a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3] };
    out[2 * i] = count_char(buf, (b[i] & 3) + 1, b[i] >> 8);
    out[2 * i + 1] = triangle(b[i] >> 16);
}
