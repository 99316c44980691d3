//! Context entry points.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::context::{Context, ContextNotify};
use ferrocl_runtime::core::object::{get, handle_of, into_handle, release, retain};
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::device::device_list;
use super::platform::platform;
use crate::entry::{code, object};
use crate::info::{write, Info};

/// Parses a 0-terminated property list.
unsafe fn properties(props: *const cl_context_properties) -> CLResult<Vec<cl_context_properties>> {
    let mut out = Vec::new();
    if props.is_null() {
        return Ok(out);
    }
    let mut i = 0;
    let mut seen = Vec::new();
    loop {
        // SAFETY: the application gives a 0-terminated list.
        let k = unsafe { *props.add(i) };
        if k == 0 {
            break;
        }
        // SAFETY: as above: every key has a value.
        let v = unsafe { *props.add(i + 1) };
        // "CL_INVALID_PROPERTY if context property name in properties is not
        // a supported property name, if the value specified for a supported
        // property name is not valid, or if the same property name is
        // specified more than once."
        if seen.contains(&k) {
            return Err(CL_INVALID_PROPERTY);
        }
        seen.push(k);
        match k {
            x if x == CL_CONTEXT_PLATFORM => {
                // SAFETY: handle from the application.
                if unsafe { get::<ferrocl_runtime::core::platform::Platform>(v as *mut c_void) }
                    .is_err()
                {
                    return Err(CL_INVALID_PLATFORM);
                }
            }
            // A cl_bool: "the value specified for a supported property
            // name is not valid" for anything else.
            x if x == CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties => {
                if v != CL_TRUE as cl_context_properties && v != CL_FALSE as cl_context_properties {
                    return Err(CL_INVALID_PROPERTY);
                }
            }
            _ => return Err(CL_INVALID_PROPERTY),
        }
        out.push(k);
        out.push(v);
        i += 2;
    }
    Ok(out)
}

pub unsafe extern "C" fn clCreateContext(
    props: *const cl_context_properties,
    n: cl_uint,
    devices: *const cl_device_id,
    notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    object(errcode_ret, || {
        platform();
        // SAFETY: pointers from the application.
        let props = unsafe { properties(props) }?;
        // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
        if notify.is_none() && !user_data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: as above.
        let devs = unsafe { device_list(n, devices) }?;
        let ctx = Context::new(devs, props, notify.map(|f| (f, user_data as usize)));
        Ok(into_handle(ctx))
    })
}

pub unsafe extern "C" fn clCreateContextFromType(
    props: *const cl_context_properties,
    device_type: cl_device_type,
    notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    object(errcode_ret, || {
        let plat = platform();
        // SAFETY: pointers from the application.
        let props = unsafe { properties(props) }?;
        if notify.is_none() && !user_data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let valid = CL_DEVICE_TYPE_DEFAULT
            | CL_DEVICE_TYPE_CPU
            | CL_DEVICE_TYPE_GPU
            | CL_DEVICE_TYPE_ACCELERATOR
            | CL_DEVICE_TYPE_CUSTOM;
        if device_type != CL_DEVICE_TYPE_ALL && (device_type & !valid != 0 || device_type == 0) {
            return Err(CL_INVALID_DEVICE_TYPE);
        }
        let devs: Vec<_> = plat
            .devices
            .iter()
            .filter(|d| d.selected_by(device_type))
            .cloned()
            .collect();
        if devs.is_empty() {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        Ok(into_handle(Context::new(
            devs,
            props,
            notify.map(|f| (f, user_data as usize)),
        )))
    })
}

pub unsafe extern "C" fn clRetainContext(c: cl_context) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Context>(c) })
}

pub unsafe extern "C" fn clReleaseContext(c: cl_context) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { release::<Context>(c) })
}

pub unsafe extern "C" fn clGetContextInfo(
    c: cl_context,
    param: cl_context_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let ctx = unsafe { get::<Context>(c) }?;
        let info = match param {
            CL_CONTEXT_REFERENCE_COUNT => Ok(Info::u32(
                ferrocl_runtime::core::object::ClObject::base(ctx).refcount(),
            )),
            CL_CONTEXT_NUM_DEVICES => Ok(Info::u32(ctx.devices.len() as u32)),
            CL_CONTEXT_DEVICES => Ok(Info::raw(
                &ctx.devices
                    .iter()
                    .map(|d| handle_of(d) as usize)
                    .collect::<Vec<_>>(),
            )),
            CL_CONTEXT_PROPERTIES => {
                if ctx.properties.is_empty() {
                    Ok(Info(Vec::new()))
                } else {
                    let mut p = ctx.properties.clone();
                    p.push(0);
                    Ok(Info::raw(&p))
                }
            }
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clSetContextDestructorCallback(
    c: cl_context,
    f: Option<unsafe extern "C" fn(cl_context, *mut c_void)>,
    data: *mut c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let ctx = unsafe { get::<Context>(c) }?;
        let f = f.ok_or(CL_INVALID_VALUE)?;
        ctx.destructors.lock().push((f, data as usize));
        Ok(())
    })
}

pub(crate) fn ctx_arc(c: cl_context) -> CLResult<Arc<Context>> {
    // SAFETY: handle from the application.
    unsafe { ferrocl_runtime::core::object::get_arc::<Context>(c) }
}
