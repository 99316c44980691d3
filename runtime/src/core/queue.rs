//! cl_command_queue: an in-order queue on one device, backed by a
//! [`QueueEngine`]. Every enqueued command gets an event; `finish` waits
//! for the last one.

use std::sync::{Arc, Weak};

use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::event::Event;
use super::object::{tag, Base, ClObject};
use crate::vk::queue::{Command, QueueEngine, RecordFn};

#[repr(C)]
pub struct Queue {
    base: Base,
    pub context: Arc<Context>,
    pub device: Arc<Device>,
    pub properties: cl_command_queue_properties,
    /// The property list given to clCreateCommandQueueWithProperties.
    pub properties_array: Vec<cl_queue_properties>,
    engine: QueueEngine,
    last: Mutex<Option<Weak<Event>>>,
}

impl ClObject for Queue {
    const TAG: u32 = tag(b"QUEU");
    const INVALID: cl_int = CL_INVALID_COMMAND_QUEUE;
    fn base(&self) -> &Base {
        &self.base
    }
}

/// Host work run after the command's device work, before its event completes.
pub type HostFn = Box<dyn FnOnce() + Send>;

impl Queue {
    pub fn new(
        context: Arc<Context>,
        device: Arc<Device>,
        properties: cl_command_queue_properties,
        properties_array: Vec<cl_queue_properties>,
    ) -> CLResult<Arc<Queue>> {
        let vkdev = device.vk()?;
        let engine = QueueEngine::new(&vkdev)?;
        Ok(Arc::new(Queue {
            base: Base::new(Self::TAG),
            context,
            device,
            properties,
            properties_array,
            engine,
            last: Mutex::new(None),
        }))
    }

    /// Enqueues a command: waits for `wait_list` (events of other queues or
    /// user events), records `record`, then runs `host` once the device is
    /// done, then completes the returned event.
    pub fn submit(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        record: Option<RecordFn>,
        host: Option<HostFn>,
    ) -> Arc<Event> {
        let event = Event::new(self.context.clone(), Some(self.clone()), command_type);
        let me = Arc::as_ptr(self);
        // Events of this in-order queue are already ordered before us.
        let foreign: Vec<Arc<Event>> = wait_list
            .into_iter()
            .filter(|e| e.queue.as_ref().map(Arc::as_ptr) != Some(me) || e.status() < 0)
            .collect();
        let wait = (!foreign.is_empty()).then(|| {
            Box::new(move || {
                for e in &foreign {
                    if e.wait() < 0 {
                        return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
                    }
                }
                Ok(())
            }) as Box<dyn FnOnce() -> CLResult<()> + Send>
        });
        let ev = event.clone();
        let done = Box::new(move |r: CLResult<()>| match r {
            Ok(()) => {
                if let Some(h) = host {
                    h();
                }
                ev.set_status(CL_COMPLETE);
            }
            Err(e) => ev.set_status(e),
        });
        event.set_status(CL_SUBMITTED);
        *self.last.lock() = Some(Arc::downgrade(&event));
        self.engine.enqueue(Command { wait, record, done });
        event
    }

    /// clFinish: waits until every command enqueued so far is complete.
    pub fn finish(&self) {
        let last = self.last.lock().as_ref().and_then(Weak::upgrade);
        if let Some(e) = last {
            e.wait();
        }
    }
}
