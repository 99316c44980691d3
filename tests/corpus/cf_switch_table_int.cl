// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A dense switch returning int constants (a lookup-table candidate for
// SimplifyCFG), next to a loop whose closed-form sum needs 33 bits.
int pick(int x) {
    switch (x % 7) {
    case 0: return 13;
    case 1: return 27;
    case 2: return -5;
    case 3: return 99;
    case 4: return 1000;
    case 5: return 7;
    case 6: return 42;
    default: return -1;
    }
}

kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int n = a[i] & 255;
    int s = 0;
    for (int j = 0; j < n; j++)
        s += j;
    out[2 * i] = pick(a[i]);
    out[2 * i + 1] = s + pick(b[i]);
}
