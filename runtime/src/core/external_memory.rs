//! cl_khr_external_memory: buffers over memory another API (a Vulkan
//! renderer, a video decoder) allocated and exported as a file
//! descriptor, and the commands that hand such memory between that API
//! and OpenCL.
//!
//! **Import.** clCreateBufferWithProperties with
//! CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR (or _DMA_BUF_KHR) makes a buffer
//! whose storage is the imported VkDeviceMemory
//! (`crate::vk::external_memory`): kernels and transfers read and write
//! the other API's bytes in place; nothing is copied.
//! clCreateImageWithProperties makes an image (not a 1D image buffer) the
//! same way: a VkImage made exactly as ferrocl makes every image (OPTIMAL
//! tiling, one mip level, the usage the format allows: transfers, sampled,
//! storage), which the exporter's image must match, bound to the memory. The memory is
//! imported on one device: the context's only device, or the one
//! CL_MEM_DEVICE_HANDLE_LIST_KHR names (the API layer checks it is the
//! context's first, where every buffer's primary storage lives).
//!
//! **Ownership.** The VkBuffer (VkImage) is created with exclusive sharing, so the
//! bytes belong to one queue family at a time: clEnqueueAcquireExternalMemObjectsKHR
//! records a queue-family ownership transfer from VK_QUEUE_FAMILY_EXTERNAL
//! to the queue's family (the other API's writes become visible to the
//! commands after it), clEnqueueReleaseExternalMemObjectsKHR the transfer
//! back (every earlier command's accesses are done and visible before the
//! other API acquires the memory). Images are handed over in
//! VK_IMAGE_LAYOUT_GENERAL both ways (the layout ferrocl keeps every image
//! in). The other API records the matching half of each transfer; the two
//! sides are ordered by semaphores (`super::semaphore`) or by waiting for
//! completion.
//!
//! Layer: commands (above memory objects and images), enqueueing through
//! `super::queue`.

use std::sync::Arc;

use opencl_sys::*;

use super::context::Context;
use super::error::CLResult;
use super::event::Event;
use super::image_format::format_info;
use super::image_geometry::{tight_size, ImageDesc};
use super::memory::{ImagePart, ImageStorage, Mem};
use super::queue::Queue;
use crate::vk::buffer::Buffer;
use crate::vk::external_memory::{MemoryHandle, Ownership};
use crate::vk::image::Image;

/// The Vulkan handle type of an OpenCL one (`None`: not one ferrocl has).
pub fn handle_type_vk(h: cl_external_memory_handle_type_khr) -> Option<MemoryHandle> {
    match h {
        CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR => Some(MemoryHandle::OpaqueFd),
        CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR => Some(MemoryHandle::DmaBuf),
        _ => None,
    }
}

/// The external handle types (OpenCL values) `device` imports buffers from.
pub fn import_handle_types(
    device: &super::device::Device,
) -> Vec<cl_external_memory_handle_type_khr> {
    let caps = &device.phys.external;
    let mut v = Vec::new();
    if MemoryHandle::OpaqueFd.supported(caps) {
        v.push(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR);
    }
    if MemoryHandle::DmaBuf.supported(caps) {
        v.push(CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR);
    }
    v
}

/// Whether `mem` was created from an external memory handle.
pub fn is_external(mem: &Mem) -> bool {
    let root = mem.parent.as_deref().unwrap_or(mem);
    let p = &root.properties;
    let mut i = 0;
    while i < p.len() && p[i] != 0 {
        let name = p[i];
        if handle_type_vk(name as cl_external_memory_handle_type_khr).is_some() {
            return true;
        }
        if name == CL_MEM_DEVICE_HANDLE_LIST_KHR {
            // Devices up to CL_MEM_DEVICE_HANDLE_LIST_END_KHR.
            i += 1;
            while i < p.len() && p[i] != CL_MEM_DEVICE_HANDLE_LIST_END_KHR {
                i += 1;
            }
            i += 1;
        } else {
            i += 2;
        }
    }
    false
}

/// A buffer of `size` bytes over the memory `fd` of type `handle`, on the
/// context's first device.
pub fn import_buffer(
    context: Arc<Context>,
    flags: cl_mem_flags,
    size: usize,
    handle: MemoryHandle,
    fd: i32,
    properties: Vec<cl_mem_properties>,
) -> CLResult<Arc<Mem>> {
    let device = context.devices[0].clone();
    // "CL_INVALID_PROPERTY": a handle type this device cannot import.
    if !handle.supported(&device.phys.external) {
        return Err(CL_INVALID_PROPERTY);
    }
    let vkdev = device.vk()?;
    let storage = Buffer::import_fd(&vkdev, fd, size as u64, handle)?;
    Mem::new_external_buffer(context, flags, size, storage, properties)
}

/// An image of `format` and `desc` over the memory `fd` of type `handle`,
/// on the context's first device: a VkImage made as for every image
/// (`super::image::image_spec`), which the exporter's image must match.
/// Its contents are the other API's: no layout transition at creation
/// (the acquire keeps VK_IMAGE_LAYOUT_GENERAL, see the module doc).
pub fn import_image(
    context: Arc<Context>,
    flags: cl_mem_flags,
    format: cl_image_format,
    desc: ImageDesc,
    handle: MemoryHandle,
    fd: i32,
    properties: Vec<cl_mem_properties>,
) -> CLResult<Arc<Mem>> {
    let device = context.devices[0].clone();
    // "CL_INVALID_PROPERTY": a handle type this device cannot import.
    if !handle.supported(&device.phys.external) {
        return Err(CL_INVALID_PROPERTY);
    }
    let info = format_info(format.image_channel_order, format.image_channel_data_type)
        .ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    let (spec, _layers) = super::image::image_spec(&device, &info, &desc)?;
    let image = Image::import_fd(&device.vk()?, &spec, fd, handle)?;
    let size = tight_size(&desc.extent(), info.element_size);
    Mem::new_image_object(
        context,
        desc.image_type,
        flags,
        size,
        0,
        None,
        None,
        ImagePart {
            format,
            info,
            desc,
            storage: ImageStorage::Image(image),
        },
        properties,
        true,
    )
}

/// clEnqueueAcquireExternalMemObjectsKHR / clEnqueueReleaseExternalMemObjectsKHR:
/// the ownership transfer of `mems` in direction `dir` on `queue`.
pub fn enqueue_ownership(
    queue: &Arc<Queue>,
    mems: Vec<Arc<Mem>>,
    dir: Ownership,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let (mut buffers, mut images) = (Vec::new(), Vec::new());
    for m in &mems {
        match m.image.as_ref().and_then(|i| i.vk_image()) {
            Some(image) => {
                let desc = &m.image()?.desc;
                let layers = match desc.image_type {
                    CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY => desc.array_size,
                    _ => 1,
                };
                images.push((image.raw, layers as u32));
            }
            None => buffers.push(m.buffer()?.raw),
        }
    }
    let command_type = match dir {
        Ownership::Acquire => CL_COMMAND_ACQUIRE_EXTERNAL_MEM_OBJECTS_KHR,
        Ownership::Release => CL_COMMAND_RELEASE_EXTERNAL_MEM_OBJECTS_KHR,
    };
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        r.transfer_ownership(&buffers, &images, dir);
        Ok(())
    });
    // The objects stay alive until the transfer has executed.
    let host = Box::new(move || drop(mems));
    Ok(queue.submit(command_type, wait_list, Some(record), Some(host)))
}

/// The extensions of this file `device` reports: cl_khr_external_memory
/// with each handle type it imports buffers from (none without one).
pub fn extensions(device: &super::device::Device) -> Vec<(&'static str, (u32, u32, u32))> {
    let types = import_handle_types(device);
    if types.is_empty() {
        return Vec::new();
    }
    let mut e = vec![("cl_khr_external_memory", (1, 0, 1))];
    if types.contains(&CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR) {
        e.push(("cl_khr_external_memory_opaque_fd", (1, 0, 0)));
    }
    if types.contains(&CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR) {
        e.push(("cl_khr_external_memory_dma_buf", (1, 0, 0)));
    }
    e
}
