//! Generators for program, kernel and kernel-enqueue entry points (SAFETY
//! as in `calls_core`). Kernel arguments are set only on the thread's own
//! kernels (clSetKernelArg is not thread-safe for one kernel, OpenCL 3.0
//! appendix A.2); `d` is given device pointers and never launched.

use std::ffi::{c_char, c_void};
use std::ptr;

use opencl_sys::*;

use super::gen::{noop_native, noop_program, G};
use super::pool::SOURCE;

// OpenCL 2.2's (the first deprecated in 3.0; opencl-sys declares them only
// with its CL_VERSION_2_2/3_0 features); the loader exports both.
#[link(name = "OpenCL")]
extern "C" {
    fn clSetProgramReleaseCallback(
        p: cl_program,
        notify: Option<unsafe extern "C" fn(cl_program, *mut c_void)>,
        user_data: *mut c_void,
    ) -> cl_int;
    fn clSetProgramSpecializationConstant(
        p: cl_program,
        id: cl_uint,
        size: usize,
        value: *const c_void,
    ) -> cl_int;
}

const BUILD_OPTIONS: &[&std::ffi::CStr] = &[
    c"",
    c"-cl-std=CL3.0",
    c"-cl-mad-enable -DX=1",
    c"-bogus-option",
    c"-cl-std=CL9.9",
    c"-D",
    c"-I",
];

fn release_program(g: &mut G, p: cl_program) {
    if g.chance(20) {
        let code =
            unsafe { clSetProgramReleaseCallback(p, Some(noop_program as _), ptr::null_mut()) };
        g.rec("clSetProgramReleaseCallback", code);
    }
    let code = unsafe { clReleaseProgram(p) };
    g.rec("clReleaseProgram", code);
}

pub fn create_program(g: &mut G) {
    let c = g.ctx();
    let mut e = 0;
    let (name, p) = match g.below(4) {
        0 => {
            let src = SOURCE.as_ptr() as *const c_char;
            let strings = [src, ptr::null()];
            let lens = [SOURCE.len(), 0];
            let n = g.pick(&[0u32, 1, 1, 2]);
            let sp = if g.chance(10) {
                ptr::null()
            } else {
                strings.as_ptr()
            };
            let lp = if g.chance(50) {
                ptr::null()
            } else {
                lens.as_ptr()
            };
            // With NULL lengths the strings are NUL-terminated: the source
            // is not, so give lengths whenever the first string is used.
            let lp = if lp.is_null() && n > 0 && !sp.is_null() {
                lens.as_ptr()
            } else {
                lp
            };
            ("clCreateProgramWithSource", unsafe {
                clCreateProgramWithSource(c, n, sp, lp, &mut e)
            })
        }
        1 => {
            let bin = g.pool.binary.clone();
            let mut bad = bin.clone();
            let cut = g.below(bad.len().max(1));
            bad.truncate(cut);
            let which = if g.chance(50) { &bin } else { &bad };
            let bp = [which.as_ptr()];
            let lens = [g.pick(&[which.len(), which.len(), 0])];
            let devs = [g.device(), g.pool.device];
            let n = g.pick(&[0u32, 1, 1]);
            let mut status = [0; 2];
            let stp = if g.chance(50) {
                ptr::null_mut()
            } else {
                status.as_mut_ptr()
            };
            let binp = if g.chance(8) {
                ptr::null()
            } else {
                bp.as_ptr()
            };
            ("clCreateProgramWithBinary", unsafe {
                clCreateProgramWithBinary(c, n, devs.as_ptr(), lens.as_ptr(), binp, stp, &mut e)
            })
        }
        2 => {
            let il = g.host(true);
            let len = g.pick(&[0, 4, 20, 4096]);
            ("clCreateProgramWithIL", unsafe {
                clCreateProgramWithIL(c, il, len, &mut e)
            })
        }
        _ => {
            let devs = [g.device()];
            let n = g.pick(&[0u32, 1]);
            let names = g.pick(&[c"", c"k", c"nope;k"]);
            let np = if g.chance(10) {
                ptr::null()
            } else {
                names.as_ptr()
            };
            ("clCreateProgramWithBuiltInKernels", unsafe {
                clCreateProgramWithBuiltInKernels(c, n, devs.as_ptr(), np, &mut e)
            })
        }
    };
    if g.rec_obj(name, e, p.cast()) {
        if name != "clCreateProgramWithBuiltInKernels" && g.chance(10) {
            build(g, p);
        }
        release_program(g, p);
    }
}

/// clBuildProgram, clCompileProgram or clLinkProgram on `p`.
fn build(g: &mut G, p: cl_program) {
    let devs = [g.device()];
    let n = g.pick(&[0u32, 1, 1]);
    let dp = if g.chance(10) {
        ptr::null()
    } else {
        devs.as_ptr()
    };
    let opts = g.pick(BUILD_OPTIONS);
    let op = if g.chance(10) {
        ptr::null()
    } else {
        opts.as_ptr()
    };
    let notify: Option<unsafe extern "C" fn(cl_program, *mut c_void)> = if g.chance(20) {
        Some(noop_program as _)
    } else {
        None
    };
    match g.below(3) {
        0 => {
            let code = unsafe { clBuildProgram(p, n, dp, op, notify, ptr::null_mut()) };
            g.rec("clBuildProgram", code);
        }
        1 => {
            let hdr = [g.program()];
            let names = [c"h.h".as_ptr()];
            let nh = g.pick(&[0u32, 0, 1]);
            let hp = if g.chance(20) {
                ptr::null()
            } else {
                hdr.as_ptr()
            };
            let np = if g.chance(20) {
                ptr::null()
            } else {
                names.as_ptr()
            };
            let code =
                unsafe { clCompileProgram(p, n, dp, op, nh, hp, np, notify, ptr::null_mut()) };
            g.rec("clCompileProgram", code);
        }
        _ => {
            let inputs = [p, g.program()];
            let k = g.pick(&[0u32, 1, 2]);
            let ip = if g.chance(10) {
                ptr::null()
            } else {
                inputs.as_ptr()
            };
            let mut e = 0;
            let c = g.ctx();
            let out =
                unsafe { clLinkProgram(c, n, dp, op, k, ip, notify, ptr::null_mut(), &mut e) };
            // A failed link may return a program holding the log.
            g.rec("clLinkProgram", e);
            if !out.is_null() {
                let code = unsafe { clReleaseProgram(out) };
                g.rec("clReleaseProgram", code);
            }
        }
    }
}

pub fn build_program(g: &mut G) {
    // A new program from source, or a pool one (the built one has kernels:
    // CL_INVALID_OPERATION; the unbuilt one may be built by another thread).
    if g.chance(60) {
        let mut e = 0;
        let src = SOURCE.as_ptr() as *const c_char;
        let len = SOURCE.len();
        let p = unsafe { clCreateProgramWithSource(g.pool.context, 1, &src, &len, &mut e) };
        if g.rec_obj("clCreateProgramWithSource", e, p.cast()) {
            build(g, p);
            release_program(g, p);
        }
    } else {
        let p = g.program();
        build(g, p);
    }
}

pub fn program_info(g: &mut G) {
    let p = g.program();
    if g.chance(50) {
        let param = g.param(0x1160, 16);
        let (s, mut v, r) = g.info_out();
        // CL_PROGRAM_BINARIES writes through the pointers it is given.
        let mut slot = vec![0u8; 1 << 20];
        let mut list = [slot.as_mut_ptr()];
        if param == CL_PROGRAM_BINARIES && !v.is_null() {
            v = list.as_mut_ptr().cast();
        }
        let s = if param == CL_PROGRAM_BINARIES {
            s.min(8)
        } else {
            s
        };
        let code = unsafe { clGetProgramInfo(p, param, s, v, r) };
        g.rec("clGetProgramInfo", code);
    } else {
        let d = g.device();
        let param = g.param(0x1181, 6);
        let (s, v, r) = g.info_out();
        let code = unsafe { clGetProgramBuildInfo(p, d, param, s, v, r) };
        g.rec("clGetProgramBuildInfo", code);
    }
}

pub fn program_misc(g: &mut G) {
    match g.below(3) {
        0 => {
            let p = g.platform();
            let code = unsafe { clUnloadPlatformCompiler(p) };
            g.rec("clUnloadPlatformCompiler", code);
        }
        1 => {
            let p = g.program();
            let id = g.pick(&[0u32, 1, 7, u32::MAX]);
            let size = g.pick(&[0, 1, 4, 8, 1 << 40]);
            let v = g.host(true);
            let code = unsafe { clSetProgramSpecializationConstant(p, id, size, v) };
            g.rec("clSetProgramSpecializationConstant", code);
        }
        _ => {
            // On pool programs only bad handles: a callback would stay.
            let p = g.pick(&[
                ptr::null_mut(),
                g.pool.forged().cast(),
                g.pool.dead[2].cast(),
                g.pool.context.cast(),
            ]);
            let f: Option<unsafe extern "C" fn(cl_program, *mut c_void)> = if g.chance(50) {
                Some(noop_program as _)
            } else {
                None
            };
            let code = unsafe { clSetProgramReleaseCallback(p, f, ptr::null_mut()) };
            g.rec("clSetProgramReleaseCallback", code);
        }
    }
}

pub fn create_kernels(g: &mut G) {
    let p = g.program();
    if g.chance(60) {
        let name = g.pick(&[c"k", c"l", c"nope", c""]);
        let np = if g.chance(8) {
            ptr::null()
        } else {
            name.as_ptr()
        };
        let mut e = 0;
        let k = unsafe { clCreateKernel(p, np, &mut e) };
        if g.rec_obj("clCreateKernel", e, k.cast()) {
            let code = unsafe { clReleaseKernel(k) };
            g.rec("clReleaseKernel", code);
        }
    } else {
        let mut ks = [ptr::null_mut(); 8];
        let n = g.pick(&[0u32, 1, 2, 8]);
        let kp = if g.chance(30) {
            ptr::null_mut()
        } else {
            ks.as_mut_ptr()
        };
        let mut num = 0;
        let code = unsafe { clCreateKernelsInProgram(p, n, kp, &mut num) };
        g.rec("clCreateKernelsInProgram", code);
        if code == CL_SUCCESS && !kp.is_null() {
            for k in ks.iter().take(num.min(n) as usize) {
                let code = unsafe { clReleaseKernel(*k) };
                g.rec("clReleaseKernel", code);
            }
        }
    }
}

/// The thread's kernel `k` or `l` (mostly), or a bad handle.
fn own_kernel(g: &mut G) -> cl_kernel {
    if g.chance(85) {
        g.kernels[g.below(2)]
    } else {
        g.kernel()
    }
}

pub fn set_kernel_arg(g: &mut G) {
    let k = own_kernel(g);
    let idx = g.pick(&[0u32, 1, 1, 2, 99]);
    let handles = [g.mem(), g.sampler().cast(), ptr::null_mut()];
    let handle = g.pick(&handles);
    let int = g.pick(&[0i64, 1, -1, 12345]);
    let (size, value): (usize, *const c_void) = match g.below(6) {
        0 => (8, (&handle as *const cl_mem).cast()),
        1 => (4, (&int as *const i64).cast()),
        2 => (8, ptr::null()),
        3 => (g.pick(&[0, 1, 4, 64, 1 << 20, 1 << 40]), ptr::null()),
        4 => (g.pick(&[0, 2, 3, 16, 1 << 40]), (&int as *const i64).cast()),
        _ => (4, ptr::null()),
    };
    let code = unsafe { clSetKernelArg(k, idx, size, value) };
    g.rec("clSetKernelArg", code);
}

pub fn set_kernel_arg_svm_exec_info(g: &mut G) {
    let k = own_kernel(g);
    if g.chance(50) {
        let idx = g.pick(&[0u32, 1, 99]);
        // Not host memory: a non-SVM pointer is undefined behaviour once launched.
        let p = if g.chance(70) {
            g.pool.svm
        } else {
            ptr::null_mut()
        };
        let code = unsafe { clSetKernelArgSVMPointer(k, idx, p) };
        g.rec("clSetKernelArgSVMPointer", code);
    } else {
        let name = g.pick(&[
            CL_KERNEL_EXEC_INFO_SVM_PTRS,
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
            0x7777,
        ]);
        let ptrs = [g.pool.svm];
        let yes: cl_bool = g.pick(&[CL_TRUE, CL_FALSE]);
        let (size, v): (usize, *const c_void) = match g.below(4) {
            0 => (8, ptrs.as_ptr().cast()),
            1 => (4, (&yes as *const cl_bool).cast()),
            2 => (0, ptr::null()),
            _ => (3, ptrs.as_ptr().cast()),
        };
        let code = unsafe { clSetKernelExecInfo(k, name, size, v) };
        g.rec("clSetKernelExecInfo", code);
    }
}

pub fn kernel_info(g: &mut G) {
    let k = g.kernel();
    match g.below(4) {
        0 => {
            let param = g.param(0x1190, 8);
            let (s, v, r) = g.info_out();
            let code = unsafe { clGetKernelInfo(k, param, s, v, r) };
            g.rec("clGetKernelInfo", code);
        }
        1 => {
            let d = if g.chance(20) {
                ptr::null_mut()
            } else {
                g.device()
            };
            let param = g.param(0x11B0, 8);
            let (s, v, r) = g.info_out();
            let code = unsafe { clGetKernelWorkGroupInfo(k, d, param, s, v, r) };
            g.rec("clGetKernelWorkGroupInfo", code);
        }
        2 => {
            let idx = g.pick(&[0u32, 1, 2, 99]);
            let param = g.param(0x1196, 6);
            let (s, v, r) = g.info_out();
            let code = unsafe { clGetKernelArgInfo(k, idx, param, s, v, r) };
            g.rec("clGetKernelArgInfo", code);
        }
        _ => {
            let d = if g.chance(20) {
                ptr::null_mut()
            } else {
                g.device()
            };
            let param = g.pick(&[
                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                CL_KERNEL_MAX_NUM_SUB_GROUPS,
                CL_KERNEL_COMPILE_NUM_SUB_GROUPS,
                0x7777,
            ]);
            let input = [g.pick(&[0usize, 1, 8, 64, usize::MAX]), 1, 1];
            let in_size = g.pick(&[0, 4, 8, 16, 24, 32]);
            let ip: *const c_void = if g.chance(15) {
                ptr::null()
            } else {
                input.as_ptr().cast()
            };
            let (s, v, r) = g.info_out();
            let code = unsafe { clGetKernelSubGroupInfo(k, d, param, in_size, ip, s, v, r) };
            g.rec("clGetKernelSubGroupInfo", code);
        }
    }
}

pub fn clone_kernel(g: &mut G) {
    let k = if g.chance(85) {
        g.kernels[g.below(3)]
    } else {
        g.kernel()
    };
    let mut e = 0;
    let c = unsafe { clCloneKernel(k, &mut e) };
    if g.rec_obj("clCloneKernel", e, c.cast()) {
        let code = unsafe { clReleaseKernel(c) };
        g.rec("clReleaseKernel", code);
    }
}

/// An NDRange: (dims, offset, global, local), sized so that a valid
/// launch stays small (at most 64^3 work-items).
pub fn ndrange(g: &mut G) -> (cl_uint, [usize; 3], [usize; 3], [usize; 3], bool, bool) {
    let dims = g.pick(&[0u32, 1, 1, 1, 2, 3, 4]);
    let global = g.triple(&[0, 1, 3, 8, 64]);
    let offset = g.triple(&[0, 0, 0, 1, usize::MAX - 1]);
    let local = g.triple(&[0, 1, 1, 2, 8, 3, 1025]);
    (dims, offset, global, local, g.chance(30), g.chance(50))
}

pub fn enqueue_kernel(g: &mut G) {
    let q = g.queue();
    let k = own_kernel(g);
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    match g.below(8) {
        0 => {
            let code = unsafe { clEnqueueTask(q, k, n, l, ev) };
            g.rec("clEnqueueTask", code);
        }
        1 => {
            let mut args = [0u64; 4];
            let mems = [g.mem()];
            let locs = [args.as_mut_ptr() as *const c_void];
            let f: Option<unsafe extern "C" fn(*mut c_void)> = if g.chance(80) {
                Some(noop_native as _)
            } else {
                None
            };
            let cb = g.pick(&[0, 32]);
            let ap = if g.chance(20) {
                ptr::null_mut()
            } else {
                args.as_mut_ptr().cast()
            };
            let nm = g.pick(&[0u32, 1]);
            let code = unsafe {
                clEnqueueNativeKernel(q, f, ap, cb, nm, mems.as_ptr(), locs.as_ptr(), n, l, ev)
            };
            g.rec("clEnqueueNativeKernel", code);
        }
        _ => {
            let (dims, off, global, local, use_off, use_local) = ndrange(g);
            let op = if use_off { off.as_ptr() } else { ptr::null() };
            let gp = if g.chance(5) {
                ptr::null()
            } else {
                global.as_ptr()
            };
            let lp = if use_local {
                local.as_ptr()
            } else {
                ptr::null()
            };
            let code = unsafe { clEnqueueNDRangeKernel(q, k, dims, op, gp, lp, n, l, ev) };
            g.rec("clEnqueueNDRangeKernel", code);
        }
    }
    g.keep_event();
}

type SuggestFn = unsafe extern "C" fn(
    cl_command_queue,
    cl_kernel,
    cl_uint,
    *const usize,
    *const usize,
    *mut usize,
) -> cl_int;
type DevicePointerFn =
    unsafe extern "C" fn(cl_kernel, cl_uint, cl_mem_device_address_ext) -> cl_int;

fn ext(g: &G, name: &std::ffi::CStr) -> *mut c_void {
    unsafe { clGetExtensionFunctionAddressForPlatform(g.pool.platform, name.as_ptr()) }
}

pub fn suggested_local_size(g: &mut G) {
    let f = ext(g, c"clGetKernelSuggestedLocalWorkSizeKHR");
    if f.is_null() {
        return;
    }
    // SAFETY: the function the platform returned for this name.
    let f: SuggestFn = unsafe { std::mem::transmute(f) };
    let q = g.queue();
    let k = own_kernel(g);
    let (dims, off, global, _, use_off, _) = ndrange(g);
    let op = if use_off { off.as_ptr() } else { ptr::null() };
    let gp = if g.chance(8) {
        ptr::null()
    } else {
        global.as_ptr()
    };
    let mut out = [0usize; 3];
    let outp = if g.chance(8) {
        ptr::null_mut()
    } else {
        out.as_mut_ptr()
    };
    let code = unsafe { f(q, k, dims, op, gp, outp) };
    g.rec("clGetKernelSuggestedLocalWorkSizeKHR", code);
}

pub fn set_kernel_arg_device_pointer(g: &mut G) {
    let f = ext(g, c"clSetKernelArgDevicePointerEXT");
    if f.is_null() {
        return;
    }
    // SAFETY: the function the platform returned for this name.
    let f: DevicePointerFn = unsafe { std::mem::transmute(f) };
    // Only `d`, never launched: any address may be given.
    let k = if g.chance(85) {
        g.kernels[2]
    } else {
        g.pick(&[ptr::null_mut(), g.pool.forged().cast(), g.pool.queue.cast()])
    };
    let idx = g.pick(&[0u32, 1, 99]);
    let addr = g.pick(&[0u64, 64, u64::MAX]);
    let code = unsafe { f(k, idx, addr) };
    g.rec("clSetKernelArgDevicePointerEXT", code);
}
