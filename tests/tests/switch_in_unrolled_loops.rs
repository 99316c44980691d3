//! A `switch` inside two nested loops that LLVM unrolls completely: the
//! reduced form of ferrocl-fuzz seed 14 program 142, whose build failed
//! with "internal compiler error: spirt could not read the lowered module:
//! malformed SPIR-V (in OpSwitch: missing type for literal)" where PoCL
//! built it.
//!
//! The unroller left switches of the later outer passes before the block
//! that computes their (loop-invariant) selector, and llvm-spirv-15 gave
//! such a switch a forward-reference id that nothing defines. ferrocl
//! now hands the translator every function's blocks in dominance order
//! (`compiler/src/frontend/block_order.rs`). The kernel's results are
//! checked against a CPU model of the helper.

use ferrocl_tests::Cl;

const SOURCE: &str = r#"
typedef struct { uint2 f0; ulong2 f1; ushort f2[2]; char8 f3; } S2;
uchar4 rem_uchar4(uchar4 a, uchar4 b) { return a % select(b, (uchar4)(1), b == (uchar4)(0)); }
void f2(S2* p2, uchar4 x, uchar4 d) {
    uint w1 = 0;
    while (w1++ < 4u) {
        uint w2 = 0;
        while (w2++ < 5u) {
            (*p2).f1.s1 = 0;
            switch ((as_int(rem_uchar4(x, d))) & 7) {
                case 6: {
                    (*p2).f1.s1 = 0;
                }
                case 1: {
                    (*p2).f0.s0 = 0;
                    (*p2).f1 = shuffle(((ulong16)(~((ulong16)(max(((ulong16)0), 0) ^ ((ulong16)(0, 0, ((ulong8)0), 0, (*p2).f1, ((ulong3)0))))))), (-(*p2).f1));
                }
            }
        }
    }
}
kernel void k(global const ulong *in, global ulong *out) {
    size_t i = get_global_id(0);
    S2 s = { (uint2)((uint)in[i], 7), (ulong2)(in[i], in[i] + 1), {1, 2}, (char8)3 };
    f2(&s, as_uchar4((uint)in[(i + 1) % 128]), as_uchar4((uint)in[(i + 2) % 128]));
    out[4 * i] = s.f0.x;
    out[4 * i + 1] = s.f0.y;
    out[4 * i + 2] = s.f1.x;
    out[4 * i + 3] = s.f1.y;
}
"#;

const N: usize = 128;

/// The helper `f2` and the kernel's stores, for input word `a` and the
/// low bytes `x`, `d` of the next two words (`as_int(...) & 7` reads the
/// first byte of the remainder only).
fn model(a: u64, x: u8, d: u8) -> [u64; 4] {
    let (mut f0x, f0y) = (u64::from(a as u32), 7u64);
    let (mut f1x, mut f1y) = (a, a.wrapping_add(1));
    let divisor = if d == 0 { 1 } else { d };
    let selector = (x % divisor) & 7;
    for _ in 0..4 * 5 {
        f1y = 0;
        if selector == 6 || selector == 1 {
            f0x = 0;
            // The 16 words: all ones, but word 11 is !f1.x and word 12
            // !f1.y (= all ones); the shuffle takes words -f1.x and -f1.y
            // (0) modulo 16.
            let word = |k: u64| if k == 11 { !f1x } else { u64::MAX };
            let (nx, ny) = (word(f1x.wrapping_neg() & 15), word(f1y.wrapping_neg() & 15));
            (f1x, f1y) = (nx, ny);
        }
    }
    [f0x, f0y, f1x, f1y]
}

#[test]
fn switch_whose_selector_the_unroller_placed_late() {
    // Words whose low bytes give every selector value and zero divisors;
    // some (`-w & 15 == 11`) take the shuffle's other word.
    let input: Vec<u64> = (0..N as u64)
        .map(|j| {
            let low = match j % 4 {
                0 => j * 7 + 1,
                1 => j / 3 + 2,
                2 => 0,
                _ => 5 + 16 * j,
            };
            (j.wrapping_mul(0x9e37_79b9_7f4a_7c15) & !0xff) | (low & 0xff)
        })
        .collect();
    let want: Vec<u64> = (0..N)
        .flat_map(|i| model(input[i], input[(i + 1) % N] as u8, input[(i + 2) % N] as u8))
        .collect();
    // The cases run for some work-items and not for others.
    let taken = (0..N).filter(|&i| want[4 * i] == 0).count();
    assert!(
        taken > 8 && taken < N - 8,
        "{taken} work-items take the cases"
    );

    let cl = Cl::new();
    let program = cl.build(SOURCE);
    let k = program.kernel("k");
    let src = cl.buffer_from(&input);
    let out = cl.buffer::<u64>(4 * N);
    k.arg(0, &src);
    k.arg(1, &out);
    cl.queue.run(&k, &[N], Some(&[16]));
    let got = cl.queue.read(&out);
    let bad: Vec<String> = got
        .iter()
        .zip(&want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(8)
        .map(|(j, (g, w))| format!("item {} word {}: got {g:#x}, want {w:#x}", j / 4, j % 4))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("; "));
}
