// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Found by ferrocl-fuzz: failed to build with "llvm-spirv failed:
// InvalidFunctionCall: Unexpected llvm intrinsic" (llvm.vector.reduce.mul
// .v4i8). The switch gives LLVM's -O2 an odd integer width, so the program
// takes the front end's second -O2 build with native integer widths
// (optimize_with_native_widths); there the vectorizer turns the product
// loop into a vector reduction, which llvm-spirv-15 cannot translate.
// The front end now expands vector reductions first
// (frontend::expand_vector_reductions).
kernel void k(global const ulong* a, global const int* b, global ulong* out) {
    size_t i = get_global_id(0);
    ulong h = 0xcbf29ce484222325UL;
    switch (min((int)a[1], 0) & 7) {
        case 1: {
        }
        case 7: {
            h = 0;
        }
    }
    uchar v = (uchar)a[0];
    for (uchar x = 0; x != 5; x++) {
        for (long y = -2; y < 6; y += 2) {
            v = (uchar)((uint)v * (uint)((uchar)((uchar)a[0] >> bitselect(1u, 0x80000001u, (uint)i))));
        }
    }
    out[i] = v ^ h;
}
