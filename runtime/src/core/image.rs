//! cl_mem images: creation, the geometry of OpenCL regions in Vulkan
//! terms, and the host commands (read, write, copy, fill, copies to and
//! from buffers, map).
//!
//! An image is a [`Mem`] with an [`ImagePart`]. Its memory is a VkImage
//! (OPTIMAL tiling, device-local, always in VK_IMAGE_LAYOUT_GENERAL), or
//! for a 1D image buffer the storage of its buffer, read by the kernels
//! through texel-buffer views. Host data always moves through tightly
//! packed staging memory; the application's row and slice pitches are
//! applied by the host copy, so every command moves the exact bytes.
//!
//! OpenCL coordinates: `origin`/`region` index (x, y, z) of 2D and 3D
//! images, (x, layer) of 1D image arrays and (x, y, layer) of 2D image
//! arrays. [`vk_region`] maps them onto Vulkan offsets, extents and array
//! layers.

use std::sync::Arc;

use ash::vk;
use opencl_sys::*;

use super::context::Context;
use super::error::CLResult;
use super::event::Event;
use super::image_format::{format_info, FormatInfo};
use super::image_support::vk_image_type;
use super::memory::Mem;
use super::queue::Queue;
use super::transfer::{self, MapMemory};
use crate::vk::buffer::BufferKind;
use crate::vk::image::{BufferView, Image, ImageSpec};

/// The image's shape as clGetImageInfo reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    pub image_type: cl_mem_object_type,
    pub width: usize,
    /// 0 for 1D images (as CL_IMAGE_HEIGHT reports).
    pub height: usize,
    /// 0 unless 3D.
    pub depth: usize,
    /// 0 unless an array.
    pub array_size: usize,
    /// CL_IMAGE_ROW_PITCH / CL_IMAGE_SLICE_PITCH: the pitches of the
    /// host memory given at creation, or computed from the width.
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl ImageDesc {
    /// (width, height, depth) in the OpenCL index space of origins and
    /// regions: the array size takes the place of height (1D arrays) or
    /// depth (2D arrays); unused dimensions are 1.
    pub fn extent(&self) -> [usize; 3] {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [self.width, self.array_size, 1],
            CL_MEM_OBJECT_IMAGE2D => [self.width, self.height, 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [self.width, self.height, self.array_size],
            CL_MEM_OBJECT_IMAGE3D => [self.width, self.height, self.depth],
            _ => [self.width, 1, 1],
        }
    }

    /// Bytes between consecutive index-1 lines of host memory with these
    /// pitches: the slice pitch for 1D image arrays (each 1D image is one
    /// slice), the row pitch otherwise.
    fn line_pitch(image_type: cl_mem_object_type, row_pitch: usize, slice_pitch: usize) -> usize {
        if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            slice_pitch
        } else {
            row_pitch
        }
    }
}

/// Where the image's texels live.
pub enum ImageStorage {
    Image(Image),
    /// A 1D image buffer: the buffer's storage (`Mem::storage` at
    /// `Mem::offset`) with views for the kernels (`None` where the format
    /// has no such texel-buffer support).
    TexelBuffer {
        read: Option<BufferView>,
        storage: Option<BufferView>,
    },
}

pub struct ImagePart {
    pub format: cl_image_format,
    pub info: FormatInfo,
    pub desc: ImageDesc,
    pub storage: ImageStorage,
}

impl ImagePart {
    pub fn element_size(&self) -> usize {
        self.info.element_size
    }

    fn vk_image(&self) -> Option<&Image> {
        match &self.storage {
            ImageStorage::Image(i) => Some(i),
            ImageStorage::TexelBuffer { .. } => None,
        }
    }
}

/// An image region of a live map: what the unmap writes back, and the
/// layout of the mapped memory.
#[derive(Clone, Copy, Debug)]
pub struct MappedRegion {
    pub origin: [usize; 3],
    pub region: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

/// An OpenCL (origin, region) of an image of `image_type` in Vulkan terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VkRegion {
    pub offset: vk::Offset3D,
    pub extent: vk::Extent3D,
    pub base_layer: u32,
    pub layers: u32,
}

pub fn vk_region(
    image_type: cl_mem_object_type,
    origin: [usize; 3],
    region: [usize; 3],
) -> VkRegion {
    let o = origin.map(|v| v as i32);
    let r = region.map(|v| v as u32);
    let (offset, extent, base_layer, layers) = match image_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => ([o[0], 0, 0], [r[0], 1, 1], origin[1], r[1]),
        CL_MEM_OBJECT_IMAGE2D => ([o[0], o[1], 0], [r[0], r[1], 1], 0, 1),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => ([o[0], o[1], 0], [r[0], r[1], 1], origin[2], r[2]),
        CL_MEM_OBJECT_IMAGE3D => (o, r, 0, 1),
        _ => ([o[0], 0, 0], [r[0], 1, 1], 0, 1),
    };
    VkRegion {
        offset: vk::Offset3D {
            x: offset[0],
            y: offset[1],
            z: offset[2],
        },
        extent: vk::Extent3D {
            width: extent[0],
            height: extent[1],
            depth: extent[2],
        },
        base_layer: base_layer as u32,
        layers,
    }
}

/// The checks every image command makes of its origin and region:
/// "CL_INVALID_VALUE if the region being read or written specified by
/// origin and region is out of bounds or if values in origin and region do
/// not follow the rules described in the argument description for origin
/// and region" (the unused coordinates of 1D and 2D images are 0 in
/// origin and 1 in region; no region value is 0).
pub fn check_region(desc: &ImageDesc, origin: &[usize; 3], region: &[usize; 3]) -> CLResult<()> {
    if region.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    let extent = desc.extent();
    for d in 0..3 {
        match origin[d].checked_add(region[d]) {
            Some(end) if end <= extent[d] => {}
            _ => return Err(CL_INVALID_VALUE),
        }
    }
    Ok(())
}

/// Row (index-1 line) offsets of a region of `region` in host memory with
/// these pitches, paired with their offsets in tightly packed memory; each
/// row is `region[0] * element` bytes.
fn rows(
    image_type: cl_mem_object_type,
    region: [usize; 3],
    element: usize,
    row_pitch: usize,
    slice_pitch: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let line = ImageDesc::line_pitch(image_type, row_pitch, slice_pitch);
    let row = region[0] * element;
    (0..region[2]).flat_map(move |z| {
        (0..region[1]).map(move |y| (z * slice_pitch + y * line, (z * region[1] + y) * row))
    })
}

/// Bytes of a tightly packed region.
fn tight_size(region: &[usize; 3], element: usize) -> usize {
    region[0] * region[1] * region[2] * element
}

/// Copies the host rectangle at `host` (with pitches) into tight memory.
///
/// # Safety
/// `host` must cover the region with those pitches; `tight` must hold
/// [`tight_size`] bytes; no overlap.
unsafe fn pack_rows(
    image_type: cl_mem_object_type,
    region: [usize; 3],
    element: usize,
    pitches: (usize, usize),
    host: *const u8,
    tight: *mut u8,
) {
    let row = region[0] * element;
    for (h, t) in rows(image_type, region, element, pitches.0, pitches.1) {
        // SAFETY: caller contract.
        unsafe { std::ptr::copy_nonoverlapping(host.add(h), tight.add(t), row) };
    }
}

/// The reverse of [`pack_rows`].
///
/// # Safety
/// As for [`pack_rows`], with `host` writable.
unsafe fn unpack_rows(
    image_type: cl_mem_object_type,
    region: [usize; 3],
    element: usize,
    pitches: (usize, usize),
    tight: *const u8,
    host: *mut u8,
) {
    let row = region[0] * element;
    for (h, t) in rows(image_type, region, element, pitches.0, pitches.1) {
        // SAFETY: caller contract.
        unsafe { std::ptr::copy_nonoverlapping(tight.add(t), host.add(h), row) };
    }
}

/// A tightly packed buffer ↔ image copy of one region.
fn buffer_image_copy(
    image_type: cl_mem_object_type,
    buffer_offset: u64,
    origin: [usize; 3],
    region: [usize; 3],
) -> vk::BufferImageCopy {
    let v = vk_region(image_type, origin, region);
    vk::BufferImageCopy {
        buffer_offset,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: v.base_layer,
            layer_count: v.layers,
        },
        image_offset: v.offset,
        image_extent: v.extent,
    }
}

/// How index 1 of a region moves through an image type: along y, along
/// array layers, or not at all (a 1D image's region[1] is 1).
fn line_axis_is_layer(image_type: cl_mem_object_type) -> bool {
    image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY
}

/// The vkCmdCopyImage regions copying `region` from `so` of a `st` image
/// to `dor` of a `dt` image. Index 2 (z, or layers) maps onto Vulkan's
/// 3D-depth ↔ array-layer copies; index 1 does too unless one side is a
/// 1D image array (layers) and the other is not (rows): then one region
/// per line.
pub fn image_copies(
    st: cl_mem_object_type,
    so: [usize; 3],
    dt: cl_mem_object_type,
    dor: [usize; 3],
    region: [usize; 3],
) -> Vec<vk::ImageCopy> {
    let one = |so: [usize; 3], dor: [usize; 3], region: [usize; 3]| {
        let s = vk_region(st, so, region);
        let d = vk_region(dt, dor, region);
        let layers = |base, count| vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: base,
            layer_count: count,
        };
        vk::ImageCopy {
            src_subresource: layers(s.base_layer, s.layers),
            src_offset: s.offset,
            dst_subresource: layers(d.base_layer, d.layers),
            dst_offset: d.offset,
            extent: vk::Extent3D {
                width: s.extent.width,
                height: s.extent.height.min(d.extent.height),
                depth: s.extent.depth.max(d.extent.depth),
            },
        }
    };
    if line_axis_is_layer(st) == line_axis_is_layer(dt) || region[1] == 1 {
        return vec![one(so, dor, region)];
    }
    (0..region[1])
        .map(|y| {
            one(
                [so[0], so[1] + y, so[2]],
                [dor[0], dor[1] + y, dor[2]],
                [region[0], 1, region[2]],
            )
        })
        .collect()
}

/// Whether two regions of one image share a texel.
pub fn regions_overlap(a: &[usize; 3], b: &[usize; 3], region: &[usize; 3]) -> bool {
    (0..3).all(|d| a[d] < b[d] + region[d] && b[d] < a[d] + region[d])
}

/// The Vulkan image type and view type of an image type.
fn vk_types(image_type: cl_mem_object_type) -> Option<(vk::ImageType, vk::ImageViewType)> {
    let view = match image_type {
        CL_MEM_OBJECT_IMAGE1D => vk::ImageViewType::TYPE_1D,
        CL_MEM_OBJECT_IMAGE1D_ARRAY => vk::ImageViewType::TYPE_1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D => vk::ImageViewType::TYPE_2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY => vk::ImageViewType::TYPE_2D_ARRAY,
        CL_MEM_OBJECT_IMAGE3D => vk::ImageViewType::TYPE_3D,
        _ => return None,
    };
    Some((vk_image_type(image_type)?, view))
}

/// Initial contents of a new image: the application's memory with the
/// image's row and slice pitches (CL_MEM_COPY_HOST_PTR / USE_HOST_PTR).
#[derive(Clone, Copy)]
pub struct HostData(pub *const u8);

impl Mem {
    /// A new image backed by a VkImage (every type but 1D image buffers).
    /// The caller checked the descriptor, the format's support and the
    /// limits; `host_ptr` is kept for CL_MEM_USE_HOST_PTR (0 otherwise).
    ///
    /// # Safety
    /// `init`, when given, must cover the image with `desc`'s pitches.
    pub unsafe fn new_image(
        context: Arc<Context>,
        flags: cl_mem_flags,
        format: cl_image_format,
        desc: ImageDesc,
        host_ptr: usize,
        init: Option<HostData>,
        properties: Vec<cl_mem_properties>,
    ) -> CLResult<Arc<Mem>> {
        let info = format_info(format.image_channel_order, format.image_channel_data_type)
            .ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
        let device = context.devices[0].clone();
        let vkdev = device.vk()?;
        let (image, layers) = create_vk_image(&device, &info, &desc)?;
        let ext = desc.extent();
        let element = info.element_size;
        let region = ext;
        let staging = match init {
            Some(HostData(ptr)) => {
                let size = tight_size(&region, element);
                let s = vkdev.staging(size as u64, BufferKind::Upload)?;
                let p = s.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
                // SAFETY: caller contract for `ptr`; staging holds `size` bytes.
                unsafe {
                    pack_rows(
                        desc.image_type,
                        region,
                        element,
                        (desc.row_pitch, desc.slice_pitch),
                        ptr,
                        p,
                    )
                };
                Some(s)
            }
            None => None,
        };
        let raw = image.raw;
        let src = staging.as_ref().map(|s| s.raw);
        let copy = buffer_image_copy(desc.image_type, 0, [0; 3], region);
        let record = Box::new(move |r: &crate::vk::queue::Recorder| {
            r.to_general(raw, layers as u32);
            if let Some(src) = src {
                r.copy_buffer_to_image(src, raw, &[copy]);
            }
            Ok(())
        });
        device.run_sync(record, Box::new(staging))?;
        let size = tight_size(&region, element);
        Mem::new_image_object(
            context,
            desc.image_type,
            flags,
            size,
            host_ptr,
            None,
            None,
            ImagePart {
                format,
                info,
                desc,
                storage: ImageStorage::Image(image),
            },
            properties,
            init.is_some(),
        )
    }

    /// A 1D image buffer over `buffer` (its first `width` elements);
    /// `row_pitch` is what CL_IMAGE_ROW_PITCH reports.
    pub fn new_image_buffer(
        buffer: &Arc<Mem>,
        flags: cl_mem_flags,
        format: cl_image_format,
        width: usize,
        row_pitch: usize,
        properties: Vec<cl_mem_properties>,
    ) -> CLResult<Arc<Mem>> {
        let info = format_info(format.image_channel_order, format.image_channel_data_type)
            .ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
        let storage = buffer.buffer()?.clone();
        let size = width * info.element_size;
        let (read, write) = texel_views(&info, &storage, buffer.offset as u64, size as u64)?;
        let desc = ImageDesc {
            image_type: CL_MEM_OBJECT_IMAGE1D_BUFFER,
            width,
            height: 0,
            depth: 0,
            array_size: 0,
            row_pitch,
            slice_pitch: 0,
        };
        Mem::new_image_object(
            buffer.context.clone(),
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
            flags,
            size,
            buffer.host_ptr,
            Some(buffer.clone()),
            Some(storage),
            ImagePart {
                format,
                info,
                desc,
                storage: ImageStorage::TexelBuffer {
                    read,
                    storage: write,
                },
            },
            properties,
            false,
        )
    }

    /// The image part ("CL_INVALID_MEM_OBJECT if image is not a valid
    /// image object").
    pub fn image(&self) -> CLResult<&ImagePart> {
        self.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
    }
}

/// A VkImage for an image of `desc` and `info` on `device` (not yet in
/// GENERAL layout), with its number of array layers. "CL_INVALID_IMAGE_SIZE
/// if the image dimensions [...] exceed the maximum image dimensions" of
/// this format and usage.
fn create_vk_image(
    device: &super::device::Device,
    info: &FormatInfo,
    desc: &ImageDesc,
) -> CLResult<(Image, usize)> {
    let (image_type, view_type) = vk_types(desc.image_type).ok_or(CL_INVALID_VALUE)?;
    let vkdev = device.vk()?;
    let ext = desc.extent();
    let layers = match desc.image_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY => desc.array_size,
        _ => 1,
    };
    let extent = match desc.image_type {
        CL_MEM_OBJECT_IMAGE3D => [ext[0], ext[1], ext[2]],
        CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => [ext[0], ext[1], 1],
        _ => [ext[0], 1, 1],
    };
    let usage = device.image_usage(info);
    let props = device
        .image_format_properties(info.vk, image_type, usage)
        .ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    let m = props.max_extent;
    if extent[0] > m.width as usize
        || extent[1] > m.height as usize
        || extent[2] > m.depth as usize
        || layers > props.max_array_layers as usize
    {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    let spec = ImageSpec {
        image_type,
        view_type,
        format: info.vk,
        extent: vk::Extent3D {
            width: extent[0] as u32,
            height: extent[1] as u32,
            depth: extent[2] as u32,
        },
        layers: layers as u32,
        usage,
        sampled_mapping: info.mapping,
    };
    Ok((Image::new(&vkdev, &spec)?, layers))
}

/// The texel-buffer views of a 1D image buffer over `size` bytes at
/// `offset` of `storage`: for reading and for writing, each `None` where
/// the format or the offset does not allow it (the image then only serves
/// host commands).
fn texel_views(
    info: &FormatInfo,
    storage: &crate::vk::buffer::Buffer,
    offset: u64,
    size: u64,
) -> CLResult<(Option<BufferView>, Option<BufferView>)> {
    let vkdev = &storage.device;
    let align = vkdev
        .phys
        .properties
        .limits
        .min_texel_buffer_offset_alignment
        .max(1);
    let feature = |f: vk::Format, bit| vkdev.phys.format_features(f).buffer.contains(bit);
    let aligned = offset.is_multiple_of(align);
    let read = if aligned
        && !info.view_only
        && feature(info.vk, vk::FormatFeatureFlags2::UNIFORM_TEXEL_BUFFER)
    {
        Some(BufferView::new(vkdev, storage.raw, info.vk, offset, size)?)
    } else {
        None
    };
    let write =
        if aligned && !info.srgb && feature(info.vk, vk::FormatFeatureFlags2::STORAGE_TEXEL_BUFFER)
        {
            Some(BufferView::new(vkdev, storage.raw, info.vk, offset, size)?)
        } else {
            None
        };
    Ok((read, write))
}

impl ImagePart {
    /// This 1D image buffer's part on another device: the same format and
    /// shape, views of `storage` (its buffer's storage there) at `offset`.
    pub(super) fn texel_replica(
        &self,
        storage: &crate::vk::buffer::Buffer,
        offset: usize,
    ) -> CLResult<ImagePart> {
        let size = (self.desc.width * self.info.element_size) as u64;
        let (read, write) = texel_views(&self.info, storage, offset as u64, size)?;
        Ok(ImagePart {
            format: self.format,
            info: self.info,
            desc: self.desc,
            storage: ImageStorage::TexelBuffer {
                read,
                storage: write,
            },
        })
    }

    /// This image's part on `device`: a new VkImage of the same format and
    /// shape, moved to GENERAL layout (contents undefined until migrated).
    pub(super) fn image_replica(&self, device: &super::device::Device) -> CLResult<ImagePart> {
        let (image, layers) = create_vk_image(device, &self.info, &self.desc)?;
        let raw = image.raw;
        device.run_sync(
            Box::new(move |r: &crate::vk::queue::Recorder| {
                r.to_general(raw, layers as u32);
                Ok(())
            }),
            Box::new(()),
        )?;
        Ok(ImagePart {
            format: self.format,
            info: self.info,
            desc: self.desc,
            storage: ImageStorage::Image(image),
        })
    }
}

/// Copies the whole image `mem` (a root backed by VkImages) from context
/// device `src` (`src_dev`) to device `dst`: image → readback staging on
/// `src`, waited for; host copy into upload staging of `dst`; staging →
/// image recorded into `r` (see `super::residency`).
pub(super) fn migrate_image(
    mem: &Mem,
    src_dev: &super::device::Device,
    src: usize,
    dst: usize,
    r: &crate::vk::queue::Recorder,
) -> CLResult<()> {
    let (from, to) = (mem.image_on(src)?, mem.image_on(dst)?);
    let (Some(fi), Some(ti)) = (from.vk_image(), to.vk_image()) else {
        return Err(CL_INVALID_MEM_OBJECT);
    };
    let region = from.desc.extent();
    let size = tight_size(&region, from.element_size()) as u64;
    let copy = buffer_image_copy(mem.mem_type, 0, [0; 3], region);
    let down = Arc::new(fi.device.staging(size, BufferKind::Readback)?);
    let (fraw, draw) = (fi.raw, down.raw);
    src_dev.run_sync(
        Box::new(move |rs: &crate::vk::queue::Recorder| {
            rs.copy_image_to_buffer(fraw, draw, &[copy]);
            Ok(())
        }),
        Box::new(down.clone()),
    )?;
    let up = ti.device.staging(size, BufferKind::Upload)?;
    let (Some(s), Some(d)) = (down.mapped(), up.mapped()) else {
        return Err(CL_OUT_OF_RESOURCES);
    };
    // SAFETY: both staging buffers are mapped, at least `size` bytes, ours
    // alone; the device finished writing `down` (run_sync waited).
    unsafe { super::hostcopy::copy(s, d, size as usize) };
    r.barrier();
    r.copy_buffer_to_image(up.raw, ti.raw, &[copy]);
    r.barrier();
    r.hold(Box::new(up));
    Ok(())
}

/// One end of a copy: an image region, or tightly packed bytes in a buffer.
#[derive(Clone, Copy)]
enum End {
    Image {
        raw: vk::Image,
        image_type: cl_mem_object_type,
        origin: [usize; 3],
    },
    Buffer {
        raw: vk::Buffer,
        offset: u64,
    },
}

/// The copy end for `origin` of `mem` on `queue`'s device: its VkImage,
/// or for a 1D image buffer (and a buffer) the bytes at `origin[0]`
/// elements (bytes).
fn end_of(queue: &Queue, mem: &Mem, origin: [usize; 3]) -> CLResult<End> {
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
            origin,
        }),
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
    bounce: Option<Arc<crate::vk::buffer::Staging>>,
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
            (End::Buffer { offset, .. }, End::Image { .. })
            | (End::Image { .. }, End::Buffer { offset, .. }) => {
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

    fn record(&self, r: &crate::vk::queue::Recorder) {
        let region = self.region;
        let bytes = tight_size(&region, self.element) as u64;
        match (self.src, self.dst) {
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
    host: Option<super::queue::HostFn>,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    // The bounce buffer is used by the device until completion.
    let bounce = copy.bounce.clone();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        copy.record(r);
        Ok(())
    });
    let record = queue.resident(uses, record);
    let done = Box::new(move || {
        if let Some(h) = host {
            h();
        }
        drop((hold, bounce));
    });
    queue.submit(command_type, wait_list, Some(record), Some(done))
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
    origin: [usize; 3],
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
    origin: [usize; 3],
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
    origin: [usize; 3],
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
    origin: [usize; 3],
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
    src_origin: [usize; 3],
    dst_origin: [usize; 3],
    region: [usize; 3],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let element = src.image()?.element_size();
    let copy = Copy::new(
        queue,
        end_of(queue, src, src_origin)?,
        end_of(queue, dst, dst_origin)?,
        region,
        element,
    )?;
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
    origin: [usize; 3],
    region: [usize; 3],
    offset: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let element = src.image()?.element_size();
    let to = End::Buffer {
        raw: dst.buffer_on(queue.device_index)?.raw,
        offset: (dst.offset + offset) as u64,
    };
    let copy = Copy::new(queue, end_of(queue, src, origin)?, to, region, element)?;
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
    origin: [usize; 3],
    region: [usize; 3],
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let element = dst.image()?.element_size();
    let from = End::Buffer {
        raw: src.buffer_on(queue.device_index)?.raw,
        offset: (src.offset + offset) as u64,
    };
    let copy = Copy::new(queue, from, end_of(queue, dst, origin)?, region, element)?;
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
    origin: [usize; 3],
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
        let ptr = mem.host_ptr + origin[2] * slice + origin[1] * line + origin[0] * element;
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
            transfer::enqueue_marker(queue, CL_COMMAND_MAP_IMAGE, wait_list)
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
        transfer::enqueue_marker(queue, CL_COMMAND_MAP_IMAGE, wait_list)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_of_each_type() {
        let v = vk_region(CL_MEM_OBJECT_IMAGE1D_ARRAY, [3, 2, 0], [5, 4, 1]);
        assert_eq!((v.offset.x, v.offset.y), (3, 0));
        assert_eq!((v.extent.width, v.extent.height), (5, 1));
        assert_eq!((v.base_layer, v.layers), (2, 4));
        let v = vk_region(CL_MEM_OBJECT_IMAGE2D_ARRAY, [1, 2, 3], [4, 5, 6]);
        assert_eq!((v.offset.y, v.offset.z, v.extent.depth), (2, 0, 1));
        assert_eq!((v.base_layer, v.layers), (3, 6));
        let v = vk_region(CL_MEM_OBJECT_IMAGE3D, [1, 2, 3], [4, 5, 6]);
        assert_eq!((v.offset.z, v.extent.depth, v.layers), (3, 6, 1));
    }

    #[test]
    fn copies_between_types() {
        // 2D → slice 2 of a 3D image: one region, depth 1.
        let c = image_copies(
            CL_MEM_OBJECT_IMAGE2D,
            [0, 0, 0],
            CL_MEM_OBJECT_IMAGE3D,
            [1, 1, 2],
            [4, 4, 1],
        );
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].dst_offset.z, c[0].extent.depth), (2, 1));
        // 3D → 2D array: depth ↔ layers.
        let c = image_copies(
            CL_MEM_OBJECT_IMAGE3D,
            [0, 0, 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [0, 0, 0],
            [4, 4, 3],
        );
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].extent.depth, c[0].dst_subresource.layer_count),
            (3, 3)
        );
        assert_eq!(c[0].src_subresource.layer_count, 1);
        // 1D array (layers) → 2D (rows): one region per line.
        let c = image_copies(
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [2, 1, 0],
            CL_MEM_OBJECT_IMAGE2D,
            [0, 5, 0],
            [8, 3, 1],
        );
        assert_eq!(c.len(), 3);
        assert_eq!(c[2].src_subresource.base_array_layer, 3);
        assert_eq!((c[2].dst_offset.y, c[2].extent.height), (7, 1));
    }

    #[test]
    fn host_rows_use_the_array_pitch_for_1d_arrays() {
        let r: Vec<_> = rows(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 3, 1], 2, 8, 32).collect();
        assert_eq!(r, [(0, 0), (32, 8), (64, 16)]);
        let r: Vec<_> = rows(CL_MEM_OBJECT_IMAGE3D, [2, 2, 2], 4, 16, 64).collect();
        assert_eq!(r, [(0, 0), (16, 8), (64, 16), (80, 24)]);
    }

    #[test]
    fn region_checks() {
        let d = ImageDesc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            width: 8,
            height: 4,
            depth: 0,
            array_size: 0,
            row_pitch: 32,
            slice_pitch: 0,
        };
        assert!(check_region(&d, &[0, 0, 0], &[8, 4, 1]).is_ok());
        assert_eq!(
            check_region(&d, &[1, 0, 0], &[8, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&d, &[0, 0, 1], &[8, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&d, &[0, 0, 0], &[8, 4, 2]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&d, &[0, 0, 0], &[0, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert!(regions_overlap(&[0, 0, 0], &[3, 3, 0], &[4, 4, 1]));
        assert!(!regions_overlap(&[0, 0, 0], &[4, 0, 0], &[4, 4, 1]));
    }
}
