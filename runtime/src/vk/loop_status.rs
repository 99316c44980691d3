//! Loop-status words: the word a launch of a kernel compiled for a driver
//! with a loop limiter (`ferrocl_compiler::DeviceCaps::loop_limiter`,
//! lavapipe) sets when the limiter may have cut one of its loops
//! (`ferrocl_compiler::abi`, "Loop status").
//!
//! One device-wide descriptor set layout (set `LOOP_STATUS_SET`, binding
//! `LOOP_STATUS_BINDING`, a STORAGE_BUFFER_DYNAMIC of one word) that every
//! such kernel's pipeline layout shares; words in host-visible chunks of
//! [`SLOTS`], each chunk with its own set. A queue takes a zeroed word
//! ([`LoopStatus::take`]) on its first launch; a launch of a kernel with
//! loops binds the chunk's set with the word's dynamic offset, every
//! launch runs its dispatches only while the word is 0 (conditional
//! rendering, where the device has VK_EXT_conditional_rendering) and reads
//! the word once it has completed (`core::queue::Poison`); dropping the
//! [`StatusWord`] (with the queue and its last launch) gives it back.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model (queues
//! hold a word).

use std::sync::Arc;

use ash::vk;
use ferrocl_compiler::LOOP_STATUS_BINDING;
use parking_lot::Mutex;

use super::buffer::{Buffer, BufferKind};
use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// Words per chunk.
pub const SLOTS: u32 = 1024;

struct Chunk {
    buffer: Buffer,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
}

pub struct LoopStatus {
    device: Arc<Device>,
    /// The set layout every kernel with `Kernel::loop_status` uses at
    /// `LOOP_STATUS_SET`; lives as long as the device.
    pub layout: vk::DescriptorSetLayout,
    /// Bytes between words: minStorageBufferOffsetAlignment (dynamic
    /// offsets are multiples of it), at least 4.
    stride: u64,
    chunks: Mutex<Vec<Arc<Chunk>>>,
    /// Free words: (chunk, index).
    free: Mutex<Vec<(usize, u32)>>,
}

/// One launch's word; back to the free list when dropped.
pub struct StatusWord {
    owner: Arc<LoopStatus>,
    chunk: Arc<Chunk>,
    chunk_index: usize,
    index: u32,
}

// SAFETY: the chunk's mapped memory is only touched through `StatusWord`
// (one owner per word) while no launch that uses the word is pending, or
// read after it completed.
unsafe impl Send for Chunk {}
// SAFETY: as above.
unsafe impl Sync for Chunk {}

impl std::fmt::Debug for LoopStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopStatus")
            .field("layout", &self.layout)
            .field("stride", &self.stride)
            .finish_non_exhaustive()
    }
}

impl LoopStatus {
    pub fn new(device: &Arc<Device>) -> CLResult<LoopStatus> {
        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(LOOP_STATUS_BINDING)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER_DYNAMIC)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let li = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid device and create info.
        let layout =
            unsafe { device.raw.create_descriptor_set_layout(&li, None) }.map_err(map_vk_err)?;
        let stride = device
            .phys
            .properties
            .limits
            .min_storage_buffer_offset_alignment
            .max(4);
        Ok(LoopStatus {
            device: device.clone(),
            layout,
            stride,
            chunks: Mutex::new(Vec::new()),
            free: Mutex::new(Vec::new()),
        })
    }

    /// A zeroed word for one launch.
    pub fn take(self: &Arc<Self>) -> CLResult<StatusWord> {
        let slot = self.free.lock().pop();
        let (chunk_index, index) = match slot {
            Some(s) => s,
            None => self.grow()?,
        };
        let chunk = self.chunks.lock()[chunk_index].clone();
        let w = StatusWord {
            owner: self.clone(),
            chunk,
            chunk_index,
            index,
        };
        // SAFETY: the word is ours alone and no pending launch uses it.
        unsafe { w.ptr().write_volatile(0) };
        Ok(w)
    }

    /// Adds a chunk; returns one of its words (the others go to the free
    /// list).
    fn grow(&self) -> CLResult<(usize, u32)> {
        let dev = &self.device;
        // The word also decides whether a launch's dispatches run
        // (conditional rendering, where the device has it).
        let usage = if dev.conditional_rendering.is_some() {
            vk::BufferUsageFlags::CONDITIONAL_RENDERING_EXT
        } else {
            vk::BufferUsageFlags::empty()
        };
        let size = self.stride * SLOTS as u64;
        let buffer = Buffer::with_usage(dev, size, BufferKind::Readback, usage)?;
        if buffer.mapped().is_none() {
            return Err(opencl_sys::CL_OUT_OF_RESOURCES);
        }
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER_DYNAMIC,
            descriptor_count: 1,
        }];
        let pi = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: valid device and create info.
        let pool = unsafe { dev.raw.create_descriptor_pool(&pi, None) }.map_err(map_vk_err)?;
        let layouts = [self.layout];
        let ai = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: a fresh pool sized for this layout.
        let set = match unsafe { dev.raw.allocate_descriptor_sets(&ai) } {
            Ok(s) => s[0],
            Err(e) => {
                // SAFETY: the pool is ours and unused.
                unsafe { dev.raw.destroy_descriptor_pool(pool, None) };
                return Err(map_vk_err(e));
            }
        };
        let info = [vk::DescriptorBufferInfo {
            buffer: buffer.raw,
            offset: 0,
            range: 4,
        }];
        let write = [vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(LOOP_STATUS_BINDING)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER_DYNAMIC)
            .buffer_info(&info)];
        // SAFETY: the set is new and unused; the buffer is alive.
        unsafe { dev.raw.update_descriptor_sets(&write, &[]) };
        let mut chunks = self.chunks.lock();
        chunks.push(Arc::new(Chunk { buffer, pool, set }));
        let c = chunks.len() - 1;
        self.free.lock().extend((1..SLOTS).map(|i| (c, i)));
        Ok((c, 0))
    }
}

impl StatusWord {
    /// The set to bind at `LOOP_STATUS_SET`.
    pub fn set(&self) -> vk::DescriptorSet {
        self.chunk.set
    }

    /// The buffer holding the word, at [`StatusWord::offset`].
    pub fn buffer(&self) -> vk::Buffer {
        self.chunk.buffer.raw
    }

    /// The dynamic offset of this word in the set's buffer.
    pub fn offset(&self) -> u32 {
        (self.owner.stride * self.index as u64) as u32
    }

    fn ptr(&self) -> *mut u32 {
        let base = self.chunk.buffer.mapped().expect("mapped at creation");
        // SAFETY: index < SLOTS, inside the mapped chunk.
        unsafe { base.add(self.offset() as usize).cast::<u32>() }
    }

    /// The word's value; call once the launch has completed (the queue's
    /// host barrier made the device's write visible).
    pub fn read(&self) -> u32 {
        // SAFETY: mapped, aligned word of ours.
        unsafe { self.ptr().read_volatile() }
    }

    /// Zeroes the word; only while no launch that uses it is pending (the
    /// next submission makes the write visible to the device).
    pub fn clear(&self) {
        // SAFETY: mapped, aligned word of ours, which no pending launch uses.
        unsafe { self.ptr().write_volatile(0) }
    }
}

impl Drop for StatusWord {
    fn drop(&mut self) {
        self.owner.free.lock().push((self.chunk_index, self.index));
    }
}

impl Drop for LoopStatus {
    fn drop(&mut self) {
        // SAFETY: no launch holds a word (each holds an Arc to us), so no
        // pending command uses the sets; kernels that use the layout are
        // gone with their launches.
        unsafe {
            for c in self.chunks.lock().iter() {
                self.device.raw.destroy_descriptor_pool(c.pool, None);
            }
            self.device
                .raw
                .destroy_descriptor_set_layout(self.layout, None);
        }
    }
}
