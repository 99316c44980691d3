//! clRemapCommandBufferKHR (cl_khr_command_buffer_multi_device): a deep
//! copy of a command buffer whose commands target other queues, possibly
//! of other devices or with other properties.
//!
//! Each command is made again for its new queue from what was kept at
//! recording: a kernel command from its configuration (arguments, exec
//! info, NDRange; its launch planned anew on the new queue, which also
//! checks that the kernel was built for that device), a copy or fill
//! through its `MakeTransfer` (new device's storage, staging and image
//! copies). Sync points keep their numbers, and each command's barrier is
//! decided again by its new queue's order. A finalized command buffer's
//! copy is finalized (recorded on the new devices); a recording one's
//! copy can go on recording.
//!
//! **Mapping.** Explicit: lane *i* (the command buffer's *i*-th queue)
//! becomes `queues[i]`. Automatic: lane *i* becomes `queues[i %
//! queues.len()]`: commands of one lane stay together on one queue, and
//! lanes are spread over the queues given.

use std::sync::Arc;

use super::{Body, CommandBuffer, MutableCommand, State, Transfer};
use crate::core::error::CLResult;
use crate::core::queue::Queue;

/// What [`CommandBuffer::remap`] returns: the copy and, for each kernel
/// command of the original, its counterpart in the copy.
pub struct Remapped {
    pub command_buffer: Arc<CommandBuffer>,
    pub commands: Vec<(Arc<MutableCommand>, Arc<MutableCommand>)>,
}

impl CommandBuffer {
    /// clRemapCommandBufferKHR once the ICD layer checked the queues:
    /// `automatic` picks the mapping (see the module doc); with it off,
    /// `queues` has one queue per lane.
    pub fn remap(&self, queues: Vec<Arc<Queue>>, automatic: bool) -> CLResult<Remapped> {
        let n = queues.len();
        let lane_of = |old: usize| if automatic { old % n } else { old };
        let copy = CommandBuffer::new(queues, self.properties.clone(), self.flags);
        let mut commands = Vec::new();
        let inner = self.inner.lock();
        for step in &inner.steps {
            let lane = lane_of(step.lane);
            let queue = copy.queue(lane).clone();
            let body = match &step.body {
                Body::Barrier => Body::Barrier,
                Body::Transfer(t) => {
                    for (m, _) in &t.uses {
                        m.ensure_on(queue.device_index)?;
                    }
                    Body::Transfer(Transfer {
                        make: t.make.clone(),
                        made: (t.make)(&queue)?,
                        uses: t.uses.clone(),
                    })
                }
                Body::Kernel(k) => {
                    let dispatch = k.dispatch.lock().clone();
                    let c = copy.kernel_command(
                        lane,
                        &k.kernel,
                        k.properties.clone(),
                        k.updatable,
                        dispatch,
                    )?;
                    commands.push((k.clone(), c.clone()));
                    Body::Kernel(c)
                }
            };
            copy.push(lane, &step.waits, body)?;
        }
        if inner.state != State::Recording {
            copy.finalize()?;
        }
        Ok(Remapped {
            command_buffer: copy,
            commands,
        })
    }
}
