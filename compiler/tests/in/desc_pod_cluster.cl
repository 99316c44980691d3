// descriptor: -cluster-pod-kernel-args -pod-ubo
// Descriptor addressing: clustered POD arguments in a uniform buffer,
// including a struct by value, a char and a __local pointer.
typedef struct { float scale; int offset; char tag; } params;

kernel void foo(global int *a, float f, global float *b, uint c, params p, local int *tmp, char k) {
    size_t i = get_global_id(0);
    size_t l = get_local_id(0);
    tmp[l] = a[i] + p.offset + k;
    barrier(CLK_LOCAL_MEM_FENCE);
    b[i] = tmp[l ^ 1] * f * p.scale + c + p.tag;
}
