// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

kernel void k(global const long* a, global const int* b, global long* out) {
    size_t i = get_global_id(0);
    atom_add(&out[i % 4], a[i]);
}
