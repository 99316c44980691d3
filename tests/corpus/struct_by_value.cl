// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
typedef struct { int x; float y; short z; char w; } rec;

rec make(int x, float y) {
    rec r = {x, y, (short)(x * 3), (char)x};
    return r;
}

float sum(rec r) {
    return (float)r.x + r.y + (float)r.z + (float)r.w;
}

kernel void k(global const int* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    rec r = make(a[i], b[i]);
    out[i] = sum(r);
}
