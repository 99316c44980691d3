//! Saturating integer conversions whose result a loop carries to its next
//! iteration, against Rust's own clamping. Reduced from ferrocl-fuzz seed
//! 7002, programs 68 and 500014 (issue 16; wrong on lavapipe and the
//! NVIDIA GPU alike): llvm-spirv-15 wrote the `SaturatedConversion`
//! decoration of such a conversion on a forward reference's placeholder,
//! leaving a plain truncation (`v = convert_uchar_sat(0x17ffe & 0xffff)`
//! gave 0xfe, not 0xff). ferrocl now defines the integer saturating
//! conversions in IR itself (`compiler/src/frontend/saturate.rs`); the
//! same defect dropped the saturation of conversions from `float`.

use ferrocl_tests::Cl;

const SOURCE: &str = r#"
kernel void carried(global const ushort *a, global const int *b, global int *out, int n) {
    uint i = get_global_id(0);
    uchar u = 0;
    short s = 0;
    char2 c = (char2)(0);
    uint m = 0;
    for (int k = 0; k < n; k++) {
        global int *o = out + (i * (uint)n + (uint)k) * 5u;
        o[0] = u;
        o[1] = s;
        o[2] = c.x;
        o[3] = c.y;
        o[4] = (int)m;
        uint j = (i + (uint)k) & 63u;
        u = convert_uchar_sat_rtz(a[j]);
        s = convert_short_sat(b[j]);
        c = convert_char2_sat((int2)(b[(j + 1u) & 63u], (int)a[j]));
        m = convert_uint_sat((long)b[j] * 3L);
    }
}

kernel void carried_from_float(global const float *f, global int *out, int n) {
    uint i = get_global_id(0);
    int v = 0;
    uchar u = 0;
    short2 s = (short2)(0);
    for (int k = 0; k < n; k++) {
        global int *o = out + (i * (uint)n + (uint)k) * 4u;
        o[0] = v;
        o[1] = u;
        o[2] = s.x;
        o[3] = s.y;
        uint j = (i + (uint)k) & 31u;
        v = convert_int_sat(f[j]);
        u = convert_uchar_sat_rtp(f[j]);
        s = convert_short2_sat_rte((float2)(f[j], f[(j + 1u) & 31u]));
    }
}
"#;

#[test]
fn saturating_conversions_carried_by_a_loop() {
    let cl = Cl::new();
    let a: Vec<u16> = (0..64u32)
        .map(|k| match k % 4 {
            0 => 0x7ffe_u16.wrapping_add((k as u16).wrapping_mul(0x1111)),
            1 => (k * 7) as u16,
            2 => 0xffff - k as u16,
            _ => 0x100 + k as u16,
        })
        .collect();
    let b: Vec<i32> = (0..64u32)
        .map(|k| match k % 5 {
            0 => i32::MIN + k as i32,
            1 => (k as i32 - 32) * 3,
            2 => 0x7fff_0000 + k as i32,
            3 => -(k as i32) * 1000,
            _ => 40000 - k as i32 * 997,
        })
        .collect();
    let (global, n) = (64usize, 5usize);
    let mut want = Vec::with_capacity(global * n * 5);
    for i in 0..global {
        let (mut u, mut s, mut c, mut m) = (0u8, 0i16, [0i8; 2], 0u32);
        for k in 0..n {
            want.extend([u as i32, s as i32, c[0] as i32, c[1] as i32, m as i32]);
            let j = (i + k) & 63;
            u = a[j].min(255) as u8;
            s = b[j].clamp(i16::MIN as i32, i16::MAX as i32) as i16;
            let sat8 = |x: i32| x.clamp(-128, 127) as i8;
            c = [sat8(b[(j + 1) & 63]), sat8(a[j] as i32)];
            m = (b[j] as i64 * 3).clamp(0, u32::MAX as i64) as u32;
        }
    }
    let program = cl.build(SOURCE);
    let k = program.kernel("carried");
    let ab = cl.buffer_from(&a);
    let bb = cl.buffer_from(&b);
    let out = cl.buffer::<i32>(want.len());
    k.arg(0, &ab).arg(1, &bb).arg(2, &out).arg(3, &(n as i32));
    cl.queue.run(&k, &[global], Some(&[16]));
    let got = cl.queue.read(&out);
    let bad: Vec<String> = (0..want.len())
        .filter(|&x| got[x] != want[x])
        .take(16)
        .map(|x| {
            let (wi, rest) = (x / (n * 5), x % (n * 5));
            format!(
                "work-item {wi}, iteration {}, value {}: {:#x}, want {:#x}",
                rest / 5,
                rest % 5,
                got[x],
                want[x]
            )
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn saturating_conversions_from_float_carried_by_a_loop() {
    let cl = Cl::new();
    let f: Vec<f32> = vec![
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e10,
        -1e10,
        3e9,
        -0.5,
        255.5,
        254.2,
        65535.7,
        -32768.6,
        32767.4,
        2.5,
        -2.5,
        3.5,
        -3.5,
        2147483520.0,
        -2147483648.0,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.49,
        -0.51,
        127.5,
        300.0,
        -300.0,
        40000.5,
        -40000.5,
        1.5,
        7.0,
        -7.25,
    ];
    let (global, n) = (32usize, 6usize);
    let mut want = Vec::with_capacity(global * n * 4);
    for i in 0..global {
        let (mut v, mut u, mut s) = (0i32, 0u8, [0i16; 2]);
        for k in 0..n {
            want.extend([v, u as i32, s[0] as i32, s[1] as i32]);
            let j = (i + k) & 31;
            // Rust's float-to-integer `as` saturates and gives 0 for NaN.
            v = f[j] as i32;
            u = f[j].ceil() as u8;
            s = [
                f[j].round_ties_even() as i16,
                f[(j + 1) & 31].round_ties_even() as i16,
            ];
        }
    }
    let program = cl.build(SOURCE);
    let k = program.kernel("carried_from_float");
    let fb = cl.buffer_from(&f);
    let out = cl.buffer::<i32>(want.len());
    k.arg(0, &fb).arg(1, &out).arg(2, &(n as i32));
    cl.queue.run(&k, &[global], Some(&[16]));
    let got = cl.queue.read(&out);
    let bad: Vec<String> = (0..want.len())
        .filter(|&x| got[x] != want[x])
        .take(16)
        .map(|x| {
            let (wi, rest) = (x / (n * 4), x % (n * 4));
            format!(
                "work-item {wi}, iteration {}, value {}: {:#x}, want {:#x}",
                rest / 4,
                rest % 4,
                got[x],
                want[x]
            )
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A signed value saturated to a wider unsigned type: negative values
/// become 0. Wrong on lavapipe (ferrocl-fuzz seed 14, program 20:
/// `convert_ulong3_sat_rtp` of an `int3`): the saturation compared the
/// sign-extended value with 0, which lavapipe 22.3 gets wrong (corpus
/// `fuzz_sconvert_compare.cl`); it now tests the sign of the source.
#[test]
fn signed_to_wider_unsigned_saturation() {
    const SRC: &str = r#"
kernel void widen(global const int *a, global ulong *out) {
    uint i = get_global_id(0);
    int x = a[i];
    out[4 * i + 0] = convert_ulong_sat(x);
    out[4 * i + 1] = convert_ulong3_sat_rtp((int3)(x, -x, x)).z;
    out[4 * i + 2] = convert_uint_sat((short)x);
    out[4 * i + 3] = as_ulong(convert_ushort4_sat((char4)((char)x)));
}
"#;
    let cl = Cl::new();
    let a: Vec<i32> = (0..64i32)
        .map(|i| {
            (i - 32)
                .wrapping_mul(0x0123_4567)
                .wrapping_add(if i % 5 == 0 { i32::MIN } else { 0 })
        })
        .collect();
    let program = cl.build(SRC);
    let k = program.kernel("widen");
    let ab = cl.buffer_from(&a);
    let out = cl.buffer::<u64>(4 * a.len());
    k.arg(0, &ab).arg(1, &out);
    cl.queue.run(&k, &[a.len()], None);
    let got = cl.queue.read(&out);
    let want: Vec<u64> = a
        .iter()
        .flat_map(|&x| {
            let c = x as i8;
            let lane = u64::from(c.max(0) as u16);
            [
                x.max(0) as u64,
                x.max(0) as u64,
                u64::from((x as i16).max(0) as u32),
                lane | lane << 16 | lane << 32 | lane << 48,
            ]
        })
        .collect();
    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "item {} slot {} (x = {})", j / 4, j % 4, a[j / 4]);
    }
}
