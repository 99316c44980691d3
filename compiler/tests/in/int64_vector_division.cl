// guard_int64_division on vectors: each lane takes the guarded scalar path.
kernel void int64_vector_division(global const long2* a, global const long2* b, global long2* o) {
    size_t i = get_global_id(0);
    o[i] = a[i] % b[i];
}
