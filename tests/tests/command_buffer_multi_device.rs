//! cl_khr_command_buffer_multi_device: command buffers over several queues
//! of several devices, sync points between them, enqueue on several
//! queues, remapping (runtime/src/core/command_buffer.rs,
//! runtime/src/core/command_buffer/remap.rs).
//!
//! Like tests/tests/multi_device.rs, this binary runs ferrocl with
//! `FERROCL_DEVICE_REPLICAS=2` (each Vulkan device exposed twice, as two
//! CL devices with their own VkDevice and memory), set before the first
//! OpenCL call of the process ([`devices`]); hence its own test binary.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::events::Event;
use ferrocl_tests::ext_fn;
use ferrocl_tests::info::{device_info, platform_info, query, query_value, two_replicated_devices};
use ferrocl_tests::pod::zeroed_vec;
use ferrocl_tests::sys::*;
use ferrocl_tests::{
    assert_same, check, expect_error, platform, Buffer, Context, Kernel, Pod, Queue,
};

/// The first two devices of the platform under test, with
/// `FERROCL_DEVICE_REPLICAS=2` in effect.
fn devices() -> Vec<cl_device_id> {
    two_replicated_devices(&[])
}

/// The platform's cl_khr_command_buffer_multi_device entry points and
/// those of cl_khr_command_buffer it uses.
struct Ext {
    create: clCreateCommandBufferKHR_t,
    release: clReleaseCommandBufferKHR_t,
    finalize: clFinalizeCommandBufferKHR_t,
    enqueue: clEnqueueCommandBufferKHR_t,
    info: clGetCommandBufferInfoKHR_t,
    barrier: clCommandBarrierWithWaitListKHR_t,
    copy: clCommandCopyBufferKHR_t,
    ndrange: clCommandNDRangeKernelKHR_t,
    command_info: clGetMutableCommandInfoKHR_t,
    update: clUpdateMutableCommandsKHR_t,
    remap: clRemapCommandBufferKHR_t,
}

impl Ext {
    fn load() -> Ext {
        Ext {
            create: ext_fn!("clCreateCommandBufferKHR", clCreateCommandBufferKHR_t),
            release: ext_fn!("clReleaseCommandBufferKHR", clReleaseCommandBufferKHR_t),
            finalize: ext_fn!("clFinalizeCommandBufferKHR", clFinalizeCommandBufferKHR_t),
            enqueue: ext_fn!("clEnqueueCommandBufferKHR", clEnqueueCommandBufferKHR_t),
            info: ext_fn!("clGetCommandBufferInfoKHR", clGetCommandBufferInfoKHR_t),
            barrier: ext_fn!(
                "clCommandBarrierWithWaitListKHR",
                clCommandBarrierWithWaitListKHR_t
            ),
            copy: ext_fn!("clCommandCopyBufferKHR", clCommandCopyBufferKHR_t),
            ndrange: ext_fn!("clCommandNDRangeKernelKHR", clCommandNDRangeKernelKHR_t),
            command_info: ext_fn!("clGetMutableCommandInfoKHR", clGetMutableCommandInfoKHR_t),
            update: ext_fn!("clUpdateMutableCommandsKHR", clUpdateMutableCommandsKHR_t),
            remap: ext_fn!("clRemapCommandBufferKHR", clRemapCommandBufferKHR_t),
        }
    }

    /// clCreateCommandBufferKHR over `queues` with `props` (0-terminated,
    /// or empty for NULL).
    fn try_create(
        &self,
        queues: &[cl_command_queue],
        props: &[cl_command_buffer_properties_khr],
    ) -> Result<Cmdbuf<'_>, cl_int> {
        let mut status = CL_SUCCESS;
        let p = if props.is_empty() {
            ptr::null()
        } else {
            props.as_ptr()
        };
        // SAFETY: `queues` holds its count; a 0-terminated list or NULL.
        let raw = unsafe {
            (self.create.unwrap())(queues.len() as cl_uint, queues.as_ptr(), p, &mut status)
        };
        if status != CL_SUCCESS {
            assert!(raw.is_null(), "a failed create returns NULL");
            return Err(status);
        }
        Ok(Cmdbuf { ext: self, raw })
    }

    fn create(&self, queues: &[cl_command_queue]) -> Cmdbuf<'_> {
        self.try_create(queues, &[])
            .unwrap_or_else(|e| panic!("clCreateCommandBufferKHR: {e}"))
    }

    /// clRemapCommandBufferKHR of `cb` onto `queues`, asking for the
    /// counterparts of `handles`.
    fn try_remap(
        &self,
        cb: &Cmdbuf,
        automatic: bool,
        queues: &[cl_command_queue],
        handles: &[cl_mutable_command_khr],
    ) -> Result<(Cmdbuf<'_>, Vec<cl_mutable_command_khr>), cl_int> {
        let mut status = CL_SUCCESS;
        let mut out = vec![ptr::null_mut(); handles.len()];
        let (h, o) = if handles.is_empty() {
            (ptr::null(), ptr::null_mut())
        } else {
            (handles.as_ptr(), out.as_mut_ptr())
        };
        // SAFETY: lists holding their counts.
        let raw = unsafe {
            (self.remap.unwrap())(
                cb.raw,
                if automatic { CL_TRUE } else { CL_FALSE },
                queues.len() as cl_uint,
                queues.as_ptr(),
                handles.len() as cl_uint,
                h,
                o,
                &mut status,
            )
        };
        if status != CL_SUCCESS {
            assert!(raw.is_null(), "a failed remap returns NULL");
            assert!(out.iter().all(|p| p.is_null()), "no handles on failure");
            return Err(status);
        }
        Ok((Cmdbuf { ext: self, raw }, out))
    }

    /// The queue a mutable command was recorded to.
    fn command_queue(&self, c: cl_mutable_command_khr) -> cl_command_queue {
        let mut q: cl_command_queue = ptr::null_mut();
        // SAFETY: a valid command handle, a pointer-sized out value.
        let s = unsafe {
            (self.command_info.unwrap())(
                c,
                CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR,
                std::mem::size_of::<cl_command_queue>(),
                (&mut q as *mut cl_command_queue).cast(),
                ptr::null_mut(),
            )
        };
        check(s, "clGetMutableCommandInfoKHR(COMMAND_QUEUE)");
        q
    }
}

struct Cmdbuf<'a> {
    ext: &'a Ext,
    raw: cl_command_buffer_khr,
}

impl Drop for Cmdbuf<'_> {
    fn drop(&mut self) {
        // SAFETY: our reference.
        let s = unsafe { (self.ext.release.unwrap())(self.raw) };
        if !std::thread::panicking() {
            assert_eq!(s, CL_SUCCESS, "clReleaseCommandBufferKHR");
        }
    }
}

/// `waits` as clCommand*'s pointer (NULL when empty).
fn sync_list(waits: &[cl_sync_point_khr]) -> *const cl_sync_point_khr {
    if waits.is_empty() {
        ptr::null()
    } else {
        waits.as_ptr()
    }
}

impl Cmdbuf<'_> {
    /// A 1-D kernel command of `n` work-items on `q`; its sync point and
    /// handle.
    fn try_kernel(
        &self,
        q: cl_command_queue,
        k: &Kernel,
        n: usize,
        waits: &[cl_sync_point_khr],
    ) -> Result<(cl_sync_point_khr, cl_mutable_command_khr), cl_int> {
        let (mut sp, mut handle) = (0, ptr::null_mut());
        // SAFETY: valid objects, `waits` holds its count.
        let s = unsafe {
            (self.ext.ndrange.unwrap())(
                self.raw,
                q,
                ptr::null(),
                k.raw(),
                1,
                ptr::null(),
                &n,
                ptr::null(),
                waits.len() as cl_uint,
                sync_list(waits),
                &mut sp,
                &mut handle,
            )
        };
        if s == CL_SUCCESS {
            Ok((sp, handle))
        } else {
            Err(s)
        }
    }

    fn kernel(
        &self,
        q: cl_command_queue,
        k: &Kernel,
        n: usize,
        waits: &[cl_sync_point_khr],
    ) -> (cl_sync_point_khr, cl_mutable_command_khr) {
        self.try_kernel(q, k, n, waits)
            .unwrap_or_else(|e| panic!("clCommandNDRangeKernelKHR: {e}"))
    }

    /// A copy of `bytes` bytes from `src` to `dst` on `q`; its sync point.
    fn copy<T: Pod>(
        &self,
        q: cl_command_queue,
        src: &Buffer<T>,
        dst: &Buffer<T>,
        bytes: usize,
        waits: &[cl_sync_point_khr],
    ) -> cl_sync_point_khr {
        let mut sp = 0;
        // SAFETY: valid objects, `waits` holds its count.
        let s = unsafe {
            (self.ext.copy.unwrap())(
                self.raw,
                q,
                ptr::null(),
                src.raw(),
                dst.raw(),
                0,
                0,
                bytes,
                waits.len() as cl_uint,
                sync_list(waits),
                &mut sp,
                ptr::null_mut(),
            )
        };
        check(s, "clCommandCopyBufferKHR");
        sp
    }

    fn finalize(&self) {
        // SAFETY: a valid command buffer.
        check(
            unsafe { (self.ext.finalize.unwrap())(self.raw) },
            "clFinalizeCommandBufferKHR",
        );
    }

    /// clEnqueueCommandBufferKHR on `queues` (empty: the recording ones)
    /// after `waits`; its event.
    fn try_enqueue(
        &self,
        queues: &[cl_command_queue],
        waits: &[cl_event],
    ) -> Result<Event, cl_int> {
        let mut qs = queues.to_vec();
        let mut e = ptr::null_mut();
        // SAFETY: valid objects; each list holds its count.
        let s = unsafe {
            (self.ext.enqueue.unwrap())(
                qs.len() as cl_uint,
                if qs.is_empty() {
                    ptr::null_mut()
                } else {
                    qs.as_mut_ptr()
                },
                self.raw,
                waits.len() as cl_uint,
                if waits.is_empty() {
                    ptr::null()
                } else {
                    waits.as_ptr()
                },
                &mut e,
            )
        };
        if s == CL_SUCCESS {
            Ok(Event(e))
        } else {
            Err(s)
        }
    }

    fn enqueue(&self, queues: &[cl_command_queue], waits: &[cl_event]) -> Event {
        self.try_enqueue(queues, waits)
            .unwrap_or_else(|e| panic!("clEnqueueCommandBufferKHR: {e}"))
    }

    fn info<T: Pod>(&self, param: cl_command_buffer_info_khr) -> Vec<T> {
        let mut size = 0;
        // SAFETY: a size query.
        let s = unsafe { (self.ext.info.unwrap())(self.raw, param, 0, ptr::null_mut(), &mut size) };
        check(s, "clGetCommandBufferInfoKHR(size)");
        let mut v: Vec<T> = zeroed_vec(size / std::mem::size_of::<T>());
        // SAFETY: `size` bytes of room.
        let s = unsafe {
            (self.ext.info.unwrap())(
                self.raw,
                param,
                size,
                v.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        };
        check(s, "clGetCommandBufferInfoKHR");
        v
    }

    fn state(&self) -> cl_command_buffer_state_khr {
        self.info::<cl_command_buffer_state_khr>(CL_COMMAND_BUFFER_STATE_KHR)[0]
    }
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

const KERNELS: &str = "
kernel void step(global uint* a) {
    uint i = get_global_id(0);
    a[i] = a[i] * 3u + 1u;
}
kernel void consume(global const uint* a, global uint* b) {
    uint i = get_global_id(0);
    b[i] = b[i] + (a[i] ^ 0x55u);
}
";

const N: usize = 2048;

fn initial() -> (Vec<u32>, Vec<u32>) {
    let a = (0..N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let b = (0..N as u32).map(|i| i * 7).collect();
    (a, b)
}

/// The CPU reference of `replays` replays of the pipeline [`pipeline`]
/// records: step on a, consume of a into b, copy of b into c.
fn reference(replays: usize) -> (Vec<u32>, Vec<u32>) {
    let (mut a, mut b) = initial();
    for _ in 0..replays {
        for x in a.iter_mut() {
            *x = x.wrapping_mul(3).wrapping_add(1);
        }
        for (y, x) in b.iter_mut().zip(&a) {
            *y = y.wrapping_add(*x ^ 0x55);
        }
    }
    (a, b)
}

/// The buffers of the pipeline, with [`initial`] contents written on
/// device 0.
struct Data {
    a: Buffer<u32>,
    b: Buffer<u32>,
    c: Buffer<u32>,
}

fn data(t: &Two) -> Data {
    let (a0, b0) = initial();
    let d = Data {
        a: t.context.buffer(N),
        b: t.context.buffer(N),
        c: t.context.buffer(N),
    };
    t.q0.write(&d.a, 0, &a0);
    t.q0.write(&d.b, 0, &b0);
    t.q0.write(&d.c, 0, &vec![0u32; N]);
    t.q0.finish();
    d
}

/// Records into `cb`: `step(a)` on `qa`; `consume(a, b)` on `qb` after
/// it (a sync point across the queues); a copy of b into c on `qa` after
/// that. Returns the two kernel commands' handles.
fn pipeline(
    cb: &Cmdbuf,
    qa: cl_command_queue,
    qb: cl_command_queue,
    step: &Kernel,
    consume: &Kernel,
    d: &Data,
) -> [cl_mutable_command_khr; 2] {
    step.arg(0, &d.a);
    consume.arg(0, &d.a).arg(1, &d.b);
    let (s1, h1) = cb.kernel(qa, step, N, &[]);
    let (s2, h2) = cb.kernel(qb, consume, N, &[s1]);
    cb.copy(qa, &d.b, &d.c, N * 4, &[s2]);
    [h1, h2]
}

/// Reads a, b and c on both devices and checks them against `replays`
/// replays of the reference (c: zeros before the first).
fn check_data(t: &Two, d: &Data, replays: usize, what: &str) {
    let (a, b) = reference(replays);
    let c = if replays == 0 { vec![0; N] } else { b.clone() };
    for (q, dev) in [(&t.q0, 0), (&t.q1, 1)] {
        assert_same(&format!("{what}: a on device {dev}"), &q.read(&d.a), &a);
        assert_same(&format!("{what}: b on device {dev}"), &q.read(&d.b), &b);
        assert_same(&format!("{what}: c on device {dev}"), &q.read(&d.c), &c);
    }
}

fn event_queue(e: &Event) -> cl_command_queue {
    let mut q: cl_command_queue = ptr::null_mut();
    // SAFETY: a valid event, a pointer-sized out value.
    let s = unsafe {
        clGetEventInfo(
            e.0,
            CL_EVENT_COMMAND_QUEUE,
            std::mem::size_of::<cl_command_queue>(),
            (&mut q as *mut cl_command_queue).cast(),
            ptr::null_mut(),
        )
    };
    check(s, "clGetEventInfo(COMMAND_QUEUE)");
    q
}

fn event_type(e: &Event) -> cl_command_type {
    let mut t: cl_command_type = 0;
    // SAFETY: a valid event, a cl_command_type-sized out value.
    let s = unsafe {
        clGetEventInfo(
            e.0,
            CL_EVENT_COMMAND_TYPE,
            std::mem::size_of::<cl_command_type>(),
            (&mut t as *mut cl_command_type).cast(),
            ptr::null_mut(),
        )
    };
    check(s, "clGetEventInfo(COMMAND_TYPE)");
    t
}

fn profiling(e: &Event, param: cl_profiling_info) -> Result<u64, cl_int> {
    let mut v: u64 = 0;
    // SAFETY: a valid event, a u64 out value.
    let s = unsafe {
        clGetEventProfilingInfo(e.0, param, 8, (&mut v as *mut u64).cast(), ptr::null_mut())
    };
    if s == CL_SUCCESS {
        Ok(v)
    } else {
        Err(s)
    }
}

#[test]
fn extension_and_queries() {
    let devs = devices();
    let want = (9 << 12) | 1;
    for d in &devs {
        let list: Vec<cl_name_version> =
            query(device_info(*d, CL_DEVICE_EXTENSIONS_WITH_VERSION)).expect("extensions");
        let version = list.iter().find_map(|nv| {
            // SAFETY: NUL-terminated within the fixed array.
            let name = unsafe { std::ffi::CStr::from_ptr(nv.name.as_ptr().cast()) };
            (name.to_bytes() == b"cl_khr_command_buffer_multi_device").then_some(nv.version)
        });
        assert_eq!(
            version,
            Some(want),
            "cl_khr_command_buffer_multi_device 0.9.1"
        );
        let caps: u64 =
            query_value(device_info(*d, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR)).unwrap();
        assert_ne!(caps & CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR, 0);
        // No device-side sync with any device: sync across queues is the
        // platform's universal sync.
        let n: cl_uint = query_value(device_info(
            *d,
            CL_DEVICE_COMMAND_BUFFER_NUM_SYNC_DEVICES_KHR,
        ))
        .unwrap();
        assert_eq!(n, 0);
        let list: Vec<cl_device_id> =
            query(device_info(*d, CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR)).unwrap();
        assert!(list.is_empty());
    }
    let caps: u64 = query_value(platform_info(
        platform(),
        CL_PLATFORM_COMMAND_BUFFER_CAPABILITIES_KHR,
    ))
    .unwrap();
    assert_eq!(
        caps,
        CL_COMMAND_BUFFER_PLATFORM_UNIVERSAL_SYNC_KHR
            | CL_COMMAND_BUFFER_PLATFORM_REMAP_QUEUES_KHR
            | CL_COMMAND_BUFFER_PLATFORM_AUTOMATIC_REMAP_KHR
    );
}

/// A kernel on device 1 consumes what a kernel on device 0 produced,
/// through a sync point; replayed several times, with and without an
/// event between replays.
#[test]
fn two_devices_one_command_buffer() {
    let t = two();
    let ext = Ext::load();
    let program = t.context.build_for_all(KERNELS);
    let (step, consume) = (program.kernel("step"), program.kernel("consume"));
    let d = data(&t);
    let cb = ext.create(&[t.q0.raw(), t.q1.raw()]);
    let hs = pipeline(&cb, t.q0.raw(), t.q1.raw(), &step, &consume, &d);
    assert_eq!(ext.command_queue(hs[0]), t.q0.raw());
    assert_eq!(ext.command_queue(hs[1]), t.q1.raw());
    assert_eq!(
        cb.info::<cl_uint>(CL_COMMAND_BUFFER_NUM_QUEUES_KHR),
        vec![2]
    );
    assert_eq!(
        cb.info::<cl_command_queue>(CL_COMMAND_BUFFER_QUEUES_KHR),
        vec![t.q0.raw(), t.q1.raw()]
    );
    cb.finalize();
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    let e = cb.enqueue(&[], &[]);
    e.wait();
    assert_eq!(e.status(), CL_COMPLETE);
    // An enqueue on several queues: an event of no queue.
    assert!(event_queue(&e).is_null(), "CL_EVENT_COMMAND_QUEUE is NULL");
    assert_eq!(event_type(&e), CL_COMMAND_COMMAND_BUFFER_KHR);
    // None of the queues profiles.
    assert_eq!(
        profiling(&e, CL_PROFILING_COMMAND_START),
        Err(CL_PROFILING_INFO_NOT_AVAILABLE)
    );
    check_data(&t, &d, 1, "one replay");
    // Three more: each after the previous one's event, the last given
    // the recording queues explicitly.
    let mut prev = e;
    for i in 0..3 {
        let qs = if i == 2 {
            vec![t.q0.raw(), t.q1.raw()]
        } else {
            Vec::new()
        };
        prev = cb.enqueue(&qs, &[prev.0]);
    }
    prev.wait();
    assert_eq!(prev.status(), CL_COMPLETE);
    check_data(&t, &d, 4, "four replays");
    // Two back to back without events: the copy on q0 follows consume on
    // q1, and q0 is in order, so the next step follows the copy.
    let _e1 = cb.enqueue(&[], &[]);
    let e2 = cb.enqueue(&[], &[]);
    e2.wait();
    t.q1.finish();
    check_data(&t, &d, 6, "six replays");
}

/// Substitute queues with other properties (profiling, out of order) on
/// the same devices; the event's profiling times.
#[test]
fn substitute_queues_and_profiling() {
    let t = two();
    let ext = Ext::load();
    let program = t.context.build_for_all(KERNELS);
    let (step, consume) = (program.kernel("step"), program.kernel("consume"));
    let d = data(&t);
    let cb = ext.create(&[t.q0.raw(), t.q1.raw()]);
    pipeline(&cb, t.q0.raw(), t.q1.raw(), &step, &consume, &d);
    cb.finalize();
    let p0 = t
        .context
        .queue_on_with(t.devices[0], CL_QUEUE_PROFILING_ENABLE);
    let p1 = t
        .context
        .queue_on_with(t.devices[1], CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let e = cb.enqueue(&[p0.raw(), p1.raw()], &[]);
    e.wait();
    assert_eq!(e.status(), CL_COMPLETE);
    check_data(&t, &d, 1, "substitute queues");
    // One of the queues profiles: the host times of the spec's moments,
    // in order.
    let times: Vec<u64> = [
        CL_PROFILING_COMMAND_QUEUED,
        CL_PROFILING_COMMAND_SUBMIT,
        CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END,
        CL_PROFILING_COMMAND_COMPLETE,
    ]
    .iter()
    .map(|&p| profiling(&e, p).expect("profiling info"))
    .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert!(times[0] > 0);
}

/// Remapping: explicit (queues swapped: every command moves to the other
/// device), automatic (all onto one queue), and of a command buffer
/// still recording.
#[test]
fn remap_to_swapped_queues() {
    let t = two();
    let ext = Ext::load();
    let program = t.context.build_for_all(KERNELS);
    let (step, consume) = (program.kernel("step"), program.kernel("consume"));
    let d = data(&t);
    let cb = ext.create(&[t.q0.raw(), t.q1.raw()]);
    let hs = pipeline(&cb, t.q0.raw(), t.q1.raw(), &step, &consume, &d);
    cb.finalize();
    let (swapped, new) = ext
        .try_remap(&cb, false, &[t.q1.raw(), t.q0.raw()], &hs)
        .expect("explicit remap");
    assert_eq!(swapped.state(), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    assert_eq!(
        swapped.info::<cl_command_queue>(CL_COMMAND_BUFFER_QUEUES_KHR),
        vec![t.q1.raw(), t.q0.raw()]
    );
    assert!(new.iter().all(|h| !h.is_null()) && new != hs);
    assert_eq!(
        ext.command_queue(new[0]),
        t.q1.raw(),
        "step moved to device 1"
    );
    assert_eq!(
        ext.command_queue(new[1]),
        t.q0.raw(),
        "consume moved to device 0"
    );
    // The copy is independent of the original: both run, in turn.
    let e = swapped.enqueue(&[], &[]);
    let e = cb.enqueue(&[], &[e.0]);
    let e = swapped.enqueue(&[], &[e.0]);
    e.wait();
    assert_eq!(e.status(), CL_COMPLETE);
    check_data(&t, &d, 3, "original and swapped copy");
    // The swapped copy's queues are the originals' swapped: enqueueing it
    // on the original order is a device mismatch.
    assert_eq!(
        swapped.try_enqueue(&[t.q0.raw(), t.q1.raw()], &[]).err(),
        Some(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR)
    );
    // Automatic, onto one queue of device 1: a single-queue command buffer.
    let (one, _) = ext
        .try_remap(&cb, true, &[t.q1.raw()], &[])
        .expect("automatic remap");
    assert_eq!(
        one.info::<cl_uint>(CL_COMMAND_BUFFER_NUM_QUEUES_KHR),
        vec![1]
    );
    let e = one.enqueue(&[], &[]);
    e.wait();
    assert_eq!(
        event_queue(&e),
        t.q1.raw(),
        "one queue: its event is the queue's"
    );
    check_data(&t, &d, 4, "automatic remap onto one queue");
    // A command buffer still recording: its copy records on.
    let rec = ext.create(&[t.q0.raw(), t.q1.raw()]);
    let (s1, _) = rec.kernel(t.q0.raw(), &step, N, &[]);
    let (copy, _) = ext
        .try_remap(&rec, false, &[t.q1.raw(), t.q0.raw()], &[])
        .expect("remap while recording");
    assert_eq!(copy.state(), CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
    // Sync points keep their numbers: the copy's consume (on q1, the
    // copy's lane 0) waits for its step (on q1 too).
    consume.arg(0, &d.a).arg(1, &d.b);
    copy.kernel(t.q1.raw(), &consume, N, &[s1]);
    copy.finalize();
    let e = copy.enqueue(&[], &[]);
    e.wait();
    assert_eq!(e.status(), CL_COMPLETE);
    let (a, b) = reference(4);
    let a5: Vec<u32> = a
        .iter()
        .map(|x| x.wrapping_mul(3).wrapping_add(1))
        .collect();
    let b5: Vec<u32> = b
        .iter()
        .zip(&a5)
        .map(|(y, x)| y.wrapping_add(x ^ 0x55))
        .collect();
    assert_same("a after the remapped recording", &t.q0.read(&d.a), &a5);
    assert_same("b after the remapped recording", &t.q0.read(&d.b), &b5);
    assert_eq!(rec.state(), CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
}

/// Mutable dispatch of a command of device 1's queue: the update plans
/// and records it on device 1, and the next replay uses the new argument.
#[test]
fn mutable_command_of_the_second_device() {
    let t = two();
    let ext = Ext::load();
    let program = t.context.build_for_all(KERNELS);
    let (step, consume) = (program.kernel("step"), program.kernel("consume"));
    let d = data(&t);
    let props = [
        CL_COMMAND_BUFFER_FLAGS_KHR,
        CL_COMMAND_BUFFER_MUTABLE_KHR,
        0,
    ];
    let cb = ext
        .try_create(&[t.q0.raw(), t.q1.raw()], &props)
        .expect("mutable command buffer");
    let hs = pipeline(&cb, t.q0.raw(), t.q1.raw(), &step, &consume, &d);
    cb.finalize();
    cb.enqueue(&[], &[]).wait();
    check_data(&t, &d, 1, "before the update");
    // consume now adds into b2 (b's initial contents), written on device 1.
    let (_, b0) = initial();
    let b2: Buffer<u32> = t.context.buffer(N);
    t.q1.write(&b2, 0, &b0);
    t.q1.finish();
    let b2raw = b2.raw();
    let arg = cl_mutable_dispatch_arg_khr {
        arg_index: 1,
        arg_size: std::mem::size_of::<cl_mem>(),
        arg_value: (&b2raw as *const cl_mem).cast(),
    };
    let config = cl_mutable_dispatch_config_khr {
        command: hs[1],
        num_args: 1,
        num_svm_args: 0,
        num_exec_infos: 0,
        work_dim: 0,
        arg_list: &arg,
        arg_svm_list: ptr::null(),
        exec_info_list: ptr::null(),
        global_work_offset: ptr::null(),
        global_work_size: ptr::null(),
        local_work_size: ptr::null(),
    };
    let types = [CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR];
    let mut configs = [(&config as *const cl_mutable_dispatch_config_khr).cast::<c_void>()];
    // SAFETY: one configuration of its type.
    let s = unsafe { (ext.update.unwrap())(cb.raw, 1, types.as_ptr(), configs.as_mut_ptr()) };
    assert_eq!(s, CL_SUCCESS, "clUpdateMutableCommandsKHR");
    cb.enqueue(&[], &[]).wait();
    // a stepped twice; b as after one replay (and c its copy again); b2
    // the second replay's consume.
    let (a, _) = reference(2);
    let (_, b1) = reference(1);
    let want_b2: Vec<u32> = b0
        .iter()
        .zip(&a)
        .map(|(y, x)| y.wrapping_add(x ^ 0x55))
        .collect();
    for (q, dev) in [(&t.q0, 0), (&t.q1, 1)] {
        assert_same(&format!("a on device {dev}"), &q.read(&d.a), &a);
        assert_same(&format!("b on device {dev}"), &q.read(&d.b), &b1);
        assert_same(&format!("c on device {dev}"), &q.read(&d.c), &b1);
        assert_same(&format!("b2 on device {dev}"), &q.read(&b2), &want_b2);
    }
}

#[test]
fn error_codes() {
    let t = two();
    let ext = Ext::load();
    let program = t.context.build_for_all(KERNELS);
    let (step, consume) = (program.kernel("step"), program.kernel("consume"));
    let d = data(&t);
    let (q0, q1) = (t.q0.raw(), t.q1.raw());

    // Creation.
    assert_eq!(
        ext.try_create(&[], &[]).err(),
        Some(CL_INVALID_VALUE),
        "no queues"
    );
    let other = Context::on(t.devices[0]);
    let oq = other.queue_on(t.devices[0]);
    assert_eq!(
        ext.try_create(&[q0, oq.raw()], &[]).err(),
        Some(CL_INVALID_CONTEXT),
        "queues of two contexts"
    );
    let bad: cl_command_queue = d.a.raw().cast();
    assert_eq!(
        ext.try_create(&[q0, bad], &[]).err(),
        Some(CL_INVALID_COMMAND_QUEUE),
        "not a queue"
    );
    // Device-side sync: no device synchronizes natively with another.
    let sync = [
        CL_COMMAND_BUFFER_FLAGS_KHR,
        CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR,
        0,
    ];
    assert_eq!(
        ext.try_create(&[q0, q1], &sync).err(),
        Some(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR),
        "device-side sync across devices"
    );
    let q0b = t.context.queue_on(t.devices[0]);
    assert_eq!(
        ext.try_create(&[q0, q0b.raw()], &sync).err(),
        Some(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR),
        "device-side sync across queues"
    );
    assert!(
        ext.try_create(&[q0], &sync).is_ok(),
        "device-side sync of one queue"
    );
    // Two queues of one device: CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR.
    let same = ext.create(&[q0, q0b.raw()]);
    step.arg(0, &d.a);
    consume.arg(0, &d.a).arg(1, &d.b);
    let (s1, _) = same.kernel(q0, &step, N, &[]);
    let (s2, _) = same.kernel(q0b.raw(), &consume, N, &[s1]);
    same.copy(q0, &d.b, &d.c, N * 4, &[s2]);
    same.finalize();
    same.enqueue(&[], &[]).wait();
    check_data(&t, &d, 1, "two queues of device 0");

    // Recording.
    let cb = ext.create(&[q0, q1]);
    assert_eq!(
        cb.try_kernel(ptr::null_mut(), &step, N, &[]).err(),
        Some(CL_INVALID_COMMAND_QUEUE),
        "NULL queue in a command buffer of two"
    );
    assert_eq!(
        cb.try_kernel(q0b.raw(), &step, N, &[]).err(),
        Some(CL_INVALID_COMMAND_QUEUE),
        "a queue not listed at creation"
    );
    let (s1, h1) = cb.kernel(q0, &step, N, &[]);
    assert_eq!(
        cb.try_kernel(q1, &consume, N, &[s1 + 1]).err(),
        Some(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR),
        "a sync point not yet recorded"
    );
    let mut sp = 0;
    // SAFETY: valid objects, one sync point.
    let s = unsafe {
        (ext.barrier.unwrap())(cb.raw, q1, ptr::null(), 1, &s1, &mut sp, ptr::null_mut())
    };
    assert_eq!(s, CL_SUCCESS, "barrier on q1 after q0's kernel");
    let (s3, _) = cb.kernel(q1, &consume, N, &[]);
    cb.copy(q0, &d.b, &d.c, N * 4, &[s3]);
    // Enqueue before finalize.
    assert_eq!(cb.try_enqueue(&[], &[]).err(), Some(CL_INVALID_OPERATION));
    cb.finalize();

    // Enqueue.
    assert_eq!(
        cb.try_enqueue(&[q0], &[]).err(),
        Some(CL_INVALID_VALUE),
        "one queue for a command buffer of two"
    );
    assert_eq!(
        cb.try_enqueue(&[q1, q0], &[]).err(),
        Some(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR),
        "queues of other devices"
    );
    assert_eq!(
        cb.try_enqueue(&[q0, oq.raw()], &[]).err(),
        Some(CL_INVALID_CONTEXT),
        "a queue of another context"
    );
    assert_eq!(
        cb.try_enqueue(&[q0, bad], &[]).err(),
        Some(CL_INVALID_COMMAND_QUEUE),
        "not a queue"
    );
    let e = cb.enqueue(&[q0b.raw(), q1], &[]);
    e.wait();
    assert_eq!(e.status(), CL_COMPLETE, "another queue of the same device");
    check_data(&t, &d, 2, "barrier across devices");

    // Remap.
    let remap_err = |cb: cl_command_buffer_khr,
                     automatic: cl_bool,
                     qs: &[cl_command_queue],
                     n_handles: cl_uint,
                     handles: *const cl_mutable_command_khr,
                     ret: *mut cl_mutable_command_khr| {
        let mut status = CL_SUCCESS;
        // SAFETY: the lists are NULL or hold what the counts say (the
        // wrong counts are the errors tested).
        let raw = unsafe {
            (ext.remap.unwrap())(
                cb,
                automatic,
                qs.len() as cl_uint,
                if qs.is_empty() {
                    ptr::null()
                } else {
                    qs.as_ptr()
                },
                n_handles,
                handles,
                ret,
                &mut status,
            )
        };
        assert!(raw.is_null());
        status
    };
    let mut out = [ptr::null_mut(); 2];
    let null = ptr::null_mut();
    let cases = [
        (
            remap_err(ptr::null_mut(), CL_FALSE, &[q0, q1], 0, ptr::null(), null),
            CL_INVALID_COMMAND_BUFFER_KHR,
            "no command buffer",
        ),
        (
            remap_err(cb.raw, CL_FALSE, &[], 0, ptr::null(), null),
            CL_INVALID_VALUE,
            "no queues",
        ),
        (
            remap_err(cb.raw, CL_FALSE, &[q1], 0, ptr::null(), null),
            CL_INVALID_VALUE,
            "explicit with another queue count",
        ),
        (
            remap_err(
                cb.raw,
                CL_FALSE,
                &[q1, q0],
                1,
                ptr::null(),
                out.as_mut_ptr(),
            ),
            CL_INVALID_VALUE,
            "handles NULL with a count",
        ),
        (
            remap_err(cb.raw, CL_FALSE, &[q1, q0], 0, &h1, out.as_mut_ptr()),
            CL_INVALID_VALUE,
            "handles without a count",
        ),
        (
            remap_err(cb.raw, CL_FALSE, &[q1, q0], 1, &h1, null),
            CL_INVALID_VALUE,
            "handles_ret NULL",
        ),
        (
            remap_err(same.raw, CL_FALSE, &[q1, q0], 1, &h1, out.as_mut_ptr()),
            CL_INVALID_VALUE,
            "a handle of another command buffer",
        ),
        (
            remap_err(cb.raw, CL_FALSE, &[q1, bad], 0, ptr::null(), null),
            CL_INVALID_COMMAND_QUEUE,
            "not a queue",
        ),
        (
            remap_err(cb.raw, CL_TRUE, &[oq.raw()], 0, ptr::null(), null),
            CL_INVALID_CONTEXT,
            "a queue of another context",
        ),
    ];
    for (got, want, what) in cases {
        expect_error(got, want, what);
    }
    assert!(out.iter().all(|h| h.is_null()), "handles_ret untouched");
    // A kernel built for device 0 only cannot move to device 1: the
    // recording error ("any error relating to device support that can be
    // returned by a command recording entry-point").
    let only0 = t.context.build(KERNELS);
    let k0 = only0.kernel("step");
    k0.arg(0, &d.a);
    let cb0 = ext.create(&[q0]);
    cb0.kernel(q0, &k0, N, &[]);
    cb0.finalize();
    assert_eq!(
        ext.try_remap(&cb0, false, &[q1], &[]).err(),
        Some(CL_INVALID_PROGRAM_EXECUTABLE)
    );
}

/// A failing part (a user event failed before the command buffer's
/// first commands) fails the whole enqueue's event.
#[test]
fn a_failed_wait_fails_the_event() {
    let t = two();
    let ext = Ext::load();
    let program = t.context.build_for_all(KERNELS);
    let (step, consume) = (program.kernel("step"), program.kernel("consume"));
    let d = data(&t);
    let cb = ext.create(&[t.q0.raw(), t.q1.raw()]);
    pipeline(&cb, t.q0.raw(), t.q1.raw(), &step, &consume, &d);
    cb.finalize();
    let user = Event::user(&t.context);
    let e = cb.enqueue(&[], &[user.0]);
    assert!(e.status() > CL_COMPLETE, "waits for the user event");
    user.set(-1);
    // SAFETY: one live event.
    let s = unsafe { clWaitForEvents(1, &e.0) };
    expect_error(s, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "wait");
    assert!(e.status() < 0, "failed: {}", e.status());
    t.q0.finish();
    t.q1.finish();
    check_data(&t, &d, 0, "nothing ran");
}
