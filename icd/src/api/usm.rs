//! cl_intel_unified_shared_memory entry points, reached through
//! clGetExtensionFunctionAddress(ForPlatform) ([`extension_function`]):
//! the allocation functions, clMemFreeINTEL, clGetMemAllocInfoINTEL and
//! the clEnqueueMem*INTEL commands. `ferrocl_runtime::core::usm` has the
//! design; clSetKernelArgMemPointerINTEL and the USM exec infos are in
//! `super::kernel`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::context::Context;
use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::event::Event;
use ferrocl_runtime::core::object::{get, handle_of};
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::core::transfer::enqueue_marker;
use ferrocl_runtime::core::usm::{self, Kind};
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use super::enqueue::finish_blocking;
use super::queue::queue_arc;
use crate::entry::{code, object, return_event, wait_list_in};
use crate::info::{write, Info};

/// The entry point `name` of this extension, or NULL.
pub fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clHostMemAllocINTEL" => clHostMemAllocINTEL as *mut c_void,
        "clDeviceMemAllocINTEL" => clDeviceMemAllocINTEL as *mut c_void,
        "clSharedMemAllocINTEL" => clSharedMemAllocINTEL as *mut c_void,
        "clMemFreeINTEL" => clMemFreeINTEL as *mut c_void,
        "clMemBlockingFreeINTEL" => clMemBlockingFreeINTEL as *mut c_void,
        "clGetMemAllocInfoINTEL" => clGetMemAllocInfoINTEL as *mut c_void,
        "clSetKernelArgMemPointerINTEL" => {
            super::kernel::clSetKernelArgMemPointerINTEL as *mut c_void
        }
        "clEnqueueMemFillINTEL" => clEnqueueMemFillINTEL as *mut c_void,
        "clEnqueueMemsetINTEL" => clEnqueueMemsetINTEL as *mut c_void,
        "clEnqueueMemcpyINTEL" => clEnqueueMemcpyINTEL as *mut c_void,
        "clEnqueueMigrateMemINTEL" => clEnqueueMigrateMemINTEL as *mut c_void,
        "clEnqueueMemAdviseINTEL" => clEnqueueMemAdviseINTEL as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

/// CL_MEM_ALLOC_FLAGS_INTEL's bits.
const ALLOC_FLAGS: cl_mem_alloc_flags_intel = CL_MEM_ALLOC_WRITE_COMBINED_INTEL
    | CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL
    | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;

/// The CL_MEM_ALLOC_FLAGS_INTEL value of a property list (0 without):
/// "CL_INVALID_PROPERTY if a memory property name in properties is not a
/// supported property name, if the value specified for a supported
/// property name is not valid, or if the same property name is specified
/// more than once", and the placement flags' rules for `kind` (host and
/// device allocations take neither, shared ones not both). The write-
/// combined request is taken and changes nothing (a performance hint).
///
/// # Safety
/// `properties` is NULL or a 0-terminated list of pairs.
unsafe fn alloc_flags(
    properties: *const cl_mem_properties_intel,
    kind: Kind,
) -> CLResult<cl_mem_alloc_flags_intel> {
    let mut flags = None;
    let mut p = properties;
    while !p.is_null() {
        // SAFETY: a 0-terminated list of (name, value) pairs.
        let name = unsafe { *p };
        if name == 0 {
            break;
        }
        // SAFETY: as above: a value follows each name.
        let value = unsafe { *p.add(1) };
        if name != CL_MEM_ALLOC_FLAGS_INTEL || flags.is_some() || value & !ALLOC_FLAGS != 0 {
            return Err(CL_INVALID_PROPERTY);
        }
        flags = Some(value);
        // SAFETY: the next pair, or the terminating 0.
        p = unsafe { p.add(2) };
    }
    let flags = flags.unwrap_or(0);
    let placement =
        CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
    let bad = match kind {
        Kind::Host | Kind::Device => flags & placement != 0,
        Kind::Shared => flags & placement == placement,
    };
    if bad {
        return Err(CL_INVALID_PROPERTY);
    }
    Ok(flags)
}

/// The context device `d` (CL_INVALID_DEVICE when it is no device of
/// `ctx`).
///
/// # Safety
/// `d` is a handle from the application.
unsafe fn context_device(ctx: &Context, d: cl_device_id) -> CLResult<Arc<Device>> {
    // SAFETY: handle from the application.
    let dev = unsafe { get::<Device>(d) }?;
    ctx.devices
        .iter()
        .find(|x| std::ptr::eq(&***x, dev))
        .cloned()
        .ok_or(CL_INVALID_DEVICE)
}

/// The three allocation functions: `device` is the one named (NULL for a
/// host allocation and a shared one without a device).
///
/// # Safety
/// Handles and the property list from the application.
unsafe fn alloc(
    c: cl_context,
    kind: Kind,
    d: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
) -> CLResult<*mut c_void> {
    let ctx = ctx_arc(c)?;
    // "CL_INVALID_DEVICE if device is not a valid device or is not
    // associated with context" (for shared allocations: if it is not NULL).
    let device = match kind {
        Kind::Host => None,
        Kind::Shared if d.is_null() => None,
        // SAFETY: handle from the application.
        _ => Some(unsafe { context_device(&ctx, d) }?),
    };
    // The devices the allocation concerns: the one named, else all of
    // the context's. "CL_INVALID_OPERATION if CL_DEVICE_*_MEM_CAPABILITIES_
    // INTEL is zero for all devices in context / for device."
    let devices = match &device {
        Some(dev) => vec![dev.clone()],
        None => ctx.devices.clone(),
    };
    if !devices.iter().any(|dev| usm::capabilities(dev, kind) != 0) {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_VALUE if alignment is not zero or a power of two", "[...]
    // if alignment is greater than the size of the largest data type
    // supported by" the device(s): long16 on every ferrocl device.
    let alignment = u64::from(alignment);
    if alignment != 0 && (!alignment.is_power_of_two() || alignment > usm::MAX_ALIGNMENT) {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: the application's property list.
    let flags = unsafe { alloc_flags(properties, kind) }?;
    // "CL_INVALID_BUFFER_SIZE if size is zero or greater than
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE for" the device(s).
    if size == 0 || devices.iter().any(|d| size as u64 > d.max_mem_alloc_size()) {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    usm::alloc(&ctx, kind, device, size, alignment, flags).map(|p| p as *mut c_void)
}

pub unsafe extern "C" fn clHostMemAllocINTEL(
    c: cl_context,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        // SAFETY: arguments from the application.
        unsafe {
            alloc(
                c,
                Kind::Host,
                std::ptr::null_mut(),
                properties,
                size,
                alignment,
            )
        }
    })
}

pub unsafe extern "C" fn clDeviceMemAllocINTEL(
    c: cl_context,
    d: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        // SAFETY: arguments from the application.
        unsafe { alloc(c, Kind::Device, d, properties, size, alignment) }
    })
}

pub unsafe extern "C" fn clSharedMemAllocINTEL(
    c: cl_context,
    d: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        // SAFETY: arguments from the application.
        unsafe { alloc(c, Kind::Shared, d, properties, size, alignment) }
    })
}

/// "If ptr is NULL then no action occurs"; "CL_INVALID_VALUE if ptr is not
/// a value returned by clHostMemAllocINTEL, clDeviceMemAllocINTEL,
/// clSharedMemAllocINTEL, or a NULL pointer" (of this context).
pub unsafe extern "C" fn clMemFreeINTEL(c: cl_context, ptr: *mut c_void) -> cl_int {
    code(|| {
        let ctx = ctx_arc(c)?;
        if ptr.is_null() {
            return Ok(());
        }
        usm::free(&ctx, ptr as u64)
    })
}

/// clMemFreeINTEL once the commands enqueued so far on the context's queues
/// are complete.
pub unsafe extern "C" fn clMemBlockingFreeINTEL(c: cl_context, ptr: *mut c_void) -> cl_int {
    code(|| {
        let ctx = ctx_arc(c)?;
        if ptr.is_null() {
            return Ok(());
        }
        usm::blocking_free(&ctx, ptr as u64)
    })
}

/// The queries take any pointer: one in no allocation of the context is
/// of type CL_MEM_TYPE_UNKNOWN_INTEL, with NULL base and device and size 0.
pub unsafe extern "C" fn clGetMemAllocInfoINTEL(
    c: cl_context,
    ptr: *const c_void,
    param: cl_mem_info_intel,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        let ctx = ctx_arc(c)?;
        let found = usm::find(&ctx, ptr as u64).map(|(a, _)| a);
        let info = match param {
            CL_MEM_ALLOC_TYPE_INTEL => Ok(Info::u32(
                found
                    .as_ref()
                    .map_or(CL_MEM_TYPE_UNKNOWN_INTEL, |a| a.kind.cl_type()),
            )),
            CL_MEM_ALLOC_BASE_PTR_INTEL => Ok(Info::ptr(
                found.as_ref().map_or(0, |a| a.base) as *mut c_void
            )),
            CL_MEM_ALLOC_SIZE_INTEL => Ok(Info::usize(found.as_ref().map_or(0, |a| a.mem.size))),
            CL_MEM_ALLOC_DEVICE_INTEL => Ok(Info::ptr(
                found
                    .as_ref()
                    .and_then(|a| a.device.as_ref())
                    .map_or(std::ptr::null_mut(), handle_of),
            )),
            // The property name doubles as the query (typed as a property).
            p if cl_mem_properties_intel::from(p) == CL_MEM_ALLOC_FLAGS_INTEL => {
                Ok(Info::u64(found.as_ref().map_or(0, |a| a.flags)))
            }
            // "CL_INVALID_VALUE if param_name is not a valid Unified Shared
            // Memory allocation query."
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

/// The checks every clEnqueueMem*INTEL command starts with: the queue, the
/// wait list and its context.
///
/// # Safety
/// `list` points at `n` handles when not NULL.
unsafe fn prologue(
    q: cl_command_queue,
    n: cl_uint,
    list: *const cl_event,
) -> CLResult<(Arc<Queue>, Vec<Arc<Event>>)> {
    let queue = queue_arc(q)?;
    // SAFETY: caller contract.
    let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
    Ok((queue, waits))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueMemFillINTEL(
    q: cl_command_queue,
    dst: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { prologue(q, n, list) }?;
        // SAFETY: `pattern_size` bytes per the application.
        let bytes = unsafe { super::svm::fill_pattern(dst, pattern, pattern_size, size) }?;
        let e = if size == 0 {
            enqueue_marker(&queue, CL_COMMAND_MEMFILL_INTEL, waits)
        } else {
            usm::enqueue_fill(&queue, dst as u64, bytes, size, waits)?
        };
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

/// The extension's deprecated byte fill (the headers: "deprecated, use
/// clEnqueueMemFillINTEL instead"): as C's memset, `value` converted to
/// an unsigned char fills `size` bytes, i.e. clEnqueueMemFillINTEL with a
/// one-byte pattern. It is the same command (CL_COMMAND_MEMFILL_INTEL;
/// the headers define no other type for it) with the same checks.
pub unsafe extern "C" fn clEnqueueMemsetINTEL(
    q: cl_command_queue,
    dst: *mut c_void,
    value: cl_int,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let byte = value as u8;
    // SAFETY: forwarded; the pattern is one byte that outlives the call
    // (the fill copies it before returning).
    unsafe { clEnqueueMemFillINTEL(q, dst, (&byte as *const u8).cast(), 1, size, n, list, event) }
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueMemcpyINTEL(
    q: cl_command_queue,
    blocking: cl_bool,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { prologue(q, n, list) }?;
        let (d, s) = super::svm::copy_ends(dst, src, size)?;
        let e = if size == 0 {
            enqueue_marker(&queue, CL_COMMAND_MEMCPY_INTEL, waits)
        } else {
            // SAFETY: the application keeps host memory valid for `size`
            // bytes until the command completes.
            unsafe { usm::enqueue_memcpy(&queue, d, s, size, waits) }?
        };
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueMigrateMemINTEL(
    q: cl_command_queue,
    ptr: *const c_void,
    _size: usize,
    flags: cl_mem_migration_flags,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { prologue(q, n, list) }?;
        // "CL_INVALID_VALUE if flags is zero or is not a supported
        // combination of memory migration flags" (CL_MIGRATE_MEM_OBJECT_HOST
        // and _CONTENT_UNDEFINED; the extension leaves the pointer and size
        // unchecked: a hint "may be ignored").
        let valid = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        if flags == 0 || flags & !valid != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let e = usm::enqueue_hint(&queue, ptr as u64, CL_COMMAND_MIGRATEMEM_INTEL, waits);
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueMemAdviseINTEL(
    q: cl_command_queue,
    ptr: *const c_void,
    _size: usize,
    advice: cl_mem_advice_intel,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { prologue(q, n, list) }?;
        // "CL_INVALID_VALUE if advice is not supported advice for the
        // device": the extension defines no advice value (0x4208-0x420F are
        // reserved) and allows zero advice (revision Q), the only one taken.
        if advice != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let e = usm::enqueue_hint(&queue, ptr as u64, CL_COMMAND_MEMADVISE_INTEL, waits);
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}
