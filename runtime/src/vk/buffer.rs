//! Vulkan buffers: device-local storage for cl_mem objects (DESIGN §3) and
//! host-visible staging for transfers.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use parking_lot::Mutex;

use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// What a buffer is for; decides its memory location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// Device-local storage of a cl_mem.
    Storage,
    /// Host-visible memory the host writes and the device reads.
    Upload,
    /// Host-visible, cached memory the device writes and the host reads.
    Readback,
}

pub struct Buffer {
    pub device: Arc<Device>,
    pub raw: vk::Buffer,
    allocation: Mutex<Option<Allocation>>,
    pub size: u64,
    /// Buffer device address of byte 0.
    pub address: u64,
    /// Host pointer when the memory is mapped.
    mapped: Option<std::ptr::NonNull<u8>>,
}

// SAFETY: the mapped pointer is only dereferenced under the OpenCL
// synchronization rules (the queue orders every access).
unsafe impl Send for Buffer {}
// SAFETY: as above.
unsafe impl Sync for Buffer {}

impl Buffer {
    pub fn new(device: &Arc<Device>, size: u64, kind: BufferKind) -> CLResult<Buffer> {
        // Vulkan forbids zero-sized buffers; OpenCL sizes are > 0 but
        // staging requests may round to 0.
        let vk_size = size.max(4);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        let info = vk::BufferCreateInfo::default()
            .size(vk_size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let raw = unsafe { device.raw.create_buffer(&info, None) }.map_err(map_vk_err)?;
        // SAFETY: raw was just created on this device.
        let requirements = unsafe { device.raw.get_buffer_memory_requirements(raw) };
        let location = match kind {
            BufferKind::Storage => MemoryLocation::GpuOnly,
            BufferKind::Upload => MemoryLocation::CpuToGpu,
            BufferKind::Readback => MemoryLocation::GpuToCpu,
        };
        let large = vk_size >= 64 << 20;
        let alloc = device.allocator.lock().allocate(&AllocationCreateDesc {
            name: "ferrocl buffer",
            requirements,
            location,
            linear: true,
            allocation_scheme: if large {
                AllocationScheme::DedicatedBuffer(raw)
            } else {
                AllocationScheme::GpuAllocatorManaged
            },
        });
        let alloc = match alloc {
            Ok(a) => a,
            Err(_) => {
                // SAFETY: raw is unused.
                unsafe { device.raw.destroy_buffer(raw, None) };
                return Err(opencl_sys::CL_MEM_OBJECT_ALLOCATION_FAILURE);
            }
        };
        // SAFETY: memory/offset come from an allocation satisfying `requirements`.
        let bound = unsafe {
            device
                .raw
                .bind_buffer_memory(raw, alloc.memory(), alloc.offset())
        };
        if let Err(e) = bound {
            let _ = device.allocator.lock().free(alloc);
            // SAFETY: raw is unused.
            unsafe { device.raw.destroy_buffer(raw, None) };
            return Err(map_vk_err(e));
        }
        // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and bound memory.
        let address = unsafe {
            device
                .raw
                .get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(raw))
        };
        let mapped = alloc.mapped_ptr().map(|p| p.cast::<u8>());
        Ok(Buffer {
            device: device.clone(),
            raw,
            allocation: Mutex::new(Some(alloc)),
            size,
            address,
            mapped,
        })
    }

    /// The host pointer of a mapped (Upload/Readback) buffer.
    pub fn mapped(&self) -> Option<*mut u8> {
        self.mapped.map(|p| p.as_ptr())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: the last user of the buffer is gone (commands keep an Arc
        // to the cl_mem until their completion).
        unsafe { self.device.raw.destroy_buffer(self.raw, None) };
        if let Some(a) = self.allocation.lock().take() {
            let _ = self.device.allocator.lock().free(a);
        }
    }
}
