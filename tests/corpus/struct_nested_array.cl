// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
typedef struct { int v[2]; } inner;
typedef struct { inner in[4]; } outer;

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    outer o;
    for (int j = 0; j < 4; j++)
        o.in[j].v[0] = o.in[j].v[1] = a[i] + j;
    o.in[b[i] & 3].v[1] = 0;
    int s = 0;
    for (int j = 0; j < 4; j++)
        s += o.in[j].v[0] - o.in[j].v[1];
    out[i] = s;
}
