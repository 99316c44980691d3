//! The Vulkan instance and the probing of physical devices: which ones can
//! back an OpenCL device, and everything the device queries are derived
//! from (one table of properties and features per physical device).
//!
//! Layer: Vulkan execution, the bottom of `crate::vk`.

use std::ffi::CStr;
use std::sync::Arc;

use ash::vk;

/// Shared Vulkan instance state; children hold it by `Arc`.
pub struct Instance {
    pub entry: ash::Entry,
    pub raw: ash::Instance,
    /// Instance API version actually created.
    pub api_version: u32,
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every child object (devices) holds an Arc to us, so none is
        // alive when this runs.
        unsafe { self.raw.destroy_instance(None) };
    }
}

/// Everything probed from one physical device.
pub struct PhysicalDevice {
    pub instance: Arc<Instance>,
    pub raw: vk::PhysicalDevice,
    pub properties: vk::PhysicalDeviceProperties,
    pub driver_name: String,
    pub driver_info: String,
    /// VkPhysicalDeviceDriverProperties::driverID.
    pub driver_id: vk::DriverId,
    pub device_uuid: [u8; 16],
    pub driver_uuid: [u8; 16],
    pub subgroup_size: u32,
    /// Stages/operations of VkPhysicalDeviceSubgroupProperties.
    pub subgroup_ops: vk::SubgroupFeatureFlags,
    pub subgroup_stages: vk::ShaderStageFlags,
    /// VkPhysicalDeviceSubgroupSizeControlProperties (Vulkan 1.3 or
    /// VK_EXT_subgroup_size_control); `None` without either.
    pub subgroup_size_control: Option<SubgroupSizeControl>,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    pub queue_family: u32,
    pub timestamp_valid_bits: u32,
    /// Enabled-able features we care about.
    pub features: Features,
    /// Extensions the device has that we use, each `true` when present.
    pub ext: Extensions,
    /// VK_NV_shader_sm_builtins: number of SMs.
    pub sm_count: Option<u32>,
    /// VK_EXT_pci_bus_info.
    pub pci_bus: Option<vk::PhysicalDevicePCIBusInfoPropertiesEXT<'static>>,
    pub max_memory_allocation_size: u64,
    /// VkPhysicalDeviceMaintenance4Properties::maxBufferSize (`None`
    /// without Vulkan 1.3 / VK_KHR_maintenance4).
    pub max_buffer_size: Option<u64>,
    /// VK_EXT_map_memory_placed's minPlacedMemoryMapAlignment (0 without).
    pub min_placed_memory_map_alignment: u64,
    /// VK_EXT_external_memory_host's minImportedHostPointerAlignment: host
    /// pointers and sizes imported as device memory are multiples of it
    /// (0 without the extension).
    pub min_imported_host_pointer_alignment: u64,
    pub max_storage_buffer_range: u32,
    /// shaderDenormPreserveFloat16/32/64.
    pub shader_fp_denorm_preserve: ferrocl_compiler::FloatWidths,
    /// shaderSignedZeroInfNanPreserveFloat16/32/64.
    pub shader_fp_inf_nan_preserve: ferrocl_compiler::FloatWidths,
    /// Accelerated integer dot products of 4x8-bit vectors and of packed
    /// 4x8-bit values (all false without shaderIntegerDotProduct).
    pub dot_acceleration_8bit: DotAcceleration,
    pub dot_acceleration_4x8bit_packed: DotAcceleration,
    /// External memory and semaphore handle types the device can import
    /// and export (`super::external`).
    pub external: super::external::ExternalCaps,
    /// Format properties queried so far (see [`PhysicalDevice::format_features`]).
    formats: parking_lot::Mutex<std::collections::HashMap<vk::Format, FormatFeatures>>,
}

// SAFETY: the raw Vulkan structs hold only plain data (their p_next pointers
// are null once probing is done).
unsafe impl Send for PhysicalDevice {}
// SAFETY: as above; nothing is mutated after probing.
unsafe impl Sync for PhysicalDevice {}

/// VkPhysicalDeviceSubgroupSizeControlProperties.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubgroupSizeControl {
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
    pub max_compute_workgroup_subgroups: u32,
    pub required_subgroup_size_stages: vk::ShaderStageFlags,
}

/// How pipelines of kernels that use sub-groups are created
/// (`PhysicalDevice::subgroup_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubgroupMode {
    /// The subgroup size every such pipeline runs with.
    pub size: u32,
    /// Pipelines set `requiredSubgroupSize` = `size` (the device has
    /// several sizes).
    pub required_size: bool,
    /// computeFullSubgroups is enabled: pipelines whose local size x is a
    /// multiple of `size` ask for full subgroups.
    pub full_subgroups: bool,
    /// The largest work-group such a pipeline may have
    /// (maxComputeWorkgroupSubgroups × size with a required size).
    pub max_invocations: u32,
}

/// The optional/required Vulkan features ferrocl looks at.
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    pub shader_int64: bool,
    pub shader_int16: bool,
    pub shader_int8: bool,
    pub shader_float64: bool,
    pub shader_float16: bool,
    pub storage_buffer_8bit: bool,
    pub storage_buffer_16bit: bool,
    pub buffer_device_address: bool,
    pub timeline_semaphore: bool,
    pub scalar_block_layout: bool,
    pub vulkan_memory_model: bool,
    pub vulkan_memory_model_device_scope: bool,
    pub shader_buffer_int64_atomics: bool,
    pub shader_shared_int64_atomics: bool,
    /// subgroupSizeControl (Vulkan 1.3 / VK_EXT_subgroup_size_control).
    pub subgroup_size_control: bool,
    /// computeFullSubgroups (same struct).
    pub compute_full_subgroups: bool,
    /// shaderSubgroupExtendedTypes (Vulkan 1.2): subgroup operations on
    /// 8/16/64-bit integers and half.
    pub shader_subgroup_extended_types: bool,
    pub robust_buffer_access: bool,
    /// robustBufferAccess2 (VK_EXT_robustness2): out-of-bounds accesses
    /// through descriptors read zero and drop writes (robust mode,
    /// `crate::core::robust`).
    pub robust_buffer_access2: bool,
    pub variable_pointers: bool,
    pub host_query_reset: bool,
    /// Storage images written through `Unknown`-format image variables.
    pub shader_storage_image_write_without_format: bool,
    /// Storage images read through `Unknown`-format image variables (all
    /// formats; per-format support may exist without it, see
    /// [`PhysicalDevice::format_features`]).
    pub shader_storage_image_read_without_format: bool,
    pub shader_storage_image_extended_formats: bool,
    /// shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float).
    pub shader_buffer_float32_atomic_add: bool,
    /// shaderBufferFloat64AtomicAdd (VK_EXT_shader_atomic_float).
    pub shader_buffer_float64_atomic_add: bool,
    /// shaderBufferFloat32AtomicMinMax (VK_EXT_shader_atomic_float2).
    pub shader_buffer_float32_atomic_min_max: bool,
    /// shaderBufferFloat64AtomicMinMax (VK_EXT_shader_atomic_float2).
    pub shader_buffer_float64_atomic_min_max: bool,
    /// conditionalRendering (VK_EXT_conditional_rendering): dispatches
    /// skipped by a word in memory (`loop_status`).
    pub conditional_rendering: bool,
    /// shaderIntegerDotProduct (Vulkan 1.3 / VK_KHR_shader_integer_dot_product):
    /// OpSDot/OpUDot/OpSUDot in shaders.
    pub shader_integer_dot_product: bool,
    /// shaderDeviceClock (VK_KHR_shader_clock).
    pub shader_device_clock: bool,
    /// shaderSubgroupClock (VK_KHR_shader_clock).
    pub shader_subgroup_clock: bool,
    /// memoryMapPlaced (VK_EXT_map_memory_placed, with VK_KHR_map_memory2).
    pub memory_map_placed: bool,
}

/// Which integer dot products of 8-bit inputs the device says are
/// accelerated (VkPhysicalDeviceShaderIntegerDotProductProperties), for one
/// input form: 4-component vectors or packed 32-bit values. The fields are
/// cl_device_integer_dot_product_acceleration_properties_khr's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DotAcceleration {
    pub signed: bool,
    pub unsigned: bool,
    pub mixed: bool,
    pub sat_signed: bool,
    pub sat_unsigned: bool,
    pub sat_mixed: bool,
}

/// Device extensions that change what ferrocl does (wgpu-hal style: one
/// field per extension).
#[derive(Clone, Copy, Debug, Default)]
pub struct Extensions {
    /// VK_NV_shader_sm_builtins: SM count for CL_DEVICE_MAX_COMPUTE_UNITS.
    pub nv_shader_sm_builtins: bool,
    /// VK_EXT_pci_bus_info: CL_DEVICE_PCI_BUS_INFO_KHR.
    pub ext_pci_bus_info: bool,
    /// VK_EXT_external_memory_host: zero-copy USE_HOST_PTR.
    pub ext_external_memory_host: bool,
    /// VK_KHR_portability_subset must be enabled where present.
    pub khr_portability_subset: bool,
    /// VK_KHR_format_feature_flags2 (core in Vulkan 1.3): per-format
    /// STORAGE_READ/WRITE_WITHOUT_FORMAT bits.
    pub khr_format_feature_flags2: bool,
    /// VK_EXT_subgroup_size_control (core in Vulkan 1.3).
    pub ext_subgroup_size_control: bool,
    /// VK_EXT_calibrated_timestamps: device and host clocks read together
    /// (`clock`).
    pub ext_calibrated_timestamps: bool,
    /// VK_EXT_conditional_rendering (`Features::conditional_rendering`).
    pub ext_conditional_rendering: bool,
    /// VK_EXT_robustness2 (robustBufferAccess2).
    pub ext_robustness2: bool,
    /// VK_KHR_shader_integer_dot_product (core in Vulkan 1.3).
    pub khr_shader_integer_dot_product: bool,
    /// VK_KHR_shader_clock: OpReadClockKHR (cl_khr_kernel_clock).
    pub khr_shader_clock: bool,
    /// VK_KHR_maintenance4 (core in Vulkan 1.3): maxBufferSize.
    pub khr_maintenance4: bool,
    /// VK_KHR_map_memory2 (needed by VK_EXT_map_memory_placed).
    pub khr_map_memory2: bool,
    /// VK_EXT_map_memory_placed: host mappings at a chosen address (SVM,
    /// `shared_memory`).
    pub ext_map_memory_placed: bool,
    /// VK_EXT_shader_atomic_float: native float atomic add
    /// (`Features::shader_buffer_float32_atomic_add`).
    pub ext_shader_atomic_float: bool,
    /// VK_EXT_shader_atomic_float2: native float atomic min/max.
    pub ext_shader_atomic_float2: bool,
    /// VK_KHR_external_memory_fd: memory imported from an opaque fd
    /// (cl_khr_external_memory_opaque_fd, `external`).
    pub khr_external_memory_fd: bool,
    /// VK_EXT_external_memory_dma_buf: memory imported from a dma-buf
    /// (cl_khr_external_memory_dma_buf, `external`).
    pub ext_external_memory_dma_buf: bool,
    /// VK_KHR_external_semaphore_fd: semaphores exported and imported as
    /// opaque or sync fds (cl_khr_external_semaphore_*, `external`).
    pub khr_external_semaphore_fd: bool,
}

/// What one format supports (VkFormatProperties3 bits where the device
/// has them, else VkFormatProperties widened).
#[derive(Clone, Copy, Debug, Default)]
pub struct FormatFeatures {
    pub optimal: vk::FormatFeatureFlags2,
    pub buffer: vk::FormatFeatureFlags2,
}

#[derive(Debug)]
pub enum ProbeError {
    NoLoader(String),
    Vulkan(vk::Result),
}

impl Instance {
    /// Loads the Vulkan loader and creates an instance (Vulkan 1.3 when the
    /// loader offers it, else 1.2).
    pub fn new() -> Result<Arc<Instance>, ProbeError> {
        // SAFETY: loading the system Vulkan loader; ash keeps the library alive
        // inside `Entry`.
        let entry =
            unsafe { ash::Entry::load() }.map_err(|e| ProbeError::NoLoader(e.to_string()))?;
        // SAFETY: plain query of the loader.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(ProbeError::Vulkan)?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_2 {
            return Err(ProbeError::NoLoader(format!(
                "Vulkan loader is {}.{}, ferrocl needs 1.2",
                vk::api_version_major(loader_version),
                vk::api_version_minor(loader_version)
            )));
        }
        let api_version = loader_version.min(vk::API_VERSION_1_3);
        let app = vk::ApplicationInfo::default()
            .application_name(c"ferrocl")
            .engine_name(c"ferrocl")
            .api_version(api_version);
        let mut layers = Vec::new();
        if std::env::var_os("FERROCL_VALIDATION").is_some() {
            layers.push(c"VK_LAYER_KHRONOS_validation".as_ptr());
        }
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers);
        // SAFETY: info and the strings it points at outlive the call.
        let raw = unsafe { entry.create_instance(&info, None) }.map_err(ProbeError::Vulkan)?;
        Ok(Arc::new(Instance {
            entry,
            raw,
            api_version,
        }))
    }

    /// Probes every physical device; returns those that can back an
    /// OpenCL device, with the reason for each one rejected.
    pub fn probe_devices(self: &Arc<Self>) -> (Vec<PhysicalDevice>, Vec<String>) {
        let mut ok = Vec::new();
        let mut rejected = Vec::new();
        // SAFETY: instance is alive.
        let raws = match unsafe { self.raw.enumerate_physical_devices() } {
            Ok(r) => r,
            Err(e) => {
                rejected.push(format!("vkEnumeratePhysicalDevices: {e}"));
                return (ok, rejected);
            }
        };
        for raw in raws {
            match PhysicalDevice::probe(self, raw) {
                Ok(pd) => ok.push(pd),
                Err(why) => rejected.push(why),
            }
        }
        (ok, rejected)
    }
}

fn cstr_field(bytes: &[std::ffi::c_char]) -> String {
    // SAFETY: Vulkan guarantees NUL-terminated fixed-size string fields.
    unsafe { CStr::from_ptr(bytes.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

impl PhysicalDevice {
    /// Byte alignment of every buffer's start (CL_DEVICE_MEM_BASE_ADDR_ALIGN
    /// / 8): the storage-buffer offset alignment, and at least 128 (the
    /// size of the largest OpenCL C type, double16/long16).
    pub fn base_addr_align(&self) -> u64 {
        self.properties
            .limits
            .min_storage_buffer_offset_alignment
            .max(128)
    }

    fn probe(instance: &Arc<Instance>, raw: vk::PhysicalDevice) -> Result<PhysicalDevice, String> {
        let inst = &instance.raw;
        // SAFETY: raw comes from this instance.
        let properties = unsafe { inst.get_physical_device_properties(raw) };
        let name = cstr_field(&properties.device_name);
        if properties.api_version < vk::API_VERSION_1_2 {
            return Err(format!("{name}: Vulkan 1.2 required"));
        }
        // SAFETY: raw comes from this instance.
        let exts = unsafe { inst.enumerate_device_extension_properties(raw) }
            .map_err(|e| format!("{name}: {e}"))?;
        let has = |n: &CStr| {
            exts.iter()
                .any(|e| cstr_field(&e.extension_name).as_str() == n.to_str().unwrap_or(""))
        };
        let ext = Extensions {
            nv_shader_sm_builtins: has(c"VK_NV_shader_sm_builtins"),
            ext_pci_bus_info: has(c"VK_EXT_pci_bus_info"),
            ext_external_memory_host: has(c"VK_EXT_external_memory_host"),
            khr_portability_subset: has(c"VK_KHR_portability_subset"),
            khr_format_feature_flags2: has(c"VK_KHR_format_feature_flags2"),
            ext_subgroup_size_control: has(c"VK_EXT_subgroup_size_control"),
            ext_calibrated_timestamps: has(c"VK_EXT_calibrated_timestamps"),
            ext_conditional_rendering: has(c"VK_EXT_conditional_rendering"),
            ext_robustness2: has(c"VK_EXT_robustness2"),
            khr_shader_integer_dot_product: has(c"VK_KHR_shader_integer_dot_product"),
            khr_shader_clock: has(c"VK_KHR_shader_clock"),
            khr_maintenance4: has(c"VK_KHR_maintenance4"),
            khr_map_memory2: has(c"VK_KHR_map_memory2"),
            ext_map_memory_placed: has(c"VK_EXT_map_memory_placed"),
            ext_shader_atomic_float: has(c"VK_EXT_shader_atomic_float"),
            ext_shader_atomic_float2: has(c"VK_EXT_shader_atomic_float2"),
            khr_external_memory_fd: has(c"VK_KHR_external_memory_fd"),
            ext_external_memory_dma_buf: has(c"VK_EXT_external_memory_dma_buf"),
            khr_external_semaphore_fd: has(c"VK_KHR_external_semaphore_fd"),
        };
        // Integer dot products: core in 1.3 (when the instance is 1.3
        // too), else the extension.
        let dot_product = (properties.api_version >= vk::API_VERSION_1_3
            && instance.api_version >= vk::API_VERSION_1_3)
            || ext.khr_shader_integer_dot_product;
        // Subgroup size control: core in 1.3 (when the instance is 1.3 too),
        // else the extension.
        let size_control = (properties.api_version >= vk::API_VERSION_1_3
            && instance.api_version >= vk::API_VERSION_1_3)
            || ext.ext_subgroup_size_control;
        let mut sg_props = vk::PhysicalDeviceSubgroupSizeControlProperties::default();

        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut idp = vk::PhysicalDeviceIDProperties::default();
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut maint3 = vk::PhysicalDeviceMaintenance3Properties::default();
        let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
        let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
        let mut pci = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
        let mut host_mem = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut dot_props = vk::PhysicalDeviceShaderIntegerDotProductProperties::default();
        let mut maint4 = vk::PhysicalDeviceMaintenance4Properties::default();
        let mut placed_props = vk::PhysicalDeviceMapMemoryPlacedPropertiesEXT::default();
        // maxBufferSize: Vulkan 1.3 (with a 1.3 instance) or VK_KHR_maintenance4.
        let maintenance4 = (properties.api_version >= vk::API_VERSION_1_3
            && instance.api_version >= vk::API_VERSION_1_3)
            || ext.khr_maintenance4;
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut driver)
            .push_next(&mut idp)
            .push_next(&mut subgroup)
            .push_next(&mut maint3)
            .push_next(&mut fc);
        if ext.nv_shader_sm_builtins {
            props2 = props2.push_next(&mut sm);
        }
        if ext.ext_pci_bus_info {
            props2 = props2.push_next(&mut pci);
        }
        if size_control {
            props2 = props2.push_next(&mut sg_props);
        }
        if ext.ext_external_memory_host {
            props2 = props2.push_next(&mut host_mem);
        }
        if dot_product {
            props2 = props2.push_next(&mut dot_props);
        }
        if maintenance4 {
            props2 = props2.push_next(&mut maint4);
        }
        if ext.khr_map_memory2 && ext.ext_map_memory_placed {
            props2 = props2.push_next(&mut placed_props);
        }
        // SAFETY: the chain only holds structs alive for this call.
        unsafe { inst.get_physical_device_properties2(raw, &mut props2) };

        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut sg_features = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
        let mut cr_features = vk::PhysicalDeviceConditionalRenderingFeaturesEXT::default();
        let mut dot_features = vk::PhysicalDeviceShaderIntegerDotProductFeatures::default();
        let mut clock_features = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
        let mut af_features = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
        let mut af2_features = vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT::default();
        let mut placed_features = vk::PhysicalDeviceMapMemoryPlacedFeaturesEXT::default();
        let placed = ext.khr_map_memory2 && ext.ext_map_memory_placed;
        let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut f11)
            .push_next(&mut f12);
        if ext.ext_shader_atomic_float {
            f2 = f2.push_next(&mut af_features);
        }
        if ext.ext_shader_atomic_float2 {
            f2 = f2.push_next(&mut af2_features);
        }
        if size_control {
            f2 = f2.push_next(&mut sg_features);
        }
        if ext.ext_conditional_rendering {
            f2 = f2.push_next(&mut cr_features);
        }
        if dot_product {
            f2 = f2.push_next(&mut dot_features);
        }
        if ext.khr_shader_clock {
            f2 = f2.push_next(&mut clock_features);
        }
        if placed {
            f2 = f2.push_next(&mut placed_features);
        }
        if ext.ext_robustness2 {
            f2 = f2.push_next(&mut robustness2);
        }
        // SAFETY: as above.
        unsafe { inst.get_physical_device_features2(raw, &mut f2) };
        let f = f2.features;
        let features = Features {
            shader_int64: f.shader_int64 != 0,
            shader_int16: f.shader_int16 != 0,
            shader_int8: f12.shader_int8 != 0,
            shader_float64: f.shader_float64 != 0,
            shader_float16: f12.shader_float16 != 0,
            storage_buffer_8bit: f12.storage_buffer8_bit_access != 0,
            storage_buffer_16bit: f11.storage_buffer16_bit_access != 0,
            buffer_device_address: f12.buffer_device_address != 0,
            timeline_semaphore: f12.timeline_semaphore != 0,
            scalar_block_layout: f12.scalar_block_layout != 0,
            vulkan_memory_model: f12.vulkan_memory_model != 0,
            vulkan_memory_model_device_scope: f12.vulkan_memory_model_device_scope != 0,
            shader_buffer_int64_atomics: f12.shader_buffer_int64_atomics != 0,
            shader_shared_int64_atomics: f12.shader_shared_int64_atomics != 0,
            subgroup_size_control: size_control && sg_features.subgroup_size_control != 0,
            compute_full_subgroups: size_control && sg_features.compute_full_subgroups != 0,
            shader_subgroup_extended_types: f12.shader_subgroup_extended_types != 0,
            robust_buffer_access: f.robust_buffer_access != 0,
            robust_buffer_access2: ext.ext_robustness2 && robustness2.robust_buffer_access2 != 0,
            variable_pointers: f11.variable_pointers != 0,
            host_query_reset: f12.host_query_reset != 0,
            shader_storage_image_write_without_format: f.shader_storage_image_write_without_format
                != 0,
            shader_storage_image_read_without_format: f.shader_storage_image_read_without_format
                != 0,
            shader_storage_image_extended_formats: f.shader_storage_image_extended_formats != 0,
            conditional_rendering: ext.ext_conditional_rendering
                && cr_features.conditional_rendering != 0,
            shader_buffer_float32_atomic_add: ext.ext_shader_atomic_float
                && af_features.shader_buffer_float32_atomic_add != 0,
            shader_buffer_float64_atomic_add: ext.ext_shader_atomic_float
                && af_features.shader_buffer_float64_atomic_add != 0,
            shader_buffer_float32_atomic_min_max: ext.ext_shader_atomic_float2
                && af2_features.shader_buffer_float32_atomic_min_max != 0,
            shader_buffer_float64_atomic_min_max: ext.ext_shader_atomic_float2
                && af2_features.shader_buffer_float64_atomic_min_max != 0,
            shader_integer_dot_product: dot_product && dot_features.shader_integer_dot_product != 0,
            shader_device_clock: ext.khr_shader_clock && clock_features.shader_device_clock != 0,
            shader_subgroup_clock: ext.khr_shader_clock
                && clock_features.shader_subgroup_clock != 0,
            memory_map_placed: placed && placed_features.memory_map_placed != 0,
        };
        let accelerated = |on: u32| features.shader_integer_dot_product && on != 0;
        let p = &dot_props;
        let dot_acceleration_8bit = DotAcceleration {
            signed: accelerated(p.integer_dot_product8_bit_signed_accelerated),
            unsigned: accelerated(p.integer_dot_product8_bit_unsigned_accelerated),
            mixed: accelerated(p.integer_dot_product8_bit_mixed_signedness_accelerated),
            sat_signed: accelerated(
                p.integer_dot_product_accumulating_saturating8_bit_signed_accelerated,
            ),
            sat_unsigned: accelerated(
                p.integer_dot_product_accumulating_saturating8_bit_unsigned_accelerated,
            ),
            sat_mixed: accelerated(
                p.integer_dot_product_accumulating_saturating8_bit_mixed_signedness_accelerated,
            ),
        };
        let dot_acceleration_4x8bit_packed = DotAcceleration {
            signed: accelerated(p.integer_dot_product4x8_bit_packed_signed_accelerated),
            unsigned: accelerated(p.integer_dot_product4x8_bit_packed_unsigned_accelerated),
            mixed: accelerated(p.integer_dot_product4x8_bit_packed_mixed_signedness_accelerated),
            sat_signed: accelerated(
                p.integer_dot_product_accumulating_saturating4x8_bit_packed_signed_accelerated,
            ),
            sat_unsigned: accelerated(
                p.integer_dot_product_accumulating_saturating4x8_bit_packed_unsigned_accelerated,
            ),
            sat_mixed: accelerated(
                p.integer_dot_product_accumulating_saturating4x8_bit_packed_mixed_signedness_accelerated,
            ),
        };
        let missing: Vec<&str> = [
            ("shaderInt64", features.shader_int64),
            ("bufferDeviceAddress", features.buffer_device_address),
            ("timelineSemaphore", features.timeline_semaphore),
            ("shaderInt8", features.shader_int8),
            ("shaderInt16", features.shader_int16),
            ("storageBuffer8BitAccess", features.storage_buffer_8bit),
            ("storageBuffer16BitAccess", features.storage_buffer_16bit),
        ]
        .iter()
        .filter(|(_, have)| !have)
        .map(|(n, _)| *n)
        .collect();
        if !missing.is_empty() {
            return Err(format!(
                "{name}: missing Vulkan features {}",
                missing.join(", ")
            ));
        }

        // SAFETY: raw comes from this instance.
        let families = unsafe { inst.get_physical_device_queue_family_properties(raw) };
        // Prefer a compute queue family without graphics (async compute), else any with compute.
        let pick = families
            .iter()
            .position(|q| {
                q.queue_flags.contains(vk::QueueFlags::COMPUTE)
                    && !q.queue_flags.contains(vk::QueueFlags::GRAPHICS)
                    && q.timestamp_valid_bits > 0
            })
            .or_else(|| {
                families
                    .iter()
                    .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            });
        let Some(queue_family) = pick else {
            return Err(format!("{name}: no compute queue"));
        };
        // SAFETY: raw comes from this instance.
        let memory = unsafe { inst.get_physical_device_memory_properties(raw) };
        Ok(PhysicalDevice {
            instance: instance.clone(),
            raw,
            properties,
            driver_name: cstr_field(&driver.driver_name),
            driver_info: cstr_field(&driver.driver_info),
            driver_id: driver.driver_id,
            device_uuid: idp.device_uuid,
            driver_uuid: idp.driver_uuid,
            subgroup_size: subgroup.subgroup_size.max(1),
            subgroup_ops: subgroup.supported_operations,
            subgroup_stages: subgroup.supported_stages,
            subgroup_size_control: size_control.then_some(SubgroupSizeControl {
                min_subgroup_size: sg_props.min_subgroup_size,
                max_subgroup_size: sg_props.max_subgroup_size,
                max_compute_workgroup_subgroups: sg_props.max_compute_workgroup_subgroups,
                required_subgroup_size_stages: sg_props.required_subgroup_size_stages,
            }),
            memory,
            queue_family: queue_family as u32,
            timestamp_valid_bits: families[queue_family].timestamp_valid_bits,
            features,
            ext,
            sm_count: ext.nv_shader_sm_builtins.then_some(sm.shader_sm_count),
            pci_bus: ext
                .ext_pci_bus_info
                .then_some(vk::PhysicalDevicePCIBusInfoPropertiesEXT {
                    p_next: std::ptr::null_mut(),
                    ..pci
                }),
            max_memory_allocation_size: maint3.max_memory_allocation_size,
            max_buffer_size: maintenance4.then_some(maint4.max_buffer_size),
            min_placed_memory_map_alignment: placed_props.min_placed_memory_map_alignment,
            min_imported_host_pointer_alignment: if ext.ext_external_memory_host {
                host_mem.min_imported_host_pointer_alignment
            } else {
                0
            },
            max_storage_buffer_range: properties.limits.max_storage_buffer_range,
            shader_fp_denorm_preserve: ferrocl_compiler::FloatWidths::from_flags(
                fc.shader_denorm_preserve_float16,
                fc.shader_denorm_preserve_float32,
                fc.shader_denorm_preserve_float64,
            ),
            shader_fp_inf_nan_preserve: ferrocl_compiler::FloatWidths::from_flags(
                fc.shader_signed_zero_inf_nan_preserve_float16,
                fc.shader_signed_zero_inf_nan_preserve_float32,
                fc.shader_signed_zero_inf_nan_preserve_float64,
            ),
            dot_acceleration_8bit,
            dot_acceleration_4x8bit_packed,
            formats: Default::default(),
            external: super::external::probe(&instance.raw, raw, &ext),
        })
    }

    pub fn name(&self) -> String {
        cstr_field(&self.properties.device_name)
    }

    /// Size of the largest device-local heap.
    pub fn device_local_heap_size(&self) -> u64 {
        self.memory.memory_heaps[..self.memory.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0)
    }

    /// Whether VkFormatProperties3 (per-format formatless storage access)
    /// can be queried: Vulkan 1.3 or VK_KHR_format_feature_flags2.
    pub fn has_format_features2(&self) -> bool {
        self.properties.api_version >= vk::API_VERSION_1_3 || self.ext.khr_format_feature_flags2
    }

    /// The features of `format` for optimal-tiling images and for buffers
    /// (queried once per format).
    pub fn format_features(&self, format: vk::Format) -> FormatFeatures {
        if let Some(f) = self.formats.lock().get(&format) {
            return *f;
        }
        let inst = &self.instance.raw;
        let mut p3 = vk::FormatProperties3::default();
        let mut p2 = vk::FormatProperties2::default();
        let features = if self.has_format_features2() {
            p2 = p2.push_next(&mut p3);
            // SAFETY: raw comes from this instance; the chain lives for the call.
            unsafe { inst.get_physical_device_format_properties2(self.raw, format, &mut p2) };
            FormatFeatures {
                optimal: p3.optimal_tiling_features,
                buffer: p3.buffer_features,
            }
        } else {
            // SAFETY: as above.
            unsafe { inst.get_physical_device_format_properties2(self.raw, format, &mut p2) };
            let p = p2.format_properties;
            let widen =
                |f: vk::FormatFeatureFlags| vk::FormatFeatureFlags2::from_raw(f.as_raw() as u64);
            FormatFeatures {
                optimal: widen(p.optimal_tiling_features),
                buffer: widen(p.buffer_features),
            }
        };
        self.formats.lock().insert(format, features);
        features
    }

    /// Whether, and how, kernels using sub-groups can run with a subgroup
    /// size the runtime knows (`SubgroupMode::size`, what
    /// CL_DEVICE_MAX_NUM_SUB_GROUPS & co. are computed from): `None` where
    /// the device lacks what OpenCL sub-groups need (subgroups in compute;
    /// basic, vote, ballot, arithmetic and shuffle operations;
    /// shaderSubgroupExtendedTypes for 64-bit and half operands) or where
    /// the size may vary between pipelines and cannot be fixed.
    pub fn subgroup_mode(&self) -> Option<SubgroupMode> {
        use vk::SubgroupFeatureFlags as S;
        let needed = S::BASIC | S::VOTE | S::BALLOT | S::ARITHMETIC | S::SHUFFLE;
        let size = self.subgroup_size;
        if !self.subgroup_stages.contains(vk::ShaderStageFlags::COMPUTE)
            || !self.subgroup_ops.contains(needed)
            || !self.features.shader_subgroup_extended_types
            || !size.is_power_of_two()
        {
            return None;
        }
        let max_invocations = self.properties.limits.max_compute_work_group_invocations;
        let full = self.features.compute_full_subgroups;
        match self.subgroup_size_control {
            // One size only: nothing to fix.
            Some(c) if c.min_subgroup_size == c.max_subgroup_size => Some(SubgroupMode {
                size,
                required_size: false,
                full_subgroups: full,
                max_invocations,
            }),
            // Several sizes: pin the default one.
            Some(c) => {
                let ok = self.features.subgroup_size_control
                    && c.required_subgroup_size_stages
                        .contains(vk::ShaderStageFlags::COMPUTE)
                    && (c.min_subgroup_size..=c.max_subgroup_size).contains(&size);
                ok.then(|| SubgroupMode {
                    size,
                    required_size: true,
                    full_subgroups: full,
                    max_invocations: max_invocations
                        .min(c.max_compute_workgroup_subgroups.saturating_mul(size)),
                })
            }
            // Vulkan 1.2 without the extension: SPIR-V modules before 1.6
            // (ferrocl emits 1.5) see SubgroupSize = subgroupSize.
            None => Some(SubgroupMode {
                size,
                required_size: false,
                full_subgroups: false,
                max_invocations,
            }),
        }
    }

    pub fn is_cpu(&self) -> bool {
        self.properties.device_type == vk::PhysicalDeviceType::CPU
    }
}
