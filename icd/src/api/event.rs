//! Event entry points.

use std::ffi::c_void;

use ferrocl_runtime::core::event::{Event, EventCallback};
use ferrocl_runtime::core::object::{
    get, get_arc, handle_of, into_handle, release, retain, ClObject,
};
use opencl_sys::*;

use super::context::ctx_arc;
use crate::entry::{code, object, wait_list};
use crate::info::{write, Info};

pub unsafe extern "C" fn clWaitForEvents(n: cl_uint, list: *const cl_event) -> cl_int {
    code(|| {
        // "CL_INVALID_VALUE if num_events is zero or event_list is NULL."
        if n == 0 || list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: n handles from the application.
        let evs = unsafe { wait_list(n, list) }.map_err(|_| CL_INVALID_EVENT)?;
        // "CL_INVALID_CONTEXT if events specified in event_list do not belong to the same context."
        if evs
            .iter()
            .any(|e| !std::sync::Arc::ptr_eq(&e.context, &evs[0].context))
        {
            return Err(CL_INVALID_CONTEXT);
        }
        let mut failed = false;
        for e in &evs {
            failed |= e.wait() < 0;
        }
        // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution
        // status of any of the events in event_list is a negative integer value."
        if failed {
            return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        }
        Ok(())
    })
}

pub unsafe extern "C" fn clGetEventInfo(
    e: cl_event,
    param: cl_event_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let ev = unsafe { get::<Event>(e) }?;
        let info = match param {
            CL_EVENT_COMMAND_QUEUE => Ok(Info::ptr(ev.queue_handle())),
            CL_EVENT_CONTEXT => Ok(Info::ptr(handle_of(&ev.context))),
            CL_EVENT_COMMAND_TYPE => Ok(Info::u32(ev.command_type)),
            CL_EVENT_COMMAND_EXECUTION_STATUS => Ok(Info::i32(ev.status())),
            CL_EVENT_REFERENCE_COUNT => Ok(Info::u32(ev.base().refcount())),
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clRetainEvent(e: cl_event) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Event>(e) })
}

pub unsafe extern "C" fn clReleaseEvent(e: cl_event) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { release::<Event>(e) })
}

pub unsafe extern "C" fn clCreateUserEvent(c: cl_context, errcode_ret: *mut cl_int) -> cl_event {
    object(errcode_ret, || {
        let ctx = ctx_arc(c)?;
        Ok(into_handle(Event::new(ctx, None, CL_COMMAND_USER)))
    })
}

pub unsafe extern "C" fn clSetUserEventStatus(e: cl_event, status: cl_int) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let ev = unsafe { get_arc::<Event>(e) }?;
        if !ev.is_user() {
            return Err(CL_INVALID_EVENT);
        }
        // "CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer value."
        if status > CL_COMPLETE {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if the execution_status for event has already been changed."
        if ev.status() <= CL_COMPLETE {
            return Err(CL_INVALID_OPERATION);
        }
        ev.set_status(status);
        Ok(())
    })
}

pub unsafe extern "C" fn clSetEventCallback(
    e: cl_event,
    when: cl_int,
    f: Option<EventCallback>,
    data: *mut c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let ev = unsafe { get_arc::<Event>(e) }?;
        let f = f.ok_or(CL_INVALID_VALUE)?;
        if !matches!(when, CL_SUBMITTED | CL_RUNNING | CL_COMPLETE) {
            return Err(CL_INVALID_VALUE);
        }
        ev.add_callback(when, f, data as usize);
        Ok(())
    })
}

pub unsafe extern "C" fn clGetEventProfilingInfo(
    e: cl_event,
    param: cl_profiling_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let ev = unsafe { get::<Event>(e) }?;
        let info = ev.profiling_info(param).map(Info::u64);
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}
