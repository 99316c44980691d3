//! The logical Vulkan device behind one OpenCL device: the ash device, its
//! compute queue, the memory allocator and the on-disk pipeline cache.
//! Children (buffers, pipelines, queues) hold it by `Arc`.

use std::mem::ManuallyDrop;
use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use parking_lot::Mutex;

use super::instance::PhysicalDevice;
use super::map_vk_err;
use crate::core::error::CLResult;

pub struct Device {
    pub phys: Arc<PhysicalDevice>,
    pub raw: ash::Device,
    /// The compute queue; vkQueueSubmit needs external synchronization.
    pub queue: Mutex<vk::Queue>,
    pub queue_family: u32,
    pub allocator: ManuallyDrop<Mutex<Allocator>>,
    pub pipeline_cache: vk::PipelineCache,
    /// Recycled host-visible buffers (see `buffer::Staging`).
    pub staging_pool: super::buffer::StagingPool,
    /// Small per-launch uploads (see `buffer::UploadArena`).
    pub upload_arena: super::buffer::UploadArena,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// Device timestamps → host clock, measured on first use (see `clock`).
    pub clock: std::sync::OnceLock<super::clock::Calibration>,
    /// VkSamplers by OpenCL sampler encoding (see `image::Samplers`).
    pub samplers: super::image::Samplers,
    /// Descriptor pools for image/sampler kernel arguments.
    pub descriptor_pools: super::descriptors::DescriptorPools,
}

impl Device {
    pub fn new(phys: Arc<PhysicalDevice>) -> CLResult<Arc<Device>> {
        let inst = &phys.instance.raw;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(phys.queue_family)
            .queue_priorities(&prio)];
        let f = &phys.features;
        let base = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_int16(true)
            .shader_float64(f.shader_float64)
            .shader_storage_image_write_without_format(f.shader_storage_image_write_without_format)
            .shader_storage_image_read_without_format(f.shader_storage_image_read_without_format)
            .shader_storage_image_extended_formats(f.shader_storage_image_extended_formats)
            .robust_buffer_access(false);
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(true)
            .uniform_and_storage_buffer16_bit_access(true)
            .variable_pointers_storage_buffer(f.variable_pointers)
            .variable_pointers(f.variable_pointers);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .buffer_device_address(true)
            .timeline_semaphore(true)
            .shader_int8(true)
            .shader_float16(f.shader_float16)
            .storage_buffer8_bit_access(true)
            .uniform_and_storage_buffer8_bit_access(true)
            .scalar_block_layout(f.scalar_block_layout)
            .vulkan_memory_model(f.vulkan_memory_model)
            .shader_buffer_int64_atomics(f.shader_buffer_int64_atomics)
            .shader_shared_int64_atomics(f.shader_shared_int64_atomics)
            .host_query_reset(f.host_query_reset)
            .shader_subgroup_extended_types(f.shader_subgroup_extended_types);
        // Subgroup size control for kernels using sub-groups
        // (`PhysicalDevice::subgroup_mode`).
        let mut sg = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
            .subgroup_size_control(f.subgroup_size_control)
            .compute_full_subgroups(f.compute_full_subgroups);
        let size_control = f.subgroup_size_control || f.compute_full_subgroups;
        let mut ext_names = Vec::new();
        if phys.ext.khr_portability_subset {
            ext_names.push(c"VK_KHR_portability_subset".as_ptr());
        }
        // Formatless storage reads of the formats that allow them
        // (StorageImageReadWithoutFormat without the device-wide feature).
        if phys.ext.khr_format_feature_flags2 && phys.properties.api_version < vk::API_VERSION_1_3 {
            ext_names.push(c"VK_KHR_format_feature_flags2".as_ptr());
        }
        if size_control
            && (phys.properties.api_version < vk::API_VERSION_1_3
                || phys.instance.api_version < vk::API_VERSION_1_3)
        {
            ext_names.push(c"VK_EXT_subgroup_size_control".as_ptr());
        }
        let mut features2 = vk::PhysicalDeviceFeatures2::default()
            .features(base)
            .push_next(&mut f11)
            .push_next(&mut f12);
        if size_control {
            features2 = features2.push_next(&mut sg);
        }
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_names)
            .push_next(&mut features2);
        // SAFETY: every struct in the chain lives until the call returns.
        let raw = unsafe { inst.create_device(phys.raw, &info, None) }.map_err(map_vk_err)?;
        // SAFETY: family/index were requested above.
        let queue = unsafe { raw.get_device_queue(phys.queue_family, 0) };
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: inst.clone(),
            device: raw.clone(),
            physical_device: phys.raw,
            debug_settings: Default::default(),
            buffer_device_address: true,
            allocation_sizes: Default::default(),
        })
        .map_err(|_| opencl_sys::CL_OUT_OF_RESOURCES)?;
        // `FERROCL_NO_PIPELINE_CACHE=1` (debug switch): pipelines are
        // created without a VkPipelineCache, nothing is loaded or saved.
        let pipeline_cache = if std::env::var_os("FERROCL_NO_PIPELINE_CACHE").is_some() {
            vk::PipelineCache::null()
        } else {
            let cache_data = super::pipeline_cache::load(&phys);
            let cache_info = vk::PipelineCacheCreateInfo::default().initial_data(&cache_data);
            // SAFETY: valid device; invalid initial data is ignored by the driver per spec.
            unsafe { raw.create_pipeline_cache(&cache_info, None) }
                .or_else(|_| {
                    // SAFETY: as above, with no initial data.
                    unsafe {
                        raw.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
                    }
                })
                .map_err(map_vk_err)?
        };
        Ok(Arc::new(Device {
            timestamp_period: phys.properties.limits.timestamp_period,
            queue_family: phys.queue_family,
            phys,
            raw,
            queue: Mutex::new(queue),
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            pipeline_cache,
            staging_pool: Default::default(),
            upload_arena: Default::default(),
            clock: std::sync::OnceLock::new(),
            samplers: Default::default(),
            descriptor_pools: Default::default(),
        }))
    }

    /// Writes the pipeline cache to disk (best effort).
    pub fn save_pipeline_cache(&self) {
        if self.pipeline_cache == vk::PipelineCache::null() {
            return;
        }
        // SAFETY: the cache belongs to this device.
        if let Ok(data) = unsafe { self.raw.get_pipeline_cache_data(self.pipeline_cache) } {
            super::pipeline_cache::store(&self.phys, &data);
        }
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        self.save_pipeline_cache();
        // SAFETY: all children hold an Arc to us, so none is alive; the
        // allocator must go before the device.
        unsafe {
            let _ = self.raw.device_wait_idle();
            self.samplers.destroy(&self.raw);
            self.descriptor_pools.destroy(&self.raw);
            ManuallyDrop::drop(&mut self.allocator);
            self.raw.destroy_pipeline_cache(self.pipeline_cache, None);
            self.raw.destroy_device(None);
        }
    }
}
