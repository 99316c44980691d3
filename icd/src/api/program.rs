//! Program entry points.

use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::object::{
    get, get_arc, handle_of, into_handle, release, retain, ClObject,
};
use ferrocl_runtime::core::program::{is_supported_spirv, Header, Program, Source};
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
        let ctx = ctx_arc(c)?;
        // "CL_INVALID_VALUE if il is NULL or if length is zero."
        if il.is_null() || len == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: len bytes per the application.
        let bytes = unsafe { std::slice::from_raw_parts(il as *const u8, len) };
        // "CL_INVALID_VALUE if the length-byte memory pointed to by il does
        // not contain well-formed intermediate language input appropriate
        // for the deployment environment": SPIR-V 1.0 to 1.4.
        if !is_supported_spirv(bytes) {
            return Err(CL_INVALID_VALUE);
        }
        Ok(into_handle(Program::new(ctx, Source::Il(bytes.to_vec()))))
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
        // "CL_INVALID_VALUE if device_list is NULL or num_devices is zero."
        if devices.is_null() || n == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: pointers from the application.
        let devs = unsafe { device_list(n, devices) }?;
        // "CL_INVALID_DEVICE if any device in device_list is not in the list
        // of devices associated with context."
        if devs.iter().any(|d| !ctx.has_device(d)) {
            return Err(CL_INVALID_DEVICE);
        }
        // "CL_INVALID_VALUE if lengths or binaries is NULL or if any entry in
        // lengths[i] is zero or binaries[i] is NULL."
        if lengths.is_null() || binaries.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut slices = Vec::with_capacity(n as usize);
        for i in 0..n as usize {
            // SAFETY: n entries in each array.
            let (len, ptr) = unsafe { (*lengths.add(i), *binaries.add(i)) };
            if len == 0 || ptr.is_null() {
                if !status.is_null() {
                    // SAFETY: n entries.
                    unsafe { *status.add(i) = CL_INVALID_VALUE };
                }
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: len bytes per the application.
            slices.push(unsafe { std::slice::from_raw_parts(ptr, len) });
        }
        let write_status = |codes: &[cl_int]| {
            if !status.is_null() {
                for (i, &s) in codes.iter().enumerate() {
                    // SAFETY: n entries.
                    unsafe { *status.add(i) = s };
                }
            }
        };
        // "CL_INVALID_BINARY if an invalid program binary was encountered
        // for any device. binary_status will return specific status for
        // each device."
        match Program::from_binaries(ctx, devs, &slices) {
            Ok(p) => {
                write_status(&vec![CL_SUCCESS; n as usize]);
                Ok(into_handle(p))
            }
            Err(codes) => {
                write_status(&codes);
                Err(CL_INVALID_BINARY)
            }
        }
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

/// The options string (empty when NULL).
///
/// # Safety
/// `options` is NULL or NUL-terminated.
unsafe fn options_string(options: *const c_char) -> String {
    if options.is_null() {
        String::new()
    } else {
        // SAFETY: NUL-terminated string from the application.
        unsafe { CStr::from_ptr(options) }
            .to_string_lossy()
            .into_owned()
    }
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCompileProgram(
    p: cl_program,
    n: cl_uint,
    list: *const cl_device_id,
    options: *const c_char,
    nh: cl_uint,
    headers: *const cl_program,
    names: *mut *const c_char,
    notify: Option<BuildNotify>,
    data: *mut c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let prog = unsafe { get_arc::<Program>(p) }?;
        // SAFETY: as above.
        let devs = unsafe { build_devices(&prog, n, list) }?;
        // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
        if notify.is_none() && !data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if num_input_headers is zero and
        // header_include_names or input_headers are not NULL or if
        // num_input_headers is not zero and header_include_names or
        // input_headers are NULL."
        if (nh == 0) != (headers.is_null() && names.is_null())
            || (nh != 0 && (headers.is_null() || names.is_null()))
        {
            return Err(CL_INVALID_VALUE);
        }
        let mut hs = Vec::with_capacity(nh as usize);
        for i in 0..nh as usize {
            // SAFETY: nh entries in each array.
            let (h, name) = unsafe { (*headers.add(i), *names.add(i)) };
            // SAFETY: handle from the application.
            let program = unsafe { get_arc::<Program>(h) }?;
            if name.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: NUL-terminated name from the application.
            let name = unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned();
            hs.push(Header { name, program });
        }
        // "CL_INVALID_OPERATION if there are kernel objects attached to program."
        if prog.kernel_count.load(std::sync::atomic::Ordering::Acquire) > 0 {
            return Err(CL_INVALID_OPERATION);
        }
        // SAFETY: NULL or NUL-terminated.
        let opts = unsafe { options_string(options) };
        let r = prog.compile(&devs, &opts, &hs);
        if let Some(f) = notify {
            // SAFETY: callback given by the application for this program.
            unsafe { f(p, data) };
        }
        r
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clLinkProgram(
    c: cl_context,
    n: cl_uint,
    list: *const cl_device_id,
    options: *const c_char,
    np: cl_uint,
    progs: *const cl_program,
    notify: Option<BuildNotify>,
    data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let mut link_status = CL_SUCCESS;
    let handle = object(errcode_ret, || {
        let ctx = ctx_arc(c)?;
        // "CL_INVALID_VALUE if device_list is NULL and num_devices is greater
        // than zero, or if device_list is not NULL and num_devices is zero."
        if list.is_null() != (n == 0) {
            return Err(CL_INVALID_VALUE);
        }
        let devs = if list.is_null() {
            ctx.devices.clone()
        } else {
            // SAFETY: pointers from the application.
            let devs = unsafe { device_list(n, list) }?;
            // "CL_INVALID_DEVICE if any device in device_list is not in the
            // list of devices associated with context."
            if devs.iter().any(|d| !ctx.has_device(d)) {
                return Err(CL_INVALID_DEVICE);
            }
            devs
        };
        // "CL_INVALID_VALUE if num_input_programs is zero and input_programs
        // is NULL or if num_input_programs is zero and input_programs is not
        // NULL or if num_input_programs is not zero and input_programs is
        // NULL."
        if np == 0 || progs.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
        if notify.is_none() && !data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut inputs = Vec::with_capacity(np as usize);
        for i in 0..np as usize {
            // SAFETY: np handles from the application; "CL_INVALID_PROGRAM
            // if programs specified in input_programs are not valid program
            // objects."
            let prog = unsafe { get_arc::<Program>(*progs.add(i)) }?;
            if !Arc::ptr_eq(&prog.context, &ctx) {
                return Err(CL_INVALID_PROGRAM);
            }
            inputs.push(prog);
        }
        // SAFETY: NULL or NUL-terminated.
        let opts = unsafe { options_string(options) };
        let (program, result) = Program::link(ctx, devs, &inputs, &opts)?;
        let h = into_handle(program);
        if let Some(f) = notify {
            // SAFETY: callback given by the application for this program.
            unsafe { f(h, data) };
        }
        // "CL_LINK_PROGRAM_FAILURE if there is a failure to link [...]": the
        // program is returned all the same, so its log can be read.
        if let Err(e) = result {
            link_status = e;
        }
        Ok(h)
    });
    if link_status != CL_SUCCESS && !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = link_status };
    }
    handle
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
                _ => Info::str(""),
            }),
            CL_PROGRAM_IL => Ok(match &prog.source {
                Source::Il(b) => Info(b.clone()),
                _ => Info(Vec::new()),
            }),
            CL_PROGRAM_BINARY_SIZES => Ok(Info::raw(
                &prog
                    .devices
                    .iter()
                    .map(|d| prog.binary(d).len())
                    .collect::<Vec<usize>>(),
            )),
            // "param_value points to an array of n pointers allocated by the
            // caller, where n is the number of devices associated with
            // program. The buffer sizes needed [...] can be queried by
            // CL_PROGRAM_BINARY_SIZES. [...] If an entry value in the array
            // is NULL, the implementation skips copying the program binary
            // for the specific device."
            CL_PROGRAM_BINARIES => {
                let n = prog.devices.len();
                let bytes = n * std::mem::size_of::<*mut u8>();
                if !value.is_null() {
                    if size < bytes {
                        return Err(CL_INVALID_VALUE);
                    }
                    for (i, d) in prog.devices.iter().enumerate() {
                        // SAFETY: the application's array of n pointers.
                        let dst = unsafe { *(value as *const *mut u8).add(i) };
                        if dst.is_null() {
                            continue;
                        }
                        let bin = prog.binary(d);
                        // SAFETY: the application sized each buffer from
                        // CL_PROGRAM_BINARY_SIZES.
                        unsafe { std::ptr::copy_nonoverlapping(bin.as_ptr(), dst, bin.len()) };
                    }
                }
                if !size_ret.is_null() {
                    // SAFETY: the application passes a valid pointer or NULL.
                    unsafe { *size_ret = bytes };
                }
                return Ok(());
            }
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
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => {
                Ok(Info::usize(b.output.as_ref().map_or(0, |o| {
                    let g = &o.global_variables;
                    (g.size - g.constant_size) as usize
                })))
            }
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
    id: cl_uint,
    size: usize,
    value: *const c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let prog = unsafe { get::<Program>(p) }?;
        // SAFETY: size bytes per the application when non-null.
        let bytes = (!value.is_null())
            .then(|| unsafe { std::slice::from_raw_parts(value as *const u8, size) });
        prog.set_spec_constant(id, size, bytes)
    })
}
