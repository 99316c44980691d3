//! Matrix multiply with a loop over the inner dimension, on a 2-D NDRange
//! whose sizes are not powers of two.

use ferrocl_tests::{assert_close, Cl};

const MATMUL: &str = r#"
// C (m x n) = A (m x k) * B (k x n), row-major. One work-item per element of C:
// dimension 0 walks the columns, dimension 1 the rows.
kernel void matmul(global const float* a, global const float* b, global float* c,
                   int m, int n, int k) {
    int col = get_global_id(0);
    int row = get_global_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
        sum += a[row * k + i] * b[i * n + col];
    c[row * n + col] = sum;
}
"#;

fn reference(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for row in 0..m {
        for col in 0..n {
            c[row * n + col] = (0..k).map(|i| a[row * k + i] * b[i * n + col]).sum();
        }
    }
    c
}

fn run(m: usize, n: usize, k: usize, global: [usize; 2], local: Option<[usize; 2]>) {
    let cl = Cl::new();
    // Small integers scaled by 1/8: most products and sums are exact, so
    // only reassociation or fma contraction can move the last bits.
    let a: Vec<f32> = (0..m * k)
        .map(|i| ((i * 7 % 13) as f32 - 6.0) / 8.0)
        .collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 5 % 11) as f32 - 5.0) / 8.0)
        .collect();
    let (da, db) = (cl.buffer_from(&a), cl.buffer_from(&b));
    let dc = cl.buffer_from(&vec![f32::NAN; m * n]);
    let kernel = cl.kernel(MATMUL, "matmul");
    let dims = [m as i32, n as i32, k as i32];
    kernel.arg(0, &da).arg(1, &db).arg(2, &dc);
    kernel.arg(3, &dims[0]).arg(4, &dims[1]).arg(5, &dims[2]);
    cl.queue
        .run(&kernel, &global, local.as_ref().map(|l| &l[..]));
    assert_close("c", &cl.queue.read(&dc), &reference(&a, &b, m, n, k), 1e-5);
}

#[test]
fn matmul_64x48_times_48x80() {
    run(64, 80, 48, [80, 64], Some([16, 8]));
}

#[test]
fn matmul_null_local_size() {
    run(64, 80, 48, [80, 64], None);
}

#[test]
fn matmul_padded_range_with_guard() {
    // 37 x 29 * 29 x 53, launched over a rounded-up 56 x 40 range: the
    // kernel's bounds check keeps the extra work-items from writing.
    run(37, 53, 29, [56, 40], Some([8, 8]));
}
