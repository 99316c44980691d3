//! cl_khr_external_semaphore (+ _opaque_fd, _sync_fd): the semaphore
//! properties that import or make exportable, clGetSemaphoreHandleForTypeKHR
//! (export), clReImportSemaphoreSyncFdKHR, and the handle-type queries.
//! Reported only for the handle types the Vulkan device imports or
//! exports (`vk::external`).

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::object::get;
use ferrocl_runtime::core::semaphore::{self as sema, Semaphore};
use ferrocl_runtime::vk::external_semaphore::SemaphoreHandle;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::external_memory::common_types;
use crate::entry::code;
use crate::info::Info;

/// This extension's entry point called `name`, or NULL.
pub fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clGetSemaphoreHandleForTypeKHR" => clGetSemaphoreHandleForTypeKHR as *mut c_void,
        "clReImportSemaphoreSyncFdKHR" => clReImportSemaphoreSyncFdKHR as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

/// The external-semaphore properties of one creation.
#[derive(Default)]
pub struct ExternalSemaphoreProps {
    pub export: Vec<SemaphoreHandle>,
    export_given: bool,
    pub import: Option<(SemaphoreHandle, i32)>,
}

/// Reads the property at `p` if it is one of this extension's: the number
/// of list entries it takes, `None` for another name.
///
/// # Safety
/// `p` points at a property name inside a 0-terminated list.
pub unsafe fn read_property(
    p: *const cl_semaphore_properties_khr,
    out: &mut ExternalSemaphoreProps,
) -> CLResult<Option<usize>> {
    // SAFETY: caller contract.
    let name = unsafe { *p };
    if name == CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR {
        // "CL_INVALID_PROPERTY if [...] the same property name is
        // specified more than once."
        if out.export_given {
            return Err(CL_INVALID_PROPERTY);
        }
        out.export_given = true;
        let mut n = 1;
        loop {
            // SAFETY: the list runs to its END value.
            let v = unsafe { *p.add(n) };
            n += 1;
            if v == CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR {
                break;
            }
            let h = u32::try_from(v)
                .ok()
                .and_then(sema::handle_type_vk)
                .ok_or(CL_INVALID_PROPERTY)?;
            // A handle type named twice in the list: CL_INVALID_VALUE (as
            // CTS semaphores_negative_create_invalid_value checks).
            if out.export.contains(&h) {
                return Err(CL_INVALID_VALUE);
            }
            out.export.push(h);
        }
        return Ok(Some(n));
    }
    let Some(handle) = u32::try_from(name).ok().and_then(sema::handle_type_vk) else {
        return Ok(None);
    };
    // More than one handle to import.
    if out.import.is_some() {
        return Err(CL_INVALID_PROPERTY);
    }
    // SAFETY: a name is followed by its value.
    let fd = unsafe { *p.add(1) } as i64;
    let fd = i32::try_from(fd)
        .ok()
        .filter(|fd| *fd >= 0)
        .ok_or(CL_INVALID_PROPERTY)?;
    out.import = Some((handle, fd));
    Ok(Some(2))
}

/// Checks the external properties against `device`.
pub fn check(props: &ExternalSemaphoreProps, device: &Device) -> CLResult<()> {
    // "CL_INVALID_OPERATION if props_list specifies a
    // cl_external_semaphore_handle_type_khr followed by a handle as well
    // as CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR."
    if props.import.is_some() && props.export_given {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_DEVICE if one or more devices identified by properties
    // CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR can not import the requested
    // external semaphore handle type" (and likewise for export).
    let caps = &device.phys.external;
    if let Some((h, _)) = props.import {
        if !h.support(caps).import {
            return Err(CL_INVALID_DEVICE);
        }
    }
    if props.export.iter().any(|h| !h.support(caps).export) {
        return Err(CL_INVALID_DEVICE);
    }
    Ok(())
}

/// This extension's clGetSemaphoreInfoKHR queries (`None`: not one of them).
pub fn semaphore_info(s: &Semaphore, param: cl_semaphore_info_khr) -> Option<Info> {
    match param {
        p if cl_semaphore_properties_khr::from(p) == CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR => {
            let types: Vec<cl_external_semaphore_handle_type_khr> = s
                .export_types
                .iter()
                .map(|h| sema::handle_type_cl(*h))
                .collect();
            Some(Info::raw(&types))
        }
        CL_SEMAPHORE_EXPORTABLE_KHR => Some(Info::bool(!s.export_types.is_empty())),
        _ => None,
    }
}

pub unsafe extern "C" fn clGetSemaphoreHandleForTypeKHR(
    s: cl_semaphore_khr,
    device: cl_device_id,
    handle_type: cl_external_semaphore_handle_type_khr,
    handle_size: usize,
    handle_ptr: *mut c_void,
    handle_size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // "CL_INVALID_SEMAPHORE_KHR if sema_object is not a valid semaphore."
        // SAFETY: handle from the application.
        let s: &Semaphore = unsafe { get(s) }?;
        // "CL_INVALID_DEVICE if device is not a valid device, or if
        // sema_object belongs to a context that is not associated with
        // device."
        // SAFETY: handle from the application.
        let d: &Device = unsafe { get(device) }?;
        if !std::ptr::eq(d, Arc::as_ptr(&s.device)) {
            return Err(CL_INVALID_DEVICE);
        }
        // "CL_INVALID_VALUE if the requested external semaphore handle type
        // was not specified when sema_object was created."
        let h = sema::handle_type_vk(handle_type)
            .filter(|h| s.export_types.contains(h))
            .ok_or(CL_INVALID_VALUE)?;
        let size = std::mem::size_of::<i32>();
        if !handle_ptr.is_null() {
            // "CL_INVALID_VALUE if the size in bytes specified by
            // handle_size is less than size of the requested handle and
            // handle_ptr is not NULL."
            if handle_size < size {
                return Err(CL_INVALID_VALUE);
            }
            let fd = s.export_fd(h)?;
            // SAFETY: room for an int, checked above.
            unsafe { handle_ptr.cast::<i32>().write_unaligned(fd) };
        }
        if !handle_size_ret.is_null() {
            // SAFETY: valid for a write per the application.
            unsafe { *handle_size_ret = size };
        }
        Ok(())
    })
}

pub unsafe extern "C" fn clReImportSemaphoreSyncFdKHR(
    s: cl_semaphore_khr,
    reimport_props: *mut cl_semaphore_reimport_properties_khr,
    fd: i32,
) -> cl_int {
    code(|| {
        // "CL_INVALID_SEMAPHORE_KHR if sema_object is not a valid semaphore"
        // SAFETY: handle from the application.
        let s: &Semaphore = unsafe { get(s) }?;
        // "CL_INVALID_SEMAPHORE_KHR if a CL_SEMAPHORE_HANDLE_SYNC_FD_KHR
        // handle was not imported when sema_object was created."
        if s.imported != Some(SemaphoreHandle::SyncFd) {
            return Err(CL_INVALID_SEMAPHORE_KHR);
        }
        // The extension defines no re-import property.
        // SAFETY: NULL or a 0-terminated list per the application.
        if !reimport_props.is_null() && unsafe { *reimport_props } != 0 {
            return Err(CL_INVALID_PROPERTY);
        }
        // "CL_INVALID_VALUE if fd is invalid."
        if fd < 0 {
            return Err(CL_INVALID_VALUE);
        }
        s.reimport_sync_fd(fd)
    })
}

/// CL_DEVICE_SEMAPHORE_IMPORT/EXPORT_HANDLE_TYPES_KHR (`None`: another
/// query); CL_INVALID_VALUE where the device reports no external semaphore.
pub fn device_info(d: &Device, param: cl_device_info) -> Option<CLResult<Info>> {
    let import = match param {
        CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR => true,
        CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR => false,
        _ => return None,
    };
    let any = !sema::handle_types(d, true).is_empty() || !sema::handle_types(d, false).is_empty();
    Some(if any {
        Ok(Info::raw(&sema::handle_types(d, import)))
    } else {
        Err(CL_INVALID_VALUE)
    })
}

/// CL_PLATFORM_SEMAPHORE_IMPORT/EXPORT_HANDLE_TYPES_KHR: the handle types
/// every device of the platform imports or exports.
pub fn platform_info(devices: &[Arc<Device>], param: cl_platform_info) -> Option<CLResult<Info>> {
    let import = match param {
        CL_PLATFORM_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR => true,
        CL_PLATFORM_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR => false,
        _ => return None,
    };
    let types = common_types(devices.iter().map(|d| sema::handle_types(d, import)));
    Some(Ok(Info::raw(&types)))
}
