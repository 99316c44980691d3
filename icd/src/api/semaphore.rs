//! cl_khr_semaphore: create, retain, release, wait, signal and query
//! binary semaphores (extension functions, [`extension_function`]). The
//! external handles of cl_khr_external_semaphore are read and written in
//! `super::external_semaphore`; the runtime side is `core::semaphore`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::context::Context;
use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::event::Event;
use ferrocl_runtime::core::object::{get, get_arc, handle_of, into_handle, release, retain};
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::core::semaphore::{self as sema, Semaphore, SemaphoreDesc};
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use super::external_semaphore as ext;
use super::queue::queue_arc;
use crate::entry::{code, object, return_event, wait_list_in};
use crate::info::{write, Info};

/// The cl_khr_semaphore family's entry point called `name`, or NULL.
pub fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clCreateSemaphoreWithPropertiesKHR" => clCreateSemaphoreWithPropertiesKHR as *mut c_void,
        "clEnqueueWaitSemaphoresKHR" => clEnqueueWaitSemaphoresKHR as *mut c_void,
        "clEnqueueSignalSemaphoresKHR" => clEnqueueSignalSemaphoresKHR as *mut c_void,
        "clGetSemaphoreInfoKHR" => clGetSemaphoreInfoKHR as *mut c_void,
        "clRetainSemaphoreKHR" => clRetainSemaphoreKHR as *mut c_void,
        "clReleaseSemaphoreKHR" => clReleaseSemaphoreKHR as *mut c_void,
        _ => ext::extension_function(name),
    }
}

pub(crate) fn sema_arc(s: cl_semaphore_khr) -> CLResult<Arc<Semaphore>> {
    // SAFETY: handle from the application.
    unsafe { get_arc::<Semaphore>(s) }
}

/// Reads the 0-terminated property list: the semaphore to create.
///
/// # Safety
/// `props` is a 0-terminated list (NULL checked by the caller).
unsafe fn read_properties(
    ctx: &Arc<Context>,
    props: *const cl_semaphore_properties_khr,
) -> CLResult<SemaphoreDesc> {
    let mut list = Vec::new();
    let mut sema_type = None;
    let mut device_list: Option<Vec<Arc<Device>>> = None;
    let mut external = ext::ExternalSemaphoreProps::default();
    let mut i = 0;
    loop {
        // SAFETY: within the 0-terminated list.
        let name = unsafe { *props.add(i) };
        if name == 0 {
            break;
        }
        let n = match name {
            n if n == cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_KHR) => {
                // "CL_INVALID_PROPERTY if [...] the value specified for a
                // supported property name is not valid, or if the same
                // property name is specified more than once."
                // SAFETY: a name is followed by its value.
                let v = unsafe { *props.add(i + 1) };
                if sema_type.is_some()
                    || v != cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_BINARY_KHR)
                {
                    return Err(CL_INVALID_PROPERTY);
                }
                sema_type = Some(v);
                2
            }
            n if n == cl_semaphore_properties_khr::from(CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR) => {
                if device_list.is_some() {
                    return Err(CL_INVALID_PROPERTY);
                }
                let mut devices = Vec::new();
                let mut k = 1;
                loop {
                    // SAFETY: the list runs to its END value.
                    let v = unsafe { *props.add(i + k) };
                    k += 1;
                    if v == cl_semaphore_properties_khr::from(
                        CL_SEMAPHORE_DEVICE_HANDLE_LIST_END_KHR,
                    ) {
                        break;
                    }
                    // "CL_INVALID_DEVICE if one or more devices identified
                    // by properties CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR is
                    // not part of devices within context".
                    // SAFETY: handle from the application.
                    let d = unsafe { get_arc::<Device>(v as *const c_void) }
                        .map_err(|_| CL_INVALID_DEVICE)?;
                    if !ctx.devices.iter().any(|c| Arc::ptr_eq(c, &d)) {
                        return Err(CL_INVALID_DEVICE);
                    }
                    devices.push(d);
                }
                // "Only a single device is permitted in the list."
                if devices.len() != 1 {
                    return Err(CL_INVALID_DEVICE);
                }
                device_list = Some(devices);
                k
            }
            // cl_khr_external_semaphore's properties.
            // SAFETY: `i` is a name inside the 0-terminated list.
            _ => match unsafe { ext::read_property(props.add(i), &mut external) }? {
                Some(n) => n,
                // "CL_INVALID_PROPERTY if a property name in sema_props is
                // not a supported property name".
                None => return Err(CL_INVALID_PROPERTY),
            },
        };
        // SAFETY: the property's n entries were just read.
        list.extend_from_slice(unsafe { std::slice::from_raw_parts(props.add(i), n) });
        i += n;
    }
    list.push(0);
    // "CL_INVALID_VALUE if [...] sema_props do not specify <property,
    // value> pairs for minimum set of properties (i.e.
    // CL_SEMAPHORE_TYPE_KHR) required for successful creation".
    if sema_type.is_none() {
        return Err(CL_INVALID_VALUE);
    }
    // Without a device list the semaphore belongs to the context's device:
    // "CL_INVALID_PROPERTY [...] if context is a multiple device context
    // and sema_props does not specify CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR".
    let device = match &device_list {
        Some(l) => l[0].clone(),
        None if ctx.devices.len() == 1 => ctx.devices[0].clone(),
        None => return Err(CL_INVALID_PROPERTY),
    };
    ext::check(&external, &device)?;
    Ok(SemaphoreDesc {
        device,
        device_list: device_list.unwrap_or_default(),
        properties: list,
        export_types: external.export,
        import: external.import,
    })
}

pub unsafe extern "C" fn clCreateSemaphoreWithPropertiesKHR(
    context: cl_context,
    props: *const cl_semaphore_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_semaphore_khr {
    object(errcode_ret, || {
        // "CL_INVALID_CONTEXT if context is not a valid context."
        let ctx = ctx_arc(context)?;
        // "CL_INVALID_VALUE if sema_props is NULL".
        if props.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: a 0-terminated list per the application.
        let desc = unsafe { read_properties(&ctx, props) }?;
        Ok(into_handle(Semaphore::new(ctx, desc)?))
    })
}

/// The checks clEnqueueWaitSemaphoresKHR and clEnqueueSignalSemaphoresKHR
/// share; the queue and the semaphores.
unsafe fn enqueue_args(
    q: cl_command_queue,
    num: cl_uint,
    semas: *const cl_semaphore_khr,
) -> CLResult<(Arc<Queue>, Vec<Arc<Semaphore>>)> {
    // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue".
    let queue = queue_arc(q)?;
    // "CL_INVALID_VALUE if num_sema_objects is 0" (or the list is NULL).
    if num == 0 || semas.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: num handles per the application.
    let handles = unsafe { std::slice::from_raw_parts(semas, num as usize) };
    let mut list = Vec::with_capacity(handles.len());
    for &h in handles {
        // "CL_INVALID_SEMAPHORE_KHR if any of the semaphore objects
        // specified by sema_objects is not valid."
        let s = sema_arc(h)?;
        // "CL_INVALID_CONTEXT if the context associated with command_queue
        // and any of the semaphore objects in sema_objects are not the same".
        if !Arc::ptr_eq(&s.context, &queue.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        // "CL_INVALID_COMMAND_QUEUE if the device associated with
        // command_queue is not same as one of the devices specified by
        // CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR at the time of creating one
        // or more of sema_objects".
        if !Arc::ptr_eq(&s.device, &queue.device) {
            return Err(CL_INVALID_COMMAND_QUEUE);
        }
        list.push(s);
    }
    Ok((queue, list))
}

/// "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status
/// of any of the events in event_wait_list is a negative integer value."
fn failed_waits(waits: &[Arc<Event>]) -> CLResult<()> {
    if waits.iter().any(|e| e.status() < 0) {
        return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    Ok(())
}

pub unsafe extern "C" fn clEnqueueWaitSemaphoresKHR(
    q: cl_command_queue,
    num: cl_uint,
    semas: *const cl_semaphore_khr,
    _payloads: *const cl_semaphore_payload_khr,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // Binary semaphores take no payload: sema_payload_list is ignored.
    // SAFETY: forwarded application pointers.
    unsafe { enqueue_semaphores(q, num, semas, n, list, event, sema::enqueue_wait) }
}

pub unsafe extern "C" fn clEnqueueSignalSemaphoresKHR(
    q: cl_command_queue,
    num: cl_uint,
    semas: *const cl_semaphore_khr,
    _payloads: *const cl_semaphore_payload_khr,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // SAFETY: forwarded application pointers.
    unsafe { enqueue_semaphores(q, num, semas, n, list, event, sema::enqueue_signal) }
}

/// `sema::enqueue_wait` or `sema::enqueue_signal`.
type EnqueueSemaphores = fn(&Arc<Queue>, Vec<Arc<Semaphore>>, Vec<Arc<Event>>) -> Arc<Event>;

/// clEnqueueWaitSemaphoresKHR and clEnqueueSignalSemaphoresKHR: their
/// shared checks, then `enqueue` (`sema::enqueue_wait` or
/// `sema::enqueue_signal`).
///
/// # Safety
/// `semas` points at `num` handles and `list` at `n` when not NULL;
/// `event` is NULL or writable.
unsafe fn enqueue_semaphores(
    q: cl_command_queue,
    num: cl_uint,
    semas: *const cl_semaphore_khr,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
    enqueue: EnqueueSemaphores,
) -> cl_int {
    code(|| {
        // SAFETY: caller contract.
        let (queue, semas) = unsafe { enqueue_args(q, num, semas) }?;
        // SAFETY: caller contract.
        let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
        failed_waits(&waits)?;
        let e = enqueue(&queue, semas, waits);
        // SAFETY: caller contract.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

pub unsafe extern "C" fn clGetSemaphoreInfoKHR(
    s: cl_semaphore_khr,
    param: cl_semaphore_info_khr,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let s: &Semaphore = unsafe { get(s) }?;
        let info = match param {
            CL_SEMAPHORE_CONTEXT_KHR => Info::ptr(handle_of(&s.context)),
            CL_SEMAPHORE_REFERENCE_COUNT_KHR => {
                Info::u32(ferrocl_runtime::core::object::ClObject::base(s).refcount())
            }
            CL_SEMAPHORE_PROPERTIES_KHR => Info::raw(&s.properties),
            CL_SEMAPHORE_TYPE_KHR => Info::u32(CL_SEMAPHORE_TYPE_BINARY_KHR),
            CL_SEMAPHORE_PAYLOAD_KHR => Info::u64(s.payload()),
            CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR => {
                // The devices the semaphore is associated with.
                let list: Vec<*mut c_void> = if s.device_list.is_empty() {
                    vec![handle_of(&s.device)]
                } else {
                    s.device_list.iter().map(handle_of).collect()
                };
                Info::raw(&list)
            }
            p => match ext::semaphore_info(s, p) {
                Some(i) => i,
                None => return Err(CL_INVALID_VALUE),
            },
        };
        // SAFETY: pointers from the application.
        unsafe { write(Ok(info), size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clRetainSemaphoreKHR(s: cl_semaphore_khr) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Semaphore>(s) })
}

pub unsafe extern "C" fn clReleaseSemaphoreKHR(s: cl_semaphore_khr) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { release::<Semaphore>(s) })
}

/// cl_khr_semaphore's clGetDeviceInfo queries and cl_khr_external_semaphore's
/// (`None`: not one of them).
pub fn device_info(d: &Device, param: cl_device_info) -> Option<CLResult<Info>> {
    match param {
        CL_DEVICE_SEMAPHORE_TYPES_KHR => Some(Ok(Info::raw(&[CL_SEMAPHORE_TYPE_BINARY_KHR]))),
        _ => ext::device_info(d, param),
    }
}

/// cl_khr_semaphore's clGetPlatformInfo queries and
/// cl_khr_external_semaphore's (`None`: not one of them).
pub fn platform_info(devices: &[Arc<Device>], param: cl_platform_info) -> Option<CLResult<Info>> {
    match param {
        CL_PLATFORM_SEMAPHORE_TYPES_KHR => Some(Ok(Info::raw(&[CL_SEMAPHORE_TYPE_BINARY_KHR]))),
        _ => ext::platform_info(devices, param),
    }
}
