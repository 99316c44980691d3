// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
typedef struct __attribute__((packed)) { char c; int x; } packed_rec;

kernel void k(global const uchar* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    global const packed_rec* r = (global const packed_rec*)a;
    out[2 * i] = r[i].c;
    out[2 * i + 1] = r[i].x;
}
