//! The platform and device under test, and clGet*Info queries.

use std::ffi::c_void;
use std::ptr;
use std::sync::OnceLock;

use opencl_sys::*;

use crate::error::{check, cl_result, ClError};
use crate::loader;
use crate::pod::{bytes_mut, zeroed_vec, Pod};

/// Substring of CL_PLATFORM_NAME that selects the platform under test:
/// `$FERROCL_TEST_PLATFORM`, default "ferrocl".
pub fn platform_filter() -> String {
    std::env::var("FERROCL_TEST_PLATFORM").unwrap_or_else(|_| "ferrocl".to_owned())
}

/// Every platform the loader reports (none is an empty list, not an error).
pub fn platforms() -> Vec<cl_platform_id> {
    loader::init();
    let mut count: cl_uint = 0;
    // SAFETY: asks only for the count, written to a live local.
    let status = unsafe { clGetPlatformIDs(0, ptr::null_mut(), &mut count) };
    if status == CL_PLATFORM_NOT_FOUND_KHR || count == 0 {
        return Vec::new();
    }
    check(status, "clGetPlatformIDs(count)");
    let mut ids = vec![ptr::null_mut(); count as usize];
    // SAFETY: `ids` holds `count` entries.
    let status = unsafe { clGetPlatformIDs(count, ids.as_mut_ptr(), ptr::null_mut()) };
    check(status, "clGetPlatformIDs");
    ids
}

/// The platform and device under test, found once per process (the handles
/// as integers: raw pointers are not `Sync`).
static UNDER_TEST: OnceLock<(usize, usize)> = OnceLock::new();

fn under_test() -> (cl_platform_id, cl_device_id) {
    let (platform, device) = *UNDER_TEST.get_or_init(|| {
        let platform = select_platform();
        let device = devices(platform)
            .first()
            .copied()
            .unwrap_or_else(|| panic!("platform {:?} has no devices", platform_name(platform)));
        (platform as usize, device as usize)
    });
    (platform as cl_platform_id, device as cl_device_id)
}

/// The platform whose CL_PLATFORM_NAME contains [`platform_filter`]
/// (case-insensitive). Panics, listing what the loader found, if none does.
pub fn platform() -> cl_platform_id {
    under_test().0
}

/// The first device of [`platform`]: the device under test.
pub fn device() -> cl_device_id {
    under_test().1
}

fn select_platform() -> cl_platform_id {
    let filter = platform_filter();
    let all = platforms();
    let names: Vec<String> = all
        .iter()
        .map(|&p| platform_string(p, CL_PLATFORM_NAME))
        .collect();
    let wanted = filter.to_lowercase();
    match names
        .iter()
        .position(|n| n.to_lowercase().contains(&wanted))
    {
        Some(i) => all[i],
        None => panic!(
            "no OpenCL platform named like {filter:?} (FERROCL_TEST_PLATFORM); the loader \
             found {names:?} with OCL_ICD_VENDORS={:?}. Is libferrocl.so built and does \
             its CL_PLATFORM_NAME contain \"ferrocl\"?",
            std::env::var_os("OCL_ICD_VENDORS").unwrap_or_default()
        ),
    }
}

/// The devices of `platform` (CL_DEVICE_TYPE_ALL).
// A cl_platform_id is an opaque handle that is only passed on to OpenCL,
// which must validate it; this code never dereferences it.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn devices(platform: cl_platform_id) -> Vec<cl_device_id> {
    let mut count: cl_uint = 0;
    // SAFETY: asks only for the count, written to a live local.
    let status =
        unsafe { clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, ptr::null_mut(), &mut count) };
    check(status, "clGetDeviceIDs(count)");
    let mut ids = vec![ptr::null_mut(); count as usize];
    // SAFETY: `ids` holds `count` entries.
    let status = unsafe {
        clGetDeviceIDs(
            platform,
            CL_DEVICE_TYPE_ALL,
            count,
            ids.as_mut_ptr(),
            ptr::null_mut(),
        )
    };
    check(status, "clGetDeviceIDs");
    ids
}

/// What one clGet*Info call asks about: the object and param_name bound.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    target: InfoTarget,
    param: cl_uint,
}

#[derive(Clone, Copy, Debug)]
enum InfoTarget {
    Context(cl_context),
    Platform(cl_platform_id),
    Device(cl_device_id),
    ProgramBuild(cl_program, cl_device_id),
    Kernel(cl_kernel),
    Mem(cl_mem),
    Image(cl_mem),
    Sampler(cl_sampler),
}

impl Info {
    /// The raw call: `param_value_size`, `param_value` (None: NULL) and
    /// `param_value_size_ret` (None: NULL). `size` may be less than the
    /// buffer (to test the protocol), never more.
    pub fn call(
        &self,
        size: usize,
        value: Option<&mut [u8]>,
        size_ret: Option<&mut usize>,
    ) -> cl_int {
        let value = match value {
            Some(buffer) => {
                assert!(
                    size <= buffer.len(),
                    "param_value_size {size} exceeds the buffer"
                );
                buffer.as_mut_ptr().cast::<c_void>()
            }
            None => ptr::null_mut(),
        };
        let size_ret = size_ret.map_or(ptr::null_mut(), |r| r as *mut usize);
        // SAFETY: `value` is NULL or holds at least `size` writable bytes;
        // `size_ret` is NULL or a live usize; the handle is passed through
        // (a stale one is the caller's test of the implementation).
        unsafe {
            match self.target {
                InfoTarget::Context(c) => clGetContextInfo(c, self.param, size, value, size_ret),
                InfoTarget::Platform(p) => clGetPlatformInfo(p, self.param, size, value, size_ret),
                InfoTarget::Device(d) => clGetDeviceInfo(d, self.param, size, value, size_ret),
                InfoTarget::ProgramBuild(p, d) => {
                    clGetProgramBuildInfo(p, d, self.param, size, value, size_ret)
                }
                InfoTarget::Kernel(k) => clGetKernelInfo(k, self.param, size, value, size_ret),
                InfoTarget::Mem(m) => clGetMemObjectInfo(m, self.param, size, value, size_ret),
                InfoTarget::Image(m) => clGetImageInfo(m, self.param, size, value, size_ret),
                InfoTarget::Sampler(s) => clGetSamplerInfo(s, self.param, size, value, size_ret),
            }
        }
    }
}

/// Runs the size/value protocol: asks for the size, then for a value of
/// exactly that size, as `T`s. Panics if the size is not a multiple of
/// `size_of::<T>()` or changes between the calls.
pub fn query<T: Pod>(info: Info) -> Result<Vec<T>, ClError> {
    let mut size = 0usize;
    cl_result(info.call(0, None, Some(&mut size)))?;
    let elem = std::mem::size_of::<T>();
    assert!(
        size % elem == 0,
        "info value of {size} bytes is not a whole number of {elem}-byte values"
    );
    let mut value = zeroed_vec::<T>(size / elem);
    let mut size_ret = 0usize;
    cl_result(info.call(size, Some(bytes_mut(&mut value)), Some(&mut size_ret)))?;
    assert_eq!(size_ret, size, "param_value_size_ret changed between calls");
    Ok(value)
}

/// [`query`] of a single value.
pub fn query_value<T: Pod>(info: Info) -> Result<T, ClError> {
    let values = query::<T>(info)?;
    assert_eq!(
        values.len(),
        1,
        "expected one {}-byte value, got {}",
        std::mem::size_of::<T>(),
        values.len()
    );
    Ok(values[0])
}

/// [`query`] of a NUL-terminated string; panics if the NUL is missing or the
/// text is not UTF-8.
pub fn query_string(info: Info) -> Result<String, ClError> {
    let mut bytes = query::<u8>(info)?;
    assert_eq!(bytes.pop(), Some(0), "info string is not NUL-terminated");
    Ok(String::from_utf8(bytes).expect("info string is not UTF-8"))
}

/// clGetPlatformInfo(platform, param, ...).
pub fn platform_info(platform: cl_platform_id, param: cl_platform_info) -> Info {
    Info {
        target: InfoTarget::Platform(platform),
        param,
    }
}

/// clGetContextInfo(context, param, ...).
pub fn context_info(context: cl_context, param: cl_context_info) -> Info {
    Info {
        target: InfoTarget::Context(context),
        param,
    }
}

/// clGetDeviceInfo(device, param, ...).
pub fn device_info(device: cl_device_id, param: cl_device_info) -> Info {
    Info {
        target: InfoTarget::Device(device),
        param,
    }
}

/// clGetProgramBuildInfo(program, device, param, ...).
pub fn program_build_info(
    program: cl_program,
    device: cl_device_id,
    param: cl_program_build_info,
) -> Info {
    Info {
        target: InfoTarget::ProgramBuild(program, device),
        param,
    }
}

/// clGetKernelInfo(kernel, param, ...).
pub fn kernel_info(kernel: cl_kernel, param: cl_kernel_info) -> Info {
    Info {
        target: InfoTarget::Kernel(kernel),
        param,
    }
}

/// clGetMemObjectInfo(mem, param, ...).
pub fn mem_info(mem: cl_mem, param: cl_mem_info) -> Info {
    Info {
        target: InfoTarget::Mem(mem),
        param,
    }
}

/// clGetImageInfo(image, param, ...).
pub fn image_info(image: cl_mem, param: cl_image_info) -> Info {
    Info {
        target: InfoTarget::Image(image),
        param,
    }
}

/// clGetSamplerInfo(sampler, param, ...).
pub fn sampler_info(sampler: cl_sampler, param: cl_sampler_info) -> Info {
    Info {
        target: InfoTarget::Sampler(sampler),
        param,
    }
}

/// A string platform query; panics on error.
pub fn platform_string(platform: cl_platform_id, param: cl_platform_info) -> String {
    query_string(platform_info(platform, param))
        .unwrap_or_else(|e| panic!("clGetPlatformInfo({param:#x}) failed: {e}"))
}

/// A string device query; panics on error.
pub fn device_string(device: cl_device_id, param: cl_device_info) -> String {
    query_string(device_info(device, param))
        .unwrap_or_else(|e| panic!("clGetDeviceInfo({param:#x}) failed: {e}"))
}

/// A scalar device query; panics on error.
pub fn device_value<T: Pod>(device: cl_device_id, param: cl_device_info) -> T {
    query_value(device_info(device, param))
        .unwrap_or_else(|e| panic!("clGetDeviceInfo({param:#x}) failed: {e}"))
}

/// CL_PLATFORM_NAME.
pub fn platform_name(platform: cl_platform_id) -> String {
    platform_string(platform, CL_PLATFORM_NAME)
}

/// Whether the platform under test is PoCL (the test suite's self-check,
/// `FERROCL_TEST_PLATFORM=Portable`). The few checks where PoCL is known to
/// depart from the spec are skipped there, each saying why.
pub fn testing_pocl() -> bool {
    platform_name(platform()).contains("Portable Computing Language")
}

/// The signature of clGetKernelSubGroupInfo(KHR).
pub type KernelSubGroupInfoFn = unsafe extern "system" fn(
    cl_kernel,
    cl_device_id,
    cl_kernel_sub_group_info,
    usize,
    *const std::ffi::c_void,
    usize,
    *mut std::ffi::c_void,
    *mut usize,
) -> cl_int;

/// clGetKernelSubGroupInfo for `device`: through the loader for a real
/// device; for a NULL device (allowed when the kernel has one device),
/// the platform's own entry point from
/// clGetExtensionFunctionAddressForPlatform("clGetKernelSubGroupInfoKHR"),
/// because some loaders (CUDA's libOpenCL.so.1) answer CL_INVALID_DEVICE
/// for a NULL device themselves, before the ICD sees the call.
pub fn kernel_sub_group_info_fn(device: cl_device_id) -> KernelSubGroupInfoFn {
    if !device.is_null() {
        return clGetKernelSubGroupInfo;
    }
    // SAFETY: a NUL-terminated name; the platform is a valid handle.
    let f = unsafe {
        clGetExtensionFunctionAddressForPlatform(platform(), c"clGetKernelSubGroupInfoKHR".as_ptr())
    };
    assert!(!f.is_null(), "clGetKernelSubGroupInfoKHR not found");
    // SAFETY: the extension's entry point has clGetKernelSubGroupInfo's
    // signature (cl_khr_subgroups).
    unsafe { std::mem::transmute::<*mut std::ffi::c_void, KernelSubGroupInfoFn>(f) }
}

/// The platform's entry point `name`
/// (clGetExtensionFunctionAddressForPlatform); NULL where it has none.
pub fn extension_function(name: &str) -> *mut std::ffi::c_void {
    let c = std::ffi::CString::new(name).expect("a name without NUL");
    // SAFETY: a platform of the loader and a NUL-terminated name.
    unsafe { clGetExtensionFunctionAddressForPlatform(platform(), c.as_ptr()) }
}

/// `ext_fn!("clXxxKHR", clXxxKHR_t)`: the platform's entry point of that
/// name as the extension's function type; panics where it has none.
#[macro_export]
macro_rules! ext_fn {
    ($name:literal, $t:ty) => {{
        let f = $crate::info::extension_function($name);
        assert!(!f.is_null(), concat!("no ", $name, " for the platform"));
        // SAFETY: the extension's signature for this name.
        unsafe { std::mem::transmute::<*mut std::ffi::c_void, $t>(f) }
    }};
}

/// The first two devices of the platform under test with
/// `FERROCL_DEVICE_REPLICAS=2` (each Vulkan device exposed twice) and the
/// variables of `env` set, each unless the environment sets it already.
/// The ICD reads them once, at the process's first OpenCL call, so every
/// test of a binary that uses this must come here first.
pub fn two_replicated_devices(env: &[(&str, &str)]) -> Vec<cl_device_id> {
    static ENV: std::sync::Once = std::sync::Once::new();
    ENV.call_once(|| {
        for (name, value) in std::iter::once(&("FERROCL_DEVICE_REPLICAS", "2")).chain(env) {
            if std::env::var_os(name).is_none() {
                std::env::set_var(name, value);
            }
        }
    });
    let all = devices(platform());
    assert!(
        all.len() >= 2,
        "FERROCL_DEVICE_REPLICAS=2 should give at least two devices, got {}",
        all.len()
    );
    all[..2].to_vec()
}
