//! Contexts with several devices: every memory object has storage on each
//! device that uses it, and its contents follow the commands from device
//! to device (runtime/src/core/residency.rs).
//!
//! CI has one Vulkan device (lavapipe), so this binary runs ferrocl with
//! `FERROCL_DEVICE_REPLICAS=2`: each Vulkan physical device is exposed
//! twice, as two CL devices with their own VkDevice, queues and memory.
//! The ICD reads the variable once, when the platform is first used, so it
//! is set before the first OpenCL call of this process ([`devices`]) and
//! these tests live in their own test binary.

use std::ptr;

use ferrocl_tests::events::{raw_list, Event};
use ferrocl_tests::images::{desc, format};
use ferrocl_tests::info::{
    device_info, devices as platform_devices, program_build_info, query, query_value,
    two_replicated_devices,
};
use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, expect_error, platform, Buffer, Context, Queue};

/// The first two devices of the platform under test, with
/// `FERROCL_DEVICE_REPLICAS=2` in effect.
fn devices() -> Vec<cl_device_id> {
    // Small stream chunks: transfers above 16 KiB are streamed in parts,
    // whose first part makes the buffer current.
    two_replicated_devices(&[("FERROCL_STREAM_CHUNK", "4096")])
}

/// A context on two devices and an in-order queue on each.
struct Two {
    context: Context,
    q0: Queue,
    q1: Queue,
    devices: Vec<cl_device_id>,
}

fn two() -> Two {
    let devices = devices();
    let context = Context::with_devices(&devices);
    let q0 = context.queue_on(devices[0]);
    let q1 = context.queue_on(devices[1]);
    Two {
        context,
        q0,
        q1,
        devices,
    }
}

fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i ^ seed).wrapping_mul(0x9E37_79B9))
        .collect()
}

/// A non-blocking kernel launch over `n` work-items; its event.
fn launch(q: &Queue, k: &ferrocl_tests::Kernel, n: usize, waits: &[&Event]) -> Event {
    let list = raw_list(waits);
    let mut ev = ptr::null_mut();
    // SAFETY: valid queue and kernel, 1-D global size, wait list of live events.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            q.raw(),
            k.raw(),
            1,
            ptr::null(),
            &n,
            ptr::null(),
            list.len() as cl_uint,
            if list.is_empty() {
                ptr::null()
            } else {
                list.as_ptr()
            },
            &mut ev,
        )
    };
    check(s, "clEnqueueNDRangeKernel");
    Event(ev)
}

#[test]
fn replicas_are_distinct_devices_and_only_the_first_is_default() {
    let devs = devices();
    assert_ne!(devs[0], devs[1], "replicas must be distinct cl_device_ids");
    let mut default = ptr::null_mut();
    let mut n: cl_uint = 0;
    // SAFETY: one slot, a live count.
    let s = unsafe { clGetDeviceIDs(platform(), CL_DEVICE_TYPE_DEFAULT, 1, &mut default, &mut n) };
    check(s, "clGetDeviceIDs(DEFAULT)");
    assert_eq!(n, 1, "exactly one default device");
    assert_eq!(default, devs[0], "the default device is the first");
    for d in &devs {
        let ty: cl_device_type = query_value(device_info(*d, CL_DEVICE_TYPE)).unwrap();
        assert_eq!(ty & CL_DEVICE_TYPE_DEFAULT, 0, "CL_DEVICE_TYPE is one type");
        assert!(ty == CL_DEVICE_TYPE_CPU || ty == CL_DEVICE_TYPE_GPU);
    }
}

#[test]
fn write_on_one_device_read_on_the_other() {
    let t = two();
    let data = pattern(10_000, 1);
    let b: Buffer<u32> = t.context.buffer(data.len());
    t.q0.write(&b, 0, &data);
    t.q0.finish();
    assert_same("read on device 1", &t.q1.read(&b), &data);
    // And back: a partial write on device 1, read on device 0.
    let patch = pattern(100, 2);
    t.q1.write(&b, 5000, &patch);
    t.q1.finish();
    let mut want = data.clone();
    want[5000..5100].copy_from_slice(&patch);
    assert_same("read on device 0", &t.q0.read(&b), &want);
    assert_same("read again on device 1", &t.q1.read(&b), &want);
}

const KERNELS: &str = "
kernel void produce(global uint* a) {
    uint i = get_global_id(0);
    a[i] = i * 3u + 1u;
}
kernel void consume(global uint* a, global uint* b) {
    uint i = get_global_id(0);
    uint v = a[i];
    b[i] = v * 2u + 7u;
    a[i] = v + 5u;
}
kernel void sum(global const uint* x, constant uint* y, global uint* out) {
    uint i = get_global_id(0);
    out[i] = x[i] + y[i];
}
";

#[test]
fn kernels_on_both_devices_pass_data_along() {
    let t = two();
    let program = t.context.build_for_all(KERNELS);
    let produce = program.kernel("produce");
    let consume = program.kernel("consume");
    let n = 4096;
    let a: Buffer<u32> = t.context.buffer(n);
    let b: Buffer<u32> = t.context.buffer(n);
    produce.arg(0, &a);
    t.q0.run(&produce, &[n], None);
    consume.arg(0, &a).arg(1, &b);
    t.q1.run(&consume, &[n], None);
    let a_ref: Vec<u32> = (0..n as u32).map(|i| i * 3 + 6).collect();
    let b_ref: Vec<u32> = (0..n as u32).map(|i| (i * 3 + 1) * 2 + 7).collect();
    assert_same("a read on device 0", &t.q0.read(&a), &a_ref);
    assert_same("b read on device 0", &t.q0.read(&b), &b_ref);
    // Read-only arguments (const, __constant) leave the inputs current
    // where they were: the sum on device 0 of data last written on device 1.
    let sum = program.kernel("sum");
    let out: Buffer<u32> = t.context.buffer(n);
    sum.arg(0, &a).arg(1, &b).arg(2, &out);
    t.q0.run(&sum, &[n], None);
    let want: Vec<u32> = a_ref.iter().zip(&b_ref).map(|(x, y)| x + y).collect();
    assert_same("sum read on device 1", &t.q1.read(&out), &want);
    assert_same("a still readable on device 1", &t.q1.read(&a), &a_ref);
}

#[test]
fn build_for_both_devices_reports_per_device_build_info() {
    let t = two();
    let program = t.context.build_for_all(KERNELS);
    let n: cl_uint = {
        let mut v: cl_uint = 0;
        // SAFETY: a cl_uint-sized out value.
        let s = unsafe {
            clGetProgramInfo(
                program.raw(),
                CL_PROGRAM_NUM_DEVICES,
                std::mem::size_of::<cl_uint>(),
                (&mut v as *mut cl_uint).cast(),
                ptr::null_mut(),
            )
        };
        check(s, "clGetProgramInfo(NUM_DEVICES)");
        v
    };
    assert_eq!(n, 2);
    for d in &t.devices {
        let status: cl_build_status = query_value(program_build_info(
            program.raw(),
            *d,
            CL_PROGRAM_BUILD_STATUS,
        ))
        .unwrap();
        assert_eq!(status, CL_BUILD_SUCCESS, "build status on {d:?}");
    }
    // A program built for device 1 only has no executable for device 0.
    let text = KERNELS.as_ptr().cast();
    let len = KERNELS.len();
    let mut s = CL_SUCCESS;
    // SAFETY: one string with its length.
    let raw = unsafe { clCreateProgramWithSource(t.context.raw(), 1, &text, &len, &mut s) };
    check(s, "clCreateProgramWithSource");
    // SAFETY: valid program, device list of one, synchronous build.
    let s = unsafe { clBuildProgram(raw, 1, &t.devices[1], ptr::null(), None, ptr::null_mut()) };
    check(s, "clBuildProgram(device 1)");
    let status: cl_build_status = query_value(program_build_info(
        raw,
        t.devices[0],
        CL_PROGRAM_BUILD_STATUS,
    ))
    .unwrap();
    assert_eq!(status, CL_BUILD_NONE, "device 0 was not built for");
    let mut s = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = unsafe { clCreateKernel(raw, c"produce".as_ptr(), &mut s) };
    check(s, "clCreateKernel");
    let a: Buffer<u32> = t.context.buffer(16);
    let m = a.raw();
    // SAFETY: a cl_mem argument.
    let s = unsafe {
        clSetKernelArg(
            k,
            0,
            std::mem::size_of::<cl_mem>(),
            (&m as *const cl_mem).cast(),
        )
    };
    check(s, "clSetKernelArg");
    let g = 16usize;
    // SAFETY: valid queue/kernel; 1-D size.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            t.q0.raw(),
            k,
            1,
            ptr::null(),
            &g,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(
        s,
        CL_INVALID_PROGRAM_EXECUTABLE,
        "kernel of device 1 on device 0's queue",
    );
    // SAFETY: valid queue/kernel; 1-D size.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            t.q1.raw(),
            k,
            1,
            ptr::null(),
            &g,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(s, "kernel on device 1");
    // Another queue: OpenCL orders it only through events or a finish.
    t.q1.finish();
    let want: Vec<u32> = (0..16).map(|i| i * 3 + 1).collect();
    assert_same(
        "written on device 1, read on device 0",
        &t.q0.read(&a),
        &want,
    );
    // SAFETY: we own one reference to each.
    unsafe {
        check(clReleaseKernel(k), "clReleaseKernel");
        check(clReleaseProgram(raw), "clReleaseProgram");
    }
}

#[test]
fn sub_buffers_share_their_parents_contents_across_devices() {
    let t = two();
    let program = t.context.build_for_all(KERNELS);
    let produce = program.kernel("produce");
    let align_bits: cl_uint =
        query_value(device_info(t.devices[0], CL_DEVICE_MEM_BASE_ADDR_ALIGN)).unwrap();
    let align = (align_bits / 8) as usize / 4; // in u32s
    let n = align * 8;
    let data = pattern(n, 3);
    let parent = t.context.buffer_from(&data);
    let sub = |origin: usize, len: usize| -> Buffer<u32> {
        let region = cl_buffer_region {
            origin: origin * 4,
            size: len * 4,
        };
        let mut s = CL_SUCCESS;
        // SAFETY: valid parent, a region inside it.
        let raw = unsafe {
            clCreateSubBuffer(
                parent.raw(),
                CL_MEM_READ_WRITE,
                CL_BUFFER_CREATE_TYPE_REGION,
                (&region as *const cl_buffer_region).cast(),
                &mut s,
            )
        };
        check(s, "clCreateSubBuffer");
        Buffer::from_raw(raw, len)
    };
    let s1 = sub(align, align * 2);
    let s2 = sub(align * 4, align);
    // A kernel on device 1 writes the first sub-buffer.
    produce.arg(0, &s1);
    t.q1.run(&produce, &[align * 2], None);
    // A write on device 0 into the second.
    let patch = pattern(align, 4);
    t.q0.write(&s2, 0, &patch);
    t.q0.finish();
    let mut want = data.clone();
    for i in 0..align * 2 {
        want[align + i] = i as u32 * 3 + 1;
    }
    want[align * 4..align * 5].copy_from_slice(&patch);
    assert_same("parent on device 1", &t.q1.read(&parent), &want);
    assert_same("parent on device 0", &t.q0.read(&parent), &want);
    assert_same(
        "sub-buffer on device 0",
        &t.q0.read(&s1),
        &want[align..align * 3],
    );
}

#[test]
fn copy_host_ptr_and_use_host_ptr_buffers_on_both_devices() {
    let t = two();
    // COPY_HOST_PTR: initial contents reach device 1 as well.
    let data = pattern(3000, 5);
    let copied = t.context.buffer_from(&data);
    assert_same("COPY_HOST_PTR read on device 1", &t.q1.read(&copied), &data);

    // USE_HOST_PTR: a kernel on device 1 writes, a map on device 0 shows
    // the result in the application's own memory.
    let n = 1024;
    let mut host = vec![0u32; n];
    let mut s = CL_SUCCESS;
    // SAFETY: `host` outlives the buffer and holds n u32s.
    let raw = unsafe {
        clCreateBuffer(
            t.context.raw(),
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            n * 4,
            host.as_mut_ptr().cast(),
            &mut s,
        )
    };
    check(s, "clCreateBuffer(USE_HOST_PTR)");
    let used: Buffer<u32> = Buffer::from_raw(raw, n);
    let program = t.context.build_for_all(KERNELS);
    let produce = program.kernel("produce");
    produce.arg(0, &used);
    t.q1.run(&produce, &[n], None);
    let mut s = CL_SUCCESS;
    // SAFETY: blocking map of the whole buffer.
    let p = unsafe {
        clEnqueueMapBuffer(
            t.q0.raw(),
            used.raw(),
            CL_TRUE,
            CL_MAP_READ,
            0,
            n * 4,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut s,
        )
    };
    check(s, "clEnqueueMapBuffer");
    assert_eq!(
        p as usize,
        host.as_ptr() as usize,
        "USE_HOST_PTR maps the host memory"
    );
    let want: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    // SAFETY: the map is complete (blocking) and covers n u32s.
    let seen = unsafe { std::slice::from_raw_parts(p as *const u32, n) }.to_vec();
    assert_same("USE_HOST_PTR map on device 0", &seen, &want);
    // SAFETY: the pointer from the map above.
    let s = unsafe {
        clEnqueueUnmapMemObject(t.q0.raw(), used.raw(), p, 0, ptr::null(), ptr::null_mut())
    };
    check(s, "clEnqueueUnmapMemObject");
    t.q0.finish();
}

#[test]
fn map_and_unmap_on_the_second_device() {
    let t = two();
    for flags in [CL_MEM_READ_WRITE, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR] {
        let n = 2048;
        let data = pattern(n, 6);
        let b: Buffer<u32> = {
            let mut s = CL_SUCCESS;
            // SAFETY: no host pointer.
            let raw =
                unsafe { clCreateBuffer(t.context.raw(), flags, n * 4, ptr::null_mut(), &mut s) };
            check(s, "clCreateBuffer");
            Buffer::from_raw(raw, n)
        };
        t.q0.write(&b, 0, &data);
        t.q0.finish();
        let mut s = CL_SUCCESS;
        // SAFETY: blocking map of elements 100..1100.
        let p = unsafe {
            clEnqueueMapBuffer(
                t.q1.raw(),
                b.raw(),
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE,
                400,
                4000,
                0,
                ptr::null(),
                ptr::null_mut(),
                &mut s,
            )
        };
        check(s, "clEnqueueMapBuffer on device 1");
        // SAFETY: the completed map covers 1000 u32s.
        let mapped = unsafe { std::slice::from_raw_parts_mut(p as *mut u32, 1000) };
        assert_same("mapped on device 1", mapped, &data[100..1100]);
        for v in mapped.iter_mut() {
            *v = v.wrapping_add(11);
        }
        // SAFETY: the pointer from the map above.
        let s = unsafe {
            clEnqueueUnmapMemObject(t.q1.raw(), b.raw(), p, 0, ptr::null(), ptr::null_mut())
        };
        check(s, "clEnqueueUnmapMemObject on device 1");
        t.q1.finish();
        let mut want = data.clone();
        for v in &mut want[100..1100] {
            *v = v.wrapping_add(11);
        }
        assert_same(
            &format!("read on device 0 (flags {flags:#x})"),
            &t.q0.read(&b),
            &want,
        );
    }
}

#[test]
fn cross_queue_wait_lists_order_the_migration() {
    let t = two();
    let program = t.context.build_for_all(KERNELS);
    let produce = program.kernel("produce");
    let n = 8192;
    let a: Buffer<u32> = t.context.buffer_from(&vec![0u32; n]);
    produce.arg(0, &a);
    // The kernel on device 0 waits for a user event; the read on device 1
    // is enqueued before the kernel has run and waits for its event: the
    // contents must move when the read executes, not when it is enqueued.
    let gate = Event::user(&t.context);
    let k = launch(&t.q0, &produce, n, &[&gate]);
    let mut out = vec![0u32; n];
    let list = raw_list(&[&k]);
    let mut rev = ptr::null_mut();
    // SAFETY: non-blocking read into `out`, which lives until the event
    // is waited for below.
    let s = unsafe {
        clEnqueueReadBuffer(
            t.q1.raw(),
            a.raw(),
            CL_FALSE,
            0,
            n * 4,
            out.as_mut_ptr().cast(),
            1,
            list.as_ptr(),
            &mut rev,
        )
    };
    check(s, "clEnqueueReadBuffer on device 1");
    let read = Event(rev);
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_ne!(read.status(), CL_COMPLETE, "the read waits for the kernel");
    gate.set(CL_COMPLETE);
    read.wait();
    let want: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    assert_same("read on device 1 after the kernel on device 0", &out, &want);
}

#[test]
fn migrate_mem_objects_with_and_without_contents() {
    let t = two();
    let n = 4096;
    let data = pattern(n, 7);
    let a = t.context.buffer_from(&data);
    let b: Buffer<u32> = t.context.buffer(n);
    t.q0.write(&b, 0, &data);
    t.q0.finish();
    // Contents move to device 1.
    let mems = [a.raw(), b.raw()];
    let mut ev = ptr::null_mut();
    // SAFETY: two live buffers of the queue's context.
    let s = unsafe {
        clEnqueueMigrateMemObjects(t.q1.raw(), 2, mems.as_ptr(), 0, 0, ptr::null(), &mut ev)
    };
    check(s, "clEnqueueMigrateMemObjects");
    let ev = Event(ev);
    ev.wait();
    assert_eq!(ev.status(), CL_COMPLETE);
    assert_same("a on device 1", &t.q1.read(&a), &data);
    assert_same("b on device 1", &t.q1.read(&b), &data);
    // CONTENT_UNDEFINED: the contents need not follow; what is written
    // afterwards on device 1 is what device 0 then sees.
    // SAFETY: one live buffer.
    let s = unsafe {
        clEnqueueMigrateMemObjects(
            t.q1.raw(),
            1,
            &a.raw(),
            CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(s, "clEnqueueMigrateMemObjects(CONTENT_UNDEFINED)");
    let fresh = pattern(n, 8);
    t.q1.write(&a, 0, &fresh);
    t.q1.finish();
    assert_same(
        "a on device 0 after the write on device 1",
        &t.q0.read(&a),
        &fresh,
    );
    // Migrating to the host is an ordering point.
    // SAFETY: one live buffer.
    let s = unsafe {
        clEnqueueMigrateMemObjects(
            t.q0.raw(),
            1,
            &b.raw(),
            CL_MIGRATE_MEM_OBJECT_HOST,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(s, "clEnqueueMigrateMemObjects(HOST)");
    t.q0.finish();
    // "CL_INVALID_VALUE if flags is not 0 or is not any of the values described"
    // SAFETY: one live buffer.
    let s = unsafe {
        clEnqueueMigrateMemObjects(
            t.q0.raw(),
            1,
            &b.raw(),
            1 << 5,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_VALUE, "unknown migration flag");
    // "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL"
    // SAFETY: no objects.
    let s = unsafe {
        clEnqueueMigrateMemObjects(
            t.q0.raw(),
            0,
            ptr::null(),
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_VALUE, "no memory objects");
    // "CL_INVALID_CONTEXT if the context associated with command_queue and
    // memory objects in mem_objects are not the same"
    let other = Context::with_devices(&t.devices);
    let c: Buffer<u32> = other.buffer(16);
    // SAFETY: one live buffer of another context.
    let s = unsafe {
        clEnqueueMigrateMemObjects(t.q0.raw(), 1, &c.raw(), 0, 0, ptr::null(), ptr::null_mut())
    };
    expect_error(s, CL_INVALID_CONTEXT, "buffer of another context");
}

const IMAGE_KERNEL: &str = "
kernel void bump(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    uint4 v = read_imageui(src, p);
    write_imageui(dst, p, v + (uint4)(1, 2, 3, 4));
}
";

#[test]
fn images_on_two_devices() {
    let t = two();
    let (w, h) = (37usize, 19usize);
    let fmt = format(CL_RGBA, CL_UNSIGNED_INT8);
    let texels: Vec<u8> = (0..w * h * 4).map(|i| (i * 7 % 200) as u8).collect();
    let d = desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], (0, 0), ptr::null_mut());
    // SAFETY: COPY_HOST_PTR reads w*h*4 bytes of `texels`.
    let src = unsafe {
        t.context.try_image_with_host(
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
            &fmt,
            &d,
            texels.as_ptr().cast_mut().cast(),
        )
    }
    .expect("clCreateImage(COPY_HOST_PTR)");
    let dst = t
        .context
        .image(CL_MEM_READ_WRITE, &fmt, CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0]);
    // Initial contents read on device 1.
    assert_eq!(
        t.q1.read_image(&src, [0; 3], [w, h, 1], 4),
        texels,
        "src on device 1"
    );
    // A kernel on device 1 writes dst; device 0 reads it.
    let program = t.context.build_for_all(IMAGE_KERNEL);
    let bump = program.kernel("bump");
    let (sm, dm) = (src.raw(), dst.raw());
    for (i, m) in [sm, dm].iter().enumerate() {
        // SAFETY: a cl_mem argument.
        let s = unsafe {
            clSetKernelArg(
                bump.raw(),
                i as cl_uint,
                std::mem::size_of::<cl_mem>(),
                (m as *const cl_mem).cast(),
            )
        };
        check(s, "clSetKernelArg(image)");
    }
    t.q1.run(&bump, &[w, h], None);
    let want: Vec<u8> = texels
        .iter()
        .enumerate()
        .map(|(i, v)| v + (i % 4) as u8 + 1)
        .collect();
    assert_eq!(
        t.q0.read_image(&dst, [0; 3], [w, h, 1], 4),
        want,
        "dst on device 0"
    );
    // A write on device 0 into a region, read on device 1.
    let patch = vec![0xA5u8; 5 * 3 * 4];
    t.q0.write_image(&dst, [4, 2, 0], [5, 3, 1], &patch);
    t.q0.finish();
    let mut want2 = want.clone();
    for y in 2..5 {
        for x in 4..9 {
            want2[(y * w + x) * 4..(y * w + x) * 4 + 4].fill(0xA5);
        }
    }
    assert_eq!(
        t.q1.read_image(&dst, [0; 3], [w, h, 1], 4),
        want2,
        "dst on device 1"
    );
    // An image copy on device 1 from an image last written on device 0.
    let copy = t
        .context
        .image(CL_MEM_READ_WRITE, &fmt, CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0]);
    let (o, r) = ([0usize; 3], [w, h, 1]);
    // SAFETY: valid images of one format, region inside both.
    let s = unsafe {
        clEnqueueCopyImage(
            t.q1.raw(),
            dst.raw(),
            copy.raw(),
            o.as_ptr(),
            o.as_ptr(),
            r.as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check(s, "clEnqueueCopyImage on device 1");
    t.q1.finish();
    assert_eq!(
        t.q0.read_image(&copy, [0; 3], [w, h, 1], 4),
        want2,
        "copy on device 0"
    );
}

#[test]
fn context_from_type_all_spans_every_replica() {
    let devs = devices();
    let all = platform_devices(platform());
    let props = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        0,
    ];
    let mut s = CL_SUCCESS;
    // SAFETY: 0-terminated properties, no callback.
    let raw = unsafe {
        clCreateContextFromType(
            props.as_ptr(),
            CL_DEVICE_TYPE_ALL,
            None,
            ptr::null_mut(),
            &mut s,
        )
    };
    check(s, "clCreateContextFromType(ALL)");
    let context = Context::from_raw(raw, devs[0]);
    let listed: Vec<cl_device_id> =
        query(ferrocl_tests::info::context_info(raw, CL_CONTEXT_DEVICES)).unwrap();
    assert_eq!(listed, all, "every device of the platform, in order");
    let n: cl_uint = query_value(ferrocl_tests::info::context_info(
        raw,
        CL_CONTEXT_NUM_DEVICES,
    ))
    .unwrap();
    assert_eq!(n as usize, all.len());
    // Data written on the last device is read on the first.
    let last = context.queue_on(*all.last().unwrap());
    let first = context.queue_on(all[0]);
    let data = pattern(777, 9);
    let b: Buffer<u32> = context.buffer(data.len());
    last.write(&b, 0, &data);
    last.finish();
    assert_same("read on the first device", &first.read(&b), &data);
}

/// clEnqueueMigrateMemObjects to `q` of `mem` with `flags`, waited for.
fn migrate(q: &Queue, mem: cl_mem, flags: cl_mem_migration_flags) {
    // SAFETY: one live buffer of the queue's context.
    let s = unsafe {
        clEnqueueMigrateMemObjects(q.raw(), 1, &mem, flags, 0, ptr::null(), ptr::null_mut())
    };
    check(s, "clEnqueueMigrateMemObjects");
    q.finish();
}

#[test]
fn content_undefined_migration_copies_nothing() {
    let t = two();
    let n = 2048;
    let (x, y) = (pattern(n, 10), pattern(n, 11));
    for (flags, want, what) in [
        (0, &y, "a migration moves the current contents"),
        (
            CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
            &x,
            // The spec leaves the contents undefined; ferrocl copies
            // nothing, so device 1 still holds what it held before.
            "CONTENT_UNDEFINED leaves device 1's old contents",
        ),
    ] {
        let a: Buffer<u32> = t.context.buffer(n);
        t.q1.write(&a, 0, &x);
        t.q1.finish();
        // Device 0 becomes the only one holding the contents (y).
        t.q0.write(&a, 0, &y);
        t.q0.finish();
        migrate(&t.q1, a.raw(), flags);
        assert_same(what, &t.q1.read(&a), want);
        // Whatever device 1 holds now is what device 0 sees next.
        assert_same("device 0 follows device 1", &t.q0.read(&a), want);
    }
}

#[test]
fn streamed_transfers_cross_devices() {
    let t = two();
    let n = 50_000; // 200 KB: streamed in 4 KiB parts
    let data = pattern(n, 12);
    let b: Buffer<u32> = t.context.buffer(n);
    t.q0.write(&b, 0, &data);
    t.q0.finish();
    assert_same("streamed read on device 1", &t.q1.read(&b), &data);
    let more = pattern(n - 1000, 13);
    t.q1.write(&b, 1000, &more);
    t.q1.finish();
    let mut want = data.clone();
    want[1000..].copy_from_slice(&more);
    assert_same("streamed read on device 0", &t.q0.read(&b), &want);
}

/// Blocking map of `len` u32s at u32 index `offset` of `b` on `q`.
fn map_on(q: &Queue, b: &Buffer<u32>, flags: cl_map_flags, offset: usize, len: usize) -> *mut u32 {
    let mut s = CL_SUCCESS;
    // SAFETY: valid queue and buffer; a blocking map.
    let p = unsafe {
        clEnqueueMapBuffer(
            q.raw(),
            b.raw(),
            CL_TRUE,
            flags,
            offset * 4,
            len * 4,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut s,
        )
    };
    check(s, "clEnqueueMapBuffer");
    p.cast()
}

fn unmap_on(q: &Queue, b: &Buffer<u32>, p: *mut u32) {
    // SAFETY: p came from clEnqueueMapBuffer on this buffer.
    let s = unsafe {
        clEnqueueUnmapMemObject(q.raw(), b.raw(), p.cast(), 0, ptr::null(), ptr::null_mut())
    };
    check(s, "clEnqueueUnmapMemObject");
    q.finish();
}

/// A page-aligned USE_HOST_PTR buffer: on device 0 its storage is the
/// application's memory where the device can import it
/// (VK_EXT_external_memory_host), and its contents still migrate to and
/// from device 1 (maps on either device, an unmap on the other device
/// than the map, sub-buffers).
#[test]
fn aligned_use_host_ptr_buffers_migrate() {
    let t = two();
    let n = 3 * 16384;
    // 64 KiB: a multiple of every minImportedHostPointerAlignment seen.
    let layout = std::alloc::Layout::from_size_align(n * 4, 65536).expect("layout");
    // SAFETY: non-zero size; freed at the end, after the buffer.
    let base = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u32>();
    assert!(!base.is_null());
    // SAFETY: our allocation of n u32s; read only while no command runs.
    let host = || unsafe { std::slice::from_raw_parts_mut(base, n) };
    let init = pattern(n, 51);
    host().copy_from_slice(&init);
    let mut s = CL_SUCCESS;
    // SAFETY: `base` holds n u32s and outlives the buffer.
    let raw = unsafe {
        clCreateBuffer(
            t.context.raw(),
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            n * 4,
            base.cast(),
            &mut s,
        )
    };
    check(s, "clCreateBuffer(USE_HOST_PTR)");
    let b: Buffer<u32> = Buffer::from_raw(raw, n);
    let program = t.context.build_for_all(
        "kernel void bump(global uint* o) { size_t i = get_global_id(0); o[i] = o[i] * 2u + 1u; }",
    );
    let bump = program.kernel("bump");
    let bumped = |v: &[u32]| -> Vec<u32> {
        v.iter()
            .map(|x| x.wrapping_mul(2).wrapping_add(1))
            .collect()
    };

    // Device 1 gets the application's contents and writes; a map on
    // device 0 shows the result in place.
    bump.arg(0, &b);
    t.q1.run(&bump, &[n], None);
    let mut model = bumped(&init);
    let p = map_on(&t.q0, &b, CL_MAP_READ | CL_MAP_WRITE, 0, n);
    assert_eq!(p, base, "USE_HOST_PTR maps the host memory");
    assert_same("map on device 0 after device 1 wrote", host(), &model);
    for (i, v) in host()[..100].iter_mut().enumerate() {
        *v = i as u32;
        model[i] = i as u32;
    }
    unmap_on(&t.q0, &b, p);
    // The host's writes reach device 1.
    t.q1.run(&bump, &[n], None);
    model = bumped(&model);
    assert_same("read on device 0", &t.q0.read(&b), &model);
    // A map on device 1 also lands in the application's memory.
    let p = map_on(&t.q1, &b, CL_MAP_READ, 0, n);
    assert_eq!(p, base);
    assert_same("map on device 1", host(), &model);
    unmap_on(&t.q1, &b, p);
    // Mapped for writing on device 0, unmapped on device 1.
    let p = map_on(&t.q0, &b, CL_MAP_WRITE, 200, 50);
    for (i, v) in host()[200..250].iter_mut().enumerate() {
        *v = 0xC0DE_0000 + i as u32;
        model[200 + i] = 0xC0DE_0000 + i as u32;
    }
    unmap_on(&t.q1, &b, p);
    assert_same(
        "read on device 1 after the cross-device unmap",
        &t.q1.read(&b),
        &model,
    );
    assert_same(
        "read on device 0 after the cross-device unmap",
        &t.q0.read(&b),
        &model,
    );
    // A sub-buffer written on device 1, read through its parent on device 0.
    let base_align =
        ferrocl_tests::device_value::<cl_uint>(t.devices[0], CL_DEVICE_MEM_BASE_ADDR_ALIGN)
            as usize
            / 8;
    let origin = 4 * base_align;
    let region = cl_buffer_region { origin, size: 4096 };
    let mut s = CL_SUCCESS;
    // SAFETY: valid buffer; the region lies inside it.
    let raw = unsafe {
        clCreateSubBuffer(
            b.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut s,
        )
    };
    check(s, "clCreateSubBuffer");
    let sub: Buffer<u32> = Buffer::from_raw(raw, 1024);
    bump.arg(0, &sub);
    t.q1.run(&bump, &[1024], None);
    let o = origin / 4;
    let part = bumped(&model[o..o + 1024]);
    model[o..o + 1024].copy_from_slice(&part);
    let p = map_on(&t.q0, &b, CL_MAP_READ, 0, n);
    assert_same(
        "parent mapped on device 0 after a sub-buffer kernel on device 1",
        host(),
        &model,
    );
    unmap_on(&t.q0, &b, p);
    drop(bump);
    drop(sub);
    drop(b);
    // SAFETY: allocated above with this layout; the buffer is released.
    unsafe { std::alloc::dealloc(base.cast(), layout) };
}

/// cl_ext_buffer_device_address in a two-device context: one address per
/// device (CTS private_address_multi_device), each device's kernel writes
/// through its own address given with clSetKernelArgDevicePointerEXT, and
/// the write migrates to the other device like any kernel write.
#[test]
fn device_addresses_per_device() {
    let t = two();
    let props = [
        CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
        CL_TRUE as cl_mem_properties,
        0,
    ];
    let mut status = CL_SUCCESS;
    // SAFETY: valid context, 0-terminated properties.
    let raw = unsafe {
        clCreateBufferWithProperties(
            t.context.raw(),
            props.as_ptr(),
            CL_MEM_READ_WRITE,
            64,
            ptr::null_mut(),
            &mut status,
        )
    };
    check(
        status,
        "clCreateBufferWithProperties(DEVICE_PRIVATE_ADDRESS)",
    );
    let buf = Buffer::<u64>::from_raw(raw, 8);
    let addresses: Vec<u64> = query(ferrocl_tests::info::mem_info(
        buf.raw(),
        CL_MEM_DEVICE_ADDRESS_EXT,
    ))
    .unwrap();
    assert_eq!(addresses.len(), 2, "one address per device");
    assert!(addresses.iter().all(|&a| a != 0));
    // SAFETY: a NUL-terminated name, a valid platform.
    let f = unsafe {
        clGetExtensionFunctionAddressForPlatform(
            platform(),
            c"clSetKernelArgDevicePointerEXT".as_ptr(),
        )
    };
    assert!(!f.is_null());
    type SetPtr = unsafe extern "system" fn(cl_kernel, cl_uint, cl_ulong) -> cl_int;
    // SAFETY: the extension's signature.
    let set_ptr = unsafe { std::mem::transmute::<*mut std::ffi::c_void, SetPtr>(f) };
    let program = t
        .context
        .build_for_all("kernel void put(global ulong *p, ulong v) { *p = v; }");
    let k = program.kernel("put");
    for (i, q) in [&t.q0, &t.q1].into_iter().enumerate() {
        // SAFETY: valid kernel; argument 0 is a global pointer.
        check(
            unsafe { set_ptr(k.raw(), 0, addresses[i] + 8 * (i as u64 + 1)) },
            "clSetKernelArgDevicePointerEXT",
        );
        let v = 0xAABB_CCDD_0000_0000u64 + i as u64;
        k.arg(1, &v);
        launch(q, &k, 1, &[]).wait();
    }
    // Device 0 wrote word 1 on its storage, device 1 word 2 on its own,
    // after device 0's contents migrated to it: both are on device 1 now.
    let got = t.q1.read(&buf);
    assert_eq!(got[1..3], [0xAABB_CCDD_0000_0000, 0xAABB_CCDD_0000_0001]);
    let got = t.q0.read(&buf);
    assert_eq!(got[1..3], [0xAABB_CCDD_0000_0000, 0xAABB_CCDD_0000_0001]);
}

/// SVM needs one pointer that is the device address on every device of
/// the context: with two VkDevices it cannot be had, and clSVMAlloc
/// returns NULL (runtime/src/core/svm.rs).
#[test]
fn svm_alloc_in_a_two_device_context_fails() {
    let t = two();
    // SAFETY: valid context.
    let p = unsafe { clSVMAlloc(t.context.raw(), CL_MEM_READ_WRITE, 4096, 0) };
    assert!(p.is_null());
}

/// USM allocations, like SVM, need one pointer that is the device address
/// wherever the context's devices use it: in a two-device context every
/// allocation function answers CL_INVALID_OPERATION
/// (runtime/src/core/usm.rs); a context of the second device alone has
/// them, and a kernel there writes through a device allocation.
#[test]
fn usm_only_in_one_device_contexts() {
    let t = two();
    let lookup = |name: &std::ffi::CStr| {
        // SAFETY: a platform of the loader and a NUL-terminated name.
        let f = unsafe { clGetExtensionFunctionAddressForPlatform(platform(), name.as_ptr()) };
        assert!(!f.is_null(), "{name:?}");
        f
    };
    // SAFETY: the extension's signatures for these names.
    let (host, device, shared, free, memcpy, set_arg) = unsafe {
        (
            std::mem::transmute::<*mut std::ffi::c_void, clHostMemAllocINTEL_t>(lookup(
                c"clHostMemAllocINTEL",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clDeviceMemAllocINTEL_t>(lookup(
                c"clDeviceMemAllocINTEL",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clSharedMemAllocINTEL_t>(lookup(
                c"clSharedMemAllocINTEL",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clMemFreeINTEL_t>(lookup(
                c"clMemFreeINTEL",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clEnqueueMemcpyINTEL_t>(lookup(
                c"clEnqueueMemcpyINTEL",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clSetKernelArgMemPointerINTEL_t>(lookup(
                c"clSetKernelArgMemPointerINTEL",
            ))
            .unwrap(),
        )
    };
    let mut status = CL_SUCCESS;
    // SAFETY (all below): valid contexts, devices and queues; the
    // allocation outlives every command on it (the read is blocking).
    unsafe {
        let p = host(t.context.raw(), ptr::null(), 64, 0, &mut status);
        assert!(p.is_null());
        expect_error(status, CL_INVALID_OPERATION, "host allocation, two devices");
        let p = device(
            t.context.raw(),
            t.devices[1],
            ptr::null(),
            64,
            0,
            &mut status,
        );
        assert!(p.is_null());
        expect_error(
            status,
            CL_INVALID_OPERATION,
            "device allocation, two devices",
        );
        let p = shared(
            t.context.raw(),
            ptr::null_mut(),
            ptr::null(),
            64,
            0,
            &mut status,
        );
        assert!(p.is_null());
        expect_error(
            status,
            CL_INVALID_OPERATION,
            "shared allocation, two devices",
        );

        let one = Context::on(t.devices[1]);
        let q = one.queue();
        let p = device(
            one.raw(),
            t.devices[1],
            ptr::null(),
            1024 * 4,
            0,
            &mut status,
        );
        check(status, "device allocation on device 1 alone");
        let k = one.kernel(
            "kernel void f(global int *p) { int i = get_global_id(0); p[i] = i * i - 9; }",
            "f",
        );
        check(set_arg(k.raw(), 0, p), "clSetKernelArgMemPointerINTEL");
        q.run(&k, &[1024], None);
        let mut got = vec![0i32; 1024];
        check(
            memcpy(
                q.raw(),
                CL_TRUE,
                got.as_mut_ptr().cast(),
                p,
                1024 * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueMemcpyINTEL",
        );
        let want: Vec<i32> = (0..1024).map(|i| i * i - 9).collect();
        assert_same("device 1's kernel through a USM pointer", &got, &want);
        check(free(one.raw(), p), "clMemFreeINTEL");
    }
}

/// A command buffer recorded on device 1's queue: each replay makes its
/// buffers current there first (contents written on device 0 between
/// replays move over), and its writes move back to device 0 for reading.
#[test]
fn command_buffer_replays_move_contents_between_devices() {
    // First: the replicas are set up before any OpenCL call.
    let t = two();
    let lookup = |name: &std::ffi::CStr| {
        // SAFETY: a platform of the loader and a NUL-terminated name.
        let f = unsafe { clGetExtensionFunctionAddressForPlatform(platform(), name.as_ptr()) };
        assert!(!f.is_null(), "{name:?}");
        f
    };
    // SAFETY: the extension's signatures for these names.
    let (create, record, finalize, enqueue, release) = unsafe {
        (
            std::mem::transmute::<*mut std::ffi::c_void, clCreateCommandBufferKHR_t>(lookup(
                c"clCreateCommandBufferKHR",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clCommandNDRangeKernelKHR_t>(lookup(
                c"clCommandNDRangeKernelKHR",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clFinalizeCommandBufferKHR_t>(lookup(
                c"clFinalizeCommandBufferKHR",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clEnqueueCommandBufferKHR_t>(lookup(
                c"clEnqueueCommandBufferKHR",
            ))
            .unwrap(),
            std::mem::transmute::<*mut std::ffi::c_void, clReleaseCommandBufferKHR_t>(lookup(
                c"clReleaseCommandBufferKHR",
            ))
            .unwrap(),
        )
    };
    let program = t.context.build_for_all(KERNELS);
    let consume = program.kernel("consume");
    let n = 2048;
    let a: Buffer<u32> = t.context.buffer(n);
    let b: Buffer<u32> = t.context.buffer(n);
    consume.arg(0, &a).arg(1, &b);
    let q1 = t.q1.raw();
    let mut s = CL_SUCCESS;
    // SAFETY: one valid queue, no properties.
    let cb = unsafe { create(1, &q1, ptr::null(), &mut s) };
    check(s, "clCreateCommandBufferKHR");
    // SAFETY: valid command buffer and kernel, a 1-entry global size.
    let s = unsafe {
        record(
            cb,
            ptr::null_mut(),
            ptr::null(),
            consume.raw(),
            1,
            ptr::null(),
            &n,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    check(s, "clCommandNDRangeKernelKHR");
    // SAFETY: valid command buffer.
    check(unsafe { finalize(cb) }, "clFinalizeCommandBufferKHR");
    for round in 0..3u32 {
        let input = pattern(n, round);
        t.q0.write(&a, 0, &input);
        t.q0.finish();
        // SAFETY: a finalized command buffer on its own queue.
        let s = unsafe { enqueue(0, ptr::null_mut(), cb, 0, ptr::null(), ptr::null_mut()) };
        check(s, "clEnqueueCommandBufferKHR");
        t.q1.finish();
        let a_ref: Vec<u32> = input.iter().map(|v| v.wrapping_add(5)).collect();
        let b_ref: Vec<u32> = input
            .iter()
            .map(|v| v.wrapping_mul(2).wrapping_add(7))
            .collect();
        assert_same(
            &format!("round {round}: a on device 0"),
            &t.q0.read(&a),
            &a_ref,
        );
        assert_same(
            &format!("round {round}: b on device 0"),
            &t.q0.read(&b),
            &b_ref,
        );
    }
    // SAFETY: our reference.
    check(unsafe { release(cb) }, "clReleaseCommandBufferKHR");
}
