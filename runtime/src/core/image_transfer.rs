//! Image host commands: read, write, fill, copies between images and to
//! and from buffers, map and unmap. Host data moves through tightly packed
//! staging memory (the application's pitches are applied by the host
//! copy); device-side copies are recorded as vkCmdCopy* between the two
//! ends (`End`), through an aligned bounce buffer where Vulkan needs one.
//!
//! Layer: transfers, on top: uses queues and events to enqueue, memory
//! objects and their residency (`super::residency::resident`, storage on
//! the queue's device) and the region geometry of `super::image_geometry`.

use std::sync::Arc;

use ash::vk;
use opencl_sys::*;

use super::error::CLResult;
use super::event::Event;
use super::image_geometry::{
    buffer_image_copy, image_copies, pack_rows, tight_size, unpack_rows, ImageDesc, MappedRegion,
    Origin,
};
use super::memory::{ImagePart, MapMemory, Mem};
use super::queue::{HostFn, Queue};
use super::residency::resident;
use super::transfer::enqueue_marker;
use crate::vk::buffer::{BufferKind, Staging};
use crate::vk::queue::Recorder;

/// One end of a copy: an image region, or tightly packed bytes in a buffer.
#[derive(Clone, Copy)]
enum End {
    Image {
        raw: vk::Image,
        image_type: cl_mem_object_type,
        origin: Origin,
    },
    Buffer {
        raw: vk::Buffer,
        offset: u64,
    },
    /// Rows `pitch` bytes apart in a buffer: a 2D image made from a buffer
    /// (cl_khr_image2d_from_buffer), from the region's first texel.
    Pitched {
        raw: vk::Buffer,
        offset: u64,
        pitch: u64,
    },
}

impl End {
    /// A buffer end's (buffer, offset, bytes between rows) for rows of
    /// `row` bytes; `None` for an image.
    fn rows(self, row: u64) -> Option<(vk::Buffer, u64, u64)> {
        match self {
            End::Buffer { raw, offset } => Some((raw, offset, row)),
            End::Pitched { raw, offset, pitch } => Some((raw, offset, pitch)),
            End::Image { .. } => None,
        }
    }
}

/// Copies `rows` rows of `row` bytes between two buffers, each row at its
/// end's pitch (one copy when both are tightly packed).
fn copy_rows(
    r: &Recorder,
    src: (vk::Buffer, u64, u64),
    dst: (vk::Buffer, u64, u64),
    row: u64,
    rows: u64,
) {
    if src.2 == row && dst.2 == row {
        r.copy_buffer(src.0, src.1, dst.0, dst.1, row * rows);
        return;
    }
    for k in 0..rows {
        r.copy_buffer(src.0, src.1 + k * src.2, dst.0, dst.1 + k * dst.2, row);
    }
}

/// The copy end for `origin` of `mem` on `queue`'s device: its VkImage,
/// or for a 1D image buffer (and a buffer) the bytes at `origin[0]`
/// elements (bytes).
fn end_of(queue: &Queue, mem: &Mem, at: Origin) -> CLResult<End> {
    let origin = at.pos;
    let dev = queue.device_index;
    let part = if mem.image.is_some() {
        Some(mem.image_on(dev)?)
    } else {
        None
    };
    match part.and_then(ImagePart::vk_image) {
        Some(i) => Ok(End::Image {
            raw: i.raw,
            image_type: mem.mem_type,
            origin: at,
        }),
        // A 2D image made from a buffer: its rows at the row pitch.
        None if mem.mem_type == CL_MEM_OBJECT_IMAGE2D => {
            let img = mem.image()?;
            let pitch = img.desc.row_pitch;
            Ok(End::Pitched {
                raw: mem.buffer_on(dev)?.raw,
                offset: (mem.offset + origin[1] * pitch + origin[0] * img.element_size()) as u64,
                pitch: pitch as u64,
            })
        }
        None => {
            let element = mem.image.as_ref().map_or(1, ImagePart::element_size);
            Ok(End::Buffer {
                raw: mem.buffer_on(dev)?.raw,
                offset: (mem.offset + origin[0] * element) as u64,
            })
        }
    }
}

/// A recorded copy of `region` (texels of `element` bytes) between two
/// ends. Buffer offsets Vulkan cannot copy images from (not a multiple of
/// the texel size, or of 4 on queues without graphics) go through
/// `bounce`, an aligned buffer of the region's size.
struct Copy {
    src: End,
    dst: End,
    region: [usize; 3],
    element: usize,
    bounce: Option<Arc<Staging>>,
}

/// Whether Vulkan copies between images and buffers at this offset.
fn image_copy_aligned(offset: u64, element: usize) -> bool {
    offset.is_multiple_of(element.max(4) as u64) && offset.is_multiple_of(element as u64)
}

impl Copy {
    fn new(
        queue: &Queue,
        src: End,
        dst: End,
        region: [usize; 3],
        element: usize,
    ) -> CLResult<Copy> {
        let misaligned = match (src, dst) {
            (End::Buffer { offset, .. } | End::Pitched { offset, .. }, End::Image { .. })
            | (End::Image { .. }, End::Buffer { offset, .. } | End::Pitched { offset, .. }) => {
                !image_copy_aligned(offset, element)
            }
            _ => false,
        };
        let bounce = if misaligned {
            let size = tight_size(&region, element) as u64;
            Some(Arc::new(
                queue.device.vk()?.staging(size, BufferKind::Upload)?,
            ))
        } else {
            None
        };
        Ok(Copy {
            src,
            dst,
            region,
            element,
            bounce,
        })
    }

    fn record(&self, r: &Recorder) {
        let region = self.region;
        let bytes = tight_size(&region, self.element) as u64;
        let row = (region[0] * self.element) as u64;
        let rows = (region[1] * region[2]) as u64;
        // Rows `row_length` texels apart in a buffer → an image copy.
        let pitched = |c: vk::BufferImageCopy, pitch: u64| vk::BufferImageCopy {
            buffer_row_length: (pitch / self.element as u64) as u32,
            ..c
        };
        match (self.src, self.dst) {
            (s @ End::Pitched { .. }, d @ (End::Buffer { .. } | End::Pitched { .. }))
            | (s @ End::Buffer { .. }, d @ End::Pitched { .. }) => {
                copy_rows(r, s.rows(row).unwrap(), d.rows(row).unwrap(), row, rows)
            }
            (
                End::Pitched {
                    raw: s,
                    offset: so,
                    pitch,
                },
                End::Image {
                    raw,
                    image_type,
                    origin,
                },
            ) => match &self.bounce {
                Some(b) => {
                    copy_rows(r, (s, so, pitch), (b.raw, 0, row), row, rows);
                    r.barrier();
                    let c = buffer_image_copy(image_type, 0, origin, region);
                    r.copy_buffer_to_image(b.raw, raw, &[c]);
                }
                None => {
                    let c = buffer_image_copy(image_type, so, origin, region);
                    r.copy_buffer_to_image(s, raw, &[pitched(c, pitch)]);
                }
            },
            (
                End::Image {
                    raw,
                    image_type,
                    origin,
                },
                End::Pitched {
                    raw: d,
                    offset: dof,
                    pitch,
                },
            ) => match &self.bounce {
                Some(b) => {
                    let c = buffer_image_copy(image_type, 0, origin, region);
                    r.copy_image_to_buffer(raw, b.raw, &[c]);
                    r.barrier();
                    copy_rows(r, (b.raw, 0, row), (d, dof, pitch), row, rows);
                }
                None => {
                    let c = buffer_image_copy(image_type, dof, origin, region);
                    r.copy_image_to_buffer(raw, d, &[pitched(c, pitch)]);
                }
            },
            (
                End::Buffer { raw: s, offset: so },
                End::Buffer {
                    raw: d,
                    offset: dof,
                },
            ) => r.copy_buffer(s, so, d, dof, bytes),
            (
                End::Buffer { raw: s, offset: so },
                End::Image {
                    raw,
                    image_type,
                    origin,
                },
            ) => match &self.bounce {
                Some(b) => {
                    r.copy_buffer(s, so, b.raw, 0, bytes);
                    r.barrier();
                    let c = buffer_image_copy(image_type, 0, origin, region);
                    r.copy_buffer_to_image(b.raw, raw, &[c]);
                }
                None => {
                    let c = buffer_image_copy(image_type, so, origin, region);
                    r.copy_buffer_to_image(s, raw, &[c]);
                }
            },
            (
                End::Image {
                    raw,
                    image_type,
                    origin,
                },
                End::Buffer {
                    raw: d,
                    offset: dof,
                },
            ) => match &self.bounce {
                Some(b) => {
                    let c = buffer_image_copy(image_type, 0, origin, region);
                    r.copy_image_to_buffer(raw, b.raw, &[c]);
                    r.barrier();
                    r.copy_buffer(b.raw, 0, d, dof, bytes);
                }
                None => {
                    let c = buffer_image_copy(image_type, dof, origin, region);
                    r.copy_image_to_buffer(raw, d, &[c]);
                }
            },
            (
                End::Image {
                    raw: s,
                    image_type: st,
                    origin: so,
                },
                End::Image {
                    raw: d,
                    image_type: dt,
                    origin: dor,
                },
            ) => r.copy_image(s, d, &image_copies(st, so, dt, dor, region)),
        }
    }
}

/// Enqueues `copy` as `command_type`, holding `hold` until it completes;
/// `uses`: the memory objects it reads (false) and writes (true).
#[allow(clippy::too_many_arguments)]
fn submit_copy(
    queue: &Arc<Queue>,
    command_type: cl_command_type,
    copy: Copy,
    uses: &[(&Arc<Mem>, bool)],
    hold: Box<dyn Send>,
    host: Option<HostFn>,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    // The bounce buffer is used by the device until completion.
    let bounce = copy.bounce.clone();
    let record = Box::new(move |r: &Recorder| {
        copy.record(r);
        Ok(())
    });
    let record = resident(queue, uses, record);
    let done = Box::new(move || {
        if let Some(h) = host {
            h();
        }
        drop((hold, bounce));
    });
    queue.submit(command_type, wait_list, Some(record), Some(done))
}

/// A device-side image copy or fill made once and recorded any number of
/// times: a command buffer's image command (`super::command_buffer`). It
/// holds the staging it copies from (a fill's texels) and its bounce
/// buffer (a misaligned image-buffer copy), reused by every replay.
pub struct ReusableCopy {
    copy: Copy,
    _texels: Option<Arc<Staging>>,
}

impl ReusableCopy {
    pub fn record(&self, r: &Recorder) {
        self.copy.record(r);
    }
}

/// clEnqueueCopyImage's (and clCommandCopyImageKHR's) copy.
pub fn copy_image(
    queue: &Queue,
    src: &Mem,
    dst: &Mem,
    src_origin: Origin,
    dst_origin: Origin,
    region: [usize; 3],
) -> CLResult<ReusableCopy> {
    let element = src.image()?.element_size();
    let copy = Copy::new(
        queue,
        end_of(queue, src, src_origin)?,
        end_of(queue, dst, dst_origin)?,
        region,
        element,
    )?;
    Ok(ReusableCopy {
        copy,
        _texels: None,
    })
}

/// clEnqueueCopyImageToBuffer's (and clCommandCopyImageToBufferKHR's)
/// copy: the region, tightly packed, at `offset`.
pub fn copy_image_to_buffer(
    queue: &Queue,
    src: &Mem,
    dst: &Mem,
    origin: Origin,
    region: [usize; 3],
    offset: usize,
) -> CLResult<ReusableCopy> {
    let element = src.image()?.element_size();
    let to = End::Buffer {
        raw: dst.buffer_on(queue.device_index)?.raw,
        offset: (dst.offset + offset) as u64,
    };
    let copy = Copy::new(queue, end_of(queue, src, origin)?, to, region, element)?;
    Ok(ReusableCopy {
        copy,
        _texels: None,
    })
}

/// clEnqueueCopyBufferToImage's (and clCommandCopyBufferToImageKHR's)
/// copy: tightly packed bytes at `offset`.
pub fn copy_buffer_to_image(
    queue: &Queue,
    src: &Mem,
    dst: &Mem,
    offset: usize,
    origin: Origin,
    region: [usize; 3],
) -> CLResult<ReusableCopy> {
    let element = dst.image()?.element_size();
    let from = End::Buffer {
        raw: src.buffer_on(queue.device_index)?.raw,
        offset: (src.offset + offset) as u64,
    };
    let copy = Copy::new(queue, from, end_of(queue, dst, origin)?, region, element)?;
    Ok(ReusableCopy {
        copy,
        _texels: None,
    })
}

/// clCommandFillImageKHR's fill: `texel` (already in the image's format)
/// repeated over the region in staging made now, copied on each replay.
pub fn fill_image(
    queue: &Queue,
    mem: &Mem,
    texel: &[u8],
    origin: Origin,
    region: [usize; 3],
) -> CLResult<ReusableCopy> {
    let element = mem.image()?.element_size();
    let size = tight_size(&region, element);
    let staging = Arc::new(
        queue
            .device
            .vk()?
            .staging(size as u64, BufferKind::Upload)?,
    );
    let p = staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    // SAFETY: staging holds `size` bytes, ours alone until recorded.
    let dst = unsafe { std::slice::from_raw_parts_mut(p, size) };
    for chunk in dst.chunks_exact_mut(element) {
        chunk.copy_from_slice(texel);
    }
    let src = End::Buffer {
        raw: staging.raw,
        offset: 0,
    };
    let copy = Copy::new(queue, src, end_of(queue, mem, origin)?, region, element)?;
    Ok(ReusableCopy {
        copy,
        _texels: Some(staging),
    })
}

/// A host pointer the application keeps valid until the command completes.
#[derive(Clone, Copy)]
struct HostPtr(usize);

/// clEnqueueReadImage (and the read of a map of USE_HOST_PTR memory):
/// image → tight staging on the device, staging → the application's
/// memory with its pitches on the completer thread.
#[allow(clippy::too_many_arguments)]
pub fn enqueue_read_image(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    origin: Origin,
    region: [usize; 3],
    pitches: (usize, usize),
    ptr: *mut u8,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let img = mem.image()?;
    let element = img.element_size();
    let size = tight_size(&region, element);
    let staging = Arc::new(
        queue
            .device
            .vk()?
            .staging(size as u64, BufferKind::Readback)?,
    );
    let src = end_of(queue, mem, origin)?;
    let dst = End::Buffer {
        raw: staging.raw,
        offset: 0,
    };
    let copy = Copy::new(queue, src, dst, region, element)?;
    let image_type = mem.mem_type;
    let (s2, out) = (staging.clone(), HostPtr(ptr as usize));
    let host = Box::new(move || {
        if let Some(p) = s2.mapped() {
            let out = out;
            // SAFETY: the device finished writing staging; the application
            // keeps its memory valid for the region until completion.
            unsafe { unpack_rows(image_type, region, element, pitches, p, out.0 as *mut u8) };
        }
    });
    Ok(submit_copy(
        queue,
        command_type,
        copy,
        &[(mem, false)],
        Box::new((mem.clone(), staging)),
        Some(host),
        wait_list,
    ))
}

/// clEnqueueWriteImage (and the unmap of USE_HOST_PTR memory): the
/// application's memory is packed into staging now.
///
/// # Safety
/// `ptr` with `pitches` must cover `region` readable bytes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn enqueue_write_image(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    origin: Origin,
    region: [usize; 3],
    pitches: (usize, usize),
    ptr: *const u8,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let element = mem.image()?.element_size();
    upload_region(queue, mem, origin, region, command_type, wait_list, |p| {
        // SAFETY: caller contract; staging holds the region's tight bytes.
        unsafe { pack_rows(mem.mem_type, region, element, pitches, ptr, p) }
    })
}

/// Fills upload staging of the region's tight size with `fill` (given its
/// host address) now, then copies it into `region` of image `mem`: the
/// common part of write and fill.
fn upload_region(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    origin: Origin,
    region: [usize; 3],
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
    fill: impl FnOnce(*mut u8),
) -> CLResult<Arc<Event>> {
    let element = mem.image()?.element_size();
    let size = tight_size(&region, element);
    let staging = Arc::new(
        queue
            .device
            .vk()?
            .staging(size as u64, BufferKind::Upload)?,
    );
    fill(staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?);
    let src = End::Buffer {
        raw: staging.raw,
        offset: 0,
    };
    let copy = Copy::new(queue, src, end_of(queue, mem, origin)?, region, element)?;
    Ok(submit_copy(
        queue,
        command_type,
        copy,
        &[(mem, true)],
        Box::new((mem.clone(), staging)),
        None,
        wait_list,
    ))
}

/// clEnqueueFillImage: `texel` (already converted to the image's format)
/// repeated over the region in staging, then copied.
pub fn enqueue_fill_image(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    texel: &[u8],
    origin: Origin,
    region: [usize; 3],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let element = mem.image()?.element_size();
    let size = tight_size(&region, element);
    upload_region(
        queue,
        mem,
        origin,
        region,
        CL_COMMAND_FILL_IMAGE,
        wait_list,
        |p| {
            // SAFETY: staging holds `size` bytes, ours alone until submitted.
            let dst = unsafe { std::slice::from_raw_parts_mut(p, size) };
            for chunk in dst.chunks_exact_mut(element) {
                chunk.copy_from_slice(texel);
            }
        },
    )
}

/// clEnqueueCopyImage.
pub fn enqueue_copy_image(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    src_origin: Origin,
    dst_origin: Origin,
    region: [usize; 3],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let copy = copy_image(queue, src, dst, src_origin, dst_origin, region)?.copy;
    Ok(submit_copy(
        queue,
        CL_COMMAND_COPY_IMAGE,
        copy,
        &[(src, false), (dst, true)],
        Box::new((src.clone(), dst.clone())),
        None,
        wait_list,
    ))
}

/// clEnqueueCopyImageToBuffer: the region, tightly packed, at `offset`.
pub fn enqueue_copy_image_to_buffer(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    origin: Origin,
    region: [usize; 3],
    offset: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let copy = copy_image_to_buffer(queue, src, dst, origin, region, offset)?.copy;
    Ok(submit_copy(
        queue,
        CL_COMMAND_COPY_IMAGE_TO_BUFFER,
        copy,
        &[(src, false), (dst, true)],
        Box::new((src.clone(), dst.clone())),
        None,
        wait_list,
    ))
}

/// clEnqueueCopyBufferToImage: tightly packed bytes at `offset`.
pub fn enqueue_copy_buffer_to_image(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    offset: usize,
    origin: Origin,
    region: [usize; 3],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let copy = copy_buffer_to_image(queue, src, dst, offset, origin, region)?.copy;
    Ok(submit_copy(
        queue,
        CL_COMMAND_COPY_BUFFER_TO_IMAGE,
        copy,
        &[(src, false), (dst, true)],
        Box::new((src.clone(), dst.clone())),
        None,
        wait_list,
    ))
}

/// A map of an image backed by a VkImage: what clEnqueueMapImage returns
/// and what the unmap needs.
pub struct ImageMap {
    pub ptr: usize,
    pub region: MappedRegion,
    /// `None` when the pointer is in the USE_HOST_PTR memory.
    pub memory: Option<Arc<MapMemory>>,
    pub event: Arc<Event>,
}

/// clEnqueueMapImage of an image backed by a VkImage. USE_HOST_PTR images
/// hand back the application's memory (refreshed from the device unless
/// the map invalidates), with the image's pitches; others a tightly packed
/// staging copy of the region.
pub fn enqueue_map_image(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    flags: cl_map_flags,
    origin: Origin,
    region: [usize; 3],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<ImageMap> {
    let img = mem.image()?;
    let element = img.element_size();
    let read = flags & CL_MAP_WRITE_INVALIDATE_REGION == 0;
    let image_type = mem.mem_type;
    if mem.host_ptr != 0 {
        let d = &img.desc;
        let line = ImageDesc::line_pitch(image_type, d.row_pitch, d.slice_pitch);
        let slice = if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            0
        } else {
            d.slice_pitch
        };
        // (Mipmapped images have no host pointer: level 0.)
        let o = origin.pos;
        let ptr = mem.host_ptr + o[2] * slice + o[1] * line + o[0] * element;
        let pitches = (d.row_pitch, d.slice_pitch);
        let event = if read {
            enqueue_read_image(
                queue,
                mem,
                origin,
                region,
                pitches,
                ptr as *mut u8,
                CL_COMMAND_MAP_IMAGE,
                wait_list,
            )?
        } else {
            enqueue_marker(queue, CL_COMMAND_MAP_IMAGE, wait_list)
        };
        return Ok(ImageMap {
            ptr,
            region: MappedRegion {
                origin,
                region,
                row_pitch: d.row_pitch,
                slice_pitch: d.slice_pitch,
            },
            memory: None,
            event,
        });
    }
    let size = tight_size(&region, element);
    let kind = if flags & CL_MAP_READ != 0 {
        BufferKind::Readback
    } else {
        BufferKind::Upload
    };
    let staging = Arc::new(queue.device.vk()?.staging(size as u64, kind)?);
    let memory = Arc::new(MapMemory::staging(staging)?);
    let row_pitch = region[0] * element;
    let slice_pitch = match image_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => row_pitch,
        CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => row_pitch * region[1],
        _ => 0,
    };
    let event = if read {
        let (raw, offset) = memory.side();
        let copy = Copy::new(
            queue,
            end_of(queue, mem, origin)?,
            End::Buffer { raw, offset },
            region,
            element,
        )?;
        submit_copy(
            queue,
            CL_COMMAND_MAP_IMAGE,
            copy,
            &[(mem, false)],
            Box::new((mem.clone(), memory.clone())),
            None,
            wait_list,
        )
    } else {
        enqueue_marker(queue, CL_COMMAND_MAP_IMAGE, wait_list)
    };
    Ok(ImageMap {
        ptr: memory.ptr,
        region: MappedRegion {
            origin,
            region,
            row_pitch,
            slice_pitch,
        },
        memory: Some(memory),
        event,
    })
}

/// The unmap's write-back of an image map that wrote.
pub fn enqueue_unmap_image(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    ptr: usize,
    r: MappedRegion,
    memory: Option<Arc<MapMemory>>,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    match memory {
        // Map memory of this queue's device (a map on another device's
        // queue is written back like host memory, below).
        Some(memory) if Arc::ptr_eq(&memory.device, &queue.device.vk()?) => {
            let element = mem.image()?.element_size();
            let (raw, offset) = memory.side();
            let copy = Copy::new(
                queue,
                End::Buffer { raw, offset },
                end_of(queue, mem, r.origin)?,
                r.region,
                element,
            )?;
            Ok(submit_copy(
                queue,
                CL_COMMAND_UNMAP_MEM_OBJECT,
                copy,
                &[(mem, true)],
                Box::new((mem.clone(), memory)),
                None,
                wait_list,
            ))
        }
        // SAFETY: the mapped memory (the application's USE_HOST_PTR image
        // memory, or map memory of another device) covers the region with
        // these pitches; it is packed into staging before this returns.
        _ => unsafe {
            enqueue_write_image(
                queue,
                mem,
                r.origin,
                r.region,
                (r.row_pitch, r.slice_pitch),
                ptr as *const u8,
                CL_COMMAND_UNMAP_MEM_OBJECT,
                wait_list,
            )
        },
    }
}
