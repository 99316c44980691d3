// options: -cl-std=CL3.0
// `split_private_frame`: `own` (constant and dynamic indices, bytes read
// through a generic uchar pointer) and `st` (a struct with an array
// member) get Function arrays of their own; `shared` (passed alone to a
// helper) a Private array of its own; `gen0` and `gen1` (one of them,
// chosen at run time, passed as a generic pointer) stay in the private
// frame.
typedef struct { uint n; ushort h[3]; ulong big; } rec;

__attribute__((noinline)) uint total(const private uint *p, uint n) {
    uint s = 0;
    for (uint i = 0; i < n; i++) s += p[i];
    return s;
}

__attribute__((noinline)) uint first(const uint *p) { return p[0]; }

kernel void split(global const uint *in, global uint *out) {
    uint g = get_global_id(0);
    uint own[6], shared[4], gen0[4], gen1[4];
    rec st[2];
    for (uint i = 0; i < 6; i++) own[i] = in[g + i];
    for (uint i = 0; i < 4; i++) shared[i] = in[g + 6 + i];
    for (uint i = 0; i < 4; i++) gen0[i] = in[g + 10 + i];
    for (uint i = 0; i < 4; i++) gen1[i] = in[g + 14 + i];
    own[in[g] % 6] ^= 1;
    st[0].n = own[0];
    st[1].n = own[1];
    st[g & 1].h[in[g] % 3] = (ushort)own[2];
    st[1].big = (ulong)own[3] << 32 | own[4];
    uchar *bytes = (uchar *)own;
    out[g] = bytes[5] + bytes[in[g] % 24] + st[in[g] & 1].h[1] + (uint)st[1].big
             + total(shared, 4) + first((g & 4 ? gen0 : gen1) + (g & 3));
}
