//! Element-wise 1-D kernels: vector add (float, int) and SAXPY.

use ferrocl_tests::{assert_close, assert_same, Cl};

const VECTOR_ADD: &str = r#"
kernel void add_float(global const float* a, global const float* b, global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

kernel void add_int(global const int* a, global const int* b, global int* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
"#;

#[test]
fn vector_add_float() {
    let cl = Cl::new();
    let n = 1024;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32 * 0.25).collect();
    let (da, db, dc) = (cl.buffer_from(&a), cl.buffer_from(&b), cl.buffer::<f32>(n));
    let kernel = cl.kernel(VECTOR_ADD, "add_float");
    kernel.arg(0, &da).arg(1, &db).arg(2, &dc);
    cl.queue.run(&kernel, &[n], Some(&[64]));
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    // One IEEE addition: exact.
    assert_same("c", &cl.queue.read(&dc), &want);
}

#[test]
fn vector_add_int() {
    let cl = Cl::new();
    let n = 4096;
    let a: Vec<i32> = (0..n as i32).map(|i| i * 7 - 9000).collect();
    let b: Vec<i32> = (0..n as i32).map(|i| i32::MAX - i * 3).collect();
    let (da, db, dc) = (cl.buffer_from(&a), cl.buffer_from(&b), cl.buffer::<i32>(n));
    let kernel = cl.kernel(VECTOR_ADD, "add_int");
    kernel.arg(0, &da).arg(1, &db).arg(2, &dc);
    cl.queue.run(&kernel, &[n], None);
    // Signed overflow wraps on every OpenCL device (two's complement).
    let want: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    assert_same("c", &cl.queue.read(&dc), &want);
}

#[test]
fn saxpy() {
    let cl = Cl::new();
    let source = r#"
        kernel void saxpy(float alpha, global const float* x, global float* y) {
            size_t i = get_global_id(0);
            y[i] = alpha * x[i] + y[i];
        }
    "#;
    let n = 2000;
    let alpha = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let y: Vec<f32> = (0..n).map(|i| (i as f32 * 0.1).cos()).collect();
    let (dx, dy) = (cl.buffer_from(&x), cl.buffer_from(&y));
    let kernel = cl.kernel(source, "saxpy");
    kernel.arg(0, &alpha).arg(1, &dx).arg(2, &dy);
    cl.queue.run(&kernel, &[n], Some(&[16]));
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| alpha * x + y).collect();
    // The compiler may contract a*x+y into an fma: allow an ulp or so.
    assert_close("y", &cl.queue.read(&dy), &want, 1e-6);
}

const GEOMETRY: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void geo(global const float4 *a, global const float4 *b, global float4 *cross4,
                global float *len, global float4 *norm, global float *dist) {
    size_t i = get_global_id(0);
    cross4[i] = cross(a[i], b[i]);
    len[i] = length(a[i]);
    norm[i] = normalize(a[i]);
    dist[i] = distance(a[i], b[i]);
}
kernel void deg(global const double *x, global double *o) {
    size_t i = get_global_id(0);
    o[2 * i] = degrees(x[i]);
    o[2 * i + 1] = radians(x[i]);
}
"#;

#[test]
fn geometric_functions_without_overflow() {
    let cl = Cl::new();
    let big = 2f32.powi(64);
    let tiny = 2f32.powi(-80);
    let a: Vec<f32> = vec![
        1.0,
        2.0,
        3.0,
        9.0, // ordinary
        big,
        0.0,
        0.0,
        0.0, // squares overflow
        tiny,
        tiny,
        0.0,
        0.0, // squares underflow
        f32::INFINITY,
        1.0,
        0.0,
        0.0, // infinite component
        0.0,
        0.0,
        0.0,
        0.0, // zero vector
    ];
    let b: Vec<f32> = vec![
        4.0, 5.0, 6.0, 7.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
        0.0, 0.0,
    ];
    let n = a.len() / 4;
    let (da, db) = (cl.buffer_from(&a), cl.buffer_from(&b));
    let (c, l, nm, d) = (
        cl.buffer::<f32>(4 * n),
        cl.buffer::<f32>(n),
        cl.buffer::<f32>(4 * n),
        cl.buffer::<f32>(n),
    );
    let p = cl.build(GEOMETRY);
    let k = p.kernel("geo");
    k.arg(0, &da)
        .arg(1, &db)
        .arg(2, &c)
        .arg(3, &l)
        .arg(4, &nm)
        .arg(5, &d);
    cl.queue.run(&k, &[n], None);
    // cross of 4-vectors: xyz cross product, w = 0.
    assert_same("cross", &cl.queue.read(&c)[..4], &[-3.0f32, 6.0, -3.0, 0.0]);
    let len = cl.queue.read(&l);
    let rel = |g: f32, w: f32| ((g - w) / w).abs();
    assert!(rel(len[0], 95f32.sqrt()) < 1e-6, "{}", len[0]);
    assert_eq!(len[1], big);
    assert!(rel(len[2], tiny * 2f32.sqrt()) < 1e-6, "{}", len[2]);
    assert_eq!(len[3], f32::INFINITY);
    assert_eq!(len[4], 0.0);
    let norm = cl.queue.read(&nm);
    assert_same("normalize big", &norm[4..8], &[1.0f32, 0.0, 0.0, 0.0]);
    let h = 0.5f32.sqrt();
    assert_close("normalize tiny", &norm[8..12], &[h, h, 0.0, 0.0], 1e-6);
    assert_same("normalize inf", &norm[12..16], &[1.0f32, 0.0, 0.0, 0.0]);
    assert_same("normalize zero", &norm[16..20], &[0.0f32; 4]);
    let dist = cl.queue.read(&d);
    assert_eq!(dist[1], big);

    let x = cl.buffer_from(&[1.0f64, -90.0, 1e300]);
    let o = cl.buffer::<f64>(6);
    let k = p.kernel("deg");
    k.arg(0, &x).arg(1, &o);
    cl.queue.run(&k, &[3], None);
    let got = cl.queue.read(&o);
    let pi = std::f64::consts::PI;
    let want = [1.0, -90.0, 1e300].map(|x: f64| [x * (180.0 / pi), x * (pi / 180.0)]);
    for (g, w) in got.iter().zip(want.iter().flatten()) {
        assert!(((g - w) / w).abs() < 1e-15, "{g} vs {w}");
    }
}

/// shuffle and shuffle2 with runtime masks, 2- to 16-wide, the mask's
/// high bits ignored (only log2(k) low bits count, k = input lanes).
#[test]
fn shuffle_and_shuffle2_with_runtime_masks() {
    let cl = Cl::new();
    let source = r#"
        kernel void sh(global const uchar* x, global const uchar* y, global const uchar* m,
                       global uchar* o16, global uchar* o2, global int* o4) {
            uchar16 a = vload16(0, x), c = vload16(0, y);
            uchar16 mask = vload16(0, m);
            vstore16(shuffle2(a, c, mask), 0, o16);
            vstore2(shuffle(a.s3456, mask.s01), 0, o2);
            int8 wide = (int8)(10, 11, 12, 13, 14, 15, 16, 17);
            uint4 im = convert_uint4(mask.s89ab);
            vstore4(shuffle(wide, im), 0, o4);
        }
    "#;
    let x: Vec<u8> = (0..16).map(|i| i * 3).collect();
    let y: Vec<u8> = (0..16).map(|i| 200 + i).collect();
    let m: Vec<u8> = vec![
        0,
        17,
        31,
        5,
        16,
        255,
        64 + 3,
        15,
        7,
        9,
        130,
        3,
        1,
        2,
        33,
        20,
    ];
    let kernel = cl.kernel(source, "sh");
    let (dx, dy, dm) = (cl.buffer_from(&x), cl.buffer_from(&y), cl.buffer_from(&m));
    let (o16, o2, o4) = (cl.buffer::<u8>(16), cl.buffer::<u8>(2), cl.buffer::<i32>(4));
    kernel
        .arg(0, &dx)
        .arg(1, &dy)
        .arg(2, &dm)
        .arg(3, &o16)
        .arg(4, &o2)
        .arg(5, &o4);
    cl.queue.run(&kernel, &[1], None);
    let both: Vec<u8> = x.iter().chain(&y).copied().collect();
    let want16: Vec<u8> = m.iter().map(|&k| both[(k & 31) as usize]).collect();
    assert_same("shuffle2 uchar16", &cl.queue.read(&o16), &want16);
    let want2: Vec<u8> = m[..2].iter().map(|&k| x[3 + (k & 3) as usize]).collect();
    assert_same("shuffle uchar4 -> uchar2", &cl.queue.read(&o2), &want2);
    let want4: Vec<i32> = m[8..12].iter().map(|&k| 10 + (k & 7) as i32).collect();
    assert_same("shuffle int8 -> int4", &cl.queue.read(&o4), &want4);
}
