//! cl_command_queue: an in-order or out-of-order queue on one device,
//! backed by a [`QueueEngine`]. Every enqueued command gets an event;
//! events complete in enqueue order, so `finish` waits for the last one.
//!
//! Out-of-order queues keep the one submission stream but order a command
//! after earlier ones only where OpenCL asks for it: when it has a wait
//! list (a full barrier before it), or when it follows a barrier command.
//! A marker with an empty wait list needs nothing: events complete in
//! enqueue order, so it completes after everything before it.
//!
//! Layer: events and queues (above `super::event`, below memory objects).
//! A command names the memory it uses only through its record function;
//! making that memory current on this queue's device is the residency
//! layer's job (`super::residency::resident`).

use std::sync::{Arc, OnceLock, Weak};

use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::event::{Event, EventQueue};
use super::object::{tag, Base, ClObject};
use crate::vk::loop_status::StatusWord;
use crate::vk::queue::{Command, Leftover, Progress, QueueEngine, RecordFn, SemaphoreOps, WaitFn};

#[repr(C)]
pub struct Queue {
    base: Base,
    pub context: Arc<Context>,
    pub device: Arc<Device>,
    /// Index of `device` in the context's device list: which storage of a
    /// memory object this queue's commands use (`super::residency`).
    pub device_index: usize,
    pub properties: cl_command_queue_properties,
    /// The property list given to clCreateCommandQueueWithProperties.
    pub properties_array: Vec<cl_queue_properties>,
    engine: QueueEngine,
    last: Mutex<Option<Weak<Event>>>,
    /// Set once a command's execution failed (`Poison`).
    pub poison: Arc<Poison>,
    /// The loop-status word every kernel launch of this queue binds on a
    /// driver that cuts long loops (`Kernel::loop_status`), made on first
    /// use.
    loop_status: OnceLock<CLResult<Arc<StatusWord>>>,
    /// [`wait_poll_ns`] of the device.
    wait_poll_ns: u64,
    /// Semaphore signals enqueued here and not yet submitted (clFlush
    /// waits for them, `super::semaphore`).
    pub pending_signals: Arc<super::semaphore::PendingSignals>,
}

/// A queue whose command's execution failed: a kernel launch whose loop
/// the driver may have cut (`super::kernel`), which also made every later
/// launch of the queue skip its work (the launches share the queue's
/// loop-status word, and run their dispatches only while it is 0:
/// conditional rendering, where the device has it). Until
/// clFinish reports it (CL_OUT_OF_RESOURCES), every command of the queue
/// that completes fails too (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
/// so that nothing computed after the cut reaches the application as if it
/// were right, a blocking read included.
#[derive(Default)]
pub struct Poison {
    on: std::sync::atomic::AtomicBool,
}

impl Poison {
    /// Marks the queue failed; true for the first failure (the command
    /// that caused it), false when it already was.
    pub fn set(&self) -> bool {
        !self.on.swap(true, std::sync::atomic::Ordering::AcqRel)
    }

    pub fn is_set(&self) -> bool {
        self.on.load(std::sync::atomic::Ordering::Acquire)
    }
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
/// Host work that may find that the command's execution failed
/// ([`Queue::submit_checked`]): its error becomes the event's status.
pub type CheckedHostFn = Box<dyn FnOnce() -> CLResult<()> + Send>;

/// One part of a command enqueued with [`Queue::submit_parts`].
pub struct Part {
    /// Runs on the submitter thread before `record`; may block.
    pub prepare: Box<dyn FnOnce() -> CLResult<()> + Send>,
    pub record: RecordFn,
    /// Runs once this part's device work is done (skipped after a failure).
    pub host: Option<HostFn>,
}

struct Deps {
    wait: Option<WaitFn>,
    check: Option<WaitFn>,
    after_previous: bool,
}

/// What the parts of one streamed command share.
#[derive(Default)]
struct Stream {
    /// A part (or the wait list) failed: later parts do nothing.
    failed: std::sync::atomic::AtomicBool,
    state: Mutex<StreamState>,
}

#[derive(Default)]
struct StreamState {
    error: Option<cl_int>,
    /// START of the first part, END of the latest.
    times: Option<[u64; 2]>,
}

/// Progress of the parts after the first: only a failure reaches the event.
struct DoomOnly(Arc<Event>);

impl Progress for DoomOnly {
    fn submitted(&self, _: u64) {}
    fn running(&self) {}
    fn doomed(&self) {
        self.0.doomed();
    }
}

impl EventQueue for Queue {
    fn handle(&self) -> cl_command_queue {
        self as *const Queue as cl_command_queue
    }

    fn profiling(&self) -> bool {
        self.properties & CL_QUEUE_PROFILING_ENABLE != 0
    }

    fn wait_poll_ns(&self) -> u64 {
        self.wait_poll_ns
    }
}

/// How long a thread waiting for a command of a queue on `device` polls
/// before it blocks (`Event::wait`): `FERROCL_WAIT_POLL_US` (default 50)
/// on a GPU; 0 on a CPU device (lavapipe), whose own threads need the
/// cores a polling thread would take.
fn wait_poll_ns(device: &Device) -> u64 {
    static US: OnceLock<u64> = OnceLock::new();
    if device.device_type() != CL_DEVICE_TYPE_GPU {
        return 0;
    }
    let us = *US.get_or_init(|| {
        std::env::var("FERROCL_WAIT_POLL_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(50)
    });
    us * 1000
}

/// Every queue made and not yet dropped, weakly held.
static LIVE: Mutex<Vec<Weak<Queue>>> = Mutex::new(Vec::new());

impl Queue {
    pub fn new(
        context: Arc<Context>,
        device: Arc<Device>,
        properties: cl_command_queue_properties,
        properties_array: Vec<cl_queue_properties>,
    ) -> CLResult<Arc<Queue>> {
        let vkdev = device.vk()?;
        let device_index = context
            .devices
            .iter()
            .position(|d| Arc::ptr_eq(d, &device))
            .ok_or(CL_INVALID_DEVICE)?;
        let engine = QueueEngine::new(&vkdev, properties & CL_QUEUE_PROFILING_ENABLE != 0)?;
        let wait_poll_ns = wait_poll_ns(&device);
        let queue = Arc::new(Queue {
            base: Base::new(Self::TAG),
            context,
            device,
            device_index,
            properties,
            properties_array,
            engine,
            last: Mutex::new(None),
            poison: Default::default(),
            loop_status: OnceLock::new(),
            wait_poll_ns,
            pending_signals: Default::default(),
        });
        let mut live = LIVE.lock();
        live.retain(|q| q.strong_count() > 0);
        live.push(Arc::downgrade(&queue));
        Ok(queue)
    }

    /// The live queues of `context` (clMemBlockingFreeINTEL waits for the
    /// commands enqueued on each).
    pub fn of_context(context: &Arc<Context>) -> Vec<Arc<Queue>> {
        LIVE.lock()
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|q| Arc::ptr_eq(&q.context, context))
            .collect()
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
        let host = host.map(|h| {
            Box::new(move || {
                h();
                Ok(())
            }) as CheckedHostFn
        });
        self.submit_checked(command_type, wait_list, record, host)
    }

    /// The queue's loop-status word (`Kernel::loop_status`).
    pub fn loop_status(&self) -> CLResult<Arc<StatusWord>> {
        self.loop_status
            .get_or_init(|| Ok(Arc::new(self.device.loop_status()?.take()?)))
            .clone()
    }

    /// [`Queue::submit`] whose host work may fail the command: its error
    /// becomes the event's status (the command's execution failed, e.g. a
    /// loop cut by the driver, `super::kernel`), and the queue is poisoned
    /// ([`Poison`]).
    pub fn submit_checked(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        record: Option<RecordFn>,
        host: Option<CheckedHostFn>,
    ) -> Arc<Event> {
        self.enqueue_command(command_type, wait_list, record, host, None, None)
    }

    /// A command that waits for or signals binary semaphores
    /// (`super::semaphore`): `ops` go with its submission, `before` (which
    /// may block the submitter) runs after its wait list, before it is
    /// recorded; `host` runs once its submission has executed, and `hold`
    /// (what the submission uses) is kept until then.
    pub fn submit_semaphores(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        ops: SemaphoreOps,
        before: Option<WaitFn>,
        host: HostFn,
        hold: Box<dyn Send>,
    ) -> Arc<Event> {
        let host = Box::new(move || {
            host();
            drop(hold);
            Ok(())
        }) as CheckedHostFn;
        self.enqueue_command(command_type, wait_list, None, Some(host), Some(ops), before)
    }

    fn enqueue_command(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        record: Option<RecordFn>,
        host: Option<CheckedHostFn>,
        semaphores: Option<SemaphoreOps>,
        before: Option<WaitFn>,
    ) -> Arc<Event> {
        let event = Event::new(
            self.context.clone(),
            Some(self.clone() as Arc<dyn EventQueue>),
            command_type,
        );
        let mut deps = self.dependencies(command_type, wait_list);
        if let Some(b) = before {
            let first = deps.wait.take();
            deps.wait = Some(Box::new(move || {
                if let Some(w) = first {
                    w()?;
                }
                b()
            }));
        }
        let ev = event.clone();
        let poison = self.poison.clone();
        let done = Box::new(
            move |r: CLResult<crate::vk::queue::DeviceTimes>| -> Leftover {
                match r {
                    Ok(times) => match host.map_or(Ok(()), |h| h()) {
                        Ok(()) if poison.is_set() => {
                            ev.set_status(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
                        }
                        Ok(()) => ev.complete(times),
                        Err(e) => {
                            poison.set();
                            ev.set_status(e);
                        }
                    },
                    Err(e) => {
                        ev.set_status(e);
                        // The host work holds what the device uses.
                        return host.map(|h| Box::new(h) as Box<dyn Send>);
                    }
                }
                None
            },
        );
        let cmd = Command {
            wait: deps.wait,
            check: deps.check,
            record,
            after_previous: deps.after_previous,
            before_next: command_type == CL_COMMAND_BARRIER,
            progress: event.clone() as Arc<dyn Progress>,
            done,
            semaphores,
        };
        self.engine.enqueue_then(cmd, || self.set_last(&event));
        event
    }

    /// Splits `wait_list` into what the submitter must wait for (other
    /// queues' and user events) and what it only checks (this queue's
    /// events, processed before), and says whether the command must follow
    /// everything before it.
    fn dependencies(&self, command_type: cl_command_type, wait_list: Vec<Arc<Event>>) -> Deps {
        let me = self.handle();
        let in_order = self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0;
        let is_barrier = command_type == CL_COMMAND_BARRIER;
        let after_previous = in_order || is_barrier || !wait_list.is_empty();
        // This queue's events were processed by its submitter before this
        // command: only their failure needs checking. Others are waited for.
        let (local, foreign): (Vec<Arc<Event>>, Vec<Arc<Event>>) =
            wait_list.into_iter().partition(|e| e.queue_handle() == me);
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
            }) as WaitFn
        });
        let check = (!local.is_empty()).then(|| {
            Box::new(move || {
                if local.iter().any(|e| e.is_failed()) {
                    Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
                } else {
                    Ok(())
                }
            }) as WaitFn
        });
        Deps {
            wait,
            check,
            after_previous,
        }
    }

    /// Enqueues one command made of `parts` executed in order, each its own
    /// submission (a streamed transfer: each part reuses staging that an
    /// earlier part released). Each part's `prepare` runs on the submitter
    /// thread and may block until that staging is free; its `host` work runs
    /// once its device work is done. The event is submitted with the first
    /// part and completes with the last; its profiling START is the first
    /// part's, END the last part's. A failure (wait list, a part) fails the
    /// event and skips the remaining parts' work.
    pub fn submit_parts(
        self: &Arc<Self>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        parts: Vec<Part>,
    ) -> Arc<Event> {
        let event = Event::new(
            self.context.clone(),
            Some(self.clone() as Arc<dyn EventQueue>),
            command_type,
        );
        let deps = self.dependencies(command_type, wait_list);
        let n = parts.len();
        let stream = Arc::new(Stream::default());
        let mut cmds = Vec::with_capacity(n);
        let (mut first_wait, mut first_check) = (deps.wait, deps.check);
        for (i, part) in parts.into_iter().enumerate() {
            let (dep_wait, dep_check) = if i == 0 {
                (first_wait.take(), first_check.take())
            } else {
                (None, None)
            };
            let st = stream.clone();
            let prepare = part.prepare;
            let wait = Box::new(move || {
                let r = (|| {
                    if st.failed.load(std::sync::atomic::Ordering::Acquire) {
                        return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
                    }
                    if let Some(w) = dep_wait {
                        w()?;
                    }
                    if let Some(c) = dep_check {
                        c()?;
                    }
                    prepare()
                })();
                if r.is_err() {
                    st.failed.store(true, std::sync::atomic::Ordering::Release);
                }
                r
            }) as WaitFn;
            let (st, ev, host) = (stream.clone(), event.clone(), part.host);
            let poison = self.poison.clone();
            let last = i + 1 == n;
            let done = Box::new(
                move |r: CLResult<crate::vk::queue::DeviceTimes>| -> Leftover {
                    let mut s = st.state.lock();
                    let mut leftover = None;
                    match r {
                        Ok(times) => {
                            if s.error.is_none() {
                                if let Some(h) = host {
                                    h();
                                }
                            }
                            if let Some([start, end]) = times {
                                s.times = Some([s.times.map_or(start, |t| t[0]), end]);
                            }
                        }
                        Err(e) => {
                            s.error.get_or_insert(e);
                            leftover = host.map(|h| Box::new(h) as Box<dyn Send>);
                        }
                    }
                    if last {
                        match s.error {
                            Some(e) => ev.set_status(e),
                            None if poison.is_set() => {
                                ev.set_status(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
                            }
                            None => ev.complete(s.times),
                        }
                    }
                    leftover
                },
            );
            let progress: Arc<dyn Progress> = if i == 0 {
                event.clone()
            } else {
                Arc::new(DoomOnly(event.clone()))
            };
            cmds.push(Command {
                wait: Some(wait),
                check: None,
                record: Some(part.record),
                // Later parts follow the earlier ones even in an
                // out-of-order queue.
                after_previous: deps.after_previous || i > 0,
                before_next: false,
                progress,
                done,
                semaphores: None,
            });
        }
        self.engine.enqueue_all(cmds, || self.set_last(&event));
        event
    }

    /// Records `event` as the queue's last command, in the engine's order
    /// (called by the engine under its inbox lock). Set before the engine
    /// took the command, two threads enqueueing at once could leave `last`
    /// at the command the engine took first: clFinish then returned while
    /// the other was still running (ferrocl-apifuzz, 8 threads: a
    /// non-blocking SVM copy wrote into memory its thread had freed after
    /// clFinish, a SIGSEGV or glibc's "malloc(): unsorted double linked
    /// list corrupted").
    fn set_last(&self, event: &Arc<Event>) {
        *self.last.lock() = Some(Arc::downgrade(event));
    }
    /// Waits until every command enqueued so far is complete.
    pub fn finish(&self) {
        let last = self.last.lock().as_ref().and_then(Weak::upgrade);
        if let Some(e) = last {
            e.wait();
        }
    }

    /// clFinish: [`Queue::finish`], then CL_OUT_OF_RESOURCES if the queue
    /// is poisoned ([`Poison`]: the failed command's event has the error as
    /// its status; clFinish may only return CL_OUT_OF_RESOURCES for it).
    /// Reporting it clears the poison when nothing was enqueued meanwhile
    /// (the queue is idle: its loop-status word goes back to 0), so the
    /// application can go on using the queue.
    pub fn finish_checked(&self) -> CLResult<()> {
        self.finish();
        // A lost device (`crate::vk::device::Device::is_lost`) fails every
        // command from then on: clFinish says so each time.
        if self.engine.device_lost() {
            return Err(CL_OUT_OF_RESOURCES);
        }
        if !self.poison.is_set() {
            return Ok(());
        }
        // Holding `last`: a command enqueued from now on sees the cleared
        // word (`submit` sets `last` under the engine's inbox lock, before
        // the engine can process the command).
        let last = self.last.lock();
        let idle = last
            .as_ref()
            .and_then(Weak::upgrade)
            .is_none_or(|e| e.status() <= CL_COMPLETE);
        if idle {
            if let Some(Ok(w)) = self.loop_status.get() {
                w.clear();
            }
            self.poison
                .on
                .store(false, std::sync::atomic::Ordering::Release);
        }
        Err(CL_OUT_OF_RESOURCES)
    }
}
