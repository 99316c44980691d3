//! Replayable recordings: secondary command buffers recorded once (by a
//! command buffer's finalize, `crate::core::command_buffer`) and executed
//! by any number of queue submissions (`Recorder::execute`), several of
//! them pending at once (VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT).
//!
//! A recording has a command pool of its own: it is recorded on the
//! application's thread while the queues' own pools are used by their
//! submitters, and host access to a pool must be externally synchronized.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model.

use std::sync::Arc;

use ash::vk;

use super::device::Device;
use super::map_vk_err;
use super::queue::Recorder;
use crate::core::error::CLResult;

/// One secondary command buffer in its own pool; destroyed with the last
/// reference (a submission executing it holds one until it completes).
pub struct Recording {
    device: Arc<Device>,
    pool: vk::CommandPool,
    pub raw: vk::CommandBuffer,
    /// What the recorded commands use that nothing else keeps alive
    /// ([`Recorder::hold`]).
    _held: Vec<Box<dyn Send>>,
}

// SAFETY: the pool and buffer are only used through `&self` for
// vkCmdExecuteCommands (reading a secondary buffer's handle); recording
// happened once, before the value was shared.
unsafe impl Sync for Recording {}

impl Recording {
    /// Records `f` into a new secondary command buffer usable by several
    /// pending submissions at once.
    pub fn record(
        device: &Arc<Device>,
        f: impl FnOnce(&Recorder) -> CLResult<()>,
    ) -> CLResult<Recording> {
        let pi = vk::CommandPoolCreateInfo::default().queue_family_index(device.queue_family);
        // SAFETY: valid device.
        let pool = unsafe { device.raw.create_command_pool(&pi, None) }.map_err(map_vk_err)?;
        let mut rec = Recording {
            device: device.clone(),
            pool,
            raw: vk::CommandBuffer::null(),
            _held: Vec::new(),
        };
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::SECONDARY)
            .command_buffer_count(1);
        // SAFETY: the new pool is used by this thread only.
        rec.raw = unsafe { device.raw.allocate_command_buffers(&ai) }.map_err(map_vk_err)?[0];
        // Outside any render pass: nothing is inherited.
        let inheritance = vk::CommandBufferInheritanceInfo::default();
        let bi = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE)
            .inheritance_info(&inheritance);
        // SAFETY: the buffer is in the initial state and ours alone.
        unsafe { device.raw.begin_command_buffer(rec.raw, &bi) }.map_err(map_vk_err)?;
        let r = Recorder::new(device, rec.raw);
        let status = f(&r);
        rec._held = r.take_held();
        // SAFETY: the buffer is recording; ending it also after a failed
        // `f` leaves it in a state in which destroying its pool is valid.
        let end = unsafe { device.raw.end_command_buffer(rec.raw) }.map_err(map_vk_err);
        status?;
        end?;
        Ok(rec)
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        // SAFETY: no submission executes the buffer any more (each holds a
        // reference until it completes); destroying the pool frees it.
        unsafe { self.device.raw.destroy_command_pool(self.pool, None) };
    }
}
