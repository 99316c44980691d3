//! Shared virtual memory entry points: clSVMAlloc/clSVMFree and the
//! clEnqueueSVM* commands (coarse- and fine-grained buffer SVM, and SVM
//! atomics, where the device reports them; `ferrocl_runtime::core::svm`
//! has the design). The kernel
//! side (clSetKernelArgSVMPointer, CL_KERNEL_EXEC_INFO_SVM_PTRS) is in
//! `super::kernel`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::event::Event;
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::core::svm;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use super::enqueue::finish_blocking;
use super::queue::queue_arc;
use crate::entry::{code, return_event, wait_list_in};

pub unsafe extern "C" fn clSVMAlloc(
    c: cl_context,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    // "clSVMAlloc returns a valid non-NULL shared virtual memory address if
    // the SVM buffer is successfully allocated. Otherwise, like malloc, it
    // returns a NULL pointer value."
    let r = std::panic::catch_unwind(|| -> CLResult<u64> {
        let ctx = ctx_arc(c)?;
        let access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
        // "[...] values specified in flags do not follow rules described
        // for supported values in the SVM Memory Flags table": one access
        // flag at most; CL_MEM_SVM_ATOMICS only with fine grain.
        if flags & !(access | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS) != 0
            || (flags & access).count_ones() > 1
            || (flags & CL_MEM_SVM_ATOMICS != 0 && flags & CL_MEM_SVM_FINE_GRAIN_BUFFER == 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_MEM_SVM_FINE_GRAIN_BUFFER or CL_MEM_SVM_ATOMICS is specified
        // in flags and these are not supported by at least one device in
        // context".
        let mut asked = 0;
        if flags & CL_MEM_SVM_FINE_GRAIN_BUFFER != 0 {
            asked |= CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
        }
        if flags & CL_MEM_SVM_ATOMICS != 0 {
            asked |= CL_DEVICE_SVM_ATOMICS;
        }
        if ctx
            .devices
            .iter()
            .any(|d| d.svm_capabilities() & asked != asked)
        {
            return Err(CL_INVALID_OPERATION);
        }
        // "size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE value for any device in context."
        if size == 0
            || ctx
                .devices
                .iter()
                .any(|d| size as u64 > d.max_mem_alloc_size())
        {
            return Err(CL_INVALID_VALUE);
        }
        // "alignment is not a power of two or the OpenCL implementation
        // cannot support the specified alignment for at least one device
        // in context."
        let alignment = u64::from(alignment);
        if alignment != 0 && (!alignment.is_power_of_two() || alignment > svm::MAX_ALIGNMENT) {
            return Err(CL_INVALID_VALUE);
        }
        svm::alloc(&ctx, flags, size, alignment)
    });
    match r {
        Ok(Ok(p)) => p as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

pub unsafe extern "C" fn clSVMFree(c: cl_context, p: *mut c_void) {
    // "If a NULL pointer is passed in svm_pointer, no action occurs."
    if p.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        if let Ok(ctx) = ctx_arc(c) {
            svm::free(&ctx, p as u64);
        }
    });
}

/// The checks every clEnqueueSVM* command starts with: the queue, "
/// CL_INVALID_OPERATION if the device associated with command queue does
/// not support SVM", the wait list and its context.
unsafe fn svm_prologue(
    q: cl_command_queue,
    n: cl_uint,
    list: *const cl_event,
) -> CLResult<(Arc<Queue>, Vec<Arc<Event>>)> {
    let queue = queue_arc(q)?;
    if queue.device.svm_capabilities() == 0 {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_CONTEXT if context associated with command_queue and
    // events in event_wait_list are not the same."
    // SAFETY: caller contract.
    let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
    Ok((queue, waits))
}

type SvmFreeCallback =
    unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void);

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMFree(
    q: cl_command_queue,
    n_ptrs: cl_uint,
    ptrs: *mut *mut c_void,
    callback: Option<SvmFreeCallback>,
    user_data: *mut c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { svm_prologue(q, n, list) }?;
        // "CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is
        // non-NULL, or if svm_pointers is NULL and num_svm_pointers is not 0."
        if (n_ptrs == 0) != ptrs.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let list: Vec<usize> = if ptrs.is_null() {
            Vec::new()
        } else {
            // SAFETY: `n_ptrs` pointers per the application.
            unsafe { std::slice::from_raw_parts(ptrs, n_ptrs as usize) }
                .iter()
                .map(|&p| p as usize)
                .collect()
        };
        let context = queue.context.clone();
        let (qh, data) = (q as usize, user_data as usize);
        let free_all: Box<dyn FnOnce() + Send> = Box::new(move || match callback {
            // "If pfn_free_func is specified, it will be called to free the
            // SVM pointers": the application's function gets the list.
            Some(f) => {
                let mut raw: Vec<*mut c_void> = list.iter().map(|&p| p as *mut c_void).collect();
                // SAFETY: the application's callback with its own queue,
                // pointers and data.
                unsafe {
                    f(
                        qh as cl_command_queue,
                        raw.len() as cl_uint,
                        if raw.is_empty() {
                            std::ptr::null_mut()
                        } else {
                            raw.as_mut_ptr()
                        },
                        data as *mut c_void,
                    )
                };
            }
            None => {
                for p in list {
                    svm::free(&context, p as u64);
                }
            }
        });
        let e = svm::enqueue_free(&queue, free_all, waits);
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMemcpy(
    q: cl_command_queue,
    blocking: cl_bool,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { svm_prologue(q, n, list) }?;
        let (d, s) = copy_ends(dst, src, size)?;
        let e = if size == 0 {
            ferrocl_runtime::core::transfer::enqueue_marker(&queue, CL_COMMAND_SVM_MEMCPY, waits)
        } else {
            // SAFETY: the application keeps both pointers valid for `size`
            // bytes until the command completes.
            unsafe { svm::enqueue_memcpy(&queue, d, s, size, waits) }?
        };
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

/// The addresses of an SVM or USM memcpy (clEnqueueSVMMemcpy,
/// clCommandSVMMemcpyKHR, clEnqueueMemcpyINTEL), checked as all three
/// specify: "CL_INVALID_VALUE if dst_ptr or src_ptr is NULL",
/// "CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and
/// size result in an overlapping copy."
pub(super) fn copy_ends(dst: *mut c_void, src: *const c_void, size: usize) -> CLResult<(u64, u64)> {
    if dst.is_null() || src.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let (d, s) = (dst as u64, src as u64);
    if d < s.saturating_add(size as u64) && s < d.saturating_add(size as u64) {
        return Err(CL_MEM_COPY_OVERLAP);
    }
    Ok((d, s))
}

/// The pattern of clEnqueueSVMMemFill, clCommandSVMMemFillKHR and
/// clEnqueueMemFillINTEL, checked as they specify. SVM: "CL_INVALID_VALUE if svm_ptr is NULL", "[...] if
/// svm_ptr is not aligned to pattern_size bytes", "[...] if pattern is
/// NULL or if pattern_size is 0 or if pattern_size is not one of {1, 2,
/// 4, 8, 16, 32, 64, 128}", "[...] if size is not a multiple of
/// pattern_size." USM says the same of dst_ptr, with "greater than the
/// size of the largest integer or floating-point vector data type
/// supported by the device" (long16, 128 bytes).
///
/// # Safety
/// `pattern` points at `pattern_size` bytes when not NULL.
pub(super) unsafe fn fill_pattern<'a>(
    dst: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
) -> CLResult<&'a [u8]> {
    if dst.is_null()
        || pattern.is_null()
        || !pattern_size.is_power_of_two()
        || pattern_size > 128
        || !(dst as usize).is_multiple_of(pattern_size)
        || !size.is_multiple_of(pattern_size)
    {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: caller contract.
    Ok(unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMemFill(
    q: cl_command_queue,
    ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { svm_prologue(q, n, list) }?;
        // SAFETY: `pattern_size` bytes per the application.
        let bytes = unsafe { fill_pattern(ptr, pattern, pattern_size, size) }?;
        let e = if size == 0 {
            ferrocl_runtime::core::transfer::enqueue_marker(&queue, CL_COMMAND_SVM_MEMFILL, waits)
        } else {
            svm::enqueue_fill(&queue, ptr as u64, bytes, size, waits)?
        };
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMap(
    q: cl_command_queue,
    blocking: cl_bool,
    flags: cl_map_flags,
    ptr: *mut c_void,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { svm_prologue(q, n, list) }?;
        // "CL_INVALID_VALUE if svm_ptr is NULL", "[...] if size is 0 or if
        // values specified in map_flags are not valid."
        let valid = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        if ptr.is_null()
            || size == 0
            || flags & !valid != 0
            || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        let e = svm::enqueue_sync_point(&queue, ptr as u64, CL_COMMAND_SVM_MAP, waits);
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

pub unsafe extern "C" fn clEnqueueSVMUnmap(
    q: cl_command_queue,
    ptr: *mut c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { svm_prologue(q, n, list) }?;
        // "CL_INVALID_VALUE if svm_ptr is NULL."
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let e = svm::enqueue_sync_point(&queue, ptr as u64, CL_COMMAND_SVM_UNMAP, waits);
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueSVMMigrateMem(
    q: cl_command_queue,
    n_ptrs: cl_uint,
    ptrs: *mut *const c_void,
    sizes: *const usize,
    flags: cl_mem_migration_flags,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, waits) = unsafe { svm_prologue(q, n, list) }?;
        // "CL_INVALID_VALUE if num_svm_pointers is zero or svm_pointers is
        // NULL", "[...] if flags is not 0 or is not any of the values
        // described in the table above".
        let valid = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        if n_ptrs == 0 || ptrs.is_null() || flags & !valid != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: `n_ptrs` entries per the application.
        let list = unsafe { std::slice::from_raw_parts(ptrs, n_ptrs as usize) };
        for (i, &p) in list.iter().enumerate() {
            // "CL_INVALID_VALUE if any of svm_pointers[i] is NULL", "[...] if
            // sizes[i] is non-zero range [svm_pointers[i], svm_pointers[i] +
            // sizes[i]) is not contained within an existing clSVMAlloc
            // allocation."
            if p.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: `n_ptrs` sizes when not NULL.
            let size = if sizes.is_null() {
                0
            } else {
                unsafe { *sizes.add(i) }
            };
            if size != 0
                && svm::find(&queue.context, p as u64).is_none_or(|(m, off)| off + size > m.size)
            {
                return Err(CL_INVALID_VALUE);
            }
        }
        // One device per SVM context and the memory is the host's: the
        // migration is an ordering point.
        let e = svm::enqueue_sync_point(&queue, list[0] as u64, CL_COMMAND_SVM_MIGRATE_MEM, waits);
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}
