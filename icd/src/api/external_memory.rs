//! cl_khr_external_memory (+ _opaque_fd, _dma_buf): the buffer and image
//! properties that import memory, clEnqueueAcquire/ReleaseExternalMemObjectsKHR
//! (extension functions, [`extension_function`]) and the device and
//! platform queries. The runtime side is `core::external_memory`.
//!
//! The extension (revision 1.0.1) defines import only: there is no export
//! of OpenCL buffers to other APIs in it.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::context::Context;
use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::external_memory as ext;
use ferrocl_runtime::core::object::{get_arc, into_handle};
use ferrocl_runtime::vk::external_memory::{MemoryHandle, Ownership};
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::mem::mem_arc;
use super::queue::queue_arc;
use crate::entry::{code, return_event, wait_list_in};
use crate::info::Info;

/// This extension's entry point called `name`, or NULL.
pub fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clEnqueueAcquireExternalMemObjectsKHR" => {
            clEnqueueAcquireExternalMemObjectsKHR as *mut c_void
        }
        "clEnqueueReleaseExternalMemObjectsKHR" => {
            clEnqueueReleaseExternalMemObjectsKHR as *mut c_void
        }
        _ => std::ptr::null_mut(),
    }
}

/// The external-memory properties of one clCreateBufferWithProperties call.
#[derive(Default)]
pub struct ExternalProps {
    /// The handle to import and its type.
    pub handle: Option<(MemoryHandle, i32)>,
    /// CL_MEM_DEVICE_HANDLE_LIST_KHR.
    pub devices: Option<Vec<cl_device_id>>,
}

/// Reads the property at `p` if it is one of this extension's: the number
/// of list entries it takes (name and value(s)), `None` for another name.
/// "CL_INVALID_PROPERTY if [...] the same property name is specified more
/// than once. Additionally, if more than one external memory handle is
/// specified."
///
/// # Safety
/// `p` points at a property name inside a 0-terminated list.
pub unsafe fn read_property(
    p: *const cl_mem_properties,
    out: &mut ExternalProps,
) -> CLResult<Option<usize>> {
    // SAFETY: caller contract.
    let name = unsafe { *p };
    if name == CL_MEM_DEVICE_HANDLE_LIST_KHR {
        if out.devices.is_some() {
            return Err(CL_INVALID_PROPERTY);
        }
        let mut devices = Vec::new();
        let mut n = 1;
        loop {
            // SAFETY: the list runs to CL_MEM_DEVICE_HANDLE_LIST_END_KHR.
            let v = unsafe { *p.add(n) };
            n += 1;
            if v == CL_MEM_DEVICE_HANDLE_LIST_END_KHR {
                break;
            }
            devices.push(v as cl_device_id);
        }
        out.devices = Some(devices);
        return Ok(Some(n));
    }
    let Some(handle) = u32::try_from(name).ok().and_then(ext::handle_type_vk) else {
        return Ok(None);
    };
    if out.handle.is_some() {
        return Err(CL_INVALID_PROPERTY);
    }
    // SAFETY: a name is followed by its value.
    let fd = unsafe { *p.add(1) } as i64;
    // "CL_INVALID_PROPERTY if [...] the value specified for a supported
    // property name is not valid": an fd is a non-negative int.
    let fd = i32::try_from(fd)
        .ok()
        .filter(|fd| *fd >= 0)
        .ok_or(CL_INVALID_PROPERTY)?;
    out.handle = Some((handle, fd));
    Ok(Some(2))
}

/// The checks this extension adds to clCreateBufferWithProperties and
/// clCreateImageWithProperties: the handle to import.
pub fn check_import(
    ctx: &Arc<Context>,
    ext_props: &ExternalProps,
    flags: cl_mem_flags,
    host_ptr: *mut c_void,
) -> CLResult<(MemoryHandle, i32)> {
    let Some((handle, fd)) = ext_props.handle else {
        // A device list without a handle to import: nothing to associate.
        return Err(CL_INVALID_PROPERTY);
    };
    // "CL_INVALID_DEVICE if a device identified by the property
    // CL_MEM_DEVICE_HANDLE_LIST_KHR is not a valid device or is not
    // associated with context."
    let devices: Vec<Arc<Device>> = match &ext_props.devices {
        Some(list) => list
            .iter()
            .map(|&d| {
                // SAFETY: handle from the application.
                let d = unsafe { get_arc::<Device>(d as *const c_void) }
                    .map_err(|_| CL_INVALID_DEVICE)?;
                if !ctx.devices.iter().any(|c| Arc::ptr_eq(c, &d)) {
                    return Err(CL_INVALID_DEVICE);
                }
                Ok(d)
            })
            .collect::<CLResult<_>>()?,
        None => ctx.devices.clone(),
    };
    // The memory is imported on one device, the context's first (where a
    // memory object's primary storage lives): several devices, or another
    // one, are not supported.
    if devices.len() != 1 || !Arc::ptr_eq(&devices[0], &ctx.devices[0]) {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_PROPERTY": a handle type the device cannot import.
    if !handle.supported(&devices[0].phys.external) {
        return Err(CL_INVALID_PROPERTY);
    }
    // The bytes are the other API's: no host pointer to use or copy, and
    // no host allocation.
    if !host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    if flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    Ok((handle, fd))
}

/// clCreateBufferWithProperties with an external memory handle.
pub fn create_buffer(
    ctx: Arc<Context>,
    props: Vec<cl_mem_properties>,
    ext_props: &ExternalProps,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> CLResult<cl_mem> {
    let (handle, fd) = check_import(&ctx, ext_props, flags, host_ptr)?;
    let flags = if flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    };
    let mem = ext::import_buffer(ctx, flags, size, handle, fd, props)?;
    if mem.device_address {
        // cl_ext_buffer_device_address: a fixed address, known to the
        // launches that get it as a raw pointer.
        ferrocl_runtime::core::device_address::register(&mem, false)?;
    }
    Ok(into_handle(mem))
}

/// The two entry points' shared checks and command.
unsafe fn enqueue_ownership(
    q: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
    dir: Ownership,
) -> CLResult<()> {
    // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue."
    let queue = queue_arc(q)?;
    // "CL_INVALID_VALUE if num_mem_objects is zero and mem_objects is not
    // a NULL value or if num_mem_objects > 0 and mem_objects is NULL."
    if (num_mem_objects == 0) != mem_objects.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let handles = if num_mem_objects == 0 {
        &[][..]
    } else {
        // SAFETY: num_mem_objects handles per the application.
        unsafe { std::slice::from_raw_parts(mem_objects, num_mem_objects as usize) }
    };
    let mut mems = Vec::with_capacity(handles.len());
    for &h in handles {
        // "CL_INVALID_MEM_OBJECT if any of the memory objects in
        // mem_objects is not a valid memory object or memory object is
        // not created using an external memory handle."
        let m = mem_arc(h)?;
        if !ext::is_external(&m) {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        // "CL_INVALID_CONTEXT if context associated with command_queue and
        // memory objects in mem_objects are not the same."
        if !Arc::ptr_eq(&m.context, &queue.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        // "CL_INVALID_COMMAND_QUEUE if the device associated with
        // command_queue is not one of the devices specified by
        // CL_MEM_DEVICE_HANDLE_LIST_KHR at the time of creating one or more
        // of mem_objects" (the memory lives on the context's first device).
        if queue.device_index != 0 {
            return Err(CL_INVALID_COMMAND_QUEUE);
        }
        mems.push(m);
    }
    // "CL_INVALID_EVENT_WAIT_LIST if [...]" and "CL_INVALID_CONTEXT if
    // [...] events in event_wait_list [...] are not the same."
    // SAFETY: n handles per the application.
    let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
    let e = ext::enqueue_ownership(&queue, mems, dir, waits)?;
    // SAFETY: NULL or valid per the application.
    unsafe { return_event(event, e) };
    Ok(())
}

pub unsafe extern "C" fn clEnqueueAcquireExternalMemObjectsKHR(
    q: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: forwarded application pointers.
        unsafe {
            enqueue_ownership(
                q,
                num_mem_objects,
                mem_objects,
                n,
                list,
                event,
                Ownership::Acquire,
            )
        }
    })
}

pub unsafe extern "C" fn clEnqueueReleaseExternalMemObjectsKHR(
    q: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: forwarded application pointers.
        unsafe {
            enqueue_ownership(
                q,
                num_mem_objects,
                mem_objects,
                n,
                list,
                event,
                Ownership::Release,
            )
        }
    })
}

/// This extension's clGetDeviceInfo queries (`None`: not one of them);
/// CL_INVALID_VALUE where the device does not report the extension.
pub fn device_info(d: &Device, param: cl_device_info) -> Option<CLResult<Info>> {
    let types = ext::import_handle_types(d);
    let answer = match param {
        CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR => Info::raw(&types),
        // Images are imported with OPTIMAL tiling, never assumed linear.
        CL_DEVICE_EXTERNAL_MEMORY_IMPORT_ASSUME_LINEAR_IMAGES_HANDLE_TYPES_KHR => {
            Info::raw::<cl_external_memory_handle_type_khr>(&[])
        }
        _ => return None,
    };
    Some(if types.is_empty() {
        Err(CL_INVALID_VALUE)
    } else {
        Ok(answer)
    })
}

/// CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR: the handle types
/// every device of the platform imports.
pub fn platform_import_types(devices: &[Arc<Device>]) -> Vec<cl_external_memory_handle_type_khr> {
    common_types(devices.iter().map(|d| ext::import_handle_types(d)))
}

/// The values every list of `lists` holds (empty without lists).
pub fn common_types<T: PartialEq>(mut lists: impl Iterator<Item = Vec<T>>) -> Vec<T> {
    let Some(first) = lists.next() else {
        return Vec::new();
    };
    lists.fold(first, |acc, l| {
        acc.into_iter().filter(|t| l.contains(t)).collect()
    })
}
