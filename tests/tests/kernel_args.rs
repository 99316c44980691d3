//! Kernel arguments by value: every integer width signed and unsigned,
//! float and its 2/3/4-vectors, int4, scalars interleaved with buffers, and
//! argument values captured at enqueue time.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, Cl};

const SOURCE: &str = r#"
kernel void integers(char c, uchar uc, short s, ushort us, int i, uint ui, long l, ulong ul,
                     global long* out) {
    out[0] = c;
    out[1] = uc;
    out[2] = s;
    out[3] = us;
    out[4] = i;
    out[5] = ui;
    out[6] = l;
    out[7] = (long)ul;
}

kernel void floats(float f, float2 f2, float3 f3, float4 f4, global float* out) {
    out[0] = f;
    out[1] = f2.x; out[2] = f2.y;
    out[3] = f3.x; out[4] = f3.y; out[5] = f3.z;
    out[6] = f4.x; out[7] = f4.y; out[8] = f4.z; out[9] = f4.w;
}

kernel void int4_arg(int4 v, global int4* out) {
    out[0] = v;
    out[1] = v.wzyx + (int4)(1, 2, 3, 4);
}

kernel void interleaved(char a, global int* out, short b, float4 v, int c,
                        global float* fout, long d, uchar e) {
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out[3] = (int)(d >> 32);
    out[4] = (int)d;
    out[5] = e;
    vstore4(v, 0, fout);
}

kernel void scale(float alpha, global float* out) {
    out[get_global_id(0)] = alpha * (float)get_global_id(0);
}
"#;

#[test]
fn integer_scalars_keep_sign_and_width() {
    let cl = Cl::new();
    let out = cl.buffer::<i64>(8);
    let kernel = cl.kernel(SOURCE, "integers");
    let ul = 0xF000_0000_0000_0001u64;
    kernel
        .arg(0, &-5i8)
        .arg(1, &250u8)
        .arg(2, &-1234i16)
        .arg(3, &65000u16)
        .arg(4, &-123_456_789i32)
        .arg(5, &4_000_000_000u32)
        .arg(6, &-1_234_567_890_123i64)
        .arg(7, &ul)
        .arg(8, &out);
    cl.queue.run(&kernel, &[1], None);
    let want = [
        -5,
        250,
        -1234,
        65000,
        -123_456_789,
        4_000_000_000,
        -1_234_567_890_123,
        ul as i64,
    ];
    assert_same("out", &cl.queue.read(&out), &want);
}

#[test]
fn float_scalar_and_vectors() {
    let cl = Cl::new();
    let out = cl.buffer::<f32>(10);
    let kernel = cl.kernel(SOURCE, "floats");
    // float3 is passed as 16 bytes (cl_float3 = cl_float4); the 4th lane is
    // padding.
    kernel
        .arg(0, &1.5f32)
        .arg(1, &[-2.0f32, 3.25])
        .arg(2, &[4.0f32, -5.5, 6.75, 0.0])
        .arg(3, &[7.0f32, 8.5, -9.25, 1.0e30])
        .arg(4, &out);
    cl.queue.run(&kernel, &[1], None);
    let want = [1.5, -2.0, 3.25, 4.0, -5.5, 6.75, 7.0, 8.5, -9.25, 1.0e30];
    assert_same("out", &cl.queue.read(&out), &want);
}

#[test]
fn int4_vector() {
    let cl = Cl::new();
    let out = cl.buffer::<[i32; 4]>(2);
    let kernel = cl.kernel(SOURCE, "int4_arg");
    kernel.arg(0, &[10i32, -20, 30, i32::MIN]).arg(1, &out);
    cl.queue.run(&kernel, &[1], None);
    let want = [[10, -20, 30, i32::MIN], [i32::MIN + 1, 32, -17, 14]];
    assert_same("out", &cl.queue.read(&out), &want);
}

#[test]
fn scalars_interleaved_with_buffers() {
    let cl = Cl::new();
    let out = cl.buffer::<i32>(6);
    let fout = cl.buffer::<f32>(4);
    let kernel = cl.kernel(SOURCE, "interleaved");
    let d = 0x1234_5678_9ABC_DEF0i64;
    kernel
        .arg(0, &-7i8)
        .arg(1, &out)
        .arg(2, &-30000i16)
        .arg(3, &[0.5f32, -1.5, 2.5, -3.5])
        .arg(4, &77i32)
        .arg(5, &fout)
        .arg(6, &d)
        .arg(7, &200u8);
    cl.queue.run(&kernel, &[1], None);
    let want = [-7, -30000, 77, 0x1234_5678, 0x9ABC_DEF0u32 as i32, 200];
    assert_same("out", &cl.queue.read(&out), &want);
    assert_same("fout", &cl.queue.read(&fout), &[0.5, -1.5, 2.5, -3.5]);
}

#[test]
fn argument_values_are_captured_at_enqueue() {
    let cl = Cl::new();
    let n = 64;
    let (first, second) = (cl.buffer::<f32>(n), cl.buffer::<f32>(n));
    let kernel = cl.kernel(SOURCE, "scale");
    kernel.arg(0, &2.0f32).arg(1, &first);
    cl.queue
        .try_enqueue(&kernel, None, &[n], None)
        .expect("first enqueue");
    // Changing the arguments after clEnqueueNDRangeKernel returns must not
    // affect the command already enqueued.
    kernel.arg(0, &-3.0f32).arg(1, &second);
    cl.queue
        .try_enqueue(&kernel, None, &[n], None)
        .expect("second enqueue");
    cl.queue.finish();
    let want = |alpha: f32| (0..n).map(|i| alpha * i as f32).collect::<Vec<_>>();
    assert_same("first", &cl.queue.read(&first), &want(2.0));
    assert_same("second", &cl.queue.read(&second), &want(-3.0));
}

extern "C" fn count_destructor(_mem: cl_mem, data: *mut c_void) {
    // SAFETY: `data` is the AtomicU32 the test registered, alive until it
    // has seen the count it waits for.
    unsafe { &*(data as *const AtomicU32) }.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn kernel_argument_does_not_keep_a_released_buffer_alive() {
    let cl = Cl::new();
    let kernel = cl.kernel(SOURCE, "scale");
    let destroyed = AtomicU32::new(0);
    let mut status = CL_SUCCESS;
    // SAFETY: a plain buffer, no host pointer.
    let mem = unsafe {
        clCreateBuffer(
            cl.raw(),
            CL_MEM_READ_WRITE,
            64,
            ptr::null_mut(),
            &mut status,
        )
    };
    check(status, "clCreateBuffer");
    // SAFETY: `destroyed` outlives the buffer (checked below).
    check(
        unsafe {
            clSetMemObjectDestructorCallback(
                mem,
                Some(count_destructor),
                &destroyed as *const AtomicU32 as *mut c_void,
            )
        },
        "clSetMemObjectDestructorCallback",
    );
    // SAFETY: a cl_mem argument given by address.
    check(
        unsafe {
            clSetKernelArg(
                kernel.raw(),
                1,
                size_of::<cl_mem>(),
                (&mem as *const cl_mem).cast(),
            )
        },
        "clSetKernelArg",
    );
    assert_eq!(destroyed.load(Ordering::SeqCst), 0);
    // The buffer is not in use by any command: releasing its last reference
    // deletes it (and runs its destructor) although the kernel's argument
    // still names it.
    // SAFETY: the one reference this test owns.
    check(unsafe { clReleaseMemObject(mem) }, "clReleaseMemObject");
    assert_eq!(
        destroyed.load(Ordering::SeqCst),
        1,
        "destructor calls after release"
    );

    // The kernel is still usable with a new buffer.
    let out = cl.buffer::<f32>(8);
    kernel.arg(0, &0.5f32).arg(1, &out);
    cl.queue.run(&kernel, &[8], None);
    let want: Vec<f32> = (0..8).map(|i| 0.5 * i as f32).collect();
    assert_same("scale", &cl.queue.read(&out), &want);
}

/// CL_KERNEL_ATTRIBUTES names vec_type_hint's type as written, unsigned
/// integer types included (SPIR-V's VecTypeHint has no signedness).
#[test]
fn kernel_attributes_name_the_vec_type_hint_as_written() {
    let cl = Cl::new();
    for ty in [
        "uchar", "ushort2", "uint4", "ulong16", "char", "int3", "long2", "float8",
    ] {
        let source = format!(
            "kernel __attribute__((vec_type_hint({ty}))) void k(global int* p) {{ p[0] = 1; }}"
        );
        let kernel = cl.kernel(&source, "k");
        let attrs = ferrocl_tests::info::query_string(ferrocl_tests::info::kernel_info(
            kernel.raw(),
            CL_KERNEL_ATTRIBUTES,
        ))
        .expect("CL_KERNEL_ATTRIBUTES");
        assert_eq!(attrs, format!("vec_type_hint({ty})"), "vec_type_hint({ty})");
    }
}
