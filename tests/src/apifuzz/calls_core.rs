//! Generators for the platform, device, context, command-queue, event,
//! marker/barrier and flush/finish entry points. Each makes one call with
//! generated arguments and records its code (`G::rec`).
//!
//! SAFETY (every unsafe block here): handles are NULL, live pool or
//! thread objects, released handles kept alive by another object, or the
//! forged handle (all readable as an object header); pointers are NULL or
//! point into the thread's scratch, its wait-list vector or locals, each
//! large enough for what a valid call may write or read.

use std::ffi::c_void;
use std::ptr;

use opencl_sys::*;

use super::gen::{noop_context, noop_event, noop_notify, Kind, G};

// OpenCL 1.0's, deprecated in 1.1 (opencl-sys does not declare it); the
// loader exports it.
#[link(name = "OpenCL")]
extern "C" {
    fn clSetCommandQueueProperty(
        q: cl_command_queue,
        properties: cl_command_queue_properties,
        enable: cl_bool,
        old: *mut cl_command_queue_properties,
    ) -> cl_int;
    // OpenCL 1.0's, deprecated in 1.2.
    fn clUnloadCompiler() -> cl_int;
}

pub fn get_platform_ids(g: &mut G) {
    let n = g.pick(&[0, 1, 4]);
    let out = if g.chance(20) {
        ptr::null_mut()
    } else {
        g.host(false).cast()
    };
    let mut num = 0;
    let num_p: *mut cl_uint = if g.chance(30) {
        ptr::null_mut()
    } else {
        &mut num
    };
    let code = unsafe { clGetPlatformIDs(n, out, num_p) };
    g.rec("clGetPlatformIDs", code);
}

pub fn get_platform_info(g: &mut G) {
    let p = g.platform();
    let param = g.param(0x0900, 12);
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetPlatformInfo(p, param, s, v, r) };
    g.rec("clGetPlatformInfo", code);
}

pub fn get_device_ids(g: &mut G) {
    let p = g.platform();
    let t = g.flags(&[
        CL_DEVICE_TYPE_ALL,
        CL_DEVICE_TYPE_GPU,
        CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_DEFAULT,
        CL_DEVICE_TYPE_ACCELERATOR,
        CL_DEVICE_TYPE_CUSTOM,
    ]);
    let n = g.pick(&[0, 1, 8]);
    let out = if g.chance(20) {
        ptr::null_mut()
    } else {
        g.host(false).cast()
    };
    let mut num = 0;
    let num_p: *mut cl_uint = if g.chance(30) {
        ptr::null_mut()
    } else {
        &mut num
    };
    let code = unsafe { clGetDeviceIDs(p, t, n, out, num_p) };
    g.rec("clGetDeviceIDs", code);
}

pub fn get_device_info(g: &mut G) {
    let d = g.device();
    let param = if g.chance(85) {
        g.param(0x1000, 0x80)
    } else {
        g.param(0x4000, 0x4300)
    };
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetDeviceInfo(d, param, s, v, r) };
    g.rec("clGetDeviceInfo", code);
}

pub fn create_sub_devices(g: &mut G) {
    let d = g.device();
    let props: Vec<isize> = match g.below(6) {
        0 => vec![CL_DEVICE_PARTITION_EQUALLY, 1, 0],
        1 => vec![CL_DEVICE_PARTITION_BY_COUNTS, 1, 1, 0, 0],
        2 => vec![
            CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
            CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE as isize,
            0,
        ],
        3 => vec![0x7777, 1, 0],
        4 => vec![CL_DEVICE_PARTITION_EQUALLY, 0, 0],
        _ => Vec::new(),
    };
    let pp = if props.is_empty() {
        ptr::null()
    } else {
        props.as_ptr()
    };
    let n = g.pick(&[0u32, 1, 4]);
    let mut out = [ptr::null_mut(); 4];
    let op = if g.chance(30) {
        ptr::null_mut()
    } else {
        out.as_mut_ptr()
    };
    let mut num = 0;
    let code = unsafe { clCreateSubDevices(d, pp, n, op, &mut num) };
    g.rec("clCreateSubDevices", code);
    if code == CL_SUCCESS && !op.is_null() {
        for s in out.iter().take(n.min(num) as usize) {
            let c = unsafe { clReleaseDevice(*s) };
            g.rec("clReleaseDevice", c);
        }
    }
}

/// A clRetain* or clRelease*, on an untyped handle.
type RefFn = fn(*mut c_void) -> cl_int;

/// clRetain*/clRelease* of `kind`: a retain and a release of a valid
/// handle (the count stays as it was), or either of an invalid one.
pub fn retain_release(g: &mut G, kind: Kind) {
    let h = g.h(kind);
    let valid = ptr::eq(h, g.pool.context.cast())
        || ptr::eq(h, g.pool.context2.cast())
        || !g.pool.dead.contains(&h) && !h.is_null() && !ptr::eq(h, g.pool.forged());
    let is_kind = valid && kind_of(g, h) == Some(kind);
    let (retain, release): (RefFn, RefFn) = match kind {
        Kind::Context => (
            |h| unsafe { clRetainContext(h.cast()) },
            |h| unsafe { clReleaseContext(h.cast()) },
        ),
        Kind::Queue => (
            |h| unsafe { clRetainCommandQueue(h.cast()) },
            |h| unsafe { clReleaseCommandQueue(h.cast()) },
        ),
        Kind::Mem | Kind::Image => (
            |h| unsafe { clRetainMemObject(h.cast()) },
            |h| unsafe { clReleaseMemObject(h.cast()) },
        ),
        Kind::Sampler => (
            |h| unsafe { clRetainSampler(h.cast()) },
            |h| unsafe { clReleaseSampler(h.cast()) },
        ),
        Kind::Program => (
            |h| unsafe { clRetainProgram(h.cast()) },
            |h| unsafe { clReleaseProgram(h.cast()) },
        ),
        Kind::Kernel => (
            |h| unsafe { clRetainKernel(h.cast()) },
            |h| unsafe { clReleaseKernel(h.cast()) },
        ),
        Kind::Event => (
            |h| unsafe { clRetainEvent(h.cast()) },
            |h| unsafe { clReleaseEvent(h.cast()) },
        ),
        Kind::Device | Kind::Platform => (
            |h| unsafe { clRetainDevice(h.cast()) },
            |h| unsafe { clReleaseDevice(h.cast()) },
        ),
    };
    let names = match kind {
        Kind::Context => ("clRetainContext", "clReleaseContext"),
        Kind::Queue => ("clRetainCommandQueue", "clReleaseCommandQueue"),
        Kind::Mem | Kind::Image => ("clRetainMemObject", "clReleaseMemObject"),
        Kind::Sampler => ("clRetainSampler", "clReleaseSampler"),
        Kind::Program => ("clRetainProgram", "clReleaseProgram"),
        Kind::Kernel => ("clRetainKernel", "clReleaseKernel"),
        Kind::Event => ("clRetainEvent", "clReleaseEvent"),
        Kind::Device | Kind::Platform => ("clRetainDevice", "clReleaseDevice"),
    };
    if is_kind || kind == Kind::Device {
        let c = retain(h);
        g.rec(names.0, c);
        if c == CL_SUCCESS {
            let c = release(h);
            g.rec(names.1, c);
        }
    } else if g.chance(50) {
        let c = retain(h);
        g.rec(names.0, c);
        if c == CL_SUCCESS {
            g.violation(names.0);
            let c = release(h);
            g.rec(names.1, c);
        }
    } else {
        let c = release(h);
        g.rec(names.1, c);
        if c == CL_SUCCESS {
            g.violation(names.1);
            let c = retain(h);
            g.rec(names.0, c);
        }
    }
}

/// The kind of a live pool or thread handle.
fn kind_of(g: &G, h: *mut c_void) -> Option<Kind> {
    let p = g.pool;
    let is = |x: *mut c_void| ptr::eq(h, x);
    if is(p.context.cast()) || is(p.context2.cast()) {
        Some(Kind::Context)
    } else if is(p.queue.cast()) || is(p.queue_ooo.cast()) || is(p.queue2.cast()) {
        Some(Kind::Queue)
    } else if p.buffers.iter().any(|b| is(b.cast())) || is(p.buffer2.cast()) || is(p.image.cast()) {
        Some(Kind::Mem)
    } else if is(p.sampler.cast()) && p.has_images {
        Some(Kind::Sampler)
    } else if is(p.program.cast()) || is(p.program_unbuilt.cast()) {
        Some(Kind::Program)
    } else if g.kernels.iter().any(|k| is(k.cast())) {
        Some(Kind::Kernel)
    } else if p.events.iter().chain(g.events.iter()).any(|e| is(e.cast())) {
        Some(Kind::Event)
    } else if is(p.device.cast()) {
        Some(Kind::Device)
    } else {
        None
    }
}

pub fn get_device_and_host_timer(g: &mut G) {
    let d = g.device();
    let mut a = 0u64;
    let mut b = 0u64;
    let pa: *mut u64 = if g.chance(15) {
        ptr::null_mut()
    } else {
        &mut a
    };
    let pb: *mut u64 = if g.chance(15) {
        ptr::null_mut()
    } else {
        &mut b
    };
    if g.chance(50) {
        let code = unsafe { clGetDeviceAndHostTimer(d, pa, pb) };
        g.rec("clGetDeviceAndHostTimer", code);
    } else {
        let code = unsafe { clGetHostTimer(d, pb) };
        g.rec("clGetHostTimer", code);
    }
}

/// A context property list, valid or malformed.
fn context_props(g: &mut G) -> Vec<isize> {
    let p = g.platform() as isize;
    match g.below(7) {
        0 | 1 => Vec::new(),
        2 => vec![CL_CONTEXT_PLATFORM, p, 0],
        3 => vec![CL_CONTEXT_PLATFORM, p, CL_CONTEXT_PLATFORM, p, 0],
        4 => vec![0x7fff, 1, 0],
        5 => vec![CL_CONTEXT_INTEROP_USER_SYNC, g.pick(&[0, 1, 7]), 0],
        _ => vec![CL_CONTEXT_PLATFORM, g.pool.context as isize, 0],
    }
}

pub fn create_context(g: &mut G) {
    let props = context_props(g);
    let pp = if props.is_empty() {
        ptr::null()
    } else {
        props.as_ptr()
    };
    let devs = [
        g.pool.device,
        if g.chance(20) {
            g.h(Kind::Queue).cast()
        } else {
            g.pool.device
        },
    ];
    let n = g.pick(&[0u32, 1, 1, 1, 2]);
    let dp = if g.chance(8) {
        ptr::null()
    } else {
        devs.as_ptr()
    };
    let notify = if g.chance(50) {
        Some(noop_notify as _)
    } else {
        None
    };
    let ud: *mut c_void = if g.chance(20) {
        g.host(false)
    } else {
        ptr::null_mut()
    };
    let mut e = 0;
    let c = unsafe { clCreateContext(pp, n, dp, notify, ud, &mut e) };
    if g.rec_obj("clCreateContext", e, c.cast()) {
        release_context(g, c);
    }
}

fn release_context(g: &mut G, c: cl_context) {
    if g.chance(30) {
        let code =
            unsafe { clSetContextDestructorCallback(c, Some(noop_context), ptr::null_mut()) };
        g.rec("clSetContextDestructorCallback", code);
    }
    let code = unsafe { clReleaseContext(c) };
    g.rec("clReleaseContext", code);
}

pub fn create_context_from_type(g: &mut G) {
    let mut props = context_props(g);
    if props.is_empty() && g.chance(80) {
        // Without a platform the loader picks one: make it ferrocl.
        props = vec![CL_CONTEXT_PLATFORM, g.pool.platform as isize, 0];
    }
    let t = g.flags(&[
        CL_DEVICE_TYPE_ALL,
        CL_DEVICE_TYPE_GPU,
        CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_DEFAULT,
    ]);
    let notify = if g.chance(50) {
        Some(noop_notify as _)
    } else {
        None
    };
    let pp = if props.is_empty() {
        ptr::null()
    } else {
        props.as_ptr()
    };
    let mut e = 0;
    let c = unsafe { clCreateContextFromType(pp, t, notify, ptr::null_mut(), &mut e) };
    if g.rec_obj("clCreateContextFromType", e, c.cast()) {
        release_context(g, c);
    }
}

pub fn get_context_info(g: &mut G) {
    let c = g.ctx();
    let param = g.param(0x1080, 8);
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetContextInfo(c, param, s, v, r) };
    g.rec("clGetContextInfo", code);
}

pub fn set_context_destructor_callback(g: &mut G) {
    // On the forged, NULL or a released handle only: a callback on a pool
    // context would run at its release, harmlessly, but nothing to check.
    let c = match g.below(3) {
        0 => ptr::null_mut(),
        1 => g.pool.forged().cast(),
        _ => g.pool.dead[0].cast(),
    };
    let f = if g.chance(50) {
        Some(noop_context as _)
    } else {
        None
    };
    let code = unsafe { clSetContextDestructorCallback(c, f, ptr::null_mut()) };
    g.rec("clSetContextDestructorCallback", code);
}

fn queue_props(g: &mut G) -> Vec<u64> {
    let bits = g.flags(&[
        0,
        CL_QUEUE_PROFILING_ENABLE,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
    ]);
    match g.below(6) {
        0 => Vec::new(),
        1 | 2 => vec![CL_QUEUE_PROPERTIES as u64, bits, 0],
        3 => vec![CL_QUEUE_SIZE as u64, g.pick(&[0, 16, 1 << 30]), 0],
        4 => vec![
            CL_QUEUE_PROPERTIES as u64,
            0,
            CL_QUEUE_PROPERTIES as u64,
            0,
            0,
        ],
        _ => vec![0x7777, 1, 0],
    }
}

pub fn create_command_queue_with_properties(g: &mut G) {
    let c = g.ctx();
    let d = g.device();
    let props = queue_props(g);
    let pp = if props.is_empty() {
        ptr::null()
    } else {
        props.as_ptr()
    };
    let mut e = 0;
    let q = unsafe { clCreateCommandQueueWithProperties(c, d, pp, &mut e) };
    if g.rec_obj("clCreateCommandQueueWithProperties", e, q.cast()) {
        let code = unsafe { clReleaseCommandQueue(q) };
        g.rec("clReleaseCommandQueue", code);
    }
}

pub fn create_command_queue(g: &mut G) {
    let c = g.ctx();
    let d = g.device();
    let bits = g.flags(&[
        0,
        CL_QUEUE_PROFILING_ENABLE,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
    ]);
    let mut e = 0;
    let q = unsafe { clCreateCommandQueue(c, d, bits, &mut e) };
    if g.rec_obj("clCreateCommandQueue", e, q.cast()) {
        let code = unsafe { clReleaseCommandQueue(q) };
        g.rec("clReleaseCommandQueue", code);
    }
}

pub fn get_command_queue_info(g: &mut G) {
    let q = g.queue();
    let param = g.param(0x1090, 12);
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetCommandQueueInfo(q, param, s, v, r) };
    g.rec("clGetCommandQueueInfo", code);
}

pub fn set_command_queue_property(g: &mut G) {
    // On a queue of its own: a change would reach other threads' commands.
    let c = g.pool.context;
    let mut e = 0;
    let q = unsafe { clCreateCommandQueueWithProperties(c, g.pool.device, ptr::null(), &mut e) };
    if !g.rec_obj("clCreateCommandQueueWithProperties", e, q.cast()) {
        return;
    }
    let target = if g.chance(80) { q } else { g.queue() };
    let bits = g.flags(&[
        CL_QUEUE_PROFILING_ENABLE,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
    ]);
    let mut old = 0u64;
    let op: *mut u64 = if g.chance(50) {
        &mut old
    } else {
        ptr::null_mut()
    };
    let code = if ptr::eq(target, q) || target.is_null() || !g.pool_queue(target) {
        unsafe { clSetCommandQueueProperty(target, bits, CL_FALSE, op) }
    } else {
        unsafe { clSetCommandQueueProperty(q, bits, CL_FALSE, op) }
    };
    g.rec("clSetCommandQueueProperty", code);
    let code = unsafe { clReleaseCommandQueue(q) };
    g.rec("clReleaseCommandQueue", code);
}

pub fn flush_finish(g: &mut G) {
    let q = g.queue();
    if g.chance(50) {
        let code = unsafe { clFlush(q) };
        g.rec("clFlush", code);
    } else {
        let code = unsafe { clFinish(q) };
        g.rec("clFinish", code);
    }
}

pub fn wait_for_events(g: &mut G) {
    let (n, l) = g.wait_list();
    let code = unsafe { clWaitForEvents(n, l) };
    g.rec("clWaitForEvents", code);
}

pub fn get_event_info(g: &mut G) {
    let e = g.event();
    let param = g.param(0x11D0, 8);
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetEventInfo(e, param, s, v, r) };
    g.rec("clGetEventInfo", code);
}

pub fn get_event_profiling_info(g: &mut G) {
    let e = g.event();
    let param = g.param(0x1280, 6);
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetEventProfilingInfo(e, param, s, v, r) };
    g.rec("clGetEventProfilingInfo", code);
}

pub fn user_event(g: &mut G) {
    let c = g.ctx();
    let mut e = 0;
    let ev = unsafe { clCreateUserEvent(c, &mut e) };
    if !g.rec_obj("clCreateUserEvent", e, ev.cast()) {
        // And on the pool's (complete) user event or a bad one.
        let target = if g.chance(50) {
            g.pool.events[0]
        } else {
            g.event()
        };
        let status = g.pick(&[CL_COMPLETE, -5, CL_RUNNING, 7]);
        let code = unsafe { clSetUserEventStatus(target, status) };
        g.rec("clSetUserEventStatus", code);
        return;
    }
    if g.chance(30) {
        let code =
            unsafe { clSetEventCallback(ev, CL_COMPLETE, Some(noop_event), ptr::null_mut()) };
        g.rec("clSetEventCallback", code);
    }
    // Always ends complete or failed: later wait lists may name it.
    let status = g.pick(&[CL_COMPLETE, CL_COMPLETE, -5, CL_RUNNING, 7]);
    let code = unsafe { clSetUserEventStatus(ev, status) };
    g.rec("clSetUserEventStatus", code);
    if code != CL_SUCCESS {
        let code = unsafe { clSetUserEventStatus(ev, CL_COMPLETE) };
        g.rec("clSetUserEventStatus", code);
    }
    g.ev = ev;
    g.keep_event();
}

pub fn set_event_callback(g: &mut G) {
    let e = g.event();
    let t = g.pick(&[CL_COMPLETE, CL_SUBMITTED, CL_RUNNING, CL_QUEUED, -1, 9]);
    let f = if g.chance(85) {
        Some(noop_event as _)
    } else {
        None
    };
    let code = unsafe { clSetEventCallback(e, t, f, ptr::null_mut()) };
    g.rec("clSetEventCallback", code);
}

pub fn marker_barrier(g: &mut G) {
    let q = g.queue();
    match g.below(5) {
        0 => {
            let (n, l) = g.wait_list();
            let ev = g.ev_out();
            let code = unsafe { clEnqueueMarkerWithWaitList(q, n, l, ev) };
            g.rec("clEnqueueMarkerWithWaitList", code);
        }
        1 => {
            let (n, l) = g.wait_list();
            let ev = g.ev_out();
            let code = unsafe { clEnqueueBarrierWithWaitList(q, n, l, ev) };
            g.rec("clEnqueueBarrierWithWaitList", code);
        }
        2 => {
            let ev = g.ev_out();
            let code = unsafe { clEnqueueMarker(q, ev) };
            g.rec("clEnqueueMarker", code);
        }
        3 => {
            let code = unsafe { clEnqueueBarrier(q) };
            g.rec("clEnqueueBarrier", code);
        }
        _ => {
            let (n, l) = g.wait_list();
            let code = unsafe { clEnqueueWaitForEvents(q, n, l.cast_mut()) };
            g.rec("clEnqueueWaitForEvents", code);
        }
    }
    g.keep_event();
}

pub fn get_extension_function_address(g: &mut G) {
    let names = [
        c"clCreateCommandBufferKHR",
        c"clNoSuchFunction",
        c"clGetKernelSuggestedLocalWorkSizeKHR",
        c"",
    ];
    let name = g.pick(&names);
    // ferrocl's platform: with NULL the loader answers alone.
    let p = g.pool.platform;
    let np = if g.chance(10) {
        ptr::null()
    } else {
        name.as_ptr()
    };
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(p, np) };
    // No code: NULL for an unknown or NULL name, else the function.
    let bytes = name.to_bytes();
    let expect =
        !np.is_null() && (bytes.starts_with(b"clCreate") || bytes.starts_with(b"clGetKernelS"));
    g.rec(
        "clGetExtensionFunctionAddressForPlatform",
        if f.is_null() == expect { 1 } else { 0 },
    );
}

/// clSetDefaultDeviceCommandQueue (no device-side queues: the spec's
/// code for a device without them) and clUnloadCompiler.
pub fn unsupported(g: &mut G) {
    if g.chance(50) {
        let c = g.ctx();
        let d = g.device();
        let q = g.queue();
        let code = unsafe { clSetDefaultDeviceCommandQueue(c, d, q) };
        g.rec("clSetDefaultDeviceCommandQueue", code);
    } else {
        let code = unsafe { clUnloadCompiler() };
        g.rec("clUnloadCompiler", code);
    }
}
