// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
typedef struct { int lo; int hi; } pair;

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    global pair* p = (global pair*)out;
    p[i].lo = a[i];
    p[i].hi = b[i];
    p[i].lo += p[i].hi;
}
