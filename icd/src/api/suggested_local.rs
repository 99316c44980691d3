//! cl_khr_suggested_local_work_size: clGetKernelSuggestedLocalWorkSizeKHR,
//! an extension function (`get_extension_function_address`), which is also
//! OpenCL 3.1's core clGetKernelSuggestedLocalWorkSize (its slot of the
//! dispatch table, `crate::dispatch`): the local
//! size clEnqueueNDRangeKernel would pick for a NULL local size
//! (`core::kernel::suggested_local_size`).

use std::sync::Arc;

use ferrocl_runtime::core::kernel::{suggested_local_size, Kernel};
use ferrocl_runtime::core::object::get_arc;
use opencl_sys::*;

use super::queue::queue_arc;
use crate::entry::code;

pub unsafe extern "C" fn clGetKernelSuggestedLocalWorkSizeKHR(
    q: cl_command_queue,
    k: cl_kernel,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    suggested: *mut usize,
) -> cl_int {
    code(|| {
        // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
        // command-queue."
        let queue = queue_arc(q)?;
        // "CL_INVALID_KERNEL if kernel is not a valid kernel object."
        // SAFETY: handle from the application.
        let kern = unsafe { get_arc::<Kernel>(k) }?;
        // "CL_INVALID_CONTEXT if the context associated with kernel is not
        // the same as the context associated with command_queue."
        if !Arc::ptr_eq(&queue.context, &kern.program.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
        // program executable available for kernel for the device
        // associated with command_queue."
        kern.for_device(&queue.device)
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        // "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e.
        // a value between 1 and CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)."
        if !(1..=3).contains(&work_dim) {
            return Err(CL_INVALID_WORK_DIMENSION);
        }
        let wd = work_dim as usize;
        // "CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL or if
        // any of the values specified in global_work_size are 0."
        if global.is_null() {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        let read3 = |p: *const usize, fill: usize| -> [usize; 3] {
            let mut v = [fill; 3];
            for (d, slot) in v.iter_mut().enumerate().take(wd) {
                // SAFETY: work_dim entries per the application.
                *slot = unsafe { *p.add(d) };
            }
            v
        };
        let g = read3(global, 1);
        if g[..wd].contains(&0) {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        // "CL_INVALID_GLOBAL_WORK_SIZE if any of the values specified in
        // global_work_size exceed the maximum value representable by size_t
        // on the device associated with command_queue" (Vulkan ids are
        // 32-bit, as clEnqueueNDRangeKernel checks).
        if g[..wd].iter().any(|&x| x > u32::MAX as usize) {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        // "CL_INVALID_GLOBAL_OFFSET if the value specified in
        // global_work_size plus the corresponding value in
        // global_work_offset for dimension exceeds the maximum value
        // representable by size_t on the device associated with
        // command_queue."
        let o = if offset.is_null() {
            [0; 3]
        } else {
            read3(offset, 0)
        };
        if (0..wd).any(|d| o[d].checked_add(g[d]).is_none_or(|s| s > u32::MAX as usize)) {
            return Err(CL_INVALID_GLOBAL_OFFSET);
        }
        // "CL_INVALID_VALUE if suggested_local_work_size is NULL."
        if suggested.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_KERNEL_ARGS if all argument values for kernel have not
        // been set."
        let l = suggested_local_size(&queue, &kern, work_dim, g)?;
        for (d, &v) in l.iter().enumerate().take(wd) {
            // SAFETY: work_dim entries per the application.
            unsafe { *suggested.add(d) = v };
        }
        Ok(())
    })
}
