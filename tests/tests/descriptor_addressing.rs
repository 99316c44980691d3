//! Descriptor addressing (`ferrocl_compiler::abi`, DESIGN §4): every
//! program here is built with `-ferrocl-addressing=descriptor` (global
//! pointers are `slot << 32 | offset` into one storage-buffer binding per
//! argument), whatever `FERROCL_ADDRESSING` says, and its results are
//! checked against CPU references: pointer arithmetic and casts, type
//! punning, narrow and vector accesses, pointers chosen at run time,
//! sub-buffers, NULL arguments, POD arguments in the three POD modes
//! (`-pod-ubo`, `-cluster-pod-kernel-args`), `__constant` arguments,
//! program-scope variables, atomics, long argument lists, binaries, printf
//! (its buffer is a binding too), and bad build options.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::info::{program_build_info, query_string};
use ferrocl_tests::{assert_same, check, device_value, Buffer, Cl, ClError};
use opencl_sys::*;

const DESC: &str = "-ferrocl-addressing=descriptor";

/// The POD modes: per-argument storage buffers, uniform buffers, one
/// clustered buffer, clustered uniform buffer.
const POD_MODES: [&str; 4] = [
    DESC,
    "-ferrocl-addressing=descriptor -pod-ubo",
    "-cluster-pod-kernel-args",
    "-pod-ubo -cluster-pod-kernel-args",
];

fn null_mem() -> cl_mem {
    ptr::null_mut()
}

#[track_caller]
fn build(cl: &Cl, source: &str, options: &str) -> ferrocl_tests::Program {
    cl.try_build(source, options)
        .unwrap_or_else(|e| panic!("{options}: {e}"))
}

/// A kernel's global pointers are (slot << 32 | offset): the build option
/// really selects descriptor addressing (argument i is slot i + 1), and
/// physical addressing does not encode them so.
#[test]
fn pointer_values_encode_the_argument_slot() {
    let cl = Cl::new();
    let src = r#"
        kernel void k(global ulong *out, global int *b, int pad, global char *c) {
            out[0] = (ulong)out;
            out[1] = (ulong)(b + 3);
            out[2] = (ulong)(c + 5);
        }
    "#;
    let out = cl.buffer::<u64>(3);
    let b = cl.buffer::<i32>(8);
    let c = cl.buffer::<u8>(8);
    let p = build(&cl, src, DESC);
    let k = p.kernel("k");
    k.arg(0, &out).arg(1, &b).arg(2, &0i32).arg(3, &c);
    cl.queue.run(&k, &[1], None);
    assert_same(
        "descriptor pointers",
        &cl.queue.read(&out),
        &[1u64 << 32, 2 << 32 | 12, 4 << 32 | 5],
    );
    let p = build(&cl, src, "-ferrocl-addressing=physical");
    let k = p.kernel("k");
    k.arg(0, &out).arg(1, &b).arg(2, &0i32).arg(3, &c);
    cl.queue.run(&k, &[1], None);
    let got = cl.queue.read(&out);
    assert_ne!(
        got,
        [1u64 << 32, 2 << 32 | 12, 4 << 32 | 5],
        "physical pointers are device addresses"
    );
}

/// Pointer arithmetic, comparisons, casts through integers and type
/// punning between float, uint and uchar views of one buffer.
#[test]
fn pointer_arithmetic_and_type_punning() {
    let cl = Cl::new();
    let p = build(
        &cl,
        r#"
        kernel void k(global float *f, global uint *bits, global uchar *bytes,
                      global int *misc) {
            size_t i = get_global_id(0);
            global float *end = f + get_global_size(0);
            global float *q = end - (get_global_size(0) - i);
            bits[i] = *(global uint *)q;                       // punning
            uintptr_t a = (uintptr_t)q;
            global uchar *b = (global uchar *)(a + 3);         // int -> ptr
            bytes[i] = *b;                                     // top byte
            misc[i] = (int)(end - q) + (q < end ? 1000 : 0);
            if (i == 0) {
                global ushort *h = (global ushort *)f;
                *(h + 1) = (ushort)0x4000;                     // f[0] = 2.0
            }
        }
    "#,
        DESC,
    );
    let n = 64;
    let fs: Vec<f32> = (0..n).map(|i| i as f32 * 1.5 - 7.25).collect();
    let f = cl.buffer_from(&fs);
    let bits = cl.buffer::<u32>(n);
    let bytes = cl.buffer::<u8>(n);
    let misc = cl.buffer::<i32>(n);
    let k = p.kernel("k");
    k.arg(0, &f).arg(1, &bits).arg(2, &bytes).arg(3, &misc);
    cl.queue.run(&k, &[n], None);
    let want_bits: Vec<u32> = fs.iter().map(|x| x.to_bits()).collect();
    assert_same("bits", &cl.queue.read(&bits), &want_bits);
    let want_bytes: Vec<u8> = fs.iter().map(|x| (x.to_bits() >> 24) as u8).collect();
    assert_same("bytes", &cl.queue.read(&bytes), &want_bytes);
    let want_misc: Vec<i32> = (0..n).map(|i| (n - i) as i32 + 1000).collect();
    assert_same("misc", &cl.queue.read(&misc), &want_misc);
    let mut want_f = fs.clone();
    want_f[0] = f32::from_bits((fs[0].to_bits() & 0xFFFF) | 0x4000 << 16);
    assert_same("f", &cl.queue.read(&f), &want_f);
}

/// char, short, long and vector accesses, aligned and not (vload/vstore
/// at odd offsets), read-modify-write of neighbouring bytes by different
/// work-items.
#[test]
fn narrow_and_vector_accesses() {
    let cl = Cl::new();
    let p = build(
        &cl,
        r#"
        kernel void k(global char *c, global short *s, global long *l,
                      global float4 *v4, global float *v3, global uchar *raw) {
            int i = get_global_id(0);
            c[i] = (char)(c[i] * 3 - i);
            s[i] = (short)(s[i] + 1000 * i);
            l[i] = l[i] * 0x100000001L + i;
            v4[i] = v4[i].wzyx * (float4)(1.0f, 2.0f, 3.0f, 4.0f);
            float3 t = vload3(i, v3);
            vstore3(t.zxy + 1.0f, i, v3);
            uchar2 u = vload2(0, raw + 2 * i + 1);             // unaligned
            vstore2(u + (uchar2)(1, 2), 0, raw + 2 * i + 1);
        }
    "#,
        DESC,
    );
    let n = 32usize;
    let c0: Vec<i8> = (0..n).map(|i| (i as i8).wrapping_mul(7)).collect();
    let s0: Vec<i16> = (0..n).map(|i| i as i16 * -13).collect();
    let l0: Vec<i64> = (0..n).map(|i| i as i64 * 12345 - 99).collect();
    let v40: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.5).collect();
    let v30: Vec<f32> = (0..3 * n).map(|i| i as f32 - 10.0).collect();
    let raw0: Vec<u8> = (0..2 * n + 2).map(|i| (i * 11) as u8).collect();
    let c = cl.buffer_from(&c0);
    let s = cl.buffer_from(&s0);
    let l = cl.buffer_from(&l0);
    let v4 = cl.buffer_from(&v40);
    let v3 = cl.buffer_from(&v30);
    let raw = cl.buffer_from(&raw0);
    let k = p.kernel("k");
    k.arg(0, &c)
        .arg(1, &s)
        .arg(2, &l)
        .arg(3, &v4)
        .arg(4, &v3)
        .arg(5, &raw);
    cl.queue.run(&k, &[n], None);
    let want_c: Vec<i8> = (0..n)
        .map(|i| c0[i].wrapping_mul(3).wrapping_sub(i as i8))
        .collect();
    assert_same("char", &cl.queue.read(&c), &want_c);
    let want_s: Vec<i16> = (0..n)
        .map(|i| s0[i].wrapping_add(1000 * i as i16))
        .collect();
    assert_same("short", &cl.queue.read(&s), &want_s);
    let want_l: Vec<i64> = (0..n)
        .map(|i| l0[i].wrapping_mul(0x100000001) + i as i64)
        .collect();
    assert_same("long", &cl.queue.read(&l), &want_l);
    let mut want_v4 = vec![0f32; 4 * n];
    let mut want_v3 = vec![0f32; 3 * n];
    for i in 0..n {
        let x = &v40[4 * i..4 * i + 4];
        want_v4[4 * i..4 * i + 4].copy_from_slice(&[x[3], x[2] * 2.0, x[1] * 3.0, x[0] * 4.0]);
        let t = &v30[3 * i..3 * i + 3];
        want_v3[3 * i..3 * i + 3].copy_from_slice(&[t[2] + 1.0, t[0] + 1.0, t[1] + 1.0]);
    }
    assert_same("float4", &cl.queue.read(&v4), &want_v4);
    assert_same("vstore3", &cl.queue.read(&v3), &want_v3);
    let mut want_raw = raw0.clone();
    for i in 0..n {
        want_raw[2 * i + 1] = want_raw[2 * i + 1].wrapping_add(1);
        want_raw[2 * i + 2] = want_raw[2 * i + 2].wrapping_add(2);
    }
    assert_same("uchar2", &cl.queue.read(&raw), &want_raw);
}

/// Pointers the compiler cannot attribute to one argument: a select
/// between two buffer arguments, a loop phi, pointers through helper
/// functions, a pointer table in private memory, pointers stored in a
/// buffer and loaded back.
#[test]
fn pointers_chosen_at_run_time() {
    let cl = Cl::new();
    let p = build(
        &cl,
        r#"
        __attribute__((noinline))
        global int *pick(global int *x, global int *y, int which) {
            return which ? y : x;
        }
        __attribute__((noinline))
        void add_to(global int *p, int v) { *p += v; }

        kernel void k(global int *a, global int *b, global int *out,
                      global ulong *table) {
            int i = get_global_id(0);
            global int *p = (i & 1) ? a : b;                   // select
            out[i] = p[i];
            global int *q = a;
            for (int j = 0; j < i % 3; j++)                    // phi
                q = (q == a) ? b : a;
            out[64 + i] = q[i];
            add_to(pick(a, b, i & 2) + i, 100);                // helpers
            global int *ptrs[2] = { a, b };                    // private table
            out[128 + i] = ptrs[(i >> 2) & 1][i];
            if (i == 0) {                                      // via memory
                table[0] = (ulong)(a + 5);
                table[1] = (ulong)(b + 7);
            }
            barrier(CLK_GLOBAL_MEM_FENCE);
            global int *r = (global int *)table[i & 1];
            if (i < 2) out[192 + i] = r[0];
        }
    "#,
        DESC,
    );
    let n = 64;
    let a0: Vec<i32> = (0..n as i32).map(|i| i * 10).collect();
    let b0: Vec<i32> = (0..n as i32).map(|i| -i * 7 - 1).collect();
    let a = cl.buffer_from(&a0);
    let b = cl.buffer_from(&b0);
    let out = cl.buffer::<i32>(256);
    let table = cl.buffer::<u64>(2);
    let k = p.kernel("k");
    k.arg(0, &a).arg(1, &b).arg(2, &out).arg(3, &table);
    // One work-group, so the barrier orders the table's writes.
    cl.queue.run(&k, &[n], Some(&[n]));
    let got = cl.queue.read(&out);
    // Element i is read and added to only by work-item i: the select and
    // the phi read before the helper adds 100 (to a[i] when i & 2 == 0,
    // else to b[i]), the table after.
    let a_after = |i: usize| a0[i] + if i & 2 == 0 { 100 } else { 0 };
    let b_after = |i: usize| b0[i] + if i & 2 != 0 { 100 } else { 0 };
    for i in 0..n {
        let sel = if i & 1 == 1 { a0[i] } else { b0[i] };
        assert_eq!(got[i], sel, "select [{i}]");
        let phi = if (i % 3) % 2 == 1 { b0[i] } else { a0[i] };
        assert_eq!(got[64 + i], phi, "phi [{i}]");
        let tab = if (i >> 2) & 1 == 1 {
            b_after(i)
        } else {
            a_after(i)
        };
        assert_eq!(got[128 + i], tab, "table [{i}]");
    }
    // Work-items 0 and 1 load through pointers to a[5] and b[7], after the
    // barrier (the helper adds happened before it).
    assert_eq!(got[192], a_after(5), "loaded pointer to a");
    assert_eq!(got[193], b_after(7), "loaded pointer to b");
    let want_a: Vec<i32> = (0..n).map(a_after).collect();
    let want_b: Vec<i32> = (0..n).map(b_after).collect();
    assert_same("a", &cl.queue.read(&a), &want_a);
    assert_same("b", &cl.queue.read(&b), &want_b);
    let t = cl.queue.read(&table);
    assert_eq!(t, [1u64 << 32 | 20, 2 << 32 | 28]);
}

fn sub_buffer<T: ferrocl_tests::Pod>(
    parent: &Buffer<T>,
    origin: usize,
    size: usize,
) -> Result<Buffer<T>, ClError> {
    let region = cl_buffer_region { origin, size };
    let mut status = CL_SUCCESS;
    // SAFETY: valid buffer and region pointer.
    let raw = unsafe {
        clCreateSubBuffer(
            parent.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut status,
        )
    };
    ferrocl_tests::cl_result(status)?;
    Ok(Buffer::from_raw(raw, size / size_of::<T>()))
}

/// Sub-buffers are bound at their origin: index 0 of the argument is the
/// sub-buffer's first element, for two sub-buffers of one parent at once.
#[test]
fn sub_buffers_are_bound_at_their_origin() {
    let cl = Cl::new();
    let align = device_value::<u32>(cl.device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8;
    let p = build(
        &cl,
        r#"
        kernel void k(global int *x, global int *y, int n) {
            int i = get_global_id(0);
            x[i] = x[i] * 2 + y[n - 1 - i];
        }
    "#,
        DESC,
    );
    let len = 6 * align / 4;
    let data: Vec<i32> = (0..len as i32).collect();
    let parent = cl.buffer_from(&data);
    let n = align / 4;
    let x = sub_buffer(&parent, align, align).expect("aligned sub-buffer");
    let y = sub_buffer(&parent, 4 * align, align).expect("aligned sub-buffer");
    let k = p.kernel("k");
    k.arg(0, &x).arg(1, &y).arg(2, &(n as i32));
    cl.queue.run(&k, &[n], None);
    let mut want = data.clone();
    for i in 0..n {
        want[n + i] = data[n + i] * 2 + data[4 * n + n - 1 - i];
    }
    assert_same("parent", &cl.queue.read(&parent), &want);
    // A misaligned origin cannot be bound (nor is it allowed).
    assert_eq!(
        sub_buffer(&parent, 4, 64).err(),
        Some(ClError(CL_MISALIGNED_SUB_BUFFER_OFFSET))
    );
}

/// A NULL buffer argument compares equal to 0 (and to NULL) in the kernel;
/// the other arguments are unaffected.
#[test]
fn null_buffer_arguments() {
    let cl = Cl::new();
    let p = build(
        &cl,
        r#"
        kernel void k(global int *maybe, global int *out, global int *other) {
            int i = get_global_id(0);
            if (maybe == 0) out[i] = -1 - other[i];
            else out[i] = maybe[i] + other[i];
            if (i == 0) out[64] = (int)((ulong)maybe >> 32) + (maybe != NULL) * 100;
        }
    "#,
        DESC,
    );
    let n = 64;
    let other0: Vec<i32> = (0..n as i32).map(|i| i * 3).collect();
    let maybe0: Vec<i32> = (0..n as i32).map(|i| 1000 - i).collect();
    let other = cl.buffer_from(&other0);
    let maybe = cl.buffer_from(&maybe0);
    let out = cl.buffer::<i32>(n + 1);
    let k = p.kernel("k");
    k.arg(0, &null_mem()).arg(1, &out).arg(2, &other);
    cl.queue.run(&k, &[n], None);
    let mut want: Vec<i32> = other0.iter().map(|o| -1 - o).collect();
    want.push(0);
    assert_same("NULL", &cl.queue.read(&out), &want);
    k.arg(0, &maybe);
    cl.queue.run(&k, &[n], None);
    let mut want: Vec<i32> = (0..n).map(|i| maybe0[i] + other0[i]).collect();
    want.push(1 + 100);
    assert_same("buffer", &cl.queue.read(&out), &want);
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mixed {
    c: i8,
    s: i16,
    i: i32,
    l: i64,
    f: f32,
    v: [u8; 3],
}

// SAFETY: integers and floats only; padding bytes are never read as values.
unsafe impl ferrocl_tests::Pod for Mixed {}

/// POD arguments of every size and alignment, a struct among them, in each
/// POD mode: values arrive bit for bit.
#[test]
fn pod_arguments_in_every_pod_mode() {
    let src = r#"
        typedef struct { char c; short s; int i; long l; float f; uchar v[3]; } Mixed;
        kernel void k(global long *out, char c, uchar uc, short s, int i,
                      global float *fout, long l, float f, Mixed m, int3 v3,
                      float4 v4, uchar2 u2, ulong ul) {
            out[0] = c; out[1] = uc; out[2] = s; out[3] = i; out[4] = l;
            out[5] = m.c; out[6] = m.s; out[7] = m.i; out[8] = m.l;
            out[9] = m.v[0] | m.v[1] << 8 | m.v[2] << 16;
            out[10] = v3.x; out[11] = v3.y; out[12] = v3.z;
            out[13] = u2.x | u2.y << 8;
            out[14] = (long)ul;
            fout[0] = f; fout[1] = m.f;
            fout[2] = v4.x; fout[3] = v4.y; fout[4] = v4.z; fout[5] = v4.w;
        }
    "#;
    let m = Mixed {
        c: -5,
        s: -31000,
        i: 0x1234_5678,
        l: -0x0123_4567_89AB_CDEF,
        f: 3.5,
        v: [0xAB, 0xCD, 0xEF],
    };
    let want: Vec<i64> = vec![
        -7,
        250,
        -12345,
        -2_000_000_000,
        0x7FFF_FFFF_FFFF_FFF0,
        -5,
        -31000,
        0x1234_5678,
        -0x0123_4567_89AB_CDEF,
        0xEFCDAB,
        -1,
        2,
        -3,
        0x9A78,
        0xFEDC_BA98_7654_3210u64 as i64,
    ];
    let want_f = [1.25f32, 3.5, -0.5, 0.25, 1e10, -1e-10];
    let cl = Cl::new();
    for opts in POD_MODES {
        let p = build(&cl, src, opts);
        let out = cl.buffer::<i64>(15);
        let fout = cl.buffer::<f32>(6);
        let k = p.kernel("k");
        k.arg(0, &out)
            .arg(1, &-7i8)
            .arg(2, &250u8)
            .arg(3, &-12345i16)
            .arg(4, &-2_000_000_000i32)
            .arg(5, &fout)
            .arg(6, &0x7FFF_FFFF_FFFF_FFF0i64)
            .arg(7, &1.25f32)
            .arg(8, &m)
            .arg(9, &[-1i32, 2, -3, 0])
            .arg(10, &[-0.5f32, 0.25, 1e10, -1e-10])
            .arg(11, &[0x78u8, 0x9A])
            .arg(12, &0xFEDC_BA98_7654_3210u64);
        cl.queue.run(&k, &[1], None);
        assert_same(opts, &cl.queue.read(&out), &want);
        assert_same(opts, &cl.queue.read(&fout), &want_f);
        // New values at the next launch (the POD buffers are per launch).
        k.arg(4, &77i32).arg(7, &-2.0f32);
        cl.queue.run(&k, &[1], None);
        assert_eq!(cl.queue.read(&out)[3], 77, "{opts}");
        assert_eq!(cl.queue.read(&fout)[0], -2.0, "{opts}");
    }
}

/// Launches enqueued back to back without waiting each keep their own POD
/// values (the POD bytes of a launch are not reused before it completes),
/// over more launches than one chunk of the upload arena holds.
#[test]
fn pod_values_are_per_launch() {
    let cl = Cl::new();
    const N: usize = 3000;
    for opts in POD_MODES {
        let p = build(
            &cl,
            "kernel void k(global int *out, int at, int v) { out[at] = v * 2 + 1; }",
            opts,
        );
        let out = cl.buffer::<i32>(N);
        let k = p.kernel("k");
        k.arg(0, &out);
        for at in 0..N as i32 {
            k.arg(1, &at).arg(2, &(at * 7 - 50));
            cl.queue
                .try_enqueue(&k, None, &[1], None)
                .expect("clEnqueueNDRangeKernel");
        }
        let want: Vec<i32> = (0..N as i32).map(|at| (at * 7 - 50) * 2 + 1).collect();
        assert_same(opts, &cl.queue.read(&out), &want);
    }
}

/// `__constant` pointer arguments are storage buffers like `__global` ones.
#[test]
fn constant_arguments() {
    let cl = Cl::new();
    let p = build(
        &cl,
        r#"
        kernel void k(constant float *coef, global const float *x,
                      global float *y, constant int *idx) {
            int i = get_global_id(0);
            y[i] = coef[0] * x[idx[i]] + coef[1];
        }
    "#,
        DESC,
    );
    let n = 128;
    let x0: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let idx0: Vec<i32> = (0..n as i32).map(|i| (i * 37) % n as i32).collect();
    let coef = cl.buffer_with(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &[3.0f32, -1.0]);
    let x = cl.buffer_from(&x0);
    let idx = cl.buffer_with(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &idx0);
    let y = cl.buffer::<f32>(n);
    let k = p.kernel("k");
    k.arg(0, &coef).arg(1, &x).arg(2, &y).arg(3, &idx);
    cl.queue.run(&k, &[n], None);
    let want: Vec<f32> = (0..n).map(|i| 3.0 * x0[idx0[i] as usize] - 1.0).collect();
    assert_same("y", &cl.queue.read(&y), &want);
}

/// Program-scope variables with pointer initialisers (relocated to the
/// global-variable slot), kept between launches and kernels, and a large
/// `__constant` table.
#[test]
fn program_scope_variables() {
    let cl = Cl::new();
    let p = build(
        &cl,
        r#"
        int table[4] = {10, 20, 30, 40};
        global int *cursor = &table[2];
        struct S { int k; global int *p; } s = {5, &table[1]};
        int counter;
        constant int squares[64] = {
             0,  1,  4,  9, 16, 25, 36, 49, 64, 81,100,121,144,169,196,225,
           256,289,324,361,400,441,484,529,576,625,676,729,784,841,900,961,
          1024,1089,1156,1225,1296,1369,1444,1521,1600,1681,1764,1849,1936,2025,
          2116,2209,2304,2401,2500,2601,2704,2809,2916,3025,3136,3249,3364,3481,
          3600,3721,3844,3969 };

        kernel void step(global int *out, int i) {
            out[0] = *cursor;
            out[1] = *s.p + s.k;
            out[2] = counter;
            out[3] = squares[i];
            out[4] = (int)((ulong)cursor >> 32);
            cursor = &table[i & 3];
            *s.p += 1;
            atomic_add(&counter, i);
        }
    "#,
        "-cl-std=CL2.0 -ferrocl-addressing=descriptor",
    );
    let out = cl.buffer::<i32>(5);
    let k = p.kernel("step");
    k.arg(0, &out).arg(1, &7i32);
    cl.queue.run(&k, &[1], None);
    assert_same("first", &cl.queue.read(&out), &[30, 25, 0, 49, 0xFFFF]);
    k.arg(1, &12i32);
    cl.queue.run(&k, &[1], None);
    // cursor = &table[3]; table[1] = 21; counter = 7.
    assert_same("second", &cl.queue.read(&out), &[40, 26, 7, 144, 0xFFFF]);
    // Another kernel object of the program sees the same variables.
    let k2 = p.kernel("step");
    k2.arg(0, &out).arg(1, &63i32);
    cl.queue.run(&k2, &[1], None);
    assert_same("third", &cl.queue.read(&out), &[10, 27, 19, 3969, 0xFFFF]);
}

/// 32- and 64-bit atomics on buffer arguments, through a pointer chosen at
/// run time too.
#[test]
fn atomics() {
    let cl = Cl::new();
    let p = build(
        &cl,
        r#"
        kernel void k(global int *sum, global uint *mx, global int *hist,
                      global int *other) {
            int i = get_global_id(0);
            atomic_add(sum, i);
            atomic_max(mx, (uint)(i * 2654435761u));
            atomic_inc(&hist[i % 8]);
            global int *t = (i & 1) ? sum + 1 : other;
            atomic_sub(t, 1);
            int old = atomic_cmpxchg(&hist[8], i, i + 1);
            (void)old;
        }
    "#,
        DESC,
    );
    let n = 1024usize;
    let sum = cl.buffer_from(&[0i32, 0]);
    let mx = cl.buffer_from(&[0u32]);
    let hist = cl.buffer_from(&[0i32; 9]);
    let other = cl.buffer_from(&[0i32]);
    let k = p.kernel("k");
    k.arg(0, &sum).arg(1, &mx).arg(2, &hist).arg(3, &other);
    cl.queue.run(&k, &[n], None);
    let total: i32 = (0..n as i32).sum();
    assert_same("sum", &cl.queue.read(&sum), &[total, -(n as i32) / 2]);
    let want_max = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761))
        .max()
        .unwrap();
    assert_same("max", &cl.queue.read(&mx), &[want_max]);
    let h = cl.queue.read(&hist);
    assert_same("hist", &h[..8], &[(n / 8) as i32; 8]);
    // The cmpxchg chain advances by one per successful exchange: at least
    // work-item 0's, at most all of them.
    assert!((1..=n as i32).contains(&h[8]), "cmpxchg chain: {}", h[8]);
    assert_same("other", &cl.queue.read(&other), &[-(n as i32) / 2]);
}

/// A long argument list (more bytes than push constants hold): 24 `ulong`
/// and 2 buffers; with one storage buffer per POD argument the kernel may
/// exceed the device's bindings per stage, which the build must report in
/// its log; clustered POD arguments always fit.
#[test]
fn long_argument_lists() {
    let params: Vec<String> = (0..24).map(|i| format!("ulong a{i}")).collect();
    let sum: Vec<String> = (0..24).map(|i| format!("a{i} * {}", i + 1)).collect();
    let src = format!(
        "kernel void k(global ulong *out, {}, global const ulong *in) {{\n\
         out[get_global_id(0)] = in[get_global_id(0)] + {};\n}}",
        params.join(", "),
        sum.join(" + ")
    );
    let vals: Vec<u64> = (0..24u64).map(|i| 0x1_0000_0001 * (i + 3)).collect();
    let weighted: u64 = vals.iter().enumerate().fold(0u64, |s, (i, v)| {
        s.wrapping_add(v.wrapping_mul(i as u64 + 1))
    });
    let cl = Cl::new();
    let n = 16;
    let input: Vec<u64> = (0..n as u64).map(|i| i * 1000).collect();
    for opts in POD_MODES {
        let p = match cl.try_build(&src, opts) {
            Ok(p) => p,
            Err(e) => {
                // Only one storage / uniform buffer per POD argument may
                // run out of bindings; the log says how many are needed.
                assert!(!opts.contains("-cluster-pod-kernel-args"), "{opts}: {e}");
                assert_eq!(e.status, ClError(CL_BUILD_PROGRAM_FAILURE), "{opts}");
                assert!(
                    e.log.contains("kernel 'k' needs")
                        && e.log.contains("-cluster-pod-kernel-args"),
                    "{opts}: {}",
                    e.log
                );
                continue;
            }
        };
        let out = cl.buffer::<u64>(n);
        let inb = cl.buffer_from(&input);
        let k = p.kernel("k");
        k.arg(0, &out);
        for (i, v) in vals.iter().enumerate() {
            k.arg(i as u32 + 1, v);
        }
        k.arg(25, &inb);
        cl.queue.run(&k, &[n], None);
        let want: Vec<u64> = input.iter().map(|x| x.wrapping_add(weighted)).collect();
        assert_same(opts, &cl.queue.read(&out), &want);
    }
}

/// 40 POD arguments do not fit in lavapipe's 32 storage buffers per stage
/// (nor in 15 uniform buffers): the build fails with a log that says so,
/// where the device has fewer bindings than needed.
#[test]
fn too_many_bindings_fail_the_build_with_a_log() {
    let params: Vec<String> = (0..40).map(|i| format!("int a{i}")).collect();
    let sum: Vec<String> = (0..40).map(|i| format!("a{i}")).collect();
    let src = format!(
        "kernel void k(global int *out, {}) {{ out[0] = {}; }}",
        params.join(", "),
        sum.join(" + ")
    );
    let cl = Cl::new();
    // A device with enough bindings per stage runs the kernel instead.
    for opts in [DESC, "-pod-ubo"] {
        match cl.try_build(&src, opts) {
            Err(e) => {
                assert_eq!(e.status, ClError(CL_BUILD_PROGRAM_FAILURE), "{opts}");
                // 42 storage buffers where the loop-status word is one
                // more (lavapipe, FERROCL_LOOP_LIMITER).
                assert!(
                    e.log.contains("kernel 'k' needs 41 storage buffers")
                        || e.log.contains("kernel 'k' needs 42 storage buffers")
                        || e.log.contains("kernel 'k' needs 40 uniform buffers"),
                    "{opts}: {}",
                    e.log
                );
            }
            Ok(p) => {
                let out = cl.buffer::<i32>(1);
                let k = p.kernel("k");
                k.arg(0, &out);
                for i in 0..40 {
                    k.arg(i + 1, &(i as i32 * 3));
                }
                cl.queue.run(&k, &[1], None);
                assert_eq!(cl.queue.read(&out), [(0..40).map(|i| i * 3).sum::<i32>()]);
            }
        }
    }
}

/// Bad address-format options are invalid build options.
#[test]
fn bad_address_format_options_fail_the_build() {
    let cl = Cl::new();
    for bad in [
        "-ferrocl-addressing=virtual",
        "-ferrocl-addressing=physical -pod-ubo",
        "-ferrocl-addressing=physical -cluster-pod-kernel-args",
    ] {
        let e = cl
            .try_build("kernel void k(global int *x) { x[0] = 1; }", bad)
            .err()
            .unwrap_or_else(|| panic!("{bad} must be refused"));
        assert_eq!(e.status, ClError(CL_INVALID_BUILD_OPTIONS), "{bad}");
    }
}

/// A descriptor-addressed executable survives clGetProgramInfo(BINARIES)
/// and clCreateProgramWithBinary (each kernel records its format).
#[test]
fn binaries_keep_the_address_format() {
    let cl = Cl::new();
    let src = r#"
        int bias = 5;
        kernel void k(global int *x, int m) {
            x[get_global_id(0)] = x[get_global_id(0)] * m + bias;
            if (get_global_id(0) == 0) x[16] = (int)((ulong)x >> 32);
        }
    "#;
    let p = build(&cl, src, "-cl-std=CL2.0 -cluster-pod-kernel-args");
    let mut size = 0usize;
    // SAFETY: one device: one size.
    check(
        unsafe {
            clGetProgramInfo(
                p.raw(),
                CL_PROGRAM_BINARY_SIZES,
                size_of::<usize>(),
                (&mut size as *mut usize).cast(),
                ptr::null_mut(),
            )
        },
        "clGetProgramInfo(BINARY_SIZES)",
    );
    let mut binary = vec![0u8; size];
    let mut bp = binary.as_mut_ptr();
    // SAFETY: one pointer to `size` bytes.
    check(
        unsafe {
            clGetProgramInfo(
                p.raw(),
                CL_PROGRAM_BINARIES,
                size_of::<*mut u8>(),
                (&mut bp as *mut *mut u8).cast(),
                ptr::null_mut(),
            )
        },
        "clGetProgramInfo(BINARIES)",
    );
    let device = cl.device();
    let (mut status, mut bin_status) = (CL_SUCCESS, CL_SUCCESS);
    let bptr = binary.as_ptr();
    // SAFETY: one device, one binary of `size` bytes.
    let raw = unsafe {
        clCreateProgramWithBinary(
            cl.context.raw(),
            1,
            &device,
            &size,
            &bptr,
            &mut bin_status,
            &mut status,
        )
    };
    check(status, "clCreateProgramWithBinary");
    check(bin_status, "binary status");
    // SAFETY: valid program; no options, no callback.
    let built = unsafe { clBuildProgram(raw, 1, &device, ptr::null(), None, ptr::null_mut()) };
    let log = query_string(program_build_info(raw, device, CL_PROGRAM_BUILD_LOG));
    check(built, &format!("clBuildProgram(binary): {log:?}"));
    let name = c"k";
    // SAFETY: built program, NUL-terminated name.
    let k = unsafe { clCreateKernel(raw, name.as_ptr(), &mut status) };
    check(status, "clCreateKernel");
    let data: Vec<i32> = (0..17).collect();
    let x = cl.buffer_from(&data);
    let xm = x.raw();
    let m = 3i32;
    // SAFETY: valid kernel; argument values of the right sizes.
    unsafe {
        check(
            clSetKernelArg(k, 0, size_of::<cl_mem>(), (&xm as *const cl_mem).cast()),
            "arg 0",
        );
        check(
            clSetKernelArg(k, 1, size_of::<i32>(), (&m as *const i32).cast::<c_void>()),
            "arg 1",
        );
        let global = 16usize;
        check(
            clEnqueueNDRangeKernel(
                cl.queue.raw(),
                k,
                1,
                ptr::null(),
                &global,
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueNDRangeKernel",
        );
    }
    let mut want: Vec<i32> = (0..16).map(|i| i * 3 + 5).collect();
    want.push(1);
    assert_same("from binary", &cl.queue.read(&x), &want);
    // SAFETY: objects created above, released once.
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(raw);
    }
}

/// clCompileProgram accepts the address-format option; clLinkProgram's
/// options choose the format of the linked executable (the lowering
/// happens at link time); a bad value is CL_INVALID_LINKER_OPTIONS.
#[test]
fn link_options_choose_the_format() {
    let cl = Cl::new();
    let device = cl.device();
    let src = "kernel void k(global ulong *out, global int *x) { out[0] = (ulong)(x + 1); }";
    let mut status = CL_SUCCESS;
    let text = src.as_ptr().cast();
    let len = src.len();
    // SAFETY: one string with its length.
    let prog = unsafe { clCreateProgramWithSource(cl.context.raw(), 1, &text, &len, &mut status) };
    check(status, "clCreateProgramWithSource");
    let copts = c"-ferrocl-addressing=descriptor";
    // SAFETY: valid program and device; no headers, no callback.
    check(
        unsafe {
            clCompileProgram(
                prog,
                1,
                &device,
                copts.as_ptr(),
                0,
                ptr::null(),
                ptr::null(),
                None,
                ptr::null_mut(),
            )
        },
        "clCompileProgram",
    );
    let link = |opts: &std::ffi::CStr| {
        let mut status = CL_SUCCESS;
        // SAFETY: one compiled input program; no callback.
        let linked = unsafe {
            clLinkProgram(
                cl.context.raw(),
                1,
                &device,
                opts.as_ptr(),
                1,
                &prog,
                None,
                ptr::null_mut(),
                &mut status,
            )
        };
        (linked, status)
    };
    let (bad, status) = link(c"-ferrocl-addressing=flat");
    assert_eq!(ClError(status), ClError(CL_INVALID_LINKER_OPTIONS));
    assert!(bad.is_null());
    let out = cl.buffer::<u64>(1);
    let x = cl.buffer::<i32>(4);
    for (opts, want_slot) in [
        (c"-ferrocl-addressing=descriptor", true),
        (c"-ferrocl-addressing=physical", false),
    ] {
        let (linked, mut status) = link(opts);
        check(status, "clLinkProgram");
        let name = c"k";
        // SAFETY: linked executable, NUL-terminated name.
        let k = unsafe { clCreateKernel(linked, name.as_ptr(), &mut status) };
        check(status, "clCreateKernel");
        let (om, xm) = (out.raw(), x.raw());
        // SAFETY: valid kernel, cl_mem arguments; one work-item.
        unsafe {
            check(
                clSetKernelArg(k, 0, size_of::<cl_mem>(), (&om as *const cl_mem).cast()),
                "arg 0",
            );
            check(
                clSetKernelArg(k, 1, size_of::<cl_mem>(), (&xm as *const cl_mem).cast()),
                "arg 1",
            );
            let global = 1usize;
            check(
                clEnqueueNDRangeKernel(
                    cl.queue.raw(),
                    k,
                    1,
                    ptr::null(),
                    &global,
                    ptr::null(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
                "clEnqueueNDRangeKernel",
            );
        }
        let got = cl.queue.read(&out)[0];
        assert_eq!(got == (2u64 << 32 | 4), want_slot, "{opts:?}: {got:#x}");
        // SAFETY: created above, released once.
        unsafe {
            clReleaseKernel(k);
            clReleaseProgram(linked);
        }
    }
    // SAFETY: created above, released once.
    unsafe { clReleaseProgram(prog) };
}

/// A buffer argument larger than one storage-buffer binding reaches
/// (maxStorageBufferRange: 128 MiB on lavapipe) cannot be bound: the launch
/// fails with CL_OUT_OF_RESOURCES rather than run with a clipped range;
/// where the device binds it, the kernel reaches its last element.
#[test]
fn buffers_beyond_the_binding_range() {
    let cl = Cl::new();
    let p = build(
        &cl,
        "kernel void k(global int *x, uint last) { x[last] = 7; x[0] = 5; }",
        DESC,
    );
    let n = (160usize << 20) / 4;
    let x = cl.buffer::<i32>(n);
    let k = p.kernel("k");
    k.arg(0, &x).arg(1, &((n - 1) as u32));
    match cl.queue.try_enqueue(&k, None, &[1], None) {
        Ok(()) => {
            assert_eq!(cl.queue.read_range(&x, n - 1, 1), [7]);
            assert_eq!(cl.queue.read_range(&x, 0, 1), [5]);
        }
        Err(e) => assert_eq!(e, ClError(CL_OUT_OF_RESOURCES)),
    }
}

/// The child process of `printf_through_a_binding` runs its kernels when
/// this variable is set; kernel printf output goes to the process's stdout,
/// which the parent reads (the harness of the parent, running tests on
/// other threads, keeps its own stdout).
const PRINTF_CHILD: &str = "FERROCL_DESCRIPTOR_PRINTF_CHILD";

const PRINTF_SOURCE: &str = r#"
kernel void show(global const float4 *v, global int *ret, int mode) {
    int i = get_global_id(0);
    ret[i] = printf("dp %d %d: %v4hlf|%s|%v2d|%ld|%c\n", mode, i, v[i], "word",
                    (int2)(i, -i), (long)i * 3000000000L, 'A' + i);
}
kernel void hello(void) { printf("dp hello %u\n", (uint)get_global_id(0)); }
"#;

/// printf with descriptor addressing (the launch's buffer bound after the
/// kernel's other bindings), in every POD mode: several work-items,
/// vectors, `%s`, and a kernel whose only binding is printf's.
#[test]
fn printf_through_a_binding() {
    const N: usize = 5;
    if std::env::var_os(PRINTF_CHILD).is_some() {
        let cl = Cl::new();
        let v: Vec<f32> = (0..4 * N).map(|k| k as f32 * 0.5 - 2.0).collect();
        let dv = cl.buffer_from(&v);
        for (mode, options) in POD_MODES.iter().enumerate() {
            let p = build(&cl, PRINTF_SOURCE, options);
            let ret = cl.buffer_from(&[7i32; N]);
            let k = p.kernel("show");
            k.arg(0, &dv).arg(1, &ret).arg(2, &(mode as i32));
            cl.queue.run(&k, &[N], None);
            assert_same(options, &cl.queue.read(&ret), &[0; N]);
            let h = p.kernel("hello");
            cl.queue.run(&h, &[3], None);
            cl.queue.finish();
        }
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "printf_through_a_binding",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PRINTF_CHILD, "1")
        .output()
        .expect("the test binary runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The child's harness writes "test NAME ... " before the first line.
    let mut lines: Vec<&str> = text
        .lines()
        .filter_map(|l| l.find("dp ").map(|k| &l[k..]))
        .collect();
    lines.sort();
    let v: Vec<f32> = (0..4 * N).map(|k| k as f32 * 0.5 - 2.0).collect();
    let mut want: Vec<String> = Vec::new();
    for mode in 0..POD_MODES.len() {
        for i in 0..N {
            let c = &v[4 * i..4 * i + 4];
            want.push(format!(
                "dp {mode} {i}: {:.6},{:.6},{:.6},{:.6}|word|{},{}|{}|{}",
                c[0],
                c[1],
                c[2],
                c[3],
                i,
                -(i as i32),
                i as i64 * 3_000_000_000,
                (b'A' + i as u8) as char
            ));
        }
        for i in 0..3 {
            want.push(format!("dp hello {i}"));
        }
    }
    want.sort();
    assert_eq!(lines, want.iter().map(String::as_str).collect::<Vec<_>>());
}
