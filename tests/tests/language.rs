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
