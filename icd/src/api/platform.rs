//! Platform entry points.

use std::ffi::c_void;

use ferrocl_runtime::core::device::cl_version;
use ferrocl_runtime::core::object::{get, handle_of};
use ferrocl_runtime::core::platform::*;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use crate::entry::code;
use crate::info::{write, Info};

pub fn platform() -> &'static std::sync::Arc<Platform> {
    crate::init();
    Platform::get()
}

/// Also clIcdGetPlatformIDsKHR.
pub unsafe extern "C" fn clGetPlatformIDs(
    n: cl_uint,
    platforms: *mut cl_platform_id,
    num: *mut cl_uint,
) -> cl_int {
    code(|| {
        // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is
        // not NULL or if both num_platforms and platforms are NULL."
        if (n == 0 && !platforms.is_null()) || (num.is_null() && platforms.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let p = platform();
        if !platforms.is_null() {
            // SAFETY: n >= 1 entries.
            unsafe { *platforms = handle_of(p) };
        }
        if !num.is_null() {
            // SAFETY: valid pointer from the application.
            unsafe { *num = 1 };
        }
        Ok(())
    })
}

/// A NULL platform means ours (the only one).
pub unsafe fn check_platform(p: cl_platform_id) -> CLResult<&'static Platform> {
    let ours = platform();
    if p.is_null() {
        return Ok(ours);
    }
    // SAFETY: handle from the application.
    unsafe { get::<Platform>(p) }?;
    Ok(ours)
}

fn ext_string(list: &[(&str, (u32, u32, u32))]) -> String {
    list.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(" ")
}

pub fn name_versions(list: &[(&str, (u32, u32, u32))]) -> Info {
    let v: Vec<(&str, u32)> = list
        .iter()
        .map(|(n, (a, b, c))| (*n, cl_version(*a, *b, *c)))
        .collect();
    Info::name_versions(&v)
}

pub unsafe extern "C" fn clGetPlatformInfo(
    p: cl_platform_id,
    param: cl_platform_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { check_platform(p) }?;
        let info = match param {
            CL_PLATFORM_PROFILE => Ok(Info::str("FULL_PROFILE")),
            CL_PLATFORM_VERSION => Ok(Info::str(&version_string(platform().version()))),
            CL_PLATFORM_NAME => Ok(Info::str(PLATFORM_NAME)),
            CL_PLATFORM_VENDOR => Ok(Info::str(PLATFORM_VENDOR)),
            CL_PLATFORM_EXTENSIONS => Ok(Info::str(&ext_string(PLATFORM_EXTENSIONS))),
            CL_PLATFORM_ICD_SUFFIX_KHR => Ok(Info::str(ICD_SUFFIX)),
            CL_PLATFORM_NUMERIC_VERSION => {
                let (a, b, c) = platform().version();
                Ok(Info::u32(cl_version(a, b, c)))
            }
            CL_PLATFORM_EXTENSIONS_WITH_VERSION => Ok(name_versions(PLATFORM_EXTENSIONS)),
            // The host timer counts nanoseconds (see api::timer).
            CL_PLATFORM_HOST_TIMER_RESOLUTION => Ok(Info::u64(1)),
            // cl_khr_command_buffer_multi_device.
            CL_PLATFORM_COMMAND_BUFFER_CAPABILITIES_KHR => Ok(Info::u64(
                ferrocl_runtime::core::command_buffer::PLATFORM_CAPABILITIES,
            )),
            // cl_khr_external_memory: the handle types every device imports.
            CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR => Ok(Info::raw(
                &super::external_memory::platform_import_types(&platform().devices),
            )),
            // cl_khr_semaphore, cl_khr_external_semaphore.
            p => super::semaphore::platform_info(&platform().devices, p)
                .unwrap_or(Err(CL_INVALID_VALUE)),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clUnloadPlatformCompiler(p: cl_platform_id) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { check_platform(p) }?;
        Ok(())
    })
}

pub unsafe extern "C" fn clUnloadCompiler() -> cl_int {
    CL_SUCCESS
}
