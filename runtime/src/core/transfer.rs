//! Buffer transfer commands: read, write, copy, fill. Host data goes
//! through host-visible staging memory; the device-local copy is done by
//! the GPU in queue order.

use std::sync::Arc;

use opencl_sys::*;

use super::error::CLResult;
use super::event::Event;
use super::memory::Mem;
use super::queue::Queue;
use crate::vk::buffer::{Buffer, BufferKind};

/// A host pointer carried to the completer thread. The application
/// guarantees it stays valid until the command completes (spec).
#[derive(Clone, Copy)]
struct HostPtr(usize);

/// clEnqueueWriteBuffer: the data is copied out of `ptr` now (the
/// application may reuse it as soon as the command completes, and we never
/// look at it again after this call).
pub fn enqueue_write(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    data: &[u8],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let vkdev = queue.device.vk()?;
    let staging = Arc::new(Buffer::new(&vkdev, data.len() as u64, BufferKind::Upload)?);
    let p = staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    // SAFETY: mapped, large enough, not in use yet.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
    let dst = mem.clone();
    let len = data.len() as u64;
    let s2 = staging.clone();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_buffer(s2.raw, 0, dst.storage.raw, (dst.offset + offset) as u64, len);
        Ok(())
    });
    let m2 = mem.clone();
    let hold = Box::new(move || drop((staging, m2)));
    Ok(queue.submit(CL_COMMAND_WRITE_BUFFER, wait_list, Some(record), Some(hold)))
}

/// clEnqueueReadBuffer: device → staging on the GPU, staging → `ptr` on the
/// completer thread before the event completes.
pub fn enqueue_read(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    size: usize,
    ptr: *mut u8,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let vkdev = queue.device.vk()?;
    let staging = Arc::new(Buffer::new(&vkdev, size as u64, BufferKind::Readback)?);
    let src = mem.clone();
    let s2 = staging.clone();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_buffer(src.storage.raw, (src.offset + offset) as u64, s2.raw, 0, size as u64);
        Ok(())
    });
    let dst = HostPtr(ptr as usize);
    let m2 = mem.clone();
    let host = Box::new(move || {
        let _keep = &m2;
        if let Some(p) = staging.mapped() {
            let d = dst;
            // SAFETY: the device finished writing staging (host barrier at
            // the end of the submission); the application keeps ptr valid
            // for `size` bytes until the event completes.
            unsafe { std::ptr::copy_nonoverlapping(p, d.0 as *mut u8, size) };
        }
    });
    Ok(queue.submit(CL_COMMAND_READ_BUFFER, wait_list, Some(record), Some(host)))
}

/// clEnqueueCopyBuffer.
pub fn enqueue_copy(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let (s, d) = (src.clone(), dst.clone());
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_buffer(
            s.storage.raw,
            (s.offset + src_offset) as u64,
            d.storage.raw,
            (d.offset + dst_offset) as u64,
            size as u64,
        );
        Ok(())
    });
    let (s, d) = (src.clone(), dst.clone());
    let hold = Box::new(move || drop((s, d)));
    Ok(queue.submit(CL_COMMAND_COPY_BUFFER, wait_list, Some(record), Some(hold)))
}

/// clEnqueueFillBuffer: the pattern is expanded on the host into staging
/// memory for the whole region, then copied (any pattern size, any offset).
pub fn enqueue_fill(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    pattern: &[u8],
    offset: usize,
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let data: Vec<u8> = pattern.iter().copied().cycle().take(size).collect();
    let e = enqueue_write(queue, mem, offset, &data, wait_list)?;
    Ok(e)
}

/// clEnqueueMarkerWithWaitList / barrier: completes when everything before
/// it (and its wait list) has.
pub fn enqueue_marker(queue: &Arc<Queue>, command_type: cl_command_type, wait_list: Vec<Arc<Event>>) -> Arc<Event> {
    queue.submit(command_type, wait_list, None, None)
}
