//! Generators for cl_khr_command_buffer's entry points, reached through
//! clGetExtensionFunctionAddressForPlatform (SAFETY as in `calls_core`;
//! each function pointer is the one the platform returned for its name,
//! read as that name's type from the extension's header). Each thread
//! records into its own command buffers.

use std::ffi::{c_void, CStr};
use std::ptr;

use opencl_sys::*;

use super::gen::G;

/// The entry point `name` as `Option<fn>` type `T` (a `cl*_t`).
fn func<T: Copy>(g: &G, name: &CStr) -> T {
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: live platform, NUL-terminated name.
    let p = unsafe { clGetExtensionFunctionAddressForPlatform(g.pool.platform, name.as_ptr()) };
    // SAFETY: T is an Option of an extern "C" fn pointer; NULL is None.
    unsafe { std::mem::transmute_copy(&p) }
}

/// A command buffer of this thread (mostly), or a bad handle.
fn cmdbuf(g: &mut G) -> cl_command_buffer_khr {
    if !g.cmdbufs.is_empty() && g.chance(85) {
        let cbs = g.cmdbufs.clone();
        g.pick(&cbs)
    } else {
        g.pick(&[
            ptr::null_mut(),
            g.pool.forged().cast(),
            g.pool.queue.cast(),
            g.pool.context.cast(),
        ])
    }
}

pub fn create(g: &mut G) {
    let Some(create) = func::<clCreateCommandBufferKHR_t>(g, c"clCreateCommandBufferKHR") else {
        return;
    };
    let qs = [g.queue(), g.pool.queue];
    let n = g.pick(&[0u32, 1, 1, 1, 2]);
    let qp = if g.chance(8) {
        ptr::null()
    } else {
        qs.as_ptr()
    };
    let props: Vec<u64> = match g.below(5) {
        0 | 1 => Vec::new(),
        2 => vec![
            CL_COMMAND_BUFFER_FLAGS_KHR,
            g.flags(&[0, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR]),
            0,
        ],
        3 => vec![0x7777, 0, 0],
        _ => vec![
            CL_COMMAND_BUFFER_FLAGS_KHR,
            0,
            CL_COMMAND_BUFFER_FLAGS_KHR,
            0,
            0,
        ],
    };
    let pp = if props.is_empty() {
        ptr::null()
    } else {
        props.as_ptr()
    };
    let mut e = 0;
    let cb = unsafe { create(n, qp, pp, &mut e) };
    if g.rec_obj("clCreateCommandBufferKHR", e, cb.cast()) {
        g.cmdbufs.push(cb);
        if g.cmdbufs.len() > 3 {
            let old = g.cmdbufs.remove(0);
            g.mutables.retain(|m| m.0 != old);
            release_recorded(g, old);
        }
    }
}

fn release_recorded(g: &mut G, cb: cl_command_buffer_khr) {
    let Some(rel) = func::<clReleaseCommandBufferKHR_t>(g, c"clReleaseCommandBufferKHR") else {
        return;
    };
    let code = unsafe { rel(cb) };
    g.rec("clReleaseCommandBufferKHR", code);
}

/// Releases every command buffer of the thread.
pub fn release_all(g: &mut G) {
    g.mutables.clear();
    for cb in std::mem::take(&mut g.cmdbufs) {
        release_recorded(g, cb);
    }
}

pub fn retain_release(g: &mut G) {
    let Some(ret) = func::<clRetainCommandBufferKHR_t>(g, c"clRetainCommandBufferKHR") else {
        return;
    };
    let Some(rel) = func::<clReleaseCommandBufferKHR_t>(g, c"clReleaseCommandBufferKHR") else {
        return;
    };
    let cb = cmdbuf(g);
    let own = g.cmdbufs.contains(&cb);
    let code = unsafe { ret(cb) };
    g.rec("clRetainCommandBufferKHR", code);
    if code == CL_SUCCESS {
        if !own {
            g.violation("clRetainCommandBufferKHR");
        }
        let code = unsafe { rel(cb) };
        g.rec("clReleaseCommandBufferKHR", code);
    } else if !own {
        let code = unsafe { rel(cb) };
        g.rec("clReleaseCommandBufferKHR", code);
        if code == CL_SUCCESS {
            g.violation("clReleaseCommandBufferKHR");
        }
    }
}

pub fn finalize_enqueue_info(g: &mut G) {
    let cb = cmdbuf(g);
    match g.below(3) {
        0 => {
            let Some(fin) = func::<clFinalizeCommandBufferKHR_t>(g, c"clFinalizeCommandBufferKHR")
            else {
                return;
            };
            let code = unsafe { fin(cb) };
            g.rec("clFinalizeCommandBufferKHR", code);
        }
        1 => {
            let Some(enq) = func::<clEnqueueCommandBufferKHR_t>(g, c"clEnqueueCommandBufferKHR")
            else {
                return;
            };
            let mut qs = [g.queue()];
            let n = g.pick(&[0u32, 0, 1]);
            let qp = if n == 0 && g.chance(80) {
                ptr::null_mut()
            } else {
                qs.as_mut_ptr()
            };
            let (wn, wl) = g.wait_list();
            let ev = g.ev_out();
            let code = unsafe { enq(n, qp, cb, wn, wl, ev) };
            g.rec("clEnqueueCommandBufferKHR", code);
            g.keep_event();
        }
        _ => {
            let Some(info) = func::<clGetCommandBufferInfoKHR_t>(g, c"clGetCommandBufferInfoKHR")
            else {
                return;
            };
            let param = g.param(0x1294, 8);
            let (s, v, r) = g.info_out();
            let code = unsafe { info(cb, param, s, v, r) };
            g.rec("clGetCommandBufferInfoKHR", code);
        }
    }
}

/// A sync-point wait list: (count, pointer).
fn sync_points(
    g: &mut G,
    store: &mut [cl_sync_point_khr; 2],
) -> (cl_uint, *const cl_sync_point_khr) {
    store[0] = g.pick(&[0, 1, 1000]);
    store[1] = g.pick(&[0, 2]);
    match g.below(5) {
        0 => (1, ptr::null()),
        1 => (0, store.as_ptr()),
        2 => (g.pick(&[1, 2]), store.as_ptr()),
        _ => (0, ptr::null()),
    }
}

pub fn record(g: &mut G) {
    let cb = cmdbuf(g);
    let q = if g.chance(85) {
        ptr::null_mut()
    } else {
        g.queue()
    };
    let mut store = [0; 2];
    let (n, sl) = sync_points(g, &mut store);
    let mut sp = 0;
    let spp: *mut cl_sync_point_khr = if g.chance(50) {
        &mut sp
    } else {
        ptr::null_mut()
    };
    let props: [u64; 3] = [0x7777, 0, 0];
    let pp = if g.chance(8) {
        props.as_ptr()
    } else {
        ptr::null()
    };
    let mut mutable: cl_mutable_command_khr = ptr::null_mut();
    let mh: *mut cl_mutable_command_khr = if g.chance(30) {
        &mut mutable
    } else {
        ptr::null_mut()
    };
    match g.below(4) {
        0 => {
            let Some(f) =
                func::<clCommandBarrierWithWaitListKHR_t>(g, c"clCommandBarrierWithWaitListKHR")
            else {
                return;
            };
            let code = unsafe { f(cb, q, pp, n, sl, spp, mh) };
            g.rec("clCommandBarrierWithWaitListKHR", code);
        }
        1 => {
            let Some(f) = func::<clCommandCopyBufferKHR_t>(g, c"clCommandCopyBufferKHR") else {
                return;
            };
            let (s, d) = (g.mem(), g.mem());
            let (so, dof, size) = (g.size(), g.size(), g.size());
            let code = unsafe { f(cb, q, pp, s, d, so, dof, size, n, sl, spp, mh) };
            g.rec("clCommandCopyBufferKHR", code);
        }
        2 => {
            let Some(f) = func::<clCommandFillBufferKHR_t>(g, c"clCommandFillBufferKHR") else {
                return;
            };
            let b = g.mem();
            let pat = g.host(true);
            let ps = g.pick(&[0, 1, 3, 4, 16, 256]);
            let (off, size) = (g.size(), g.size());
            let code = unsafe { f(cb, q, pp, b, pat, ps, off, size, n, sl, spp, mh) };
            g.rec("clCommandFillBufferKHR", code);
        }
        _ => {
            let Some(f) = func::<clCommandNDRangeKernelKHR_t>(g, c"clCommandNDRangeKernelKHR")
            else {
                return;
            };
            let k = if g.chance(85) {
                g.kernels[g.below(2)]
            } else {
                g.kernel()
            };
            let (dims, off, global, local, use_off, use_local) = super::calls_prog::ndrange(g);
            let op = if use_off { off.as_ptr() } else { ptr::null() };
            let lp = if use_local {
                local.as_ptr()
            } else {
                ptr::null()
            };
            let code = unsafe { f(cb, q, pp, k, dims, op, global.as_ptr(), lp, n, sl, spp, mh) };
            g.rec("clCommandNDRangeKernelKHR", code);
            if code == CL_SUCCESS && !mutable.is_null() {
                g.mutables.push((cb, mutable));
            }
        }
    }
}

/// The other recording functions (rectangles, images, SVM).
pub fn record_more(g: &mut G) {
    let cb = cmdbuf(g);
    let q = if g.chance(85) {
        ptr::null_mut()
    } else {
        g.queue()
    };
    let mut store = [0; 2];
    let (n, sl) = sync_points(g, &mut store);
    let mut sp = 0;
    let spp: *mut cl_sync_point_khr = if g.chance(50) {
        &mut sp
    } else {
        ptr::null_mut()
    };
    let pp = ptr::null();
    let mh = ptr::null_mut();
    let three = |g: &mut G| g.triple(&[0, 0, 1, 4, 16, 17, usize::MAX]);
    let (o1, o2, r) = (
        three(g),
        three(g),
        g.triple(&[0, 1, 1, 4, 16, 64, usize::MAX]),
    );
    match g.below(7) {
        0 => {
            let Some(f) = func::<clCommandCopyBufferRectKHR_t>(g, c"clCommandCopyBufferRectKHR")
            else {
                return;
            };
            let (s, d) = (g.mem(), g.mem());
            let p = [
                g.pick(&[0, 16, 64, usize::MAX]),
                g.pick(&[0, 256, 1024, usize::MAX]),
                g.pick(&[0, 16, 64, usize::MAX]),
                g.pick(&[0, 256, 1024, usize::MAX]),
            ];
            let code = unsafe {
                f(
                    cb,
                    q,
                    pp,
                    s,
                    d,
                    o1.as_ptr(),
                    o2.as_ptr(),
                    r.as_ptr(),
                    p[0],
                    p[1],
                    p[2],
                    p[3],
                    n,
                    sl,
                    spp,
                    mh,
                )
            };
            g.rec("clCommandCopyBufferRectKHR", code);
        }
        1 => {
            let Some(f) = func::<clCommandCopyImageKHR_t>(g, c"clCommandCopyImageKHR") else {
                return;
            };
            let (a, b) = (g.image(), g.image());
            let code = unsafe {
                f(
                    cb,
                    q,
                    pp,
                    a,
                    b,
                    o1.as_ptr(),
                    o2.as_ptr(),
                    r.as_ptr(),
                    n,
                    sl,
                    spp,
                    mh,
                )
            };
            g.rec("clCommandCopyImageKHR", code);
        }
        2 => {
            let Some(f) =
                func::<clCommandCopyBufferToImageKHR_t>(g, c"clCommandCopyBufferToImageKHR")
            else {
                return;
            };
            let (b, i, off) = (g.mem(), g.image(), g.size());
            let code = unsafe {
                f(
                    cb,
                    q,
                    pp,
                    b,
                    i,
                    off,
                    o1.as_ptr(),
                    r.as_ptr(),
                    n,
                    sl,
                    spp,
                    mh,
                )
            };
            g.rec("clCommandCopyBufferToImageKHR", code);
        }
        3 => {
            let Some(f) =
                func::<clCommandCopyImageToBufferKHR_t>(g, c"clCommandCopyImageToBufferKHR")
            else {
                return;
            };
            let (i, b, off) = (g.image(), g.mem(), g.size());
            let code = unsafe {
                f(
                    cb,
                    q,
                    pp,
                    i,
                    b,
                    o1.as_ptr(),
                    r.as_ptr(),
                    off,
                    n,
                    sl,
                    spp,
                    mh,
                )
            };
            g.rec("clCommandCopyImageToBufferKHR", code);
        }
        4 => {
            let Some(f) = func::<clCommandFillImageKHR_t>(g, c"clCommandFillImageKHR") else {
                return;
            };
            let i = g.image();
            let color = g.host(true);
            let code = unsafe { f(cb, q, pp, i, color, o1.as_ptr(), r.as_ptr(), n, sl, spp, mh) };
            g.rec("clCommandFillImageKHR", code);
        }
        5 => {
            let Some(f) = func::<clCommandSVMMemcpyKHR_t>(g, c"clCommandSVMMemcpyKHR") else {
                return;
            };
            let svm = g.pool.svm;
            let (d, s) = (
                g.pick(&[ptr::null_mut(), svm]),
                g.pick(&[ptr::null_mut(), svm]),
            );
            let size = g.pick(&[0, 4, 64, super::pool::BUFFER_BYTES]);
            let code = unsafe { f(cb, q, pp, d, s, size, n, sl, spp, mh) };
            g.rec("clCommandSVMMemcpyKHR", code);
        }
        _ => {
            let Some(f) = func::<clCommandSVMMemFillKHR_t>(g, c"clCommandSVMMemFillKHR") else {
                return;
            };
            let p = g.pick(&[ptr::null_mut(), g.pool.svm]);
            let pat = g.host(true);
            let ps = g.pick(&[0, 1, 3, 4, 16, 128, 256]);
            let size = g.pick(&[0, 4, 64, super::pool::BUFFER_BYTES]);
            let code = unsafe { f(cb, q, pp, p, pat, ps, size, n, sl, spp, mh) };
            g.rec("clCommandSVMMemFillKHR", code);
        }
    }
}

/// A mutable-command handle of this thread, or a bad one.
fn mutable(g: &mut G) -> cl_mutable_command_khr {
    if !g.mutables.is_empty() && g.chance(85) {
        let m = g.mutables.clone();
        g.pick(&m).1
    } else {
        g.pick(&[ptr::null_mut(), g.pool.forged().cast(), g.pool.queue.cast()])
    }
}

pub fn mutable_dispatch(g: &mut G) {
    if g.chance(50) {
        let Some(f) = func::<clGetMutableCommandInfoKHR_t>(g, c"clGetMutableCommandInfoKHR") else {
            return;
        };
        let m = mutable(g);
        let param = g.param(0x12A0, 10);
        let (s, v, r) = g.info_out();
        let code = unsafe { f(m, param, s, v, r) };
        g.rec("clGetMutableCommandInfoKHR", code);
        return;
    }
    let Some(f) = func::<clUpdateMutableCommandsKHR_t>(g, c"clUpdateMutableCommandsKHR") else {
        return;
    };
    // Work sizes only (arguments stay: a launch must keep valid ones).
    let (cb, command) = if !g.mutables.is_empty() && g.chance(85) {
        let m = g.mutables.clone();
        g.pick(&m)
    } else {
        (cmdbuf(g), mutable(g))
    };
    let global = g.triple(&[0, 1, 3, 8, 64]);
    let local = g.triple(&[0, 1, 2, 8, 1025]);
    let config = cl_mutable_dispatch_config_khr {
        command,
        num_args: 0,
        num_svm_args: 0,
        num_exec_infos: 0,
        work_dim: g.pick(&[0, 1, 1, 2, 3, 4]),
        arg_list: ptr::null(),
        arg_svm_list: ptr::null(),
        exec_info_list: ptr::null(),
        global_work_offset: ptr::null(),
        global_work_size: if g.chance(70) {
            global.as_ptr()
        } else {
            ptr::null()
        },
        local_work_size: if g.chance(30) {
            local.as_ptr()
        } else {
            ptr::null()
        },
    };
    let types = [g.pick(&[
        CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR,
        CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR,
        7,
    ])];
    let mut configs = [(&config as *const cl_mutable_dispatch_config_khr).cast::<c_void>()];
    let k = g.pick(&[0u32, 1, 1]);
    let tp = if g.chance(8) {
        ptr::null()
    } else {
        types.as_ptr()
    };
    let cp = if g.chance(8) {
        ptr::null_mut()
    } else {
        configs.as_mut_ptr()
    };
    let code = unsafe { f(cb, k, tp, cp) };
    g.rec("clUpdateMutableCommandsKHR", code);
}
