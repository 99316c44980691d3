//! cl_khr_command_buffer's recording entry points (clCommand*KHR): each
//! checks what the matching clEnqueue* checks, on the command buffer's
//! queue, plus the command-buffer rules (state, queue, properties, sync
//! points, handles), and records through `core::command_buffer`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::command_buffer::{CommandBuffer, MUTABLE_DISPATCH_CAPABILITIES};
use ferrocl_runtime::core::image_transfer;
use ferrocl_runtime::core::kernel::Kernel;
use ferrocl_runtime::core::memory::Mem;
use ferrocl_runtime::core::object::{get_arc, handle_of};
use ferrocl_runtime::core::prepared_launch::Range;
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::core::svm;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::command_buffer::cmdbuf_arc;
use super::enqueue::{check_region, check_region3, read3, rect_in_buffer, rect_side};
use super::image::{
    copy_buffer_to_image_args, copy_image_args, copy_image_to_buffer_args, fill_image_args,
};
use super::mem::mem_arc;
use super::mutable_dispatch::kernel_command_properties;
use crate::entry::code;

/// The checks every recording call shares, before its own:
/// "CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
/// command-buffer", "CL_INVALID_COMMAND_QUEUE if command_queue is NULL
/// and command_buffer was created with more than one queue, or if
/// command_queue is non-NULL and not a command-queue listed on
/// command_buffer creation" (cl_khr_command_buffer_multi_device's rule),
/// "CL_INVALID_OPERATION if command_buffer has been finalized", and the
/// sync-point wait list: "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if
/// sync_point_wait_list is NULL and num_sync_points_in_wait_list is > 0,
/// or sync_point_wait_list is not NULL and num_sync_points_in_wait_list is
/// 0" (the points themselves are checked when the command is added).
/// Returns the command buffer, the command's lane (its queue's index in
/// the creation list) and the sync points.
///
/// # Safety
/// `waits` must be NULL or point at `n` sync points.
unsafe fn prologue<'a>(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
) -> CLResult<(Arc<CommandBuffer>, usize, &'a [cl_sync_point_khr])> {
    let cmdbuf = cmdbuf_arc(cb)?;
    let lane = if q.is_null() {
        if cmdbuf.queues.len() != 1 {
            return Err(CL_INVALID_COMMAND_QUEUE);
        }
        0
    } else {
        cmdbuf
            .queues
            .iter()
            .position(|x| std::ptr::eq(handle_of(x) as cl_command_queue, q))
            .ok_or(CL_INVALID_COMMAND_QUEUE)?
    };
    if cmdbuf.state() != ferrocl_runtime::core::command_buffer::State::Recording {
        return Err(CL_INVALID_OPERATION);
    }
    if waits.is_null() != (n == 0) {
        return Err(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
    }
    let list = if n == 0 {
        &[][..]
    } else {
        // SAFETY: caller contract.
        unsafe { std::slice::from_raw_parts(waits, n as usize) }
    };
    Ok((cmdbuf, lane, list))
}

/// A command without properties or mutable handle (every command but
/// the NDRange kernel): "CL_INVALID_VALUE if values specified in
/// properties are not valid" (none are defined) and "CL_INVALID_VALUE if
/// mutable_handle is not NULL".
///
/// # Safety
/// `properties` must be NULL or a 0-terminated list.
unsafe fn plain(
    properties: *const cl_command_properties_khr,
    handle: *mut cl_mutable_command_khr,
) -> CLResult<()> {
    // SAFETY: caller contract.
    if !properties.is_null() && unsafe { *properties } != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if !handle.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// Returns the sync point if the application asked for it.
///
/// # Safety
/// `out` must be NULL or valid for a write.
unsafe fn return_sync_point(out: *mut cl_sync_point_khr, sp: cl_sync_point_khr) {
    if !out.is_null() {
        // SAFETY: caller contract.
        unsafe { *out = sp };
    }
}

/// A memory object of the command buffer's context (CL_INVALID_CONTEXT
/// otherwise), with storage on the device of lane `lane`'s queue.
fn mem_of(
    cmdbuf: &CommandBuffer,
    lane: usize,
    m: cl_mem,
) -> CLResult<Arc<ferrocl_runtime::core::memory::Mem>> {
    let mem = mem_arc(m)?;
    if !Arc::ptr_eq(&mem.context, cmdbuf.context()) {
        return Err(CL_INVALID_CONTEXT);
    }
    mem.ensure_on(cmdbuf.queue(lane).device_index)?;
    Ok(mem)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandBarrierWithWaitListKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        let sp = cmdbuf.barrier(lane, waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandCopyBufferKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        // "CL_INVALID_MEM_OBJECT if src_buffer and dst_buffer are not valid
        // buffer objects."
        let (s, d) = (mem_of(&cmdbuf, lane, src)?, mem_of(&cmdbuf, lane, dst)?);
        if !s.is_buffer() || !d.is_buffer() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        // "CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset +
        // size or dst_offset + size require accessing elements outside the
        // src_buffer and dst_buffer buffer objects respectively", and a
        // size of 0.
        check_region(&s, src_offset, size)?;
        check_region(&d, dst_offset, size)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same
        // buffer or sub-buffer object and the source and destination
        // regions overlap [...]"
        if s.shares_storage(&d) {
            let (a, b) = (s.offset + src_offset, d.offset + dst_offset);
            if a < b + size && b < a + size {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        let sp = cmdbuf.copy(lane, &s, &d, src_offset, dst_offset, size, waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandCopyBufferRectKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    srp: usize,
    ssp: usize,
    drp: usize,
    dsp: usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        let (s, d) = (mem_of(&cmdbuf, lane, src)?, mem_of(&cmdbuf, lane, dst)?);
        if !s.is_buffer() || !d.is_buffer() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        // SAFETY: three entries each per the spec.
        let (so, dor, r) = unsafe { (read3(src_origin)?, read3(dst_origin)?, read3(region)?) };
        check_region3(&r)?;
        let sr = rect_side(so, &r, srp, ssp)?;
        let dr = rect_side(dor, &r, drp, dsp)?;
        rect_in_buffer(&s, &sr, &r)?;
        rect_in_buffer(&d, &dr, &r)?;
        if Arc::ptr_eq(&s, &d) {
            // "CL_INVALID_VALUE if src_buffer and dst_buffer are the same
            // buffer object and src_slice_pitch is not equal to
            // dst_slice_pitch and src_row_pitch is not equal to dst_row_pitch."
            if sr.slice_pitch != dr.slice_pitch && sr.row_pitch != dr.row_pitch {
                return Err(CL_INVALID_VALUE);
            }
            // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the
            // same buffer or sub-buffer object and the source and
            // destination regions overlap."
            if ferrocl_runtime::core::transfer::rects_overlap(&sr, &dr, &r) {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        let sp = cmdbuf.copy_rect(lane, &s, &d, sr, dr, r, waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandFillBufferKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        let mem = mem_of(&cmdbuf, lane, buffer)?;
        if !mem.is_buffer() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        check_region(&mem, offset, size)?;
        // "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or
        // if pattern_size is not one of { 1, 2, 4, 8, 16, 32, 64, 128 }",
        // "if offset and size are not a multiple of pattern_size".
        if pattern.is_null()
            || !pattern_size.is_power_of_two()
            || pattern_size > 128
            || !offset.is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
        {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: pattern_size bytes per the application; copied now.
        let pat = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
        let sp = cmdbuf.fill(lane, &mem, pat, offset, size, waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandNDRangeKernelKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    k: cl_kernel,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // "CL_INVALID_KERNEL if kernel is not a valid kernel object."
        // SAFETY: handle from the application.
        let kern = unsafe { get_arc::<Kernel>(k) }?;
        // "CL_INVALID_CONTEXT if the context associated with command_queue,
        // command_buffer, and kernel are not the same."
        if !Arc::ptr_eq(cmdbuf.context(), &kern.program.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        // "CL_INVALID_VALUE if values specified in properties are not
        // valid", "CL_INVALID_OPERATION if the requested
        // CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR properties are not
        // reported by CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR".
        // SAFETY: a 0-terminated list per the application.
        let (props, updatable, no_more_groups) =
            unsafe { kernel_command_properties(&cmdbuf, properties) }?;
        if updatable & !MUTABLE_DISPATCH_CAPABILITIES != 0 {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
        // program executable available for device associated with
        // command_queue."
        kern.for_device(&cmdbuf.queue(lane).device)
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        // "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value."
        if !(1..=3).contains(&work_dim) {
            return Err(CL_INVALID_WORK_DIMENSION);
        }
        // SAFETY: work_dim entries each per the application.
        let range = unsafe { read_range(work_dim, offset, global, local) }?;
        // "CL_INVALID_VALUE if [...] CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR
        // and local_work_size is NULL."
        if no_more_groups && local.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (sp, command) = cmdbuf.ndrange(lane, &kern, range, props, updatable, waits)?;
        if !handle.is_null() {
            // SAFETY: pointer from the application; the handle lives as
            // long as the command buffer.
            unsafe { *handle = handle_of(&command) as cl_mutable_command_khr };
        }
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

/// The NDRange of a kernel command with clEnqueueNDRangeKernel's checks
/// of its sizes (a NULL or zero global size is a command without work).
///
/// # Safety
/// Each pointer must be NULL or point at `work_dim` (1 to 3) entries.
pub(crate) unsafe fn read_range(
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
) -> CLResult<Range> {
    let wd = work_dim as usize;
    let read = |p: *const usize, fill: usize| -> [usize; 3] {
        let mut v = [fill; 3];
        for (d, slot) in v.iter_mut().enumerate().take(wd) {
            // SAFETY: work_dim entries per the caller.
            *slot = unsafe { *p.add(d) };
        }
        v
    };
    let g = if global.is_null() {
        let mut g = [1; 3];
        g[..wd].fill(0);
        g
    } else {
        read(global, 1)
    };
    let o = if offset.is_null() {
        [0; 3]
    } else {
        read(offset, 0)
    };
    let l = (!local.is_null()).then(|| read(local, 1));
    // "CL_INVALID_GLOBAL_WORK_SIZE if any of the values specified in
    // global_work_size [...] exceed the maximum value representable by
    // size_t on the device" (Vulkan ids are 32-bit), and the offset rule.
    if (0..wd).any(|d| g[d] > u32::MAX as usize) {
        return Err(CL_INVALID_GLOBAL_WORK_SIZE);
    }
    if (0..wd).any(|d| o[d].checked_add(g[d]).is_none_or(|s| s > u32::MAX as usize)) {
        return Err(CL_INVALID_GLOBAL_OFFSET);
    }
    Ok(Range {
        work_dim,
        offset: o,
        global: g,
        local: l,
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandCopyImageKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        let queue = cmdbuf.queue(lane);
        // SAFETY: as above.
        let (s, d, so, dor, r) =
            unsafe { copy_image_args(queue, src, dst, src_origin, dst_origin, region) }?;
        let (s2, d2) = (s.clone(), d.clone());
        let make = move |q: &Arc<Queue>| image_transfer::copy_image(q, &s2, &d2, so, dor, r);
        let sp = cmdbuf.image_command(lane, make, vec![(s, false), (d, true)], waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandCopyImageToBufferKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        let queue = cmdbuf.queue(lane);
        // SAFETY: as above.
        let (s, d, o, r) =
            unsafe { copy_image_to_buffer_args(queue, src, dst, src_origin, region, dst_offset) }?;
        let (s2, d2) = (s.clone(), d.clone());
        let make = move |q: &Arc<Queue>| {
            image_transfer::copy_image_to_buffer(q, &s2, &d2, o, r, dst_offset)
        };
        let sp = cmdbuf.image_command(lane, make, vec![(s, false), (d, true)], waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandCopyBufferToImageKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        let queue = cmdbuf.queue(lane);
        // SAFETY: as above.
        let (s, d, o, r) =
            unsafe { copy_buffer_to_image_args(queue, src, dst, src_offset, dst_origin, region) }?;
        let (s2, d2) = (s.clone(), d.clone());
        let make = move |q: &Arc<Queue>| {
            image_transfer::copy_buffer_to_image(q, &s2, &d2, src_offset, o, r)
        };
        let sp = cmdbuf.image_command(lane, make, vec![(s, false), (d, true)], waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandFillImageKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    image: cl_mem,
    color: *const c_void,
    origin: *const usize,
    region: *const usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        let queue = cmdbuf.queue(lane);
        // SAFETY: as above.
        let (mem, texel, o, r) = unsafe { fill_image_args(queue, image, color, origin, region) }?;
        let m2 = mem.clone();
        let make = move |q: &Arc<Queue>| image_transfer::fill_image(q, &m2, &texel, o, r);
        let sp = cmdbuf.image_command(lane, make, vec![(mem, true)], waits)?;
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

/// The SVM checks clCommandSVMMemcpyKHR and clCommandSVMMemFillKHR share:
/// "CL_INVALID_OPERATION if the device associated with command_queue does
/// not support SVM".
fn svm_device(cmdbuf: &CommandBuffer, lane: usize) -> CLResult<()> {
    if cmdbuf.queue(lane).device.svm_capabilities() & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// The SVM allocation of the command buffer's context holding `size`
/// bytes at `ptr`, and the offset of `ptr` in it. Commands are recorded
/// once and replayed, so both ends of a recorded SVM command must be SVM
/// memory: a host pointer outside every allocation (which clEnqueueSVMMemcpy
/// takes, copying at enqueue) cannot be replayed and is refused with
/// CL_INVALID_OPERATION.
fn svm_range(
    cmdbuf: &CommandBuffer,
    lane: usize,
    ptr: u64,
    size: usize,
) -> CLResult<(Arc<Mem>, usize)> {
    let (mem, off) = svm::find(cmdbuf.context(), ptr).ok_or(CL_INVALID_OPERATION)?;
    // Past the allocation's end: "CL_INVALID_VALUE if [...] size [...]
    // require[s] accessing elements outside" it (clEnqueueSVMMemFill's
    // rule; SVM memcpy likewise).
    if off + size > mem.size {
        return Err(CL_INVALID_VALUE);
    }
    mem.ensure_on(cmdbuf.queue(lane).device_index)?;
    Ok((mem, off))
}

/// clCommandSVMMemcpyKHR: clEnqueueSVMMemcpy's checks; a copy between two
/// SVM allocations (or within one) recorded as a buffer copy.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandSVMMemcpyKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        svm_device(&cmdbuf, lane)?;
        let (d, s) = super::svm::copy_ends(dst, src, size)?;
        let (dmem, doff) = svm_range(&cmdbuf, lane, d, size)?;
        let (smem, soff) = svm_range(&cmdbuf, lane, s, size)?;
        let sp = if size == 0 {
            cmdbuf.nothing(lane, waits)?
        } else {
            cmdbuf.copy(lane, &smem, &dmem, soff, doff, size, waits)?
        };
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}

/// clCommandSVMMemFillKHR: clEnqueueSVMMemFill's checks; a fill of the
/// SVM allocation recorded as a buffer fill.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCommandSVMMemFillKHR(
    cb: cl_command_buffer_khr,
    q: cl_command_queue,
    properties: *const cl_command_properties_khr,
    ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    n: cl_uint,
    waits: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    handle: *mut cl_mutable_command_khr,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (cmdbuf, lane, waits) = unsafe { prologue(cb, q, n, waits) }?;
        // SAFETY: as above.
        unsafe { plain(properties, handle) }?;
        svm_device(&cmdbuf, lane)?;
        // SAFETY: `pattern_size` bytes per the application; copied now.
        let pat = unsafe { super::svm::fill_pattern(ptr, pattern, pattern_size, size) }?;
        let (mem, off) = svm_range(&cmdbuf, lane, ptr as u64, size)?;
        let sp = if size == 0 {
            cmdbuf.nothing(lane, waits)?
        } else {
            cmdbuf.fill(lane, &mem, pat, off, size, waits)?
        };
        // SAFETY: as above.
        unsafe { return_sync_point(sync_point, sp) };
        Ok(())
    })
}
