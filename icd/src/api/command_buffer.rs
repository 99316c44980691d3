//! cl_khr_command_buffer: the command-buffer object (create, retain,
//! release, finalize, enqueue, clGetCommandBufferInfoKHR). The recording
//! entry points are in `command_buffer_commands.rs`, mutable dispatch in
//! `mutable_dispatch.rs`; all are extension functions
//! ([`extension_function`], reached through
//! clGetExtensionFunctionAddress(ForPlatform)). The runtime side is
//! `core::command_buffer`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::command_buffer::{CommandBuffer, SUPPORTED_QUEUE_PROPERTIES};
use ferrocl_runtime::core::object::{
    get, get_arc, handle_of, into_handle, release, retain, ClObject,
};
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::queue::queue_arc;
use super::{command_buffer_commands as cmds, mutable_dispatch as md};
use crate::entry::{code, object, return_event, wait_list_in};
use crate::info::{write, Info};

/// The cl_khr_command_buffer family's entry point called `name`, or NULL.
pub fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clCreateCommandBufferKHR" => clCreateCommandBufferKHR as *mut c_void,
        "clRetainCommandBufferKHR" => clRetainCommandBufferKHR as *mut c_void,
        "clReleaseCommandBufferKHR" => clReleaseCommandBufferKHR as *mut c_void,
        "clFinalizeCommandBufferKHR" => clFinalizeCommandBufferKHR as *mut c_void,
        "clEnqueueCommandBufferKHR" => clEnqueueCommandBufferKHR as *mut c_void,
        "clGetCommandBufferInfoKHR" => clGetCommandBufferInfoKHR as *mut c_void,
        "clCommandBarrierWithWaitListKHR" => cmds::clCommandBarrierWithWaitListKHR as *mut c_void,
        "clCommandCopyBufferKHR" => cmds::clCommandCopyBufferKHR as *mut c_void,
        "clCommandCopyBufferRectKHR" => cmds::clCommandCopyBufferRectKHR as *mut c_void,
        "clCommandFillBufferKHR" => cmds::clCommandFillBufferKHR as *mut c_void,
        "clCommandNDRangeKernelKHR" => cmds::clCommandNDRangeKernelKHR as *mut c_void,
        "clCommandCopyImageKHR" => cmds::clCommandCopyImageKHR as *mut c_void,
        "clCommandCopyBufferToImageKHR" => cmds::clCommandCopyBufferToImageKHR as *mut c_void,
        "clCommandCopyImageToBufferKHR" => cmds::clCommandCopyImageToBufferKHR as *mut c_void,
        "clCommandFillImageKHR" => cmds::clCommandFillImageKHR as *mut c_void,
        "clCommandSVMMemcpyKHR" => cmds::clCommandSVMMemcpyKHR as *mut c_void,
        "clCommandSVMMemFillKHR" => cmds::clCommandSVMMemFillKHR as *mut c_void,
        "clUpdateMutableCommandsKHR" => md::clUpdateMutableCommandsKHR as *mut c_void,
        "clGetMutableCommandInfoKHR" => md::clGetMutableCommandInfoKHR as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

pub(crate) fn cmdbuf_arc(cb: cl_command_buffer_khr) -> CLResult<Arc<CommandBuffer>> {
    // SAFETY: handle from the application.
    unsafe { get_arc::<CommandBuffer>(cb) }
}

pub unsafe extern "C" fn clCreateCommandBufferKHR(
    num_queues: cl_uint,
    queues: *const cl_command_queue,
    properties: *const cl_command_buffer_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_command_buffer_khr {
    object(errcode_ret, || {
        // "CL_INVALID_VALUE if queues is NULL" and "if num_queues is not
        // one" (several queues need cl_khr_command_buffer_multi_device).
        if queues.is_null() || num_queues != 1 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not a
        // valid command-queue."
        // SAFETY: one handle per the application.
        let queue = queue_arc(unsafe { *queues })?;
        // SAFETY: a 0-terminated list per the application.
        let (list, flags) = unsafe { read_properties(properties) }?;
        // "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if the properties of any
        // command-queue in queues does not contain the minimum properties
        // specified by CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR"
        // (none) or has a property CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
        // lacks (every host-queue property is supported).
        if queue.properties & !SUPPORTED_QUEUE_PROPERTIES != 0 {
            return Err(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
        }
        Ok(into_handle(CommandBuffer::new(queue, list, flags)) as cl_command_buffer_khr)
    })
}

/// The creation property list: "CL_INVALID_VALUE if values specified in
/// properties are not valid, or if the same property name is specified
/// more than once", "CL_INVALID_PROPERTY if values specified in
/// properties are valid but are not supported by all the devices".
///
/// # Safety
/// `p` must be NULL or a 0-terminated property list.
unsafe fn read_properties(
    p: *const cl_command_buffer_properties_khr,
) -> CLResult<(
    Vec<cl_command_buffer_properties_khr>,
    cl_command_buffer_flags_khr,
)> {
    let mut list = Vec::new();
    let mut seen = Vec::new();
    let mut flags = 0;
    if p.is_null() {
        return Ok((list, 0));
    }
    let mut i = 0;
    loop {
        // SAFETY: 0-terminated per the caller.
        let name = unsafe { *p.add(i) };
        list.push(name);
        if name == 0 {
            break;
        }
        // SAFETY: a value follows each name.
        let value = unsafe { *p.add(i + 1) };
        list.push(value);
        i += 2;
        if seen.contains(&name) {
            return Err(CL_INVALID_VALUE);
        }
        seen.push(name);
        match name {
            CL_COMMAND_BUFFER_FLAGS_KHR => {
                let known = CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR
                    | CL_COMMAND_BUFFER_MUTABLE_KHR
                    | CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR;
                if value & !known != 0 {
                    return Err(CL_INVALID_VALUE);
                }
                // Device-side sync needs cl_khr_command_buffer_multi_device.
                if value & CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR != 0 {
                    return Err(CL_INVALID_PROPERTY);
                }
                flags = value;
            }
            md::CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR => {
                if value & !CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR != 0 {
                    return Err(CL_INVALID_VALUE);
                }
            }
            _ => return Err(CL_INVALID_VALUE),
        }
    }
    Ok((list, flags))
}

pub unsafe extern "C" fn clRetainCommandBufferKHR(cb: cl_command_buffer_khr) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<CommandBuffer>(cb) })
}

pub unsafe extern "C" fn clReleaseCommandBufferKHR(cb: cl_command_buffer_khr) -> cl_int {
    // SAFETY: handle from the application; pending enqueues hold their own
    // references to what they execute.
    code(|| unsafe { release::<CommandBuffer>(cb) })
}

pub unsafe extern "C" fn clFinalizeCommandBufferKHR(cb: cl_command_buffer_khr) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let cmdbuf = unsafe { get::<CommandBuffer>(cb) }?;
        cmdbuf.finalize()
    })
}

/// Whether `a` may execute what was recorded for `b` (queue substitution
/// on enqueue). Since cl_khr_command_buffer 0.9.7 (OpenCL-Docs #1292) a
/// compatible queue is one of the same device (whose VkDevice the
/// recordings belong to) whose properties the device supports for
/// command buffers; its other properties need not match the recording
/// queue's: the barriers between commands were decided at recording by
/// the recording queue (in-order or out-of-order), and profiling
/// timestamps are taken by the executing queue around the whole command
/// (CTS queue_substitution_out_of_order, profiling_substitute_queue).
fn compatible(a: &Queue, b: &Queue) -> bool {
    Arc::ptr_eq(&a.device, &b.device) && a.properties & !SUPPORTED_QUEUE_PROPERTIES == 0
}

pub unsafe extern "C" fn clEnqueueCommandBufferKHR(
    num_queues: cl_uint,
    queues: *mut cl_command_queue,
    cb: cl_command_buffer_khr,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // "CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer."
        let cmdbuf = cmdbuf_arc(cb)?;
        // "CL_INVALID_VALUE if queues is NULL and num_queues is > 0, or
        // queues is not NULL and num_queues is 0", "if num_queues is > 0
        // and not the same value as num_queues set on command_buffer
        // creation".
        if queues.is_null() != (num_queues == 0) {
            return Err(CL_INVALID_VALUE);
        }
        if num_queues > 1 {
            return Err(CL_INVALID_VALUE);
        }
        let queue = if num_queues == 0 {
            cmdbuf.queue.clone()
        } else {
            // "CL_INVALID_COMMAND_QUEUE if any element of queues is not a
            // valid command-queue."
            // SAFETY: one handle per the application.
            let q = queue_arc(unsafe { *queues })?;
            // "CL_INVALID_CONTEXT if any element of queues does not have
            // the same context as the command-queue set on command_buffer
            // creation at the same list index."
            if !Arc::ptr_eq(&q.context, &cmdbuf.queue.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            // "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if any element of queues
            // is not compatible with the command-queue set on
            // command_buffer creation at the same list index."
            if !compatible(&q, &cmdbuf.queue) {
                return Err(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
            }
            q
        };
        // "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
        // num_events_in_wait_list > 0, [...]".
        // "CL_INVALID_CONTEXT if context associated with command_buffer and
        // events in event_wait_list are not the same."
        // SAFETY: pointers from the application.
        let waits = unsafe { wait_list_in(n, list, &cmdbuf.queue.context) }?;
        // "CL_INVALID_OPERATION if command_buffer has not been finalized."
        let e = cmdbuf.enqueue(&queue, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

pub unsafe extern "C" fn clGetCommandBufferInfoKHR(
    cb: cl_command_buffer_khr,
    param: cl_command_buffer_info_khr,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let cmdbuf = unsafe { get::<CommandBuffer>(cb) }?;
        let info = match param {
            CL_COMMAND_BUFFER_QUEUES_KHR => Ok(Info::ptr(handle_of(&cmdbuf.queue))),
            CL_COMMAND_BUFFER_NUM_QUEUES_KHR => Ok(Info::u32(1)),
            CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => Ok(Info::u32(cmdbuf.base().refcount())),
            CL_COMMAND_BUFFER_STATE_KHR => Ok(Info::u32(cmdbuf.state().raw())),
            CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => Ok(Info::raw(&cmdbuf.properties)),
            CL_COMMAND_BUFFER_CONTEXT_KHR => Ok(Info::ptr(handle_of(&cmdbuf.queue.context))),
            // "CL_INVALID_VALUE if param_name is not one of the supported values".
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}
