//! cl_khr_command_buffer: the command-buffer object (create, retain,
//! release, finalize, enqueue, clGetCommandBufferInfoKHR), with
//! cl_khr_command_buffer_multi_device's rules for several queues and its
//! clRemapCommandBufferKHR. The recording
//! entry points are in `command_buffer_commands.rs`, mutable dispatch in
//! `mutable_dispatch.rs`; all are extension functions
//! ([`extension_function`], reached through
//! clGetExtensionFunctionAddress(ForPlatform)). The runtime side is
//! `core::command_buffer`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::command_buffer::{
    CommandBuffer, MutableCommand, SUPPORTED_QUEUE_PROPERTIES,
};
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
        "clRemapCommandBufferKHR" => clRemapCommandBufferKHR as *mut c_void,
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
        // "CL_INVALID_VALUE if queues is NULL" and (with
        // cl_khr_command_buffer_multi_device) "if num_queues is zero".
        if queues.is_null() || num_queues == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not a
        // valid command-queue", "CL_INVALID_CONTEXT if all the
        // command-queues in queues do not have the same OpenCL context".
        // SAFETY: num_queues handles per the application.
        let list = unsafe { queue_list(num_queues, queues) }?;
        // SAFETY: a 0-terminated list per the application.
        let (props, flags) = unsafe { read_properties(properties) }?;
        check_queues(&list, flags)?;
        Ok(into_handle(CommandBuffer::new(list, props, flags)) as cl_command_buffer_khr)
    })
}

/// The `n` queues at `queues`, each valid ("CL_INVALID_COMMAND_QUEUE if any
/// command-queue in queues is not a valid command-queue"), all of one
/// context ("CL_INVALID_CONTEXT if all the command-queues in queues do
/// not have the same OpenCL context").
///
/// # Safety
/// `queues` must point at `n` handles.
unsafe fn queue_list(n: cl_uint, queues: *const cl_command_queue) -> CLResult<Vec<Arc<Queue>>> {
    // SAFETY: caller contract.
    let handles = unsafe { std::slice::from_raw_parts(queues, n as usize) };
    let list = handles
        .iter()
        .map(|&q| queue_arc(q))
        .collect::<CLResult<Vec<_>>>()?;
    if list
        .iter()
        .any(|q| !Arc::ptr_eq(&q.context, &list[0].context))
    {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(list)
}

/// The queues a command buffer may be made for (clCreateCommandBufferKHR,
/// clRemapCommandBufferKHR), each "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR"
/// case: "if the properties of any command-queue in queues does not
/// contain the minimum properties specified by
/// CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR" (none) or has
/// a property CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
/// lacks (every host-queue property is supported); several queues of one
/// device are fine (CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR), and
/// devices synchronize with the platform's universal sync; but "if the
/// CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR flag is set, and any device
/// associated with a command-queue in queues cannot natively synchronize
/// with the other devices": no device lists another (or itself) in
/// CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR, so that flag allows one
/// queue only.
fn check_queues(queues: &[Arc<Queue>], flags: cl_command_buffer_flags_khr) -> CLResult<()> {
    if queues
        .iter()
        .any(|q| q.properties & !SUPPORTED_QUEUE_PROPERTIES != 0)
    {
        return Err(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
    }
    if flags & CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR != 0 && queues.len() > 1 {
        return Err(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
    }
    Ok(())
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
                // CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR
                // (cl_khr_command_buffer_multi_device) is checked against
                // the queues (`check_queues`).
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
        if num_queues > 0 && num_queues as usize != cmdbuf.queues.len() {
            return Err(CL_INVALID_VALUE);
        }
        let exec = if num_queues == 0 {
            cmdbuf.queues.clone()
        } else {
            // SAFETY: num_queues handles per the application.
            let handles = unsafe { std::slice::from_raw_parts(queues, num_queues as usize) };
            let mut exec = Vec::with_capacity(handles.len());
            for (&h, recorded) in handles.iter().zip(&cmdbuf.queues) {
                // "CL_INVALID_COMMAND_QUEUE if any element of queues is not
                // a valid command-queue."
                let q = queue_arc(h)?;
                // "CL_INVALID_CONTEXT if any element of queues does not have
                // the same context as the command-queue set on
                // command_buffer creation at the same list index."
                if !Arc::ptr_eq(&q.context, &recorded.context) {
                    return Err(CL_INVALID_CONTEXT);
                }
                // "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if any element of
                // queues is not compatible with the command-queue set on
                // command_buffer creation at the same list index."
                if !compatible(&q, recorded) {
                    return Err(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
                }
                exec.push(q);
            }
            exec
        };
        // "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
        // num_events_in_wait_list > 0, [...]".
        // "CL_INVALID_CONTEXT if context associated with command_buffer and
        // events in event_wait_list are not the same."
        // SAFETY: pointers from the application.
        let waits = unsafe { wait_list_in(n, list, cmdbuf.context()) }?;
        // "CL_INVALID_OPERATION if command_buffer has not been finalized."
        let e = cmdbuf.enqueue(&exec, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

/// clRemapCommandBufferKHR (cl_khr_command_buffer_multi_device): a deep
/// copy of `cb` for `queues` (`core::command_buffer::remap`).
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clRemapCommandBufferKHR(
    cb: cl_command_buffer_khr,
    automatic: cl_bool,
    num_queues: cl_uint,
    queues: *const cl_command_queue,
    num_handles: cl_uint,
    handles: *const cl_mutable_command_khr,
    handles_ret: *mut cl_mutable_command_khr,
    errcode_ret: *mut cl_int,
) -> cl_command_buffer_khr {
    object(errcode_ret, || {
        // "CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer."
        let cmdbuf = cmdbuf_arc(cb)?;
        // "CL_INVALID_VALUE if num_queues is 0, or if queues is NULL."
        if num_queues == 0 || queues.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if automatic is CL_FALSE and num_queues is not
        // equal to the number of queues used on creation of command_buffer."
        let automatic = automatic != CL_FALSE;
        if !automatic && num_queues as usize != cmdbuf.queues.len() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if handles or handles_ret is NULL and
        // num_handles is > 0, or either handles or handles_ret is not NULL
        // and num_handles is 0."
        if (num_handles > 0) != (!handles.is_null() && !handles_ret.is_null())
            || (num_handles == 0 && (!handles.is_null() || !handles_ret.is_null()))
        {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if any handle in handles is not a valid command
        // handle belonging to command_buffer."
        let wanted: Vec<usize> = if num_handles == 0 {
            Vec::new()
        } else {
            // SAFETY: num_handles handles per the application.
            let hs = unsafe { std::slice::from_raw_parts(handles, num_handles as usize) };
            hs.iter()
                .map(|&h| {
                    // SAFETY: handle from the application.
                    match unsafe { get::<MutableCommand>(h) } {
                        Ok(c) if c.belongs_to(&cmdbuf) => Ok(h as usize),
                        _ => Err(CL_INVALID_VALUE),
                    }
                })
                .collect::<CLResult<Vec<_>>>()?
        };
        // "CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not a
        // valid command-queue." "CL_INVALID_CONTEXT if command_buffer and
        // all the command-queues in queues do not have the same OpenCL
        // context."
        // SAFETY: num_queues handles per the application.
        let list = unsafe { queue_list(num_queues, queues) }?;
        if !Arc::ptr_eq(&list[0].context, cmdbuf.context()) {
            return Err(CL_INVALID_CONTEXT);
        }
        // "CL_INVALID_OPERATION if the platform does not support the
        // CL_COMMAND_BUFFER_PLATFORM_REMAP_QUEUES_KHR flag" (it does, and
        // CL_COMMAND_BUFFER_PLATFORM_AUTOMATIC_REMAP_KHR too).
        // "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if such an error would be
        // returned by passing queues to clCreateCommandBufferKHR."
        check_queues(&list, cmdbuf.flags)?;
        // "Any error relating to device support that can be returned by a
        // command recording entry-point may also be returned."
        let remapped = cmdbuf.remap(list, automatic)?;
        for (i, &h) in wanted.iter().enumerate() {
            let new = remapped
                .commands
                .iter()
                .find(|(old, _)| handle_of(old) as usize == h)
                .map(|(_, new)| handle_of(new))
                .ok_or(CL_INVALID_VALUE)?;
            // SAFETY: num_handles entries per the application.
            unsafe { *handles_ret.add(i) = new as cl_mutable_command_khr };
        }
        Ok(into_handle(remapped.command_buffer) as cl_command_buffer_khr)
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
            CL_COMMAND_BUFFER_QUEUES_KHR => {
                let hs: Vec<usize> = cmdbuf
                    .queues
                    .iter()
                    .map(|q| handle_of(q) as usize)
                    .collect();
                Ok(Info::raw(&hs))
            }
            CL_COMMAND_BUFFER_NUM_QUEUES_KHR => Ok(Info::u32(cmdbuf.queues.len() as u32)),
            CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => Ok(Info::u32(cmdbuf.base().refcount())),
            CL_COMMAND_BUFFER_STATE_KHR => Ok(Info::u32(cmdbuf.state().raw())),
            CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => Ok(Info::raw(&cmdbuf.properties)),
            CL_COMMAND_BUFFER_CONTEXT_KHR => Ok(Info::ptr(handle_of(cmdbuf.context()))),
            // "CL_INVALID_VALUE if param_name is not one of the supported values".
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}
