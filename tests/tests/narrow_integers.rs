//! Narrow integer results that wrap, and 64-bit masks shifted, against
//! Rust's own arithmetic: two miscompiles of NVIDIA's Vulkan compiler
//! (driver 580) that the GPU fuzz sample found (`tests/fuzz-open`, seed
//! 7002) and that were reduced on the H200 to these kernels.
//!
//! - `negated_narrow_quotients`: `(long)(char)(-c)` for `c = -128` that
//!   came out of a division or a right shift gave `+128`: the driver lost
//!   the wrap-around of the 8-bit (and 16-bit) negation before the sign
//!   extension. ferrocl computes narrow arithmetic in 32 bits and
//!   sign-extends with a bit-field extract there
//!   (`compiler/src/passes/widen_narrow_arithmetic.rs`).
//! - `shifted_masks`: the 64-bit `select(c, -1, 0) << 31` gave
//!   `0x80000000` instead of `0xffffffff80000000`; ferrocl folds shifts of
//!   selects between constants (`compiler/src/passes/fold_select_shifts.rs`).
//!
//! - `sign_extended_quotients` (session 21): `(uint)(int)(char)x / d` for
//!   a loaded `d`, scalar and `uint3`, was wrong on the H200 with the sign
//!   extension done as `OpBitFieldSExtract` (fuzz sample seed 7010 p91);
//!   `widen_narrow_arithmetic` now copies the sign bit into the high bits
//!   with shifts and an or instead.
//! - `high_products_of_halves` (session 21): `mad_hi` of a factor made by
//!   `upsample` from 16-bit values, in loops, gave wrong high halves with
//!   `OpUMulExtended` on the H200 (seed 7010 p100076); ferrocl multiplies
//!   in 64 bits (`compiler/src/passes/widen_extended_multiplies.rs`).
//!
//! The first two fail on the H200 with the passes off
//! (`FERROCL_WIDE_NARROW_ARITHMETIC=0`; the fold has no switch: it runs on
//! every device) and pass with them; the last two fail on an H100 with
//! main 70770fa and pass since (session 21). lavapipe is right either way.
//! `scripts/test` runs this binary with and without the widening.

use ferrocl_tests::Cl;

const SOURCE: &str = r#"
kernel void negated_narrow_quotients(global ulong *out) {
    uint i = get_global_id(0);
    char a = (char)(i << 1);
    short sa = (short)(i << 9);
    char q = (i & 1) ? a : (char)(a / (char)((i & 7) + 1));
    short sq = (i & 1) ? sa : (short)(sa / (short)((i & 7) + 1));
    uchar uq = (i & 1) ? (uchar)a : (uchar)((uchar)a / (uchar)((i & 7) + 1));
    char sh = (char)(a >> (char)(i & 3));
    out[8 * i + 0] = (ulong)(long)(char)(-q);
    out[8 * i + 1] = (ulong)(int)(char)(-q);
    out[8 * i + 2] = (ulong)(long)(short)(-sq);
    out[8 * i + 3] = (ulong)(long)(char)(-uq);
    out[8 * i + 4] = (ulong)(long)(char)(-sh);
    out[8 * i + 5] = (ulong)(long)(short)(char)(-q);
    out[8 * i + 6] = (ulong)(long)(char)(q * (char)-1);
    out[8 * i + 7] = (ulong)(long)(char)(char)(a / (char)((i & 7) + 1));
}

kernel void shifted_masks(global const ulong *in, global ulong *out) {
    uint i = get_global_id(0);
    long g = (long)get_group_id(0);
    ulong y = in[i];
    ulong4 v = as_ulong4((long4)g && (long4)((long)0x8000000000000000UL)) << (ulong4)159;
    out[8 * i + 0] = (g != 0 ? ~0UL : 0UL) << 31;
    out[8 * i + 1] = (ulong)(-(long)(g != 0)) << 31;
    out[8 * i + 2] = (y > 100 ? ~0UL : 0UL) << 31;
    out[8 * i + 3] = (y > 100 ? ~0UL : 0UL) * 0x80000000UL;
    out[8 * i + 4] = v.s0 ^ (v.s1 >> 1) ^ (v.s2 >> 2) ^ (v.s3 >> 3);
    out[8 * i + 5] = (g != 0 ? ~0UL : 0UL) << 30;
    out[8 * i + 6] = (ulong)((y > 100 ? -1L : 0L) >> 31);
    out[8 * i + 7] = (ulong)((uint)(g != 0 ? ~0u : 0u) << 31);
}

kernel void sign_extended_quotients(global const ulong *in, global ulong *out) {
    uint i = get_global_id(0);
    uint d = (uint)in[64 + (i & 63)] | 1u;
    char c0 = (char)in[0];
    char c = (char)in[i & 63];
    short s = (short)in[i & 63];
    uint3 v = convert_uint3((char3)c0) / (uint3)d;
    uint3 w = convert_uint3((char3)(c, (char)(c + 1), (char)(c * 3))) / (uint3)(d, d + 2, d + 4);
    out[8 * i + 0] = (uint)(int)c0 / d;
    out[8 * i + 1] = (uint)(int)c / d;
    out[8 * i + 2] = (uint)(int)s / d;
    out[8 * i + 3] = v.s0 ^ ((ulong)v.s2 << 32);
    out[8 * i + 4] = w.s0;
    out[8 * i + 5] = w.s1;
    out[8 * i + 6] = w.s2;
    out[8 * i + 7] = (uint)(int)s % d;
}

kernel void high_products_of_halves(global const ulong *in, global ulong *out) {
    uint i = get_global_id(0);
    uint3 acc = 0;
    for (uchar a = 0; a != 5; a++) {
        for (int b = 4; b > 0; b--) {
            uint c = 0;
            while (c++ < 3u) {
                acc = mad_hi((uint3)(92u), upsample(-((ushort3)(37)), (ushort3)((ushort)in[0])), acc);
            }
        }
    }
    out[4 * i + 0] = acc.s0;
    out[4 * i + 1] = acc.s1;
    out[4 * i + 2] = acc.s2;
}

kernel void scalar_high_products_of_halves(global const ulong *in, global ulong *out) {
    uint i = get_global_id(0);
    uint s = 0;
    for (uchar a = 0; a != 5; a++) {
        for (int b = 4; b > 0; b--) {
            uint c = 0;
            while (c++ < 3u) {
                s = mad_hi(92u, upsample((ushort)(-(ushort)37), (ushort)in[i & 63]), s);
            }
        }
    }
    out[4 * i + 3] = s;
}

kernel void signed_high_products_of_halves(global const ulong *in, global ulong *out) {
    uint i = get_global_id(0);
    int t = 0;
    for (uchar a = 0; a != 5; a++) {
        for (int b = 4; b > 0; b--) {
            uint c = 0;
            while (c++ < 3u) {
                t = mad_hi(-92, as_int(upsample((ushort)(-(ushort)37), (ushort)in[i & 63])), t);
            }
        }
    }
    out[512 + i] = (uint)t;
}
"#;

const N: usize = 128;

/// Asserts `got == want`, naming the first wrong words by work-item and
/// slot (`slots` words per work-item).
fn compare(kernel: &str, slots: usize, got: &[u64], want: &[u64]) {
    let bad: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(8)
        .map(|(j, (g, w))| {
            format!(
                "item {} slot {}: got {g:#x}, want {w:#x}",
                j / slots,
                j % slots
            )
        })
        .collect();
    assert!(bad.is_empty(), "{kernel}: {}", bad.join("; "));
}

#[test]
fn negated_narrow_quotients() {
    let cl = Cl::new();
    let program = cl.build(SOURCE);
    let k = program.kernel("negated_narrow_quotients");
    let out = cl.buffer::<u64>(8 * N);
    k.arg(0, &out);
    cl.queue.run(&k, &[N], Some(&[64]));
    let got = cl.queue.read(&out);
    let want: Vec<u64> = (0..N as u32)
        .flat_map(|i| {
            let a = (i << 1) as u8 as i8;
            let sa = (i << 9) as u16 as i16;
            let d = ((i & 7) + 1) as i8;
            let q = if i & 1 != 0 { a } else { a.wrapping_div(d) };
            let sq = if i & 1 != 0 {
                sa
            } else {
                sa.wrapping_div(d as i16)
            };
            let uq = if i & 1 != 0 {
                a as u8
            } else {
                (a as u8) / (d as u8)
            };
            let sh = a >> (i & 3);
            [
                q.wrapping_neg() as i64 as u64,
                q.wrapping_neg() as i32 as i64 as u64,
                sq.wrapping_neg() as i64 as u64,
                (uq.wrapping_neg() as i8) as i64 as u64,
                sh.wrapping_neg() as i64 as u64,
                q.wrapping_neg() as i16 as i64 as u64,
                q.wrapping_mul(-1) as i64 as u64,
                a.wrapping_div(d) as i64 as u64,
            ]
        })
        .collect();
    compare("negated_narrow_quotients", 8, &got, &want);
}

#[test]
fn shifted_masks() {
    let cl = Cl::new();
    let input: Vec<u64> = (0..N as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 64))
        .collect();
    let program = cl.build(SOURCE);
    let k = program.kernel("shifted_masks");
    let inb = cl.buffer_from(&input);
    let out = cl.buffer::<u64>(8 * N);
    k.arg(0, &inb).arg(1, &out);
    cl.queue.run(&k, &[N], Some(&[16]));
    let got = cl.queue.read(&out);
    let want: Vec<u64> = (0..N)
        .flat_map(|i| {
            let g = (i / 16) as u64;
            let y = input[i];
            let m = if g != 0 { u64::MAX } else { 0 };
            let my = if y > 100 { u64::MAX } else { 0 };
            let v = m << 31;
            [
                m << 31,
                m << 31,
                my << 31,
                my.wrapping_mul(0x8000_0000),
                v ^ (v >> 1) ^ (v >> 2) ^ (v >> 3),
                m << 30,
                ((my as i64) >> 31) as u64,
                u64::from((m as u32) << 31),
            ]
        })
        .collect();
    compare("shifted_masks", 8, &got, &want);
}

/// The input of the session-21 kernels: in[0] = 0xa1 (the char -95 of
/// fuzz program p91), then edge and mixed values.
fn session21_input() -> Vec<u64> {
    (0..N as u64)
        .map(|i| match i {
            0 => 0xa1,
            1 => 0x7f,
            2 => 0x80,
            3 => 0xffff_ffff_ffff_8000,
            _ => i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 61),
        })
        .collect()
}

#[test]
fn sign_extended_quotients() {
    let cl = Cl::new();
    let input = session21_input();
    let program = cl.build(SOURCE);
    let k = program.kernel("sign_extended_quotients");
    let inb = cl.buffer_from(&input);
    let out = cl.buffer::<u64>(8 * N);
    k.arg(0, &inb).arg(1, &out);
    cl.queue.run(&k, &[N], Some(&[32]));
    let got = cl.queue.read(&out);
    let want: Vec<u64> = (0..N)
        .flat_map(|i| {
            let d = input[64 + (i & 63)] as u32 | 1;
            let c0 = input[0] as u8 as i8;
            let c = input[i & 63] as u8 as i8;
            let s = input[i & 63] as u16 as i16;
            let ext = |x: i8| x as i32 as u32;
            let v0 = ext(c0) / d;
            [
                u64::from(ext(c0) / d),
                u64::from(ext(c) / d),
                u64::from(s as i32 as u32 / d),
                u64::from(v0) ^ (u64::from(v0) << 32),
                u64::from(ext(c) / d),
                u64::from(ext(c.wrapping_add(1)) / d.wrapping_add(2)),
                u64::from(ext(c.wrapping_mul(3)) / d.wrapping_add(4)),
                u64::from(s as i32 as u32 % d),
            ]
        })
        .collect();
    compare("sign_extended_quotients", 8, &got, &want);
}

#[test]
fn high_products_of_halves() {
    let cl = Cl::new();
    let input = session21_input();
    let program = cl.build(SOURCE);
    let inb = cl.buffer_from(&input);
    let out = cl.buffer::<u64>(5 * N);
    for name in [
        "high_products_of_halves",
        "scalar_high_products_of_halves",
        "signed_high_products_of_halves",
    ] {
        let k = program.kernel(name);
        k.arg(0, &inb).arg(1, &out);
        cl.queue.run(&k, &[N], Some(&[32]));
    }
    let got = cl.queue.read(&out);
    let high = |a: u32, b: u32| ((u64::from(a) * u64::from(b)) >> 32) as u32;
    let sixty = |f: &dyn Fn(u32) -> u32| (0..60).fold(0u32, |acc, _| f(acc));
    let x = 0xffdb_0000 | u32::from(input[0] as u16);
    let mut want: Vec<u64> = (0..N)
        .flat_map(|i| {
            let y = 0xffdb_0000 | u32::from(input[i & 63] as u16);
            let acc = u64::from(sixty(&|a| a.wrapping_add(high(92, x))));
            let s = u64::from(sixty(&|a| a.wrapping_add(high(92, y))));
            [acc, acc, acc, s]
        })
        .collect();
    want.extend((0..N).map(|i| {
        let y = 0xffdb_0000 | u32::from(input[i & 63] as u16);
        let h = ((-92i64 * i64::from(y as i32)) >> 32) as u32;
        u64::from(sixty(&|a| a.wrapping_add(h)))
    }));
    compare("high_products_of_halves", 4, &got, &want);
}
