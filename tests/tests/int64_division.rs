//! 64-bit integer division and remainder (`/` and `%` on `long`, `ulong`
//! and their vectors) over edge values beyond 32 bits, against Rust's own
//! operators. Written for the NVIDIA GPU, where the differential fuzzer
//! found kernels with `rem_ulong`/`div_ulong` helpers (the fuzzer's
//! defined forms of `%` and `/`) wrong far more often than others:
//! 64-bit division takes the 64-bit path (`guard_int64_division` keeps the
//! 32-bit path for operands that fit) only for large operands, which the
//! fuzzer feeds and most tests do not. The kernels also use the
//! results as addresses and divide several dividends by one divisor (the
//! shape in which NVIDIA's compiler merged loads before).
//! `division_whose_operands_do_not_fit_in_32_bits_beside_a_switch` is a
//! reduced fuzz case: with the driver's own 64-bit division, NVIDIA's
//! compiler (driver 580) made a comparison after it take the wrong arm;
//! ferrocl now divides with `udivrem64` (`compiler/src/passes/udivrem64.rs`).

use ferrocl_tests::Cl;

const SOURCE: &str = r#"
kernel void scalar(global const ulong *a, global const ulong *b, global ulong *out) {
    size_t i = get_global_id(0);
    ulong x = a[i], y = b[i];
    long sx = (long)x, sy = (long)y;
    out[6 * i + 0] = x / y;
    out[6 * i + 1] = x % y;
    out[6 * i + 2] = (ulong)(sx / sy);
    out[6 * i + 3] = (ulong)(sx % sy);
    // Two dividends, one divisor.
    out[6 * i + 4] = (x + 1) % y;
    out[6 * i + 5] = (x ^ 0x5555555555555555UL) / y;
}

/// The remainders (and quotients) as load addresses.
kernel void addresses(global const ulong *a, global const ulong *b,
                      global const ulong *table, global ulong *out) {
    size_t i = get_global_id(0);
    ulong d = b[i];
    ulong r1 = a[i] % d, r2 = (a[i] + 1) % d, r3 = (a[i] + 2) % d;
    ulong q1 = a[i] / d, q2 = (a[i] >> 1) / d;
    out[5 * i + 0] = table[r1 & 63];
    out[5 * i + 1] = table[r2 & 63];
    out[5 * i + 2] = table[r3 & 63];
    out[5 * i + 3] = table[q1 & 63];
    out[5 * i + 4] = table[q2 & 63];
}

/// ferrocl-fuzz seed 7002, program 100034, reduced: wrong on the H200
/// (NVIDIA 580.159.04: every work-item takes the `if`, whose condition is
/// 0 for all of them; NVIDIA's own OpenCL and PoCL are right). Without the
/// `div_ulong` call, with `/` in place of its `b == 0 ? a : a / b`, or
/// without the `switch`, it is right. Not yet understood (issue 16).
typedef struct { ulong f0; ushort2 f1[8]; char2 f2; } S0;
constant ulong ctab[16] = {0x0UL, 0xffffffffffffff67UL, 0x92UL, 0x3f404fdf678a4483UL,
    0x8000000000000001UL, 0xffffffffffffff8fUL, 0xeb5fdcbc597ecec4UL, 0x8000000000000000UL,
    0xffffffffffffffc4UL, 0xffffffffffffffffUL, 0x1UL, 0x127UL, 0xffffffffffffffffUL, 0x0UL,
    0x8000000000000000UL, 0x1UL};
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
ulong div_ulong(ulong a, ulong b) { return (b == (ulong)0) ? a : (ulong)(a / b); }
kernel void speculated(global const ulong *in, global ulong *out) {
    const uint gid = get_global_id(0);
    ulong h = 0xcbf29ce484222325UL;
    S0 s4 = { 0, { 0, (((ushort2)0)).s11, 0, 0, 0, 0, 0, 0 }, 0 };
    s4.f0 = (ulong)get_group_id(0);
    int v9 = (int)div_ulong(s4.f0, abs_diff(s4.f0, 0x8000000000000001UL));
    switch (in[0] & 7) {
        case 2: {
            if (sub_sat(s4.f0, ctab[((char)ctab[((ushort)in[0]) & 15]) & 15]) & in[0]) {
                int v14 = (int)(long)in[gid & 63];
                h = (ulong)v14;
            }
        }
    }
    out[gid] = mix(h, (ulong)v9);
}

kernel void vectors(global const ulong *a, global const ulong *b, global ulong *out) {
    size_t i = get_global_id(0);
    ulong4 x = vload4(i, a), y = vload4(i, b);
    long4 sx = as_long4(x), sy = as_long4(y);
    vstore4(x / y, 4 * i + 0, out);
    vstore4(x % y, 4 * i + 1, out);
    vstore4(as_ulong4(sx / sy), 4 * i + 2, out);
    vstore4(as_ulong4(sx % sy), 4 * i + 3, out);
}
"#;

fn edges() -> Vec<u64> {
    let mut v = vec![
        1,
        2,
        3,
        7,
        0x7f,
        0xff,
        0x1234_5678_9abc_def0,
        0xc97d_0edc_d324_2602,
    ];
    for p in [31, 32, 33, 47, 62, 63] {
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

/// Every (dividend, divisor) pair of edge values with a defined signed
/// result too (no division by 0, no i64::MIN / -1), as many as a multiple
/// of 4 (the vector kernel's width).
fn pairs() -> (Vec<u64>, Vec<u64>) {
    let e = edges();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &e {
        for &y in &e {
            if y != 0 && !(x as i64 == i64::MIN && y as i64 == -1) {
                a.push(x);
                b.push(y);
            }
        }
    }
    let n = a.len() / 4 * 4;
    a.truncate(n);
    b.truncate(n);
    (a, b)
}

fn compare(kernel: &str, what: &[&str], a: &[u64], b: &[u64], got: &[u64], want: &[u64]) {
    let n = what.len();
    let bad: Vec<String> = (0..got.len())
        .filter(|&k| got[k] != want[k])
        .map(|k| {
            let i = k / n;
            format!(
                "{kernel} {}({:#x}, {:#x}) = {:#x}, want {:#x}",
                what[k % n],
                a[i],
                b[i],
                got[k],
                want[k]
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} results differ:\n{}",
        bad.len(),
        got.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn scalar_division_and_remainder_at_edge_values() {
    let cl = Cl::new();
    let (a, b) = pairs();
    let program = cl.build(SOURCE);
    let k = program.kernel("scalar");
    let (ab, bb) = (cl.buffer_from(&a), cl.buffer_from(&b));
    let out = cl.buffer::<u64>(6 * a.len());
    k.arg(0, &ab).arg(1, &bb).arg(2, &out);
    cl.queue.run(&k, &[a.len()], None);
    let got = cl.queue.read(&out);
    let want: Vec<u64> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &y)| {
            let (sx, sy) = (x as i64, y as i64);
            [
                x / y,
                x % y,
                (sx / sy) as u64,
                (sx % sy) as u64,
                x.wrapping_add(1) % y,
                (x ^ 0x5555_5555_5555_5555) / y,
            ]
        })
        .collect();
    let what = ["u/", "u%", "s/", "s%", "(x+1)%", "(x^k)/"];
    compare("scalar", &what, &a, &b, &got, &want);
}

#[test]
fn remainders_and_quotients_as_addresses() {
    let cl = Cl::new();
    let (a, b) = pairs();
    let table: Vec<u64> = (0..64u64)
        .map(|t| t.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let program = cl.build(SOURCE);
    let k = program.kernel("addresses");
    let (ab, bb, tb) = (
        cl.buffer_from(&a),
        cl.buffer_from(&b),
        cl.buffer_from(&table),
    );
    let out = cl.buffer::<u64>(5 * a.len());
    k.arg(0, &ab).arg(1, &bb).arg(2, &tb).arg(3, &out);
    cl.queue.run(&k, &[a.len()], None);
    let got = cl.queue.read(&out);
    let t = |v: u64| table[(v & 63) as usize];
    let want: Vec<u64> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &d)| {
            [
                t(x % d),
                t(x.wrapping_add(1) % d),
                t(x.wrapping_add(2) % d),
                t(x / d),
                t((x >> 1) / d),
            ]
        })
        .collect();
    let what = [
        "t[x%d]",
        "t[(x+1)%d]",
        "t[(x+2)%d]",
        "t[x/d]",
        "t[(x>>1)/d]",
    ];
    compare("addresses", &what, &a, &b, &got, &want);
}

#[test]
fn vector_division_and_remainder_at_edge_values() {
    let cl = Cl::new();
    let (a, b) = pairs();
    let program = cl.build(SOURCE);
    let k = program.kernel("vectors");
    let (ab, bb) = (cl.buffer_from(&a), cl.buffer_from(&b));
    let out = cl.buffer::<u64>(4 * a.len());
    k.arg(0, &ab).arg(1, &bb).arg(2, &out);
    cl.queue.run(&k, &[a.len() / 4], None);
    let got = cl.queue.read(&out);
    // Per work-item: 4 lanes of u/, then u%, s/, s%.
    let mut want = Vec::new();
    let mut a4 = Vec::new();
    let mut b4 = Vec::new();
    for (xs, ys) in a.chunks(4).zip(b.chunks(4)) {
        for op in 0..4 {
            for l in 0..4 {
                let (x, y) = (xs[l], ys[l]);
                let (sx, sy) = (x as i64, y as i64);
                want.push(match op {
                    0 => x / y,
                    1 => x % y,
                    2 => (sx / sy) as u64,
                    _ => (sx % sy) as u64,
                });
                a4.push(x);
                b4.push(y);
            }
        }
    }
    // One result per (pair, op) position, each named by its op.
    let what: Vec<&str> = (0..16).map(|k| ["u/", "u%", "s/", "s%"][k / 4]).collect();
    let bad: Vec<usize> = (0..got.len()).filter(|&k| got[k] != want[k]).collect();
    assert!(
        bad.is_empty(),
        "{} of {} results differ:\n{}",
        bad.len(),
        got.len(),
        bad.iter()
            .take(40)
            .map(|&k| format!(
                "vectors {}({:#x}, {:#x}) = {:#x}, want {:#x}",
                what[k % 16],
                a4[k],
                b4[k],
                got[k],
                want[k]
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn division_whose_operands_do_not_fit_in_32_bits_beside_a_switch() {
    let cl = Cl::new();
    let mut input = vec![0x43bf_5a48_027e_9afa_u64, 0x7fff_ffff_ffff_fffe, 0xd7, 0x6b];
    input.extend((4..64u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    let ctab: [u64; 16] = [
        0x0,
        0xffff_ffff_ffff_ff67,
        0x92,
        0x3f40_4fdf_678a_4483,
        0x8000_0000_0000_0001,
        0xffff_ffff_ffff_ff8f,
        0xeb5f_dcbc_597e_cec4,
        0x8000_0000_0000_0000,
        0xffff_ffff_ffff_ffc4,
        0xffff_ffff_ffff_ffff,
        0x1,
        0x127,
        0xffff_ffff_ffff_ffff,
        0x0,
        0x8000_0000_0000_0000,
        0x1,
    ];
    let mix = |h: u64, v: u64| {
        let h = (h ^ v).wrapping_mul(0x100_0000_01b3);
        h ^ (h >> 32)
    };
    let (global, local) = (128usize, 64usize);
    let want: Vec<u64> = (0..global)
        .map(|gid| {
            let g = (gid / local) as u64;
            let d = g.abs_diff(0x8000_0000_0000_0001);
            let v9 = g.checked_div(d).unwrap_or(g) as i32;
            let mut h = 0xcbf2_9ce4_8422_2325_u64;
            if input[0] & 7 == 2 {
                let c = ctab[((ctab[(input[0] as u16 & 15) as usize] as i8) & 15) as usize];
                if g.saturating_sub(c) & input[0] != 0 {
                    h = input[gid & 63] as i32 as i64 as u64;
                }
            }
            mix(h, v9 as i64 as u64)
        })
        .collect();
    let program = cl.build(SOURCE);
    let k = program.kernel("speculated");
    let ib = cl.buffer_from(&input);
    let out = cl.buffer::<u64>(global);
    k.arg(0, &ib).arg(1, &out);
    cl.queue.run(&k, &[global], Some(&[local]));
    let got = cl.queue.read(&out);
    let bad: Vec<String> = (0..global)
        .filter(|&i| got[i] != want[i])
        .map(|i| format!("work-item {i}: {:#x}, want {:#x}", got[i], want[i]))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// fuzz-open p400104 (GPU sample, seed 7002): a `long16` splat modulo a
/// constant vector passed through the fuzzer's guard
/// (`select(b, 1, b == 0 | (a == MIN & b == -1))`). ferrocl on the H200
/// gave the right remainders; the reference, PoCL, gave 0 in the lanes of
/// nonzero divisors (on the GPU machine inside the fuzz program, on the
/// development machine in this shape), so the mismatch was PoCL's.
#[test]
fn remainder_by_guarded_constant_divisors() {
    const DIVISORS: [i64; 16] = [
        56,
        0,
        6,
        -1,
        0,
        0,
        0,
        -1,
        0,
        0,
        6,
        0,
        0,
        0,
        0,
        0x65b6_8515_16b2_aa74,
    ];
    let list: Vec<String> = DIVISORS.iter().map(|d| format!("{d}L")).collect();
    let source = format!(
        "long16 rem_long16(long16 a, long16 b) {{ return a % select(b, (long16)(1), \
         (b == (long16)(0)) | ((a == (long16)(-9223372036854775807L - 1L)) & (b == (long16)(-1)))); }}\n\
         kernel void k(global const long* a, global long* o) {{\n\
         size_t i = get_global_id(0);\n\
         vstore16(rem_long16((long16)(a[i]), (long16)({})), i, o);\n}}\n",
        list.join(", ")
    );
    let cl = Cl::new();
    let a: Vec<i64> = edges().into_iter().map(|x| x as i64).collect();
    let program = cl.build(&source);
    let k = program.kernel("k");
    let ab = cl.buffer_from(&a);
    let out = cl.buffer::<i64>(16 * a.len());
    k.arg(0, &ab).arg(1, &out);
    cl.queue.run(&k, &[a.len()], None);
    let got = cl.queue.read(&out);
    let want: Vec<i64> = a
        .iter()
        .flat_map(|&x| {
            DIVISORS.map(|d| {
                let guarded = d == 0 || (x == i64::MIN && d == -1);
                x % if guarded { 1 } else { d }
            })
        })
        .collect();
    let bad: Vec<String> = (0..got.len())
        .filter(|&k| got[k] != want[k])
        .take(8)
        .map(|k| {
            format!(
                "{:#x} % {}: got {}, want {}",
                a[k / 16],
                DIVISORS[k % 16],
                got[k],
                want[k]
            )
        })
        .collect();
    assert!(bad.is_empty(), "wrong remainders:\n{}", bad.join("\n"));
}
