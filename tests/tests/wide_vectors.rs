//! 8- and 16-wide vectors in memory (`lower::memory`, `lower::wide`):
//! float16 / int16 / uchar16 / short8 / double16 copies and element-wise
//! operations through pointers offset by one element, vload16/vstore16
//! (and vload8, vload3/vstore3) at addresses aligned to the element only,
//! narrow vectors in `__local` and private memory (accessed as words),
//! and a struct copy (memcpy in 16-byte chunks). Each kernel runs with
//! physical and with descriptor addressing; results are checked against
//! CPU references, and the bytes around each output against a sentinel.

use ferrocl_tests::{assert_same, device_string, testing_pocl, Cl, KernelArg, Local, Pod};
use opencl_sys::CL_DEVICE_EXTENSIONS;

/// Both address formats (PoCL, checking the tests themselves: its own).
fn addressing() -> &'static [&'static str] {
    if testing_pocl() {
        &[""]
    } else {
        &[
            "-ferrocl-addressing=physical",
            "-ferrocl-addressing=descriptor",
        ]
    }
}

/// Work-items per launch (elements of the wide type).
const N: usize = 256;

const SOURCE: &str = r#"
kernel void copy_f16(global const float16 *a, global float16 *b) {
    size_t i = get_global_id(0);
    b[i] = a[i];
}
kernel void ops_f16(global const float16 *a, global const float16 *b, global float16 *c) {
    size_t i = get_global_id(0);
    global const float16 *a1 = a + 1;
    c[i + 1] = a1[i] * b[i] + (float16)(0.5f) - a[i].sfedcba9876543210;
}
kernel void ops_i16(global const int16 *a, global const int16 *b, global int16 *c) {
    size_t i = get_global_id(0);
    c[i + 1] = ((a + 1)[i] * b[i] + (a[i] >> 3)) ^ (int16)(0x5a5a);
}
kernel void ops_uc16(global const uchar16 *a, global const uchar16 *b, global uchar16 *c) {
    size_t i = get_global_id(0);
    c[i + 1] = add_sat((a + 1)[i], b[i]) ^ a[i].sfedcba9876543210;
}
kernel void ops_s8(global const short8 *a, global const short8 *b, global short8 *c) {
    size_t i = get_global_id(0);
    c[i + 1] = (a + 1)[i] - b[i] * (short8)(3);
}
kernel void vl16_f(global const float *a, global float *b) {
    size_t i = get_global_id(0);
    vstore16(vload16(i, a + 1) * 2.0f, i, b + 3);
}
kernel void vl16_uc(global const uchar *a, global uchar *b) {
    size_t i = get_global_id(0);
    vstore16(vload16(i, a + 1) + (uchar16)((uchar)i), i, b + 3);
}
kernel void vl8_s(global const short *a, global short *b) {
    size_t i = get_global_id(0);
    vstore8(vload8(i, a + 1) * (short8)(3), i, b + 1);
}
kernel void vl3_uc(global const uchar *a, global uchar *b) {
    size_t i = get_global_id(0);
    vstore3(vload3(i, a + 1) + (uchar3)(1), i, b + 1);
}
kernel void local_uc16(global const uchar16 *a, global uchar16 *b, local uchar16 *t) {
    size_t l = get_local_id(0), n = get_local_size(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[get_global_id(0)] = t[n - 1 - l] + (uchar16)(1);
}
kernel void local_s4(global const short4 *a, global short4 *b, local short4 *t) {
    size_t l = get_local_id(0), n = get_local_size(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[get_global_id(0)] = t[n - 1 - l] + (short4)(1);
}
kernel void local_uc2(global const uchar2 *a, global uchar2 *b, local uchar2 *t) {
    size_t l = get_local_id(0), n = get_local_size(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[get_global_id(0)] = t[n - 1 - l] + (uchar2)(1);
}
kernel void private_uc16(global const uchar16 *a, global uchar16 *b, int k) {
    size_t i = get_global_id(0);
    uchar16 arr[4];
    for (int j = 0; j < 4; j++)
        arr[j] = a[i] + (uchar16)((uchar)j);
    b[i] = arr[(k + i) & 3];
}
typedef struct { float16 v; int k; } S;
kernel void copy_struct(global const S *a, global S *b) {
    size_t i = get_global_id(0);
    b[i] = a[i];
}
"#;

const SOURCE_FP64: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void ops_d16(global const double16 *a, global const double16 *b, global double16 *c) {
    size_t i = get_global_id(0);
    c[i + 1] = (a + 1)[i] * b[i] + a[i];
}
kernel void copy_d8(global const double8 *a, global double8 *b) {
    size_t i = get_global_id(0);
    b[i] = a[i];
}
"#;

/// Runs `name` from `source` (built with `options`) over `N` work-items
/// (work-groups of 64) on the given inputs and an output of `out_len`
/// elements filled with `sentinel`, plus `extra` arguments after them;
/// returns the output.
#[allow(clippy::too_many_arguments)]
fn run<I: Pod, O: Pod>(
    cl: &Cl,
    source: &str,
    options: &str,
    name: &str,
    inputs: &[&[I]],
    out_len: usize,
    sentinel: O,
    extra: &[&dyn KernelArg],
) -> Vec<O> {
    let p = cl
        .try_build(source, options)
        .unwrap_or_else(|e| panic!("{options}: {e}"));
    let k = p.kernel(name);
    let bufs: Vec<_> = inputs.iter().map(|d| cl.buffer_from(d)).collect();
    let out = cl.buffer_from(&vec![sentinel; out_len]);
    let mut i = 0;
    for b in &bufs {
        k.arg(i, b);
        i += 1;
    }
    k.arg(i, &out);
    for e in extra {
        k.arg(i + 1, *e);
        i += 1;
    }
    cl.queue.run(&k, &[N], Some(&[64]));
    cl.queue.read(&out)
}

/// Small integers and halves: every sum and product below is exact.
fn floats(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 7 + seed) % 61) as f32 * 0.5 - 12.0)
        .collect()
}

fn ints(len: usize, seed: usize) -> Vec<i32> {
    (0..len)
        .map(|i| ((i * 13 + seed) % 1999) as i32 - 1000)
        .collect()
}

fn bytes(len: usize, seed: usize) -> Vec<u8> {
    (0..len)
        .map(|i| ((i * 29 + seed * 7) % 256) as u8)
        .collect()
}

fn shorts(len: usize, seed: usize) -> Vec<i16> {
    (0..len)
        .map(|i| ((i * 977 + seed * 31) % 65536) as u16 as i16)
        .collect()
}

#[test]
fn float16_copy_and_operations_through_offset_pointers() {
    let cl = Cl::new();
    for &opt in addressing() {
        let a = floats((N + 1) * 16, 1);
        let b = floats(N * 16, 5);
        let got = run(
            &cl,
            SOURCE,
            opt,
            "copy_f16",
            &[&a[..N * 16]],
            N * 16,
            -1.0f32,
            &[],
        );
        assert_same(&format!("{opt} copy_f16"), &got, &a[..N * 16]);

        let got = run(
            &cl,
            SOURCE,
            opt,
            "ops_f16",
            &[&a, &b],
            (N + 1) * 16,
            -7.0f32,
            &[],
        );
        let mut want = vec![-7.0f32; (N + 1) * 16];
        for i in 0..N {
            for j in 0..16 {
                want[(i + 1) * 16 + j] =
                    a[(i + 1) * 16 + j] * b[i * 16 + j] + 0.5 - a[i * 16 + 15 - j];
            }
        }
        assert_same(&format!("{opt} ops_f16"), &got, &want);
    }
}

#[test]
fn int16_uchar16_short8_operations_through_offset_pointers() {
    let cl = Cl::new();
    for &opt in addressing() {
        let a = ints((N + 1) * 16, 3);
        let b = ints(N * 16, 11);
        let got = run(
            &cl,
            SOURCE,
            opt,
            "ops_i16",
            &[&a, &b],
            (N + 1) * 16,
            77i32,
            &[],
        );
        let mut want = vec![77i32; (N + 1) * 16];
        for i in 0..N {
            for j in 0..16 {
                want[(i + 1) * 16 + j] =
                    (a[(i + 1) * 16 + j] * b[i * 16 + j] + (a[i * 16 + j] >> 3)) ^ 0x5a5a;
            }
        }
        assert_same(&format!("{opt} ops_i16"), &got, &want);

        let a = bytes((N + 1) * 16, 1);
        let b = bytes(N * 16, 2);
        let got = run(
            &cl,
            SOURCE,
            opt,
            "ops_uc16",
            &[&a, &b],
            (N + 1) * 16,
            0xeeu8,
            &[],
        );
        let mut want = vec![0xeeu8; (N + 1) * 16];
        for i in 0..N {
            for j in 0..16 {
                want[(i + 1) * 16 + j] =
                    a[(i + 1) * 16 + j].saturating_add(b[i * 16 + j]) ^ a[i * 16 + 15 - j];
            }
        }
        assert_same(&format!("{opt} ops_uc16"), &got, &want);

        let a = shorts((N + 1) * 8, 1);
        let b = shorts(N * 8, 2);
        let got = run(
            &cl,
            SOURCE,
            opt,
            "ops_s8",
            &[&a, &b],
            (N + 1) * 8,
            0x1234i16,
            &[],
        );
        let mut want = vec![0x1234i16; (N + 1) * 8];
        for i in 0..N {
            for j in 0..8 {
                want[(i + 1) * 8 + j] =
                    a[(i + 1) * 8 + j].wrapping_sub(b[i * 8 + j].wrapping_mul(3));
            }
        }
        assert_same(&format!("{opt} ops_s8"), &got, &want);
    }
}

/// vloadn/vstoren need only the element's alignment: each access here is
/// off its vector's natural alignment by one to three elements.
#[test]
fn vload16_vstore16_at_element_aligned_addresses() {
    let cl = Cl::new();
    for &opt in addressing() {
        let a = floats(N * 16 + 1, 2);
        let got = run(&cl, SOURCE, opt, "vl16_f", &[&a], N * 16 + 4, -3.0f32, &[]);
        let mut want = vec![-3.0f32; N * 16 + 4];
        for e in 0..N * 16 {
            want[3 + e] = a[1 + e] * 2.0;
        }
        assert_same(&format!("{opt} vl16_f"), &got, &want);

        let a = bytes(N * 16 + 1, 3);
        let got = run(&cl, SOURCE, opt, "vl16_uc", &[&a], N * 16 + 4, 0xa5u8, &[]);
        let mut want = vec![0xa5u8; N * 16 + 4];
        for e in 0..N * 16 {
            want[3 + e] = a[1 + e].wrapping_add((e / 16) as u8);
        }
        assert_same(&format!("{opt} vl16_uc"), &got, &want);

        let a = shorts(N * 8 + 1, 4);
        let got = run(&cl, SOURCE, opt, "vl8_s", &[&a], N * 8 + 2, 0x5555i16, &[]);
        let mut want = vec![0x5555i16; N * 8 + 2];
        for e in 0..N * 8 {
            want[1 + e] = a[1 + e].wrapping_mul(3);
        }
        assert_same(&format!("{opt} vl8_s"), &got, &want);

        // vstore3 writes three elements, not four.
        let a = bytes(N * 3 + 1, 5);
        let got = run(&cl, SOURCE, opt, "vl3_uc", &[&a], N * 3 + 2, 0x3cu8, &[]);
        let mut want = vec![0x3cu8; N * 3 + 2];
        for e in 0..N * 3 {
            want[1 + e] = a[1 + e].wrapping_add(1);
        }
        assert_same(&format!("{opt} vl3_uc"), &got, &want);
    }
}

/// Narrow vectors in `__local` and private memory (whole words there):
/// uchar16 and short4 are word accesses; uchar2 shares its word with a
/// neighbour's and stays a byte-exact store.
#[test]
fn narrow_vectors_in_local_and_private_memory() {
    let cl = Cl::new();
    for &opt in addressing() {
        let a = bytes(N * 16, 6);
        let got = run(
            &cl,
            SOURCE,
            opt,
            "local_uc16",
            &[&a],
            N * 16,
            0u8,
            &[&Local(64 * 16)],
        );
        let mut want = vec![0u8; N * 16];
        for i in 0..N {
            let src = (i / 64) * 64 + 63 - i % 64;
            for j in 0..16 {
                want[i * 16 + j] = a[src * 16 + j].wrapping_add(1);
            }
        }
        assert_same(&format!("{opt} local_uc16"), &got, &want);

        let s = shorts(N * 4, 7);
        let got = run(
            &cl,
            SOURCE,
            opt,
            "local_s4",
            &[&s],
            N * 4,
            0i16,
            &[&Local(64 * 8)],
        );
        let mut want = vec![0i16; N * 4];
        for i in 0..N {
            let src = (i / 64) * 64 + 63 - i % 64;
            for j in 0..4 {
                want[i * 4 + j] = s[src * 4 + j].wrapping_add(1);
            }
        }
        assert_same(&format!("{opt} local_s4"), &got, &want);

        let got = run(
            &cl,
            SOURCE,
            opt,
            "local_uc2",
            &[&a[..N * 2]],
            N * 2,
            0u8,
            &[&Local(64 * 2)],
        );
        let mut want = vec![0u8; N * 2];
        for i in 0..N {
            let src = (i / 64) * 64 + 63 - i % 64;
            for j in 0..2 {
                want[i * 2 + j] = a[src * 2 + j].wrapping_add(1);
            }
        }
        assert_same(&format!("{opt} local_uc2"), &got, &want);

        let k = 2i32;
        let got = run(&cl, SOURCE, opt, "private_uc16", &[&a], N * 16, 0u8, &[&k]);
        let mut want = vec![0u8; N * 16];
        for i in 0..N {
            let j = (k as usize + i) & 3;
            for e in 0..16 {
                want[i * 16 + e] = a[i * 16 + e].wrapping_add(j as u8);
            }
        }
        assert_same(&format!("{opt} private_uc16"), &got, &want);
    }
}

/// A struct holding a float16 (128 bytes with its padding) is copied as
/// one memcpy.
#[test]
fn struct_with_float16_copy() {
    let cl = Cl::new();
    for &opt in addressing() {
        let mut a = floats(N * 32, 9);
        for i in 0..N {
            a[i * 32 + 16] = f32::from_bits(i as u32 * 3 + 1);
        }
        let got = run(&cl, SOURCE, opt, "copy_struct", &[&a], N * 32, 0.0f32, &[]);
        for i in 0..N {
            let r = i * 32..i * 32 + 17;
            assert_same(&format!("{opt} copy_struct {i}"), &got[r.clone()], &a[r]);
        }
    }
}

#[test]
fn double16_operations_and_double8_copy() {
    let cl = Cl::new();
    if !device_string(cl.device(), CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64") {
        eprintln!("no cl_khr_fp64: skipped");
        return;
    }
    for &opt in addressing() {
        let a: Vec<f64> = floats((N + 1) * 16, 4).into_iter().map(f64::from).collect();
        let b: Vec<f64> = floats(N * 16, 8).into_iter().map(f64::from).collect();
        let got = run(
            &cl,
            SOURCE_FP64,
            opt,
            "ops_d16",
            &[&a, &b],
            (N + 1) * 16,
            -1.0f64,
            &[],
        );
        let mut want = vec![-1.0f64; (N + 1) * 16];
        for i in 0..N {
            for j in 0..16 {
                want[(i + 1) * 16 + j] = a[(i + 1) * 16 + j] * b[i * 16 + j] + a[i * 16 + j];
            }
        }
        assert_same(&format!("{opt} ops_d16"), &got, &want);

        let got = run(
            &cl,
            SOURCE_FP64,
            opt,
            "copy_d8",
            &[&a[..N * 8]],
            N * 8,
            0.0f64,
            &[],
        );
        assert_same(&format!("{opt} copy_d8"), &got, &a[..N * 8]);
    }
}
