//! Intel unified shared memory (cl_intel_unified_shared_memory): host,
//! device and shared allocations named by raw pointers, and their
//! commands (memcpy, fill, migrate, advise).
//!
//! **What each kind is.** Kernels built with physical addressing take every
//! global pointer as a Vulkan buffer device address, so a USM pointer is a
//! device address in every case; the kinds differ in what the host may do
//! with it:
//! - *device* allocations are ordinary device-local storage (a cl_mem
//!   buffer's, `Mem::new_buffer`); the pointer is its device address, which
//!   the host must not dereference (it is no host pointer on a GPU);
//! - *host* and *shared* allocations are the storage of SVM
//!   (`crate::vk::shared_memory`): host-visible, host-coherent memory whose
//!   host mapping lies at its device address, so the host and kernels see
//!   the same pointer values and pointers stored in the memory work on
//!   both sides. They exist only where the device has that
//!   (`Device::svm_capabilities`). The two kinds are the same memory
//!   here; nothing migrates.
//!
//! **Capabilities** ([`capabilities`]): device allocations report access
//! and atomic access (device atomics on device-local storage); host and
//! shared ones access and atomic access where the shared memory exists
//! (Vulkan storage-buffer atomics work on any memory type a storage buffer
//! binds). Concurrent and concurrent atomic access are added exactly where
//! SVM atomics hold (`Device::svm_atomics`: CPU devices, whose kernels use
//! the host's own atomics on the process's memory, proved by
//! tests/tests/svm_fine_grain.rs); elsewhere a command's writes become
//! visible to the host (and host writes to a command) only at the
//! submission and the host barrier that start and end a Vulkan command
//! buffer, not while a kernel runs, and device allocations are never
//! concurrent. Cross-device shared and shared system allocations are not
//! offered (each ferrocl device is its own VkDevice; malloc'd memory has
//! no device address).
//!
//! **Where.** Contexts of one device only, as SVM: each device is its own
//! VkDevice, and a pointer cannot be a device address on two of them. The
//! allocation functions answer CL_INVALID_OPERATION in a context of
//! several devices.
//!
//! Every allocation is registered in `super::device_address` (held
//! strongly until freed, so launches find the object behind a pointer
//! argument, an interior one included, and keep it alive) and in this
//! module's table (its kind, device and flags, for clGetMemAllocInfoINTEL).
//!
//! Layer: commands (layer 6 of `super`), beside `super::svm`.

use std::collections::BTreeMap;
use std::sync::Arc;

use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::event::Event;
use super::memory::Mem;
use super::queue::Queue;
use super::transfer;
use crate::vk::buffer::Buffer;

/// The kind of an allocation, by the function that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Host,
    Device,
    Shared,
}

impl Kind {
    /// CL_MEM_ALLOC_TYPE_INTEL's value.
    pub fn cl_type(self) -> cl_unified_shared_memory_type_intel {
        match self {
            Kind::Host => CL_MEM_TYPE_HOST_INTEL,
            Kind::Device => CL_MEM_TYPE_DEVICE_INTEL,
            Kind::Shared => CL_MEM_TYPE_SHARED_INTEL,
        }
    }

    /// This kind's bit in `IndirectPointers::usm_kinds`.
    pub fn bit(self) -> u8 {
        match self {
            Kind::Host => 1,
            Kind::Device => 2,
            Kind::Shared => 4,
        }
    }
}

/// The largest alignment an allocation may ask for: "the size of the
/// largest data type supported by the device", long16 / double16.
pub const MAX_ALIGNMENT: u64 = 128;

/// One live allocation.
pub struct Allocation {
    pub kind: Kind,
    /// The device it was made for (NULL for host allocations and shared
    /// ones made without a device).
    pub device: Option<Arc<Device>>,
    /// CL_MEM_ALLOC_FLAGS_INTEL as given (0 without).
    pub flags: cl_mem_alloc_flags_intel,
    /// The pointer the allocation function returned.
    pub base: u64,
    pub mem: Arc<Mem>,
}

/// (context identity, base pointer) → allocation.
static ALLOCATIONS: Mutex<BTreeMap<(usize, u64), Arc<Allocation>>> = Mutex::new(BTreeMap::new());

fn context_key(context: &Arc<Context>) -> usize {
    Arc::as_ptr(context) as usize
}

/// The capabilities of allocations of `kind` on `device`
/// (`Device::usm_capabilities`; the module doc says why these).
pub fn capabilities(
    device: &Device,
    kind: Kind,
) -> cl_device_unified_shared_memory_capabilities_intel {
    device.usm_capabilities(match kind {
        Kind::Host => CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
        Kind::Device => CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
        Kind::Shared => CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
    })
}

/// An allocation of `kind` and `size` bytes aligned to `alignment` (a
/// power of two up to [`MAX_ALIGNMENT`], or 0) once the ICD layer has
/// checked the arguments; its pointer.
pub fn alloc(
    context: &Arc<Context>,
    kind: Kind,
    device: Option<Arc<Device>>,
    size: usize,
    alignment: u64,
    flags: cl_mem_alloc_flags_intel,
) -> CLResult<u64> {
    let [only] = &context.devices[..] else {
        return Err(CL_INVALID_OPERATION);
    };
    if capabilities(only, kind) == 0 {
        return Err(CL_INVALID_OPERATION);
    }
    let mem = match kind {
        // Storage starts at CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 128
        // bytes), which covers every alignment allowed.
        Kind::Device => Mem::new_buffer(
            context.clone(),
            CL_MEM_READ_WRITE,
            size,
            0,
            None,
            Vec::new(),
        )?,
        Kind::Host | Kind::Shared => {
            let alignment = alignment.max(only.phys.base_addr_align());
            let storage = Buffer::new_shared(&only.vk()?, size as u64, alignment)?
                .ok_or(CL_OUT_OF_RESOURCES)?;
            Mem::new_usm_shared(context.clone(), size, Arc::new(storage))
        }
    };
    let base = mem.device_address_on(0)?;
    super::device_address::register(&mem, true)?;
    let a = Arc::new(Allocation {
        kind,
        device,
        flags,
        base,
        mem,
    });
    ALLOCATIONS.lock().insert((context_key(context), base), a);
    Ok(base)
}

/// The allocation of `context` that holds `ptr` (its start or any byte
/// inside), and the offset of `ptr` in it.
pub fn find(context: &Arc<Context>, ptr: u64) -> Option<(Arc<Allocation>, usize)> {
    let key = context_key(context);
    let map = ALLOCATIONS.lock();
    let (&(_, base), a) = map.range((key, 0)..=(key, ptr)).next_back()?;
    let offset = (ptr - base) as usize;
    (offset < a.mem.size).then(|| (a.clone(), offset))
}

/// clMemFreeINTEL: forgets the allocation that starts at `ptr` (its memory
/// goes once no command holds it); CL_INVALID_VALUE where `ptr` starts
/// none of `context`'s.
pub fn free(context: &Arc<Context>, ptr: u64) -> CLResult<()> {
    let a = ALLOCATIONS
        .lock()
        .remove(&(context_key(context), ptr))
        .ok_or(CL_INVALID_VALUE)?;
    super::device_address::unregister(&a.mem);
    Ok(())
}

/// clMemBlockingFreeINTEL: [`free`] once every command enqueued so far on
/// the context's queues is complete.
pub fn blocking_free(context: &Arc<Context>, ptr: u64) -> CLResult<()> {
    if !ALLOCATIONS
        .lock()
        .contains_key(&(context_key(context), ptr))
    {
        return Err(CL_INVALID_VALUE);
    }
    for q in Queue::of_context(context) {
        q.finish();
    }
    free(context, ptr)
}

/// The memory objects of every live allocation of `context` whose kind's
/// bit is in `kinds` (CL_KERNEL_EXEC_INFO_INDIRECT_*_ACCESS_INTEL: a
/// launch keeps them alive).
pub fn all_of_kinds(context: &Arc<Context>, kinds: u8) -> Vec<Arc<Mem>> {
    let key = context_key(context);
    ALLOCATIONS
        .lock()
        .range((key, 0)..=(key, u64::MAX))
        .filter(|(_, a)| a.kind.bit() & kinds != 0)
        .map(|(_, a)| a.mem.clone())
        .collect()
}

/// The memory object and offset behind `ptr` for a command of `size`
/// bytes: a USM allocation or an SVM allocation of the context, or `None`
/// for other (host) memory. CL_INVALID_VALUE where the range starts in an
/// allocation but runs past its end.
fn memory_at(context: &Arc<Context>, ptr: u64, size: usize) -> CLResult<Option<(Arc<Mem>, usize)>> {
    let found = find(context, ptr)
        .map(|(a, off)| (a.mem.clone(), off))
        .or_else(|| super::svm::find(context, ptr));
    match found {
        Some((m, off)) if off + size > m.size => Err(CL_INVALID_VALUE),
        found => Ok(found),
    }
}

/// clEnqueueMemcpyINTEL once the ICD layer has checked the arguments:
/// between allocations on the device, to or from host memory as buffer
/// writes and reads, host to host on the host in queue order.
///
/// # Safety
/// Pointers outside allocations must be valid for `size` bytes until the
/// returned event completes.
pub unsafe fn enqueue_memcpy(
    queue: &Arc<Queue>,
    dst: u64,
    src: u64,
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let d = memory_at(&queue.context, dst, size)?;
    let s = memory_at(&queue.context, src, size)?;
    // SAFETY: forwarded.
    unsafe {
        super::svm::enqueue_copy_between(
            queue,
            (dst, d),
            (src, s),
            size,
            CL_COMMAND_MEMCPY_INTEL,
            wait_list,
        )
    }
}

/// clEnqueueMemFillINTEL: `pattern` repeated over `size` bytes at `ptr`,
/// which must lie in an allocation of the context (CL_INVALID_VALUE
/// otherwise).
pub fn enqueue_fill(
    queue: &Arc<Queue>,
    ptr: u64,
    pattern: &[u8],
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let (m, off) = memory_at(&queue.context, ptr, size)?.ok_or(CL_INVALID_VALUE)?;
    transfer::enqueue_fill_as(
        queue,
        &m,
        pattern,
        off,
        size,
        CL_COMMAND_MEMFILL_INTEL,
        wait_list,
    )
}

/// clEnqueueMigrateMemINTEL and clEnqueueMemAdviseINTEL: hints, which
/// change nothing here (one device per context; host and shared memory
/// stay where they are). Each is a command in queue order that keeps the
/// allocation `ptr` lies in alive until it completes.
pub fn enqueue_hint(
    queue: &Arc<Queue>,
    ptr: u64,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    match find(&queue.context, ptr) {
        Some((a, _)) => transfer::enqueue_in_place(queue, &a.mem, true, command_type, wait_list),
        None => transfer::enqueue_marker(queue, command_type, wait_list),
    }
}
