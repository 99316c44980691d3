//! Vulkan buffers: device-local storage for cl_mem objects (DESIGN §3) and
//! host-visible staging for transfers; and storage whose memory is the
//! application's own, imported through VK_EXT_external_memory_host
//! ([`Buffer::import_host`], zero-copy CL_MEM_USE_HOST_PTR).
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
    /// Memory of this buffer alone, ours to free when the buffer goes
    /// (`allocation` is then `None`): imported application memory
    /// ([`Buffer::import_host`]) or shared memory mapped at its device
    /// address (`super::shared_memory`). Either way the host reaches the
    /// bytes in place, at the device address's host twin.
    own_memory: Option<vk::DeviceMemory>,
    _live: super::live::Live,
}

/// The usage of every cl_mem buffer's storage: storage buffer, copies,
/// device address, and texel-buffer views (a buffer may back 1D image
/// buffers).
pub fn storage_usage() -> vk::BufferUsageFlags {
    vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST
        | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
        | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
}

/// Destroys a buffer (and frees imported memory) on an early return of
/// [`Buffer::import_host`].
struct ImportGuard<'a> {
    device: &'a Device,
    raw: vk::Buffer,
    memory: vk::DeviceMemory,
}

impl Drop for ImportGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: both were created here and nothing else uses them yet;
        // destroying/freeing null handles is a no-op.
        unsafe {
            self.device.raw.destroy_buffer(self.raw, None);
            self.device.raw.free_memory(self.memory, None);
        }
    }
}

// SAFETY: the mapped pointer is only dereferenced under the OpenCL
// synchronization rules (the queue orders every access).
unsafe impl Send for Buffer {}
// SAFETY: as above.
unsafe impl Sync for Buffer {}

impl Buffer {
    pub fn new(device: &Arc<Device>, size: u64, kind: BufferKind) -> CLResult<Buffer> {
        Self::with_usage(device, size, kind, vk::BufferUsageFlags::empty())
    }

    /// [`Buffer::new`] with `extra` usage bits.
    pub fn with_usage(
        device: &Arc<Device>,
        size: u64,
        kind: BufferKind,
        extra: vk::BufferUsageFlags,
    ) -> CLResult<Buffer> {
        // Vulkan forbids zero-sized buffers; OpenCL sizes are > 0 but
        // staging requests may round to 0.
        let vk_size = size.max(4);
        let mut usage = if kind == BufferKind::Storage {
            // A cl_mem buffer may back 1D image buffers (texel-buffer views).
            storage_usage()
        } else {
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        };
        if kind == BufferKind::Upload {
            // POD arguments of descriptor-addressed kernels built with
            // -pod-ubo are uniform buffers in staging memory.
            usage |= vk::BufferUsageFlags::UNIFORM_BUFFER;
        }
        usage |= extra;
        let info = vk::BufferCreateInfo::default()
            .size(vk_size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let raw = unsafe { device.raw.create_buffer(&info, None) }.map_err(map_vk_err)?;
        // SAFETY: raw was just created on this device.
        let mut requirements = unsafe { device.raw.get_buffer_memory_requirements(raw) };
        // Every buffer starts at CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least
        // 128 bytes, the alignment of double16), which kernels may observe
        // through pointer-to-integer casts (CTS vec_align_*).
        requirements.alignment = requirements.alignment.max(device.phys.base_addr_align());
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
        if !below_generic_tags(address, vk_size) {
            let _ = device.allocator.lock().free(alloc);
            // SAFETY: raw is unused.
            unsafe { device.raw.destroy_buffer(raw, None) };
            return Err(opencl_sys::CL_MEM_OBJECT_ALLOCATION_FAILURE);
        }
        let mapped = alloc.mapped_ptr().map(|p| p.cast::<u8>());
        Ok(Buffer {
            device: device.clone(),
            raw,
            allocation: Mutex::new(Some(alloc)),
            size,
            address,
            mapped,
            own_memory: None,
            _live: super::live::Live::new(super::live::Kind::Buffer),
        })
    }

    /// Storage of `size` bytes whose memory is the application's memory at
    /// `ptr`, imported with VK_EXT_external_memory_host: the device reads
    /// and writes those bytes in place. `None` where that is not possible
    /// (the device cannot import host memory, `ptr` is not aligned to
    /// minImportedHostPointerAlignment and CL_DEVICE_MEM_BASE_ADDR_ALIGN, no
    /// host-coherent memory type accepts the pointer, or the driver refuses
    /// the import), and the caller uses device storage instead.
    ///
    /// The imported range is `[ptr, ptr + size)` rounded up to the import
    /// alignment (Vulkan needs a multiple of it); the buffer itself is
    /// `size` bytes, so the device never touches the rounding. Imported
    /// memory is host-coherent system memory: host writes made before a
    /// submission are visible to it, and device writes are visible to the
    /// host once the command buffer's final host barrier
    /// (`queue::Recorder::host_barrier`) has executed.
    ///
    /// # Safety
    /// `ptr` must point at `size` bytes of the application's memory that
    /// stay valid until the returned buffer is dropped.
    pub unsafe fn import_host(device: &Arc<Device>, ptr: *mut u8, size: u64) -> Option<Buffer> {
        let imp = device.host_import.as_ref()?;
        let align = imp.alignment.max(device.phys.base_addr_align());
        if size == 0 || !(ptr as u64).is_multiple_of(align) {
            return None;
        }
        let alloc_size = size.checked_next_multiple_of(imp.alignment)?;
        if alloc_size > device.phys.max_memory_allocation_size {
            return None;
        }
        let vk_size = size.max(4);
        let handle = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle);
        let info = vk::BufferCreateInfo::default()
            .size(vk_size)
            .usage(storage_usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: valid device and create info.
        let raw = unsafe { device.raw.create_buffer(&info, None) }.ok()?;
        let mut guard = ImportGuard {
            device,
            raw,
            memory: vk::DeviceMemory::null(),
        };
        // SAFETY: raw was just created on this device.
        let requirements = unsafe { device.raw.get_buffer_memory_requirements(raw) };
        if requirements.size > alloc_size {
            return None;
        }
        let mut host = vk::MemoryHostPointerPropertiesEXT::default();
        // SAFETY: the extension is enabled on this device; `ptr` is aligned
        // to minImportedHostPointerAlignment (checked above).
        let r = unsafe {
            (imp.fns.fp().get_memory_host_pointer_properties_ext)(
                device.raw.handle(),
                handle,
                ptr as *const std::ffi::c_void,
                &mut host,
            )
        };
        if r != vk::Result::SUCCESS {
            return None;
        }
        let bits = host.memory_type_bits & requirements.memory_type_bits;
        let memory_type = host_coherent_type(&device.phys.memory, bits)?;
        let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
            .handle_type(handle)
            .host_pointer(ptr as *mut std::ffi::c_void);
        // Every storage buffer has a device address (kernels in the
        // physical address format use it).
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(raw);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(alloc_size)
            .memory_type_index(memory_type)
            .push_next(&mut import)
            .push_next(&mut flags);
        if imp.dedicated {
            alloc = alloc.push_next(&mut dedicated);
        }
        // SAFETY: every struct in the chain lives until the call returns;
        // the caller keeps the host memory valid for the buffer's lifetime.
        guard.memory = unsafe { device.raw.allocate_memory(&alloc, None) }.ok()?;
        // SAFETY: the memory satisfies the buffer's requirements (type bits,
        // size; offset 0 meets any alignment).
        unsafe { device.raw.bind_buffer_memory(raw, guard.memory, 0) }.ok()?;
        // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and bound memory.
        let address = unsafe {
            device
                .raw
                .get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(raw))
        };
        if !below_generic_tags(address, size) {
            // Dropping the guard frees the memory and the buffer.
            return None;
        }
        let memory = guard.memory;
        std::mem::forget(guard);
        Some(Buffer {
            device: device.clone(),
            raw,
            allocation: Mutex::new(None),
            size,
            address,
            mapped: None,
            own_memory: Some(memory),
            _live: super::live::Live::new(super::live::Kind::Buffer),
        })
    }

    /// Whether the host reaches this buffer's memory in place: imported
    /// application memory ([`Buffer::import_host`]) or shared memory
    /// mapped at its device address (`super::shared_memory`).
    pub fn is_host_memory(&self) -> bool {
        self.own_memory.is_some()
    }

    /// A buffer bound to dedicated memory of its own (`raw`, `memory`),
    /// mapped at `mapped`.
    pub(super) fn with_own_memory(
        device: &Arc<Device>,
        raw: vk::Buffer,
        memory: vk::DeviceMemory,
        size: u64,
        address: u64,
        mapped: *mut u8,
    ) -> Buffer {
        Buffer {
            device: device.clone(),
            raw,
            allocation: Mutex::new(None),
            size,
            address,
            mapped: std::ptr::NonNull::new(mapped),
            own_memory: Some(memory),
            _live: super::live::Live::new(super::live::Kind::Buffer),
        }
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
        if let Some(m) = self.own_memory.take() {
            // SAFETY: allocated for this buffer alone, which is destroyed;
            // the device no longer uses it (as above). Freeing unmaps it.
            unsafe { self.device.raw.free_memory(m, None) };
        }
    }
}

/// A memory type among `bits` that is host-visible and host-coherent
/// (host-cached preferred: imported memory is ordinary cached system
/// memory on the host side).
fn host_coherent_type(memory: &vk::PhysicalDeviceMemoryProperties, bits: u32) -> Option<u32> {
    let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    let candidates = (0..memory.memory_type_count).filter(|&i| {
        bits & (1 << i) != 0
            && memory.memory_types[i as usize]
                .property_flags
                .contains(want)
    });
    let cached = candidates.clone().find(|&i| {
        memory.memory_types[i as usize]
            .property_flags
            .contains(vk::MemoryPropertyFlags::HOST_CACHED)
    });
    cached.or_else(|| candidates.clone().next())
}

/// A host-visible buffer borrowed from its device's staging pool
/// ([`Device::staging`]); it goes back to the pool when dropped, so
/// transfers and argument blocks do not allocate memory in the steady state.
pub struct Staging {
    buf: std::mem::ManuallyDrop<Buffer>,
    kind: BufferKind,
}

impl std::ops::Deref for Staging {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        &self.buf
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // SAFETY: taken exactly once, here.
        let b = unsafe { std::mem::ManuallyDrop::take(&mut self.buf) };
        let dev = b.device.clone();
        dev.return_staging(b, self.kind);
    }
}

/// Size classes of the staging pool: powers of two from 64 KiB.
fn staging_class(size: u64) -> u64 {
    size.max(64 << 10).next_power_of_two()
}

/// Free staging buffers of one device, per kind (Upload, Readback), each
/// with the time it was returned.
#[derive(Default)]
pub struct StagingPool {
    free: Mutex<[Vec<(Buffer, std::time::Instant)>; 2]>,
}

/// Idle buffers above [`STAGING_KEEP_ALWAYS`] bytes per kind are freed once
/// unused for this long: large transfers repeated back to back reuse their
/// pinned memory (fresh pages cost more than the copy), one-off ones do
/// not hold it.
const STAGING_IDLE: std::time::Duration = std::time::Duration::from_secs(3);
const STAGING_KEEP_ALWAYS: u64 = 256 << 20;

/// `FERROCL_NO_STAGING_POOL=1` (debug switch): allocate every staging
/// buffer afresh.
fn staging_pool_disabled() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OFF.get_or_init(|| std::env::var_os("FERROCL_NO_STAGING_POOL").is_some())
}

/// Keep at most this many bytes of idle staging memory per kind.
const STAGING_POOL_LIMIT: u64 = 16 << 30;

/// Frees idle buffers past [`STAGING_IDLE`] beyond the first
/// [`STAGING_KEEP_ALWAYS`] bytes (newest kept first).
fn trim_idle(list: &mut Vec<(Buffer, std::time::Instant)>) {
    list.sort_by_key(|(_, t)| std::cmp::Reverse(*t));
    let mut kept = 0u64;
    list.retain(|(b, t)| {
        kept += b.size;
        kept <= STAGING_KEEP_ALWAYS || t.elapsed() < STAGING_IDLE
    });
}

fn kind_index(kind: BufferKind) -> usize {
    match kind {
        BufferKind::Readback => 1,
        _ => 0,
    }
}

impl Device {
    /// A mapped Upload or Readback buffer of at least `size` bytes.
    pub fn staging(self: &Arc<Self>, size: u64, kind: BufferKind) -> CLResult<Staging> {
        let class = staging_class(size);
        let reused = {
            let mut free = self.staging_pool.free.lock();
            let list = &mut free[kind_index(kind)];
            trim_idle(list);
            list.iter()
                .position(|(b, _)| b.size == class)
                .map(|i| list.swap_remove(i).0)
        };
        let buf = match reused {
            Some(b) => b,
            None => Buffer::new(self, class, kind)?,
        };
        Ok(Staging {
            buf: std::mem::ManuallyDrop::new(buf),
            kind,
        })
    }

    fn return_staging(&self, b: Buffer, kind: BufferKind) {
        if staging_pool_disabled() {
            return;
        }
        let mut free = self.staging_pool.free.lock();
        let list = &mut free[kind_index(kind)];
        trim_idle(list);
        let held: u64 = list.iter().map(|(x, _)| x.size).sum();
        if held + b.size <= STAGING_POOL_LIMIT {
            list.push((b, std::time::Instant::now()));
        }
        // Otherwise `b` drops here and its memory is freed.
    }
}

/// Bytes of each chunk of the upload arena ([`Device::upload_slice`]).
const ARENA_CHUNK: u64 = 64 << 10;

/// Small per-launch uploads (the POD arguments of descriptor-addressed
/// kernels) carved out of shared staging buffers: the current chunk and
/// the bytes of it handed out. A chunk goes back to the staging pool once
/// the arena has moved on and every launch using it has completed.
#[derive(Default)]
pub struct UploadArena {
    current: Mutex<Option<(Arc<Staging>, u64)>>,
}

impl Device {
    /// `size` bytes of mapped upload memory at an offset that is a multiple
    /// of `align` in the returned buffer, which the caller holds until the
    /// device has read them. Allocates only when a chunk is full.
    pub fn upload_slice(self: &Arc<Self>, size: u64, align: u64) -> CLResult<(Arc<Staging>, u64)> {
        let mut current = self.upload_arena.current.lock();
        if let Some((b, used)) = current.as_mut() {
            let offset = used.next_multiple_of(align);
            if offset + size <= b.size {
                *used = offset + size;
                return Ok((b.clone(), offset));
            }
        }
        let b = Arc::new(self.staging(size.max(ARENA_CHUNK), BufferKind::Upload)?);
        *current = Some((b.clone(), size));
        Ok((b, 0))
    }
}

/// Generic pointers keep a tag in their top two bits
/// (`ferrocl_compiler`'s `passes::lower::generic`), where a global address
/// must have zeros: true where `[address, address + size)` stays below
/// 2^62. Every device ferrocl runs on keeps its buffer device addresses far
/// below that (48- or 49-bit GPU virtual addresses, CPU user-space
/// pointers on lavapipe), so this only guards against a driver that
/// breaks the assumption.
fn below_generic_tags(address: u64, size: u64) -> bool {
    address.checked_add(size).is_some_and(|end| end <= 1 << 62)
}
