//! Kernel entry points.

use std::ffi::{c_char, c_void, CStr};

use ferrocl_compiler::{AccessQualifier, AddressQualifier, ArgKind, ImageDim};
use ferrocl_runtime::core::device::Device;
use ferrocl_runtime::core::kernel::{ArgValue, IndirectUpdate, Kernel};
use ferrocl_runtime::core::memory::Mem;
use ferrocl_runtime::core::object::{
    get, get_arc, handle_of, into_handle, release, retain, ClObject,
};
use ferrocl_runtime::core::program::Program;
use ferrocl_runtime::core::sampler::Sampler;
use ferrocl_runtime::core::usm;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use crate::entry::{code, object};
use crate::info::{write, Info};

pub unsafe extern "C" fn clCreateKernel(
    p: cl_program,
    name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    object(errcode_ret, || {
        // SAFETY: handle from the application.
        let prog = unsafe { get_arc::<Program>(p) }?;
        if name.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for program."
        if !prog.any_built() {
            return Err(CL_INVALID_PROGRAM_EXECUTABLE);
        }
        // SAFETY: NUL-terminated string from the application.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        Ok(into_handle(Kernel::new(&prog, &name)?))
    })
}

pub unsafe extern "C" fn clCreateKernelsInProgram(
    p: cl_program,
    n: cl_uint,
    kernels: *mut cl_kernel,
    num_ret: *mut cl_uint,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let prog = unsafe { get_arc::<Program>(p) }?;
        let names = prog.kernel_names().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        // "CL_INVALID_VALUE if kernels is not NULL and num_kernels is less
        // than the number of kernels in program."
        if !kernels.is_null() && (n as usize) < names.len() {
            return Err(CL_INVALID_VALUE);
        }
        if !kernels.is_null() {
            let made = names
                .iter()
                .map(|name| Kernel::new(&prog, name))
                .collect::<Result<Vec<_>, _>>()?;
            for (i, k) in made.into_iter().enumerate() {
                // SAFETY: n >= names.len() entries.
                unsafe { *kernels.add(i) = into_handle(k) };
            }
        }
        if !num_ret.is_null() {
            // SAFETY: valid pointer from the application.
            unsafe { *num_ret = names.len() as cl_uint };
        }
        Ok(())
    })
}

pub unsafe extern "C" fn clRetainKernel(k: cl_kernel) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Kernel>(k) })
}

pub unsafe extern "C" fn clReleaseKernel(k: cl_kernel) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { release::<Kernel>(k) })
}

pub unsafe extern "C" fn clCloneKernel(k: cl_kernel, errcode_ret: *mut cl_int) -> cl_kernel {
    object(errcode_ret, || {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        Ok(into_handle(kern.clone_kernel()))
    })
}

pub unsafe extern "C" fn clSetKernelArg(
    k: cl_kernel,
    index: cl_uint,
    size: usize,
    value: *const c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        // SAFETY: arguments from the application.
        let v = unsafe { arg_value(kern, index, size, value) }?;
        kern.set_arg(index as usize, v);
        Ok(())
    })
}

/// clSetKernelArg's checks of one argument value of `kern`, and the value
/// (also clUpdateMutableCommandsKHR's, whose argument updates return the
/// errors of clSetKernelArg).
///
/// # Safety
/// `value` must be NULL or point at `size` readable bytes.
pub(crate) unsafe fn arg_value(
    kern: &Kernel,
    index: cl_uint,
    size: usize,
    value: *const c_void,
) -> CLResult<ArgValue> {
    let info = kern.info();
    // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
    let arg = info.args.get(index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
    let v = match arg.kind {
        ArgKind::Buffer => {
            // "CL_INVALID_ARG_SIZE if arg_size does not match the size of
            // the data type for an argument that is not a memory object
            // or if the argument is a memory object and arg_size !=
            // sizeof(cl_mem) [...]"
            if size != std::mem::size_of::<cl_mem>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // "If the argument is a buffer object, the arg_value pointer
            // can be NULL or point to a NULL value."
            // SAFETY: value points at a cl_mem when non-null.
            let h = if value.is_null() {
                std::ptr::null_mut()
            } else {
                unsafe { *(value as *const cl_mem) }
            };
            if h.is_null() {
                ArgValue::Buffer(None)
            } else {
                // SAFETY: handle from the application.
                let m = unsafe { get_arc::<Mem>(h) }.map_err(|_| CL_INVALID_MEM_OBJECT)?;
                // "[...] if arg_value points to a valid memory object,
                // but the memory object is not valid for the kernel
                // argument" (an image for a pointer).
                if !m.is_buffer() || !std::sync::Arc::ptr_eq(&m.context, &kern.program.context) {
                    return Err(CL_INVALID_MEM_OBJECT);
                }
                ArgValue::Buffer(Some(std::sync::Arc::downgrade(&m)))
            }
        }
        ArgKind::LocalPointer { .. } => {
            // "CL_INVALID_ARG_VALUE if arg_value specified is not NULL for
            // an argument declared with the local qualifier." and
            // "CL_INVALID_ARG_SIZE if [...] the kernel argument is a
            // pointer to the local address space and arg_size is zero.
            // This error condition does not apply if the platform
            // associated with kernel is OpenCL 3.1 or newer." (3.1: "arg_size
            // may be zero, indicating that no local memory is required
            // for the kernel argument"; the pointer's value is then
            // implementation-defined: the offset its part would have.)
            if !value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            if size == 0 && super::platform::platform().version() < (3, 1, 0) {
                return Err(CL_INVALID_ARG_SIZE);
            }
            ArgValue::Local(size)
        }
        ArgKind::Pod => {
            if size != arg.size as usize {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid
            // value" (NULL for a by-value argument).
            if value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            // SAFETY: size bytes per the application.
            ArgValue::Pod(unsafe { std::slice::from_raw_parts(value as *const u8, size) }.to_vec())
        }
        ArgKind::Sampler { .. } => {
            // "CL_INVALID_SAMPLER if the kernel argument is a sampler,
            // but arg_value does not point to a valid sampler object."
            if value.is_null() {
                return Err(CL_INVALID_SAMPLER);
            }
            // "CL_INVALID_ARG_SIZE if arg_value points to a sampler
            // object and arg_size is not equal to sizeof(cl_sampler)"
            if size != std::mem::size_of::<cl_sampler>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // SAFETY: value points at a cl_sampler.
            let h = unsafe { *(value as *const cl_sampler) };
            // SAFETY: handle from the application.
            let smp = unsafe { get_arc::<Sampler>(h) }?;
            // "CL_INVALID_CONTEXT if the context associated with kernel
            // and an OpenCL object pointed to by arg_value are not the same"
            if !std::sync::Arc::ptr_eq(&smp.context, &kern.program.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            ArgValue::Sampler(smp)
        }
        ArgKind::Image { dim, .. } => {
            // "CL_INVALID_MEM_OBJECT if arg_value is NULL and it must
            // point to a valid memory object", "[...] points to NULL
            // [...]", "[...] does not point to a valid memory object".
            if value.is_null() {
                return Err(CL_INVALID_MEM_OBJECT);
            }
            if size != std::mem::size_of::<cl_mem>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // SAFETY: value points at a cl_mem.
            let h = unsafe { *(value as *const cl_mem) };
            // SAFETY: handle from the application.
            let m = unsafe { get_arc::<Mem>(h) }?;
            if !std::sync::Arc::ptr_eq(&m.context, &kern.program.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            // "[...] if arg_value points to a valid memory object, but
            // the memory object is not valid for the kernel argument":
            // an image of the argument's image type.
            let want = match dim {
                ImageDim::D1 => CL_MEM_OBJECT_IMAGE1D,
                ImageDim::D1Buffer => CL_MEM_OBJECT_IMAGE1D_BUFFER,
                ImageDim::D1Array => CL_MEM_OBJECT_IMAGE1D_ARRAY,
                ImageDim::D2 => CL_MEM_OBJECT_IMAGE2D,
                ImageDim::D2Array => CL_MEM_OBJECT_IMAGE2D_ARRAY,
                ImageDim::D3 => CL_MEM_OBJECT_IMAGE3D,
            };
            if m.image.is_none() || m.mem_type != want {
                return Err(CL_INVALID_MEM_OBJECT);
            }
            // "CL_INVALID_ARG_VALUE if the argument is an image declared
            // with the read_only qualifier and arg_value refers to an
            // image object created with CL_MEM_WRITE_ONLY or if the
            // image argument is declared with the write_only qualifier
            // and arg_value refers to an image object created with
            // CL_MEM_READ_ONLY."
            let bad_access = match arg.access_qualifier {
                AccessQualifier::ReadOnly => m.flags & CL_MEM_WRITE_ONLY != 0,
                AccessQualifier::WriteOnly => m.flags & CL_MEM_READ_ONLY != 0,
                _ => false,
            };
            if bad_access {
                return Err(CL_INVALID_ARG_VALUE);
            }
            ArgValue::Image(std::sync::Arc::downgrade(&m))
        }
    };
    Ok(v)
}

pub unsafe extern "C" fn clSetKernelArgSVMPointer(
    k: cl_kernel,
    index: cl_uint,
    value: *const c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        kern.set_arg(index as usize, svm_arg_value(kern, index, value)?);
        Ok(())
    })
}

/// clSetKernelArgSVMPointer's checks (also for the SVM arguments of a
/// mutable-dispatch update): the value of argument `index`.
pub(crate) fn svm_arg_value(
    kern: &Kernel,
    index: cl_uint,
    value: *const c_void,
) -> CLResult<ArgValue> {
    // "CL_INVALID_OPERATION if no devices in the context associated with kernel support SVM."
    if !kern
        .program
        .context
        .devices
        .iter()
        .any(|d| d.svm_capabilities() != 0)
    {
        return Err(CL_INVALID_OPERATION);
    }
    // SVM pointers are device addresses (`ferrocl_runtime::core::svm`):
    // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid
    // value" is left to the kernel, as any pointer may be passed.
    address_arg(kern, index, value as u64, true).map_err(|e| match e {
        CL_INVALID_ARG_INDEX if (index as usize) < kern.info().args.len() => CL_INVALID_ARG_VALUE,
        e => e,
    })
}

pub unsafe extern "C" fn clSetKernelExecInfo(
    k: cl_kernel,
    param: cl_kernel_exec_info,
    size: usize,
    value: *const c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        // SAFETY: `value` points at `size` bytes per the application.
        if let ExecInfo::Indirect(u) = unsafe { exec_info(kern, param, size, value) }? {
            u.apply(&mut kern.indirect.lock());
        }
        Ok(())
    })
}

/// One clSetKernelExecInfo setting, checked.
pub(crate) enum ExecInfo {
    /// A new list of indirect pointers or USM indirect-access switch.
    Indirect(IndirectUpdate),
    /// CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM = CL_FALSE (nothing to keep).
    NoFineGrainSystem,
}

/// clSetKernelExecInfo's checks for `param` and its value (also for the
/// exec info of a mutable-dispatch update).
///
/// # Safety
/// `value` is NULL or points at `size` readable bytes.
pub(crate) unsafe fn exec_info(
    kern: &Kernel,
    param: cl_kernel_exec_info,
    size: usize,
    value: *const c_void,
) -> CLResult<ExecInfo> {
    let svm = kern
        .program
        .context
        .devices
        .iter()
        .any(|d| d.svm_capabilities() != 0);
    match param {
        // "CL_INVALID_OPERATION if param_name is
        // CL_KERNEL_EXEC_INFO_SVM_PTRS [...] and no devices in the
        // context associated with kernel support SVM" (checked before
        // the value: OpenCL 3.0's optional SVM, CTS consistency_svm
        // passes NULL/0).
        CL_KERNEL_EXEC_INFO_SVM_PTRS => {
            if !svm {
                return Err(CL_INVALID_OPERATION);
            }
            // SAFETY: `size` bytes of pointers per the caller.
            let ptrs = unsafe { address_list(size, value, std::mem::size_of::<*const c_void>()) }?;
            Ok(ExecInfo::Indirect(IndirectUpdate::SvmPtrs(ptrs)))
        }
        // "CL_INVALID_OPERATION if param_name is
        // CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM and param_value is
        // CL_TRUE but no devices in context associated with kernel
        // support fine-grain system SVM allocations." No device does.
        CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
            if !svm {
                return Err(CL_INVALID_OPERATION);
            }
            if value.is_null() || size != std::mem::size_of::<cl_bool>() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: a cl_bool per the size check.
            match unsafe { *(value as *const cl_bool) } {
                CL_FALSE => Ok(ExecInfo::NoFineGrainSystem),
                _ => Err(CL_INVALID_OPERATION),
            }
        }
        // cl_ext_buffer_device_address: "CL_INVALID_OPERATION if
        // param_name is CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT and no
        // device in the context associated with kernel support device
        // pointers": every device does, but only kernels built with
        // physical addressing take raw device pointers.
        CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT => {
            if !kern.takes_device_addresses() {
                return Err(CL_INVALID_OPERATION);
            }
            // SAFETY: `size` bytes of addresses per the caller.
            let ptrs = unsafe {
                address_list(
                    size,
                    value,
                    std::mem::size_of::<cl_mem_device_address_ext>(),
                )
            }?;
            Ok(ExecInfo::Indirect(IndirectUpdate::DevicePtrs(ptrs)))
        }
        // cl_intel_unified_shared_memory: "CL_INVALID_OPERATION if
        // param_name is CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL and no devices
        // in the context associated with kernel support Unified Shared
        // Memory." Every device has device allocations; USM pointers are
        // device addresses, which only physical addressing takes.
        CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL => {
            if !kern.takes_device_addresses() {
                return Err(CL_INVALID_OPERATION);
            }
            // SAFETY: `size` bytes of pointers per the caller.
            let ptrs = unsafe { address_list(size, value, std::mem::size_of::<*const c_void>()) }?;
            Ok(ExecInfo::Indirect(IndirectUpdate::UsmPtrs(ptrs)))
        }
        // "CL_INVALID_OPERATION if param_name is
        // CL_KERNEL_EXEC_INFO_INDIRECT_{HOST,DEVICE,SHARED}_ACCESS_INTEL and
        // no devices in the context associated with kernel support
        // {host,device,shared} Unified Shared Memory allocations."
        CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL
        | CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL
        | CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL => {
            let kind = match param {
                CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL => usm::Kind::Host,
                CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL => usm::Kind::Device,
                _ => usm::Kind::Shared,
            };
            let devices = &kern.program.context.devices;
            if !devices.iter().any(|d| usm::capabilities(d, kind) != 0) {
                return Err(CL_INVALID_OPERATION);
            }
            if value.is_null() || size != std::mem::size_of::<cl_bool>() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: a cl_bool per the size check.
            let on = unsafe { *(value as *const cl_bool) } != CL_FALSE;
            Ok(ExecInfo::Indirect(IndirectUpdate::UsmKinds {
                bits: kind.bit(),
                on,
            }))
        }
        // "CL_INVALID_VALUE if param_name is not valid [...]"
        _ => Err(CL_INVALID_VALUE),
    }
}

/// The pointers of a clSetKernelExecInfo list: `size` bytes at `value`,
/// `width` bytes each. "To specify that no SVM allocations will be accessed
/// by a kernel other than those set as kernel arguments, specify an empty
/// set by passing param_value_size equal to zero and param_value equal to
/// NULL": size 0 is the empty list, which clears the one set before (CTS
/// svm_set_kernel_exec_info_svm_ptrs; OpenCL-Docs #1413 drops the
/// contradicting "if param_value is NULL" error). "CL_INVALID_VALUE if
/// [...] the size specified by param_value_size is not valid": NULL with a
/// size, or a size that is no whole number of pointers.
///
/// # Safety
/// `value` is NULL or points at `size` readable bytes.
unsafe fn address_list(size: usize, value: *const c_void, width: usize) -> CLResult<Vec<u64>> {
    if size == 0 {
        return Ok(Vec::new());
    }
    if value.is_null() || !size.is_multiple_of(width) {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: `size` bytes per the caller; read unaligned, byte by byte.
    let bytes = unsafe { std::slice::from_raw_parts(value as *const u8, size) };
    Ok(bytes
        .chunks_exact(width)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..width].copy_from_slice(c);
            u64::from_ne_bytes(w)
        })
        .collect())
}

/// clSetKernelArgDevicePointerEXT and clSetKernelArgSVMPointer: the raw
/// address value for argument `index`, which must be a pointer to global (or,
/// for SVM, constant) memory of a kernel built with physical addressing.
fn address_arg(
    kern: &Kernel,
    index: cl_uint,
    address: u64,
    constant_too: bool,
) -> CLResult<ArgValue> {
    let info = kern.info();
    // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index",
    // also for an argument that is not a pointer to global memory (CTS
    // negative_private_address).
    let arg = info.args.get(index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
    let space_ok = match arg.address_qualifier {
        AddressQualifier::Global => true,
        AddressQualifier::Constant => constant_too,
        _ => false,
    };
    if !matches!(arg.kind, ArgKind::Buffer) || !space_ok {
        return Err(CL_INVALID_ARG_INDEX);
    }
    // A kernel built with descriptor addressing (FERROCL_ADDRESSING=
    // descriptor, -ferrocl-addressing=descriptor, -pod-ubo, ...) sees a
    // pointer as a binding slot and an offset, never a device address:
    // "CL_INVALID_OPERATION if no devices in the context associated with
    // kernel support the device pointer" for this kernel.
    if !kern.takes_device_addresses() {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(ArgValue::Address(address))
}

/// cl_intel_unified_shared_memory, reached through
/// clGetExtensionFunctionAddress(ForPlatform): a USM pointer (a device
/// address, `ferrocl_runtime::core::usm`) for a pointer argument to global
/// or constant memory.
pub unsafe extern "C" fn clSetKernelArgMemPointerINTEL(
    k: cl_kernel,
    index: cl_uint,
    value: *const c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        // Any value is taken, as for SVM pointers: the extension leaves
        // open whether a pointer into no allocation is an error (its issue
        // "Should it be an error to set an unknown pointer"), and a pointer
        // is harmless until dereferenced. A launch keeps the allocation an
        // (interior) pointer lies in alive.
        // "CL_INVALID_ARG_VALUE if arg_value is not a valid argument
        // value": an argument that is no pointer to global or constant
        // memory, as clSetKernelArgSVMPointer answers.
        let v = address_arg(kern, index, value as u64, true).map_err(|e| match e {
            CL_INVALID_ARG_INDEX if (index as usize) < kern.info().args.len() => {
                CL_INVALID_ARG_VALUE
            }
            e => e,
        })?;
        kern.set_arg(index as usize, v);
        Ok(())
    })
}

/// cl_ext_buffer_device_address, reached through
/// clGetExtensionFunctionAddress(ForPlatform).
pub unsafe extern "C" fn clSetKernelArgDevicePointerEXT(
    k: cl_kernel,
    index: cl_uint,
    value: cl_mem_device_address_ext,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        // Any value is valid: "it's legal to pass invalid pointers as the
        // value [...] as long as they are not dereferenced" (NULL included).
        kern.set_arg(index as usize, address_arg(kern, index, value, false)?);
        Ok(())
    })
}

pub unsafe extern "C" fn clGetKernelInfo(
    k: cl_kernel,
    param: cl_kernel_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        let info = match param {
            CL_KERNEL_FUNCTION_NAME => Ok(Info::str(&kern.name)),
            CL_KERNEL_NUM_ARGS => Ok(Info::u32(kern.info().args.len() as u32)),
            CL_KERNEL_REFERENCE_COUNT => Ok(Info::u32(kern.base().refcount())),
            CL_KERNEL_CONTEXT => Ok(Info::ptr(handle_of(&kern.program.context))),
            CL_KERNEL_PROGRAM => Ok(Info::ptr(handle_of(&kern.program))),
            CL_KERNEL_ATTRIBUTES => Ok(Info::str(&kern.info().attributes)),
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clGetKernelArgInfo(
    k: cl_kernel,
    index: cl_uint,
    param: cl_kernel_arg_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        let arg = kern
            .info()
            .args
            .get(index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        let info = match param {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => Ok(Info::u32(match arg.address_qualifier {
                AddressQualifier::Global => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                AddressQualifier::Constant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                AddressQualifier::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
                AddressQualifier::Private => CL_KERNEL_ARG_ADDRESS_PRIVATE,
            })),
            CL_KERNEL_ARG_ACCESS_QUALIFIER => Ok(Info::u32(match arg.access_qualifier {
                AccessQualifier::ReadOnly => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                AccessQualifier::WriteOnly => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                AccessQualifier::ReadWrite => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                AccessQualifier::None => CL_KERNEL_ARG_ACCESS_NONE,
            })),
            CL_KERNEL_ARG_TYPE_NAME => Ok(Info::str(&arg.type_name)),
            CL_KERNEL_ARG_TYPE_QUALIFIER => Ok(Info::u64(arg.type_qualifier)),
            CL_KERNEL_ARG_NAME => Ok(Info::str(&arg.name)),
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    k: cl_kernel,
    dev: cl_device_id,
    param: cl_kernel_work_group_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        let d: &Device = if dev.is_null() {
            // "device may be NULL if there is a single device associated with kernel."
            if kern.per_device.len() != 1 {
                return Err(CL_INVALID_DEVICE);
            }
            &kern.per_device[0].device
        } else {
            // SAFETY: handle from the application.
            let d = unsafe { get::<Device>(dev) }?;
            kern.for_device(d).ok_or(CL_INVALID_DEVICE)?;
            d
        };
        let info = match param {
            CL_KERNEL_WORK_GROUP_SIZE => Ok(Info::usize(kern.work_group_size(d))),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => Ok(Info::raw(
                &kern
                    .info()
                    .reqd_work_group_size
                    .map(|r| [r[0] as usize, r[1] as usize, r[2] as usize])
                    .unwrap_or([0; 3]),
            )),
            CL_KERNEL_LOCAL_MEM_SIZE => Ok(Info::u64(kern.local_mem_size())),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                Ok(Info::usize(d.subgroup_size() as usize))
            }
            CL_KERNEL_PRIVATE_MEM_SIZE => Ok(Info::u64(kern.info().private_size as u64)),
            // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and
            // device is not a custom device and kernel is not a built-in kernel."
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

/// The `size_t[1..=3]` local size of a sub-group query's input.
///
/// # Safety
/// `input` must be NULL or valid for `in_size` bytes.
unsafe fn ndrange_input(in_size: usize, input: *const c_void) -> CLResult<Vec<usize>> {
    let w = std::mem::size_of::<usize>();
    // "CL_INVALID_VALUE if param_name is CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
    // CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE or
    // CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT and the size in bytes
    // specified by input_value_size is not valid or if input_value is NULL."
    if input.is_null() || in_size == 0 || !in_size.is_multiple_of(w) || in_size / w > 3 {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: caller contract; size checked (read unaligned: the
    // application's pointer need not be aligned).
    Ok((0..in_size / w)
        .map(|i| unsafe { (input as *const usize).add(i).read_unaligned() })
        .collect())
}

/// clGetKernelSubGroupInfo (and clGetKernelSubGroupInfoKHR): computed from
/// the subgroup size the kernel's pipelines run with (`Device::subgroup_mode`;
/// the layout is in the compiler's `passes::lower::subgroup` docs): a
/// work-group of `n` work-items has ⌈n / S⌉ sub-groups, the largest of
/// min(S, n) work-items.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clGetKernelSubGroupInfo(
    k: cl_kernel,
    dev: cl_device_id,
    param: cl_kernel_sub_group_info,
    in_size: usize,
    input: *const c_void,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let kern = unsafe { get::<Kernel>(k) }?;
        // "CL_INVALID_DEVICE if device is not in the list of devices
        // associated with kernel or if device is NULL but there is more than
        // one device associated with kernel."
        let d: &Device = if dev.is_null() {
            if kern.per_device.len() != 1 {
                return Err(CL_INVALID_DEVICE);
            }
            &kern.per_device[0].device
        } else {
            // SAFETY: handle from the application.
            let d = unsafe { get::<Device>(dev) }?;
            kern.for_device(d).ok_or(CL_INVALID_DEVICE)?;
            d
        };
        // "CL_INVALID_OPERATION if device does not support subgroups"
        // (CL_DEVICE_MAX_NUM_SUB_GROUPS is 0).
        let sg = d.subgroup_mode().ok_or(CL_INVALID_OPERATION)?.size as usize;
        let wg_max = kern.work_group_size(d);
        let w = std::mem::size_of::<usize>();
        let info = match param {
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => {
                // SAFETY: pointer and size from the application.
                let local = unsafe { ndrange_input(in_size, input) }?;
                let n: usize = local.iter().product();
                Ok(Info::usize(sg.min(n)))
            }
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => {
                // SAFETY: pointer and size from the application.
                let local = unsafe { ndrange_input(in_size, input) }?;
                let n: usize = local.iter().product();
                Ok(Info::usize(n.div_ceil(sg)))
            }
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
                if input.is_null() || in_size != w {
                    return Err(CL_INVALID_VALUE);
                }
                // SAFETY: checked above.
                let count = unsafe { (input as *const usize).read_unaligned() };
                // The output's dimensions are param_value_size's.
                let dims = if size > 0 && size.is_multiple_of(w) && size / w <= 3 {
                    size / w
                } else if value.is_null() {
                    3
                } else {
                    return Err(CL_INVALID_VALUE);
                };
                // One dimension: count × S work-items, if the kernel can
                // have that many (a reqd_work_group_size kernel only its own
                // size); "0 will be returned in each element" otherwise.
                let mut out = vec![0usize; dims];
                match kern.info().reqd_work_group_size {
                    Some(r) => {
                        let n = (r[0] * r[1] * r[2]) as usize;
                        if count > 0 && n.div_ceil(sg) == count {
                            let r = [r[0] as usize, r[1] as usize, r[2] as usize];
                            if r[dims..].iter().all(|&x| x == 1) {
                                out.copy_from_slice(&r[..dims]);
                            }
                        }
                    }
                    None => {
                        // SubgroupsPerWorkgroup N: only N.
                        let required = kern.info().compile_num_sub_groups as usize;
                        let n = count.saturating_mul(sg);
                        if count > 0
                            && (required == 0 || count == required)
                            && n <= wg_max
                            && n <= d.max_work_item_sizes()[0]
                        {
                            out[0] = n;
                            for x in &mut out[1..] {
                                *x = 1;
                            }
                        }
                    }
                }
                Ok(Info::raw(&out))
            }
            CL_KERNEL_MAX_NUM_SUB_GROUPS => Ok(Info::usize(wg_max.div_ceil(sg))),
            // SPIR-V's SubgroupsPerWorkgroup(Id) execution mode (OpenCL C
            // has no attribute for it: clang 15 ignores
            // `reqd_num_sub_groups`); 0 without it.
            CL_KERNEL_COMPILE_NUM_SUB_GROUPS => {
                Ok(Info::usize(kern.info().compile_num_sub_groups as usize))
            }
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}
