//! Error codes of the platform, device and buffer entry points for invalid
//! values (handles are valid; see errors_handles.rs for invalid ones).

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{device, expect_error, init, platform, Cl};

#[test]
fn get_platform_ids_asking_for_nothing() {
    init();
    // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not
    // NULL or if both num_platforms and platforms are NULL."
    // SAFETY: null out-pointers are what is being tested.
    let status = unsafe { clGetPlatformIDs(0, ptr::null_mut(), ptr::null_mut()) };
    expect_error(status, CL_INVALID_VALUE, "clGetPlatformIDs(0, NULL, NULL)");
    let mut one: cl_platform_id = ptr::null_mut();
    // SAFETY: `one` is a live slot; num_entries 0 says not to use it.
    let status = unsafe { clGetPlatformIDs(0, &mut one, ptr::null_mut()) };
    expect_error(
        status,
        CL_INVALID_VALUE,
        "clGetPlatformIDs(0, platforms, NULL)",
    );
}

/// Parameter names no version or extension defines.
const BAD_PARAMS: [u32; 3] = [0, 0x0FFF, 0x7FFF_FFFF];

#[test]
fn get_device_info_unknown_param() {
    let device = device();
    for param in BAD_PARAMS {
        let mut value = [0u8; 64];
        let mut size_ret = 0usize;
        // SAFETY: a 64-byte buffer described as such.
        let status = unsafe {
            clGetDeviceInfo(
                device,
                param,
                value.len(),
                value.as_mut_ptr().cast(),
                &mut size_ret,
            )
        };
        expect_error(
            status,
            CL_INVALID_VALUE,
            &format!("clGetDeviceInfo({param:#x})"),
        );
    }
}

#[test]
fn get_platform_info_unknown_param() {
    let platform = platform();
    for param in BAD_PARAMS {
        let mut size_ret = 0usize;
        // SAFETY: a size query only.
        let status =
            unsafe { clGetPlatformInfo(platform, param, 0, ptr::null_mut(), &mut size_ret) };
        expect_error(
            status,
            CL_INVALID_VALUE,
            &format!("clGetPlatformInfo({param:#x})"),
        );
    }
}

/// clCreateBuffer's status, and a check that an error returns no object.
fn create_buffer(cl: &Cl, flags: cl_mem_flags, size: usize, host: *mut c_void) -> cl_int {
    let mut status = CL_SUCCESS;
    // SAFETY: `host` is null or points at at least `size` bytes.
    let mem = unsafe { clCreateBuffer(cl.raw(), flags, size, host, &mut status) };
    if status == CL_SUCCESS {
        // SAFETY: a buffer just created and owned here.
        unsafe { clReleaseMemObject(mem) };
    } else {
        assert!(
            mem.is_null(),
            "clCreateBuffer failed but returned an object"
        );
    }
    status
}

#[test]
fn create_buffer_of_size_zero() {
    let cl = Cl::new();
    // "CL_INVALID_BUFFER_SIZE if size is 0."
    let status = create_buffer(&cl, CL_MEM_READ_WRITE, 0, ptr::null_mut());
    expect_error(status, CL_INVALID_BUFFER_SIZE, "clCreateBuffer(size 0)");
}

#[test]
fn create_buffer_copy_host_ptr_without_pointer() {
    let cl = Cl::new();
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags."
    let status = create_buffer(&cl, CL_MEM_COPY_HOST_PTR, 64, ptr::null_mut());
    expect_error(
        status,
        CL_INVALID_HOST_PTR,
        "clCreateBuffer(COPY_HOST_PTR, NULL)",
    );
}

#[test]
fn create_buffer_with_conflicting_flags() {
    let cl = Cl::new();
    // "CL_INVALID_VALUE if values specified in flags are not valid": READ_ONLY
    // and WRITE_ONLY are mutually exclusive.
    let status = create_buffer(
        &cl,
        CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
        64,
        ptr::null_mut(),
    );
    expect_error(
        status,
        CL_INVALID_VALUE,
        "clCreateBuffer(READ_ONLY | WRITE_ONLY)",
    );
}
