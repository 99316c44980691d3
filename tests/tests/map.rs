//! clEnqueueMapBuffer / clEnqueueUnmapMemObject: contents seen through the
//! mapped pointer, writes through it reaching the device (kernels and
//! reads see them), MAP_WRITE_INVALIDATE_REGION, USE_HOST_PTR mappings
//! pointing into the application's memory, sub-buffers, event command
//! types, CL_MEM_MAP_COUNT and the errors for bad pointers and flags.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::events::Event;
use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, expect_error, Cl};

fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i ^ seed).wrapping_mul(0x2545_F491))
        .collect()
}

/// Maps `len` u32s at u32 index `offset`; returns the pointer and the event.
fn map(
    cl: &Cl,
    mem: cl_mem,
    blocking: bool,
    flags: cl_map_flags,
    offset: usize,
    len: usize,
) -> (*mut u32, Event) {
    let mut status = CL_SUCCESS;
    let mut event = ptr::null_mut();
    // SAFETY: valid queue and buffer; out-pointers to locals.
    let p = unsafe {
        clEnqueueMapBuffer(
            cl.queue.raw(),
            mem,
            if blocking { CL_TRUE } else { CL_FALSE },
            flags,
            offset * 4,
            len * 4,
            0,
            ptr::null(),
            &mut event,
            &mut status,
        )
    };
    check(status, "clEnqueueMapBuffer");
    assert!(!p.is_null());
    (p.cast(), Event(event))
}

fn unmap(cl: &Cl, mem: cl_mem, p: *mut u32) -> Event {
    let mut event = ptr::null_mut();
    // SAFETY: p came from clEnqueueMapBuffer on this buffer.
    let s = unsafe {
        clEnqueueUnmapMemObject(cl.queue.raw(), mem, p.cast(), 0, ptr::null(), &mut event)
    };
    check(s, "clEnqueueUnmapMemObject");
    Event(event)
}

fn command_type(e: &Event) -> cl_command_type {
    let mut v: cl_command_type = 0;
    // SAFETY: valid event, out value of the right size.
    let s = unsafe {
        clGetEventInfo(
            e.0,
            CL_EVENT_COMMAND_TYPE,
            std::mem::size_of_val(&v),
            (&mut v as *mut cl_command_type).cast(),
            ptr::null_mut(),
        )
    };
    check(s, "clGetEventInfo");
    v
}

fn map_count(mem: cl_mem) -> cl_uint {
    let mut v: cl_uint = 0;
    // SAFETY: valid buffer, out value of the right size.
    let s = unsafe {
        clGetMemObjectInfo(
            mem,
            CL_MEM_MAP_COUNT,
            4,
            (&mut v as *mut cl_uint).cast(),
            ptr::null_mut(),
        )
    };
    check(s, "clGetMemObjectInfo");
    v
}

/// Sets argument 0 of `k` to the raw buffer `mem`.
fn set_mem_arg(k: &ferrocl_tests::Kernel, mem: cl_mem) {
    // SAFETY: valid kernel, a cl_mem argument.
    let s = unsafe {
        clSetKernelArg(
            k.raw(),
            0,
            std::mem::size_of::<cl_mem>(),
            (&mem as *const cl_mem).cast(),
        )
    };
    check(s, "clSetKernelArg");
}

/// # Safety
/// `p` must point at `len` readable u32s.
unsafe fn view<'a>(p: *mut u32, len: usize) -> &'a mut [u32] {
    // SAFETY: caller contract.
    unsafe { std::slice::from_raw_parts_mut(p, len) }
}

#[test]
fn map_for_read_sees_kernel_results() {
    let cl = Cl::new();
    let n = 1 << 16;
    let buffer = cl.buffer::<u32>(n);
    let k = cl.kernel(
        "kernel void f(global uint* o) { uint i = get_global_id(0); o[i] = i * 3u + 1u; }",
        "f",
    );
    k.arg(0, &buffer);
    cl.queue.run(&k, &[n], None);
    let (p, e) = map(&cl, buffer.raw(), true, CL_MAP_READ, 100, n - 200);
    assert_eq!(command_type(&e), CL_COMMAND_MAP_BUFFER);
    let want: Vec<u32> = (100..n as u32 - 100).map(|i| i * 3 + 1).collect();
    // SAFETY: a completed blocking map of n - 200 values.
    assert_same("mapped", unsafe { view(p, n - 200) }, &want);
    assert_eq!(map_count(buffer.raw()), 1);
    let u = unmap(&cl, buffer.raw(), p);
    u.wait();
    assert_eq!(command_type(&u), CL_COMMAND_UNMAP_MEM_OBJECT);
    assert_eq!(map_count(buffer.raw()), 0);
}

#[test]
fn writes_through_a_map_reach_kernels_and_reads() {
    let cl = Cl::new();
    let n = 4096;
    let mut mirror = pattern(n, 7);
    let buffer = cl.buffer_from(&mirror);
    let (p, _) = map(
        &cl,
        buffer.raw(),
        true,
        CL_MAP_READ | CL_MAP_WRITE,
        1000,
        500,
    );
    // SAFETY: a completed blocking map of 500 values.
    let m = unsafe { view(p, 500) };
    assert_same("old contents", m, &mirror[1000..1500]);
    for (i, v) in m.iter_mut().enumerate() {
        *v = !(i as u32);
        mirror[1000 + i] = !(i as u32);
    }
    unmap(&cl, buffer.raw(), p);
    let out = cl.buffer::<u32>(n);
    let k = cl.kernel(
        "kernel void f(global const uint* a, global uint* o) {
             uint i = get_global_id(0); o[i] = a[i] + 1u; }",
        "f",
    );
    k.arg(0, &buffer).arg(1, &out);
    cl.queue.run(&k, &[n], None);
    let want: Vec<u32> = mirror.iter().map(|x| x.wrapping_add(1)).collect();
    assert_same("kernel saw the map's writes", &cl.queue.read(&out), &want);
    assert_same("read", &cl.queue.read(&buffer), &mirror);
}

#[test]
fn write_invalidate_region_replaces_the_range() {
    let cl = Cl::new();
    let n = 1024;
    let mut mirror = pattern(n, 9);
    let buffer = cl.buffer_from(&mirror);
    let (p, e) = map(
        &cl,
        buffer.raw(),
        false,
        CL_MAP_WRITE_INVALIDATE_REGION,
        256,
        512,
    );
    e.wait();
    assert_eq!(command_type(&e), CL_COMMAND_MAP_BUFFER);
    // SAFETY: the map completed (waited above); 512 values.
    let m = unsafe { view(p, 512) };
    for (i, v) in m.iter_mut().enumerate() {
        *v = 0xABCD_0000 | i as u32;
        mirror[256 + i] = 0xABCD_0000 | i as u32;
    }
    unmap(&cl, buffer.raw(), p).wait();
    assert_same("after unmap", &cl.queue.read(&buffer), &mirror);
}

#[test]
fn two_maps_of_one_buffer_and_a_sub_buffer() {
    let cl = Cl::new();
    let n = 2048;
    let data = pattern(n, 11);
    let buffer = cl.buffer_from(&data);
    let (a, _) = map(&cl, buffer.raw(), true, CL_MAP_READ, 0, 1024);
    let (b, _) = map(&cl, buffer.raw(), true, CL_MAP_READ, 512, 1024);
    assert_eq!(map_count(buffer.raw()), 2);
    // SAFETY: completed blocking maps of 1024 values each.
    unsafe {
        assert_same("first", view(a, 1024), &data[..1024]);
        assert_same("second", view(b, 1024), &data[512..1536]);
    }
    unmap(&cl, buffer.raw(), b);
    unmap(&cl, buffer.raw(), a);

    let region = cl_buffer_region {
        origin: 1024 * 4,
        size: 1024 * 4,
    };
    let mut status = CL_SUCCESS;
    // SAFETY: valid buffer and region.
    let sub = unsafe {
        clCreateSubBuffer(
            buffer.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut status,
        )
    };
    check(status, "clCreateSubBuffer");
    let (s, _) = map(&cl, sub, true, CL_MAP_WRITE, 10, 4);
    // SAFETY: a completed blocking map of 4 values.
    unsafe { view(s, 4) }.copy_from_slice(&[1, 2, 3, 4]);
    unmap(&cl, sub, s);
    let mut want = data.clone();
    want[1034..1038].copy_from_slice(&[1, 2, 3, 4]);
    assert_same(
        "parent after sub-buffer map",
        &cl.queue.read(&buffer),
        &want,
    );
    // SAFETY: we own this reference.
    check(unsafe { clReleaseMemObject(sub) }, "clReleaseMemObject");
}

#[test]
fn use_host_ptr_maps_into_the_application_memory() {
    let cl = Cl::new();
    let n = 1000;
    let mut host = pattern(n, 13);
    let mut status = CL_SUCCESS;
    // SAFETY: host outlives the buffer (released below).
    let mem = unsafe {
        clCreateBuffer(
            cl.context.raw(),
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            n * 4,
            host.as_mut_ptr().cast::<c_void>(),
            &mut status,
        )
    };
    check(status, "clCreateBuffer");
    let k = cl.kernel(
        "kernel void f(global uint* o) { o[get_global_id(0)] += 5u; }",
        "f",
    );
    set_mem_arg(&k, mem);
    cl.queue.run(&k, &[n], None);
    let (p, _) = map(&cl, mem, true, CL_MAP_READ | CL_MAP_WRITE, 10, 100);
    // "If the buffer object is created with CL_MEM_USE_HOST_PTR [...] the
    // pointer value returned by clEnqueueMapBuffer will be derived from the
    // host_ptr specified when the buffer object is created."
    assert_eq!(p, host[10..].as_mut_ptr());
    let want: Vec<u32> = pattern(n, 13).iter().map(|x| x.wrapping_add(5)).collect();
    // SAFETY: a completed blocking map of 100 values.
    assert_same("mapped", unsafe { view(p, 100) }, &want[10..110]);
    unmap(&cl, mem, p).wait();
    // SAFETY: we own this reference.
    check(unsafe { clReleaseMemObject(mem) }, "clReleaseMemObject");
}

#[test]
fn map_and_unmap_errors() {
    let cl = Cl::new();
    let buffer = cl.buffer::<u32>(256);
    let mut status = CL_SUCCESS;
    let try_map = |flags: cl_map_flags, offset: usize, size: usize, status: &mut cl_int| {
        // SAFETY: valid queue and buffer; a blocking map.
        unsafe {
            clEnqueueMapBuffer(
                cl.queue.raw(),
                buffer.raw(),
                CL_TRUE,
                flags,
                offset,
                size,
                0,
                ptr::null(),
                ptr::null_mut(),
                status,
            )
        }
    };
    // Out of range, zero size, bad flag combinations.
    assert!(try_map(CL_MAP_READ, 1020, 8, &mut status).is_null());
    expect_error(status, CL_INVALID_VALUE, "map past the end");
    assert!(try_map(CL_MAP_READ, 0, 0, &mut status).is_null());
    expect_error(status, CL_INVALID_VALUE, "zero-size map");
    assert!(try_map(
        CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
        0,
        4,
        &mut status
    )
    .is_null());
    expect_error(
        status,
        CL_INVALID_VALUE,
        "READ with WRITE_INVALIDATE_REGION",
    );
    assert!(try_map(1 << 7, 0, 4, &mut status).is_null());
    expect_error(status, CL_INVALID_VALUE, "unknown map flag");

    // A pointer this buffer never returned.
    let mut local = [0u32; 4];
    // SAFETY: valid queue and buffer; the pointer is only compared.
    let s = unsafe {
        clEnqueueUnmapMemObject(
            cl.queue.raw(),
            buffer.raw(),
            local.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_VALUE, "unmap of a foreign pointer");
    // The same pointer cannot be unmapped twice.
    let (p, _) = map(&cl, buffer.raw(), true, CL_MAP_READ, 0, 4);
    unmap(&cl, buffer.raw(), p);
    // SAFETY: as above.
    let s = unsafe {
        clEnqueueUnmapMemObject(
            cl.queue.raw(),
            buffer.raw(),
            p.cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_VALUE, "second unmap");
    cl.queue.finish();
}

/// CL_MEM_ALLOC_HOST_PTR buffers map for reading into one persistent host
/// allocation (allocated with the buffer): the same region maps to the
/// same address every time, a sub-buffer's map lies at its origin within its parent's,
/// and contents flow both ways through it.
#[test]
fn alloc_host_ptr_maps_into_a_persistent_mirror() {
    let cl = Cl::new();
    let n = 4096;
    let data = pattern(n, 17);
    let mut status = CL_SUCCESS;
    // SAFETY: COPY_HOST_PTR reads `data` during the call.
    let mem = unsafe {
        clCreateBuffer(
            cl.context.raw(),
            CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
            n * 4,
            data.as_ptr() as *mut c_void,
            &mut status,
        )
    };
    check(status, "clCreateBuffer");
    let (p1, _) = map(&cl, mem, true, CL_MAP_READ, 100, 200);
    // SAFETY: a completed blocking map of 200 values.
    assert_same("first map", unsafe { view(p1, 200) }, &data[100..300]);
    unmap(&cl, mem, p1).wait();
    let (p2, _) = map(&cl, mem, true, CL_MAP_READ | CL_MAP_WRITE, 100, 200);
    assert_eq!(p1, p2, "the same region maps to the same mirror address");
    // SAFETY: a completed blocking map of 200 values.
    unsafe { view(p2, 200) }.fill(7);
    unmap(&cl, mem, p2).wait();

    let region = cl_buffer_region {
        origin: 1024 * 4,
        size: 1024 * 4,
    };
    // SAFETY: valid buffer and region.
    let sub = unsafe {
        clCreateSubBuffer(
            mem,
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut status,
        )
    };
    check(status, "clCreateSubBuffer");
    let k = cl.kernel(
        "kernel void f(global uint* o) { o[get_global_id(0)] ^= 0xFFu; }",
        "f",
    );
    set_mem_arg(&k, sub);
    cl.queue.run(&k, &[1024], None);
    let (whole, _) = map(&cl, mem, true, CL_MAP_READ, 0, n);
    let (part, _) = map(&cl, sub, true, CL_MAP_READ, 0, 1024);
    // SAFETY: pointer arithmetic inside the whole-buffer mapping.
    assert_eq!(
        part,
        unsafe { whole.add(1024) },
        "sub-buffer maps at its origin"
    );
    let mut want = data.clone();
    want[100..300].fill(7);
    for v in &mut want[1024..2048] {
        *v ^= 0xFF;
    }
    // SAFETY: completed blocking maps.
    unsafe {
        assert_same("whole", view(whole, n), &want);
        assert_same("sub-buffer", view(part, 1024), &want[1024..2048]);
    }
    unmap(&cl, sub, part);
    unmap(&cl, mem, whole).wait();
    // SAFETY: we own these references.
    unsafe {
        check(clReleaseMemObject(sub), "clReleaseMemObject");
        check(clReleaseMemObject(mem), "clReleaseMemObject");
    }
}
