//! Command-queue entry points.

use std::ffi::c_void;

use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::object::{
    get, get_arc, handle_of, into_handle, release, retain, ClObject,
};
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use crate::entry::{code, object};
use crate::info::{write, Info};

fn create(
    c: cl_context,
    dev: cl_device_id,
    props: cl_command_queue_properties,
    array: Vec<cl_queue_properties>,
) -> CLResult<cl_command_queue> {
    let ctx = ctx_arc(c)?;
    // SAFETY: handle from the application.
    let d = unsafe { get_arc::<Device>(dev) }?;
    // "CL_INVALID_DEVICE if device is not a valid device or is not associated with context."
    if !ctx.has_device(&d) {
        return Err(CL_INVALID_DEVICE);
    }
    let supported = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
    let on_device = CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT;
    // "CL_INVALID_VALUE if values specified in properties are not valid."
    if props & !(supported | on_device) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    // "CL_INVALID_QUEUE_PROPERTIES if values specified in properties are
    // valid but are not supported by the device." (see
    // CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES: no device-side queues)
    if props & on_device != 0 {
        return Err(CL_INVALID_QUEUE_PROPERTIES);
    }
    Ok(into_handle(Queue::new(ctx, d, props, array)?))
}

pub unsafe extern "C" fn clCreateCommandQueue(
    c: cl_context,
    dev: cl_device_id,
    props: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    object(errcode_ret, || create(c, dev, props, Vec::new()))
}

pub unsafe extern "C" fn clCreateCommandQueueWithProperties(
    c: cl_context,
    dev: cl_device_id,
    props: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    object(errcode_ret, || {
        let mut flags = 0;
        let mut array = Vec::new();
        if !props.is_null() {
            let mut i = 0;
            loop {
                // SAFETY: 0-terminated list from the application.
                let k = unsafe { *props.add(i) };
                if k == 0 {
                    break;
                }
                // SAFETY: as above.
                let v = unsafe { *props.add(i + 1) };
                match k as cl_uint {
                    CL_QUEUE_PROPERTIES => flags = v,
                    // A queue size is only meaningful for device queues.
                    CL_QUEUE_SIZE => return Err(CL_INVALID_VALUE),
                    _ => return Err(CL_INVALID_VALUE),
                }
                array.push(k);
                array.push(v);
                i += 2;
            }
            array.push(0);
        }
        create(c, dev, flags, array)
    })
}

pub unsafe extern "C" fn clRetainCommandQueue(q: cl_command_queue) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Queue>(q) })
}

pub unsafe extern "C" fn clReleaseCommandQueue(q: cl_command_queue) -> cl_int {
    code(|| {
        // "clReleaseCommandQueue performs an implicit flush."
        // SAFETY: handle from the application.
        let queue = unsafe { get::<Queue>(q) }?;
        if queue.base().refcount() == 1 {
            queue.finish();
        }
        // SAFETY: as above.
        unsafe { release::<Queue>(q) }
    })
}

pub unsafe extern "C" fn clGetCommandQueueInfo(
    q: cl_command_queue,
    param: cl_command_queue_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let queue = unsafe { get::<Queue>(q) }?;
        let info = match param {
            CL_QUEUE_CONTEXT => Ok(Info::ptr(handle_of(&queue.context))),
            CL_QUEUE_DEVICE => Ok(Info::ptr(handle_of(&queue.device))),
            CL_QUEUE_REFERENCE_COUNT => Ok(Info::u32(queue.base().refcount())),
            CL_QUEUE_PROPERTIES => Ok(Info::u64(queue.properties)),
            CL_QUEUE_PROPERTIES_ARRAY => Ok(Info::raw(&queue.properties_array)),
            CL_QUEUE_SIZE => Err(CL_INVALID_COMMAND_QUEUE),
            CL_QUEUE_DEVICE_DEFAULT => Ok(Info::ptr(std::ptr::null_mut::<c_void>())),
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clFlush(q: cl_command_queue) -> cl_int {
    // Commands are submitted as they are enqueued: nothing is held back.
    // Semaphore signals (cl_khr_semaphore) are waited for until they have
    // reached vkQueueSubmit, so that another API may wait for them.
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Queue>(q) }?.pending_signals.wait_submitted();
        Ok(())
    })
}

pub unsafe extern "C" fn clFinish(q: cl_command_queue) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Queue>(q) }?.finish_checked()
    })
}

pub unsafe extern "C" fn clSetCommandQueueProperty(
    q: cl_command_queue,
    _p: cl_command_queue_properties,
    _e: cl_bool,
    _old: *mut cl_command_queue_properties,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Queue>(q) }?;
        // Deprecated in 1.1; no property can be changed.
        Err(CL_INVALID_OPERATION)
    })
}

pub(crate) fn queue_arc(q: cl_command_queue) -> CLResult<std::sync::Arc<Queue>> {
    // SAFETY: handle from the application.
    unsafe { get_arc::<Queue>(q) }
}
