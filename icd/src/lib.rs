//! libferrocl.so: the OpenCL C ABI of ferrocl as a cl_khr_icd (2.0) ICD.
//!
//! Thin by design (DESIGN §2): every entry point checks its C arguments,
//! converts handles and calls `ferrocl_runtime`. Only the symbols an ICD
//! loader looks up are exported (`clGetExtensionFunctionAddress`,
//! `clIcdGetPlatformIDsKHR`, and cl_khr_icd 2.0's
//! `clIcdGetFunctionAddressForPlatformKHR` / `clIcdSetPlatformDispatchDataKHR`);
//! everything else is reached through the dispatch table.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_void, CStr};
use std::sync::Once;

use opencl_sys::*;

pub mod api;
pub mod dispatch;
pub mod entry;
pub mod info;

/// Makes new objects point at our dispatch table. Called by every entry
/// point that can create the platform.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        ferrocl_runtime::core::object::set_dispatch(
            &dispatch::DISPATCH as *const opencl_sys::cl_icd::cl_icd_dispatch as *const c_void,
        );
    });
}

unsafe extern "C" fn get_extension_function_address(name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: NUL-terminated string from the caller.
    let name = unsafe { CStr::from_ptr(name) }.to_str().unwrap_or("");
    match name {
        "clIcdGetPlatformIDsKHR" => clIcdGetPlatformIDsKHR as *mut c_void,
        "clIcdGetFunctionAddressForPlatformKHR" => {
            clIcdGetFunctionAddressForPlatformKHR as *mut c_void
        }
        "clIcdSetPlatformDispatchDataKHR" => clIcdSetPlatformDispatchDataKHR as *mut c_void,
        // ocl-icd asks for this one to read the platform's ICD suffix.
        "clGetPlatformInfo" => dispatch::lookup(name),
        // cl_khr_suggested_local_work_size.
        "clGetKernelSuggestedLocalWorkSizeKHR" => {
            api::suggested_local::clGetKernelSuggestedLocalWorkSizeKHR as *mut c_void
        }
        // Debug aid, not API: live Vulkan-backed objects (leak checks,
        // `ferrocl-soak`), only while FERROCL_LOG is set.
        "ferroclDebugLiveVulkanObjects" if std::env::var_os("FERROCL_LOG").is_some() => {
            debug_live_vulkan_objects as *mut c_void
        }
        // cl_ext_buffer_device_address.
        "clSetKernelArgDevicePointerEXT" => {
            api::kernel::clSetKernelArgDevicePointerEXT as *mut c_void
        }
        // cl_khr_command_buffer, cl_khr_command_buffer_mutable_dispatch and
        // cl_khr_command_buffer_multi_device,
        // cl_khr_external_memory, cl_khr_semaphore,
        // cl_khr_external_semaphore and cl_intel_unified_shared_memory.
        _ => [
            api::command_buffer::extension_function,
            api::external_memory::extension_function,
            api::semaphore::extension_function,
            api::usm::extension_function,
        ]
        .iter()
        .map(|f| f(name))
        .find(|p| !p.is_null())
        .unwrap_or(std::ptr::null_mut()),
    }
}

unsafe extern "C" fn get_extension_function_address_for_platform(
    p: cl_platform_id,
    name: *const c_char,
) -> *mut c_void {
    // SAFETY: handle from the application.
    if unsafe { api::platform::check_platform(p) }.is_err() {
        return std::ptr::null_mut();
    }
    // SAFETY: forwarded.
    unsafe { get_extension_function_address(name) }
}

/// Writes up to `n` counts of live Vulkan-backed objects (buffers, images,
/// buffer views, kernel pipeline sets, queue engines:
/// `ferrocl_runtime::vk::live`) to `out`; returns how many kinds there are.
unsafe extern "C" fn debug_live_vulkan_objects(out: *mut i64, n: u32) -> u32 {
    let counts = ferrocl_runtime::vk::live::counts();
    if !out.is_null() {
        for (i, c) in counts.iter().take(n as usize).enumerate() {
            // SAFETY: the caller gives room for `n` counts.
            unsafe { *out.add(i) = *c };
        }
    }
    counts.len() as u32
}

/// The ICD loader's entry point (looked up with dlsym).
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *const c_char) -> *mut c_void {
    // SAFETY: forwarded.
    unsafe { get_extension_function_address(name) }
}

/// cl_khr_icd: the platforms of this ICD.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    n: cl_uint,
    platforms: *mut cl_platform_id,
    num: *mut cl_uint,
) -> cl_int {
    // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not
    // NULL or if both num_platforms and platforms are NULL."
    // SAFETY: forwarded.
    unsafe { api::platform::clGetPlatformIDs(n, platforms, num) }
}

/// cl_khr_icd 2.0: any entry point by name.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetFunctionAddressForPlatformKHR(
    p: cl_platform_id,
    name: *const c_char,
) -> *mut c_void {
    // SAFETY: handle from the loader.
    if unsafe { api::platform::check_platform(p) }.is_err() || name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: NUL-terminated string from the loader.
    let n = unsafe { CStr::from_ptr(name) }.to_str().unwrap_or("");
    let f = dispatch::lookup(n);
    if f.is_null() {
        // SAFETY: forwarded.
        unsafe { get_extension_function_address(name) }
    } else {
        f
    }
}

/// cl_khr_icd 2.0: the loader's per-platform data. Our objects keep our own
/// dispatch table, which stays valid for loaders of either version.
#[no_mangle]
pub unsafe extern "C" fn clIcdSetPlatformDispatchDataKHR(
    p: cl_platform_id,
    _data: *mut c_void,
) -> cl_int {
    // SAFETY: handle from the loader.
    match unsafe { api::platform::check_platform(p) } {
        Ok(_) => CL_SUCCESS,
        Err(e) => e,
    }
}
