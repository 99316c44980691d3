//! Entry points of features no ferrocl device reports yet (pipes, SVM,
//! device-side queues). Each returns
//! the error the specification gives for a device without the feature, so
//! applications that check the device queries first never get here.

use std::ffi::c_void;

use opencl_sys::*;

use super::context::ctx_arc;
use super::queue::queue_arc;
use crate::entry::{code, object};

// ---- Pipes: CL_DEVICE_PIPE_SUPPORT is false.

pub unsafe extern "C" fn clCreatePipe(
    c: cl_context,
    _f: cl_mem_flags,
    _ps: cl_uint,
    _mp: cl_uint,
    _p: *const cl_pipe_properties,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        ctx_arc(c)?;
        // "CL_INVALID_OPERATION if no devices in context support pipes."
        Err(CL_INVALID_OPERATION)
    })
}

pub unsafe extern "C" fn clGetPipeInfo(
    _m: cl_mem,
    _p: cl_pipe_info,
    _s: usize,
    _v: *mut c_void,
    _r: *mut usize,
) -> cl_int {
    // No pipe object can exist.
    CL_INVALID_MEM_OBJECT
}

// ---- SVM: CL_DEVICE_SVM_CAPABILITIES is 0.

pub unsafe extern "C" fn clSVMAlloc(
    _c: cl_context,
    _f: cl_svm_mem_flags,
    _s: usize,
    _a: cl_uint,
) -> *mut c_void {
    // "clSVMAlloc will fail if [...] no devices in context support SVM": returns NULL.
    std::ptr::null_mut()
}

pub unsafe extern "C" fn clSVMFree(_c: cl_context, _p: *mut c_void) {}

fn svm_cmd(q: cl_command_queue) -> cl_int {
    code(|| {
        queue_arc(q)?;
        // "CL_INVALID_OPERATION if the device associated with command queue does not support SVM."
        Err(CL_INVALID_OPERATION)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMFree(
    q: cl_command_queue,
    _n: cl_uint,
    _p: *mut *mut c_void,
    _f: Option<unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void)>,
    _d: *mut c_void,
    _ne: cl_uint,
    _l: *const cl_event,
    _e: *mut cl_event,
) -> cl_int {
    svm_cmd(q)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMemcpy(
    q: cl_command_queue,
    _b: cl_bool,
    _d: *mut c_void,
    _s: *const c_void,
    _size: usize,
    _n: cl_uint,
    _l: *const cl_event,
    _e: *mut cl_event,
) -> cl_int {
    svm_cmd(q)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMemFill(
    q: cl_command_queue,
    _p: *mut c_void,
    _pat: *const c_void,
    _ps: usize,
    _size: usize,
    _n: cl_uint,
    _l: *const cl_event,
    _e: *mut cl_event,
) -> cl_int {
    svm_cmd(q)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMap(
    q: cl_command_queue,
    _b: cl_bool,
    _f: cl_map_flags,
    _p: *mut c_void,
    _size: usize,
    _n: cl_uint,
    _l: *const cl_event,
    _e: *mut cl_event,
) -> cl_int {
    svm_cmd(q)
}

pub unsafe extern "C" fn clEnqueueSVMUnmap(
    q: cl_command_queue,
    _p: *mut c_void,
    _n: cl_uint,
    _l: *const cl_event,
    _e: *mut cl_event,
) -> cl_int {
    svm_cmd(q)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMigrateMem(
    q: cl_command_queue,
    _n: cl_uint,
    _p: *mut *const c_void,
    _s: *const usize,
    _f: cl_mem_migration_flags,
    _ne: cl_uint,
    _l: *const cl_event,
    _e: *mut cl_event,
) -> cl_int {
    svm_cmd(q)
}

// ---- Device-side queues.

pub unsafe extern "C" fn clSetDefaultDeviceCommandQueue(
    c: cl_context,
    _d: cl_device_id,
    _q: cl_command_queue,
) -> cl_int {
    code(|| {
        ctx_arc(c)?;
        // "CL_INVALID_OPERATION if device does not support a replaceable
        // default on-device queue."
        Err(CL_INVALID_OPERATION)
    })
}
