//! The logical Vulkan device behind one OpenCL device: the ash device, its
//! compute queue, the memory allocator and the on-disk pipeline cache.
//! Children (buffers, pipelines, queues) hold it by `Arc`.
//!
//! Layer: Vulkan execution, the hub of `crate::vk` (buffers, clock,
//! descriptors and images hold it and it holds their per-device state).

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

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
    /// Pipelines were created since the pipeline cache was last written.
    pipelines_unsaved: AtomicBool,
    /// Held while shader modules and pipelines are created or destroyed:
    /// one at a time per device. NVIDIA's driver (580, H100), given
    /// pipelines to compile from several threads at once, now and then
    /// ran another kernel's code at a new pipeline's first dispatch (a
    /// CTS test_vectors vec_align failure; reproduced with 16 threads each
    /// building, launching and releasing its own programs on one queue:
    /// 1 to 3 wrong launches in 640 with cold caches, none in four runs
    /// with this lock). Pipelines compile once per kernel and work-group
    /// shape, so the lock costs only parallel first launches. Application
    /// threads go before the background worker (`super::pipeline_lock`).
    pub pipeline_lock: super::pipeline_lock::PipelineLock,
    /// Recycled host-visible buffers (see `buffer::Staging`).
    pub staging_pool: super::buffer::StagingPool,
    /// Small per-launch uploads (see `buffer::UploadArena`).
    pub upload_arena: super::buffer::UploadArena,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// Device timestamps → host clock, measured on first use (see `clock`).
    pub clock: parking_lot::Mutex<Option<super::clock::Calibration>>,
    /// VkSamplers by OpenCL sampler encoding (see `image::Samplers`).
    pub samplers: super::image::Samplers,
    /// Descriptor pools for image/sampler kernel arguments.
    pub descriptor_pools: super::descriptors::DescriptorPools,
    /// VK_EXT_external_memory_host, enabled where the device has it and
    /// can import host memory for storage buffers (zero-copy
    /// CL_MEM_USE_HOST_PTR, `buffer::Buffer::import_host`).
    pub host_import: Option<HostImport>,
    /// VK_EXT_calibrated_timestamps, enabled where the device can read its
    /// timestamp counter together with CLOCK_MONOTONIC (`clock`).
    pub calibrated: Option<ash::ext::calibrated_timestamps::Device>,
    /// VK_EXT_conditional_rendering, enabled where the device has it:
    /// launches after a cut loop are skipped (`loop_status`).
    pub conditional_rendering: Option<ash::ext::conditional_rendering::Device>,
    /// VK_EXT_map_memory_placed, enabled where the device has the
    /// memoryMapPlaced feature: SVM memory mapped at its device address
    /// (`shared_memory`).
    pub placed: Option<super::shared_memory::Placed>,
    /// Whether a shared-memory allocation (`shared_memory`) succeeded
    /// here: decided by a small probe allocation on first ask
    /// ([`Device::shared_memory_works`]).
    pub(super) shared_probe: std::sync::OnceLock<bool>,
    /// VK_KHR_external_memory_fd, enabled where memory can be imported
    /// from fds (`external_memory`).
    pub memory_fd: Option<ash::khr::external_memory_fd::Device>,
    /// VK_KHR_external_semaphore_fd, enabled where semaphores can be
    /// exported or imported as fds (`external_semaphore`).
    pub semaphore_fd: Option<ash::khr::external_semaphore_fd::Device>,
    /// The device is lost (VK_ERROR_DEVICE_LOST) or treated as lost (a
    /// submission outran `FERROCL_KERNEL_TIMEOUT_MS`, `queue`): no command
    /// is recorded or submitted any more, each fails with
    /// CL_OUT_OF_RESOURCES. Never cleared: Vulkan offers no way back but a
    /// new VkDevice, and the work that timed out may still be running.
    lost: AtomicBool,
    /// robustBufferAccess and robustBufferAccess2 are enabled: accesses
    /// through descriptors outside their range read zero, writes are
    /// dropped (robust mode, `crate::core::robust`).
    pub robust_buffers: bool,
}

/// What importing application memory as device memory needs.
pub struct HostImport {
    pub fns: ash::ext::external_memory_host::Device,
    /// minImportedHostPointerAlignment (a power of two).
    pub alignment: u64,
    /// The import needs a dedicated allocation (DEDICATED_ONLY).
    pub dedicated: bool,
}

/// Whether `phys` has VK_EXT_calibrated_timestamps with both the device
/// and the CLOCK_MONOTONIC time domain (the host clock of `clock`).
fn can_calibrate(phys: &PhysicalDevice) -> bool {
    if !phys.ext.ext_calibrated_timestamps {
        return false;
    }
    let fns =
        ash::ext::calibrated_timestamps::Instance::new(&phys.instance.entry, &phys.instance.raw);
    // SAFETY: the physical device belongs to this instance.
    let domains = unsafe { fns.get_physical_device_calibrateable_time_domains(phys.raw) };
    domains.is_ok_and(|d| {
        d.contains(&vk::TimeDomainEXT::DEVICE) && d.contains(&vk::TimeDomainEXT::CLOCK_MONOTONIC)
    })
}

/// Whether `phys` can import host allocations as the memory of storage
/// buffers (VK_EXT_external_memory_host present, its alignment sane, and
/// vkGetPhysicalDeviceExternalBufferProperties reports the handle type
/// importable for the usage of cl_mem storage): `Some(dedicated_only)`.
fn can_import_host(phys: &PhysicalDevice) -> Option<bool> {
    let align = phys.min_imported_host_pointer_alignment;
    if !phys.ext.ext_external_memory_host || align == 0 || !align.is_power_of_two() {
        return None;
    }
    let info = vk::PhysicalDeviceExternalBufferInfo::default()
        .usage(super::buffer::storage_usage())
        .handle_type(vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT);
    let mut out = vk::ExternalBufferProperties::default();
    // SAFETY: plain query on a physical device of this instance.
    unsafe {
        phys.instance
            .raw
            .get_physical_device_external_buffer_properties(phys.raw, &info, &mut out)
    };
    let f = out.external_memory_properties.external_memory_features;
    f.contains(vk::ExternalMemoryFeatureFlags::IMPORTABLE)
        .then_some(f.contains(vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY))
}

impl Device {
    pub fn new(phys: Arc<PhysicalDevice>) -> CLResult<Arc<Device>> {
        let inst = &phys.instance.raw;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(phys.queue_family)
            .queue_priorities(&prio)];
        let f = &phys.features;
        // Robust mode (`crate::core::robust`): robustBufferAccess2 needs
        // robustBufferAccess. Both bound only accesses through descriptors,
        // which physical addressing (the default) does not make.
        let robust = f.robust_buffer_access
            && f.robust_buffer_access2
            && crate::core::robust::device_robustness_wanted();
        let mut robustness2 =
            vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_buffer_access2(true);
        let base = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_int16(true)
            .shader_float64(f.shader_float64)
            .shader_storage_image_write_without_format(f.shader_storage_image_write_without_format)
            .shader_storage_image_read_without_format(f.shader_storage_image_read_without_format)
            .shader_storage_image_extended_formats(f.shader_storage_image_extended_formats)
            .robust_buffer_access(robust);
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
            .vulkan_memory_model_device_scope(f.vulkan_memory_model_device_scope)
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
        // Zero-copy CL_MEM_USE_HOST_PTR (VK_KHR_external_memory, which it
        // requires, is core in Vulkan 1.1).
        let host_import = can_import_host(&phys);
        if host_import.is_some() {
            ext_names.push(c"VK_EXT_external_memory_host".as_ptr());
        }
        // External memory and semaphores (`external`).
        let external = phys.external.device_extensions();
        let memory_fd = phys.external.memory_fd();
        let semaphore_fd = phys.external.semaphore_fd();
        ext_names.extend(external);
        // Device and host clocks read together (`clock`).
        let calibrated = can_calibrate(&phys);
        if calibrated {
            ext_names.push(c"VK_EXT_calibrated_timestamps".as_ptr());
        }
        // Dispatches skipped by a word in memory (`loop_status`).
        let conditional = f.conditional_rendering;
        let mut cr = vk::PhysicalDeviceConditionalRenderingFeaturesEXT::default()
            .conditional_rendering(true);
        if conditional {
            ext_names.push(c"VK_EXT_conditional_rendering".as_ptr());
        }
        // Integer dot products (core in 1.3, else the extension) and
        // shader clocks, for the compiler's `DeviceCaps`.
        let dot = f.shader_integer_dot_product;
        let mut dot_features = vk::PhysicalDeviceShaderIntegerDotProductFeatures::default()
            .shader_integer_dot_product(true);
        if dot
            && (phys.properties.api_version < vk::API_VERSION_1_3
                || phys.instance.api_version < vk::API_VERSION_1_3)
        {
            ext_names.push(c"VK_KHR_shader_integer_dot_product".as_ptr());
        }
        let clock = f.shader_device_clock || f.shader_subgroup_clock;
        let mut clock_features = vk::PhysicalDeviceShaderClockFeaturesKHR::default()
            .shader_device_clock(f.shader_device_clock)
            .shader_subgroup_clock(f.shader_subgroup_clock);
        if clock {
            ext_names.push(c"VK_KHR_shader_clock".as_ptr());
        }
        // Native float atomics on buffers (`core::device::native_float_atomics`).
        let float_add = f.shader_buffer_float32_atomic_add || f.shader_buffer_float64_atomic_add;
        let mut af = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default()
            .shader_buffer_float32_atomics(f.shader_buffer_float32_atomic_add)
            .shader_buffer_float32_atomic_add(f.shader_buffer_float32_atomic_add)
            .shader_buffer_float64_atomics(f.shader_buffer_float64_atomic_add)
            .shader_buffer_float64_atomic_add(f.shader_buffer_float64_atomic_add);
        let float_min_max =
            f.shader_buffer_float32_atomic_min_max || f.shader_buffer_float64_atomic_min_max;
        // VK_EXT_shader_atomic_float2 requires VK_EXT_shader_atomic_float.
        let float_add = float_add || float_min_max;
        if float_add {
            ext_names.push(c"VK_EXT_shader_atomic_float".as_ptr());
        }
        let mut af2 = vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT::default()
            .shader_buffer_float32_atomic_min_max(f.shader_buffer_float32_atomic_min_max)
            .shader_buffer_float64_atomic_min_max(f.shader_buffer_float64_atomic_min_max);
        if float_min_max {
            ext_names.push(c"VK_EXT_shader_atomic_float2".as_ptr());
        }
        // Host mappings at the device address (SVM, `shared_memory`).
        let placed = f.memory_map_placed;
        let mut placed_features =
            vk::PhysicalDeviceMapMemoryPlacedFeaturesEXT::default().memory_map_placed(true);
        if placed {
            ext_names.push(c"VK_KHR_map_memory2".as_ptr());
            ext_names.push(c"VK_EXT_map_memory_placed".as_ptr());
        }
        let mut features2 = vk::PhysicalDeviceFeatures2::default()
            .features(base)
            .push_next(&mut f11)
            .push_next(&mut f12);
        if dot {
            features2 = features2.push_next(&mut dot_features);
        }
        if clock {
            features2 = features2.push_next(&mut clock_features);
        }
        if float_add {
            features2 = features2.push_next(&mut af);
        }
        if float_min_max {
            features2 = features2.push_next(&mut af2);
        }
        if size_control {
            features2 = features2.push_next(&mut sg);
        }
        if conditional {
            features2 = features2.push_next(&mut cr);
        }
        if placed {
            features2 = features2.push_next(&mut placed_features);
        }
        if robust {
            ext_names.push(c"VK_EXT_robustness2".as_ptr());
            features2 = features2.push_next(&mut robustness2);
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
        let host_import = host_import.map(|dedicated| HostImport {
            fns: ash::ext::external_memory_host::Device::new(inst, &raw),
            alignment: phys.min_imported_host_pointer_alignment,
            dedicated,
        });
        let calibrated =
            calibrated.then(|| ash::ext::calibrated_timestamps::Device::new(inst, &raw));
        let conditional_rendering =
            conditional.then(|| ash::ext::conditional_rendering::Device::new(inst, &raw));
        let placed = placed.then(|| super::shared_memory::Placed {
            fns: ash::khr::map_memory2::Device::new(inst, &raw),
            alignment: phys.min_placed_memory_map_alignment,
        });
        let memory_fd = memory_fd.then(|| ash::khr::external_memory_fd::Device::new(inst, &raw));
        let semaphore_fd =
            semaphore_fd.then(|| ash::khr::external_semaphore_fd::Device::new(inst, &raw));
        let device = Arc::new(Device {
            memory_fd,
            semaphore_fd,
            placed,
            shared_probe: std::sync::OnceLock::new(),
            conditional_rendering,
            host_import,
            calibrated,
            timestamp_period: phys.properties.limits.timestamp_period,
            queue_family: phys.queue_family,
            phys,
            raw,
            queue: Mutex::new(queue),
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            pipeline_cache,
            pipelines_unsaved: AtomicBool::new(false),
            pipeline_lock: Default::default(),
            staging_pool: Default::default(),
            upload_arena: Default::default(),
            clock: parking_lot::Mutex::new(None),
            samplers: Default::default(),
            descriptor_pools: Default::default(),
            lost: AtomicBool::new(false),
            robust_buffers: robust,
        });
        DEVICES.lock().push(Arc::downgrade(&device));
        Ok(device)
    }

    /// Whether the device is lost (see `Device::lost`).
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Marks the device lost (see `Device::lost`); `why` goes to the
    /// `FERROCL_LOG` log the first time.
    pub fn mark_lost(&self, why: &str) {
        if !self.lost.swap(true, Ordering::AcqRel) && std::env::var_os("FERROCL_LOG").is_some() {
            eprintln!("ferrocl: device {} lost: {why}", self.phys.name());
        }
    }

    /// Notes `e`, the error of a Vulkan call on this device: a lost device
    /// is marked so. Returns `e` as a CL error code.
    pub fn vk_err(&self, e: vk::Result) -> opencl_sys::cl_int {
        if e == vk::Result::ERROR_DEVICE_LOST {
            self.mark_lost("VK_ERROR_DEVICE_LOST");
        }
        map_vk_err(e)
    }

    /// Notes that a pipeline was created through the pipeline cache (the
    /// cache has something new to write).
    pub fn pipeline_created(&self) {
        self.pipelines_unsaved.store(true, Ordering::Release);
    }

    /// Writes the pipeline cache to disk (best effort) if pipelines were
    /// created since it was last written.
    pub fn save_pipeline_cache(&self) {
        if self.pipeline_cache == vk::PipelineCache::null()
            || !self.pipelines_unsaved.swap(false, Ordering::AcqRel)
        {
            return;
        }
        // SAFETY: the cache belongs to this device.
        if let Ok(data) = unsafe { self.raw.get_pipeline_cache_data(self.pipeline_cache) } {
            super::pipeline_cache::store(&self.phys, &data);
        }
    }
}

/// Every device made, for [`save_all_pipeline_caches`].
static DEVICES: Mutex<Vec<Weak<Device>>> = parking_lot::const_mutex(Vec::new());

/// Writes each live device's pipeline cache to disk where pipelines were
/// created since it was last written. Devices live as long as the process
/// (the platform is never released) and applications often never release
/// their kernels, so the background worker (`crate::core::prewarm`) runs
/// this whenever its queue runs dry: the next run then finds the
/// pipelines of this one.
pub fn save_all_pipeline_caches() {
    let devices: Vec<Arc<Device>> = DEVICES.lock().iter().filter_map(Weak::upgrade).collect();
    for d in devices {
        d.save_pipeline_cache();
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        self.save_pipeline_cache();
        if self.is_lost() {
            // Work that outran the kernel timeout may still be running:
            // waiting for it could hang, destroying under it is undefined.
            // The device and its memory are left to the process's end.
            return;
        }
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
