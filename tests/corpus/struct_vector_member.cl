// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
typedef struct { float4 pos; float4 vel; } particle;

kernel void k(global const float* a, global const float* b, global float* out) {
    size_t i = get_global_id(0);
    particle p;
    p.pos = vload4(i, a);
    p.vel = vload4(i, b);
    p.pos += p.vel * 0.5f;
    vstore4(p.pos, i, out);
}
