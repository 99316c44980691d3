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
