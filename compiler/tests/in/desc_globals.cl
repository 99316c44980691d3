// options: -cl-std=CL2.0
// descriptor:
// Descriptor addressing: program-scope __global variables in the
// global-variable buffer's binding, a pointer to one stored in another.
global int counter;
global float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
global float *cursor = &table[1];

kernel void use_globals(global float *out) {
    size_t i = get_global_id(0);
    out[i] = table[i & 3] + *cursor;
    atomic_inc(&counter);
}
