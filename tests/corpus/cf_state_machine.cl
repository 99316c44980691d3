// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    uint bits = (uint)a[i];
    int state = 0, count = 0;
    for (int j = 0; j < 32; j++) {
        int bit = (bits >> j) & 1;
        switch (state) {
        case 0:
            state = bit ? 1 : 0;
            break;
        case 1:
            state = bit ? 2 : 0;
            break;
        default:
            if (!bit) {
                count++;
                state = 0;
            }
            break;
        }
    }
    out[i] = count * 4 + state;
}
