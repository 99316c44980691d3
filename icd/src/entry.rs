//! The pattern every entry point follows: ordinary Rust returning
//! `CLResult<T>`, wrapped so that errors become cl_int codes (through the
//! return value or `errcode_ret`) and no panic crosses the C boundary.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ferrocl_runtime::CLResult;
use opencl_sys::*;

fn log_panic() {
    if std::env::var_os("FERROCL_LOG").is_some() {
        eprintln!("ferrocl: internal panic caught at the API boundary");
    }
}

/// For entry points returning cl_int.
pub fn code(f: impl FnOnce() -> CLResult<()>) -> cl_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(e)) => e,
        Err(_) => {
            log_panic();
            CL_OUT_OF_HOST_MEMORY
        }
    }
}

/// For entry points returning an object (or pointer) and taking `errcode_ret`.
pub(crate) fn object<T>(errcode_ret: *mut cl_int, f: impl FnOnce() -> CLResult<*mut T>) -> *mut T {
    let (ptr, err) = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(p)) => (p, CL_SUCCESS),
        Ok(Err(e)) => (std::ptr::null_mut(), e),
        Err(_) => {
            log_panic();
            (std::ptr::null_mut(), CL_OUT_OF_HOST_MEMORY)
        }
    };
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = err };
    }
    ptr
}

/// Turns an event wait list into events, checking it:
/// "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
/// num_events_in_wait_list > 0, or event_wait_list is not NULL and
/// num_events_in_wait_list is 0, or if event objects in event_wait_list are
/// not valid events."
///
/// # Safety
/// `list` must point at `n` handles when non-null.
pub unsafe fn wait_list(
    n: cl_uint,
    list: *const cl_event,
) -> CLResult<Vec<std::sync::Arc<ferrocl_runtime::core::event::Event>>> {
    if list.is_null() != (n == 0) {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: caller contract.
    let hs = unsafe { std::slice::from_raw_parts(list, n as usize) };
    hs.iter()
        // SAFETY: handles given by the application.
        .map(|h| {
            unsafe { ferrocl_runtime::core::object::get_arc(*h) }
                .map_err(|_| CL_INVALID_EVENT_WAIT_LIST)
        })
        .collect()
}

/// [`wait_list`], whose events must all belong to `context`
/// (CL_INVALID_CONTEXT otherwise, checked after the list itself).
///
/// # Safety
/// As [`wait_list`].
pub unsafe fn wait_list_in(
    n: cl_uint,
    list: *const cl_event,
    context: &std::sync::Arc<ferrocl_runtime::core::context::Context>,
) -> CLResult<Vec<std::sync::Arc<ferrocl_runtime::core::event::Event>>> {
    // SAFETY: caller contract.
    let waits = unsafe { wait_list(n, list) }?;
    if waits
        .iter()
        .any(|e| !std::sync::Arc::ptr_eq(&e.context, context))
    {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(waits)
}

/// Writes the returned event handle if the application asked for one.
///
/// # Safety
/// `out` must be NULL or valid for a write.
pub unsafe fn return_event(
    out: *mut cl_event,
    e: std::sync::Arc<ferrocl_runtime::core::event::Event>,
) {
    if !out.is_null() {
        // SAFETY: caller contract.
        unsafe { *out = ferrocl_runtime::core::object::into_handle(e) };
    }
}
