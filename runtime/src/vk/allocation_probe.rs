//! Whether one buffer larger than Vulkan's maxMemoryAllocationSize can be
//! had: Vulkan only promises allocations up to that limit (4 GiB on
//! NVIDIA's driver), but "some platforms may have a limit [...] Allocations
//! beyond it may succeed": drivers may accept more. OpenCL applications
//! size single buffers by CL_DEVICE_MAX_MEM_ALLOC_SIZE (NVIDIA's own OpenCL
//! reports a quarter of the memory), so the object model asks here before
//! reporting more than Vulkan promises (`crate::core::device`).
//!
//! Layer: Vulkan execution (`crate::vk`), beside `buffer`.

use ash::vk;

use super::buffer::storage_usage;
use super::device::Device;

impl Device {
    /// Whether a storage buffer of `size` bytes, bound to one dedicated
    /// device-local allocation with a device address (what a large cl_mem
    /// gets, `buffer::Buffer::new`), can be created now: tried, then
    /// freed. False where `size` exceeds maxBufferSize.
    pub fn can_allocate_buffer(&self, size: u64) -> bool {
        if self.phys.max_buffer_size.is_some_and(|m| size > m) {
            return false;
        }
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(storage_usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info (size within maxBufferSize).
        let Ok(raw) = (unsafe { self.raw.create_buffer(&info, None) }) else {
            return false;
        };
        // SAFETY: raw was just created on this device.
        let req = unsafe { self.raw.get_buffer_memory_requirements(raw) };
        let mem = &self.phys.memory;
        let device_local = (0..mem.memory_type_count).find(|&i| {
            req.memory_type_bits & (1 << i) != 0
                && mem.memory_types[i as usize]
                    .property_flags
                    .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
        });
        let mut ok = false;
        if let Some(ty) = device_local {
            let mut flags = vk::MemoryAllocateFlagsInfo::default()
                .flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
            let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(raw);
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(ty)
                .push_next(&mut flags)
                .push_next(&mut dedicated);
            // SAFETY: every struct in the chain lives until the call returns.
            if let Ok(m) = unsafe { self.raw.allocate_memory(&alloc, None) } {
                // SAFETY: dedicated memory of the buffer's requirements.
                ok = unsafe { self.raw.bind_buffer_memory(raw, m, 0) }.is_ok();
                // SAFETY: unused; destroyed before its memory is freed.
                unsafe {
                    self.raw.destroy_buffer(raw, None);
                    self.raw.free_memory(m, None);
                }
                return ok;
            }
        }
        // SAFETY: unused.
        unsafe { self.raw.destroy_buffer(raw, None) };
        ok
    }
}
