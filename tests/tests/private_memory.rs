//! Private arrays and structs reached through pointers, which the compiler
//! places in arrays of their own (`split_private_frame`: a variable whose
//! pointers never leave it, also through a helper's parameter or a phi)
//! or in the shared private frame (a variable whose pointers mix with
//! another's, in a helper's parameter, a generic pointer or a phi):
//! several arrays with dynamic indices in one kernel, type punning through
//! pointer casts and unions, arrays passed to helper functions, private
//! pointers converted to generic, 64-bit and vector elements, structs with
//! array members, pointers merged by selects and phis. Every result is
//! compared with a CPU reference.

use ferrocl_tests::{assert_same, Cl};

/// Work-items per launch.
const N: usize = 64;

/// Per-work-item inputs: varied bits in every byte.
fn inputs(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(i % 13) ^ 0x5bd1_e995)
        .collect()
}

const SEVERAL: &str = r#"
kernel void several(global const uint* in, global uint* out) {
    uint g = get_global_id(0);
    uint x = in[g];
    uint a[16];
    float f[8];
    uchar c[19];
    ushort s[5];
    for (uint i = 0; i < 16; i++) a[i] = x * (i + 1) - 7 * i;
    for (uint i = 0; i < 8; i++) f[i] = (float)(i * 3) + 0.5f * (float)(g & 7);
    for (uint i = 0; i < 19; i++) c[i] = (uchar)(g * 13 + i * 29);
    for (uint i = 0; i < 5; i++) s[i] = (ushort)(g * 1001 + i * 7777);
    for (uint k = 0; k < 6; k++) {
        uint j = x >> (k * 4);
        a[j & 15] += c[j % 19];
        c[(j + 3) % 19] ^= (uchar)a[(j + 5) & 15];
        s[j % 5] += (ushort)c[j % 19];
        f[j & 7] = f[(j + 1) & 7] + (float)(s[(j + 2) % 5] & 255);
    }
    global uint* o = out + g * 48;
    for (uint i = 0; i < 16; i++) o[i] = a[i];
    for (uint i = 0; i < 8; i++) o[16 + i] = as_uint(f[i]);
    for (uint i = 0; i < 19; i++) o[24 + i] = c[i];
    for (uint i = 0; i < 5; i++) o[43 + i] = s[i];
}
"#;

fn several_reference(g: u32, x: u32) -> Vec<u32> {
    let mut a: Vec<u32> = (0..16u32)
        .map(|i| x.wrapping_mul(i + 1).wrapping_sub(7 * i))
        .collect();
    let mut f: Vec<f32> = (0..8u32)
        .map(|i| (i * 3) as f32 + 0.5 * (g & 7) as f32)
        .collect();
    let mut c: Vec<u8> = (0..19u32)
        .map(|i| g.wrapping_mul(13).wrapping_add(i * 29) as u8)
        .collect();
    let mut s: Vec<u16> = (0..5u32)
        .map(|i| g.wrapping_mul(1001).wrapping_add(i * 7777) as u16)
        .collect();
    for k in 0..6 {
        let j = (x >> (k * 4)) as usize;
        a[j & 15] = a[j & 15].wrapping_add(c[j % 19] as u32);
        c[(j + 3) % 19] ^= a[(j + 5) & 15] as u8;
        s[j % 5] = s[j % 5].wrapping_add(c[j % 19] as u16);
        f[j & 7] = f[(j + 1) & 7] + (s[(j + 2) % 5] & 255) as f32;
    }
    let mut o = a;
    o.extend(f.iter().map(|v| v.to_bits()));
    o.extend(c.iter().map(|&v| v as u32));
    o.extend(s.iter().map(|&v| v as u32));
    o
}

/// Four private arrays of different element types, read and written at
/// indices known only at run time.
#[test]
fn several_arrays_with_dynamic_indices() {
    let cl = Cl::new();
    let x = inputs(N);
    let (din, out) = (cl.buffer_from(&x), cl.buffer::<u32>(48 * N));
    let kernel = cl.kernel(SEVERAL, "several");
    kernel.arg(0, &din).arg(1, &out);
    cl.queue.run(&kernel, &[N], None);
    let want: Vec<u32> = (0..N)
        .flat_map(|g| several_reference(g as u32, x[g]))
        .collect();
    assert_same("out", &cl.queue.read(&out), &want);
}

const PUNNING: &str = r#"
// Unions make the views well defined (OpenCL C allows punning through a
// union; through a pointer cast, only character types may alias, and
// clang's type-based alias analysis relies on that).
typedef union {
    uint w[4];
    ushort h[8];
    float f[4];
} words;

kernel void punning(global const uint* in, global uint* out) {
    uint g = get_global_id(0);
    words u;
    for (uint i = 0; i < 4; i++) u.w[i] = in[4 * g + i];
    u.w[2] = 0x3f800000u | (u.w[2] & 0x007fffffu);
    uint k = u.w[0] & 15;
    uchar* b = (uchar*)u.w;
    global uint* o = out + 12 * g;
    o[0] = b[k];
    o[1] = b[3];
    o[2] = u.h[k >> 1];
    o[3] = u.h[5];
    o[4] = as_uint(u.f[2] * 2.0f);
    o[5] = as_uint(u.f[(k >> 2) & 2]);
    b[k ^ 1] = (uchar)(g + 7);
    u.h[(k >> 1) ^ 3] = (ushort)(g * 3 + 1);
    b[6] = 0xab;
    u.f[(k >> 3) * 3] = (float)g * 0.25f;
    o[6] = b[(k + 5) & 15];
    o[7] = u.h[(k + 1) & 7];
    for (uint i = 0; i < 4; i++) o[8 + i] = u.w[i];
}
"#;

fn punning_reference(g: u32, input: &[u32]) -> Vec<u32> {
    let mut w = [input[0], input[1], input[2], input[3]];
    w[2] = 0x3f80_0000 | (w[2] & 0x007f_ffff);
    let k = (w[0] & 15) as usize;
    let bytes = |w: &[u32; 4]| -> Vec<u8> { w.iter().flat_map(|v| v.to_le_bytes()).collect() };
    let half = |w: &[u32; 4], i: usize| -> u32 {
        let b = bytes(w);
        u16::from_le_bytes([b[2 * i], b[2 * i + 1]]) as u32
    };
    let mut o = vec![
        bytes(&w)[k] as u32,
        bytes(&w)[3] as u32,
        half(&w, k >> 1),
        half(&w, 5),
        (f32::from_bits(w[2]) * 2.0).to_bits(),
        w[(k >> 2) & 2],
    ];
    let set_byte = |w: &mut [u32; 4], i: usize, v: u8| {
        let sh = 8 * (i % 4);
        w[i / 4] = (w[i / 4] & !(0xff << sh)) | (v as u32) << sh;
    };
    set_byte(&mut w, k ^ 1, (g + 7) as u8);
    let hv = (g * 3 + 1) as u16;
    let hi = (k >> 1) ^ 3;
    set_byte(&mut w, 2 * hi, hv as u8);
    set_byte(&mut w, 2 * hi + 1, (hv >> 8) as u8);
    set_byte(&mut w, 6, 0xab);
    w[(k >> 3) * 3] = (g as f32 * 0.25).to_bits();
    o.push(bytes(&w)[(k + 5) & 15] as u32);
    o.push(half(&w, (k + 1) & 7));
    o.extend(w);
    o
}

/// One private array written as words and read and written as bytes
/// (through a pointer cast), halves and floats (through a union), at
/// constant and dynamic offsets; in OpenCL C 1.2 and 3.0, where the cast
/// pointer is generic (its space known statically).
#[test]
fn type_punning_through_pointer_casts() {
    let cl = Cl::new();
    let x = inputs(4 * N);
    let want: Vec<u32> = (0..N)
        .flat_map(|g| punning_reference(g as u32, &x[4 * g..4 * g + 4]))
        .collect();
    for options in ["-cl-std=CL1.2", "-cl-std=CL3.0"] {
        let (din, out) = (cl.buffer_from(&x), cl.buffer::<u32>(12 * N));
        let program = cl
            .try_build(PUNNING, options)
            .unwrap_or_else(|e| panic!("{options}: {e}"));
        let kernel = program.kernel("punning");
        kernel.arg(0, &din).arg(1, &out);
        cl.queue.run(&kernel, &[N], None);
        assert_same(options, &cl.queue.read(&out), &want);
    }
}

const HELPER: &str = r#"
__attribute__((noinline)) void fill(uint* p, uint n, uint seed) {
    for (uint i = 0; i < n; i++) p[i] = seed * (i + 1) ^ (i << 3);
}

__attribute__((noinline)) uint pick(const uint* p, uint i) {
    return p[i] + p[(i + 1) % 12];
}

// `a` and `c` share `fill` (both stay in the frame), `b` alone is passed
// to `pick` (an array of its own, reached by the parameter), `d` is passed
// nowhere (an array of its own).
kernel void helper(global const uint* in, global uint* out) {
    uint g = get_global_id(0);
    uint x = in[g];
    uint a[12], b[12], c[5], d[7];
    fill(a, 12, x);
    fill(c, 5, x + 1);
    for (uint i = 0; i < 12; i++) b[i] = a[(i * 5 + x) % 12] + c[i % 5];
    for (uint i = 0; i < 7; i++) d[i] = b[(x + i) % 12] - i;
    b[x % 7] ^= a[x % 12];
    d[x % 7] += c[x % 5];
    out[4 * g] = pick(b, x % 12);
    out[4 * g + 1] = b[(x >> 4) % 12];
    out[4 * g + 2] = a[x % 12] + c[(x >> 3) % 5];
    out[4 * g + 3] = d[(x >> 5) % 7] + d[6];
}
"#;

fn helper_reference(x: u32) -> [u32; 4] {
    let fill = |n: u32, seed: u32| -> Vec<u32> {
        (0..n)
            .map(|i| seed.wrapping_mul(i + 1) ^ (i << 3))
            .collect()
    };
    let a = fill(12, x);
    let c = fill(5, x.wrapping_add(1));
    let mut b: Vec<u32> = (0..12u32)
        .map(|i| a[((i * 5).wrapping_add(x) % 12) as usize].wrapping_add(c[(i % 5) as usize]))
        .collect();
    let mut d: Vec<u32> = (0..7u32)
        .map(|i| b[(x.wrapping_add(i) % 12) as usize].wrapping_sub(i))
        .collect();
    b[(x % 7) as usize] ^= a[(x % 12) as usize];
    d[(x % 7) as usize] = d[(x % 7) as usize].wrapping_add(c[(x % 5) as usize]);
    let i = (x % 12) as usize;
    [
        b[i].wrapping_add(b[(i + 1) % 12]),
        b[((x >> 4) % 12) as usize],
        a[i].wrapping_add(c[((x >> 3) % 5) as usize]),
        d[((x >> 5) % 7) as usize].wrapping_add(d[6]),
    ]
}

/// Private arrays passed to helper functions by pointer: two to the same
/// helper (they stay in the frame), one alone to another (an array of its
/// own that the helper reaches), beside one passed nowhere.
#[test]
fn private_arrays_passed_to_helper_functions() {
    let cl = Cl::new();
    let x = inputs(N);
    let (din, out) = (cl.buffer_from(&x), cl.buffer::<u32>(4 * N));
    let kernel = cl.kernel(HELPER, "helper");
    kernel.arg(0, &din).arg(1, &out);
    cl.queue.run(&kernel, &[N], None);
    let want: Vec<u32> = x.iter().flat_map(|&x| helper_reference(x)).collect();
    assert_same("out", &cl.queue.read(&out), &want);
}

const GENERIC: &str = r#"
__attribute__((noinline)) int sum4(int* p) {
    return p[0] + p[1] * 2 + p[2] * 3 + p[3] * 4;
}

kernel void to_generic(global const int* in, global int* out) {
    int g = get_global_id(0);
    int x = in[g] & 0xffff;
    int a[8];
    int b[8];
    for (int i = 0; i < 8; i++) {
        a[i] = x + i * 3;
        b[i] = x - i * 5;
    }
    int* p = (x & 1) ? a + (x & 3) : b + ((x >> 2) & 3);
    p[1] += 100;
    out[3 * g] = sum4(p);
    out[3 * g + 1] = p == a + (x & 3);
    out[3 * g + 2] = a[(x >> 3) & 7] - b[(x >> 5) & 7];
}
"#;

fn generic_reference(x: i32) -> [i32; 3] {
    let x = x & 0xffff;
    let mut a: Vec<i32> = (0..8).map(|i| x + i * 3).collect();
    let mut b: Vec<i32> = (0..8).map(|i| x - i * 5).collect();
    let (arr, off) = if x & 1 != 0 {
        (&mut a, (x & 3) as usize)
    } else {
        (&mut b, ((x >> 2) & 3) as usize)
    };
    arr[off + 1] += 100;
    let sum = arr[off] + arr[off + 1] * 2 + arr[off + 2] * 3 + arr[off + 3] * 4;
    [
        sum,
        (x & 1 != 0) as i32,
        a[((x >> 3) & 7) as usize] - b[((x >> 5) & 7) as usize],
    ]
}

/// Pointers into two private arrays chosen per work-item as a generic
/// pointer, passed to a function taking a generic pointer and compared
/// with another (both arrays stay in the frame).
#[test]
fn private_pointer_converted_to_generic() {
    let cl = Cl::new();
    let x: Vec<i32> = inputs(N).iter().map(|&v| v as i32).collect();
    let (din, out) = (cl.buffer_from(&x), cl.buffer::<i32>(3 * N));
    let program = cl
        .try_build(GENERIC, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let kernel = program.kernel("to_generic");
    kernel.arg(0, &din).arg(1, &out);
    cl.queue.run(&kernel, &[N], None);
    let want: Vec<i32> = x.iter().flat_map(|&x| generic_reference(x)).collect();
    assert_same("out", &cl.queue.read(&out), &want);
}

const WIDE: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void wide(global const ulong* in, global ulong* out) {
    uint g = get_global_id(0);
    ulong x = in[g];
    ulong l[6];
    uint4 v[5];
    double d[3];
    char3 c[4];
    for (uint i = 0; i < 6; i++) l[i] = x * (i + 1) + ((ulong)i << 40);
    for (uint i = 0; i < 5; i++) v[i] = (uint4)((uint)(x >> (i * 8)), i, g, (uint)(x >> 32));
    for (uint i = 0; i < 3; i++) d[i] = (double)i * 0.25 + (double)g;
    for (uint i = 0; i < 4; i++) c[i] = (char3)((char)i, (char)(g + i), (char)x);
    uint k = (uint)(x % 6);
    l[k] ^= l[(k + 1) % 6] >> 3;
    v[k % 5].yz += (uint2)((uint)l[k], k);
    d[k % 3] = d[(k + 1) % 3] * 2.0 + (double)(l[k] & 0xffff);
    c[k & 3].xz = (char2)((char)(k * 7), (char)(l[k] >> 8));
    global ulong* o = out + 23 * g;
    for (uint i = 0; i < 6; i++) o[i] = l[i];
    for (uint i = 0; i < 5; i++) o[6 + 2 * i] = as_ulong(v[i].xy), o[7 + 2 * i] = as_ulong(v[i].zw);
    for (uint i = 0; i < 3; i++) o[16 + i] = as_ulong(d[i]);
    for (uint i = 0; i < 4; i++)
        o[19 + i] = (ulong)(uchar)c[i].x | (ulong)(uchar)c[i].y << 8 | (ulong)(uchar)c[i].z << 16;
}
"#;

fn wide_reference(g: u32, x: u64) -> Vec<u64> {
    let mut l: Vec<u64> = (0..6u64)
        .map(|i| x.wrapping_mul(i + 1).wrapping_add(i << 40))
        .collect();
    let mut v: Vec<[u32; 4]> = (0..5u32)
        .map(|i| [(x >> (i * 8)) as u32, i, g, (x >> 32) as u32])
        .collect();
    let mut d: Vec<f64> = (0..3).map(|i| i as f64 * 0.25 + g as f64).collect();
    let mut c: Vec<[u8; 3]> = (0..4u32)
        .map(|i| [i as u8, (g + i) as u8, x as u8])
        .collect();
    let k = (x % 6) as usize;
    l[k] ^= l[(k + 1) % 6] >> 3;
    v[k % 5][1] = v[k % 5][1].wrapping_add(l[k] as u32);
    v[k % 5][2] = v[k % 5][2].wrapping_add(k as u32);
    d[k % 3] = d[(k + 1) % 3] * 2.0 + (l[k] & 0xffff) as f64;
    c[k & 3][0] = (k * 7) as u8;
    c[k & 3][2] = (l[k] >> 8) as u8;
    let mut o = l.clone();
    for p in &v {
        o.push(p[0] as u64 | (p[1] as u64) << 32);
        o.push(p[2] as u64 | (p[3] as u64) << 32);
    }
    o.extend(d.iter().map(|x| x.to_bits()));
    o.extend(
        c.iter()
            .map(|p| p[0] as u64 | (p[1] as u64) << 8 | (p[2] as u64) << 16),
    );
    o
}

/// Private arrays of ulong, uint4, double and char3 (a 3-vector is four
/// bytes in memory) with dynamic indices and partial vector writes.
#[test]
fn sixty_four_bit_and_vector_elements() {
    let cl = Cl::new();
    let x: Vec<u64> = inputs(2 * N)
        .chunks(2)
        .map(|p| p[0] as u64 | (p[1] as u64) << 32)
        .collect();
    let (din, out) = (cl.buffer_from(&x), cl.buffer::<u64>(23 * N));
    let kernel = cl.kernel(WIDE, "wide");
    kernel.arg(0, &din).arg(1, &out);
    cl.queue.run(&kernel, &[N], None);
    let want: Vec<u64> = (0..N)
        .flat_map(|g| wide_reference(g as u32, x[g]))
        .collect();
    assert_same("out", &cl.queue.read(&out), &want);
}

const STRUCTS: &str = r#"
typedef struct {
    uint n;
    uchar tag[3];
    float v[5];
    ulong big;
    ushort s[2];
} rec;

kernel void structs(global const uint* in, global uint* out) {
    uint g = get_global_id(0);
    uint x = in[g];
    rec r[3];
    for (uint j = 0; j < 3; j++) {
        r[j].n = x + j;
        for (uint t = 0; t < 3; t++) r[j].tag[t] = (uchar)(x >> (8 * t)) + j;
        for (uint t = 0; t < 5; t++) r[j].v[t] = (float)(t + j) * 0.5f;
        r[j].big = ((ulong)x << 20) + j;
        r[j].s[0] = (ushort)(g + j);
        r[j].s[1] = (ushort)(x >> 16);
    }
    uint k = x % 3;
    uint t = (x >> 8) % 5;
    r[k].v[t] += 1.0f;
    r[k].tag[t % 3] ^= 0x5a;
    r[(k + 1) % 3].big += r[k].n;
    r[k].s[t & 1] = (ushort)(r[k].s[t & 1] * 3);
    global uint* o = out + 42 * g;
    for (uint j = 0; j < 3; j++) {
        o[14 * j] = r[j].n;
        for (uint q = 0; q < 3; q++) o[14 * j + 1 + q] = r[j].tag[q];
        for (uint q = 0; q < 5; q++) o[14 * j + 4 + q] = as_uint(r[j].v[q]);
        o[14 * j + 9] = (uint)r[j].big;
        o[14 * j + 10] = (uint)(r[j].big >> 32);
        o[14 * j + 11] = r[j].s[0];
        o[14 * j + 12] = r[j].s[1];
        o[14 * j + 13] = j;
    }
}
"#;

#[derive(Clone)]
struct Rec {
    n: u32,
    tag: [u8; 3],
    v: [f32; 5],
    big: u64,
    s: [u16; 2],
}

fn structs_reference(g: u32, x: u32) -> Vec<u32> {
    let mut r: Vec<Rec> = (0..3u32)
        .map(|j| Rec {
            n: x.wrapping_add(j),
            tag: [0, 1, 2].map(|t| ((x >> (8 * t)) as u8).wrapping_add(j as u8)),
            v: [0, 1, 2, 3, 4].map(|t| (t + j) as f32 * 0.5),
            big: ((x as u64) << 20) + j as u64,
            s: [(g + j) as u16, (x >> 16) as u16],
        })
        .collect();
    let k = (x % 3) as usize;
    let t = ((x >> 8) % 5) as usize;
    r[k].v[t] += 1.0;
    r[k].tag[t % 3] ^= 0x5a;
    let n = r[k].n as u64;
    r[(k + 1) % 3].big = r[(k + 1) % 3].big.wrapping_add(n);
    r[k].s[t & 1] = r[k].s[t & 1].wrapping_mul(3);
    r.iter()
        .enumerate()
        .flat_map(|(j, r)| {
            let mut o = vec![r.n];
            o.extend(r.tag.iter().map(|&b| b as u32));
            o.extend(r.v.iter().map(|f| f.to_bits()));
            o.extend([r.big as u32, (r.big >> 32) as u32]);
            o.extend([r.s[0] as u32, r.s[1] as u32, j as u32]);
            o
        })
        .collect()
}

/// An array of structs with array members (bytes, floats, a ulong, shorts)
/// written at dynamic indices.
#[test]
fn struct_with_array_members() {
    let cl = Cl::new();
    let x = inputs(N);
    let (din, out) = (cl.buffer_from(&x), cl.buffer::<u32>(42 * N));
    let kernel = cl.kernel(STRUCTS, "structs");
    kernel.arg(0, &din).arg(1, &out);
    cl.queue.run(&kernel, &[N], None);
    let want: Vec<u32> = (0..N)
        .flat_map(|g| structs_reference(g as u32, x[g]))
        .collect();
    assert_same("out", &cl.queue.read(&out), &want);
}

const MERGED: &str = r#"
kernel void merged(global const uint* in, global uint* out) {
    uint g = get_global_id(0);
    uint x = in[g];
    uint a[8], b[8], c[8];
    for (uint i = 0; i < 8; i++) {
        a[i] = x + i;
        b[i] = x ^ i;
        c[i] = i * 3;
    }
    // Pointers into one variable chosen at run time.
    uint* p = (x & 1) ? &a[x & 7] : &a[(x >> 3) & 7];
    *p += 100;
    uint* q;
    switch (x % 3) {
    case 0: q = &a[1]; break;
    case 1: q = &a[4]; break;
    default: q = &a[(x >> 2) & 7]; break;
    }
    *q ^= 0xff;
    // Pointers into two variables chosen at run time.
    uint* r = (x & 2) ? &b[x & 7] : &c[(x >> 4) & 7];
    *r += 1;
    for (uint i = 0; i < 8; i++) {
        out[24 * g + i] = a[i];
        out[24 * g + 8 + i] = b[i];
        out[24 * g + 16 + i] = c[i];
    }
}
"#;

fn merged_reference(x: u32) -> Vec<u32> {
    let mut a: Vec<u32> = (0..8).map(|i| x.wrapping_add(i)).collect();
    let mut b: Vec<u32> = (0..8).map(|i| x ^ i).collect();
    let mut c: Vec<u32> = (0..8).map(|i| i * 3).collect();
    let p = if x & 1 != 0 { x & 7 } else { (x >> 3) & 7 } as usize;
    a[p] = a[p].wrapping_add(100);
    let q = match x % 3 {
        0 => 1,
        1 => 4,
        _ => ((x >> 2) & 7) as usize,
    };
    a[q] ^= 0xff;
    if x & 2 != 0 {
        b[(x & 7) as usize] += 1;
    } else {
        c[((x >> 4) & 7) as usize] += 1;
    }
    a.extend(b);
    a.extend(c);
    a
}

/// Pointers chosen by selects and phis: between elements of one array
/// (it keeps an array of its own) and between two arrays (both stay in
/// the frame).
#[test]
fn pointers_merged_by_select_and_phi() {
    let cl = Cl::new();
    let x = inputs(N);
    let (din, out) = (cl.buffer_from(&x), cl.buffer::<u32>(24 * N));
    let kernel = cl.kernel(MERGED, "merged");
    kernel.arg(0, &din).arg(1, &out);
    cl.queue.run(&kernel, &[N], None);
    let want: Vec<u32> = x.iter().flat_map(|&x| merged_reference(x)).collect();
    assert_same("out", &cl.queue.read(&out), &want);
}
