//! Buffer SVM (OpenCL 2.0+), coarse- and fine-grained: clSVMAlloc/clSVMFree
//! and the clEnqueueSVM* commands.
//!
//! **The pointer identity.** Host and kernels must see the same pointer
//! values: a host pointer into an SVM allocation, stored in SVM memory or
//! passed with clSetKernelArgSVMPointer, is dereferenced by kernels as it
//! is. Kernels built with physical addressing already take every global
//! pointer as a Vulkan buffer device address, so the design makes each
//! allocation's host mapping lie *at its device address*
//! (`crate::vk::shared_memory`: a placed mapping through
//! VK_EXT_map_memory_placed where the device has it, else a plain mapping
//! accepted only where it already is the device address, as on lavapipe).
//! The pointer clSVMAlloc returns is that address; nothing is translated,
//! in the runtime or in the compiler. The alternative, translating
//! addresses in every kernel access, would cost every pointer access of
//! every kernel and break pointers stored by the host; it is not done.
//!
//! **Coarse grain.** The memory is host-visible and host-coherent, shared
//! by host and device: a map or unmap copies nothing and is a marker in
//! queue order (the spec's synchronization points: device writes are
//! visible to the host once the command before the map completed, host
//! writes to the commands after the unmap). Memcpy and fill are device
//! copies (SVM to SVM) or the ordinary buffer transfers, on an internal
//! cl_mem (`Mem::svm_allocation`) whose storage is the allocation.
//!
//! **Fine grain.** The same memory, used by the host in place without map
//! or unmap: reported wherever coarse grain is (`Device::svm_capabilities`).
//! Host writes before a submission are visible to it (Vulkan orders host
//! writes before vkQueueSubmit), and every command buffer ends with a
//! barrier to HOST_READ before the timeline value that completes its
//! events, so a complete command's writes are visible to the host; on
//! host-coherent memory nothing needs flushing. Nothing is promised while
//! a kernel runs, except with **SVM atomics** (CL_MEM_SVM_ATOMICS), which
//! only CPU devices report (`Device::svm_atomics`: their kernels' atomics
//! are the host's own instructions on the same memory). Allocations of
//! every grain are the same here; the flags only say what the
//! application may rely on.
//!
//! **Where.** A device reports CL_DEVICE_SVM_COARSE_GRAIN_BUFFER only where
//! a probe allocation got the identity (`vk::Device::shared_memory_works`),
//! and an allocation that cannot get it fails (clSVMAlloc returns NULL).
//! Contexts with one device only: each ferrocl device is its own VkDevice,
//! and one pointer cannot be the device address on two of them.
//!
//! Every allocation is registered, held strongly, in
//! `super::device_address` until clSVMFree: launches find it there
//! (keep-alive for kernel arguments and CL_KERNEL_EXEC_INFO_SVM_PTRS), and
//! so do the commands here.
//!
//! Layer: commands (layer 6 of `super`): SVM allocations are memory objects
//! of layer 4, found through `super::device_address` (layer 5), moved by
//! `super::transfer`.

use std::sync::Arc;

use opencl_sys::*;

use super::context::Context;
use super::error::CLResult;
use super::event::Event;
use super::memory::Mem;
use super::queue::Queue;
use super::transfer;
use crate::vk::buffer::Buffer;

/// clSVMAlloc's largest alignment: allocations are dedicated, and their
/// device addresses are checked against the alignment asked for.
pub const MAX_ALIGNMENT: u64 = 4096;

/// clSVMAlloc once the ICD layer has checked the flags (fine grain and
/// atomics only where the device reports them): an allocation of
/// `size` bytes aligned to `alignment` (a power of two, 0 for the
/// default), whose pointer is the same on the host and in kernels.
/// `Err` where it cannot be had (clSVMAlloc then returns NULL).
pub fn alloc(
    context: &Arc<Context>,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: u64,
) -> CLResult<u64> {
    let [device] = &context.devices[..] else {
        return Err(CL_INVALID_OPERATION);
    };
    if device.svm_capabilities() & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        return Err(CL_INVALID_OPERATION);
    }
    let alignment = alignment.max(device.phys.base_addr_align());
    let vkdev = device.vk()?;
    let storage = Buffer::new_shared(&vkdev, size as u64, alignment)?
        .ok_or(CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
    let address = storage.address;
    let mem = Mem::new_svm(context.clone(), flags, size, Arc::new(storage));
    super::device_address::register(&mem, true)?;
    Ok(address)
}

/// The SVM allocation of `context` that holds `ptr`, and the offset of
/// `ptr` in it.
pub fn find(context: &Arc<Context>, ptr: u64) -> Option<(Arc<Mem>, usize)> {
    super::device_address::lookup(context, 0, ptr)
        .filter(|(m, _)| m.svm_allocation)
        .map(|(m, off)| (m, off as usize))
}

/// clSVMFree: forgets the allocation that starts at `ptr` (the memory goes
/// once no command holds it). A pointer that is no allocation's start is
/// ignored, as the spec lets it be.
pub fn free(context: &Arc<Context>, ptr: u64) {
    if let Some((m, 0)) = find(context, ptr) {
        super::device_address::unregister(&m);
    }
}

/// clEnqueueSVMMemcpy once the ICD layer has checked the arguments: SVM to
/// SVM on the device; host to SVM and SVM to host as buffer writes and
/// reads; host to host (neither pointer in an allocation) on the host
/// after the commands before it.
///
/// # Safety
/// Pointers outside SVM allocations must be valid for `size` bytes until
/// the returned event completes.
pub unsafe fn enqueue_memcpy(
    queue: &Arc<Queue>,
    dst: u64,
    src: u64,
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let inside = |p: u64| find(&queue.context, p).filter(|(m, off)| off + size <= m.size);
    // SAFETY: forwarded.
    unsafe {
        enqueue_copy_between(
            queue,
            (dst, inside(dst)),
            (src, inside(src)),
            size,
            CL_COMMAND_SVM_MEMCPY,
            wait_list,
        )
    }
}

/// A pointer and the memory object (with the offset in it) it lies in;
/// `None`: host memory of the application.
pub type Located = (u64, Option<(Arc<Mem>, usize)>);

/// A copy of `size` bytes between two located pointers (SVM and USM
/// memcpy): object to object on the device; host to object and object to
/// host as buffer writes and reads; host to host on the host after the
/// commands before it.
///
/// # Safety
/// Pointers outside objects must be valid for `size` bytes until the
/// returned event completes.
pub unsafe fn enqueue_copy_between(
    queue: &Arc<Queue>,
    dst: Located,
    src: Located,
    size: usize,
    ty: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    match (dst, src) {
        ((_, Some((d, doff))), (_, Some((s, soff)))) => {
            transfer::enqueue_copy_as(queue, &s, &d, soff, doff, size, ty, wait_list)
        }
        ((_, Some((d, doff))), (src, None)) => {
            // SAFETY: the caller keeps `src` readable until completion.
            unsafe {
                transfer::enqueue_write_from_as(
                    queue,
                    &d,
                    doff,
                    src as *const u8,
                    size,
                    ty,
                    wait_list,
                )
            }
        }
        ((dst, None), (_, Some((s, soff)))) => {
            transfer::enqueue_read_as(queue, &s, soff, size, dst as *mut u8, ty, wait_list)
        }
        ((dst, None), (src, None)) => {
            let e = transfer::enqueue_marker(queue, ty, wait_list);
            if e.wait() < 0 {
                return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
            }
            // SAFETY: the caller's pointers, valid for `size` bytes; the
            // commands before this one are complete.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, size) };
            Ok(e)
        }
    }
}

/// clEnqueueSVMMemFill: `pattern` repeated over `size` bytes at `ptr`,
/// which must lie in an allocation (CL_INVALID_VALUE otherwise).
pub fn enqueue_fill(
    queue: &Arc<Queue>,
    ptr: u64,
    pattern: &[u8],
    size: usize,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let (m, off) = find(&queue.context, ptr)
        .filter(|(m, off)| off + size <= m.size)
        .ok_or(CL_INVALID_VALUE)?;
    transfer::enqueue_fill_as(
        queue,
        &m,
        pattern,
        off,
        size,
        CL_COMMAND_SVM_MEMFILL,
        wait_list,
    )
}

/// clEnqueueSVMMap / clEnqueueSVMUnmap / clEnqueueSVMMigrateMem: the
/// memory is the host's already, so each is a marker in queue order that
/// keeps the allocation (if `ptr` is in one) alive until it completes.
pub fn enqueue_sync_point(
    queue: &Arc<Queue>,
    ptr: u64,
    command_type: cl_command_type,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    match find(&queue.context, ptr) {
        Some((m, _)) => transfer::enqueue_in_place(queue, &m, true, command_type, wait_list),
        None => transfer::enqueue_marker(queue, command_type, wait_list),
    }
}

/// clEnqueueSVMFree: once the commands before it are done, `free_all`
/// runs on the completer thread (the application's callback, or
/// [`free`] of each pointer).
pub fn enqueue_free(
    queue: &Arc<Queue>,
    free_all: Box<dyn FnOnce() + Send>,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    queue.submit(CL_COMMAND_SVM_FREE, wait_list, None, Some(free_all))
}
