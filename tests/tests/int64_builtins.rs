//! The 64-bit integer builtins (mul_hi, mad_hi, mad_sat, add_sat, sub_sat,
//! rotate, clz, ctz, popcount, abs, abs_diff, upsample, hadd, rhadd, min,
//! max) on `long` and `ulong`, over every pair of edge values (0, ±1,
//! powers of two and their neighbours around 2^31, 2^32, 2^63, the
//! extremes), against a 128-bit reference computed here. Written for the
//! NVIDIA GPU, where `add_sat` on `ulong` returned only the low 32 bits
//! while lavapipe was right: each builtin is checked on its own, so a
//! driver that folds one of them shows which. Scalars and every vector
//! width.

use ferrocl_tests::Cl;

/// One kernel per type and width: `u`/`s` (ulong/long scalars) and
/// `u2`..`u16`, `s2`..`s16` (vectors, each lane its own triple). Every
/// work-item takes `W` consecutive triples and writes `17 * W` results,
/// result-major per triple as the scalar kernels do.
const SOURCE: &str = r#"
#define N_OUT 17
#define BODY(T, UT, HT, UHT, LD, ST, W)                                        \
    size_t i = get_global_id(0);                                             \
    T x = LD(i, a), y = LD(i, b), z = LD(i, c);                              \
    T r[N_OUT];                                                              \
    r[0] = mul_hi(x, y);                                                     \
    r[1] = mad_hi(x, y, z);                                                  \
    r[2] = mad_sat(x, y, z);                                                 \
    r[3] = add_sat(x, y);                                                    \
    r[4] = sub_sat(x, y);                                                    \
    r[5] = rotate(x, y);                                                     \
    r[6] = clz(x);                                                           \
    r[7] = ctz(x);                                                           \
    r[8] = popcount(x);                                                      \
    r[9] = as_##T(abs(x));                                                   \
    r[10] = as_##T(abs_diff(x, y));                                          \
    r[11] = upsample(convert_##HT(x >> 7), convert_##UHT(y));                \
    r[12] = hadd(x, y);                                                      \
    r[13] = rhadd(x, y);                                                     \
    r[14] = min(x, y);                                                       \
    r[15] = max(x, y);                                                       \
    r[16] = x * y + z;                                                       \
    for (int f = 0; f < N_OUT; f++) {                                        \
        T v = r[f];                                                          \
        for (int l = 0; l < W; l++)                                          \
            out[N_OUT * (W * i + l) + f] = ((__private ST *)&v)[l];          \
    }

#define LD1(i, p) p[i]
#define KERNELS(W, LD, UT, UHT, T, HT)                                            \
kernel void u##W(global const ulong *a, global const ulong *b,                   \
                 global const ulong *c, global ulong *out) {                     \
    BODY(UT, UT, UHT, UHT, LD, ulong, W) }                                       \
kernel void s##W(global const long *a, global const long *b,                     \
                 global const long *c, global long *out) {                       \
    BODY(T, UT, HT, UHT, LD, long, W) }

kernel void u(global const ulong *a, global const ulong *b, global const ulong *c,
              global ulong *out) {
    BODY(ulong, ulong, uint, uint, LD1, ulong, 1)
}
kernel void s(global const long *a, global const long *b, global const long *c,
              global long *out) {
    BODY(long, ulong, int, uint, LD1, long, 1)
}
KERNELS(2, vload2, ulong2, uint2, long2, int2)
KERNELS(3, vload3, ulong3, uint3, long3, int3)
KERNELS(4, vload4, ulong4, uint4, long4, int4)
KERNELS(8, vload8, ulong8, uint8, long8, int8)
KERNELS(16, vload16, ulong16, uint16, long16, int16)
"#;

const NAMES: [&str; 17] = [
    "mul_hi", "mad_hi", "mad_sat", "add_sat", "sub_sat", "rotate", "clz", "ctz", "popcount", "abs",
    "abs_diff", "upsample", "hadd", "rhadd", "min", "max", "x*y+z",
];

fn edges() -> Vec<u64> {
    let mut v = vec![0, 1, 2, 3, 0x7f, 0xff, 0x1234_5678_9abc_def0];
    for p in [31, 32, 33, 62, 63] {
        let t = 1u64 << p;
        v.extend([t - 1, t, t + 1, t.wrapping_neg(), t.wrapping_neg() - 1]);
    }
    v.extend([
        u64::MAX,
        u64::MAX - 1,
        0xffff_ffff_0000_0000,
        0x0000_0001_ffff_ffff,
    ]);
    v.sort_unstable();
    v.dedup();
    v
}

/// (a, b, c) triples: every (a, b) pair, c cycling through the edges.
fn triples() -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let e = edges();
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for (k, &x) in e.iter().enumerate() {
        for (j, &y) in e.iter().enumerate() {
            a.push(x);
            b.push(y);
            c.push(e[(k * 7 + j * 3) % e.len()]);
        }
    }
    (a, b, c)
}

fn unsigned_ref(x: u64, y: u64, z: u64) -> [u64; 17] {
    let (wx, wy, wz) = (x as u128, y as u128, z as u128);
    let hi = ((wx * wy) >> 64) as u64;
    [
        hi,
        hi.wrapping_add(z),
        (wx * wy + wz).min(u64::MAX as u128) as u64,
        x.saturating_add(y),
        x.saturating_sub(y),
        x.rotate_left((y % 64) as u32),
        u64::from(x.leading_zeros()),
        u64::from(x.trailing_zeros()),
        u64::from(x.count_ones()),
        x,
        x.abs_diff(y),
        (((x >> 7) as u32 as u64) << 32) | (y as u32 as u64),
        ((wx + wy) >> 1) as u64,
        ((wx + wy + 1) >> 1) as u64,
        x.min(y),
        x.max(y),
        x.wrapping_mul(y).wrapping_add(z),
    ]
}

fn signed_ref(x: i64, y: i64, z: i64) -> [i64; 17] {
    let (wx, wy, wz) = (x as i128, y as i128, z as i128);
    let hi = ((wx * wy) >> 64) as i64;
    [
        hi,
        hi.wrapping_add(z),
        (wx * wy + wz).clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        x.saturating_add(y),
        x.saturating_sub(y),
        x.rotate_left((y as u64 % 64) as u32),
        i64::from(x.leading_zeros()),
        i64::from(x.trailing_zeros()),
        i64::from(x.count_ones()),
        x.unsigned_abs() as i64,
        x.abs_diff(y) as i64,
        ((((x >> 7) as i32 as i64) << 32) as u64 | (y as u32 as u64)) as i64,
        ((wx + wy) >> 1) as i64,
        ((wx + wy + 1) >> 1) as i64,
        x.min(y),
        x.max(y),
        x.wrapping_mul(y).wrapping_add(z),
    ]
}

/// Runs kernel `name` (`width` triples per work-item) over the triples;
/// returns the mismatches as lines.
fn check<T: ferrocl_tests::Pod + PartialEq + std::fmt::LowerHex>(
    cl: &Cl,
    name: &str,
    width: usize,
    a: Vec<T>,
    b: Vec<T>,
    c: Vec<T>,
    want: Vec<[T; 17]>,
) -> Vec<String> {
    // ctz is OpenCL C 2.0.
    let program = cl
        .try_build(SOURCE, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let k = program.kernel(name);
    let n = a.len();
    let (ab, bb, cb) = (cl.buffer_from(&a), cl.buffer_from(&b), cl.buffer_from(&c));
    let out = cl.buffer::<T>(17 * n);
    k.arg(0, &ab).arg(1, &bb).arg(2, &cb).arg(3, &out);
    assert_eq!(n % width, 0);
    cl.queue.run(&k, &[n / width], None);
    let got = cl.queue.read(&out);
    let mut bad = Vec::new();
    for i in 0..n {
        for (f, fname) in NAMES.iter().enumerate() {
            if got[17 * i + f] != want[i][f] {
                bad.push(format!(
                    "{name} {fname}({:#x}, {:#x}, {:#x}) = {:#x}, want {:#x}",
                    a[i],
                    b[i],
                    c[i],
                    got[17 * i + f],
                    want[i][f]
                ));
            }
        }
    }
    bad
}

#[test]
fn long_and_ulong_builtins_at_edge_values() {
    let cl = Cl::new();
    let (a, b, c) = triples();
    // A multiple of every width (1, 2, 3, 4, 8, 16).
    let n = a.len() / 48 * 48;
    let (a, b, c) = (a[..n].to_vec(), b[..n].to_vec(), c[..n].to_vec());
    let want_u: Vec<[u64; 17]> = (0..n).map(|i| unsigned_ref(a[i], b[i], c[i])).collect();
    let signed = |v: &[u64]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    let (sa, sb, sc) = (signed(&a), signed(&b), signed(&c));
    let want_s: Vec<[i64; 17]> = (0..n).map(|i| signed_ref(sa[i], sb[i], sc[i])).collect();
    let mut bad = Vec::new();
    for (suffix, width) in [("", 1), ("2", 2), ("3", 3), ("4", 4), ("8", 8), ("16", 16)] {
        let (u, s) = (format!("u{suffix}"), format!("s{suffix}"));
        bad.extend(check(
            &cl,
            &u,
            width,
            a.clone(),
            b.clone(),
            c.clone(),
            want_u.clone(),
        ));
        bad.extend(check(
            &cl,
            &s,
            width,
            sa.clone(),
            sb.clone(),
            sc.clone(),
            want_s.clone(),
        ));
    }
    let shown: Vec<&String> = bad.iter().take(40).collect();
    assert!(
        bad.is_empty(),
        "{} wrong results, first ones:\n{shown:#?}",
        bad.len()
    );
}
