//! Buffer storage and images whose memory another API allocated and
//! exported as a file descriptor (cl_khr_external_memory_opaque_fd /
//! _dma_buf): the VkDeviceMemory is imported with VkImportMemoryFdInfoKHR
//! and bound to a new VkBuffer with the usage of every cl_mem's storage,
//! or to a new VkImage created as ferrocl creates every image; and the
//! queue-family ownership transfers that hand such memory between the
//! other API and ferrocl's queues (clEnqueueAcquire/ReleaseExternalMemObjectsKHR).
//!
//! **Memory type and size.** An opaque fd must be imported with the
//! memory type and allocation size it was exported with, which OpenCL
//! does not pass: the import uses the first device-local type the buffer
//! accepts (the type an exporter allocating "device memory for a storage
//! buffer" picks on every driver ferrocl knows) and the larger of the
//! buffer's memory requirements and the cl_mem size, which is what an
//! exporter that allocated memory for a buffer of that size has. (The
//! size of the file behind the fd is no guide: lavapipe's memfds carry a
//! header.) A dma-buf's memory types come from vkGetMemoryFdPropertiesKHR.
//!
//! **The fd.** The application keeps its fd: ferrocl imports a duplicate
//! (Vulkan owns an fd once an import succeeds), so the application may
//! close its own whenever it likes.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model.

use std::os::fd::{BorrowedFd, IntoRawFd, RawFd};
use std::sync::Arc;

use ash::vk;
use opencl_sys::*;

use super::buffer::{storage_usage, Buffer};
use super::device::Device;
use super::image::{create_info, Image, ImageSpec};
use super::map_vk_err;
use super::queue::Recorder;
use crate::core::error::CLResult;

/// The external handle types ferrocl imports memory from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryHandle {
    OpaqueFd,
    DmaBuf,
}

impl MemoryHandle {
    pub fn vk(self) -> vk::ExternalMemoryHandleTypeFlags {
        match self {
            MemoryHandle::OpaqueFd => vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD,
            MemoryHandle::DmaBuf => vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT,
        }
    }

    /// Whether `device` imports this handle type into buffers.
    pub fn supported(self, caps: &super::external::ExternalCaps) -> bool {
        match self {
            MemoryHandle::OpaqueFd => caps.memory_opaque_fd.import,
            MemoryHandle::DmaBuf => caps.memory_dma_buf.import,
        }
    }
}

/// What imported memory is bound to; destroys it and frees the memory on
/// an early return.
struct Guard<'a> {
    device: &'a Device,
    target: Target,
    memory: vk::DeviceMemory,
}

#[derive(Clone, Copy)]
enum Target {
    Buffer(vk::Buffer),
    Image(vk::Image),
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        // SAFETY: both were created here and nothing uses them yet;
        // null handles are ignored.
        unsafe {
            match self.target {
                Target::Buffer(b) => self.device.raw.destroy_buffer(b, None),
                Target::Image(i) => self.device.raw.destroy_image(i, None),
            }
            self.device.raw.free_memory(self.memory, None);
        }
    }
}

/// The first device-local type among `bits`, else the first of them.
fn import_type(memory: &vk::PhysicalDeviceMemoryProperties, bits: u32) -> Option<u32> {
    let types = (0..memory.memory_type_count).filter(|&i| bits & (1 << i) != 0);
    types
        .clone()
        .find(|&i| {
            memory.memory_types[i as usize]
                .property_flags
                .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
        })
        .or_else(|| types.clone().next())
}

/// Imports a duplicate of `fd` as the memory of `guard.target`, whose
/// requirements are `req` (`min_size`: at least this many bytes;
/// `dedicated`: a dedicated allocation for the target; `device_address`:
/// allocated for buffer device addresses). Sets `guard.memory`.
fn import_memory(
    guard: &mut Guard<'_>,
    fd: RawFd,
    handle: MemoryHandle,
    req: vk::MemoryRequirements,
    min_size: u64,
    dedicated: bool,
    device_address: bool,
) -> CLResult<()> {
    let device = guard.device;
    let fns = device.memory_fd.as_ref().ok_or(CL_INVALID_OPERATION)?;
    if fd < 0 {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: the application passes an fd it owns and keeps open for
    // this call.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let ty = handle.vk();
    let mut bits = req.memory_type_bits;
    if handle == MemoryHandle::DmaBuf {
        let mut props = vk::MemoryFdPropertiesKHR::default();
        // SAFETY: the extension is enabled; fd is open.
        unsafe { fns.get_memory_fd_properties(ty, fd, &mut props) }
            .map_err(|_| CL_INVALID_VALUE)?;
        bits &= props.memory_type_bits;
    }
    let memory_type = import_type(&device.phys.memory, bits).ok_or(CL_INVALID_VALUE)?;
    let dup = borrowed
        .try_clone_to_owned()
        .map_err(|_| CL_OUT_OF_HOST_MEMORY)?
        .into_raw_fd();
    let mut import = vk::ImportMemoryFdInfoKHR::default().handle_type(ty).fd(dup);
    let mut flags =
        vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
    let mut dedicated_info = match guard.target {
        Target::Buffer(b) => vk::MemoryDedicatedAllocateInfo::default().buffer(b),
        Target::Image(i) => vk::MemoryDedicatedAllocateInfo::default().image(i),
    };
    let mut alloc = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size.max(min_size))
        .memory_type_index(memory_type)
        .push_next(&mut import);
    if device_address {
        alloc = alloc.push_next(&mut flags);
    }
    if dedicated {
        alloc = alloc.push_next(&mut dedicated_info);
    }
    // SAFETY: every struct in the chain lives until the call returns.
    // On success Vulkan owns `dup`.
    guard.memory = unsafe { device.raw.allocate_memory(&alloc, None) }.map_err(|e| {
        // Vulkan leaves the fd to us when an import fails, but lavapipe
        // (Mesa 22.3) closes it anyway: closing it again could close an
        // unrelated fd that reused the number, so the duplicate is left
        // alone (at worst one fd leaks).
        match e {
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE => CL_INVALID_VALUE,
            e => map_vk_err(e),
        }
    })?;
    Ok(())
}

impl Buffer {
    /// Storage of `size` bytes over the memory exported as `fd`
    /// (CL_INVALID_VALUE where the driver refuses the fd, see the module
    /// doc for the memory type and size).
    pub fn import_fd(
        device: &Arc<Device>,
        fd: RawFd,
        size: u64,
        handle: MemoryHandle,
    ) -> CLResult<Buffer> {
        let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle.vk());
        let info = vk::BufferCreateInfo::default()
            .size(size.max(4))
            .usage(storage_usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: valid device and create info.
        let raw = unsafe { device.raw.create_buffer(&info, None) }.map_err(map_vk_err)?;
        let mut guard = Guard {
            device,
            target: Target::Buffer(raw),
            memory: vk::DeviceMemory::null(),
        };
        // SAFETY: raw was just created on this device.
        let req = unsafe { device.raw.get_buffer_memory_requirements(raw) };
        let support = match handle {
            MemoryHandle::OpaqueFd => device.phys.external.memory_opaque_fd,
            MemoryHandle::DmaBuf => device.phys.external.memory_dma_buf,
        };
        // Every storage buffer has a device address (kernels in the
        // physical address format use it).
        import_memory(
            &mut guard,
            fd,
            handle,
            req,
            size,
            support.dedicated_only,
            true,
        )?;
        // SAFETY: the memory satisfies the buffer's requirements (type bits,
        // size; offset 0 meets any alignment).
        unsafe { device.raw.bind_buffer_memory(raw, guard.memory, 0) }.map_err(map_vk_err)?;
        // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and bound memory.
        let address = unsafe {
            device
                .raw
                .get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(raw))
        };
        let memory = guard.memory;
        std::mem::forget(guard);
        Ok(Buffer::with_own_memory(
            device,
            raw,
            memory,
            size,
            address,
            std::ptr::null_mut(),
        ))
    }
}

impl Image {
    /// An image of `spec` (OPTIMAL tiling, see `super::image::create_info`)
    /// over the memory exported as `fd`: the exporter's image must have
    /// been created with the same parameters, so that both see the texels
    /// in the same layout. A dedicated allocation where the handle type
    /// needs one for this image (vkGetPhysicalDeviceImageFormatProperties2).
    pub fn import_fd(
        device: &Arc<Device>,
        spec: &ImageSpec,
        fd: RawFd,
        handle: MemoryHandle,
    ) -> CLResult<Image> {
        let support = super::external::image_support(&device.phys, spec, handle.vk())
            .filter(|s| s.import)
            .ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
        let mut external = vk::ExternalMemoryImageCreateInfo::default().handle_types(handle.vk());
        let info = create_info(spec).push_next(&mut external);
        // SAFETY: valid device and create info (the caller checked the
        // format's features and the limits).
        let raw = unsafe { device.raw.create_image(&info, None) }.map_err(map_vk_err)?;
        let mut guard = Guard {
            device,
            target: Target::Image(raw),
            memory: vk::DeviceMemory::null(),
        };
        // SAFETY: raw was just created on this device.
        let req = unsafe { device.raw.get_image_memory_requirements(raw) };
        import_memory(
            &mut guard,
            fd,
            handle,
            req,
            0,
            support.dedicated_only,
            false,
        )?;
        // SAFETY: the memory satisfies the image's requirements.
        unsafe { device.raw.bind_image_memory(raw, guard.memory, 0) }.map_err(map_vk_err)?;
        let memory = guard.memory;
        std::mem::forget(guard);
        Image::with_own_memory(device, raw, memory, spec)
    }
}

/// Which way an ownership transfer goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// From the external API to this queue family (acquire).
    Acquire,
    /// From this queue family back to the external API (release).
    Release,
}

impl Recorder<'_> {
    /// The queue-family ownership transfer of `buffers` between
    /// VK_QUEUE_FAMILY_EXTERNAL and this device's queue family: the other
    /// API's writes become visible to later commands (acquire), or every
    /// earlier command's accesses complete and become visible before the
    /// other API's acquire (release).
    /// Images (`images`: handle and layer count) stay in
    /// VK_IMAGE_LAYOUT_GENERAL, the layout the other API hands them over
    /// in and gets them back in.
    pub fn transfer_ownership(
        &self,
        buffers: &[vk::Buffer],
        images: &[(vk::Image, u32)],
        dir: Ownership,
    ) {
        let ours = self.device.queue_family;
        let (src, dst) = match dir {
            Ownership::Acquire => (vk::QUEUE_FAMILY_EXTERNAL, ours),
            Ownership::Release => (ours, vk::QUEUE_FAMILY_EXTERNAL),
        };
        let all = vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE;
        let (src_access, dst_access) = match dir {
            Ownership::Acquire => (vk::AccessFlags::empty(), all),
            Ownership::Release => (all, vk::AccessFlags::empty()),
        };
        let barriers: Vec<vk::BufferMemoryBarrier> = buffers
            .iter()
            .map(|&b| {
                vk::BufferMemoryBarrier::default()
                    .src_access_mask(src_access)
                    .dst_access_mask(dst_access)
                    .src_queue_family_index(src)
                    .dst_queue_family_index(dst)
                    .buffer(b)
                    .offset(0)
                    .size(vk::WHOLE_SIZE)
            })
            .collect();
        let image_barriers: Vec<vk::ImageMemoryBarrier> = images
            .iter()
            .map(|&(image, layers)| {
                vk::ImageMemoryBarrier::default()
                    .src_access_mask(src_access)
                    .dst_access_mask(dst_access)
                    .old_layout(vk::ImageLayout::GENERAL)
                    .new_layout(vk::ImageLayout::GENERAL)
                    .src_queue_family_index(src)
                    .dst_queue_family_index(dst)
                    .image(image)
                    .subresource_range(super::image::color_range(layers))
            })
            .collect();
        // SAFETY: cb is recording on this thread; the buffers and images
        // are alive (the command holds their cl_mem objects).
        unsafe {
            self.device.raw.cmd_pipeline_barrier(
                self.cb,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &barriers,
                &image_barriers,
            )
        };
    }
}
