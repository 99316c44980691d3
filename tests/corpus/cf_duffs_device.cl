// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// Duff's device: a switch jumping into an unrolled do-while (irreducible).
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int count = b[i] & 31, s = a[i], acc = 0;
    int n = (count + 7) / 8;
    if (count > 0) {
        switch (count % 8) {
        case 0: do { acc = acc * 3 + s++;
        case 7:      acc = acc * 3 + s++;
        case 6:      acc = acc * 3 + s++;
        case 5:      acc = acc * 3 + s++;
        case 4:      acc = acc * 3 + s++;
        case 3:      acc = acc * 3 + s++;
        case 2:      acc = acc * 3 + s++;
        case 1:      acc = acc * 3 + s++;
                } while (--n > 0);
        }
    }
    out[i] = acc;
}
