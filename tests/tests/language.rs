//! OpenCL C constructs beyond straight-line kernels: calls to helper
//! functions, and type punning: pointer casts in global and local memory, a
//! union of float, uint and byte views in private memory.

use ferrocl_tests::{assert_same, Cl};

const HELPERS: &str = r#"
typedef struct { int quotient; int remainder; } divmod_t;

int gcd(int a, int b) {
    while (b != 0) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

divmod_t divmod(int a, int b) {
    divmod_t r = { a / b, a % b };
    return r;
}

// Writes through a pointer it is given.
void store_pair(global int* p, int first, int second) {
    p[0] = first;
    p[1] = second;
}

float horner(float x) {
    return ((2.0f * x - 3.0f) * x + 0.5f) * x - 7.0f;
}

kernel void helpers(global const int* a, global const int* b, global int* ints,
                    global float* floats) {
    size_t i = get_global_id(0);
    divmod_t d = divmod(a[i], b[i]);
    ints[3 * i] = gcd(a[i], b[i]);
    store_pair(ints + 3 * i + 1, d.quotient, d.remainder);
    floats[i] = horner((float)i / 4.0f);
}
"#;

fn gcd(mut a: i32, mut b: i32) -> i32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[test]
fn kernel_calls_helper_functions() {
    let cl = Cl::new();
    let n = 100;
    let a: Vec<i32> = (0..n as i32).map(|i| 1000 + i * 37).collect();
    let b: Vec<i32> = (0..n as i32).map(|i| 1 + i * 12 % 91).collect();
    let (da, db) = (cl.buffer_from(&a), cl.buffer_from(&b));
    let (ints, floats) = (cl.buffer::<i32>(3 * n), cl.buffer::<f32>(n));
    let kernel = cl.kernel(HELPERS, "helpers");
    kernel.arg(0, &da).arg(1, &db).arg(2, &ints).arg(3, &floats);
    cl.queue.run(&kernel, &[n], None);
    let want: Vec<i32> = a
        .iter()
        .zip(&b)
        .flat_map(|(&a, &b)| [gcd(a, b), a / b, a % b])
        .collect();
    assert_same("ints", &cl.queue.read(&ints), &want);
    // Every intermediate is a multiple of 1/64 below 2^24: exact in f32
    // with or without fma contraction.
    let horner = |x: f32| ((2.0 * x - 3.0) * x + 0.5) * x - 7.0;
    let want: Vec<f32> = (0..n).map(|i| horner(i as f32 / 4.0)).collect();
    assert_same("floats", &cl.queue.read(&floats), &want);
}

const PUNNING: &str = r#"
// Reads a float's bits through a uint pointer to the same global memory.
kernel void float_bits(global float* f, global uint* bits) {
    size_t i = get_global_id(0);
    bits[i] = *(global uint*)&f[i];
}

// Writes a float through a uint pointer: flips the sign bit in place.
kernel void negate_in_place(global float* f) {
    size_t i = get_global_id(0);
    global uint* u = (global uint*)&f[i];
    *u ^= 0x80000000u;
}

// Views a float4 buffer as bytes: byte 4*k+3 of each float holds its sign
// and top exponent bits (little-endian).
kernel void high_bytes(global const float4* v, global uchar* out) {
    size_t i = get_global_id(0);
    global const uchar* bytes = (global const uchar*)(v + i);
    for (int k = 0; k < 4; k++)
        out[4 * i + k] = bytes[4 * k + 3];
}

// __local floats read back as uints, at another work-item's position.
kernel void local_bits(global const float* f, global uint* bits) {
    __local float tile[64];
    uint lid = get_local_id(0);
    tile[lid] = f[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint* as_uints = (__local uint*)tile;
    bits[get_global_id(0)] = as_uints[63 - lid];
}

// A private float array read back as uints with a run-time index, through a
// union: reading a float object through a uint* is undefined under C99's
// aliasing rules, and clang's optimiser exploits that in private memory.
kernel void private_bits(global const float* f, global uint* bits) {
    size_t i = get_global_id(0);
    size_t n = get_global_size(0);
    union { float f[4]; uint u[4]; uchar bytes[16]; } priv;
    priv.f[0] = f[i];
    priv.f[1] = f[(i + 1) % n];
    priv.f[2] = f[(i + 2) % n];
    priv.f[3] = 1.5f;
    // One byte of the view rewritten: the low byte of element i % 4.
    priv.bytes[4 * (i % 4)] = 0x5a;
    for (int k = 0; k < 4; k++)
        bits[4 * i + k] = priv.u[(k + (int)i) % 4];
}
"#;

fn test_floats(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| match i % 5 {
            0 => i as f32 * 1.25,
            1 => -(i as f32) / 3.0,
            2 => f32::MIN_POSITIVE * i as f32,
            3 => 1.0e20 / (i as f32 + 1.0),
            _ => -0.0,
        })
        .collect()
}

#[test]
fn global_pointer_cast_read() {
    let cl = Cl::new();
    let f = test_floats(256);
    let (df, bits) = (cl.buffer_from(&f), cl.buffer::<u32>(f.len()));
    let kernel = cl.kernel(PUNNING, "float_bits");
    kernel.arg(0, &df).arg(1, &bits);
    cl.queue.run(&kernel, &[f.len()], None);
    let want: Vec<u32> = f.iter().map(|x| x.to_bits()).collect();
    assert_same("bits", &cl.queue.read(&bits), &want);
}

#[test]
fn global_pointer_cast_write() {
    let cl = Cl::new();
    let f = test_floats(256);
    let df = cl.buffer_from(&f);
    let kernel = cl.kernel(PUNNING, "negate_in_place");
    kernel.arg(0, &df);
    cl.queue.run(&kernel, &[f.len()], None);
    let want: Vec<u32> = f.iter().map(|x| (-x).to_bits()).collect();
    let got: Vec<u32> = cl.queue.read(&df).iter().map(|x| x.to_bits()).collect();
    assert_same("bits", &got, &want);
}

#[test]
fn global_vector_viewed_as_bytes() {
    let cl = Cl::new();
    let f = test_floats(64);
    let v: Vec<[f32; 4]> = f.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    let (dv, out) = (cl.buffer_from(&v), cl.buffer::<u8>(f.len()));
    let kernel = cl.kernel(PUNNING, "high_bytes");
    kernel.arg(0, &dv).arg(1, &out);
    cl.queue.run(&kernel, &[v.len()], None);
    let want: Vec<u8> = f.iter().map(|x| x.to_le_bytes()[3]).collect();
    assert_same("bytes", &cl.queue.read(&out), &want);
}

#[test]
fn local_pointer_cast() {
    let cl = Cl::new();
    let f = test_floats(128);
    let (df, bits) = (cl.buffer_from(&f), cl.buffer::<u32>(f.len()));
    let kernel = cl.kernel(PUNNING, "local_bits");
    kernel.arg(0, &df).arg(1, &bits);
    cl.queue.run(&kernel, &[f.len()], Some(&[64]));
    let want: Vec<u32> = f
        .chunks(64)
        .flat_map(|c| c.iter().rev().map(|x| x.to_bits()))
        .collect();
    assert_same("bits", &cl.queue.read(&bits), &want);
}

#[test]
fn private_union_views() {
    let cl = Cl::new();
    let f = test_floats(40);
    let (df, bits) = (cl.buffer_from(&f), cl.buffer::<u32>(4 * f.len()));
    let kernel = cl.kernel(PUNNING, "private_bits");
    kernel.arg(0, &df).arg(1, &bits);
    cl.queue.run(&kernel, &[f.len()], None);
    let want: Vec<u32> = f
        .iter()
        .enumerate()
        .flat_map(|(i, &x)| {
            let n = f.len();
            let mut private = [x, f[(i + 1) % n], f[(i + 2) % n], 1.5f32].map(f32::to_bits);
            private[i % 4] = private[i % 4] & !0xff | 0x5a;
            (0..4).map(move |k| private[(k + i) % 4])
        })
        .collect();
    assert_same("bits", &cl.queue.read(&bits), &want);
}

// Loads at addresses from different 64-bit remainders with one divisor:
// NVIDIA's Vulkan compiler once merged them (the compiler's
// guard_int64_division pass works around it).
const MODULO_LOADS: &str = r#"
kernel void modulo_loads(global const uint* f, global uint* o, ulong n) {
    size_t i = get_global_id(0);
    o[4 * i] = f[i];
    o[4 * i + 1] = f[(i + 1) % n];
    o[4 * i + 2] = f[(i + 2) % n];
    o[4 * i + 3] = (uint)((i + 7) / n) + f[(i + 3) % n];
}
"#;

#[test]
fn modulo_indexed_loads() {
    let cl = Cl::new();
    let n = 37usize;
    let f: Vec<u32> = (0..n as u32).map(|i| 1000 + i * 3).collect();
    let (df, out) = (cl.buffer_from(&f), cl.buffer::<u32>(4 * n));
    let kernel = cl.kernel(MODULO_LOADS, "modulo_loads");
    kernel.arg(0, &df).arg(1, &out).arg(2, &(n as u64));
    cl.queue.run(&kernel, &[n], None);
    let want: Vec<u32> = (0..n)
        .flat_map(|i| {
            [
                f[i],
                f[(i + 1) % n],
                f[(i + 2) % n],
                ((i + 7) / n) as u32 + f[(i + 3) % n],
            ]
        })
        .collect();
    assert_same("o", &cl.queue.read(&out), &want);
}

/// Loop hints (`#pragma unroll N`) reach llvm-spirv as loop controls with
/// merge instructions of their own; the compiler must drop them and
/// structurize as usual (they once broke the lowered module).
#[test]
fn loops_with_unroll_pragmas() {
    let cl = Cl::new();
    let source = r#"
        kernel void sums(global const int* a, global int* out, int n) {
            size_t g = get_global_id(0);
            int s1 = 0, s2 = 0, s3 = 0;
            #pragma unroll 1
            for (int i = 0; i < n; i++) s1 += a[(g + i) % 64];
            #pragma unroll 4
            for (int i = 0; i < n; i++) { if (a[i] < 0) break; s2 += a[i] * (int)g; }
            #pragma unroll
            for (int i = 0; i < 8; i++) s3 += i * (int)g;
            out[3 * g] = s1; out[3 * g + 1] = s2; out[3 * g + 2] = s3;
        }"#;
    let a: Vec<i32> = (0..64)
        .map(|i| if i == 40 { -1 } else { i * 3 + 1 })
        .collect();
    let da = cl.buffer_from(&a);
    let out = cl.buffer::<i32>(3 * 64);
    let kernel = cl.kernel(source, "sums");
    kernel.arg(0, &da).arg(1, &out).arg(2, &50i32);
    cl.queue.run(&kernel, &[64], None);
    let mut want = Vec::new();
    for g in 0..64usize {
        let s1: i32 = (0..50).map(|i| a[(g + i) % 64]).sum();
        let s2: i32 = a[..40].iter().map(|x| x * g as i32).sum();
        let s3: i32 = (0..8).map(|i| i * g as i32).sum();
        want.extend([s1, s2, s3]);
    }
    assert_same("sums", &cl.queue.read(&out), &want);
}

/// 64-bit division and remainder, signed and unsigned, with negative and
/// large operands: the compiler's 32-bit fast path
/// (passes/guard_int64_division.rs) must agree with the 64-bit operation
/// on every operand pair, inside and outside its range.
#[test]
fn int64_division_and_remainder() {
    let cl = Cl::new();
    let source = r#"
        kernel void divrem(global const long* a, global const long* b, global long* out) {
            size_t i = get_global_id(0);
            long x = a[i], y = b[i];
            out[4 * i] = x / y;
            out[4 * i + 1] = x % y;
            out[4 * i + 2] = (long)((ulong)x / (ulong)y);
            out[4 * i + 3] = (long)((ulong)x % (ulong)y);
        }
        #define DIVREM(N) \
        kernel void divrem##N(global const long##N* a, global const long##N* b, \
                              global long##N* out) { \
            size_t i = get_global_id(0); \
            long##N x = a[i], y = b[i]; \
            out[4 * i] = x / y; \
            out[4 * i + 1] = x % y; \
            out[4 * i + 2] = as_long##N(as_ulong##N(x) / as_ulong##N(y)); \
            out[4 * i + 3] = as_long##N(as_ulong##N(x) % as_ulong##N(y)); \
        }
        DIVREM(2)
        DIVREM(4)
        DIVREM(16)
        // Alone in a kernel, as the CTS has it (integer_ops quick_long_math
        // once failed on the H100 this way and not with / alongside).
        kernel void rem_only(global long* a, global long* b, global long* dst) {
            int tid = get_global_id(0);
            dst[tid] = a[tid] % b[tid];
        }
        kernel void div_only(global long* a, global long* b, global long* dst) {
            int tid = get_global_id(0);
            dst[tid] = a[tid] / b[tid];
        }
        kernel void divrem3(global const long* a, global const long* b, global long* out) {
            size_t i = get_global_id(0);
            long3 x = vload3(i, a), y = vload3(i, b);
            vstore3(x / y, 4 * i, out);
            vstore3(x % y, 4 * i + 1, out);
            vstore3(as_long3(as_ulong3(x) / as_ulong3(y)), 4 * i + 2, out);
            vstore3(as_long3(as_ulong3(x) % as_ulong3(y)), 4 * i + 3, out);
        }"#;
    let vals: [i64; 12] = [
        1,
        2,
        4,
        8,
        -1,
        -2,
        -4,
        7,
        -7,
        i32::MAX as i64,
        i32::MIN as i64,
        (1 << 40) + 3,
    ];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &vals {
        for &y in &vals {
            a.push(x);
            b.push(y);
        }
    }
    let (da, db) = (cl.buffer_from(&a), cl.buffer_from(&b));
    let out = cl.buffer::<i64>(4 * a.len());
    let kernel = cl.kernel(source, "divrem");
    kernel.arg(0, &da).arg(1, &db).arg(2, &out);
    cl.queue.run(&kernel, &[a.len()], None);
    let mut want = Vec::new();
    for (&x, &y) in a.iter().zip(&b) {
        want.extend([
            x.wrapping_div(y),
            x.wrapping_rem(y),
            ((x as u64) / (y as u64)) as i64,
            ((x as u64) % (y as u64)) as i64,
        ]);
    }
    assert_same("divrem", &cl.queue.read(&out), &want);

    let program = cl.context.build(source);
    for (name, op) in [("rem_only", 1usize), ("div_only", 0)] {
        let o = cl.buffer::<i64>(a.len());
        let k = program.kernel(name);
        k.arg(0, &da).arg(1, &db).arg(2, &o);
        cl.queue.run(&k, &[a.len()], None);
        let w: Vec<i64> = (0..a.len()).map(|i| want[4 * i + op]).collect();
        assert_same(name, &cl.queue.read(&o), &w);
    }

    // The same pairs as vectors of N (elements N*j .. N*j+N-1 of each).
    for n in [2usize, 3, 4, 16] {
        let outn = cl.buffer::<i64>(4 * a.len());
        let k = program.kernel(&format!("divrem{n}"));
        k.arg(0, &da).arg(1, &db).arg(2, &outn);
        cl.queue.run(&k, &[a.len() / n], None);
        let mut wantn = Vec::new();
        for j in 0..a.len() / n {
            for op in 0..4 {
                for lane in 0..n {
                    wantn.push(want[4 * (n * j + lane) + op]);
                }
            }
        }
        assert_same(&format!("divrem{n}"), &cl.queue.read(&outn), &wantn);
    }
}

/// Signed remainder of 8/16/32-bit values alone in a kernel, as the CTS
/// has it: NVIDIA's compiler got `-1 % INT_MIN` and `1 % -1` wrong until
/// the compiler rewrote OpSRem through OpSDiv (passes/srem_via_sdiv.rs).
#[test]
fn signed_remainder_of_narrow_types() {
    let cl = Cl::new();
    let source = r#"
        kernel void rem_int(global int* a, global int* b, global int* d) {
            int tid = get_global_id(0); d[tid] = a[tid] % b[tid]; }
        kernel void rem_short(global short* a, global short* b, global short* d) {
            int tid = get_global_id(0); d[tid] = a[tid] % b[tid]; }
        kernel void rem_char4(global char4* a, global char4* b, global char4* d) {
            int tid = get_global_id(0); d[tid] = a[tid] % b[tid]; }"#;
    let program = cl.context.build(source);
    let ints: [i32; 9] = [1, -1, 7, -7, i32::MAX, i32::MIN, i32::MIN + 1, 3, -2];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &ints {
        for &y in &ints {
            if !(x == i32::MIN && y == -1) {
                a.push(x);
                b.push(y);
            }
        }
    }
    let (da, db, d) = (
        cl.buffer_from(&a),
        cl.buffer_from(&b),
        cl.buffer::<i32>(a.len()),
    );
    let k = program.kernel("rem_int");
    k.arg(0, &da).arg(1, &db).arg(2, &d);
    cl.queue.run(&k, &[a.len()], None);
    let want: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x % y).collect();
    assert_same("int %", &cl.queue.read(&d), &want);

    let shorts: Vec<(i16, i16)> = [1i16, -1, 7, -7, i16::MAX, i16::MIN, -2]
        .iter()
        .flat_map(|&x| [1i16, -1, 3, -3, i16::MAX, i16::MIN].map(move |y| (x, y)))
        .filter(|&(x, y)| !(x == i16::MIN && y == -1))
        .collect();
    let (sa, sb): (Vec<i16>, Vec<i16>) = shorts.iter().copied().unzip();
    let (da, db, d) = (
        cl.buffer_from(&sa),
        cl.buffer_from(&sb),
        cl.buffer::<i16>(sa.len()),
    );
    let k = program.kernel("rem_short");
    k.arg(0, &da).arg(1, &db).arg(2, &d);
    cl.queue.run(&k, &[sa.len()], None);
    let want: Vec<i16> = shorts.iter().map(|(x, y)| x % y).collect();
    assert_same("short %", &cl.queue.read(&d), &want);

    let chars: Vec<(i8, i8)> = [1i8, -1, 7, -7, i8::MAX, i8::MIN, -2, 5]
        .iter()
        .flat_map(|&x| [1i8, -1, 3, -3, i8::MAX, i8::MIN, 2, -128].map(move |y| (x, y)))
        .filter(|&(x, y)| !(x == i8::MIN && y == -1))
        .chain([(5, 3)]) // 63 pairs + 1: whole char4s
        .collect();
    let (ca, cb): (Vec<i8>, Vec<i8>) = chars.iter().copied().unzip();
    let (da, db, d) = (
        cl.buffer_from(&ca),
        cl.buffer_from(&cb),
        cl.buffer::<i8>(ca.len()),
    );
    let k = program.kernel("rem_char4");
    k.arg(0, &da).arg(1, &db).arg(2, &d);
    cl.queue.run(&k, &[ca.len() / 4], None);
    let want: Vec<i8> = chars.iter().map(|(x, y)| x % y).collect();
    assert_same("char4 %", &cl.queue.read(&d), &want);
}

const UNROLL_HINTS: &str = r#"
kernel void hinted(global uint *dst, uint n) {
    __attribute__((opencl_unroll_hint(1)))
    for (uint i = 0; i < 100; ++i)
        dst[i] = i * 3;
    #pragma unroll 4
    for (uint i = 0; i < n; ++i)
        dst[100 + i] = dst[i] + 1;
}
"#;

#[test]
fn loops_with_unroll_hints() {
    let cl = Cl::new();
    let n = 37u32;
    let dst = cl.buffer::<u32>(100 + n as usize);
    let kernel = cl.kernel(UNROLL_HINTS, "hinted");
    kernel.arg(0, &dst).arg(1, &n);
    cl.queue.run(&kernel, &[1], None);
    let mut want: Vec<u32> = (0..100).map(|i| i * 3).collect();
    want.extend((0..n).map(|i| i * 3 + 1));
    assert_same("dst", &cl.queue.read(&dst), &want);
}

/// A struct with a pointer to its own type (a list node): one kernel links
/// the nodes of a buffer in a shuffled order, another walks the list from
/// its head, summing and doubling the values. The order and sums are the
/// host's computation of the same walk.
#[test]
fn self_referential_struct_linked_list() {
    let cl = Cl::new();
    const N: usize = 97;
    const STRIDE: usize = 38; // coprime with N: visits every node once
    let program = cl.build(
        "typedef struct node { int value; global struct node *next; } node;
         kernel void link(global node *nodes, int n, int stride) {
             int i = get_global_id(0);
             int at = (i * stride) % n;
             int next = ((i + 1) * stride) % n;
             nodes[at].value = i * 7 - 100;
             nodes[at].next = i + 1 < n ? &nodes[next] : 0;
         }
         kernel void walk(global node *nodes, global int *out) {
             int sum = 0, count = 0;
             for (global node *p = nodes; p; p = p->next) {
                 sum += p->value;
                 p->value *= 2;
                 count++;
             }
             out[0] = sum;
             out[1] = count;
         }",
    );
    // 16 bytes a node: int, padding, 64-bit pointer.
    let nodes = cl.buffer::<i32>(N * 4);
    let out = cl.buffer::<i32>(2);
    let link = program.kernel("link");
    link.arg(0, &nodes)
        .arg(1, &(N as i32))
        .arg(2, &(STRIDE as i32));
    cl.queue.run(&link, &[N], None);
    let walk = program.kernel("walk");
    walk.arg(0, &nodes).arg(1, &out);
    cl.queue.run(&walk, &[1], Some(&[1]));
    let values: Vec<i32> = (0..N as i32).map(|i| i * 7 - 100).collect();
    assert_eq!(
        cl.queue.read(&out),
        vec![values.iter().sum::<i32>(), N as i32]
    );
    let words = cl.queue.read(&nodes);
    for (i, v) in values.iter().enumerate() {
        let at = (i * STRIDE) % N;
        assert_eq!(words[at * 4], v * 2, "node {at} (list position {i})");
    }
}
