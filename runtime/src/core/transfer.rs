//! Buffer transfer commands: read, write, copy, fill. Host data goes
//! through host-visible staging memory; the device-local copy is done by
//! the GPU in queue order. Also the map memory of buffer maps, markers and
//! migrations.
//!
//! Layer: transfers, on top: uses queues and events to enqueue, memory
//! objects, and their residency on the queue's device
//! (`super::residency`). Image transfers are `super::image_transfer`.

use std::sync::Arc;

use opencl_sys::*;

use super::error::CLResult;
use super::event::Event;
use super::memory::{MapMemory, Mem};
use super::queue::{Part, Queue};
use super::residency::resident;
use crate::vk::buffer::{BufferKind, Staging};

/// A host pointer carried to the completer thread. The application
/// guarantees it stays valid until the command completes (spec).
#[derive(Clone, Copy)]
struct HostPtr(usize);

/// Size of one chunk of a streamed transfer: 32 MiB, or
/// `FERROCL_STREAM_CHUNK` bytes (tests use small chunks).
fn stream_chunk() -> usize {
    static CHUNK: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CHUNK.get_or_init(|| {
        std::env::var("FERROCL_STREAM_CHUNK")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&c: &usize| c >= 4096)
            .unwrap_or(32 << 20)
    })
}

/// Transfers larger than this stream through a few staging chunks.
fn stream_from() -> usize {
    4 * stream_chunk()
}

/// Chunks of staging memory one streamed transfer holds at a time.
const STREAM_SLOTS: usize = 4;

/// The staging chunks of one streamed transfer: handed to a part on the
/// submitter thread (waiting while all are in flight), back when the
/// part's device work (and host copy) is done. Memory stays bounded
/// however large the transfer, and the host copy of one chunk overlaps the
/// DMA of the next.
struct Ring {
    device: Arc<crate::vk::device::Device>,
    kind: BufferKind,
    state: parking_lot::Mutex<(Vec<Staging>, usize)>,
    cv: parking_lot::Condvar,
}

/// A chunk taken from a [`Ring`]; goes back to it when dropped (also when
/// the part fails), so a part waiting for a chunk is never stranded.
struct Slot {
    ring: Arc<Ring>,
    staging: Option<Staging>,
}

impl Slot {
    fn buffer(&self) -> &Staging {
        self.staging
            .as_ref()
            .expect("a slot holds its chunk until dropped")
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(s) = self.staging.take() {
            self.ring.state.lock().0.push(s);
            self.ring.cv.notify_one();
        }
    }
}

impl Ring {
    fn new(queue: &Queue, kind: BufferKind) -> CLResult<Arc<Ring>> {
        Ok(Arc::new(Ring {
            device: queue.device.vk()?,
            kind,
            state: parking_lot::Mutex::new((Vec::new(), 0)),
            cv: parking_lot::Condvar::new(),
        }))
    }

    fn take(self: &Arc<Self>) -> CLResult<Slot> {
        let mut st = self.state.lock();
        loop {
            if let Some(s) = st.0.pop() {
                return Ok(Slot {
                    ring: self.clone(),
                    staging: Some(s),
                });
            }
            if st.1 < STREAM_SLOTS {
                st.1 += 1;
                drop(st);
                let s = self.device.staging(stream_chunk() as u64, self.kind)?;
                return Ok(Slot {
                    ring: self.clone(),
                    staging: Some(s),
                });
            }
            self.cv.wait(&mut st);
        }
    }
}

/// The chunks of `size` bytes: (offset, length).
fn chunks(size: usize) -> impl Iterator<Item = (usize, usize)> {
    let chunk = stream_chunk();
    (0..size)
        .step_by(chunk)
        .map(move |o| (o, chunk.min(size - o)))
}

/// A slot shared by one part's prepare, record and host closures.
type SlotCell = Arc<parking_lot::Mutex<Option<Slot>>>;

/// clEnqueueWriteBuffer from application memory that stays valid until the
/// command completes (the spec's rule for `ptr`): small writes copy it into
/// staging now ([`enqueue_write`]); large ones stream it through a few
/// staging chunks, each filled on the submitter thread when its turn comes.
///
/// # Safety
/// `ptr` must be readable for `size` bytes until the returned event completes.
pub unsafe fn enqueue_write_from(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    ptr: *const u8,
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    // SAFETY: caller contract.
    unsafe {
        enqueue_write_from_as(
            queue,
            mem,
            offset,
            ptr,
            size,
            CL_COMMAND_WRITE_BUFFER,
            wait_list,
        )
    }
}

/// [`enqueue_write_from`] reported as `command_type` (SVM memcpy).
///
/// # Safety
/// `ptr` must be readable for `size` bytes until the returned event completes.
pub unsafe fn enqueue_write_from_as(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    ptr: *const u8,
    size: usize,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    if size <= stream_from() {
        // SAFETY: caller contract.
        let data = unsafe { std::slice::from_raw_parts(ptr, size) };
        return enqueue_write_as(queue, mem, offset, data, command_type, wait_list);
    }
    let ring = Ring::new(queue, BufferKind::Upload)?;
    let raw = mem.buffer_on(queue.device_index)?.raw;
    let src = HostPtr(ptr as usize);
    let parts = chunks(size)
        .map(|(o, n)| {
            let cell = SlotCell::default();
            let (ring, c1, c2, c3) = (ring.clone(), cell.clone(), cell.clone(), cell);
            let dst = mem.clone();
            let record: crate::vk::queue::RecordFn =
                Box::new(move |r: &crate::vk::queue::Recorder| {
                    let cell = c2.lock();
                    let slot = cell.as_ref().ok_or(CL_OUT_OF_RESOURCES)?;
                    r.copy_buffer(
                        slot.buffer().raw,
                        0,
                        raw,
                        (dst.offset + offset + o) as u64,
                        n as u64,
                    );
                    Ok(())
                });
            // The first part makes the buffer current on this device; the
            // others follow it in queue order.
            let record = if o == 0 {
                resident(queue, &[(mem, true)], record)
            } else {
                record
            };
            Part {
                prepare: Box::new(move || {
                    let slot = ring.take()?;
                    let p = slot.buffer().mapped().ok_or(CL_OUT_OF_RESOURCES)?;
                    let s = src;
                    // SAFETY: the caller keeps `ptr` valid for `size` bytes
                    // until the command completes; the chunk is ours.
                    unsafe { super::hostcopy::copy((s.0 + o) as *const u8, p, n) };
                    *c1.lock() = Some(slot);
                    Ok(())
                }),
                record,
                // The chunk goes back once the copy is done.
                host: Some(Box::new(move || drop(c3.lock().take()))),
            }
        })
        .collect();
    Ok(queue.submit_parts(command_type, wait_list, parts))
}

/// [`enqueue_read_as`] for large reads: streamed through a few staging
/// chunks, each copied to `ptr` on the completer thread while the next
/// one's DMA runs.
fn enqueue_read_streamed(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    size: usize,
    ptr: *mut u8,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let ring = Ring::new(queue, BufferKind::Readback)?;
    let raw = mem.buffer_on(queue.device_index)?.raw;
    let dst = HostPtr(ptr as usize);
    let parts = chunks(size)
        .map(|(o, n)| {
            let cell = SlotCell::default();
            let (ring, c1, c2, c3) = (ring.clone(), cell.clone(), cell.clone(), cell);
            let src = mem.clone();
            let record: crate::vk::queue::RecordFn =
                Box::new(move |r: &crate::vk::queue::Recorder| {
                    let cell = c2.lock();
                    let slot = cell.as_ref().ok_or(CL_OUT_OF_RESOURCES)?;
                    r.copy_buffer(
                        raw,
                        (src.offset + offset + o) as u64,
                        slot.buffer().raw,
                        0,
                        n as u64,
                    );
                    Ok(())
                });
            let record = if o == 0 {
                resident(queue, &[(mem, false)], record)
            } else {
                record
            };
            Part {
                prepare: Box::new(move || {
                    *c1.lock() = Some(ring.take()?);
                    Ok(())
                }),
                record,
                host: Some(Box::new(move || {
                    if let Some(slot) = c3.lock().take() {
                        if let Some(p) = slot.buffer().mapped() {
                            let d = dst;
                            // SAFETY: the device finished writing the chunk;
                            // the application keeps ptr valid for `size`
                            // bytes until the event completes.
                            unsafe { super::hostcopy::copy(p, (d.0 + o) as *mut u8, n) };
                        }
                    }
                })),
            }
        })
        .collect();
    Ok(queue.submit_parts(command_type, wait_list, parts))
}

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
    enqueue_write_as(queue, mem, offset, data, CL_COMMAND_WRITE_BUFFER, wait_list)
}

/// [`enqueue_write`] reported as `command_type` (fill, unmap).
pub fn enqueue_write_as(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    data: &[u8],
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let vkdev = queue.device.vk()?;
    let raw = mem.buffer_on(queue.device_index)?.raw;
    let staging = Arc::new(vkdev.staging(data.len() as u64, BufferKind::Upload)?);
    let p = staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    // SAFETY: mapped, large enough, not in use yet.
    unsafe { super::hostcopy::copy(data.as_ptr(), p, data.len()) };
    let dst = mem.clone();
    let len = data.len() as u64;
    let s2 = staging.clone();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_buffer(s2.raw, 0, raw, (dst.offset + offset) as u64, len);
        Ok(())
    });
    let record = resident(queue, &[(mem, true)], record);
    let m2 = mem.clone();
    let hold = Box::new(move || drop((staging, m2)));
    Ok(queue.submit(command_type, wait_list, Some(record), Some(hold)))
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
    enqueue_read_as(
        queue,
        mem,
        offset,
        size,
        ptr,
        CL_COMMAND_READ_BUFFER,
        wait_list,
    )
}

/// [`enqueue_read`] reported as `command_type` (a map of USE_HOST_PTR
/// memory reads into the application's memory).
pub fn enqueue_read_as(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    size: usize,
    ptr: *mut u8,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    if size > stream_from() {
        return enqueue_read_streamed(queue, mem, offset, size, ptr, command_type, wait_list);
    }
    let vkdev = queue.device.vk()?;
    let raw = mem.buffer_on(queue.device_index)?.raw;
    let staging = Arc::new(vkdev.staging(size as u64, BufferKind::Readback)?);
    let src = mem.clone();
    let s2 = staging.clone();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_buffer(raw, (src.offset + offset) as u64, s2.raw, 0, size as u64);
        Ok(())
    });
    let record = resident(queue, &[(mem, false)], record);
    let dst = HostPtr(ptr as usize);
    let m2 = mem.clone();
    let host = Box::new(move || {
        let _keep = &m2;
        if let Some(p) = staging.mapped() {
            let d = dst;
            // SAFETY: the device finished writing staging (host barrier at
            // the end of the submission); the application keeps ptr valid
            // for `size` bytes until the event completes.
            unsafe { super::hostcopy::copy(p, d.0 as *mut u8, size) };
        }
    });
    Ok(queue.submit(command_type, wait_list, Some(record), Some(host)))
}

/// Host-visible memory for a map of `size` bytes at `offset` of `mem`
/// with `flags`. A map for reading of an ALLOC_HOST_PTR buffer points into
/// its mirror (no allocation, no first-touch cost); other maps into
/// staging: cached system memory when the host reads it, write-combined
/// upload memory (device-local where the device has ReBAR) when it only
/// writes, so the unmap's copy stays on the device (also for
/// ALLOC_HOST_PTR buffers: their mirror is system memory).
pub fn map_memory(
    queue: &Arc<Queue>,
    mem: &Mem,
    offset: usize,
    size: usize,
    flags: cl_map_flags,
) -> CLResult<MapMemory> {
    let vkdev = queue.device.vk()?;
    // The mirror is memory of the context's first device: other devices
    // map through their own staging.
    let mirror = mem
        .mirror()
        .filter(|m| flags & CL_MAP_READ != 0 && Arc::ptr_eq(&m.device, &vkdev));
    if let Some(mirror) = mirror {
        let at = mem.offset + offset;
        let base = mirror.mapped().ok_or(CL_OUT_OF_RESOURCES)? as usize;
        return Ok(MapMemory::in_buffer(
            vkdev,
            mirror.raw,
            at as u64,
            base + at,
            mirror,
        ));
    }
    let kind = if flags & CL_MAP_READ != 0 {
        BufferKind::Readback
    } else {
        BufferKind::Upload
    };
    MapMemory::staging(Arc::new(vkdev.staging(size as u64, kind)?))
}

/// One side of a device copy: a Vulkan buffer and a byte offset in it.
type Side = (ash::vk::Buffer, u64);

/// A device-side copy of `size` bytes from `src` to `dst`, reported as
/// `command_type`; `hold` keeps both buffers alive until it completes.
#[allow(clippy::too_many_arguments)]
fn enqueue_device_copy(
    queue: &Arc<Queue>,
    command_type: cl_command_type,
    src: Side,
    dst: Side,
    size: usize,
    uses: &[(&Arc<Mem>, bool)],
    hold: Box<dyn Send>,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_buffer(src.0, src.1, dst.0, dst.1, size as u64);
        Ok(())
    });
    let record = resident(queue, uses, record);
    queue.submit(
        command_type,
        wait_list,
        Some(record),
        Some(Box::new(move || drop(hold))),
    )
}

/// Where byte `offset` of `mem` lives on `queue`'s device.
fn side_of(queue: &Queue, mem: &Mem, offset: usize) -> CLResult<Side> {
    Ok((
        mem.buffer_on(queue.device_index)?.raw,
        (mem.offset + offset) as u64,
    ))
}

/// The map's read: a device-to-map-memory copy with no host copy after it
/// (the application gets a pointer into that memory itself).
pub fn enqueue_read_to_map(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    size: usize,
    target: &Arc<MapMemory>,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    Ok(enqueue_device_copy(
        queue,
        command_type,
        side_of(queue, mem, offset)?,
        target.side(),
        size,
        &[(mem, false)],
        Box::new((mem.clone(), target.clone())),
        wait_list,
    ))
}

/// The unmap's write after a write map: map memory to the device.
pub fn enqueue_write_from_map(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    offset: usize,
    size: usize,
    source: Arc<MapMemory>,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    Ok(enqueue_device_copy(
        queue,
        CL_COMMAND_UNMAP_MEM_OBJECT,
        source.side(),
        side_of(queue, mem, offset)?,
        size,
        &[(mem, true)],
        Box::new((mem.clone(), source)),
        wait_list,
    ))
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
    enqueue_copy_as(
        queue,
        src,
        dst,
        src_offset,
        dst_offset,
        size,
        CL_COMMAND_COPY_BUFFER,
        wait_list,
    )
}

/// [`enqueue_copy`] reported as `command_type` (SVM memcpy).
#[allow(clippy::too_many_arguments)]
pub fn enqueue_copy_as(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    Ok(enqueue_device_copy(
        queue,
        command_type,
        side_of(queue, src, src_offset)?,
        side_of(queue, dst, dst_offset)?,
        size,
        &[(src, false), (dst, true)],
        Box::new((src.clone(), dst.clone())),
        wait_list,
    ))
}

/// clEnqueueFillBuffer: the pattern is expanded on the host into one
/// staging chunk of at most [`FILL_CHUNK`] bytes (any pattern size, any
/// offset), which the device copies over the region chunk by chunk: a fill
/// of a buffer of many GiB takes 4 MiB of staging, not its size.
pub fn enqueue_fill(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    pattern: &[u8],
    offset: usize,
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    enqueue_fill_as(
        queue,
        mem,
        pattern,
        offset,
        size,
        CL_COMMAND_FILL_BUFFER,
        wait_list,
    )
}

/// Bytes of the staging chunk a fill repeats: a multiple of every pattern
/// size OpenCL allows (powers of two up to 128).
const FILL_CHUNK: usize = 4 << 20;

/// [`enqueue_fill`] reported as `command_type` (SVM fill). `size` is a
/// multiple of `pattern.len()`.
pub fn enqueue_fill_as(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    pattern: &[u8],
    offset: usize,
    size: usize,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let chunk = size.min(FILL_CHUNK);
    let data: Vec<u8> = pattern.iter().copied().cycle().take(chunk).collect();
    if chunk == size {
        return enqueue_write_as(queue, mem, offset, &data, command_type, wait_list);
    }
    let vkdev = queue.device.vk()?;
    let raw = mem.buffer_on(queue.device_index)?.raw;
    let staging = Arc::new(vkdev.staging(chunk as u64, BufferKind::Upload)?);
    let p = staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    // SAFETY: mapped, at least `chunk` bytes, not in use yet.
    unsafe { super::hostcopy::copy(data.as_ptr(), p, chunk) };
    let dst = mem.clone();
    let s2 = staging.clone();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        let base = dst.offset + offset;
        for o in (0..size).step_by(chunk) {
            let n = chunk.min(size - o);
            r.copy_buffer(s2.raw, 0, raw, (base + o) as u64, n as u64);
        }
        Ok(())
    });
    let record = resident(queue, &[(mem, true)], record);
    let m2 = mem.clone();
    let hold = Box::new(move || drop((staging, m2)));
    Ok(queue.submit(command_type, wait_list, Some(record), Some(hold)))
}

/// clEnqueueMigrateMemObjects: once the wait list is satisfied, each of
/// `mems` becomes current on the queue's device (copied from where it is
/// current, `super::residency`), or with
/// CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED is only declared to be there,
/// nothing copied. CL_MIGRATE_MEM_OBJECT_HOST, and every migration in a
/// single-device context, is an ordering point only: the host reaches
/// memory objects through staging in any case.
pub fn enqueue_migrate(
    queue: &Arc<Queue>,
    mems: Vec<Arc<Mem>>,
    flags: cl_mem_migration_flags,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let ty = CL_COMMAND_MIGRATE_MEM_OBJECTS;
    if flags & CL_MIGRATE_MEM_OBJECT_HOST != 0 || !mems.iter().any(|m| m.migrates()) {
        return Ok(queue.submit(ty, wait_list, None, None));
    }
    let dev = queue.device_index;
    for m in &mems {
        m.ensure_on(dev)?;
    }
    let undefined = flags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED != 0;
    let list = mems.clone();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        for m in &list {
            if undefined {
                m.discard_to(dev);
            } else {
                m.make_current(dev, false, r)?;
            }
        }
        Ok(())
    });
    let hold = Box::new(move || drop(mems));
    Ok(queue.submit(ty, wait_list, Some(record), Some(hold)))
}

/// clEnqueueMarkerWithWaitList / barrier: completes when everything before
/// it (and its wait list) has.
/// The map or unmap of a buffer whose storage on `queue`'s device is the
/// mapped memory itself (imported USE_HOST_PTR memory): nothing to copy,
/// a marker in queue order. In a context with several devices a map first
/// makes this device hold the current contents (`write`: the host may
/// write them, so afterwards only this device does).
pub fn enqueue_in_place(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    write: bool,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    let record = mem.root().migrates().then(|| {
        let nothing: crate::vk::queue::RecordFn = Box::new(|_: &crate::vk::queue::Recorder| Ok(()));
        resident(queue, &[(mem, write)], nothing)
    });
    let m2 = mem.clone();
    queue.submit(
        command_type,
        wait_list,
        record,
        Some(Box::new(move || drop(m2))),
    )
}

pub fn enqueue_marker(
    queue: &Arc<Queue>,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    queue.submit(command_type, wait_list, None, None)
}

/// The geometry of one side of a rectangular copy (clEnqueue*BufferRect),
/// pitches already defaulted per the spec.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    /// Byte offset of row (y, z) of the region.
    pub fn row_offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }

    /// One past the last byte the region touches, or `None` when that is
    /// past the address space (no memory holds such a rectangle). Every
    /// [`Rect::row_offset`] of the region is below it, so a rectangle with
    /// an end computes its rows without overflow.
    pub fn end(&self, region: &[usize; 3]) -> Option<usize> {
        let z = self.origin[2].checked_add(region[2].checked_sub(1)?)?;
        let y = self.origin[1].checked_add(region[1].checked_sub(1)?)?;
        z.checked_mul(self.slice_pitch)?
            .checked_add(y.checked_mul(self.row_pitch)?)?
            .checked_add(self.origin[0])?
            .checked_add(region[0])
    }
}

/// Whether two rectangles of one buffer share a byte: exact, row by row.
/// The rows of a rectangle are disjoint byte ranges in increasing order
/// (slice pitch >= rows x row pitch), so each row of `a` is looked up among
/// the rows of `b` by binary search: O(rows log rows).
pub fn rects_overlap(a: &Rect, b: &Rect, region: &[usize; 3]) -> bool {
    let w = region[0];
    let b_rows: Vec<usize> = rows(region).map(|(y, z)| b.row_offset(y, z)).collect();
    rows(region).any(|(y, z)| {
        let start = a.row_offset(y, z);
        // The last row of `b` starting before this row ends.
        let i = b_rows.partition_point(|&r| r < start + w);
        i > 0 && b_rows[i - 1] + w > start
    })
}

fn rows(region: &[usize; 3]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..region[2]).flat_map(move |z| (0..region[1]).map(move |y| (y, z)))
}

/// clEnqueueReadBufferRect: rows gathered into packed staging by the GPU,
/// scattered to the host rectangle on completion.
pub fn enqueue_read_rect(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    buf: Rect,
    host: Rect,
    region: [usize; 3],
    ptr: *mut u8,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let vkdev = queue.device.vk()?;
    let w = region[0];
    let total = w * region[1] * region[2];
    let staging = Arc::new(vkdev.staging(total as u64, BufferKind::Readback)?);
    let copies: Vec<ash::vk::BufferCopy> = rows(&region)
        .enumerate()
        .map(|(i, (y, z))| ash::vk::BufferCopy {
            src_offset: (mem.offset + buf.row_offset(y, z)) as u64,
            dst_offset: (i * w) as u64,
            size: w as u64,
        })
        .collect();
    let (raw, s2) = (mem.buffer_on(queue.device_index)?.raw, staging.clone());
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_regions(raw, s2.raw, &copies);
        Ok(())
    });
    let record = resident(queue, &[(mem, false)], record);
    let dst = HostPtr(ptr as usize);
    let m2 = mem.clone();
    let host_fn = Box::new(move || {
        let _keep = &m2;
        let d = dst;
        if let Some(p) = staging.mapped() {
            for (i, (y, z)) in rows(&region).enumerate() {
                // SAFETY: staging holds `total` bytes written by the device;
                // the application keeps its rectangle valid until completion.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        p.add(i * w),
                        (d.0 as *mut u8).add(host.row_offset(y, z)),
                        w,
                    )
                };
            }
        }
    });
    Ok(queue.submit(
        CL_COMMAND_READ_BUFFER_RECT,
        wait_list,
        Some(record),
        Some(host_fn),
    ))
}

/// clEnqueueWriteBufferRect: the host rectangle is packed into staging now.
///
/// # Safety
/// `ptr` with `host`'s pitches must cover `region` readable bytes.
pub unsafe fn enqueue_write_rect(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    buf: Rect,
    host: Rect,
    region: [usize; 3],
    ptr: *const u8,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let vkdev = queue.device.vk()?;
    let w = region[0];
    let total = w * region[1] * region[2];
    let staging = Arc::new(vkdev.staging(total as u64, BufferKind::Upload)?);
    let p = staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    let mut copies = Vec::new();
    for (i, (y, z)) in rows(&region).enumerate() {
        // SAFETY: caller contract for ptr; staging has `total` bytes.
        unsafe { std::ptr::copy_nonoverlapping(ptr.add(host.row_offset(y, z)), p.add(i * w), w) };
        copies.push(ash::vk::BufferCopy {
            src_offset: (i * w) as u64,
            dst_offset: (mem.offset + buf.row_offset(y, z)) as u64,
            size: w as u64,
        });
    }
    let (raw, s2) = (mem.buffer_on(queue.device_index)?.raw, staging.clone());
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_regions(s2.raw, raw, &copies);
        Ok(())
    });
    let record = resident(queue, &[(mem, true)], record);
    let m2 = mem.clone();
    let hold = Box::new(move || drop((staging, m2)));
    Ok(queue.submit(
        CL_COMMAND_WRITE_BUFFER_RECT,
        wait_list,
        Some(record),
        Some(hold),
    ))
}

/// clEnqueueCopyBufferRect.
pub fn enqueue_copy_rect(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    s: Rect,
    d: Rect,
    region: [usize; 3],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let copies: Vec<ash::vk::BufferCopy> = rows(&region)
        .map(|(y, z)| ash::vk::BufferCopy {
            src_offset: (src.offset + s.row_offset(y, z)) as u64,
            dst_offset: (dst.offset + d.row_offset(y, z)) as u64,
            size: region[0] as u64,
        })
        .collect();
    let dev = queue.device_index;
    let (a, b) = (src.buffer_on(dev)?.raw, dst.buffer_on(dev)?.raw);
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.copy_regions(a, b, &copies);
        Ok(())
    });
    let record = resident(queue, &[(src, false), (dst, true)], record);
    let (a, b) = (src.clone(), dst.clone());
    let hold = Box::new(move || drop((a, b)));
    Ok(queue.submit(
        CL_COMMAND_COPY_BUFFER_RECT,
        wait_list,
        Some(record),
        Some(hold),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(origin: [usize; 3], row: usize, slice: usize) -> Rect {
        Rect {
            origin,
            row_pitch: row,
            slice_pitch: slice,
        }
    }

    #[test]
    fn interleaved_rectangles_do_not_overlap() {
        // Two 4-byte-wide columns side by side in 16-byte rows.
        let region = [4, 8, 2];
        let a = rect([0, 0, 0], 16, 128);
        let b = rect([8, 0, 0], 16, 128);
        assert!(!rects_overlap(&a, &b, &region));
        assert!(!rects_overlap(&b, &a, &region));
    }

    #[test]
    fn touching_and_shared_bytes() {
        let region = [4, 2, 1];
        let a = rect([0, 0, 0], 16, 32);
        // Starts right where a's first row ends: no shared byte.
        assert!(!rects_overlap(&a, &rect([4, 0, 0], 16, 32), &region));
        // One byte shared.
        assert!(rects_overlap(&a, &rect([3, 0, 0], 16, 32), &region));
        // Shifted by one row: a's second row is b's first.
        assert!(rects_overlap(&a, &rect([0, 1, 0], 16, 32), &region));
    }
}
