// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
typedef struct { int x; float y; short z; char w; } rec;

kernel void k(global const rec* a, global const int* b, global float* out) {
    size_t i = get_global_id(0);
    rec r = a[i];
    out[i] = (float)r.x * r.y + (float)r.z - (float)r.w;
}
