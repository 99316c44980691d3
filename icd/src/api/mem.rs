//! Memory-object entry points: buffers, and what buffers and images share
//! (retain/release, clGetMemObjectInfo, destructor callbacks). Images are
//! created in `super::image`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::device_address;
use ferrocl_runtime::core::memory::{Mem, MemDestructor};
use ferrocl_runtime::core::object::{
    get, get_arc, handle_of, into_handle, release, retain, ClObject,
};
use ferrocl_runtime::core::svm;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use super::external_memory::{self, ExternalProps};
use crate::entry::{code, object};
use crate::info::{write, Info};

/// "CL_INVALID_VALUE if values specified in flags are not valid as defined
/// in the Memory Flags table."
pub fn check_flags(flags: cl_mem_flags) -> CLResult<()> {
    let valid = CL_MEM_READ_WRITE
        | CL_MEM_WRITE_ONLY
        | CL_MEM_READ_ONLY
        | CL_MEM_USE_HOST_PTR
        | CL_MEM_ALLOC_HOST_PTR
        | CL_MEM_COPY_HOST_PTR
        | CL_MEM_HOST_WRITE_ONLY
        | CL_MEM_HOST_READ_ONLY
        | CL_MEM_HOST_NO_ACCESS
        | CL_MEM_KERNEL_READ_AND_WRITE;
    let count = |m: cl_mem_flags| (flags & m).count_ones();
    if flags & !valid != 0
        || count(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) > 1
        || count(CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) > 1
        || (flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// The property list of clCreateBufferWithProperties as given (pairs,
/// then the terminating 0; empty for NULL), and the external memory
/// properties in it (cl_khr_external_memory, `super::external_memory`).
/// The other property is cl_ext_buffer_device_address's
/// CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, a cl_bool (every ferrocl device has
/// buffer device addresses).
///
/// # Safety
/// `props` is NULL or a 0-terminated list of pairs.
unsafe fn buffer_properties(
    props: *const cl_mem_properties,
) -> CLResult<(Vec<cl_mem_properties>, ExternalProps)> {
    let mut list = Vec::new();
    let mut external = ExternalProps::default();
    if props.is_null() {
        return Ok((list, external));
    }
    let mut i = 0;
    loop {
        // SAFETY: within the 0-terminated list.
        let name = unsafe { *props.add(i) };
        if name == 0 {
            break;
        }
        // cl_khr_external_memory's properties (`super::external_memory`).
        // SAFETY: `i` is a name inside the 0-terminated list.
        if let Some(n) = unsafe { external_memory::read_property(props.add(i), &mut external) }? {
            // SAFETY: the property's n entries were just read.
            list.extend_from_slice(unsafe { std::slice::from_raw_parts(props.add(i), n) });
            i += n;
            continue;
        }
        // SAFETY: a name is followed by its value.
        let value = unsafe { *props.add(i + 1) };
        // "CL_INVALID_PROPERTY if a property name in properties is not a
        // supported property name, if the value specified for a supported
        // property name is not valid, or if the same property name is
        // specified more than once."
        let valid_value =
            value == CL_TRUE as cl_mem_properties || value == CL_FALSE as cl_mem_properties;
        if name != CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT || !valid_value || list.contains(&name) {
            return Err(CL_INVALID_PROPERTY);
        }
        list.extend([name, value]);
        i += 2;
    }
    list.push(0);
    Ok((list, external))
}

fn create_buffer(
    c: cl_context,
    props: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> CLResult<cl_mem> {
    let ctx = ctx_arc(c)?;
    check_flags(flags)?;
    // "CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater than
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices in context."
    if size == 0
        || ctx
            .devices
            .iter()
            .all(|d| !d.accepts_alloc_size(size as u64))
    {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
    // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags."
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    let flags = if flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    };
    let init = wants_ptr.then(|| {
        // SAFETY: the application guarantees host_ptr points at size bytes.
        unsafe { std::slice::from_raw_parts(host_ptr as *const u8, size) }
    });
    let keep_ptr = if flags & CL_MEM_USE_HOST_PTR != 0 {
        host_ptr as usize
    } else {
        0
    };
    // CL_MEM_USE_HOST_PTR over SVM memory: the buffer is that memory
    // (CL_MEM_USES_SVM_POINTER), found as an allocation of this context
    // that holds the whole range.
    let over_svm = (flags & CL_MEM_USE_HOST_PTR != 0)
        .then(|| svm::find(&ctx, host_ptr as u64))
        .flatten();
    if let Some((svm_mem, off)) = over_svm {
        // "CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR is set in flags
        // and host_ptr is a pointer returned by clSVMAlloc and size is
        // greater than the size passed to clSVMAlloc" (a pointer inside
        // the allocation: the range must end inside it too).
        if off + size > svm_mem.size {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        // Its ranges are the allocation's, registered already.
        return Ok(into_handle(Mem::new_over_svm(
            &svm_mem, flags, off, size, props,
        )));
    }
    let mem = Mem::new_buffer(ctx, flags, size, keep_ptr, init, props)?;
    if mem.device_address {
        // Fixed addresses on every device from now on, and known to the
        // launches that get them as raw pointers.
        device_address::register(&mem, false)?;
    }
    Ok(into_handle(mem))
}

pub unsafe extern "C" fn clCreateBuffer(
    c: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        create_buffer(c, Vec::new(), flags, size, host_ptr)
    })
}

pub unsafe extern "C" fn clCreateBufferWithProperties(
    c: cl_context,
    props: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // SAFETY: a 0-terminated list from the application, or NULL.
        let (list, external) = unsafe { buffer_properties(props) }?;
        if external.handle.is_some() || external.devices.is_some() {
            let ctx = ctx_arc(c)?;
            check_flags(flags)?;
            // "CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater
            // than CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices in context."
            if size == 0
                || ctx
                    .devices
                    .iter()
                    .all(|d| !d.accepts_alloc_size(size as u64))
            {
                return Err(CL_INVALID_BUFFER_SIZE);
            }
            return external_memory::create_buffer(ctx, list, &external, flags, size, host_ptr);
        }
        create_buffer(c, list, flags, size, host_ptr)
    })
}

pub unsafe extern "C" fn clCreateSubBuffer(
    m: cl_mem,
    flags: cl_mem_flags,
    kind: cl_buffer_create_type,
    info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // SAFETY: handle from the application.
        let parent = unsafe { get_arc::<Mem>(m) }?;
        // "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer object."
        if !parent.is_buffer() || parent.parent.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        check_flags(flags)?;
        if flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if the buffer was created with CL_MEM_WRITE_ONLY
        // and flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, [...]"
        let pf = parent.flags;
        if (pf & CL_MEM_WRITE_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
            || (pf & CL_MEM_READ_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
            || (pf & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0)
            || (pf & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0)
            || (pf & CL_MEM_HOST_NO_ACCESS != 0
                && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        if kind != CL_BUFFER_CREATE_TYPE_REGION || info.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: a cl_buffer_region per the spec.
        let region = unsafe { &*(info as *const cl_buffer_region) };
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        if region
            .origin
            .checked_add(region.size)
            .is_none_or(|end| end > parent.size)
        {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in context
        // associated with buffer for which the origin field of the
        // cl_buffer_region structure passed in buffer_create_info is aligned
        // to the CL_DEVICE_MEM_BASE_ADDR_ALIGN value."
        if parent
            .context
            .devices
            .iter()
            .all(|d| region.origin % (d.mem_base_addr_align_bits() as usize / 8) != 0)
        {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        // Inherit access and host-access flags not given.
        let access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
        let host = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
        let mut f = flags;
        if f & access == 0 {
            f |= pf & access;
        }
        if f & host == 0 {
            f |= pf & host;
        }
        f |= pf & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR);
        Ok(into_handle(Mem::new_sub_buffer(
            &parent,
            f,
            region.origin,
            region.size,
        )?))
    })
}

pub unsafe extern "C" fn clRetainMemObject(m: cl_mem) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Mem>(m) })
}

pub unsafe extern "C" fn clReleaseMemObject(m: cl_mem) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { release::<Mem>(m) })
}

pub unsafe extern "C" fn clGetMemObjectInfo(
    m: cl_mem,
    param: cl_mem_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let mem = unsafe { get::<Mem>(m) }?;
        let info = match param {
            CL_MEM_TYPE => Ok(Info::u32(mem.mem_type)),
            CL_MEM_FLAGS => Ok(Info::u64(mem.flags)),
            CL_MEM_SIZE => Ok(Info::usize(mem.size)),
            CL_MEM_HOST_PTR => Ok(Info::usize(mem.host_ptr)),
            CL_MEM_MAP_COUNT => Ok(Info::u32(
                mem.map_count.load(std::sync::atomic::Ordering::Relaxed),
            )),
            CL_MEM_REFERENCE_COUNT => Ok(Info::u32(mem.base().refcount())),
            CL_MEM_CONTEXT => Ok(Info::ptr(handle_of(&mem.context))),
            CL_MEM_ASSOCIATED_MEMOBJECT => Ok(Info::ptr(
                mem.parent
                    .as_ref()
                    .map(handle_of)
                    .unwrap_or(std::ptr::null_mut()),
            )),
            // "This returns 0 if memobj is not a sub-buffer object."
            CL_MEM_OFFSET => Ok(Info::usize(if mem.is_buffer() {
                mem.offset - mem.parent.as_ref().map_or(0, |p| p.offset)
            } else {
                0
            })),
            // "CL_TRUE if memobj is a buffer object that was created with
            // CL_MEM_USE_HOST_PTR or is a sub-buffer object of a buffer
            // object that was created with CL_MEM_USE_HOST_PTR and the
            // host_ptr specified when the buffer object was created is a
            // SVM pointer; otherwise returns CL_FALSE."
            CL_MEM_USES_SVM_POINTER => Ok(Info::bool(mem.svm_backing.is_some())),
            CL_MEM_PROPERTIES => Ok(Info::raw(&mem.properties)),
            // cl_ext_buffer_device_address: the address on each device of
            // the context, in the context's order. "CL_INVALID_OPERATION
            // [...] if memobj was not created with
            // CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT" (sub-buffers of such a
            // buffer were: their address is the parent's plus the origin).
            CL_MEM_DEVICE_ADDRESS_EXT => {
                if !mem.device_address {
                    return Err(CL_INVALID_OPERATION);
                }
                let addresses = (0..mem.context.devices.len())
                    .map(|d| mem.device_address_on(d))
                    .collect::<CLResult<Vec<u64>>>()?;
                Ok(Info::raw(&addresses))
            }
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    m: cl_mem,
    f: Option<MemDestructor>,
    data: *mut c_void,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let mem = unsafe { get::<Mem>(m) }?;
        mem.add_destructor(f.ok_or(CL_INVALID_VALUE)?, data as usize);
        Ok(())
    })
}

pub(crate) fn mem_arc(m: cl_mem) -> CLResult<Arc<Mem>> {
    // SAFETY: handle from the application.
    unsafe { get_arc::<Mem>(m) }
}
