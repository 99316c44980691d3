// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Switches returning float constants, one keyed on x & 15, one on x % 5.
kernel void k(global const int* a, global const int* b, global float* out) {
    size_t i = get_global_id(0);
    float r;
    switch (a[i] & 15) {
    case 0: r = 1.5f; break;
    case 1: r = 2.25f; break;
    case 2: r = -3.0f; break;
    case 3: r = 7.0f; break;
    case 4: r = 0.125f; break;
    case 5: r = 9.5f; break;
    case 6: r = 1e30f; break;
    default: r = 0.0f; break;
    }
    float t;
    switch ((uint)b[i] % 5u) {
    case 0: t = -1.0f; break;
    case 1: t = 0.5f; break;
    case 2: t = 3.75f; break;
    case 3: t = -0.0f; break;
    default: t = 100.0f; break;
    }
    out[2 * i] = r;
    out[2 * i + 1] = t;
}
