//! Program entry points.

use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::object::{
    get, get_arc, handle_of, into_handle, release, retain, ClObject,
};
use ferrocl_runtime::core::program::{Program, Source};
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use super::device::device_list;
use crate::entry::{code, object};
use crate::info::{write, Info};

pub type BuildNotify = unsafe extern "C" fn(cl_program, *mut c_void);

pub unsafe extern "C" fn clCreateProgramWithSource(
    c: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        let ctx = ctx_arc(c)?;
        // "CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL."
        if count == 0 || strings.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut src = String::new();
        for i in 0..count as usize {
            // SAFETY: count entries from the application.
            let s = unsafe { *strings.add(i) };
            if s.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: as above.
            let len = if lengths.is_null() {
                0
            } else {
                unsafe { *lengths.add(i) }
            };
            let bytes = if len == 0 {
                // SAFETY: NUL-terminated when no length is given.
                unsafe { CStr::from_ptr(s) }.to_bytes()
            } else {
                // SAFETY: len bytes per the application.
                unsafe { std::slice::from_raw_parts(s as *const u8, len) }
            };
            src.push_str(&String::from_utf8_lossy(bytes));
        }
        Ok(into_handle(Program::new(ctx, Source::Text(src))))
    })
}

pub unsafe extern "C" fn clCreateProgramWithIL(
    c: cl_context,
    il: *const c_void,
    len: usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        ctx_arc(c)?;
        if il.is_null() || len == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if no devices in context support
        // intermediate language programs" (CL_DEVICE_IL_VERSION is empty).
        Err(CL_INVALID_OPERATION)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCreateProgramWithBinary(
    c: cl_context,
    n: cl_uint,
    devices: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const u8,
    status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        let ctx = ctx_arc(c)?;
        // SAFETY: pointers from the application.
        let devs = unsafe { device_list(n, devices) }?;
        if devs.iter().any(|d| !ctx.has_device(d)) {
            return Err(CL_INVALID_DEVICE);
        }
        if lengths.is_null() || binaries.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // ferrocl has no binary format yet, so no binary is valid for it.
        if !status.is_null() {
            for i in 0..n as usize {
                // SAFETY: n entries.
                unsafe { *status.add(i) = CL_INVALID_BINARY };
            }
        }
        Err(CL_INVALID_BINARY)
    })
}

pub unsafe extern "C" fn clCreateProgramWithBuiltInKernels(
    c: cl_context,
    n: cl_uint,
    devices: *const cl_device_id,
    _names: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        ctx_arc(c)?;
        // SAFETY: pointers from the application.
        unsafe { device_list(n, devices) }?;
        // "CL_INVALID_VALUE if kernel_names [...] contains a kernel name
        // that is not supported by any of the devices": there are none.
        Err(CL_INVALID_VALUE)
    })
}

pub unsafe extern "C" fn clRetainProgram(p: cl_program) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Program>(p) })
}

pub unsafe extern "C" fn clReleaseProgram(p: cl_program) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { release::<Program>(p) })
}

/// The devices a build call names (all of the program's when NULL), checked.
unsafe fn build_devices(
    prog: &Program,
    n: cl_uint,
    list: *const cl_device_id,
) -> CLResult<Vec<Arc<Device>>> {
    if list.is_null() != (n == 0) {
        return Err(CL_INVALID_VALUE);
    }
    if list.is_null() {
        return Ok(prog.devices.clone());
    }
    // SAFETY: caller contract.
    let devs = unsafe { device_list(n, list) }?;
    if devs
        .iter()
        .any(|d| !prog.devices.iter().any(|x| Arc::ptr_eq(x, d)))
    {
        return Err(CL_INVALID_DEVICE);
    }
    Ok(devs)
}

pub unsafe extern "C" fn clBuildProgram(
    p: cl_program,
    n: cl_uint,
    list: *const cl_device_id,
    options: *const c_char,
    notify: Option<BuildNotify>,
    data: *mut c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let prog = unsafe { get_arc::<Program>(p) }?;
        // SAFETY: as above.
        let devs = unsafe { build_devices(&prog, n, list) }?;
        if notify.is_none() && !data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if there are kernel objects attached to program."
        if prog.kernel_count.load(std::sync::atomic::Ordering::Acquire) > 0 {
            return Err(CL_INVALID_OPERATION);
        }
        let opts = if options.is_null() {
            String::new()
        } else {
            // SAFETY: NUL-terminated string from the application.
            unsafe { CStr::from_ptr(options) }
                .to_string_lossy()
                .into_owned()
        };
        let r = prog.build(&devs, &opts);
        if let Some(f) = notify {
            // SAFETY: callback given by the application for this program.
            unsafe { f(p, data) };
        }
        r
    })
}

pub unsafe extern "C" fn clCompileProgram(
    p: cl_program,
    _n: cl_uint,
    _list: *const cl_device_id,
    _options: *const c_char,
    _nh: cl_uint,
    _headers: *const cl_program,
    _names: *mut *const c_char,
    _notify: Option<BuildNotify>,
    _data: *mut c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Program>(p) }?;
        // Separate compilation arrives with clLinkProgram (runtime issue);
        // CL_DEVICE_LINKER_AVAILABLE is false until then.
        Err(CL_INVALID_OPERATION)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clLinkProgram(
    c: cl_context,
    _n: cl_uint,
    _list: *const cl_device_id,
    _options: *const c_char,
    _np: cl_uint,
    _progs: *const cl_program,
    _notify: Option<BuildNotify>,
    _data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        ctx_arc(c)?;
        // "CL_LINKER_NOT_AVAILABLE if a linker is not available i.e.
        // CL_DEVICE_LINKER_AVAILABLE specified in the Device Queries table is set to CL_FALSE."
        Err(CL_LINKER_NOT_AVAILABLE)
    })
}

pub unsafe extern "C" fn clGetProgramInfo(
    p: cl_program,
    param: cl_program_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let prog = unsafe { get::<Program>(p) }?;
        let info = match param {
            CL_PROGRAM_REFERENCE_COUNT => Ok(Info::u32(prog.base().refcount())),
            CL_PROGRAM_CONTEXT => Ok(Info::ptr(handle_of(&prog.context))),
            CL_PROGRAM_NUM_DEVICES => Ok(Info::u32(prog.devices.len() as u32)),
            CL_PROGRAM_DEVICES => Ok(Info::raw(
                &prog
                    .devices
                    .iter()
                    .map(|d| handle_of(d) as usize)
                    .collect::<Vec<_>>(),
            )),
            CL_PROGRAM_SOURCE => Ok(match &prog.source {
                Source::Text(s) => Info::str(s),
                Source::Il(_) => Info::str(""),
            }),
            CL_PROGRAM_IL => Ok(match &prog.source {
                Source::Il(b) => Info(b.clone()),
                Source::Text(_) => Info(Vec::new()),
            }),
            // No binary format yet: every size is 0 ("no binary available").
            CL_PROGRAM_BINARY_SIZES => Ok(Info::raw(&vec![0usize; prog.devices.len()])),
            CL_PROGRAM_BINARIES => Ok(Info::raw(&vec![0usize; prog.devices.len()])),
            CL_PROGRAM_NUM_KERNELS => prog
                .kernel_names()
                .map(|k| Info::usize(k.len()))
                .ok_or(CL_INVALID_PROGRAM_EXECUTABLE),
            CL_PROGRAM_KERNEL_NAMES => prog
                .kernel_names()
                .map(|k| Info::str(&k.join(";")))
                .ok_or(CL_INVALID_PROGRAM_EXECUTABLE),
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => {
                Ok(Info::bool(false))
            }
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clGetProgramBuildInfo(
    p: cl_program,
    dev: cl_device_id,
    param: cl_program_build_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handles from the application.
        let prog = unsafe { get::<Program>(p) }?;
        // SAFETY: as above.
        let d = unsafe { get::<Device>(dev) }?;
        if !prog.devices.iter().any(|x| std::ptr::eq(&**x, d)) {
            return Err(CL_INVALID_DEVICE);
        }
        let b = prog.build_info(d);
        let info = match param {
            CL_PROGRAM_BUILD_STATUS => Ok(Info::i32(b.status)),
            CL_PROGRAM_BUILD_OPTIONS => Ok(Info::str(&b.options)),
            CL_PROGRAM_BUILD_LOG => Ok(Info::str(&b.log)),
            CL_PROGRAM_BINARY_TYPE => Ok(Info::u32(b.binary_type)),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => Ok(Info::usize(0)),
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clSetProgramReleaseCallback(
    p: cl_program,
    _f: Option<BuildNotify>,
    _d: *mut c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Program>(p) }?;
        // "CL_INVALID_OPERATION if no devices in the context associated with
        // program support destructors for program scope global variables."
        Err(CL_INVALID_OPERATION)
    })
}

pub unsafe extern "C" fn clSetProgramSpecializationConstant(
    p: cl_program,
    _id: cl_uint,
    _size: usize,
    _v: *const c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Program>(p) }?;
        // "CL_INVALID_PROGRAM if program is not a valid program object
        // created from an intermediate language (e.g. SPIR-V)": no IL yet.
        Err(CL_INVALID_PROGRAM)
    })
}
