//! Which external memory and semaphore handle types a physical device can
//! import and export (cl_khr_external_memory_*, cl_khr_external_semaphore_*):
//! probed once per physical device from its extensions and
//! vkGetPhysicalDeviceExternal{Buffer,Semaphore}Properties, so that the
//! device reports an extension only for handle types that really work.
//!
//! Layer: Vulkan execution (`crate::vk`); plain data for the object model.

use ash::vk;

use super::instance::Extensions;

/// What the device can do with one external handle type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandleSupport {
    pub import: bool,
    pub export: bool,
    /// The memory must be a dedicated allocation (external memory only).
    pub dedicated_only: bool,
}

/// External handle types of one physical device.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExternalCaps {
    /// Buffer memory as an opaque fd (VK_KHR_external_memory_fd).
    pub memory_opaque_fd: HandleSupport,
    /// Buffer memory as a dma-buf fd (VK_EXT_external_memory_dma_buf).
    pub memory_dma_buf: HandleSupport,
    /// Binary semaphores as opaque fds (VK_KHR_external_semaphore_fd).
    pub semaphore_opaque_fd: HandleSupport,
    /// Binary semaphores as sync-file fds (VK_KHR_external_semaphore_fd).
    pub semaphore_sync_fd: HandleSupport,
}

impl ExternalCaps {
    /// Whether memory is imported from fds (VK_KHR_external_memory_fd).
    pub fn memory_fd(&self) -> bool {
        self.memory_opaque_fd.import || self.memory_dma_buf.import
    }

    /// Whether semaphores are imported or exported as fds
    /// (VK_KHR_external_semaphore_fd).
    pub fn semaphore_fd(&self) -> bool {
        let none = HandleSupport::default();
        self.semaphore_opaque_fd != none || self.semaphore_sync_fd != none
    }

    /// The device extensions to enable for these capabilities.
    pub fn device_extensions(&self) -> Vec<*const std::ffi::c_char> {
        let mut names = Vec::new();
        if self.memory_fd() {
            names.push(c"VK_KHR_external_memory_fd".as_ptr());
        }
        if self.memory_dma_buf.import {
            names.push(c"VK_EXT_external_memory_dma_buf".as_ptr());
        }
        if self.semaphore_fd() {
            names.push(c"VK_KHR_external_semaphore_fd".as_ptr());
        }
        names
    }
}

/// The usage of imported buffer memory: that of every cl_mem's storage.
fn buffer_support(
    inst: &ash::Instance,
    raw: vk::PhysicalDevice,
    handle: vk::ExternalMemoryHandleTypeFlags,
) -> HandleSupport {
    let info = vk::PhysicalDeviceExternalBufferInfo::default()
        .usage(super::buffer::storage_usage())
        .handle_type(handle);
    let mut out = vk::ExternalBufferProperties::default();
    // SAFETY: plain query on a physical device of this instance (Vulkan
    // 1.1 core).
    unsafe { inst.get_physical_device_external_buffer_properties(raw, &info, &mut out) };
    let p = out.external_memory_properties;
    let f = p.external_memory_features;
    HandleSupport {
        import: f.contains(vk::ExternalMemoryFeatureFlags::IMPORTABLE)
            && p.compatible_handle_types.contains(handle),
        export: f.contains(vk::ExternalMemoryFeatureFlags::EXPORTABLE),
        dedicated_only: f.contains(vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY),
    }
}

fn semaphore_support(
    inst: &ash::Instance,
    raw: vk::PhysicalDevice,
    handle: vk::ExternalSemaphoreHandleTypeFlags,
) -> HandleSupport {
    let mut ty = vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::BINARY);
    let info = vk::PhysicalDeviceExternalSemaphoreInfo::default()
        .handle_type(handle)
        .push_next(&mut ty);
    let mut out = vk::ExternalSemaphoreProperties::default();
    // SAFETY: plain query on a physical device of this instance (Vulkan
    // 1.1 core); the chain lives until the call returns.
    unsafe { inst.get_physical_device_external_semaphore_properties(raw, &info, &mut out) };
    let f = out.external_semaphore_features;
    HandleSupport {
        import: f.contains(vk::ExternalSemaphoreFeatureFlags::IMPORTABLE),
        export: f.contains(vk::ExternalSemaphoreFeatureFlags::EXPORTABLE),
        dedicated_only: false,
    }
}

/// Probes `raw`, whose extensions are `ext`.
pub fn probe(inst: &ash::Instance, raw: vk::PhysicalDevice, ext: &Extensions) -> ExternalCaps {
    let mut caps = ExternalCaps::default();
    if ext.khr_external_memory_fd {
        caps.memory_opaque_fd =
            buffer_support(inst, raw, vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        if ext.ext_external_memory_dma_buf {
            caps.memory_dma_buf =
                buffer_support(inst, raw, vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT);
        }
    }
    if ext.khr_external_semaphore_fd {
        caps.semaphore_opaque_fd =
            semaphore_support(inst, raw, vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
        caps.semaphore_sync_fd =
            semaphore_support(inst, raw, vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
    }
    caps
}

/// What `phys` can do with images of `spec` whose memory is of external
/// handle type `handle` (vkGetPhysicalDeviceImageFormatProperties2 with
/// VkPhysicalDeviceExternalImageFormatInfo); `None` where such images
/// cannot be created at all.
pub fn image_support(
    phys: &super::instance::PhysicalDevice,
    spec: &super::image::ImageSpec,
    handle: vk::ExternalMemoryHandleTypeFlags,
) -> Option<HandleSupport> {
    let mut ext_info = vk::PhysicalDeviceExternalImageFormatInfo::default().handle_type(handle);
    let info = vk::PhysicalDeviceImageFormatInfo2::default()
        .format(spec.format)
        .ty(spec.image_type)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(spec.usage)
        .push_next(&mut ext_info);
    let mut ext_props = vk::ExternalImageFormatProperties::default();
    let mut props = vk::ImageFormatProperties2::default().push_next(&mut ext_props);
    // SAFETY: plain query on a physical device of this instance (Vulkan
    // 1.1 core); the chains live until the call returns.
    unsafe {
        phys.instance
            .raw
            .get_physical_device_image_format_properties2(phys.raw, &info, &mut props)
    }
    .ok()?;
    let f = ext_props
        .external_memory_properties
        .external_memory_features;
    Some(HandleSupport {
        import: f.contains(vk::ExternalMemoryFeatureFlags::IMPORTABLE),
        export: f.contains(vk::ExternalMemoryFeatureFlags::EXPORTABLE),
        dedicated_only: f.contains(vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY),
    })
}
