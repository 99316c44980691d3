//! Buffers whose host mapping lies at their device address: the storage of
//! SVM allocations (`crate::core::svm`), where the host and kernels must
//! see the same pointer values (a list linked by the host is walked by a
//! kernel).
//!
//! A buffer's device address is chosen by the driver, so the host mapping
//! is made to match it, in one of two ways, tried in this order for each
//! allocation:
//!
//! 1. **Placed mapping** (VK_EXT_map_memory_placed with VK_KHR_map_memory2,
//!    feature memoryMapPlaced; [`Placed`]): the range `[address, address +
//!    size)` is reserved in the process with `mmap(PROT_NONE,
//!    MAP_FIXED_NOREPLACE)`, then the memory is mapped over the reservation
//!    with VkMemoryMapPlacedInfoEXT. If the range is taken (the GPU's
//!    address is already used by the host, or lies outside the host's user
//!    address space), the allocation fails: the pointer identity cannot be
//!    had for it, and nothing pretends otherwise.
//! 2. **Identity**: an ordinary vkMapMemory, accepted only if the pointer
//!    it returns *is* the device address. That holds on lavapipe, whose
//!    device memory is host memory and whose buffer device addresses are
//!    host pointers (checked by `tests/tests/svm.rs`). Where neither
//!    holds, the allocation fails: the pointer identity cannot be had for
//!    it, and nothing pretends otherwise.
//!
//! The memory is host-visible and host-coherent (device-local too where
//! the device has such a type, i.e. ReBAR, for kernel speed; else system
//! memory the device reaches over the bus), so host writes are visible to
//! a later submission and device writes to the host once the command
//! buffer's final host barrier has run: coarse-grained SVM needs no copy at
//! map or unmap, and fine-grained SVM no map at all. Each allocation is
//! dedicated (its own VkDeviceMemory).
//!
//! Layer: Vulkan execution (`crate::vk`), beside `buffer`.

use std::ffi::c_void;
use std::sync::Arc;

use ash::vk;

use super::buffer::{storage_usage, Buffer};
use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// VK_EXT_map_memory_placed, enabled on the device.
pub struct Placed {
    pub fns: ash::khr::map_memory2::Device,
    /// minPlacedMemoryMapAlignment: placed addresses and mapped sizes are
    /// multiples of it.
    pub alignment: u64,
}

extern "C" {
    fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64)
        -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> i32;
}

const PROT_NONE: i32 = 0;
const MAP_PRIVATE: i32 = 0x02;
const MAP_ANONYMOUS: i32 = 0x20;
/// Linux 4.17+: fail instead of replacing an existing mapping (older
/// kernels take the address as a hint; the result is checked either way).
const MAP_FIXED_NOREPLACE: i32 = 0x10_0000;

/// Reserves `[address, address + len)` of the process's address space
/// (inaccessible pages), or `false` where any of it is taken.
fn reserve(address: u64, len: u64) -> bool {
    let Ok(len) = usize::try_from(len) else {
        return false;
    };
    // SAFETY: an anonymous PROT_NONE mapping that replaces nothing
    // (MAP_FIXED_NOREPLACE); a different result is unmapped below.
    let got = unsafe {
        mmap(
            address as *mut c_void,
            len,
            PROT_NONE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if got as usize == usize::MAX {
        return false;
    }
    if got as u64 != address {
        // SAFETY: the mapping just made elsewhere (an old kernel's hint).
        unsafe { munmap(got, len) };
        return false;
    }
    true
}

/// How many allocations `Buffer::new_shared` makes before it gives up
/// (`FERROCL_SHARED_MEMORY_TRIES`, default 8).
fn placement_tries() -> u32 {
    static N: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("FERROCL_SHARED_MEMORY_TRIES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(8)
            .max(1)
    })
}

/// Frees a dedicated allocation and its buffer on an early return.
struct Pending<'a> {
    device: &'a Device,
    raw: vk::Buffer,
    memory: vk::DeviceMemory,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        // SAFETY: both were created here and nothing uses them; destroying
        // or freeing null handles is a no-op; freeing mapped memory unmaps
        // it.
        unsafe {
            self.device.raw.destroy_buffer(self.raw, None);
            self.device.raw.free_memory(self.memory, None);
        }
    }
}

/// The memory types that can hold shared memory, best first: host-visible
/// and host-coherent, device-local ones before the others, host-cached
/// before uncached.
fn shared_types(memory: &vk::PhysicalDeviceMemoryProperties, bits: u32) -> Vec<u32> {
    use vk::MemoryPropertyFlags as F;
    let need = F::HOST_VISIBLE | F::HOST_COHERENT;
    let mut types: Vec<u32> = (0..memory.memory_type_count)
        .filter(|&i| {
            bits & (1 << i) != 0
                && memory.memory_types[i as usize]
                    .property_flags
                    .contains(need)
        })
        .collect();
    types.sort_by_key(|&i| {
        let f = memory.memory_types[i as usize].property_flags;
        (!f.contains(F::DEVICE_LOCAL), !f.contains(F::HOST_CACHED))
    });
    types
}

impl Buffer {
    /// Storage of `size` bytes whose host mapping is at its device address
    /// (the module doc), with its base a multiple of `alignment`; `None`
    /// where the device cannot give that for this allocation. Errors are
    /// out-of-memory conditions.
    ///
    /// An allocation whose device address cannot be had on the host (the
    /// range taken, or misaligned) is kept while the next is made, so the
    /// driver gives that one another address: up to
    /// [`placement_tries`] allocations in all, then the failed ones are
    /// freed.
    pub fn new_shared(device: &Arc<Device>, size: u64, alignment: u64) -> CLResult<Option<Buffer>> {
        let mut failed = Vec::new();
        for attempt in 1..=placement_tries() {
            match Self::try_shared(device, size, alignment)? {
                Ok(buffer) => return Ok(Some(buffer)),
                Err((pending, address)) => {
                    if std::env::var_os("FERROCL_LOG").is_some() {
                        eprintln!(
                            "ferrocl: shared memory of {size} bytes: device address {address:#x} \
                             cannot be mapped there on the host (attempt {attempt})"
                        );
                    }
                    failed.push(pending);
                }
            }
        }
        Ok(None)
    }

    /// One allocation: the buffer mapped at its device address, or the
    /// allocation (to free later) and its address where that cannot be.
    #[allow(clippy::type_complexity)]
    fn try_shared(
        device: &Arc<Device>,
        size: u64,
        alignment: u64,
    ) -> CLResult<Result<Buffer, (Pending<'_>, u64)>> {
        let placed_align = device.placed.as_ref().map_or(1, |p| p.alignment.max(1));
        let alloc_size = size.max(4).next_multiple_of(placed_align);
        let info = vk::BufferCreateInfo::default()
            .size(alloc_size)
            .usage(storage_usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let raw = unsafe { device.raw.create_buffer(&info, None) }.map_err(map_vk_err)?;
        let mut pending = Pending {
            device,
            raw,
            memory: vk::DeviceMemory::null(),
        };
        // SAFETY: raw was just created on this device.
        let req = unsafe { device.raw.get_buffer_memory_requirements(raw) };
        let alloc_size = req.size.next_multiple_of(placed_align);
        let mut last_err = opencl_sys::CL_MEM_OBJECT_ALLOCATION_FAILURE;
        for memory_type in shared_types(&device.phys.memory, req.memory_type_bits) {
            let mut flags = vk::MemoryAllocateFlagsInfo::default()
                .flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
            let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(raw);
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(alloc_size)
                .memory_type_index(memory_type)
                .push_next(&mut flags)
                .push_next(&mut dedicated);
            // SAFETY: every struct in the chain lives until the call returns.
            match unsafe { device.raw.allocate_memory(&alloc, None) } {
                Ok(m) => {
                    pending.memory = m;
                    break;
                }
                Err(e) => last_err = map_vk_err(e),
            }
        }
        if pending.memory == vk::DeviceMemory::null() {
            return Err(last_err);
        }
        // SAFETY: dedicated memory of the buffer's requirements, offset 0.
        unsafe { device.raw.bind_buffer_memory(raw, pending.memory, 0) }.map_err(map_vk_err)?;
        // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and bound memory.
        let address = unsafe {
            device
                .raw
                .get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(raw))
        };
        if address == 0
            || !address.is_multiple_of(alignment.max(1))
            || address.checked_add(alloc_size).is_none_or(|e| e > 1 << 62)
        {
            return Ok(Err((pending, address)));
        }
        // Placed where the device can, else (or where the range is the
        // driver's own host memory already, as on lavapipe) identity.
        let placed = match &device.placed {
            Some(p) => map_placed(device, p, pending.memory, address, alloc_size)?,
            None => None,
        };
        let mapped = match placed {
            Some(p) => Some(p),
            None => map_identity(device, pending.memory, address)?,
        };
        let Some(mapped) = mapped else {
            return Ok(Err((pending, address)));
        };
        let memory = pending.memory;
        std::mem::forget(pending);
        Ok(Ok(Buffer::with_own_memory(
            device, raw, memory, size, address, mapped,
        )))
    }
}

/// vkMapMemory, kept only where the host pointer is `address`.
fn map_identity(
    device: &Device,
    memory: vk::DeviceMemory,
    address: u64,
) -> CLResult<Option<*mut u8>> {
    // SAFETY: host-visible memory, not mapped yet, whole range.
    let p = unsafe {
        device
            .raw
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
    }
    .map_err(|e| device.vk_err(e))?;
    if p as u64 == address {
        Ok(Some(p.cast()))
    } else {
        // SAFETY: mapped just above; freeing would unmap it too.
        unsafe { device.raw.unmap_memory(memory) };
        Ok(None)
    }
}

/// The memory mapped at `address` over a reservation (`None`: the range is
/// taken or not placeable).
fn map_placed(
    device: &Device,
    placed: &Placed,
    memory: vk::DeviceMemory,
    address: u64,
    size: u64,
) -> CLResult<Option<*mut u8>> {
    if !address.is_multiple_of(placed.alignment.max(1)) || !reserve(address, size) {
        return Ok(None);
    }
    let mut at = vk::MemoryMapPlacedInfoEXT::default().placed_address(address as *mut c_void);
    let info = vk::MemoryMapInfoKHR::default()
        .flags(vk::MemoryMapFlags::PLACED_EXT)
        .memory(memory)
        .offset(0)
        .size(vk::WHOLE_SIZE)
        .push_next(&mut at);
    let mut p = std::ptr::null_mut();
    // SAFETY: host-visible memory, not mapped, placed over the range
    // reserved above (the driver replaces the reservation).
    let r = unsafe { (placed.fns.fp().map_memory2_khr)(device.raw.handle(), &info, &mut p) };
    if r != vk::Result::SUCCESS || p as u64 != address {
        if r == vk::Result::SUCCESS {
            // SAFETY: mapped just above.
            unsafe { device.raw.unmap_memory(memory) };
        }
        // SAFETY: the reservation made above.
        unsafe { munmap(address as *mut c_void, size as usize) };
        return Ok(None);
    }
    Ok(Some(p.cast()))
}

impl Device {
    /// Whether shared memory can be had on this device: one small
    /// allocation is tried on the first call (and freed). The SVM
    /// capabilities are reported from this (`crate::core::svm`).
    pub fn shared_memory_works(self: &Arc<Self>) -> bool {
        *self
            .shared_probe
            .get_or_init(|| matches!(Buffer::new_shared(self, 64 << 10, 4096), Ok(Some(_))))
    }
}
