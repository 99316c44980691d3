//! The objects every fuzzing thread picks its arguments from: live objects
//! of each kind (made once per worker process, released at its end), a
//! second context for wrong-context arguments, handles whose OpenCL
//! reference count reached zero while another object still holds them
//! (ferrocl's handle check rejects those: `runtime/src/core/object.rs`),
//! and a forged handle (ferrocl's dispatch pointer with a tag of no
//! object type). Nothing here is ever released by a fuzzed call.

use std::ffi::c_void;
use std::ptr;

use opencl_sys::*;

use crate::info::{platform, platform_name, platforms};

/// The kernels of the pool's program. `k` writes its second argument to
/// `a[0]` from work-item 0 only, so any buffer of 4 bytes or more is safe
/// to run it with; `l` takes a local pointer.
pub const SOURCE: &str = "kernel void k(global int *a, int n) {\n\
    if (a && get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0) a[0] = n;\n\
}\n\
kernel void l(local char *s, global int *a) {\n\
    if (get_local_id(0) == 0) s[0] = 1;\n\
    barrier(CLK_LOCAL_MEM_FENCE);\n\
    if (a && get_global_id(0) == 0) a[0] = s[0];\n\
}\n";

/// Bytes of every pool buffer (sub-buffers: a quarter).
pub const BUFFER_BYTES: usize = 4096;
/// Width and height of the pool's 2D image (RGBA, UNORM_INT8).
pub const IMAGE_SIDE: usize = 16;

/// Handles, as raw pointers: shared read-only between threads.
pub struct Pool {
    pub platform: cl_platform_id,
    pub device: cl_device_id,
    pub context: cl_context,
    pub context2: cl_context,
    pub queue: cl_command_queue,
    pub queue_ooo: cl_command_queue,
    pub queue2: cl_command_queue,
    pub buffers: Vec<cl_mem>,
    pub buffer2: cl_mem,
    pub image: cl_mem,
    pub sampler: cl_sampler,
    pub program: cl_program,
    pub program_unbuilt: cl_program,
    pub binary: Vec<u8>,
    /// Completed events (a user event set CL_COMPLETE, a marker's).
    pub events: Vec<cl_event>,
    pub svm: *mut c_void,
    /// Released handles still held by another object: [context, mem,
    /// program, queue, kernel].
    pub dead: Vec<*mut c_void>,
    /// What keeps `dead` alive: released at the end.
    keepers: Vec<(u8, *mut c_void)>,
    /// A forged handle: the dispatch pointer of ferrocl's objects, a tag
    /// of no object type and a count of one.
    pub forged: Box<[usize; 8]>,
    pub has_images: bool,
    pub has_svm: bool,
}

// SAFETY: OpenCL handles are thread-safe objects; the pool is read-only.
unsafe impl Send for Pool {}
// SAFETY: as above.
unsafe impl Sync for Pool {}

fn ok(what: &str, err: cl_int) {
    assert_eq!(err, CL_SUCCESS, "apifuzz pool: {what} failed ({err})");
}

unsafe fn new_buffer(context: cl_context, flags: cl_mem_flags, size: usize) -> cl_mem {
    let mut e = 0;
    // SAFETY: no host pointer.
    let m = unsafe { clCreateBuffer(context, flags, size, ptr::null_mut(), &mut e) };
    ok("clCreateBuffer", e);
    m
}

unsafe fn new_queue(context: cl_context, device: cl_device_id, props: u64) -> cl_command_queue {
    let mut e = 0;
    let p = [CL_QUEUE_PROPERTIES as u64, props, 0];
    // SAFETY: a zero-terminated property list.
    let q = unsafe { clCreateCommandQueueWithProperties(context, device, p.as_ptr(), &mut e) };
    ok("clCreateCommandQueueWithProperties", e);
    q
}

unsafe fn new_sub_buffer(parent: cl_mem, origin: usize, size: usize) -> cl_mem {
    let mut e = 0;
    let region = cl_buffer_region { origin, size };
    // SAFETY: region outlives the call.
    let m = unsafe {
        clCreateSubBuffer(
            parent,
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut e,
        )
    };
    ok("clCreateSubBuffer", e);
    m
}

unsafe fn new_context(device: cl_device_id) -> cl_context {
    let mut e = 0;
    // SAFETY: one device, no callback.
    let c = unsafe { clCreateContext(ptr::null(), 1, &device, None, ptr::null_mut(), &mut e) };
    ok("clCreateContext", e);
    c
}

unsafe fn new_program(context: cl_context, device: cl_device_id, build: bool) -> cl_program {
    let mut e = 0;
    let src = SOURCE.as_ptr() as *const std::ffi::c_char;
    let len = SOURCE.len();
    // SAFETY: one string of `len` bytes.
    let p = unsafe { clCreateProgramWithSource(context, 1, &src, &len, &mut e) };
    ok("clCreateProgramWithSource", e);
    if build {
        // SAFETY: no callback.
        ok("clBuildProgram", unsafe {
            clBuildProgram(p, 1, &device, c"".as_ptr(), None, ptr::null_mut())
        });
    }
    p
}

unsafe fn new_kernel(program: cl_program, name: &std::ffi::CStr) -> cl_kernel {
    let mut e = 0;
    // SAFETY: NUL-terminated name.
    let k = unsafe { clCreateKernel(program, name.as_ptr(), &mut e) };
    ok("clCreateKernel", e);
    k
}

fn device_flag(device: cl_device_id, param: cl_device_info) -> u64 {
    let mut v = 0u64;
    // SAFETY: 8 bytes out; smaller values fill the low bytes.
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
}

fn program_binary(p: cl_program) -> Vec<u8> {
    let mut size = 0usize;
    // SAFETY: one size_t out.
    ok("CL_PROGRAM_BINARY_SIZES", unsafe {
        clGetProgramInfo(
            p,
            CL_PROGRAM_BINARY_SIZES,
            8,
            (&mut size as *mut usize).cast(),
            ptr::null_mut(),
        )
    });
    let mut bin = vec![0u8; size];
    let mut bp = bin.as_mut_ptr();
    // SAFETY: one pointer to `size` bytes.
    ok("CL_PROGRAM_BINARIES", unsafe {
        clGetProgramInfo(
            p,
            CL_PROGRAM_BINARIES,
            8,
            (&mut bp as *mut *mut u8).cast(),
            ptr::null_mut(),
        )
    });
    bin
}

impl Pool {
    /// Makes the pool on ferrocl's first device.
    pub fn new() -> Pool {
        let platform = platforms()
            .into_iter()
            .find(|p| platform_name(*p).contains("ferrocl"))
            .unwrap_or_else(platform);
        let mut device = ptr::null_mut();
        // SAFETY: one device out.
        ok("clGetDeviceIDs", unsafe {
            clGetDeviceIDs(
                platform,
                CL_DEVICE_TYPE_ALL,
                1,
                &mut device,
                ptr::null_mut(),
            )
        });
        let has_images = device_flag(device, CL_DEVICE_IMAGE_SUPPORT) & 0xffff_ffff != 0;
        let has_svm = device_flag(device, CL_DEVICE_SVM_CAPABILITIES) != 0;
        // SAFETY: every call below gets live handles and valid pointers.
        unsafe {
            let context = new_context(device);
            let context2 = new_context(device);
            let q = new_queue(context, device, CL_QUEUE_PROFILING_ENABLE);
            let queue_ooo = new_queue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
            let queue2 = new_queue(context2, device, 0);
            let b0 = new_buffer(context, CL_MEM_READ_WRITE, BUFFER_BYTES);
            let b1 = new_buffer(context, CL_MEM_READ_ONLY, BUFFER_BYTES);
            let b2 = new_buffer(
                context,
                CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
                BUFFER_BYTES,
            );
            let sub = new_sub_buffer(b0, 0, BUFFER_BYTES / 4);
            let buffer2 = new_buffer(context2, CL_MEM_READ_WRITE, BUFFER_BYTES);
            let image = if has_images {
                let mut e = 0;
                let fmt = cl_image_format {
                    image_channel_order: CL_RGBA,
                    image_channel_data_type: CL_UNORM_INT8,
                };
                let mut desc: cl_image_desc = std::mem::zeroed();
                desc.image_type = CL_MEM_OBJECT_IMAGE2D;
                desc.image_width = IMAGE_SIDE;
                desc.image_height = IMAGE_SIDE;
                let i = clCreateImage(
                    context,
                    CL_MEM_READ_WRITE,
                    &fmt,
                    &desc,
                    ptr::null_mut(),
                    &mut e,
                );
                ok("clCreateImage", e);
                i
            } else {
                ptr::null_mut()
            };
            let sampler = if has_images {
                let mut e = 0;
                let s = clCreateSamplerWithProperties(context, ptr::null(), &mut e);
                ok("clCreateSamplerWithProperties", e);
                s
            } else {
                ptr::null_mut()
            };
            let program = new_program(context, device, true);
            let program_unbuilt = new_program(context, device, false);
            let binary = program_binary(program);
            let mut e = 0;
            let user = clCreateUserEvent(context, &mut e);
            ok("clCreateUserEvent", e);
            ok(
                "clSetUserEventStatus",
                clSetUserEventStatus(user, CL_COMPLETE),
            );
            let mut marker = ptr::null_mut();
            ok(
                "clEnqueueMarkerWithWaitList",
                clEnqueueMarkerWithWaitList(q, 0, ptr::null(), &mut marker),
            );
            ok("clFinish", clFinish(q));
            let svm = if has_svm {
                clSVMAlloc(
                    context,
                    CL_MEM_READ_WRITE,
                    BUFFER_BYTES as u32 as cl_uint as usize,
                    0,
                )
            } else {
                ptr::null_mut()
            };

            // Released handles kept alive by another object.
            let mut keepers = Vec::new();
            let mut dead = Vec::new();
            let dc = new_context(device);
            keepers.push((b'm', new_buffer(dc, CL_MEM_READ_WRITE, 64)));
            ok("clReleaseContext", clReleaseContext(dc));
            dead.push(dc);
            let dm = new_buffer(context, CL_MEM_READ_WRITE, 256);
            keepers.push((b'm', new_sub_buffer(dm, 0, 128)));
            ok("clReleaseMemObject", clReleaseMemObject(dm));
            dead.push(dm);
            let dp = new_program(context, device, true);
            keepers.push((b'k', new_kernel(dp, c"k")));
            ok("clReleaseProgram", clReleaseProgram(dp));
            dead.push(dp);
            let dq = new_queue(context, device, 0);
            let mut ev = ptr::null_mut();
            ok(
                "marker",
                clEnqueueMarkerWithWaitList(dq, 0, ptr::null(), &mut ev),
            );
            ok("clFinish", clFinish(dq));
            keepers.push((b'e', ev));
            ok("clReleaseCommandQueue", clReleaseCommandQueue(dq));
            dead.push(dq);

            let mut forged = Box::new([0usize; 8]);
            forged[0] = *(context as *const usize);
            forged[1] = u32::from_le_bytes(*b"fake") as usize | (1 << 32);
            Pool {
                platform,
                device,
                context,
                context2,
                queue: q,
                queue_ooo,
                queue2,
                buffers: vec![b0, b1, b2, sub],
                buffer2,
                image,
                sampler,
                program,
                program_unbuilt,
                binary,
                events: vec![user, marker],
                svm,
                dead,
                keepers,
                forged,
                has_images,
                has_svm,
            }
        }
    }

    /// The forged handle.
    pub fn forged(&self) -> *mut c_void {
        self.forged.as_ptr() as *mut c_void
    }

    /// Releases every object, children first.
    pub fn release(self) {
        // SAFETY: each handle is released once, after all threads ended.
        unsafe {
            clFinish(self.queue);
            clFinish(self.queue_ooo);
            clFinish(self.queue2);
            for (kind, h) in self.keepers {
                match kind {
                    b'm' => clReleaseMemObject(h.cast()),
                    b'k' => clReleaseKernel(h.cast()),
                    _ => clReleaseEvent(h.cast()),
                };
            }
            for e in self.events {
                clReleaseEvent(e);
            }
            if !self.svm.is_null() {
                clSVMFree(self.context, self.svm);
            }
            for b in self.buffers.into_iter().rev() {
                clReleaseMemObject(b);
            }
            clReleaseMemObject(self.buffer2);
            if self.has_images {
                clReleaseMemObject(self.image);
                clReleaseSampler(self.sampler);
            }
            clReleaseProgram(self.program);
            clReleaseProgram(self.program_unbuilt);
            clReleaseCommandQueue(self.queue);
            clReleaseCommandQueue(self.queue_ooo);
            clReleaseCommandQueue(self.queue2);
            clReleaseContext(self.context);
            clReleaseContext(self.context2);
        }
    }
}

impl Default for Pool {
    fn default() -> Self {
        Pool::new()
    }
}
