//! cl_command_queue: an in-order or out-of-order queue on one device,
//! backed by a [`QueueEngine`]. Every enqueued command gets an event;
//! events complete in enqueue order, so `finish` waits for the last one.
//!
//! Out-of-order queues keep the one submission stream but order a command
//! after earlier ones only where OpenCL asks for it: when it has a wait
//! list (a full barrier before it), or when it follows a barrier command.
//! A marker with an empty wait list needs nothing: events complete in
//! enqueue order, so it completes after everything before it.

use std::sync::{Arc, Weak};

use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::event::Event;
use super::object::{tag, Base, ClObject};
use crate::vk::queue::{Command, Progress, QueueEngine, RecordFn};

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
        let engine = QueueEngine::new(&vkdev, properties & CL_QUEUE_PROFILING_ENABLE != 0)?;
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
    /// done, then completes the returned event. A command whose wait list
    /// holds a failed event fails with
    /// CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and does no work.
    pub fn submit(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        record: Option<RecordFn>,
        host: Option<HostFn>,
    ) -> Arc<Event> {
        let event = Event::new(self.context.clone(), Some(self.clone()), command_type);
        let me = Arc::as_ptr(self);
        let in_order = self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0;
        let is_barrier = command_type == CL_COMMAND_BARRIER;
        let after_previous = in_order || is_barrier || !wait_list.is_empty();
        // This queue's events were processed by its submitter before this
        // command: only their failure needs checking. Others are waited for.
        let (local, foreign): (Vec<Arc<Event>>, Vec<Arc<Event>>) = wait_list
            .into_iter()
            .partition(|e| e.queue.as_ref().map(Arc::as_ptr) == Some(me));
        let wait = (!foreign.is_empty()).then(|| {
            Box::new(move || {
                let mut failed = false;
                for e in &foreign {
                    failed |= e.wait() < 0;
                }
                if failed {
                    Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
                } else {
                    Ok(())
                }
            }) as Box<dyn FnOnce() -> CLResult<()> + Send>
        });
        let check = (!local.is_empty()).then(|| {
            Box::new(move || {
                if local.iter().any(|e| e.is_failed()) {
                    Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
                } else {
                    Ok(())
                }
            }) as Box<dyn FnOnce() -> CLResult<()> + Send>
        });
        let ev = event.clone();
        let done = Box::new(move |r: CLResult<crate::vk::queue::DeviceTimes>| match r {
            Ok(times) => {
                if let Some(h) = host {
                    h();
                }
                ev.complete(times);
            }
            Err(e) => ev.set_status(e),
        });
        *self.last.lock() = Some(Arc::downgrade(&event));
        self.engine.enqueue(Command {
            wait,
            check,
            record,
            after_previous,
            before_next: is_barrier,
            progress: event.clone() as Arc<dyn Progress>,
            done,
        });
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
