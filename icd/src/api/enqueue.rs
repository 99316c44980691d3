//! clEnqueue* entry points: argument checks, then the runtime's commands.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::event::Event;
use ferrocl_runtime::core::kernel::Kernel;
use ferrocl_runtime::core::memory::{Mapping, Mem};
use ferrocl_runtime::core::object::get_arc;
use ferrocl_runtime::core::prepared_launch::enqueue_ndrange;
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::core::transfer;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::command_buffer_commands::read_range;
use super::mem::mem_arc;
use super::queue::queue_arc;
use crate::entry::{code, object, return_event, wait_list_in};

/// The checked queue, buffer and wait list of a buffer command.
type Prologue = (Arc<Queue>, Arc<Mem>, Vec<Arc<Event>>);

/// Common checks of a buffer command: queue, buffer, same context, wait
/// list ("CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object":
/// an image is not).
unsafe fn prologue(
    q: cl_command_queue,
    m: cl_mem,
    n: cl_uint,
    list: *const cl_event,
) -> CLResult<Prologue> {
    // SAFETY: caller contract.
    let p = unsafe { mem_prologue(q, m, n, list) }?;
    if !p.1.is_buffer() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(p)
}

/// [`prologue`] for any memory object (clEnqueueUnmapMemObject).
unsafe fn mem_prologue(
    q: cl_command_queue,
    m: cl_mem,
    n: cl_uint,
    list: *const cl_event,
) -> CLResult<Prologue> {
    let queue = queue_arc(q)?;
    let mem = mem_arc(m)?;
    // "CL_INVALID_CONTEXT if the context associated with command_queue and
    // buffer are not the same [...]"
    if !Arc::ptr_eq(&queue.context, &mem.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    mem.ensure_on(queue.device_index)?;
    // "CL_INVALID_CONTEXT if context associated with command_queue and
    // events in event_wait_list are not the same."
    // SAFETY: caller contract.
    let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
    Ok((queue, mem, waits))
}

/// "CL_INVALID_VALUE if the region being read or written specified by
/// (offset, size) is out of bounds or if ptr is a NULL value."
pub(crate) fn check_region(mem: &Mem, offset: usize, size: usize) -> CLResult<()> {
    match offset.checked_add(size) {
        Some(end) if end <= mem.size => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// Blocking commands: "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the
/// read and write operations are blocking and the execution status of any
/// of the events in event_wait_list is a negative integer value."
pub(crate) fn finish_blocking(blocking: cl_bool, e: &Arc<Event>) -> CLResult<()> {
    if blocking != CL_FALSE && e.wait() < 0 {
        return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueReadBuffer(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
        check_region(&mem, offset, size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer
        // which has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS."
        if mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
            return Err(CL_INVALID_OPERATION);
        }
        let e = transfer::enqueue_read(&queue, &mem, offset, size, ptr as *mut u8, waits)?;
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueWriteBuffer(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
        check_region(&mem, offset, size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
            return Err(CL_INVALID_OPERATION);
        }
        // SAFETY: "the memory pointed to by ptr [...] cannot be reused by
        // the application" until the write completes: readable until then.
        let e = unsafe {
            transfer::enqueue_write_from(&queue, &mem, offset, ptr as *const u8, size, waits)
        }?;
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueCopyBuffer(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, s, waits) = unsafe { prologue(q, src, n, list) }?;
        let d = mem_arc(dst)?;
        if !d.is_buffer() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        if !Arc::ptr_eq(&queue.context, &d.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        d.ensure_on(queue.device_index)?;
        // "CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset +
        // size or dst_offset + size require accessing elements outside the
        // src_buffer and dst_buffer buffer objects respectively."
        check_region(&s, src_offset, size)?;
        check_region(&d, dst_offset, size)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same
        // buffer or sub-buffer object and the source and destination regions overlap [...]"
        if s.shares_storage(&d) {
            let (a, b) = (s.offset + src_offset, d.offset + dst_offset);
            if a < b + size && b < a + size {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        let e = transfer::enqueue_copy(&queue, &s, &d, src_offset, dst_offset, size, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueFillBuffer(
    q: cl_command_queue,
    m: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
        check_region(&mem, offset, size)?;
        // "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if
        // pattern_size is not one of { 1, 2, 4, 8, 16, 32, 64, 128 }."
        // "CL_INVALID_VALUE if offset and size are not a multiple of pattern_size."
        if pattern.is_null()
            || !pattern_size.is_power_of_two()
            || pattern_size > 128
            || !offset.is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
        {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: pattern_size bytes per the application.
        let pat = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
        let e = transfer::enqueue_fill(&queue, &mem, pat, offset, size, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    q: cl_command_queue,
    k: cl_kernel,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        let queue = queue_arc(q)?;
        // SAFETY: handle from the application.
        let kern = unsafe { get_arc::<Kernel>(k) }?;
        // "CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the same."
        if !Arc::ptr_eq(&queue.context, &kern.program.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
        // program executable available for device associated with command_queue."
        kern.for_device(&queue.device)
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        // "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1 and 3)."
        if !(1..=3).contains(&work_dim) {
            return Err(CL_INVALID_WORK_DIMENSION);
        }
        // The NDRange, with the size and offset checks kernel commands of
        // command buffers share. "If global_work_size is NULL, or the
        // value in any passed dimension is 0 then the kernel command will
        // trivially succeed after its event dependencies are satisfied"
        // (2.1+; CL_INVALID_GLOBAL_WORK_SIZE for it is deprecated).
        // SAFETY: work_dim entries per pointer, per the application.
        let range = unsafe { read_range(work_dim, offset, global, local) }?;
        // "CL_INVALID_CONTEXT if context associated with command_queue and
        // events in event_wait_list are not the same."
        // SAFETY: pointers from the application.
        let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
        let e = enqueue_ndrange(
            &queue,
            &kern,
            work_dim,
            range.offset,
            range.global,
            range.local,
            waits,
        )?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

pub unsafe extern "C" fn clEnqueueTask(
    q: cl_command_queue,
    k: cl_kernel,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let one = [1usize];
    // SAFETY: forwarded with a 1-element global and local size.
    unsafe {
        clEnqueueNDRangeKernel(
            q,
            k,
            1,
            std::ptr::null(),
            one.as_ptr(),
            one.as_ptr(),
            n,
            list,
            event,
        )
    }
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueNativeKernel(
    q: cl_command_queue,
    _f: Option<unsafe extern "C" fn(*mut c_void)>,
    _args: *mut c_void,
    _cb: usize,
    _nm: cl_uint,
    _ml: *const cl_mem,
    _al: *mut *const c_void,
    _n: cl_uint,
    _list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    code(|| {
        queue_arc(q)?;
        // "CL_INVALID_OPERATION if the device associated with command_queue
        // cannot execute the native kernel" (CL_EXEC_NATIVE_KERNEL is not reported).
        Err(CL_INVALID_OPERATION)
    })
}

fn marker(
    q: cl_command_queue,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
    t: cl_command_type,
) -> cl_int {
    code(|| {
        let queue = queue_arc(q)?;
        // "CL_INVALID_CONTEXT if context associated with command_queue and
        // events in event_wait_list are not the same."
        // SAFETY: pointers from the application.
        let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
        let e = transfer::enqueue_marker(&queue, t, waits);
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

pub unsafe extern "C" fn clEnqueueMarkerWithWaitList(
    q: cl_command_queue,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    marker(q, n, list, event, CL_COMMAND_MARKER)
}

pub unsafe extern "C" fn clEnqueueBarrierWithWaitList(
    q: cl_command_queue,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    marker(q, n, list, event, CL_COMMAND_BARRIER)
}

pub unsafe extern "C" fn clEnqueueMarker(q: cl_command_queue, event: *mut cl_event) -> cl_int {
    if event.is_null() {
        return CL_INVALID_VALUE;
    }
    marker(q, 0, std::ptr::null(), event, CL_COMMAND_MARKER)
}

pub unsafe extern "C" fn clEnqueueBarrier(q: cl_command_queue) -> cl_int {
    marker(
        q,
        0,
        std::ptr::null(),
        std::ptr::null_mut(),
        CL_COMMAND_BARRIER,
    )
}

pub unsafe extern "C" fn clEnqueueWaitForEvents(
    q: cl_command_queue,
    n: cl_uint,
    list: *const cl_event,
) -> cl_int {
    if n == 0 || list.is_null() {
        return CL_INVALID_VALUE;
    }
    // OpenCL 1.0/1.1, whose entry point this is (deprecated since 1.2):
    // "CL_INVALID_EVENT if event objects specified in event_list are not
    // valid events" (the unified 3.0 text lists no code for them; none
    // names a wait list, which this function does not have). The list is
    // non-empty here, so the wait list's check fails only for its events.
    match marker(q, n, list, std::ptr::null_mut(), CL_COMMAND_MARKER) {
        CL_INVALID_EVENT_WAIT_LIST => CL_INVALID_EVENT,
        code => code,
    }
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueMapBuffer(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    flags: cl_map_flags,
    offset: usize,
    size: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
        check_region(&mem, offset, size)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        let valid = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        if flags & !valid != 0
            || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if buffer has been created with
        // CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is
        // set in map_flags" and "[...] with CL_MEM_HOST_READ_ONLY or
        // CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
        // CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags."
        if (mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0
            && flags & CL_MAP_READ != 0)
            || (mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0
                && flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0)
        {
            return Err(CL_INVALID_OPERATION);
        }
        let read = flags & CL_MAP_WRITE_INVALIDATE_REGION == 0;
        let in_place = mem.in_place_on(queue.device_index);
        let (ptr, memory, e) = if mem.host_ptr != 0 {
            // USE_HOST_PTR: the map hands back the application's own memory
            // (spec): the storage itself where it is imported, else
            // refreshed from the device unless invalidated.
            let ptr = mem.host_ptr + offset;
            let e = if in_place {
                let write = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
                transfer::enqueue_in_place(&queue, &mem, write, CL_COMMAND_MAP_BUFFER, waits)
            } else if read {
                transfer::enqueue_read_as(
                    &queue,
                    &mem,
                    offset,
                    size,
                    ptr as *mut u8,
                    CL_COMMAND_MAP_BUFFER,
                    waits,
                )?
            } else {
                transfer::enqueue_marker(&queue, CL_COMMAND_MAP_BUFFER, waits)
            };
            (ptr, None, e)
        } else {
            // A pointer into host-visible memory (the buffer's mirror or
            // staging): the map's read is one DMA, the unmap's write another.
            let target = Arc::new(transfer::map_memory(&queue, &mem, offset, size, flags)?);
            let e = if read {
                transfer::enqueue_read_to_map(
                    &queue,
                    &mem,
                    offset,
                    size,
                    &target,
                    CL_COMMAND_MAP_BUFFER,
                    waits,
                )?
            } else {
                transfer::enqueue_marker(&queue, CL_COMMAND_MAP_BUFFER, waits)
            };
            (target.ptr, Some(target), e)
        };
        mem.maps.lock().push(Mapping {
            ptr,
            offset,
            size,
            flags,
            memory,
            image: None,
            in_place,
        });
        mem.map_count
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(ptr as *mut c_void)
    })
}

pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    q: cl_command_queue,
    m: cl_mem,
    ptr: *mut c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { mem_prologue(q, m, n, list) }?;
        let map = {
            let mut maps = mem.maps.lock();
            // "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned
            // by clEnqueueMapBuffer [...] for memobj."
            let i = maps
                .iter()
                .position(|x| x.ptr == ptr as usize)
                .ok_or(CL_INVALID_VALUE)?;
            maps.remove(i)
        };
        mem.map_count
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        let wrote = map.flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
        let e = match (wrote, map.memory.clone()) {
            // The host wrote the storage itself (imported USE_HOST_PTR
            // memory): nothing to copy; later submissions see the writes.
            (true, _) if map.in_place => {
                transfer::enqueue_in_place(&queue, &mem, true, CL_COMMAND_UNMAP_MEM_OBJECT, waits)
            }
            (true, memory) if map.image.is_some() => {
                let region = map.image.ok_or(CL_INVALID_VALUE)?;
                ferrocl_runtime::core::image_transfer::enqueue_unmap_image(
                    &queue, &mem, map.ptr, region, memory, waits,
                )?
            }
            // Map memory of this queue's device: one device copy.
            (true, Some(memory)) if Arc::ptr_eq(&memory.device, &queue.device.vk()?) => {
                transfer::enqueue_write_from_map(&queue, &mem, map.offset, map.size, memory, waits)?
            }
            (true, _) => {
                // USE_HOST_PTR memory (or map memory of another device of
                // the context): copied out now, as a write.
                // SAFETY: the mapping covers size bytes at ptr.
                let data = unsafe { std::slice::from_raw_parts(map.ptr as *const u8, map.size) };
                transfer::enqueue_write_as(
                    &queue,
                    &mem,
                    map.offset,
                    data,
                    CL_COMMAND_UNMAP_MEM_OBJECT,
                    waits,
                )?
            }
            // The staging memory may still be the target of the map's
            // read: it is released once the queue gets here.
            (false, _) => queue.submit(
                CL_COMMAND_UNMAP_MEM_OBJECT,
                waits,
                None,
                Some(Box::new(move || drop(map))),
            ),
        };
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

pub(crate) unsafe fn read3(p: *const usize) -> CLResult<[usize; 3]> {
    if p.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: three entries per the spec.
    Ok(unsafe { [*p, *p.add(1), *p.add(2)] })
}

/// Applies the spec's pitch defaults and checks:
/// "CL_INVALID_VALUE if [...] row_pitch is not 0 and is less than region[0]"
/// and "[...] slice_pitch is not 0 and is less than region[1] x row_pitch
/// or if slice_pitch is not 0 and is not a multiple of row_pitch."
pub(crate) fn rect_side(
    origin: [usize; 3],
    region: &[usize; 3],
    row: usize,
    slice: usize,
) -> CLResult<transfer::Rect> {
    if row != 0 && row < region[0] {
        return Err(CL_INVALID_VALUE);
    }
    let row = if row == 0 { region[0] } else { row };
    // A slice of region[1] rows past the address space fits no memory.
    let rows = region[1].checked_mul(row).ok_or(CL_INVALID_VALUE)?;
    if slice != 0 && (slice < rows || !slice.is_multiple_of(row)) {
        return Err(CL_INVALID_VALUE);
    }
    let slice = if slice == 0 { rows } else { slice };
    let rect = transfer::Rect {
        origin,
        row_pitch: row,
        slice_pitch: slice,
    };
    // "CL_INVALID_VALUE if the region being read or written [...] is out
    // of bounds": a rectangle ending past the address space is out of the
    // bounds of any buffer or host memory (and its row offsets would
    // overflow).
    if rect.end(region).is_none() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(rect)
}

/// Region and buffer-side checks shared by the rect commands.
pub(crate) fn rect_in_buffer(
    mem: &Mem,
    side: &transfer::Rect,
    region: &[usize; 3],
) -> CLResult<()> {
    // "CL_INVALID_VALUE if the region being read or written specified by
    // (buffer_origin, region, buffer_row_pitch, buffer_slice_pitch) is out of bounds."
    if side.end(region).is_none_or(|end| end > mem.size) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

pub(crate) fn check_region3(region: &[usize; 3]) -> CLResult<()> {
    // "CL_INVALID_VALUE if any region array element is 0."
    if region.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// The checked arguments of a host rectangle command.
type HostRect = (
    Arc<Queue>,
    Arc<Mem>,
    Vec<Arc<Event>>,
    transfer::Rect,
    transfer::Rect,
    [usize; 3],
);

/// The checks clEnqueueReadBufferRect and clEnqueueWriteBufferRect share:
/// queue, buffer and wait list; buffer origin, host origin and region
/// (`origins`); buffer row/slice and host row/slice pitches (`pitches`);
/// "CL_INVALID_VALUE if [...] ptr is NULL".
unsafe fn host_rect_prologue(
    q: cl_command_queue,
    m: cl_mem,
    n: cl_uint,
    list: *const cl_event,
    origins: [*const usize; 3],
    pitches: [usize; 4],
    ptr_is_null: bool,
) -> CLResult<HostRect> {
    // SAFETY: caller contract.
    let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
    // SAFETY: as above.
    let (bo, ho, region) = unsafe { (read3(origins[0])?, read3(origins[1])?, read3(origins[2])?) };
    check_region3(&region)?;
    if ptr_is_null {
        return Err(CL_INVALID_VALUE);
    }
    let b = rect_side(bo, &region, pitches[0], pitches[1])?;
    let h = rect_side(ho, &region, pitches[2], pitches[3])?;
    rect_in_buffer(&mem, &b, &region)?;
    Ok((queue, mem, waits, b, h, region))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueReadBufferRect(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    bo: *const usize,
    ho: *const usize,
    r: *const usize,
    brp: usize,
    bsp: usize,
    hrp: usize,
    hsp: usize,
    ptr: *mut c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits, b, h, region) = unsafe {
            host_rect_prologue(
                q,
                m,
                n,
                list,
                [bo, ho, r],
                [brp, bsp, hrp, hsp],
                ptr.is_null(),
            )
        }?;
        // "CL_INVALID_OPERATION if clEnqueueReadBufferRect is called on buffer
        // which has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS."
        if mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
            return Err(CL_INVALID_OPERATION);
        }
        let e = transfer::enqueue_read_rect(&queue, &mem, b, h, region, ptr as *mut u8, waits)?;
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueWriteBufferRect(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    bo: *const usize,
    ho: *const usize,
    r: *const usize,
    brp: usize,
    bsp: usize,
    hrp: usize,
    hsp: usize,
    ptr: *const c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits, b, h, region) = unsafe {
            host_rect_prologue(
                q,
                m,
                n,
                list,
                [bo, ho, r],
                [brp, bsp, hrp, hsp],
                ptr.is_null(),
            )
        }?;
        // "CL_INVALID_OPERATION if clEnqueueWriteBufferRect is called on buffer
        // which has been created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS."
        if mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
            return Err(CL_INVALID_OPERATION);
        }
        // SAFETY: the application's rectangle is readable (spec).
        let e = unsafe {
            transfer::enqueue_write_rect(&queue, &mem, b, h, region, ptr as *const u8, waits)
        }?;
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueCopyBufferRect(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    so: *const usize,
    dor: *const usize,
    r: *const usize,
    srp: usize,
    ssp: usize,
    drp: usize,
    dsp: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, s, waits) = unsafe { prologue(q, src, n, list) }?;
        let d = mem_arc(dst)?;
        if !d.is_buffer() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        if !Arc::ptr_eq(&queue.context, &d.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        d.ensure_on(queue.device_index)?;
        // SAFETY: as above.
        let (so, dor, region) = unsafe { (read3(so)?, read3(dor)?, read3(r)?) };
        check_region3(&region)?;
        let sr = rect_side(so, &region, srp, ssp)?;
        let dr = rect_side(dor, &region, drp, dsp)?;
        rect_in_buffer(&s, &sr, &region)?;
        rect_in_buffer(&d, &dr, &region)?;
        if Arc::ptr_eq(&s, &d) {
            // "CL_INVALID_VALUE if src_buffer and dst_buffer are the same
            // buffer object and src_slice_pitch is not equal to
            // dst_slice_pitch and src_row_pitch is not equal to dst_row_pitch."
            if sr.slice_pitch != dr.slice_pitch && sr.row_pitch != dr.row_pitch {
                return Err(CL_INVALID_VALUE);
            }
            // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same
            // buffer or sub-buffer object and the source and destination regions overlap."
            if transfer::rects_overlap(&sr, &dr, &region) {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        let e = transfer::enqueue_copy_rect(&queue, &s, &d, sr, dr, region, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    q: cl_command_queue,
    n: cl_uint,
    mems: *const cl_mem,
    flags: cl_mem_migration_flags,
    ne: cl_uint,
    l: *const cl_event,
    e: *mut cl_event,
) -> cl_int {
    code(|| {
        let queue = queue_arc(q)?;
        // "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is
        // NULL or if flags is not 0 or is not any of the values described
        // in the table above."
        if n == 0 || mems.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let mut objs = Vec::with_capacity(n as usize);
        for i in 0..n as usize {
            // SAFETY: n handles from the application.
            let m = mem_arc(unsafe { *mems.add(i) })?;
            if !Arc::ptr_eq(&m.context, &queue.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            objs.push(m);
        }
        // "CL_INVALID_CONTEXT if context associated with command_queue and
        // events in event_wait_list are not the same."
        // SAFETY: pointers from the application.
        let waits = unsafe { wait_list_in(ne, l, &queue.context) }?;
        // Moves the contents to the queue's device in a multi-device
        // context (an ordering point otherwise).
        let ev = transfer::enqueue_migrate(&queue, objs, flags, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(e, ev) };
        Ok(())
    })
}
