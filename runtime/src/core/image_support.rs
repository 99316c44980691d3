//! What a device can do with images, derived from Vulkan's format
//! features, image format properties, features and limits:
//! CL_DEVICE_IMAGE_SUPPORT and the image limits, and which formats work
//! for which kernel access per image type (clGetSupportedImageFormats and
//! image creation use the same predicate).
//!
//! Layer: platform and devices (device queries, above `super::device` and
//! `super::image_format`), used by image creation and the ICD's queries.

use ash::vk;
use opencl_sys::*;

use super::device::Device;
use super::image_format::{all_formats, format_info, FormatInfo};

/// How images of a format will be used by kernels, from the memory flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageUse {
    /// read_only image arguments.
    pub read: bool,
    /// write_only image arguments.
    pub write: bool,
    /// read_write image arguments.
    pub read_write: bool,
}

impl ImageUse {
    /// The Image Format Mapping table: CL_MEM_READ_ONLY → read_only,
    /// CL_MEM_WRITE_ONLY → write_only, CL_MEM_READ_WRITE (the default) →
    /// both, CL_MEM_KERNEL_READ_AND_WRITE → all three.
    pub fn from_flags(flags: cl_mem_flags) -> ImageUse {
        if flags & CL_MEM_KERNEL_READ_AND_WRITE != 0 {
            return ImageUse {
                read: true,
                write: true,
                read_write: true,
            };
        }
        ImageUse {
            read: flags & CL_MEM_WRITE_ONLY == 0,
            write: flags & CL_MEM_READ_ONLY == 0,
            read_write: false,
        }
    }
}

/// The OpenCL 3.0 minimum list for reading or writing (full profile).
const MIN_READ_OR_WRITE: [(cl_channel_order, cl_channel_type); 11] = [
    (CL_RGBA, CL_UNORM_INT8),
    (CL_RGBA, CL_UNORM_INT16),
    (CL_RGBA, CL_SIGNED_INT8),
    (CL_RGBA, CL_SIGNED_INT16),
    (CL_RGBA, CL_SIGNED_INT32),
    (CL_RGBA, CL_UNSIGNED_INT8),
    (CL_RGBA, CL_UNSIGNED_INT16),
    (CL_RGBA, CL_UNSIGNED_INT32),
    (CL_RGBA, CL_HALF_FLOAT),
    (CL_RGBA, CL_FLOAT),
    (CL_BGRA, CL_UNORM_INT8),
];

/// The minimum list for reading and writing in the same kernel.
const MIN_READ_WRITE: [(cl_channel_order, cl_channel_type); 18] = [
    (CL_R, CL_UNORM_INT8),
    (CL_R, CL_SIGNED_INT8),
    (CL_R, CL_SIGNED_INT16),
    (CL_R, CL_SIGNED_INT32),
    (CL_R, CL_UNSIGNED_INT8),
    (CL_R, CL_UNSIGNED_INT16),
    (CL_R, CL_UNSIGNED_INT32),
    (CL_R, CL_HALF_FLOAT),
    (CL_R, CL_FLOAT),
    (CL_RGBA, CL_UNORM_INT8),
    (CL_RGBA, CL_SIGNED_INT8),
    (CL_RGBA, CL_SIGNED_INT16),
    (CL_RGBA, CL_SIGNED_INT32),
    (CL_RGBA, CL_UNSIGNED_INT8),
    (CL_RGBA, CL_UNSIGNED_INT16),
    (CL_RGBA, CL_UNSIGNED_INT32),
    (CL_RGBA, CL_HALF_FLOAT),
    (CL_RGBA, CL_FLOAT),
];

/// Every image type, for queries that must hold for all of them.
pub const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// The Vulkan image type of an OpenCL image type (`None`: 1D image buffer).
pub fn vk_image_type(image_type: cl_mem_object_type) -> Option<vk::ImageType> {
    match image_type {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_ARRAY => Some(vk::ImageType::TYPE_1D),
        CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => Some(vk::ImageType::TYPE_2D),
        CL_MEM_OBJECT_IMAGE3D => Some(vk::ImageType::TYPE_3D),
        _ => None,
    }
}

impl Device {
    /// Vulkan usage of an image of `info` (everything the format allows):
    /// transfers always, SAMPLED and STORAGE where the format has them.
    pub fn image_usage(&self, info: &FormatInfo) -> vk::ImageUsageFlags {
        let ff = self.phys.format_features(info.vk).optimal;
        let mut usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        if ff.contains(vk::FormatFeatureFlags2::SAMPLED_IMAGE) {
            usage |= vk::ImageUsageFlags::SAMPLED;
        }
        if !info.srgb && ff.contains(vk::FormatFeatureFlags2::STORAGE_IMAGE) {
            usage |= vk::ImageUsageFlags::STORAGE;
        }
        usage
    }

    /// The limits of images of `format`, `ty` and `usage`, or `None` when
    /// the combination cannot be created.
    pub fn image_format_properties(
        &self,
        format: vk::Format,
        ty: vk::ImageType,
        usage: vk::ImageUsageFlags,
    ) -> Option<vk::ImageFormatProperties> {
        // SAFETY: plain query of the physical device.
        unsafe {
            self.phys
                .instance
                .raw
                .get_physical_device_image_format_properties(
                    self.phys.raw,
                    format,
                    ty,
                    vk::ImageTiling::OPTIMAL,
                    usage,
                    vk::ImageCreateFlags::empty(),
                )
        }
        .ok()
    }

    /// Whether images of `info` and `image_type` can be created and used by
    /// kernels as `use_` asks (and by the host: transfers).
    fn format_allows(
        &self,
        info: &FormatInfo,
        image_type: cl_mem_object_type,
        use_: ImageUse,
    ) -> bool {
        let f = &self.phys.features;
        let write_wo = |ff: vk::FormatFeatureFlags2| {
            f.shader_storage_image_write_without_format
                || ff.contains(vk::FormatFeatureFlags2::STORAGE_WRITE_WITHOUT_FORMAT)
        };
        let read_wo = |ff: vk::FormatFeatureFlags2| {
            f.shader_storage_image_read_without_format
                || ff.contains(vk::FormatFeatureFlags2::STORAGE_READ_WITHOUT_FORMAT)
        };
        let Some(ty) = vk_image_type(image_type) else {
            // 1D image buffer: texel-buffer views of the buffer, in the
            // image's format (the shader swizzles, as for storage images).
            let ff = self.phys.format_features(info.vk).buffer;
            let storage = !info.srgb
                && ff.contains(vk::FormatFeatureFlags2::STORAGE_TEXEL_BUFFER)
                && write_wo(ff);
            let read =
                !info.view_only && ff.contains(vk::FormatFeatureFlags2::UNIFORM_TEXEL_BUFFER);
            return (!use_.read || read)
                && (!use_.write || storage)
                && (!use_.read_write || (storage && read && read_wo(ff)));
        };
        let ff = self.phys.format_features(info.vk).optimal;
        let transfers =
            vk::FormatFeatureFlags2::TRANSFER_SRC | vk::FormatFeatureFlags2::TRANSFER_DST;
        if !ff.contains(transfers) {
            return false;
        }
        let usage = self.image_usage(info);
        if self.image_format_properties(info.vk, ty, usage).is_none() {
            return false;
        }
        let storage = usage.contains(vk::ImageUsageFlags::STORAGE) && write_wo(ff);
        (!use_.read || usage.contains(vk::ImageUsageFlags::SAMPLED))
            && (!use_.write || storage)
            && (!use_.read_write || (storage && !info.view_only && read_wo(ff)))
    }

    /// Whether the device backs (order, type) images of `image_type` for `use_`.
    pub fn supports_image_format(
        &self,
        format: &cl_image_format,
        image_type: cl_mem_object_type,
        use_: ImageUse,
    ) -> bool {
        self.image_support()
            && !self.inexact_packed_format(format)
            // "CL_DEPTH [...] can only be used" with 2D images and 2D image
            // arrays (cl_khr_depth_images), where the device reports it.
            && (format.image_channel_order != CL_DEPTH
                || (matches!(
                    image_type,
                    CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY
                ) && self.depth_images()))
            && format_info(format.image_channel_order, format.image_channel_data_type)
                .is_some_and(|info| self.format_allows(&info, image_type, use_))
    }

    /// NVIDIA's driver reads R5G6B5 / A1R5G5B5 texels through 8-bit
    /// channels (21/31 comes back as 173/255; measured with CTS
    /// test_image_streams on the H100), beyond OpenCL's precision for
    /// CL_UNORM_SHORT_565/555, so those optional formats are not offered
    /// there.
    fn inexact_packed_format(&self, format: &cl_image_format) -> bool {
        const NVIDIA: u32 = 0x10DE;
        self.phys.properties.vendor_id == NVIDIA
            && matches!(
                format.image_channel_data_type,
                CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555
            )
    }

    /// clGetSupportedImageFormats for this device.
    pub fn supported_image_formats(
        &self,
        image_type: cl_mem_object_type,
        use_: ImageUse,
    ) -> Vec<cl_image_format> {
        if !self.image_support() {
            return Vec::new();
        }
        all_formats()
            .into_iter()
            .filter(|f| self.supports_image_format(f, image_type, use_))
            .collect()
    }

    fn list_supported(
        &self,
        list: &[(cl_channel_order, cl_channel_type)],
        image_type: cl_mem_object_type,
        use_: ImageUse,
    ) -> bool {
        list.iter().all(|&(o, t)| {
            format_info(o, t).is_some_and(|info| self.format_allows(&info, image_type, use_))
        })
    }

    /// CL_DEVICE_IMAGE_SUPPORT: formatless storage writes (the shader
    /// writes storage images without a format), the OpenCL minimum limits,
    /// and the minimum format list readable and writable on every image
    /// type. Decided once per device.
    pub fn image_support(&self) -> bool {
        *self.image_support.get_or_init(|| {
            let l = &self.phys.properties.limits;
            let rw = ImageUse {
                read: true,
                write: true,
                read_write: false,
            };
            self.phys.features.shader_storage_image_write_without_format
                && l.max_image_dimension2_d >= 16384
                && l.max_image_dimension1_d >= 16384
                && l.max_image_dimension3_d >= 2048
                && l.max_image_array_layers >= 2048
                && l.max_texel_buffer_elements >= 65536
                && self.max_read_image_args_vk() >= 128
                && self.max_write_image_args_vk() >= 64
                && self.max_samplers_vk() >= 16
                && IMAGE_TYPES
                    .iter()
                    .all(|&t| self.list_supported(&MIN_READ_OR_WRITE, t, rw))
        })
    }

    /// Read-write image arguments (__opencl_c_read_write_images): the
    /// read-write minimum format list on every image type.
    pub fn read_write_images(&self) -> bool {
        let all = ImageUse {
            read: true,
            write: true,
            read_write: true,
        };
        self.image_support()
            && IMAGE_TYPES
                .iter()
                .all(|&t| self.list_supported(&MIN_READ_WRITE, t, all))
    }

    /// Depth images (cl_khr_depth_images): CL_DEPTH with CL_FLOAT and
    /// CL_UNORM_INT16 (the extension's minimum list) readable and
    /// writable as 2D images and 2D image arrays, on R32_SFLOAT / R16_UNORM
    /// colour images (`super::image_format`), and read-write where the
    /// device has read-write images.
    pub fn depth_images(&self) -> bool {
        const DEPTH: [(cl_channel_order, cl_channel_type); 2] =
            [(CL_DEPTH, CL_FLOAT), (CL_DEPTH, CL_UNORM_INT16)];
        let use_ = ImageUse {
            read: true,
            write: true,
            read_write: self.read_write_images(),
        };
        self.image_support()
            && [CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY]
                .iter()
                .all(|&t| self.list_supported(&DEPTH, t, use_))
    }

    /// Mipmapped images (cl_khr_mipmap_image): VkImages with mip levels
    /// for every image type but 1D image buffers; host commands on a
    /// level; kernels read a level by lod or gradients with OpImageFetch
    /// (`ferrocl_compiler::passes::lower::image`, `DeviceCaps::mipmap_image`),
    /// which every device with images has.
    pub fn mipmap_image(&self) -> bool {
        self.image_support()
    }

    /// Writes to a mip level (cl_khr_mipmap_image_writes): each level an
    /// image argument is written at is a storage-image binding of its own
    /// (`ferrocl_compiler::IMAGE_LEVEL_BINDING_BASE`); reported where a
    /// kernel can write at least one image so
    /// ([`Self::mipmap_image_write_args`]).
    pub fn mipmap_image_writes(&self) -> bool {
        self.mipmap_image_write_args() > 0
    }

    /// `DeviceCaps::mipmap_image_write_args`: how many image arguments a
    /// kernel may write at a mip level, each taking
    /// `MIP_WRITE_LEVELS - 1` more storage images, within half the
    /// per-stage storage-image limit and a quarter of the per-stage
    /// resources (room for the kernel's other descriptors); 2 on lavapipe
    /// (64 storage images, 128 resources), 8 at most.
    pub fn mipmap_image_write_args(&self) -> u32 {
        if !self.mipmap_image() {
            return 0;
        }
        let l = self.limits_vk();
        let extra = ferrocl_compiler::MIP_WRITE_LEVELS - 1;
        ((l.max_per_stage_descriptor_storage_images / 2).min(l.max_per_stage_resources / 4) / extra)
            .min(8)
    }

    /// 2D images made from buffers (cl_khr_image2d_from_buffer): texel-buffer
    /// views of the buffer, as for 1D image buffers, which every device
    /// with images reads and writes in the minimum format list
    /// ([`Self::image_support`]); the kernels' 2D image arguments get a
    /// texel-buffer twin (`DeviceCaps::image2d_from_buffer_args`), for
    /// kernels of up to 8 image arguments at least.
    pub fn image2d_from_buffer(&self) -> bool {
        self.image_support() && self.image_twin_budget() >= 8
    }

    /// `DeviceCaps::image2d_from_buffer_args`: the most image arguments a
    /// kernel may have for its 2D image arguments to get texel-buffer
    /// twins. Each twin is one more sampled-image or storage-image
    /// descriptor (texel buffers count as such), so a kernel of that many
    /// images, all twinned, stays within half the per-stage sampled and
    /// storage image limits and a quarter of the per-stage resources
    /// (room for its buffers); 32 at most (one SpecId bit each).
    pub fn image2d_from_buffer_args(&self) -> u32 {
        if self.image2d_from_buffer() {
            self.image_twin_budget()
        } else {
            0
        }
    }

    fn image_twin_budget(&self) -> u32 {
        let l = self.limits_vk();
        (l.max_per_stage_descriptor_sampled_images / 2)
            .min(l.max_per_stage_descriptor_storage_images / 2)
            .min(l.max_per_stage_resources / 4)
            .min(ferrocl_compiler::IMAGE_FROM_BUFFER_MAX_ARGS)
    }

    /// CL_DEVICE_IMAGE_PITCH_ALIGNMENT, in pixels: texel buffers address
    /// any row pitch that is a whole number of texels.
    pub fn image_pitch_alignment(&self) -> u32 {
        self.image2d_from_buffer() as u32
    }

    /// CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, in pixels: Vulkan's
    /// minTexelBufferOffsetAlignment (bytes), a multiple of which every
    /// element size then meets.
    pub fn image_base_address_alignment(&self) -> u32 {
        if !self.image2d_from_buffer() {
            return 0;
        }
        self.limits_vk().min_texel_buffer_offset_alignment.max(1) as u32
    }

    /// Whether 2D images of `format` made from a buffer work for `use_`:
    /// the format's texel-buffer support (the 1D image buffer predicate).
    pub fn supports_image2d_from_buffer_format(
        &self,
        format: &cl_image_format,
        use_: ImageUse,
    ) -> bool {
        self.image2d_from_buffer()
            && self.supports_image_format(format, CL_MEM_OBJECT_IMAGE1D_BUFFER, use_)
    }

    /// Writes to 3D images (cl_khr_3d_image_writes): the minimum list is
    /// writable on 3D images (checked by [`Self::image_support`]).
    pub fn image_3d_writes(&self) -> bool {
        self.image_support()
    }

    fn limits_vk(&self) -> &vk::PhysicalDeviceLimits {
        &self.phys.properties.limits
    }

    fn max_read_image_args_vk(&self) -> u32 {
        let l = self.limits_vk();
        l.max_per_stage_descriptor_sampled_images
            .min(l.max_descriptor_set_sampled_images)
            .min(l.max_per_stage_resources)
    }

    fn max_write_image_args_vk(&self) -> u32 {
        let l = self.limits_vk();
        l.max_per_stage_descriptor_storage_images
            .min(l.max_descriptor_set_storage_images)
            .min(l.max_per_stage_resources)
    }

    fn max_samplers_vk(&self) -> u32 {
        let l = self.limits_vk();
        l.max_per_stage_descriptor_samplers
            .min(l.max_descriptor_set_samplers)
    }

    /// The value when images are supported, 0 otherwise.
    fn if_images<T: Default>(&self, v: T) -> T {
        if self.image_support() {
            v
        } else {
            T::default()
        }
    }

    pub fn max_read_image_args(&self) -> u32 {
        self.if_images(self.max_read_image_args_vk())
    }

    pub fn max_write_image_args(&self) -> u32 {
        self.if_images(self.max_write_image_args_vk())
    }

    pub fn max_read_write_image_args(&self) -> u32 {
        if self.read_write_images() {
            self.max_write_image_args_vk()
        } else {
            0
        }
    }

    pub fn max_samplers(&self) -> u32 {
        self.if_images(self.max_samplers_vk())
    }

    /// CL_DEVICE_IMAGE2D_MAX_WIDTH (also the limit of 1D images).
    pub fn image2d_max_width(&self) -> usize {
        let l = self.limits_vk();
        self.if_images(l.max_image_dimension2_d.min(l.max_image_dimension1_d) as usize)
    }

    pub fn image2d_max_height(&self) -> usize {
        self.if_images(self.limits_vk().max_image_dimension2_d as usize)
    }

    /// CL_DEVICE_IMAGE3D_MAX_WIDTH/HEIGHT/DEPTH.
    pub fn image3d_max_size(&self) -> usize {
        self.if_images(self.limits_vk().max_image_dimension3_d as usize)
    }

    /// CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, in pixels.
    pub fn image_max_buffer_size(&self) -> usize {
        self.if_images(self.limits_vk().max_texel_buffer_elements as usize)
    }

    pub fn image_max_array_size(&self) -> usize {
        self.if_images(self.limits_vk().max_image_array_layers as usize)
    }
}
