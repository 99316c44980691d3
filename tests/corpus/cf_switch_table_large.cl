// Corpus convention: kernel k(a, b, out); see tests/tests/corpus.rs.
// A 32-case switch returning int constants, and a 16-case one returning
// uchar constants (128 bits: a table).
kernel void k(global const int* a, global const int* b, global int* out) {
    size_t i = get_global_id(0);
    int r;
    switch (a[i] & 31) {
    case 0: r = 2; break;     case 1: r = 3; break;
    case 2: r = 5; break;     case 3: r = 7; break;
    case 4: r = 11; break;    case 5: r = 13; break;
    case 6: r = 17; break;    case 7: r = 19; break;
    case 8: r = 23; break;    case 9: r = 29; break;
    case 10: r = 31; break;   case 11: r = 37; break;
    case 12: r = 41; break;   case 13: r = 43; break;
    case 14: r = 47; break;   case 15: r = 53; break;
    case 16: r = -59; break;  case 17: r = -61; break;
    case 18: r = -67; break;  case 19: r = -71; break;
    case 20: r = -73; break;  case 21: r = -79; break;
    case 22: r = -83; break;  case 23: r = -89; break;
    case 24: r = 97000; break; case 25: r = 101000; break;
    case 26: r = 103000; break; case 27: r = 107000; break;
    case 28: r = 109000; break; case 29: r = 113000; break;
    case 30: r = 127000; break; default: r = 131000; break;
    }
    uchar u;
    switch (b[i] & 15) {
    case 0: u = 0; break;     case 1: u = 1; break;
    case 2: u = 4; break;     case 3: u = 9; break;
    case 4: u = 16; break;    case 5: u = 25; break;
    case 6: u = 36; break;    case 7: u = 49; break;
    case 8: u = 64; break;    case 9: u = 81; break;
    case 10: u = 100; break;  case 11: u = 121; break;
    case 12: u = 144; break;  case 13: u = 169; break;
    case 14: u = 196; break;  default: u = 225; break;
    }
    out[2 * i] = r;
    out[2 * i + 1] = u;
}
