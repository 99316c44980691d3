//! Host and device timers (OpenCL 2.1): the host timer is the clock every
//! profiling value is on; the device timer is the device's timestamp
//! counter, read now and mapped onto that clock through the device's
//! calibration (runtime `vk::clock`), so the two differ by at most the
//! calibration's error.

use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::object::get;
use ferrocl_runtime::vk::clock;
use opencl_sys::*;

use crate::entry::code;

pub unsafe extern "C" fn clGetDeviceAndHostTimer(
    d: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let dev = unsafe { get::<Device>(d) }?;
        // "CL_INVALID_VALUE if host_timestamp or device_timestamp is NULL."
        if device_timestamp.is_null() || host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (dt, ht) = clock::device_and_host_time(&*dev.vk()?)?;
        // SAFETY: non-null pointers from the application.
        unsafe {
            *device_timestamp = dt;
            *host_timestamp = ht;
        }
        Ok(())
    })
}

pub unsafe extern "C" fn clGetHostTimer(d: cl_device_id, host_timestamp: *mut cl_ulong) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Device>(d) }?;
        // "CL_INVALID_VALUE if host_timestamp is NULL."
        if host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: non-null pointer from the application.
        unsafe { *host_timestamp = clock::host_now_ns() };
        Ok(())
    })
}
