//! cl_khr_command_buffer and cl_khr_command_buffer_mutable_dispatch
//! through the ICD loader: the extension functions, device queries and
//! object queries; chains of kernels, copies and fills with sync points
//! replayed several times with data changing between enqueues (values
//! against CPU references); in-order and out-of-order queues with event
//! wait lists; enqueues pending together; the snapshot of kernel
//! arguments at recording and the objects a command buffer keeps alive;
//! image commands; mutable arguments, offsets and sizes, deferred
//! arguments; exact error codes.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::ext_fn;
use ferrocl_tests::info::{device_info, extension_function, query, query_value};
use ferrocl_tests::sys::*;
use ferrocl_tests::{device, expect_error, Buffer, Cl, Kernel, Queue};

/// The extension's entry points, looked up for the platform.
struct Ext {
    create: clCreateCommandBufferKHR_t,
    retain: clRetainCommandBufferKHR_t,
    release: clReleaseCommandBufferKHR_t,
    finalize: clFinalizeCommandBufferKHR_t,
    enqueue: clEnqueueCommandBufferKHR_t,
    info: clGetCommandBufferInfoKHR_t,
    barrier: clCommandBarrierWithWaitListKHR_t,
    copy: clCommandCopyBufferKHR_t,
    copy_rect: clCommandCopyBufferRectKHR_t,
    fill: clCommandFillBufferKHR_t,
    ndrange: clCommandNDRangeKernelKHR_t,
    copy_buffer_to_image: clCommandCopyBufferToImageKHR_t,
    copy_image_to_buffer: clCommandCopyImageToBufferKHR_t,
    fill_image: clCommandFillImageKHR_t,
    svm_memcpy: clCommandSVMMemcpyKHR_t,
    svm_fill: clCommandSVMMemFillKHR_t,
    update: clUpdateMutableCommandsKHR_t,
    command_info: clGetMutableCommandInfoKHR_t,
}

impl Ext {
    fn load() -> Ext {
        Ext {
            create: ext_fn!("clCreateCommandBufferKHR", clCreateCommandBufferKHR_t),
            retain: ext_fn!("clRetainCommandBufferKHR", clRetainCommandBufferKHR_t),
            release: ext_fn!("clReleaseCommandBufferKHR", clReleaseCommandBufferKHR_t),
            finalize: ext_fn!("clFinalizeCommandBufferKHR", clFinalizeCommandBufferKHR_t),
            enqueue: ext_fn!("clEnqueueCommandBufferKHR", clEnqueueCommandBufferKHR_t),
            info: ext_fn!("clGetCommandBufferInfoKHR", clGetCommandBufferInfoKHR_t),
            barrier: ext_fn!(
                "clCommandBarrierWithWaitListKHR",
                clCommandBarrierWithWaitListKHR_t
            ),
            copy: ext_fn!("clCommandCopyBufferKHR", clCommandCopyBufferKHR_t),
            copy_rect: ext_fn!("clCommandCopyBufferRectKHR", clCommandCopyBufferRectKHR_t),
            fill: ext_fn!("clCommandFillBufferKHR", clCommandFillBufferKHR_t),
            ndrange: ext_fn!("clCommandNDRangeKernelKHR", clCommandNDRangeKernelKHR_t),
            copy_buffer_to_image: ext_fn!(
                "clCommandCopyBufferToImageKHR",
                clCommandCopyBufferToImageKHR_t
            ),
            copy_image_to_buffer: ext_fn!(
                "clCommandCopyImageToBufferKHR",
                clCommandCopyImageToBufferKHR_t
            ),
            fill_image: ext_fn!("clCommandFillImageKHR", clCommandFillImageKHR_t),
            svm_memcpy: ext_fn!("clCommandSVMMemcpyKHR", clCommandSVMMemcpyKHR_t),
            svm_fill: ext_fn!("clCommandSVMMemFillKHR", clCommandSVMMemFillKHR_t),
            update: ext_fn!("clUpdateMutableCommandsKHR", clUpdateMutableCommandsKHR_t),
            command_info: ext_fn!("clGetMutableCommandInfoKHR", clGetMutableCommandInfoKHR_t),
        }
    }

    /// clCreateCommandBufferKHR on `queue` with `props` (0-terminated or
    /// empty for NULL).
    fn try_create(
        &self,
        queue: &Queue,
        props: &[cl_command_buffer_properties_khr],
    ) -> Result<CommandBuffer<'_>, cl_int> {
        let q = queue.raw();
        let mut status = CL_SUCCESS;
        let p = if props.is_empty() {
            ptr::null()
        } else {
            props.as_ptr()
        };
        // SAFETY: one valid queue, a 0-terminated list or NULL.
        let raw = unsafe { (self.create.unwrap())(1, &q, p, &mut status) };
        if status != CL_SUCCESS {
            assert!(raw.is_null(), "a failed create returns NULL");
            return Err(status);
        }
        Ok(CommandBuffer { ext: self, raw })
    }

    fn create(
        &self,
        queue: &Queue,
        props: &[cl_command_buffer_properties_khr],
    ) -> CommandBuffer<'_> {
        self.try_create(queue, props)
            .unwrap_or_else(|e| panic!("clCreateCommandBufferKHR: {e}"))
    }
}

/// A command buffer released on drop.
struct CommandBuffer<'a> {
    ext: &'a Ext,
    raw: cl_command_buffer_khr,
}

impl Drop for CommandBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: our reference.
        let s = unsafe { (self.ext.release.unwrap())(self.raw) };
        if !std::thread::panicking() {
            assert_eq!(s, CL_SUCCESS, "clReleaseCommandBufferKHR");
        }
    }
}

impl CommandBuffer<'_> {
    /// clCommandNDRangeKernelKHR over `global` (1 to 3 dimensions).
    #[allow(clippy::too_many_arguments)]
    fn try_kernel(
        &self,
        props: &[cl_command_properties_khr],
        k: &Kernel,
        offset: Option<&[usize]>,
        global: &[usize],
        local: Option<&[usize]>,
        waits: &[cl_sync_point_khr],
        handle: Option<&mut cl_mutable_command_khr>,
    ) -> Result<cl_sync_point_khr, cl_int> {
        let mut sp = 0;
        let p = |v: Option<&[usize]>| v.map_or(ptr::null(), <[usize]>::as_ptr);
        let props_ptr = if props.is_empty() {
            ptr::null()
        } else {
            props.as_ptr()
        };
        let waits_ptr = if waits.is_empty() {
            ptr::null()
        } else {
            waits.as_ptr()
        };
        // SAFETY: arrays of `global.len()` entries or NULL.
        let s = unsafe {
            (self.ext.ndrange.unwrap())(
                self.raw,
                ptr::null_mut(),
                props_ptr,
                k.raw(),
                global.len() as cl_uint,
                p(offset),
                global.as_ptr(),
                p(local),
                waits.len() as cl_uint,
                waits_ptr,
                &mut sp,
                handle.map_or(ptr::null_mut(), |h| h as *mut _),
            )
        };
        if s == CL_SUCCESS {
            Ok(sp)
        } else {
            Err(s)
        }
    }

    fn kernel(
        &self,
        k: &Kernel,
        global: &[usize],
        waits: &[cl_sync_point_khr],
    ) -> cl_sync_point_khr {
        self.try_kernel(&[], k, None, global, None, waits, None)
            .unwrap_or_else(|e| panic!("clCommandNDRangeKernelKHR: {e}"))
    }

    fn try_copy<T: ferrocl_tests::Pod>(
        &self,
        src: &Buffer<T>,
        dst: &Buffer<T>,
        so: usize,
        d: usize,
        size: usize,
        waits: &[cl_sync_point_khr],
    ) -> Result<cl_sync_point_khr, cl_int> {
        let mut sp = 0;
        let waits_ptr = if waits.is_empty() {
            ptr::null()
        } else {
            waits.as_ptr()
        };
        // SAFETY: valid objects; `waits` holds its count.
        let s = unsafe {
            (self.ext.copy.unwrap())(
                self.raw,
                ptr::null_mut(),
                ptr::null(),
                src.raw(),
                dst.raw(),
                so,
                d,
                size,
                waits.len() as cl_uint,
                waits_ptr,
                &mut sp,
                ptr::null_mut(),
            )
        };
        if s == CL_SUCCESS {
            Ok(sp)
        } else {
            Err(s)
        }
    }

    fn try_fill<T: ferrocl_tests::Pod>(
        &self,
        buf: &Buffer<T>,
        pattern: &[u8],
        offset: usize,
        size: usize,
        waits: &[cl_sync_point_khr],
    ) -> Result<cl_sync_point_khr, cl_int> {
        let mut sp = 0;
        let waits_ptr = if waits.is_empty() {
            ptr::null()
        } else {
            waits.as_ptr()
        };
        // SAFETY: valid objects; the pattern and waits hold their counts.
        let s = unsafe {
            (self.ext.fill.unwrap())(
                self.raw,
                ptr::null_mut(),
                ptr::null(),
                buf.raw(),
                pattern.as_ptr().cast(),
                pattern.len(),
                offset,
                size,
                waits.len() as cl_uint,
                waits_ptr,
                &mut sp,
                ptr::null_mut(),
            )
        };
        if s == CL_SUCCESS {
            Ok(sp)
        } else {
            Err(s)
        }
    }

    fn finalize(&self) -> cl_int {
        // SAFETY: valid command buffer.
        unsafe { (self.ext.finalize.unwrap())(self.raw) }
    }

    /// clEnqueueCommandBufferKHR on its own queue with `waits`; the event.
    fn try_enqueue(&self, waits: &[cl_event]) -> Result<cl_event, cl_int> {
        let mut e = ptr::null_mut();
        let w = if waits.is_empty() {
            ptr::null()
        } else {
            waits.as_ptr()
        };
        // SAFETY: valid objects; `waits` holds its count.
        let s = unsafe {
            (self.ext.enqueue.unwrap())(
                0,
                ptr::null_mut(),
                self.raw,
                waits.len() as cl_uint,
                w,
                &mut e,
            )
        };
        if s == CL_SUCCESS {
            Ok(e)
        } else {
            Err(s)
        }
    }

    /// Enqueues and waits; panics on failure.
    fn run(&self) {
        let e = self
            .try_enqueue(&[])
            .unwrap_or_else(|s| panic!("clEnqueueCommandBufferKHR: {s}"));
        wait_release(e);
    }

    fn state(&self) -> cl_command_buffer_state_khr {
        let mut v: cl_command_buffer_state_khr = 99;
        // SAFETY: a cl_uint-sized value.
        let s = unsafe {
            (self.ext.info.unwrap())(
                self.raw,
                CL_COMMAND_BUFFER_STATE_KHR,
                size_of_val(&v),
                (&mut v as *mut cl_command_buffer_state_khr).cast(),
                ptr::null_mut(),
            )
        };
        assert_eq!(s, CL_SUCCESS, "CL_COMMAND_BUFFER_STATE_KHR");
        v
    }

    /// clGetCommandBufferInfoKHR's bytes for `param`.
    fn info_bytes(&self, param: cl_command_buffer_info_khr) -> Result<Vec<u8>, cl_int> {
        let mut size = 0;
        // SAFETY: size query.
        let s = unsafe { (self.ext.info.unwrap())(self.raw, param, 0, ptr::null_mut(), &mut size) };
        if s != CL_SUCCESS {
            return Err(s);
        }
        let mut v = vec![0u8; size];
        // SAFETY: `size` bytes.
        let s = unsafe {
            (self.ext.info.unwrap())(
                self.raw,
                param,
                size,
                v.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        };
        assert_eq!(s, CL_SUCCESS);
        Ok(v)
    }
}

fn wait_release(e: cl_event) {
    // SAFETY: a valid event of ours.
    unsafe {
        assert_eq!(clWaitForEvents(1, &e), CL_SUCCESS, "clWaitForEvents");
        clReleaseEvent(e);
    }
}

/// clGetEventInfo's value for `param`, of type `T`.
fn event_value<T: Copy + Default>(e: cl_event, param: cl_event_info) -> T {
    let mut v = T::default();
    // SAFETY: a value of size_of::<T>() bytes.
    let s = unsafe {
        clGetEventInfo(
            e,
            param,
            size_of::<T>(),
            (&mut v as *mut T).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!(s, CL_SUCCESS, "clGetEventInfo");
    v
}

fn u64_of(b: &[u8]) -> u64 {
    u64::from_ne_bytes(b[..8].try_into().unwrap())
}

fn u32_of(b: &[u8]) -> u32 {
    u32::from_ne_bytes(b[..4].try_into().unwrap())
}

/// Whether the device reports cl_khr_command_buffer at a version with
/// this API: 0.9.5 gave every recording call its properties parameter
/// (PoCL's 0.9.0 has another ABI, so these tests cannot run against it).
fn supported() -> bool {
    let list: Vec<cl_name_version> =
        query(device_info(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION)).expect("extensions");
    list.iter().any(|nv| {
        // SAFETY: NUL-terminated within the fixed array.
        let name = unsafe { std::ffi::CStr::from_ptr(nv.name.as_ptr().cast()) };
        name.to_bytes() == b"cl_khr_command_buffer" && nv.version >= (9 << 12) | 5
    })
}

const KERNELS: &str = r#"
kernel void scale(global const int *a, global int *b, int k) {
    size_t i = get_global_id(0);
    b[i] = a[i] * k + 1;
}
kernel void add_index(global const int *b, global int *c) {
    size_t i = get_global_id(0);
    c[i] = b[i] + (int)i;
}
kernel void bump(global int *a) {
    a[get_global_id(0)] += 1;
}
kernel void mark(global int *a, int v) {
    a[get_global_id(0)] = v;
}
kernel void with_printf(global int *a) { printf("%d\n", a[0]); }
"#;

// ---------------------------------------------------------------------
// Queries

#[test]
fn extensions_queries_and_entry_points() {
    if !supported() {
        return;
    }
    let list: Vec<cl_name_version> =
        query(device_info(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION)).expect("extensions");
    let version = |name: &str| {
        list.iter()
            .find(|nv| {
                // SAFETY: NUL-terminated within the fixed array.
                unsafe { std::ffi::CStr::from_ptr(nv.name.as_ptr().cast()) }.to_bytes()
                    == name.as_bytes()
            })
            .map(|nv| nv.version)
    };
    let make = |a: u32, b: u32, c: u32| (a << 22) | (b << 12) | c;
    assert_eq!(version("cl_khr_command_buffer"), Some(make(0, 9, 8)));
    assert_eq!(
        version("cl_khr_command_buffer_mutable_dispatch"),
        Some(make(0, 9, 5))
    );
    let caps: u64 = query_value(device_info(
        device(),
        CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR,
    ))
    .expect("caps");
    assert_eq!(
        caps,
        CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR
            | CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR
    );
    let supported_props: u64 = query_value(device_info(
        device(),
        CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR,
    ))
    .expect("supported");
    assert_eq!(
        supported_props,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE
    );
    let required: u64 = query_value(device_info(
        device(),
        CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR,
    ))
    .expect("required");
    assert_eq!(required, 0);
    let mutable: u64 = query_value(device_info(
        device(),
        CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR,
    ))
    .expect("md");
    assert_eq!(
        mutable,
        CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
            | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
            | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
            | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
            | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR
    );
    // Every entry point of the three extensions (multi-device's remap:
    // tests/tests/command_buffer_multi_device.rs).
    Ext::load();
    for name in [
        "clCommandCopyImageKHR",
        "clCommandSVMMemcpyKHR",
        "clCommandSVMMemFillKHR",
        "clRemapCommandBufferKHR",
    ] {
        assert!(!extension_function(name).is_null(), "{name}");
    }
}

#[test]
fn command_buffer_info_every_param() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let props = [
        CL_COMMAND_BUFFER_FLAGS_KHR,
        CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR,
        0,
    ];
    let cb = ext.create(&cl.queue, &props);
    let queues = cb.info_bytes(CL_COMMAND_BUFFER_QUEUES_KHR).unwrap();
    assert_eq!(u64_of(&queues) as usize, cl.queue.raw() as usize);
    assert_eq!(
        u32_of(&cb.info_bytes(CL_COMMAND_BUFFER_NUM_QUEUES_KHR).unwrap()),
        1
    );
    let ctx = cb.info_bytes(CL_COMMAND_BUFFER_CONTEXT_KHR).unwrap();
    assert_eq!(u64_of(&ctx) as usize, cl.context.raw() as usize);
    let p = cb
        .info_bytes(CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR)
        .unwrap();
    let got: Vec<u64> = p.chunks(8).map(u64_of).collect();
    assert_eq!(got, props.to_vec());
    let refs = |cb: &CommandBuffer| {
        u32_of(
            &cb.info_bytes(CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR)
                .unwrap(),
        )
    };
    assert_eq!(refs(&cb), 1);
    // SAFETY: valid command buffer.
    assert_eq!(unsafe { (ext.retain.unwrap())(cb.raw) }, CL_SUCCESS);
    assert_eq!(refs(&cb), 2);
    // SAFETY: the reference just taken.
    assert_eq!(unsafe { (ext.release.unwrap())(cb.raw) }, CL_SUCCESS);
    assert_eq!(refs(&cb), 1);
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
    assert_eq!(cb.finalize(), CL_SUCCESS);
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    // NULL properties: an empty array.
    let cb2 = ext.create(&cl.queue, &[]);
    assert!(cb2
        .info_bytes(CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR)
        .unwrap()
        .is_empty());
    expect_error(
        cb2.info_bytes(0x7777).unwrap_err(),
        CL_INVALID_VALUE,
        "unknown param",
    );
    // A too small value.
    let mut small = 0u16;
    // SAFETY: 2 writable bytes, declared as such.
    let s = unsafe {
        (ext.info.unwrap())(
            cb2.raw,
            CL_COMMAND_BUFFER_STATE_KHR,
            2,
            (&mut small as *mut u16).cast(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_VALUE, "param_value_size too small");
}

// ---------------------------------------------------------------------
// Replays

/// scale → add_index (waiting on scale's sync point) → copy of the result
/// → fill of a second buffer, recorded once and replayed with new inputs.
fn chain_replayed(props: cl_command_queue_properties) {
    let ext = Ext::load();
    let cl = Cl::new();
    let queue = cl.queue_with(props);
    let program = cl.build(KERNELS);
    let n = 1024usize;
    let a = cl.buffer::<i32>(n);
    let b = cl.buffer::<i32>(n);
    let c = cl.buffer::<i32>(n);
    let d = cl.buffer::<i32>(n);
    let e = cl.buffer::<i32>(n);
    let scale = program.kernel("scale");
    scale.arg(0, &a).arg(1, &b).arg(2, &3i32);
    let add = program.kernel("add_index");
    add.arg(0, &b).arg(1, &c);
    let cb = ext.create(&queue, &[]);
    let s1 = cb.kernel(&scale, &[n], &[]);
    let s2 = cb.kernel(&add, &[n], &[s1]);
    let s3 = cb
        .try_copy(&c, &d, 0, 0, n * 4, &[s2])
        .expect("clCommandCopyBufferKHR");
    let s4 = cb
        .try_fill(&e, &0x0102_0304i32.to_ne_bytes(), 0, n * 4, &[])
        .expect("clCommandFillBufferKHR");
    assert!(s1 != s2 && s2 != s3 && s3 != s4, "distinct sync points");
    // Arguments are taken at recording: a later clSetKernelArg changes
    // nothing in the command buffer.
    scale.arg(2, &100i32);
    assert_eq!(cb.finalize(), CL_SUCCESS);
    for round in 0..5i32 {
        let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - round * 1000).collect();
        queue.write(&a, 0, &input);
        queue.write(&e, 0, &vec![0; n]);
        let ev = cb.try_enqueue(&[]).expect("enqueue");
        wait_release(ev);
        let want: Vec<i32> = input
            .iter()
            .enumerate()
            .map(|(i, x)| x * 3 + 1 + i as i32)
            .collect();
        assert_eq!(queue.read(&d), want, "round {round}: copied chain result");
        assert_eq!(queue.read(&c), want, "round {round}: chain result");
        assert_eq!(queue.read(&e), vec![0x0102_0304; n], "round {round}: fill");
    }
}

#[test]
fn chain_with_sync_points_replays_in_order_queue() {
    if !supported() {
        return;
    }
    chain_replayed(0);
}

#[test]
fn chain_with_sync_points_replays_out_of_order_queue() {
    if !supported() {
        return;
    }
    chain_replayed(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/// Enqueues pending together accumulate; a user event in the wait list
/// holds the command buffer back; the returned event is a command-buffer
/// event of the queue.
#[test]
fn pending_enqueues_and_event_wait_lists() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    for props in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
        let cl = Cl::new();
        let queue = cl.queue_with(props);
        let program = cl.build(KERNELS);
        let n = 256;
        let a = cl.buffer_from(&vec![5i32; n]);
        let bump = program.kernel("bump");
        bump.arg(0, &a);
        let cb = ext.create(&queue, &[]);
        cb.kernel(&bump, &[n], &[]);
        cb.kernel(&bump, &[n], &[]);
        assert_eq!(cb.finalize(), CL_SUCCESS);
        let mut status = 0;
        // SAFETY: valid context.
        let user = unsafe { clCreateUserEvent(cl.context.raw(), &mut status) };
        assert_eq!(status, CL_SUCCESS);
        // Each enqueue waits for the one before (an out-of-order queue
        // needs the events).
        let e1 = cb.try_enqueue(&[user]).expect("first enqueue");
        let e2 = cb.try_enqueue(&[e1]).expect("second enqueue");
        let e3 = cb.try_enqueue(&[e2]).expect("third enqueue");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let st: cl_int = event_value(e3, CL_EVENT_COMMAND_EXECUTION_STATUS);
        assert!(st > CL_COMPLETE, "ran before its user event: status {st}");
        // SAFETY: our user event.
        assert_eq!(
            unsafe { clSetUserEventStatus(user, CL_COMPLETE) },
            CL_SUCCESS
        );
        let ty: cl_command_type = event_value(e3, CL_EVENT_COMMAND_TYPE);
        assert_eq!(ty, CL_COMMAND_COMMAND_BUFFER_KHR);
        let q: usize = event_value(e3, CL_EVENT_COMMAND_QUEUE);
        assert_eq!(q, queue.raw() as usize);
        wait_release(e3);
        wait_release(e2);
        wait_release(e1);
        // SAFETY: ours.
        unsafe { clReleaseEvent(user) };
        assert_eq!(queue.read(&a), vec![5 + 6; n], "three replays of two bumps");
    }
}

/// Many enqueues without waiting on an in-order queue: all replay.
#[test]
fn many_enqueues_in_flight() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let program = cl.build(KERNELS);
    let n = 64;
    let a = cl.buffer_from(&vec![0i32; n]);
    let bump = program.kernel("bump");
    bump.arg(0, &a);
    let cb = ext.create(&cl.queue, &[]);
    cb.kernel(&bump, &[n], &[]);
    assert_eq!(cb.finalize(), CL_SUCCESS);
    for _ in 0..50 {
        let e = cb.try_enqueue(&[]).expect("enqueue");
        // SAFETY: ours.
        unsafe { clReleaseEvent(e) };
    }
    cl.queue.finish();
    assert_eq!(cl.queue.read(&a), vec![50; n]);
}

/// The command buffer keeps its kernels and memory objects: released by
/// the application after recording, they still run.
#[test]
fn recorded_objects_are_kept_alive() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let n = 128;
    let out = cl.buffer::<i32>(n);
    let cb = ext.create(&cl.queue, &[]);
    {
        let program = cl.build(KERNELS);
        let input = cl.buffer_from(&(0..n as i32).collect::<Vec<_>>());
        let mid = cl.buffer::<i32>(n);
        let scale = program.kernel("scale");
        scale.arg(0, &input).arg(1, &mid).arg(2, &-2i32);
        let s = cb.kernel(&scale, &[n], &[]);
        cb.try_copy(&mid, &out, 0, 0, n * 4, &[s]).expect("copy");
        // program, kernel, input and mid are released here.
    }
    assert_eq!(cb.finalize(), CL_SUCCESS);
    cb.run();
    cb.run();
    let want: Vec<i32> = (0..n as i32).map(|i| i * -2 + 1).collect();
    assert_eq!(cl.queue.read(&out), want);
}

/// Rectangular copies and fills of every pattern size, at offsets
/// vkCmdFillBuffer takes and at ones it does not.
#[test]
fn copy_rect_and_fills_match_references() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let size = 4096usize;
    let src_data: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
    let src = cl.buffer_from(&src_data);
    let dst = cl.buffer_from(&vec![0xEEu8; size]);
    let fills = cl.buffer_from(&vec![0u8; size]);
    let cb = ext.create(&cl.queue, &[]);
    // A 3D rectangle: region 5×3×2 bytes, pitches 16/64 → 8/32.
    let (so, dor, region) = ([3usize, 1, 1], [2usize, 2, 0], [5usize, 3, 2]);
    let (srp, ssp, drp, dsp) = (16usize, 64usize, 8usize, 32usize);
    let mut sp = 0;
    // SAFETY: valid objects, three entries per array.
    let s = unsafe {
        (ext.copy_rect.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            src.raw(),
            dst.raw(),
            so.as_ptr(),
            dor.as_ptr(),
            region.as_ptr(),
            srp,
            ssp,
            drp,
            dsp,
            0,
            ptr::null(),
            &mut sp,
            ptr::null_mut(),
        )
    };
    assert_eq!(s, CL_SUCCESS, "clCommandCopyBufferRectKHR");
    let mut fill_ref = vec![0u8; size];
    let mut at = 0usize;
    for (psize, offset_pad) in [
        (1usize, 3usize),
        (2, 2),
        (4, 0),
        (4, 4),
        (8, 8),
        (16, 16),
        (128, 0),
    ] {
        let pattern: Vec<u8> = (0..psize).map(|i| (0x40 + psize + i) as u8).collect();
        at = (at + offset_pad).next_multiple_of(psize);
        let len = psize * 5;
        cb.try_fill(&fills, &pattern, at, len, &[]).expect("fill");
        for i in 0..len {
            fill_ref[at + i] = pattern[i % psize];
        }
        at += len;
    }
    assert_eq!(cb.finalize(), CL_SUCCESS);
    cb.run();
    let mut want = vec![0xEEu8; size];
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                let s = (so[2] + z) * ssp + (so[1] + y) * srp + so[0] + x;
                let d = (dor[2] + z) * dsp + (dor[1] + y) * drp + dor[0] + x;
                want[d] = src_data[s];
            }
        }
    }
    assert_eq!(cl.queue.read(&dst), want, "rect copy");
    assert_eq!(cl.queue.read(&fills), fill_ref, "fills");
}

/// A barrier command on an out-of-order queue orders the commands after it.
#[test]
fn barrier_orders_out_of_order_commands() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let queue = cl.queue_with(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let program = cl.build(KERNELS);
    let n = 4096;
    let a = cl.buffer::<i32>(n);
    let mark = program.kernel("mark");
    mark.arg(0, &a).arg(1, &7i32);
    let bump = program.kernel("bump");
    bump.arg(0, &a);
    let cb = ext.create(&queue, &[]);
    cb.kernel(&mark, &[n], &[]);
    let mut sp = 0;
    // SAFETY: valid command buffer, no waits.
    let s = unsafe {
        (ext.barrier.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            0,
            ptr::null(),
            &mut sp,
            ptr::null_mut(),
        )
    };
    assert_eq!(s, CL_SUCCESS);
    cb.kernel(&bump, &[n], &[]);
    assert_eq!(cb.finalize(), CL_SUCCESS);
    cb.run();
    assert_eq!(queue.read(&a), vec![8; n]);
}

/// A profiling queue's command-buffer event has device times.
#[test]
fn profiling_times_per_enqueue() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let queue = cl.queue_with(CL_QUEUE_PROFILING_ENABLE);
    let program = cl.build(KERNELS);
    let a = cl.buffer::<i32>(1024);
    let bump = program.kernel("bump");
    bump.arg(0, &a);
    let cb = ext.create(&queue, &[]);
    cb.kernel(&bump, &[1024], &[]);
    assert_eq!(cb.finalize(), CL_SUCCESS);
    let mut last_end = 0u64;
    for _ in 0..3 {
        let e = cb.try_enqueue(&[]).expect("enqueue");
        // SAFETY: ours.
        assert_eq!(unsafe { clWaitForEvents(1, &e) }, CL_SUCCESS);
        let t = |p| -> u64 {
            let mut v = 0u64;
            // SAFETY: a cl_ulong value.
            let s = unsafe {
                clGetEventProfilingInfo(e, p, 8, (&mut v as *mut u64).cast(), ptr::null_mut())
            };
            assert_eq!(s, CL_SUCCESS, "clGetEventProfilingInfo");
            v
        };
        let (queued, submit, start, end) = (
            t(CL_PROFILING_COMMAND_QUEUED),
            t(CL_PROFILING_COMMAND_SUBMIT),
            t(CL_PROFILING_COMMAND_START),
            t(CL_PROFILING_COMMAND_END),
        );
        assert!(
            queued <= submit && submit <= start && start <= end,
            "{queued} {submit} {start} {end}"
        );
        assert!(start >= last_end, "each replay measured on its own");
        last_end = end;
        // SAFETY: ours.
        unsafe { clReleaseEvent(e) };
    }
}

// ---------------------------------------------------------------------
// Images

#[test]
fn image_commands_round_trip() {
    if !supported() {
        return;
    }
    let image_support: cl_bool =
        query_value(device_info(device(), CL_DEVICE_IMAGE_SUPPORT)).expect("image support");
    if image_support == 0 {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let (w, h) = (16usize, 8usize);
    let fmt = ferrocl_tests::images::format(CL_RGBA, CL_UNSIGNED_INT8);
    let img = cl.image(CL_MEM_READ_WRITE, &fmt, CL_MEM_OBJECT_IMAGE2D, [w, h, 1, 0]);
    let input: Vec<u8> = (0..w * h * 4).map(|i| (i * 13 % 256) as u8).collect();
    let src = cl.buffer_from(&input);
    let out = cl.buffer_from(&vec![0u8; w * h * 4]);
    let cb = ext.create(&cl.queue, &[]);
    let (origin, region) = ([0usize; 3], [w, h, 1]);
    let mut s1 = 0;
    // SAFETY: valid objects, three entries per array.
    let s = unsafe {
        (ext.copy_buffer_to_image.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            src.raw(),
            img.raw(),
            0,
            origin.as_ptr(),
            region.as_ptr(),
            0,
            ptr::null(),
            &mut s1,
            ptr::null_mut(),
        )
    };
    assert_eq!(s, CL_SUCCESS, "clCommandCopyBufferToImageKHR");
    // Fill the 4×2 block at (4, 2) with one colour.
    let color = [9u32, 8, 7, 6];
    let (fo, fr) = ([4usize, 2, 0], [4usize, 2, 1]);
    let mut s2 = 0;
    // SAFETY: a 16-byte colour, three entries per array.
    let s = unsafe {
        (ext.fill_image.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            img.raw(),
            color.as_ptr().cast(),
            fo.as_ptr(),
            fr.as_ptr(),
            1,
            &s1,
            &mut s2,
            ptr::null_mut(),
        )
    };
    assert_eq!(s, CL_SUCCESS, "clCommandFillImageKHR");
    // SAFETY: as above.
    let s = unsafe {
        (ext.copy_image_to_buffer.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            img.raw(),
            out.raw(),
            origin.as_ptr(),
            region.as_ptr(),
            0,
            1,
            &s2,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!(s, CL_SUCCESS, "clCommandCopyImageToBufferKHR");
    assert_eq!(cb.finalize(), CL_SUCCESS);
    cb.run();
    let mut want = input.clone();
    for y in 2..4 {
        for x in 4..8 {
            let p = (y * w + x) * 4;
            want[p..p + 4].copy_from_slice(&[9, 8, 7, 6]);
        }
    }
    assert_eq!(cl.queue.read(&out), want);
}

// ---------------------------------------------------------------------
// Mutable dispatch

fn update(ext: &Ext, cb: &CommandBuffer, config: &cl_mutable_dispatch_config_khr) -> cl_int {
    let types = [CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR];
    let mut configs = [(config as *const cl_mutable_dispatch_config_khr).cast::<c_void>()];
    // SAFETY: one configuration of its type.
    unsafe { (ext.update.unwrap())(cb.raw, 1, types.as_ptr(), configs.as_mut_ptr()) }
}

fn config(command: cl_mutable_command_khr) -> cl_mutable_dispatch_config_khr {
    cl_mutable_dispatch_config_khr {
        command,
        num_args: 0,
        num_svm_args: 0,
        num_exec_infos: 0,
        work_dim: 0,
        arg_list: ptr::null(),
        arg_svm_list: ptr::null(),
        exec_info_list: ptr::null(),
        global_work_offset: ptr::null(),
        global_work_size: ptr::null(),
        local_work_size: ptr::null(),
    }
}

#[test]
fn mutable_arguments_offsets_and_sizes() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let program = cl.build(KERNELS);
    let n = 256;
    let a = cl.buffer_from(&(0..n as i32).collect::<Vec<_>>());
    let a2 = cl.buffer_from(&(0..n as i32).map(|i| 1000 - i).collect::<Vec<_>>());
    let b = cl.buffer_from(&vec![-1i32; n]);
    let scale = program.kernel("scale");
    scale.arg(0, &a).arg(1, &b).arg(2, &2i32);
    let cb = ext.create(
        &cl.queue,
        &[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_MUTABLE_KHR,
            0,
        ],
    );
    let props = [
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
            | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
            | CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR,
        0,
    ];
    let mut cmd: cl_mutable_command_khr = ptr::null_mut();
    cb.try_kernel(&props, &scale, None, &[n], None, &[], Some(&mut cmd))
        .expect("record");
    assert!(!cmd.is_null());
    assert_eq!(cb.finalize(), CL_SUCCESS);
    cb.run();
    let reference = |src: &[i32], k: i32| src.iter().map(|x| x * k + 1).collect::<Vec<_>>();
    let av: Vec<i32> = (0..n as i32).collect();
    let a2v: Vec<i32> = (0..n as i32).map(|i| 1000 - i).collect();
    assert_eq!(cl.queue.read(&b), reference(&av, 2));

    // New scalar and new input buffer.
    let k = 5i32;
    let a2raw = a2.raw();
    let args = [
        cl_mutable_dispatch_arg_khr {
            arg_index: 2,
            arg_size: 4,
            arg_value: (&k as *const i32).cast(),
        },
        cl_mutable_dispatch_arg_khr {
            arg_index: 0,
            arg_size: size_of::<cl_mem>(),
            arg_value: (&a2raw as *const cl_mem).cast(),
        },
    ];
    let mut c = config(cmd);
    c.num_args = 2;
    c.arg_list = args.as_ptr();
    assert_eq!(update(&ext, &cb, &c), CL_SUCCESS);
    cb.run();
    assert_eq!(cl.queue.read(&b), reference(&a2v, 5), "updated arguments");

    // Only items [64, 96): offset 64, size 32.
    cl.queue.write(&b, 0, &vec![-1; n]);
    let (off, size) = ([64usize], [32usize]);
    let mut c = config(cmd);
    c.global_work_offset = off.as_ptr();
    c.global_work_size = size.as_ptr();
    assert_eq!(update(&ext, &cb, &c), CL_SUCCESS);
    cb.run();
    let got = cl.queue.read(&b);
    for (i, v) in got.iter().enumerate() {
        let want = if (64..96).contains(&i) {
            a2v[i] * 5 + 1
        } else {
            -1
        };
        assert_eq!(*v, want, "item {i} after the size update");
    }

    // clGetMutableCommandInfoKHR.
    let info = |param| -> Vec<u8> {
        let mut size = 0;
        // SAFETY: size query, then `size` bytes.
        unsafe {
            assert_eq!(
                (ext.command_info.unwrap())(cmd, param, 0, ptr::null_mut(), &mut size),
                CL_SUCCESS
            );
            let mut v = vec![0u8; size];
            assert_eq!(
                (ext.command_info.unwrap())(
                    cmd,
                    param,
                    size,
                    v.as_mut_ptr().cast(),
                    ptr::null_mut()
                ),
                CL_SUCCESS
            );
            v
        }
    };
    assert_eq!(
        u64_of(&info(CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR)) as usize,
        cl.queue.raw() as usize
    );
    assert_eq!(
        u64_of(&info(CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR)) as usize,
        cb.raw as usize
    );
    assert_eq!(
        u32_of(&info(CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR)),
        CL_COMMAND_NDRANGE_KERNEL
    );
    assert_eq!(
        u64_of(&info(CL_MUTABLE_DISPATCH_KERNEL_KHR)) as usize,
        scale.raw() as usize
    );
    assert_eq!(u32_of(&info(CL_MUTABLE_DISPATCH_DIMENSIONS_KHR)), 1);
    assert_eq!(
        u64_of(&info(CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR)),
        64
    );
    assert_eq!(u64_of(&info(CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR)), 32);
    let p: Vec<u64> = info(CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR)
        .chunks(8)
        .map(u64_of)
        .collect();
    assert_eq!(p, props.to_vec());

    // Errors: a field not made updatable, another work_dim, a bad
    // argument, another command buffer's command; none changes anything.
    let local = [16usize];
    let mut c = config(cmd);
    c.local_work_size = local.as_ptr();
    expect_error(
        update(&ext, &cb, &c),
        CL_INVALID_OPERATION,
        "local size not updatable",
    );
    let mut c = config(cmd);
    c.work_dim = 2;
    expect_error(
        update(&ext, &cb, &c),
        CL_INVALID_OPERATION,
        "work_dim changed",
    );
    let bad = [cl_mutable_dispatch_arg_khr {
        arg_index: 7,
        arg_size: 4,
        arg_value: (&k as *const i32).cast(),
    }];
    let mut c = config(cmd);
    c.num_args = 1;
    c.arg_list = bad.as_ptr();
    expect_error(
        update(&ext, &cb, &c),
        CL_INVALID_ARG_INDEX,
        "argument index",
    );
    let mut c = config(cmd);
    c.num_args = 1;
    expect_error(
        update(&ext, &cb, &c),
        CL_INVALID_VALUE,
        "num_args without arg_list",
    );
    let other = ext.create(
        &cl.queue,
        &[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_MUTABLE_KHR,
            0,
        ],
    );
    assert_eq!(other.finalize(), CL_SUCCESS);
    expect_error(
        update(&ext, &other, &config(cmd)),
        CL_INVALID_MUTABLE_COMMAND_KHR,
        "foreign command",
    );
    let types = [CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR + 1];
    let c = config(cmd);
    let mut configs = [(&c as *const cl_mutable_dispatch_config_khr).cast::<c_void>()];
    // SAFETY: one configuration (of a wrong type tag).
    let s = unsafe { (ext.update.unwrap())(cb.raw, 1, types.as_ptr(), configs.as_mut_ptr()) };
    expect_error(s, CL_INVALID_VALUE, "unknown config type");
    // SAFETY: no configurations.
    let s = unsafe { (ext.update.unwrap())(cb.raw, 0, types.as_ptr(), configs.as_mut_ptr()) };
    expect_error(s, CL_INVALID_VALUE, "num_configs 0");
    // The failed updates changed nothing.
    cl.queue.write(&b, 0, &vec![-1; n]);
    cb.run();
    let got = cl.queue.read(&b);
    assert_eq!(got[64], a2v[64] * 5 + 1);
    assert_eq!(got[63], -1);
}

/// A command recorded before its arguments are set finalizes into the
/// FINALIZED state, cannot be enqueued, and becomes executable once an
/// update sets them.
#[test]
fn mutable_deferred_arguments() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let program = cl.build(KERNELS);
    let n = 64;
    let out = cl.buffer_from(&vec![0i32; n]);
    let mark = program.kernel("mark");
    mark.arg(1, &41i32);
    let cb = ext.create(
        &cl.queue,
        &[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_MUTABLE_KHR,
            0,
        ],
    );
    let props = [
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
        0,
    ];
    let mut cmd = ptr::null_mut();
    cb.try_kernel(&props, &mark, None, &[n], None, &[], Some(&mut cmd))
        .expect("record with an argument unset");
    assert_eq!(cb.finalize(), CL_SUCCESS);
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_FINALIZED_KHR);
    expect_error(
        cb.try_enqueue(&[]).unwrap_err(),
        CL_INVALID_OPERATION,
        "enqueue while FINALIZED",
    );
    let raw = out.raw();
    let args = [cl_mutable_dispatch_arg_khr {
        arg_index: 0,
        arg_size: size_of::<cl_mem>(),
        arg_value: (&raw as *const cl_mem).cast(),
    }];
    let mut c = config(cmd);
    c.num_args = 1;
    c.arg_list = args.as_ptr();
    assert_eq!(update(&ext, &cb, &c), CL_SUCCESS);
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    cb.run();
    assert_eq!(cl.queue.read(&out), vec![41; n]);
    // Without the ARGUMENTS field (or in a command buffer that is not
    // mutable) a missing argument is an error at recording.
    let plain = ext.create(&cl.queue, &[]);
    let fresh = program.kernel("mark");
    fresh.arg(1, &1i32);
    expect_error(
        plain
            .try_kernel(&[], &fresh, None, &[n], None, &[], None)
            .unwrap_err(),
        CL_INVALID_KERNEL_ARGS,
        "missing argument, not mutable",
    );
}

// ---------------------------------------------------------------------
// Errors

#[test]
fn error_codes() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let program = cl.build(KERNELS);
    let n = 64;
    let a = cl.buffer::<i32>(n);
    let bump = program.kernel("bump");
    bump.arg(0, &a);
    let q = cl.queue.raw();
    let mut status = 0;

    // Creation.
    // SAFETY: NULL queue list.
    let raw = unsafe { (ext.create.unwrap())(1, ptr::null(), ptr::null(), &mut status) };
    assert!(raw.is_null());
    expect_error(status, CL_INVALID_VALUE, "NULL queues");
    let qs = [q, q];
    // SAFETY: a queue list of no queues.
    unsafe { (ext.create.unwrap())(0, qs.as_ptr(), ptr::null(), &mut status) };
    expect_error(status, CL_INVALID_VALUE, "no queues");
    let bad_q: cl_command_queue = a.raw().cast();
    // SAFETY: an invalid queue handle (a buffer).
    unsafe { (ext.create.unwrap())(1, &bad_q, ptr::null(), &mut status) };
    expect_error(status, CL_INVALID_COMMAND_QUEUE, "not a queue");
    let err = |props: &[u64]| ext.try_create(&cl.queue, props).err();
    assert_eq!(
        err(&[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            1,
            CL_COMMAND_BUFFER_FLAGS_KHR,
            1,
            0
        ]),
        Some(CL_INVALID_VALUE),
        "repeated property"
    );
    assert_eq!(
        err(&[CL_COMMAND_BUFFER_FLAGS_KHR, u64::MAX, 0]),
        Some(CL_INVALID_VALUE),
        "bad flags"
    );
    assert_eq!(
        err(&[0x4444, 0, 0]),
        Some(CL_INVALID_VALUE),
        "unknown property"
    );
    assert_eq!(
        err(&[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR,
            0
        ]),
        None,
        "device-side sync of one queue (cl_khr_command_buffer_multi_device)"
    );

    let cb = ext.create(&cl.queue, &[]);
    // Recording errors.
    let mut sp = 0;
    let unlisted = cl.queue_with(0);
    // SAFETY: a queue the command buffer was not created with.
    let s = unsafe {
        (ext.barrier.unwrap())(
            cb.raw,
            unlisted.raw(),
            ptr::null(),
            0,
            ptr::null(),
            &mut sp,
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_COMMAND_QUEUE, "command_queue not listed");
    // SAFETY: a wait count without a list.
    let s = unsafe {
        (ext.barrier.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            1,
            ptr::null(),
            &mut sp,
            ptr::null_mut(),
        )
    };
    expect_error(
        s,
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
        "NULL sync point list",
    );
    expect_error(
        cb.try_kernel(&[], &bump, None, &[n], None, &[7], None)
            .unwrap_err(),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
        "unknown sync point",
    );
    let mut handle = ptr::null_mut();
    // SAFETY: a handle where NULL is required.
    let s = unsafe {
        (ext.barrier.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            0,
            ptr::null(),
            &mut sp,
            &mut handle,
        )
    };
    expect_error(s, CL_INVALID_VALUE, "mutable_handle of a barrier");
    let bad_props = [0x5555u64, 1, 0];
    expect_error(
        cb.try_kernel(&bad_props, &bump, None, &[n], None, &[], None)
            .unwrap_err(),
        CL_INVALID_VALUE,
        "unknown kernel command property",
    );
    let unknown_field = [CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 1 << 20, 0];
    expect_error(
        cb.try_kernel(&unknown_field, &bump, None, &[n], None, &[], None)
            .unwrap_err(),
        CL_INVALID_VALUE,
        "unknown updatable field",
    );
    expect_error(
        cb.try_kernel(&[], &bump, None, &[n], Some(&[3]), &[], None)
            .unwrap_err(),
        CL_INVALID_WORK_GROUP_SIZE,
        "local size not dividing",
    );
    let unset = program.kernel("mark");
    expect_error(
        cb.try_kernel(&[], &unset, None, &[n], None, &[], None)
            .unwrap_err(),
        CL_INVALID_KERNEL_ARGS,
        "arguments not set",
    );
    let printf = program.kernel("with_printf");
    printf.arg(0, &a);
    expect_error(
        cb.try_kernel(&[], &printf, None, &[1], None, &[], None)
            .unwrap_err(),
        CL_INVALID_OPERATION,
        "printf without KERNEL_PRINTF capability",
    );
    let other = Cl::new();
    let foreign = other.buffer::<i32>(n);
    expect_error(
        cb.try_copy(&a, &foreign, 0, 0, 4, &[]).unwrap_err(),
        CL_INVALID_CONTEXT,
        "buffer of another context",
    );
    let other_kernel = other.build(KERNELS).kernel("bump");
    other_kernel.arg(0, &foreign);
    expect_error(
        cb.try_kernel(&[], &other_kernel, None, &[n], None, &[], None)
            .unwrap_err(),
        CL_INVALID_CONTEXT,
        "kernel of another context",
    );
    expect_error(
        cb.try_copy(&a, &a, 0, 8, 16, &[]).unwrap_err(),
        CL_MEM_COPY_OVERLAP,
        "overlapping copy",
    );
    expect_error(
        cb.try_copy(&a, &a, 0, 128, 256, &[]).unwrap_err(),
        CL_INVALID_VALUE,
        "copy out of range",
    );
    expect_error(
        cb.try_fill(&a, &[1, 2, 3], 0, 12, &[]).unwrap_err(),
        CL_INVALID_VALUE,
        "pattern size 3",
    );
    // Not finalized: no enqueue.
    expect_error(
        cb.try_enqueue(&[]).unwrap_err(),
        CL_INVALID_OPERATION,
        "enqueue while recording",
    );
    cb.kernel(&bump, &[n], &[]);
    assert_eq!(cb.finalize(), CL_SUCCESS);
    expect_error(cb.finalize(), CL_INVALID_OPERATION, "second finalize");
    expect_error(
        cb.try_kernel(&[], &bump, None, &[n], None, &[], None)
            .unwrap_err(),
        CL_INVALID_OPERATION,
        "record after finalize",
    );
    // Not mutable: no update.
    expect_error(
        update(&ext, &cb, &config(ptr::null_mut())),
        CL_INVALID_OPERATION,
        "update of a non-mutable buffer",
    );

    // Enqueue errors.
    // SAFETY: invalid command buffer.
    let s = unsafe {
        (ext.enqueue.unwrap())(
            0,
            ptr::null_mut(),
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_COMMAND_BUFFER_KHR, "NULL command buffer");
    // SAFETY: a count without queues.
    let s = unsafe {
        (ext.enqueue.unwrap())(1, ptr::null_mut(), cb.raw, 0, ptr::null(), ptr::null_mut())
    };
    expect_error(s, CL_INVALID_VALUE, "num_queues without queues");
    let mut two = [q, q];
    // SAFETY: two queues.
    let s = unsafe {
        (ext.enqueue.unwrap())(2, two.as_mut_ptr(), cb.raw, 0, ptr::null(), ptr::null_mut())
    };
    expect_error(s, CL_INVALID_VALUE, "two queues");
    let mut other_q = [other.queue.raw()];
    // SAFETY: a queue of another context.
    let s = unsafe {
        (ext.enqueue.unwrap())(
            1,
            other_q.as_mut_ptr(),
            cb.raw,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_CONTEXT, "queue of another context");
    // A queue with other properties is compatible since 0.9.7
    // (queue_substitution_with_other_properties).
    let same = cl.queue_with(0);
    let mut sq = [same.raw()];
    // SAFETY: a compatible queue.
    let s = unsafe {
        (ext.enqueue.unwrap())(1, sq.as_mut_ptr(), cb.raw, 0, ptr::null(), ptr::null_mut())
    };
    assert_eq!(s, CL_SUCCESS, "substituted compatible queue");
    same.finish();
    // SAFETY: another context.
    let foreign_event = unsafe { clCreateUserEvent(other.context.raw(), &mut status) };
    expect_error(
        cb.try_enqueue(&[foreign_event]).unwrap_err(),
        CL_INVALID_CONTEXT,
        "event of another context",
    );
    // SAFETY: ours.
    unsafe {
        clSetUserEventStatus(foreign_event, CL_COMPLETE);
        clReleaseEvent(foreign_event);
    }
    // SAFETY: a count without a list.
    let s = unsafe {
        (ext.enqueue.unwrap())(0, ptr::null_mut(), cb.raw, 1, ptr::null(), ptr::null_mut())
    };
    expect_error(s, CL_INVALID_EVENT_WAIT_LIST, "NULL event list");
    // Info and retain/release of invalid handles.
    // SAFETY: NULL handles.
    unsafe {
        expect_error(
            (ext.retain.unwrap())(ptr::null_mut()),
            CL_INVALID_COMMAND_BUFFER_KHR,
            "retain NULL",
        );
        expect_error(
            (ext.release.unwrap())(ptr::null_mut()),
            CL_INVALID_COMMAND_BUFFER_KHR,
            "release NULL",
        );
        expect_error(
            (ext.finalize.unwrap())(ptr::null_mut()),
            CL_INVALID_COMMAND_BUFFER_KHR,
            "finalize NULL",
        );
        expect_error(
            (ext.command_info.unwrap())(
                ptr::null_mut(),
                CL_MUTABLE_DISPATCH_KERNEL_KHR,
                0,
                ptr::null_mut(),
                ptr::null_mut(),
            ),
            CL_INVALID_MUTABLE_COMMAND_KHR,
            "mutable info of NULL",
        );
    }
    cl.queue.finish();
}

/// Queue substitution with other properties (cl_khr_command_buffer
/// 0.9.7's compatibility rule, OpenCL-Docs #1292): a command buffer
/// recorded on an in-order queue runs on an out-of-order queue and on a
/// profiling queue (whose event then has its four timestamps), one
/// recorded on an out-of-order queue with sync points runs on an in-order
/// queue; values against the CPU reference each time (CTS
/// queue_substitution_in_order/out_of_order, profiling_substitute_queue).
#[test]
fn queue_substitution_with_other_properties() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let program = cl.build(KERNELS);
    let n = 512usize;
    let a = cl.buffer::<i32>(n);
    let b = cl.buffer::<i32>(n);
    let c = cl.buffer::<i32>(n);
    let scale = program.kernel("scale");
    scale.arg(0, &a).arg(1, &b).arg(2, &5i32);
    let add = program.kernel("add_index");
    add.arg(0, &b).arg(1, &c);
    let record = |queue: &Queue| {
        let cb = ext.create(queue, &[]);
        let s1 = cb.kernel(&scale, &[n], &[]);
        cb.kernel(&add, &[n], &[s1]);
        assert_eq!(cb.finalize(), CL_SUCCESS);
        cb
    };
    let in_order = cl.queue_with(0);
    let out_of_order = cl.queue_with(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let profiling = cl.queue_with(CL_QUEUE_PROFILING_ENABLE);
    let both = cl.queue_with(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let from_in_order = record(&in_order);
    let from_out_of_order = record(&out_of_order);
    let cases: [(&CommandBuffer, &Queue, bool); 4] = [
        (&from_in_order, &out_of_order, false),
        (&from_in_order, &profiling, true),
        (&from_out_of_order, &in_order, false),
        (&from_out_of_order, &both, true),
    ];
    for (round, (cb, queue, timed)) in cases.into_iter().enumerate() {
        let input: Vec<i32> = (0..n as i32).map(|i| i * 3 - 100 * round as i32).collect();
        cl.queue.write(&a, 0, &input);
        cl.queue.write(&c, 0, &vec![0; n]);
        cl.queue.finish();
        let mut q = [queue.raw()];
        let mut e = ptr::null_mut();
        // SAFETY: a compatible queue of the same device; room for the event.
        let s =
            unsafe { (ext.enqueue.unwrap())(1, q.as_mut_ptr(), cb.raw, 0, ptr::null(), &mut e) };
        assert_eq!(s, CL_SUCCESS, "case {round}: substituted queue");
        // SAFETY: ours.
        assert_eq!(unsafe { clWaitForEvents(1, &e) }, CL_SUCCESS);
        if timed {
            let t = |p| -> u64 {
                let mut v = 0u64;
                // SAFETY: a cl_ulong value.
                let s = unsafe {
                    clGetEventProfilingInfo(e, p, 8, (&mut v as *mut u64).cast(), ptr::null_mut())
                };
                assert_eq!(s, CL_SUCCESS, "case {round}: clGetEventProfilingInfo");
                v
            };
            let (queued, submit, start, end) = (
                t(CL_PROFILING_COMMAND_QUEUED),
                t(CL_PROFILING_COMMAND_SUBMIT),
                t(CL_PROFILING_COMMAND_START),
                t(CL_PROFILING_COMMAND_END),
            );
            assert!(
                queued <= submit && submit <= start && start <= end && queued > 0,
                "case {round}: {queued} {submit} {start} {end}"
            );
        }
        // SAFETY: ours.
        unsafe { clReleaseEvent(e) };
        let want: Vec<i32> = input
            .iter()
            .enumerate()
            .map(|(i, x)| x * 5 + 1 + i as i32)
            .collect();
        assert_eq!(cl.queue.read(&c), want, "case {round}: chain result");
    }
}

/// An SVM allocation of the test's context, freed on drop.
struct SvmAlloc<'a> {
    cl: &'a Cl,
    ptr: *mut c_void,
}

impl<'a> SvmAlloc<'a> {
    fn new(cl: &'a Cl, bytes: usize) -> Self {
        // SAFETY: valid context, read-write coarse-grained.
        let ptr = unsafe { clSVMAlloc(cl.raw(), CL_MEM_READ_WRITE, bytes, 0) };
        assert!(!ptr.is_null(), "clSVMAlloc({bytes})");
        SvmAlloc { cl, ptr }
    }

    /// `n` ints from `at` (in ints), read under a blocking map.
    fn read(&self, at: usize, n: usize) -> Vec<i32> {
        let q = self.cl.queue.raw();
        // SAFETY: a live allocation holding the range; mapped for reading.
        unsafe {
            let p = self.ptr.cast::<i32>().add(at);
            let s = clEnqueueSVMMap(
                q,
                CL_TRUE,
                CL_MAP_READ,
                p.cast(),
                n * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            );
            assert_eq!(s, CL_SUCCESS, "clEnqueueSVMMap");
            let v = std::slice::from_raw_parts(p, n).to_vec();
            let s = clEnqueueSVMUnmap(q, p.cast(), 0, ptr::null(), ptr::null_mut());
            assert_eq!(s, CL_SUCCESS, "clEnqueueSVMUnmap");
            self.cl.queue.finish();
            v
        }
    }

    /// Writes `v` at `at` (in ints) under a blocking map.
    fn write(&self, at: usize, v: &[i32]) {
        let q = self.cl.queue.raw();
        // SAFETY: a live allocation holding the range; mapped for writing.
        unsafe {
            let p = self.ptr.cast::<i32>().add(at);
            let s = clEnqueueSVMMap(
                q,
                CL_TRUE,
                CL_MAP_WRITE,
                p.cast(),
                v.len() * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            );
            assert_eq!(s, CL_SUCCESS, "clEnqueueSVMMap");
            std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len());
            let s = clEnqueueSVMUnmap(q, p.cast(), 0, ptr::null(), ptr::null_mut());
            assert_eq!(s, CL_SUCCESS, "clEnqueueSVMUnmap");
            self.cl.queue.finish();
        }
    }

    fn at(&self, ints: usize) -> *mut c_void {
        // SAFETY: callers stay inside (or one past) the allocation.
        unsafe { self.ptr.cast::<i32>().add(ints).cast() }
    }
}

impl Drop for SvmAlloc<'_> {
    fn drop(&mut self) {
        self.cl.queue.finish();
        // SAFETY: allocated by clSVMAlloc in this context; nothing uses it.
        unsafe { clSVMFree(self.cl.raw(), self.ptr) };
    }
}

/// Mutable SVM arguments and exec info (CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
/// with arg_svm_list, CL_MUTABLE_DISPATCH_EXEC_INFO_KHR): a kernel
/// increments the ints a wrapper in SVM points to (the CTS's
/// mutable_dispatch_svm_arguments); an update retargets it to another
/// wrapper and its array (exec info naming the array). Each replay adds
/// one to the array of the current configuration and leaves the other
/// alone; clSetKernelArgSVMPointer's and clSetKernelExecInfo's errors hold
/// for updates.
#[test]
fn mutable_svm_argument_and_exec_info() {
    if !supported() {
        return;
    }
    let caps: cl_device_svm_capabilities =
        ferrocl_tests::device_value(device(), CL_DEVICE_SVM_CAPABILITIES);
    if caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        eprintln!("skipped: no coarse-grained buffer SVM");
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let n = 64usize;
    let k = cl.kernel(
        "typedef struct { global int *ptr; } wrapper;
         kernel void inc(global wrapper *w, int k) { w->ptr[get_global_id(0)] += k; }",
        "inc",
    );
    let (w1, a1) = (SvmAlloc::new(&cl, 8), SvmAlloc::new(&cl, n * 4));
    let (w2, a2) = (SvmAlloc::new(&cl, 8), SvmAlloc::new(&cl, n * 4));
    for (w, a) in [(&w1, &a1), (&w2, &a2)] {
        let p = a.ptr as u64;
        w.write(0, &[p as u32 as i32, (p >> 32) as u32 as i32]);
        a.write(0, &vec![0; n]);
    }
    let set_exec_info = |list: &[*mut c_void]| {
        // SAFETY: valid kernel; the list holds its pointers.
        let s = unsafe {
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_SVM_PTRS,
                std::mem::size_of_val(list),
                list.as_ptr().cast(),
            )
        };
        assert_eq!(s, CL_SUCCESS, "clSetKernelExecInfo");
    };
    // SAFETY: valid kernel, an SVM pointer.
    let s = unsafe { clSetKernelArgSVMPointer(k.raw(), 0, w1.ptr) };
    assert_eq!(s, CL_SUCCESS);
    k.arg(1, &1i32);
    set_exec_info(&[a1.ptr]);
    let cb = ext.create(
        &cl.queue,
        &[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_MUTABLE_KHR,
            0,
        ],
    );
    let props = [
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR,
        0,
    ];
    let mut cmd = ptr::null_mut();
    cb.try_kernel(&props, &k, None, &[n], None, &[], Some(&mut cmd))
        .expect("record");
    assert_eq!(cb.finalize(), CL_SUCCESS);
    // Changing the kernel after recording changes nothing recorded.
    set_exec_info(&[]);
    cb.run();
    cb.run();
    assert_eq!(a1.read(0, n), vec![2; n], "two replays on the first array");
    assert_eq!(a2.read(0, n), vec![0; n], "second array untouched");
    let svm_arg = cl_mutable_dispatch_arg_khr {
        arg_index: 0,
        arg_size: 0,
        arg_value: w2.ptr,
    };
    let list = [a2.ptr];
    let info = cl_mutable_dispatch_exec_info_khr {
        param_name: CL_KERNEL_EXEC_INFO_SVM_PTRS,
        param_value_size: std::mem::size_of_val(&list),
        param_value: list.as_ptr().cast(),
    };
    let mut c = config(cmd);
    c.num_svm_args = 1;
    c.arg_svm_list = &svm_arg;
    c.num_exec_infos = 1;
    c.exec_info_list = &info;
    assert_eq!(update(&ext, &cb, &c), CL_SUCCESS, "update");
    cb.run();
    assert_eq!(a1.read(0, n), vec![2; n], "first array after the update");
    assert_eq!(a2.read(0, n), vec![1; n], "second array after the update");
    // The errors of the calls an update stands for.
    let bad_arg = cl_mutable_dispatch_arg_khr {
        arg_index: 1,
        arg_size: 0,
        arg_value: w2.ptr,
    };
    let mut c = config(cmd);
    c.num_svm_args = 1;
    c.arg_svm_list = &bad_arg;
    expect_error(
        update(&ext, &cb, &c),
        CL_INVALID_ARG_VALUE,
        "SVM pointer for an int",
    );
    let bad_info = cl_mutable_dispatch_exec_info_khr {
        param_name: CL_KERNEL_EXEC_INFO_SVM_PTRS,
        param_value_size: 8,
        param_value: ptr::null(),
    };
    let mut c = config(cmd);
    c.num_exec_infos = 1;
    c.exec_info_list = &bad_info;
    expect_error(
        update(&ext, &cb, &c),
        CL_INVALID_VALUE,
        "exec info NULL with a size",
    );
    cb.run();
    assert_eq!(a2.read(0, n), vec![2; n], "failed updates changed nothing");
}

/// clCommandSVMMemFillKHR and clCommandSVMMemcpyKHR on a device with
/// coarse-grained buffer SVM: a fill of part of one allocation and a copy
/// of it into another (after the fill through a sync point), replayed
/// while the host changes both allocations between enqueues; values
/// against the host's model. The error codes: NULL pointers and bad
/// patterns CL_INVALID_VALUE, a range past the allocation's end
/// CL_INVALID_VALUE, an overlapping copy CL_MEM_COPY_OVERLAP, a host
/// pointer outside SVM memory CL_INVALID_OPERATION (ferrocl cannot replay
/// a host copy), 0 bytes a command that does nothing (CTS fill_svm_buffer,
/// copy_svm_buffer, negative_command_buffer_command_svm_*).
#[test]
fn svm_fill_and_memcpy_replayed() {
    if !supported() {
        return;
    }
    let caps: cl_device_svm_capabilities =
        ferrocl_tests::device_value(device(), CL_DEVICE_SVM_CAPABILITIES);
    if caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        eprintln!("skipped: no coarse-grained buffer SVM");
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let n = 256usize;
    let a = SvmAlloc::new(&cl, n * 4);
    let b = SvmAlloc::new(&cl, n * 4);
    let unlisted = cl.queue_with(0);
    let cb = ext.create(&cl.queue, &[]);
    let pattern = [0x1111_2222i32, -7];
    let none = ptr::null_mut();
    let mut fill_sp = 0;
    // SAFETY: valid command buffer; ranges inside the allocations.
    unsafe {
        let s = (ext.svm_fill.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            a.at(16),
            pattern.as_ptr().cast(),
            8,
            64 * 4,
            0,
            ptr::null(),
            &mut fill_sp,
            none,
        );
        assert_eq!(s, CL_SUCCESS, "clCommandSVMMemFillKHR");
        let s = (ext.svm_memcpy.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            b.at(100),
            a.at(8),
            128 * 4,
            1,
            &fill_sp,
            ptr::null_mut(),
            none,
        );
        assert_eq!(s, CL_SUCCESS, "clCommandSVMMemcpyKHR");
        let s = (ext.svm_memcpy.unwrap())(
            cb.raw,
            ptr::null_mut(),
            ptr::null(),
            b.at(0),
            a.at(0),
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
            none,
        );
        assert_eq!(s, CL_SUCCESS, "memcpy of 0 bytes");
        let mut host = [0i32; 4];
        let errors = [
            (
                (ext.svm_memcpy.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    ptr::null_mut(),
                    a.at(0),
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_INVALID_VALUE,
                "memcpy to NULL",
            ),
            (
                (ext.svm_memcpy.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    a.at(2),
                    a.at(0),
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_MEM_COPY_OVERLAP,
                "overlapping memcpy",
            ),
            (
                (ext.svm_memcpy.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    b.at(n - 2),
                    a.at(0),
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_INVALID_VALUE,
                "memcpy past the end",
            ),
            (
                (ext.svm_memcpy.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    host.as_mut_ptr().cast(),
                    a.at(0),
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_INVALID_OPERATION,
                "memcpy to host memory",
            ),
            (
                (ext.svm_fill.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    a.at(1),
                    pattern.as_ptr().cast(),
                    8,
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_INVALID_VALUE,
                "fill not aligned to the pattern",
            ),
            (
                (ext.svm_fill.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    a.at(0),
                    pattern.as_ptr().cast(),
                    8,
                    12,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_INVALID_VALUE,
                "fill size not a multiple",
            ),
            (
                (ext.svm_fill.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    a.at(n - 2),
                    pattern.as_ptr().cast(),
                    8,
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_INVALID_VALUE,
                "fill past the end",
            ),
            (
                (ext.svm_fill.unwrap())(
                    cb.raw,
                    ptr::null_mut(),
                    ptr::null(),
                    a.at(0),
                    pattern.as_ptr().cast(),
                    8,
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    cb.raw.cast(),
                ),
                CL_INVALID_VALUE,
                "fill with a mutable handle",
            ),
            (
                (ext.svm_fill.unwrap())(
                    cb.raw,
                    unlisted.raw(),
                    ptr::null(),
                    a.at(0),
                    pattern.as_ptr().cast(),
                    8,
                    16,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    none,
                ),
                CL_INVALID_COMMAND_QUEUE,
                "fill with a queue not listed",
            ),
        ];
        for (got, want, what) in errors {
            expect_error(got, want, what);
        }
    }
    assert_eq!(cb.finalize(), CL_SUCCESS);
    for round in 0..3i32 {
        let old_a: Vec<i32> = (0..n as i32).map(|i| i * 11 + round).collect();
        let old_b: Vec<i32> = (0..n as i32).map(|i| -i - 1000 * round).collect();
        a.write(0, &old_a);
        b.write(0, &old_b);
        cb.run();
        let mut want_a = old_a.clone();
        for (i, v) in want_a[16..80].iter_mut().enumerate() {
            *v = pattern[i % 2];
        }
        let mut want_b = old_b.clone();
        want_b[100..228].copy_from_slice(&want_a[8..136]);
        assert_eq!(a.read(0, n), want_a, "round {round}: filled allocation");
        assert_eq!(b.read(0, n), want_b, "round {round}: copy destination");
    }
}

// ---------------------------------------------------------------------
// Completion checks per replay (lavapipe's loop limit)

const LOOPS: &str = r#"
kernel void single(global uint* out, uint n) {
    uint s = get_global_id(0);
    for (uint k = 0; k < n; k++)
        s = s * 1664525u + 1013904223u + k;
    out[get_global_id(0)] = s;
}
"#;

fn single_ref(items: usize, n: u32) -> Vec<u32> {
    (0..items as u32)
        .map(|gid| {
            (0..n).fold(gid, |s, k| {
                s.wrapping_mul(1664525)
                    .wrapping_add(1013904223)
                    .wrapping_add(k)
            })
        })
        .collect()
}

/// Each replay checks its kernels like a launch does: on lavapipe (which
/// cuts a shader's loops after 65535 passes per 8 work-items) a replay
/// whose loop may have been cut fails with CL_OUT_OF_RESOURCES and
/// clFinish reports it once; after an update to a short loop the replays
/// are exact again. On a device that does not cut loops every replay is
/// exact.
#[test]
fn replays_check_cut_loops() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let llvmpipe = ferrocl_tests::device_string(cl.device(), CL_DEVICE_NAME).contains("llvmpipe");
    let limiter = std::env::var("FERROCL_LOOP_LIMITER").as_deref() != Ok("0");
    if llvmpipe && !limiter {
        return; // loops cut silently: nothing to expect
    }
    let items = 64usize;
    let out = cl.buffer::<u32>(items);
    let k = cl.kernel(LOOPS, "single");
    let long = 70_000u32;
    k.arg(0, &out).arg(1, &long);
    let cb = ext.create(
        &cl.queue,
        &[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_MUTABLE_KHR,
            0,
        ],
    );
    let props = [
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
        0,
    ];
    let mut cmd = ptr::null_mut();
    cb.try_kernel(&props, &k, None, &[items], Some(&[32]), &[], Some(&mut cmd))
        .expect("record");
    assert_eq!(cb.finalize(), CL_SUCCESS);
    let e = cb.try_enqueue(&[]).expect("enqueue");
    // SAFETY: a live event.
    let waited = unsafe { clWaitForEvents(1, &e) };
    let status: cl_int = event_value(e, CL_EVENT_COMMAND_EXECUTION_STATUS);
    // SAFETY: ours.
    unsafe { clReleaseEvent(e) };
    // SAFETY: valid queue.
    let finish = || unsafe { clFinish(cl.queue.raw()) };
    if llvmpipe {
        expect_error(
            waited,
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            "wait for the cut replay",
        );
        expect_error(status, CL_OUT_OF_RESOURCES, "status of the cut replay");
        expect_error(
            finish(),
            CL_OUT_OF_RESOURCES,
            "clFinish after the cut replay",
        );
        expect_error(finish(), CL_SUCCESS, "reported once");
    } else {
        assert_eq!(waited, CL_SUCCESS);
        assert_eq!(cl.queue.read(&out), single_ref(items, long), "long loop");
    }
    let short = 1000u32;
    let args = [cl_mutable_dispatch_arg_khr {
        arg_index: 1,
        arg_size: 4,
        arg_value: (&short as *const u32).cast(),
    }];
    let mut c = config(cmd);
    c.num_args = 1;
    c.arg_list = args.as_ptr();
    assert_eq!(update(&ext, &cb, &c), CL_SUCCESS);
    cb.run();
    expect_error(finish(), CL_SUCCESS, "clFinish after the short replay");
    assert_eq!(cl.queue.read(&out), single_ref(items, short), "short loop");
}

/// An update while an enqueue is pending changes the later enqueues only:
/// the pending one runs what was recorded when it was enqueued.
#[test]
fn update_while_pending_affects_later_enqueues_only() {
    if !supported() {
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let program = cl.build(KERNELS);
    let n = 128;
    let first = cl.buffer_from(&vec![0i32; n]);
    let second = cl.buffer_from(&vec![0i32; n]);
    let mark = program.kernel("mark");
    mark.arg(0, &first).arg(1, &11i32);
    let cb = ext.create(
        &cl.queue,
        &[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_MUTABLE_KHR | CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR,
            0,
        ],
    );
    let mut cmd = ptr::null_mut();
    cb.try_kernel(&[], &mark, None, &[n], None, &[], Some(&mut cmd))
        .expect("record");
    assert_eq!(cb.finalize(), CL_SUCCESS);
    let mut status = 0;
    // SAFETY: valid context.
    let gate = unsafe { clCreateUserEvent(cl.context.raw(), &mut status) };
    assert_eq!(status, CL_SUCCESS);
    let pending = cb.try_enqueue(&[gate]).expect("enqueue behind the gate");
    // Retarget the command: the other buffer, another value.
    let raw = second.raw();
    let v = 22i32;
    let args = [
        cl_mutable_dispatch_arg_khr {
            arg_index: 0,
            arg_size: size_of::<cl_mem>(),
            arg_value: (&raw as *const cl_mem).cast(),
        },
        cl_mutable_dispatch_arg_khr {
            arg_index: 1,
            arg_size: 4,
            arg_value: (&v as *const i32).cast(),
        },
    ];
    let mut c = config(cmd);
    c.num_args = 2;
    c.arg_list = args.as_ptr();
    assert_eq!(update(&ext, &cb, &c), CL_SUCCESS);
    let later = cb.try_enqueue(&[]).expect("enqueue after the update");
    // SAFETY: our user event.
    assert_eq!(
        unsafe { clSetUserEventStatus(gate, CL_COMPLETE) },
        CL_SUCCESS
    );
    wait_release(later);
    wait_release(pending);
    // SAFETY: ours.
    unsafe { clReleaseEvent(gate) };
    assert_eq!(cl.queue.read(&first), vec![11; n], "the pending enqueue");
    assert_eq!(
        cl.queue.read(&second),
        vec![22; n],
        "the enqueue after the update"
    );
}
