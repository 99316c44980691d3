// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz: an initialiser holding an all-constant array
// nested in a 2-D array or a struct, next to run-time values, failed to
// build ("spirt could not read the lowered module: malformed SPIR-V (in
// OpVariable: `Function` storage class outside function)"). clang-15 emits
// the constant row as a module-scope constant in the private address space
// (@constinit) and copies it in with llvm.memcpy.
typedef struct { int f[8]; int g; } S;
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int t[2][8] = { { -108, 5, 1, 2, 3, 4, 5, 6 }, { a[i], 7 } };
    S s = { { 10, 20, 30, 40, 50, 60, 70, 80 }, b[i] };
    out[3 * i] = t[b[i] & 1][i & 7];
    out[3 * i + 1] = t[0][a[i] & 7];
    out[3 * i + 2] = s.f[a[i] & 7] ^ s.g;
}
