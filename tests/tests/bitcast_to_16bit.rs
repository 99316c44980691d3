//! 64-bit values reinterpreted as four 16-bit ones, against Rust's own
//! bit manipulation: lavapipe 22.3 (Mesa's NIR) gave 0 as the last
//! component when it folded the bitcast of a constant (lavapipe fuzz run,
//! seed 14 p212: `as_ushort16` of a `shuffle2` of constants), which
//! ferrocl avoids by bitcasting through two 32-bit halves on lavapipe
//! (`compiler/src/passes/split_bitcasts_to_16bit.rs`,
//! `DeviceCaps::split_bitcasts_to_16bit`).
//!
//! The folded cases fail on lavapipe with the pass off
//! (`FERROCL_SPLIT_BITCASTS_TO_16BIT=0`); the loaded ones were right
//! either way; PoCL passes them all.

use ferrocl_tests::Cl;

const SOURCE: &str = r#"
kernel void bitcasts(global const ulong *in, global ulong *out) {
    uint i = get_global_id(0);
    // rotate by 0 and shuffle2 are calls to clang, constants to lavapipe.
    ushort4 a = as_ushort4(rotate(0xfedcba9876543210UL, 0UL));
    short4 b = as_short4(rotate((long)0x8001800280038004UL, 0L));
    ushort16 c = as_ushort16(shuffle2((ulong8)(0x0123456789abcdefUL), (ulong8)(0),
                                      (ulong4)(0, 8, 1, 9)));
    ushort4 d = as_ushort4(in[i]);
    out[8 * i + 0] = (ulong)a.s0 | (ulong)a.s1 << 16 | (ulong)a.s2 << 32 | (ulong)a.s3 << 48;
    out[8 * i + 1] = (ulong)(ushort)b.s0 | (ulong)(ushort)b.s1 << 16
                   | (ulong)(ushort)b.s2 << 32 | (ulong)(ushort)b.s3 << 48;
    out[8 * i + 2] = (ulong)(long)b.s3;
    out[8 * i + 3] = (ulong)c.s0 | (ulong)c.s1 << 16 | (ulong)c.s2 << 32 | (ulong)c.s3 << 48;
    out[8 * i + 4] = (ulong)c.s4 | (ulong)c.s5 << 16 | (ulong)c.s6 << 32 | (ulong)c.s7 << 48;
    out[8 * i + 5] = (ulong)c.s8 | (ulong)c.s9 << 16 | (ulong)c.sa << 32 | (ulong)c.sb << 48;
    out[8 * i + 6] = (ulong)c.sc | (ulong)c.sd << 16 | (ulong)c.se << 32 | (ulong)c.sf << 48;
    out[8 * i + 7] = (ulong)d.s0 | (ulong)d.s1 << 16 | (ulong)d.s2 << 32 | (ulong)d.s3 << 48;
}
"#;

const N: usize = 64;

/// `x`'s four 16-bit parts put back together from the lowest up: `x`.
fn halves_joined(x: u64) -> u64 {
    (0..4).fold(0, |acc, k| acc | ((x >> (16 * k)) & 0xffff) << (16 * k))
}

#[test]
fn bitcasts_to_four_16bit_components() {
    let cl = Cl::new();
    let input: Vec<u64> = (0..N as u64)
        .map(|i| 0xfedc_ba98_7654_3210u64.rotate_left(i as u32) ^ i)
        .collect();
    let program = cl.build(SOURCE);
    let k = program.kernel("bitcasts");
    let inp = cl.buffer_from(&input);
    let out = cl.buffer::<u64>(8 * N);
    k.arg(0, &inp);
    k.arg(1, &out);
    cl.queue.run(&k, &[N], Some(&[16]));
    let got = cl.queue.read(&out);
    let c = 0x0123_4567_89ab_cdefu64;
    let want: Vec<u64> = input
        .iter()
        .flat_map(|&x| {
            [
                halves_joined(0xfedc_ba98_7654_3210),
                halves_joined(0x8001_8002_8003_8004),
                0x8001u16 as i16 as i64 as u64,
                // shuffle2 picks c (index 0 and 1) and 0 (index 8 and 9).
                halves_joined(c),
                0,
                halves_joined(c),
                0,
                halves_joined(x),
            ]
        })
        .collect();
    let bad: Vec<String> = got
        .iter()
        .zip(&want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(8)
        .map(|(j, (g, w))| format!("item {} slot {}: got {g:#x}, want {w:#x}", j / 8, j % 8))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("; "));
}
