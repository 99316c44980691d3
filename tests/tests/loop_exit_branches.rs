//! Loops with a `break` that never happens, against Rust's own
//! arithmetic: lavapipe 22.3 ran these for two passes instead of four
//! (lavapipe fuzz runs: seed 14 p173, seed 12 p42, seed 12 p46).
//!
//! ferrocl's structurizer routes a `break` through the loop's latch: the
//! latch repeats on a phi that is `false` on the break's path. When the
//! break's path turns out dead only late in Mesa's NIR optimization (here
//! a `mul_hi` of a constant 0, and an `if` on a constant inside a loop
//! whose other arm breaks), lavapipe ends the loop after its second pass.
//! The same loop with the break as a branch to the loop's merge block runs
//! right, which is what `compiler/src/passes/branch_loop_exits.rs` gives
//! lavapipe (`DeviceCaps::branch_loop_exits`).
//!
//! Both fail on lavapipe with the pass off (`FERROCL_BRANCH_LOOP_EXITS=0`:
//! the hash of two passes) and pass with it; PoCL passes them. The corpus
//! case `fuzz_sat_convert_in_loop.cl` (seed 7 p144, a known lavapipe bug
//! until then) was the same fault: a break on `any(0) * x`.
//!
//! `goto_out_of_nested_loops` (lavapipe fuzz seed 18 p26): the same fault
//! for a `goto` out of two loops, whose paths reach the latch through one
//! merge block of phis per selection they are nested in; the pass took
//! only breaks straight into the latch's block of phis before. It failed
//! on lavapipe (the hash of the `goto` path, every work-item) and passes
//! now; PoCL passes it.
//!
//! `divergent_trips_with_a_dead_break` (lavapipe fuzz seed 27 p100595,
//! reduced): a loop whose trip count differs between the work-items of a
//! group, with a dead break, and a value assigned in it read after it. The
//! break becomes a branch to the merge block, which then takes the value
//! through a phi; lavapipe gave the work-items that left early another
//! item's value there (the fault `passes/spill_loop_live_outs.rs` works
//! round), until that pass also stored the merge block's phis (7 of 128
//! work-items wrong before; `FERROCL_BRANCH_LOOP_EXITS=0` hid it).

use ferrocl_tests::Cl;

const SOURCE: &str = r#"
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
ulong mix4(ulong h, ulong v) { return mix(mix(mix(mix(h, v), v), v), v); }

kernel void mul_hi_of_zero_breaks(global ulong *out, ulong c) {
    uint gid = get_global_id(0);
    ulong h = 0xcbf29ce484222325UL ^ gid;
    for (uchar i = 0; i != 4; i++) {
        h = mix4(mix4(mix4(mix4(h, c), c), c), c);
        if (mul_hi((ushort)0, (ushort)i)) break;
        h = mix(h, (ulong)(uchar)(i - 1));
    }
    out[gid] = h;
}

constant ulong table[4] = {1, 2, 3, 4};
typedef struct { uchar8 f0; uchar2 f1[4]; } S;
int div_int(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }

kernel void constant_if_with_breaking_else(global const ulong *in, global ulong *out, ulong arg) {
    uint gid = get_global_id(0);
    ulong h = 0xcbf29ce484222325UL ^ gid;
    int q = 0;
    long k = ctz(0);
    S s[4] = { { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } },
               { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } } };
    for (uchar i = 0; i != 4; i++) {
        if (-abs(0x8cff7c04u)) {
            s[k & 3] = s[0];
            h = mix(h, 0x7fffffffu);
        } else {
            if ((long)arg) break;
            q = div_int(select(0, 0, (uint)in[0]), 44);
        }
        switch ((int)convert_short_rtn((ushort)table[in[0] & 3])) {
            case 0: out[get_global_size(0) + gid] = 0;
        }
    }
    out[gid] = mix(h, (ulong)q);
}
"#;

const N: usize = 256;

/// `ctz` needs OpenCL C 2.0 or later.
fn build(cl: &Cl) -> ferrocl_tests::Program {
    cl.try_build(SOURCE, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"))
}

fn mix(h: u64, v: u64) -> u64 {
    let h = (h ^ v).wrapping_mul(0x100000001B3);
    h ^ (h >> 32)
}

fn compare(kernel: &str, got: &[u64], want: &[u64]) {
    let bad: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(8)
        .map(|(j, (g, w))| format!("item {j}: got {g:#x}, want {w:#x}"))
        .collect();
    assert!(bad.is_empty(), "{kernel}: {}", bad.join("; "));
}

#[test]
fn mul_hi_of_zero_breaks() {
    let cl = Cl::new();
    let program = build(&cl);
    let k = program.kernel("mul_hi_of_zero_breaks");
    let out = cl.buffer::<u64>(N);
    let c: u64 = 0x0edb_7311_c967_ed63;
    k.arg(0, &out);
    k.arg(1, &c);
    cl.queue.run(&k, &[N], Some(&[64]));
    let got = cl.queue.read(&out);
    let want: Vec<u64> = (0..N as u64)
        .map(|gid| {
            let mut h = 0xcbf2_9ce4_8422_2325 ^ gid;
            for i in 0u8..4 {
                for _ in 0..16 {
                    h = mix(h, c);
                }
                // mul_hi of 0 is 0: the break is never taken.
                h = mix(h, u64::from(i.wrapping_sub(1)));
            }
            h
        })
        .collect();
    compare("mul_hi_of_zero_breaks", &got, &want);
}

#[test]
fn constant_if_with_breaking_else() {
    let cl = Cl::new();
    let program = build(&cl);
    let k = program.kernel("constant_if_with_breaking_else");
    // table[in[0] & 3] is never 0: the switch's store never happens.
    let input = cl.buffer_from(&[0xffff_ffff_ffff_ff40u64; 4]);
    let out = cl.buffer_from(&vec![0x5a5a_5a5a_5a5a_5a5au64; 2 * N]);
    let arg: u64 = 0xec;
    k.arg(0, &input);
    k.arg(1, &out);
    k.arg(2, &arg);
    cl.queue.run(&k, &[N], Some(&[16]));
    let got = cl.queue.read(&out);
    let want: Vec<u64> = (0..N as u64)
        .map(|gid| {
            // -abs(0x8cff7c04u) is not 0: the `if` arm every time, 4 passes.
            let mut h = 0xcbf2_9ce4_8422_2325 ^ gid;
            for _ in 0..4 {
                h = mix(h, 0x7fff_ffff);
            }
            mix(h, 0)
        })
        .chain(std::iter::repeat_n(0x5a5a_5a5a_5a5a_5a5a, N))
        .collect();
    compare("constant_if_with_breaking_else", &got, &want);
}

/// The fuzz program's input (`tests/fuzz-open` header of seed 18 p26).
const P26_INPUT: [u64; 64] = [
    0xfffffffffffffee9,
    0x8000000000000000,
    0xffffffffffffff3e,
    0x7fffffffffffffff,
    0x7ffffffffffffffe,
    0x8000000000000001,
    0xffffffffffffffff,
    0x7ffffffffffffffe,
    0x4e21e3d2a3d8d891,
    0x7ffffffffffffffe,
    0x0000000000000001,
    0x0000000000000007,
    0x7fffffffffffffff,
    0x8000000000000000,
    0x8000000000000000,
    0x8000000000000000,
    0x0000000000000002,
    0x000000000000008b,
    0xffffffffffffff71,
    0x000000000000007d,
    0xffffffffffffffff,
    0xffffffffffffff9c,
    0x8000000000000001,
    0x000000000000011d,
    0x7ffffffffffffffe,
    0xffffffffffffffff,
    0x8000000000000001,
    0x0000000000000104,
    0x7ffffffffffffffe,
    0x0000000000000005,
    0xffffffffffffff6b,
    0x0000000000000001,
    0xfffffffffffffef8,
    0x7ffffffffffffffe,
    0x0000000000000000,
    0xffffffffffffffff,
    0x000000000000011d,
    0x00000000000000ad,
    0x7fffffffffffffff,
    0x8000000000000000,
    0x0000000000000000,
    0xffffffffffffff4c,
    0x0000000000000001,
    0x00000000000000fd,
    0x8000000000000001,
    0x0000000000000001,
    0xffffffffffffffa3,
    0x0000000000000001,
    0xffffffffffffff9b,
    0x0000000000000007,
    0x0000000000000079,
    0xffffffffffffffff,
    0x7fffffffffffffff,
    0x7ffffffffffffffe,
    0x7fffffffffffffff,
    0x0000000000000001,
    0x8000000000000000,
    0xffffffffffffffff,
    0xae770a5e61f7e6a7,
    0x7fffffffffffffff,
    0x7fffffffffffffff,
    0xfffffffffffffee6,
    0xffffffffffffff52,
    0x0000000000000123,
];

/// Lavapipe fuzz seed 18 p26, kernel k1 (`goto_out_of_nested_loops.cl`),
/// against the same computation in Rust.
#[test]
fn goto_out_of_nested_loops() {
    const FILL: u64 = 0xA5A5_5A5A_DEAD_BEEF;
    const CTAB: [u64; 16] = [
        0x16,
        0xffffffffffffffdf,
        0x697e94039b429ca0,
        0x2,
        0x7fffffffffffffff,
        0xffffffffffffffff,
        0xffffffffffffffff,
        0xffffffffffffffff,
        0x8000000000000000,
        0xffffffffffffff83,
        0xffffffffffffffff,
        0x8000000000000000,
        0xffffffffffffffff,
        0xffffffffffffffff,
        0x99b35bde4fd3b1d0,
        0x0,
    ];
    let cl = Cl::new();
    let program = cl
        .try_build(include_str!("goto_out_of_nested_loops.cl"), "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let k = program.kernel("k1");
    let input = cl.buffer_from(&P26_INPUT);
    let out = cl.buffer_from(&vec![FILL; 512]);
    let arg: u64 = 1;
    k.arg(0, &input);
    k.arg(1, &out);
    k.arg(2, &arg);
    cl.queue.run(&k, &[64], Some(&[16]));
    let words = cl.queue.read(&out);
    let got: Vec<u64> = (0..64).map(|gid| words[256 + 4 * gid]).collect();
    let inp = &P26_INPUT;
    // The do-while leaves w9 = 3; v16's upper half is rhadd of a swizzle
    // of ctab[...] ^ (0, 37, ...) with the low word of in[gid + 55].
    let c = CTAB[(inp[(inp[3] as u16 & 63) as usize] & 15) as usize] as u32;
    let x = [c ^ 57, c, c ^ 57, c ^ 74];
    // The `continue` test is the same in every pass: 0 > (char) of a load
    // through out[ob + 2], the fill word. Without it, s5 = f0(..) = 0.
    let c2 = inp[(inp[(FILL & 63) as usize] & 63) as usize] as u8 as i8;
    let s5 = if 0 > c2 { 0x8000_0000_0000_0001 } else { 0 };
    let want: Vec<u64> = (0..64)
        .map(|gid| {
            let b = inp[(gid + 55) & 63] as u32;
            let mut h = 0xcbf2_9ce4_8422_2325;
            // all((short3)j) is 0 for j < 3: the goto is never taken.
            for v in [0x8000_0001, 0x8000_0001, 0xffff_ffff, 0xffff_ffff] {
                h = mix(h, v);
            }
            for a in x {
                h = mix(h, (u64::from(a) + u64::from(b) + 1) >> 1);
            }
            for _ in 0..4 {
                h = mix(h, s5);
            }
            h
        })
        .collect();
    compare("goto_out_of_nested_loops", &got, &want);
}

const DIVERGENT_SOURCE: &str = r#"
ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }
typedef struct { uint2 f0; short4 f1; long3 f2; } S0;
ulong hash_long3(ulong h, long3 v) { h = mix(h, (ulong)v.s0); h = mix(h, (ulong)v.s1); h = mix(h, (ulong)v.s2); return h; }
ulong hash_S0(ulong h, S0 v) {
    h = hash_long3(h, v.f2);
    return h;
}
kernel void divergent_trips_with_a_dead_break(global const ulong* in, global ulong* out) {
    const uint gid = get_global_id(0);
    ulong h = 0xcbf29ce484222325UL;
    S0 s5 = { 0, (((short16)0)).sd210, 0 };
    for (uint i6 = 0; i6 < (uint)((((int)(((int)in[(gid) & 63])))) & 3) + 1u; i6++) {
        if ((convert_uchar_sat(0))) {
            if (((short)((((short)in[0 & 63]))))) break;
        }
        s5.f2 = (((((long3)((long)(in[(gid + 51u) & 63]))))));
    }
    h = hash_S0(h, s5);
    out[gid] = h;
}
"#;

/// The fuzz program's input (seed 27 p100595): its low bits give the
/// work-items of a group trip counts 1 to 4.
const P100595_INPUT: [u64; 64] = [
    0xfffffffffffffedc,
    0x7ffffffffffffffe,
    0x6667975dbc10cddd,
    0x00000000000000f7,
    0xffffffffffffffff,
    0x7fffffffffffffff,
    0x0000000000000000,
    0x0000000000000007,
    0x0000000000000001,
    0x0000000000000003,
    0x7ffffffffffffffe,
    0x32c9b9608f2979b8,
    0xffffffffffffff25,
    0xffffffffffffffff,
    0x8000000000000001,
    0x00000000000000b2,
    0x7ffffffffffffffe,
    0x7fffffffffffffff,
    0x7fffffffffffffff,
    0xffffffffffffffab,
    0x0000000000000001,
    0x00000000000000b9,
    0xffffffffffffffc6,
    0xfffffffffffffff3,
    0xffffffffffffffff,
    0x7ffffffffffffffe,
    0xa51f93536f634b8e,
    0xffffffffffffffff,
    0x0000000000000007,
    0x0000000000000020,
    0x8000000000000000,
    0x866947cf4414f5b2,
    0x0000000000000095,
    0x8000000000000001,
    0x0000000000000002,
    0x7ffffffffffffffe,
    0x7fffffffffffffff,
    0xffffffffffffffff,
    0x00000000000000b9,
    0x8000000000000001,
    0x0000000000000000,
    0x0000000000000002,
    0x0000000000000002,
    0x0000000000000020,
    0x939a9cad30990fef,
    0xa6c8b90efcbb5ea1,
    0x0000000000000001,
    0x7ffffffffffffffe,
    0x8000000000000000,
    0x0000000000000007,
    0x000000000000007c,
    0x0000000000000000,
    0xffffffffffffff8c,
    0x7fffffffffffffff,
    0x0000000000000000,
    0x8000000000000001,
    0x0000000000000021,
    0x0000000000000000,
    0x1134aa5ffdc9905f,
    0x7ffffffffffffffe,
    0xffffffffffffff20,
    0x8000000000000000,
    0xffffffffffffff60,
    0x8000000000000001,
];

#[test]
fn divergent_trips_with_a_dead_break() {
    let cl = Cl::new();
    let program = cl
        .try_build(DIVERGENT_SOURCE, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let k = program.kernel("divergent_trips_with_a_dead_break");
    let input = cl.buffer_from(&P100595_INPUT);
    let out = cl.buffer::<u64>(128);
    k.arg(0, &input);
    k.arg(1, &out);
    cl.queue.run(&k, &[128], Some(&[16]));
    let got = cl.queue.read(&out);
    // The loop runs at least once and never breaks: s5.f2 is the splat of
    // in[gid + 51].
    let want: Vec<u64> = (0..128)
        .map(|gid| {
            let x = P100595_INPUT[(gid + 51) & 63];
            mix(mix(mix(0xcbf2_9ce4_8422_2325, x), x), x)
        })
        .collect();
    compare("divergent_trips_with_a_dead_break", &got, &want);
}
