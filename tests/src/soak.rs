//! The soak (`ferrocl-soak`): cycles that create, use and release one
//! object of every kind, with samples of the process's resident memory,
//! open file descriptors and ferrocl's live Vulkan-backed objects.
//!
//! One cycle: a context, an in-order profiling queue, a buffer (copied
//! from the host) and a sub-buffer, a 2D image and a sampler (when the
//! device has images), a program built from source and one built from its
//! binary, a kernel of each, launches (direct, and through a command
//! buffer when the platform has cl_khr_command_buffer), reads checked
//! against the values written, a user event gating a marker with event
//! callbacks on both, and an SVM allocation filled and read back (when
//! the device has SVM). Everything is released at the end of the cycle.

use std::ffi::{c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

use opencl_sys::*;

const SOURCE: &str = "kernel void k(global int *a, int n) {\n\
    size_t i = get_global_id(0);\n\
    a[i] = n + (int)i;\n\
}\n";

/// Elements of the cycle's buffer.
const N: usize = 64;

static CALLBACKS: AtomicU64 = AtomicU64::new(0);

extern "C" fn count_callback(_: cl_event, _: cl_int, _: *mut c_void) {
    CALLBACKS.fetch_add(1, Ordering::Relaxed);
}

fn ok(what: &str, code: cl_int) {
    assert_eq!(code, CL_SUCCESS, "soak: {what} failed ({code})");
}

fn obj<T>(what: &str, p: *mut T, code: cl_int) -> *mut T {
    ok(what, code);
    assert!(!p.is_null(), "soak: {what} returned NULL");
    p
}

/// What a cycle needs to know about the platform.
pub struct Target {
    pub platform: cl_platform_id,
    pub device: cl_device_id,
    pub images: bool,
    pub svm: bool,
    /// The debug counter entry point (FERROCL_LOG set), if any.
    live: Option<unsafe extern "C" fn(*mut i64, u32) -> u32>,
    create_cb: clCreateCommandBufferKHR_t,
    record_nd: clCommandNDRangeKernelKHR_t,
    finalize_cb: clFinalizeCommandBufferKHR_t,
    enqueue_cb: clEnqueueCommandBufferKHR_t,
    release_cb: clReleaseCommandBufferKHR_t,
}

fn ext<T: Copy>(p: cl_platform_id, name: &CStr) -> T {
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: live platform, NUL-terminated name.
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(p, name.as_ptr()) };
    // SAFETY: T is an Option of the named function's pointer type.
    unsafe { std::mem::transmute_copy(&f) }
}

impl Default for Target {
    fn default() -> Self {
        Target::new()
    }
}

impl Target {
    /// The platform under test (`FERROCL_TEST_PLATFORM`) and its first
    /// device.
    pub fn new() -> Target {
        let platform = crate::platform();
        let device = crate::device();
        let flag = |param| {
            let mut v = 0u64;
            // SAFETY: 8 bytes out.
            unsafe {
                clGetDeviceInfo(
                    device,
                    param,
                    8,
                    (&mut v as *mut u64).cast(),
                    ptr::null_mut(),
                )
            };
            v
        };
        Target {
            platform,
            device,
            images: flag(CL_DEVICE_IMAGE_SUPPORT) & 0xffff_ffff != 0,
            svm: flag(CL_DEVICE_SVM_CAPABILITIES) != 0,
            live: ext(platform, c"ferroclDebugLiveVulkanObjects"),
            create_cb: ext(platform, c"clCreateCommandBufferKHR"),
            record_nd: ext(platform, c"clCommandNDRangeKernelKHR"),
            finalize_cb: ext(platform, c"clFinalizeCommandBufferKHR"),
            enqueue_cb: ext(platform, c"clEnqueueCommandBufferKHR"),
            release_cb: ext(platform, c"clReleaseCommandBufferKHR"),
        }
    }

    /// ferrocl's live Vulkan-backed objects (buffers, images, buffer views,
    /// kernel pipeline sets, queue engines), when it tells.
    pub fn live_objects(&self) -> Option<Vec<i64>> {
        let f = self.live?;
        let mut out = [0i64; 8];
        // SAFETY: room for 8 counts.
        let n = unsafe { f(out.as_mut_ptr(), 8) };
        Some(out[..(n as usize).min(8)].to_vec())
    }
}

/// Event callbacks run so far (each cycle adds three).
pub fn callbacks() -> u64 {
    CALLBACKS.load(Ordering::Relaxed)
}

unsafe fn build(p: cl_program, device: cl_device_id) {
    // SAFETY: live program and device.
    ok("clBuildProgram", unsafe {
        clBuildProgram(p, 1, &device, c"".as_ptr(), None, ptr::null_mut())
    });
}

unsafe fn read(q: cl_command_queue, b: cl_mem, out: &mut [i32]) {
    // SAFETY: a blocking read of the whole slice.
    ok("clEnqueueReadBuffer", unsafe {
        clEnqueueReadBuffer(
            q,
            b,
            CL_TRUE,
            0,
            out.len() * 4,
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    });
}

fn check(what: &str, got: &[i32], n: i32) {
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, n + i as i32, "soak: {what}: element {i}");
    }
}

/// One cycle; `c` makes its values differ from the last one's.
pub fn cycle(t: &Target, c: u64) {
    let d = t.device;
    let n = (c % 1000) as i32;
    let mut e = 0;
    // SAFETY: every handle below is live until its release at the end;
    // pointers are to locals of the right sizes.
    unsafe {
        let ctx = obj(
            "clCreateContext",
            clCreateContext(ptr::null(), 1, &d, None, ptr::null_mut(), &mut e),
            e,
        );
        let props = [CL_QUEUE_PROPERTIES as u64, CL_QUEUE_PROFILING_ENABLE, 0];
        let q = obj(
            "clCreateCommandQueueWithProperties",
            clCreateCommandQueueWithProperties(ctx, d, props.as_ptr(), &mut e),
            e,
        );
        let mut host = [0i32; N];
        let buf = obj(
            "clCreateBuffer",
            clCreateBuffer(
                ctx,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                N * 4,
                host.as_mut_ptr().cast(),
                &mut e,
            ),
            e,
        );
        let region = cl_buffer_region {
            origin: 0,
            size: N * 2,
        };
        let sub = obj(
            "clCreateSubBuffer",
            clCreateSubBuffer(
                buf,
                0,
                CL_BUFFER_CREATE_TYPE_REGION,
                (&region as *const cl_buffer_region).cast(),
                &mut e,
            ),
            e,
        );

        // Programs: from source, and from the source one's binary.
        let src = SOURCE.as_ptr() as *const std::ffi::c_char;
        let len = SOURCE.len();
        let p1 = obj(
            "clCreateProgramWithSource",
            clCreateProgramWithSource(ctx, 1, &src, &len, &mut e),
            e,
        );
        build(p1, d);
        let mut size = 0usize;
        ok(
            "CL_PROGRAM_BINARY_SIZES",
            clGetProgramInfo(
                p1,
                CL_PROGRAM_BINARY_SIZES,
                8,
                (&mut size as *mut usize).cast(),
                ptr::null_mut(),
            ),
        );
        let mut bin = vec![0u8; size];
        let mut bp = bin.as_mut_ptr();
        ok(
            "CL_PROGRAM_BINARIES",
            clGetProgramInfo(
                p1,
                CL_PROGRAM_BINARIES,
                8,
                (&mut bp as *mut *mut u8).cast(),
                ptr::null_mut(),
            ),
        );
        let bptr = bin.as_ptr();
        let p2 = obj(
            "clCreateProgramWithBinary",
            clCreateProgramWithBinary(ctx, 1, &d, &size, &bptr, ptr::null_mut(), &mut e),
            e,
        );
        build(p2, d);
        let k1 = obj(
            "clCreateKernel",
            clCreateKernel(p1, c"k".as_ptr(), &mut e),
            e,
        );
        let k2 = obj(
            "clCreateKernel",
            clCreateKernel(p2, c"k".as_ptr(), &mut e),
            e,
        );

        // A user event gates the launch; callbacks on it and on the launch.
        let user = obj("clCreateUserEvent", clCreateUserEvent(ctx, &mut e), e);
        ok(
            "clSetEventCallback",
            clSetEventCallback(user, CL_COMPLETE, Some(count_callback), ptr::null_mut()),
        );
        for (k, b) in [(k1, buf), (k2, sub)] {
            ok(
                "clSetKernelArg",
                clSetKernelArg(k, 0, 8, (&b as *const cl_mem).cast()),
            );
            ok(
                "clSetKernelArg",
                clSetKernelArg(k, 1, 4, (&n as *const i32).cast()),
            );
        }
        let global = [N];
        let mut run = ptr::null_mut();
        ok(
            "clEnqueueNDRangeKernel",
            clEnqueueNDRangeKernel(
                q,
                k1,
                1,
                ptr::null(),
                global.as_ptr(),
                ptr::null(),
                1,
                &user,
                &mut run,
            ),
        );
        ok(
            "clSetEventCallback",
            clSetEventCallback(run, CL_COMPLETE, Some(count_callback), ptr::null_mut()),
        );
        let mut marker = ptr::null_mut();
        ok(
            "clEnqueueMarkerWithWaitList",
            clEnqueueMarkerWithWaitList(q, 1, &run, &mut marker),
        );
        ok(
            "clSetEventCallback",
            clSetEventCallback(marker, CL_COMPLETE, Some(count_callback), ptr::null_mut()),
        );
        ok(
            "clSetUserEventStatus",
            clSetUserEventStatus(user, CL_COMPLETE),
        );
        ok("clWaitForEvents", clWaitForEvents(1, &marker));
        let mut out = [0i32; N];
        read(q, buf, &mut out);
        check("kernel from source", &out, n);
        let mut start = 0u64;
        ok(
            "clGetEventProfilingInfo",
            clGetEventProfilingInfo(
                run,
                CL_PROFILING_COMMAND_START,
                8,
                (&mut start as *mut u64).cast(),
                ptr::null_mut(),
            ),
        );

        // The binary's kernel on the sub-buffer (its first half).
        let half = [N / 2];
        ok(
            "clEnqueueNDRangeKernel",
            clEnqueueNDRangeKernel(
                q,
                k2,
                1,
                ptr::null(),
                half.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
        );
        let mut out2 = [0i32; N / 2];
        read(q, sub, &mut out2);
        check("kernel from binary", &out2, n);

        // A command buffer launching the source kernel with n + 1.
        if let (Some(create), Some(record), Some(finalize), Some(enqueue), Some(release)) = (
            t.create_cb,
            t.record_nd,
            t.finalize_cb,
            t.enqueue_cb,
            t.release_cb,
        ) {
            let cb = obj(
                "clCreateCommandBufferKHR",
                create(1, &q, ptr::null(), &mut e),
                e,
            );
            let n1 = n + 1;
            ok(
                "clSetKernelArg",
                clSetKernelArg(k1, 1, 4, (&n1 as *const i32).cast()),
            );
            ok(
                "clCommandNDRangeKernelKHR",
                record(
                    cb,
                    ptr::null_mut(),
                    ptr::null(),
                    k1,
                    1,
                    ptr::null(),
                    global.as_ptr(),
                    ptr::null(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    ptr::null_mut(),
                ),
            );
            ok("clFinalizeCommandBufferKHR", finalize(cb));
            let mut qs = [q];
            ok(
                "clEnqueueCommandBufferKHR",
                enqueue(1, qs.as_mut_ptr(), cb, 0, ptr::null(), ptr::null_mut()),
            );
            read(q, buf, &mut out);
            check("command buffer", &out, n1);
            ok("clReleaseCommandBufferKHR", release(cb));
        }

        // An image written and read back, and a sampler.
        if t.images {
            let fmt = cl_image_format {
                image_channel_order: CL_RGBA,
                image_channel_data_type: CL_UNSIGNED_INT8,
            };
            let mut desc: cl_image_desc = std::mem::zeroed();
            desc.image_type = CL_MEM_OBJECT_IMAGE2D;
            desc.image_width = 8;
            desc.image_height = 8;
            let img = obj(
                "clCreateImage",
                clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, ptr::null_mut(), &mut e),
                e,
            );
            let pixels: Vec<u8> = (0..256).map(|i| (i as u64 + c) as u8).collect();
            let (o, r) = ([0usize; 3], [8usize, 8, 1]);
            ok(
                "clEnqueueWriteImage",
                clEnqueueWriteImage(
                    q,
                    img,
                    CL_TRUE,
                    o.as_ptr(),
                    r.as_ptr(),
                    0,
                    0,
                    pixels.as_ptr().cast(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
            );
            let mut back = vec![0u8; 256];
            ok(
                "clEnqueueReadImage",
                clEnqueueReadImage(
                    q,
                    img,
                    CL_TRUE,
                    o.as_ptr(),
                    r.as_ptr(),
                    0,
                    0,
                    back.as_mut_ptr().cast(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
            );
            assert_eq!(back, pixels, "soak: image read back");
            let s = obj(
                "clCreateSamplerWithProperties",
                clCreateSamplerWithProperties(ctx, ptr::null(), &mut e),
                e,
            );
            ok("clReleaseSampler", clReleaseSampler(s));
            ok("clReleaseMemObject", clReleaseMemObject(img));
        }

        // SVM: filled, copied to the host, freed.
        if t.svm {
            let p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, N * 4, 0);
            assert!(!p.is_null(), "soak: clSVMAlloc returned NULL");
            ok(
                "clEnqueueSVMMemFill",
                clEnqueueSVMMemFill(
                    q,
                    p,
                    (&n as *const i32).cast(),
                    4,
                    N * 4,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
            );
            let mut back = [0i32; N];
            ok(
                "clEnqueueSVMMemcpy",
                clEnqueueSVMMemcpy(
                    q,
                    CL_TRUE,
                    back.as_mut_ptr().cast(),
                    p,
                    N * 4,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
            );
            assert!(back.iter().all(|v| *v == n), "soak: SVM fill read back");
            clSVMFree(ctx, p);
        }

        ok("clFinish", clFinish(q));
        for ev in [user, run, marker] {
            ok("clReleaseEvent", clReleaseEvent(ev));
        }
        ok("clReleaseKernel", clReleaseKernel(k1));
        ok("clReleaseKernel", clReleaseKernel(k2));
        ok("clReleaseProgram", clReleaseProgram(p1));
        ok("clReleaseProgram", clReleaseProgram(p2));
        ok("clReleaseMemObject", clReleaseMemObject(sub));
        ok("clReleaseMemObject", clReleaseMemObject(buf));
        ok("clReleaseCommandQueue", clReleaseCommandQueue(q));
        ok("clReleaseContext", clReleaseContext(ctx));
    }
}

/// The process's resident memory in KiB (`VmRSS`).
pub fn rss_kib() -> u64 {
    status_kib("VmRSS:")
}

/// The process's resident anonymous memory in KiB (`RssAnon`): the heap
/// and other private pages, what a leak grows. VmRSS also counts the
/// libraries' file-backed pages, which the kernel drops and reads again
/// as other processes need the page cache (a soak of 2026-11-27: VmRSS
/// fell from 86,776 to 40,056 KiB between two samples).
pub fn anon_kib() -> u64 {
    status_kib("RssAnon:")
}

/// A `kB` field of /proc/self/status (0 when absent).
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Open file descriptors of the process.
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}
