//! cl_mem images: creation. An image is a [`Mem`] with an [`ImagePart`]
//! (defined with `Mem` in `super::memory`). Its memory is a VkImage
//! (OPTIMAL tiling, device-local, always in VK_IMAGE_LAYOUT_GENERAL), or
//! for a 1D image buffer the storage of its buffer, read by the kernels
//! through texel-buffer views. Host data always moves through tightly
//! packed staging memory; the application's row and slice pitches are
//! applied by the host copy, so every command moves the exact bytes.
//!
//! Layer: memory objects (with `super::memory`): the region geometry is
//! `super::image_geometry`; an image's storage on the other devices of a
//! context and its migration are `super::residency` (which makes them with
//! `ImagePart::texel_replica` / `ImagePart::image_replica`); the host
//! commands (read, write, copy, fill, map) are `super::image_transfer`.

use std::sync::Arc;

use ash::vk;
use opencl_sys::*;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::image_format::{format_info, FormatInfo};
use super::image_geometry::{buffer_image_copy, pack_rows, tight_size, ImageDesc};
use super::image_support::vk_image_type;
use super::memory::{ImagePart, ImageStorage, Mem};
use crate::vk::buffer::{Buffer, BufferKind};
use crate::vk::image::{BufferView, Image, ImagePlaceholders, ImageSpec};
use crate::vk::queue::Recorder;

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
        let copy = buffer_image_copy(desc.image_type, 0, [0; 3].into(), region);
        let record = Box::new(move |r: &Recorder| {
            r.to_general(raw, layers as u32);
            if let Some(src) = src {
                r.copy_buffer_to_image(src, raw, &[copy]);
            }
            Ok(())
        });
        device.run_sync(record, Box::new(staging))?;
        let size = (0..desc.levels())
            .map(|l| tight_size(&desc.level_extent(l), element))
            .sum();
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
            num_mip_levels: 0,
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
}

/// The device's [`ImagePlaceholders`], made on first use (image in
/// GENERAL layout).
pub fn image_placeholders(device: &Device) -> CLResult<Arc<ImagePlaceholders>> {
    device
        .image_placeholders
        .get_or_init(|| {
            let p = Arc::new(ImagePlaceholders::new(&device.vk()?)?);
            let raw = p.image.raw;
            device.run_sync(
                Box::new(move |r: &Recorder| {
                    r.to_general(raw, 1);
                    Ok(())
                }),
                Box::new(()),
            )?;
            Ok(p)
        })
        .clone()
}

impl Mem {
    /// A 2D image made from `buffer` (cl_khr_image2d_from_buffer): the
    /// buffer's memory, `row_pitch` bytes per row from its start, seen
    /// through texel-buffer views of `row_pitch / element size * height`
    /// texels; kernels address texel (x, y) at `y * row_pitch + x`
    /// (`ferrocl_compiler::abi::IMAGE_FROM_BUFFER_SPEC_ID`). The caller
    /// checked the format, the pitch and base address alignment and that
    /// the buffer holds `row_pitch * height` bytes.
    #[allow(clippy::too_many_arguments)]
    pub fn new_image2d_from_buffer(
        buffer: &Arc<Mem>,
        flags: cl_mem_flags,
        format: cl_image_format,
        width: usize,
        height: usize,
        row_pitch: usize,
        properties: Vec<cl_mem_properties>,
    ) -> CLResult<Arc<Mem>> {
        let info = format_info(format.image_channel_order, format.image_channel_data_type)
            .ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
        let storage = buffer.buffer()?.clone();
        let desc = ImageDesc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            width,
            height,
            depth: 0,
            array_size: 0,
            row_pitch,
            slice_pitch: 0,
            num_mip_levels: 0,
        };
        let size = texel_range(&desc, info.element_size);
        let (read, write) = texel_views(&info, &storage, buffer.offset as u64, size as u64)?;
        Mem::new_image_object(
            buffer.context.clone(),
            CL_MEM_OBJECT_IMAGE2D,
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
}

/// The bytes of its buffer that an image over a buffer views: a 1D image
/// buffer's width, a 2D image's rows at its row pitch.
fn texel_range(desc: &ImageDesc, element: usize) -> usize {
    if desc.image_type == CL_MEM_OBJECT_IMAGE2D {
        desc.row_pitch * desc.height
    } else {
        desc.width * element
    }
}

/// A VkImage for an image of `desc` and `info` on `device` (not yet in
/// GENERAL layout), with its number of array layers.
fn create_vk_image(
    device: &Device,
    info: &FormatInfo,
    desc: &ImageDesc,
) -> CLResult<(Image, usize)> {
    let (spec, layers) = image_spec(device, info, desc)?;
    Ok((Image::new(&device.vk()?, &spec)?, layers))
}

/// What the VkImage of an image of `desc` and `info` on `device` is made
/// of, with its number of array layers. "CL_INVALID_IMAGE_SIZE if the
/// image dimensions [...] exceed the maximum image dimensions" of this
/// format and usage.
pub(super) fn image_spec(
    device: &Device,
    info: &FormatInfo,
    desc: &ImageDesc,
) -> CLResult<(ImageSpec, usize)> {
    let (image_type, view_type) = vk_types(desc.image_type).ok_or(CL_INVALID_VALUE)?;
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
        || desc.levels() > props.max_mip_levels
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
        levels: desc.levels(),
        usage,
        sampled_mapping: info.mapping,
    };
    Ok((spec, layers))
}

/// The texel-buffer views of a 1D image buffer over `size` bytes at
/// `offset` of `storage`: for reading and for writing, each `None` where
/// the format or the offset does not allow it (the image then only serves
/// host commands).
fn texel_views(
    info: &FormatInfo,
    storage: &Buffer,
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
    /// This image over a buffer's part on another device: the same format and
    /// shape, views of `storage` (its buffer's storage there) at `offset`.
    pub(super) fn texel_replica(&self, storage: &Buffer, offset: usize) -> CLResult<ImagePart> {
        let size = texel_range(&self.desc, self.info.element_size) as u64;
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
    pub(super) fn image_replica(&self, device: &Device) -> CLResult<ImagePart> {
        let (image, layers) = create_vk_image(device, &self.info, &self.desc)?;
        let raw = image.raw;
        device.run_sync(
            Box::new(move |r: &Recorder| {
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
