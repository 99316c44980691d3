// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A helper modifies its by-value struct (an array of structs inside):
// the caller's copy must not change (`passes::copy_byval_params`).
typedef struct { int a; int b; } Pair;
typedef struct { Pair p[4]; int n; } Bag;
__attribute__((noinline)) int consume(Bag bag, int k) {
    int s = 0;
    for (int i = 0; i < 4; i++) { bag.p[i].a += k; s += bag.p[i].a * bag.p[i].b; }
    bag.n = 99;
    return s + bag.n;
}
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    Bag bag;
    for (int j = 0; j < 4; j++) { bag.p[j].a = a[i] + j; bag.p[j].b = b[i] - j; }
    bag.n = 1;
    int r1 = consume(bag, 1);
    int r2 = consume(bag, 2);
    out[3 * i] = r1;
    out[3 * i + 1] = r2;
    out[3 * i + 2] = bag.p[0].a + bag.n;
}
