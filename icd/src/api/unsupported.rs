//! Entry points of features no ferrocl device reports yet (pipes,
//! device-side queues). Each returns
//! the error the specification gives for a device without the feature, so
//! applications that check the device queries first never get here.

use std::ffi::c_void;

use opencl_sys::*;

use super::context::ctx_arc;
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
