//! Vulkan images behind cl_mem images: an OPTIMAL-tiling, device-local
//! VkImage that stays in VK_IMAGE_LAYOUT_GENERAL for its whole life, with
//! one sampled view (the format table's component mapping) and one storage
//! view (identity mapping); texel-buffer views for 1D image buffers; and
//! the device's VkSamplers.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use parking_lot::Mutex;

use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// What to create.
#[derive(Clone, Copy, Debug)]
pub struct ImageSpec {
    pub image_type: vk::ImageType,
    pub view_type: vk::ImageViewType,
    pub format: vk::Format,
    pub extent: vk::Extent3D,
    pub layers: u32,
    /// Mip levels (1 unless cl_khr_mipmap_image): the sampled view sees
    /// them all, the storage view level 0 (Vulkan storage views have one
    /// level).
    pub levels: u32,
    /// SAMPLED and/or STORAGE (what the format allows) plus TRANSFER_SRC/DST.
    pub usage: vk::ImageUsageFlags,
    /// Component mapping of the sampled view.
    pub sampled_mapping: vk::ComponentMapping,
}

pub struct Image {
    pub device: Arc<Device>,
    pub raw: vk::Image,
    allocation: Mutex<Option<Allocation>>,
    /// Memory of this image alone, freed with it (`allocation` is then
    /// `None`): memory imported from another API (`super::external_memory`).
    own_memory: Option<vk::DeviceMemory>,
    /// Null without SAMPLED usage.
    pub sampled_view: vk::ImageView,
    /// Null without STORAGE usage.
    pub storage_view: vk::ImageView,
    /// Storage views of levels 1 and up, one level each (kernel writes to
    /// a mip level, cl_khr_mipmap_image_writes); empty without STORAGE
    /// usage or mip levels.
    level_views: Vec<vk::ImageView>,
    _live: super::live::Live,
}

/// The all-levels, all-layers color subresource range.
pub fn color_range(layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: vk::REMAINING_MIP_LEVELS,
        base_array_layer: 0,
        layer_count: layers,
    }
}

/// The VkImageCreateInfo of `spec`: its mip levels, one sample, OPTIMAL
/// tiling, exclusive sharing, no flags.
pub fn create_info(spec: &ImageSpec) -> vk::ImageCreateInfo<'static> {
    vk::ImageCreateInfo::default()
        .image_type(spec.image_type)
        .format(spec.format)
        .extent(spec.extent)
        .mip_levels(spec.levels)
        .array_layers(spec.layers)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(spec.usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(vk::ImageLayout::UNDEFINED)
}

impl Image {
    /// Creates the image, binds device-local memory and makes its views.
    /// The image starts in UNDEFINED layout: the caller records
    /// [`super::queue::Recorder::to_general`] before any other use.
    pub fn new(device: &Arc<Device>, spec: &ImageSpec) -> CLResult<Image> {
        let info = create_info(spec);
        // SAFETY: valid device and create info (the caller checked the
        // format's features and the limits).
        let raw = unsafe { device.raw.create_image(&info, None) }.map_err(map_vk_err)?;
        let mut image = Image {
            device: device.clone(),
            raw,
            allocation: Mutex::new(None),
            own_memory: None,
            sampled_view: vk::ImageView::null(),
            storage_view: vk::ImageView::null(),
            level_views: Vec::new(),
            _live: super::live::Live::new(super::live::Kind::Image),
        };
        // SAFETY: raw was just created on this device.
        let requirements = unsafe { device.raw.get_image_memory_requirements(raw) };
        let large = requirements.size >= 64 << 20;
        let alloc = device
            .allocator
            .lock()
            .allocate(&AllocationCreateDesc {
                name: "ferrocl image",
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: if large {
                    AllocationScheme::DedicatedImage(raw)
                } else {
                    AllocationScheme::GpuAllocatorManaged
                },
            })
            .map_err(|_| opencl_sys::CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
        // SAFETY: memory/offset come from an allocation satisfying `requirements`.
        let bound = unsafe {
            device
                .raw
                .bind_image_memory(raw, alloc.memory(), alloc.offset())
        };
        *image.allocation.lock() = Some(alloc);
        bound.map_err(map_vk_err)?;
        image.make_views(spec)?;
        Ok(image)
    }

    /// The image `raw` (created from `spec`) bound to `memory`, which it
    /// owns from now on (freed with it, also on an error here), with its
    /// views.
    pub(super) fn with_own_memory(
        device: &Arc<Device>,
        raw: vk::Image,
        memory: vk::DeviceMemory,
        spec: &ImageSpec,
    ) -> CLResult<Image> {
        let mut image = Image {
            device: device.clone(),
            raw,
            allocation: Mutex::new(None),
            own_memory: Some(memory),
            sampled_view: vk::ImageView::null(),
            storage_view: vk::ImageView::null(),
            level_views: Vec::new(),
            _live: super::live::Live::new(super::live::Kind::Image),
        };
        image.make_views(spec)?;
        Ok(image)
    }

    /// The sampled and storage views `spec.usage` asks for.
    fn make_views(&mut self, spec: &ImageSpec) -> CLResult<()> {
        let image = self;
        if spec.usage.contains(vk::ImageUsageFlags::SAMPLED) {
            image.sampled_view =
                image.view(spec, spec.sampled_mapping, vk::ImageUsageFlags::SAMPLED)?;
        }
        if spec.usage.contains(vk::ImageUsageFlags::STORAGE) {
            image.storage_view = image.view(
                spec,
                crate::core::image_format::IDENTITY,
                vk::ImageUsageFlags::STORAGE,
            )?;
            for level in 1..spec.levels {
                let v = image.level_view_of(spec, level)?;
                image.level_views.push(v);
            }
        }
        Ok(())
    }

    /// The storage view of mip level `level` (≥ 1), if the image has it.
    pub fn level_view(&self, level: u32) -> Option<vk::ImageView> {
        self.level_views
            .get(level.checked_sub(1)? as usize)
            .copied()
    }

    /// A storage view of every layer of mip level `level` alone.
    fn level_view_of(&self, spec: &ImageSpec, level: u32) -> CLResult<vk::ImageView> {
        let mut u = vk::ImageViewUsageCreateInfo::default().usage(vk::ImageUsageFlags::STORAGE);
        let info = vk::ImageViewCreateInfo::default()
            .image(self.raw)
            .view_type(spec.view_type)
            .format(spec.format)
            .components(crate::core::image_format::IDENTITY)
            .subresource_range(vk::ImageSubresourceRange {
                base_mip_level: level,
                level_count: 1,
                ..color_range(spec.layers)
            })
            .push_next(&mut u);
        // SAFETY: the image is alive with bound memory, STORAGE usage and
        // this level.
        unsafe { self.device.raw.create_image_view(&info, None) }.map_err(map_vk_err)
    }

    /// A view of every layer restricted to `usage`: all mip levels for
    /// sampling, level 0 for storage.
    fn view(
        &self,
        spec: &ImageSpec,
        components: vk::ComponentMapping,
        usage: vk::ImageUsageFlags,
    ) -> CLResult<vk::ImageView> {
        let mut u = vk::ImageViewUsageCreateInfo::default().usage(usage);
        let info = vk::ImageViewCreateInfo::default()
            .image(self.raw)
            .view_type(spec.view_type)
            .format(spec.format)
            .components(components)
            .subresource_range(vk::ImageSubresourceRange {
                level_count: if usage == vk::ImageUsageFlags::STORAGE {
                    1
                } else {
                    spec.levels
                },
                ..color_range(spec.layers)
            })
            .push_next(&mut u);
        // SAFETY: the image is alive with bound memory and this usage.
        unsafe { self.device.raw.create_image_view(&info, None) }.map_err(map_vk_err)
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: the last user is gone (commands hold the cl_mem until
        // they complete); null handles are skipped.
        unsafe {
            for &v in [self.sampled_view, self.storage_view]
                .iter()
                .chain(&self.level_views)
            {
                if v != vk::ImageView::null() {
                    self.device.raw.destroy_image_view(v, None);
                }
            }
            self.device.raw.destroy_image(self.raw, None);
        }
        if let Some(a) = self.allocation.lock().take() {
            let _ = self.device.allocator.lock().free(a);
        }
        if let Some(m) = self.own_memory.take() {
            // SAFETY: this image's memory alone; the image is destroyed.
            unsafe { self.device.raw.free_memory(m, None) };
        }
    }
}

/// What a launch binds where a 2D image argument's binding goes unused
/// (`ferrocl_compiler::abi::IMAGE_FROM_BUFFER_SPEC_ID`): a 1x1 R32_SFLOAT
/// image with sampled and storage views, and R32_SFLOAT texel-buffer views
/// of a 16-byte buffer. The shaders never access them; Vulkan wants a
/// valid descriptor in every binding a pipeline declares.
pub struct ImagePlaceholders {
    pub image: Image,
    pub texels: BufferView,
    _buffer: super::buffer::Buffer,
}

impl ImagePlaceholders {
    /// The placeholders (the image still in UNDEFINED layout: the caller
    /// records [`super::queue::Recorder::to_general`]).
    pub fn new(device: &Arc<Device>) -> CLResult<ImagePlaceholders> {
        let format = vk::Format::R32_SFLOAT;
        let image = Image::new(
            device,
            &ImageSpec {
                image_type: vk::ImageType::TYPE_2D,
                view_type: vk::ImageViewType::TYPE_2D,
                format,
                extent: vk::Extent3D {
                    width: 1,
                    height: 1,
                    depth: 1,
                },
                layers: 1,
                levels: 1,
                usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::STORAGE,
                sampled_mapping: crate::core::image_format::IDENTITY,
            },
        )?;
        let buffer = super::buffer::Buffer::new(device, 16, super::buffer::BufferKind::Storage)?;
        let texels = BufferView::new(device, buffer.raw, format, 0, 16)?;
        Ok(ImagePlaceholders {
            image,
            texels,
            _buffer: buffer,
        })
    }
}

/// A VkBufferView (1D image buffers).
pub struct BufferView {
    pub device: Arc<Device>,
    pub raw: vk::BufferView,
    _live: super::live::Live,
}

impl BufferView {
    /// A view of `range` bytes at `offset` of `buffer` as `format`.
    pub fn new(
        device: &Arc<Device>,
        buffer: vk::Buffer,
        format: vk::Format,
        offset: u64,
        range: u64,
    ) -> CLResult<BufferView> {
        let info = vk::BufferViewCreateInfo::default()
            .buffer(buffer)
            .format(format)
            .offset(offset)
            .range(range);
        // SAFETY: the buffer has texel-buffer usage (every storage buffer
        // does) and the caller checked format, alignment and size.
        let raw = unsafe { device.raw.create_buffer_view(&info, None) }.map_err(map_vk_err)?;
        Ok(BufferView {
            device: device.clone(),
            raw,
            _live: super::live::Live::new(super::live::Kind::BufferView),
        })
    }
}

impl Drop for BufferView {
    fn drop(&mut self) {
        // SAFETY: no pending command uses the view (as for images).
        unsafe { self.device.raw.destroy_buffer_view(self.raw, None) };
    }
}

/// The VkSamplers of one device, one per OpenCL sampler encoding
/// (`ferrocl_compiler::abi::sampler_bits`): created on first use, shared by
/// cl_samplers and literal samplers, destroyed with the device.
#[derive(Default)]
pub struct Samplers {
    map: Mutex<std::collections::HashMap<u32, vk::Sampler>>,
}

impl Samplers {
    pub fn destroy(&self, device: &ash::Device) {
        for (_, s) in self.map.lock().drain() {
            // SAFETY: called when the device is being destroyed.
            unsafe { device.destroy_sampler(s, None) };
        }
    }
}

impl Device {
    /// The VkSampler for an OpenCL sampler encoding, as
    /// `ferrocl_compiler::abi::ArgKind::Sampler` documents: normalized
    /// coordinates always, the filter, NONE/CLAMP_TO_EDGE → CLAMP_TO_EDGE,
    /// CLAMP → CLAMP_TO_BORDER with a transparent black border, REPEAT,
    /// MIRRORED_REPEAT.
    pub fn sampler(&self, bits: u32) -> CLResult<vk::Sampler> {
        use ferrocl_compiler::abi::sampler_bits as sb;
        let mut map = self.samplers.map.lock();
        if let Some(s) = map.get(&bits) {
            return Ok(*s);
        }
        let filter = if bits & sb::FILTER_MASK == sb::FILTER_LINEAR {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        };
        let address = match bits & sb::ADDRESS_MASK {
            sb::ADDRESS_CLAMP => vk::SamplerAddressMode::CLAMP_TO_BORDER,
            sb::ADDRESS_REPEAT => vk::SamplerAddressMode::REPEAT,
            sb::ADDRESS_MIRRORED_REPEAT => vk::SamplerAddressMode::MIRRORED_REPEAT,
            _ => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        };
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(address)
            .address_mode_v(address)
            .address_mode_w(address)
            .min_lod(0.0)
            .max_lod(0.0)
            .border_color(vk::BorderColor::FLOAT_TRANSPARENT_BLACK)
            .unnormalized_coordinates(false);
        // SAFETY: valid device and create info.
        let s = unsafe { self.raw.create_sampler(&info, None) }.map_err(map_vk_err)?;
        map.insert(bits, s);
        Ok(s)
    }
}
