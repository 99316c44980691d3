//! cl_event: the status of one command (or a user event), waited on with a
//! condition variable and moved forward by the queue's threads
//! (CL_QUEUED → CL_SUBMITTED → CL_RUNNING → CL_COMPLETE or an error), with
//! the command's profiling times when its queue profiles.
//!
//! Layer: events and queues, the lowest layer of commands (below memory
//! objects). An event knows its queue only as an [`EventQueue`], an
//! opaque handle the queue module implements: nothing here depends on the
//! queue type.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

use opencl_sys::*;
use parking_lot::{Condvar, Mutex};

use super::context::Context;
use super::object::{tag, Base, ClObject};
use crate::vk::clock::host_now_ns;
use crate::vk::queue::{DeviceTimes, Progress};

pub type EventCallback = unsafe extern "C" fn(cl_event, cl_int, *mut c_void);

/// The command queue of a command's event, as the event sees it: kept
/// alive by the event, told apart by its handle. Implemented by
/// `super::queue::Queue`.
pub trait EventQueue: Send + Sync {
    /// The queue's cl_command_queue handle (its identity).
    fn handle(&self) -> cl_command_queue;
    /// Whether the queue has CL_QUEUE_PROFILING_ENABLE.
    fn profiling(&self) -> bool;
    /// How long a thread waiting for one of the queue's commands polls its
    /// status before it blocks ([`Event::wait`]), in nanoseconds.
    fn wait_poll_ns(&self) -> u64 {
        0
    }
}

#[repr(C)]
pub struct Event {
    base: Base,
    pub context: Arc<Context>,
    /// The command's queue (`None` for a user event).
    pub queue: Option<Arc<dyn EventQueue>>,
    pub command_type: cl_command_type,
    /// Its queue has CL_QUEUE_PROFILING_ENABLE.
    profiled: bool,
    /// The command is known to fail (before its status says so, which
    /// happens in queue order).
    doomed: AtomicBool,
    /// `State::status`, readable without the lock (polled by `wait`).
    status_now: AtomicI32,
    /// How long `wait` polls before blocking (the queue's `wait_poll_ns`).
    poll_ns: u64,
    state: Mutex<State>,
    cv: Condvar,
}

struct State {
    status: cl_int,
    callbacks: Vec<(cl_int, EventCallback, usize)>,
    /// CL_PROFILING_COMMAND_QUEUED, SUBMIT, START, END, COMPLETE (host ns).
    times: [u64; 5],
}

impl ClObject for Event {
    const TAG: u32 = tag(b"EVNT");
    const INVALID: cl_int = CL_INVALID_EVENT;
    fn base(&self) -> &Base {
        &self.base
    }
}

impl Event {
    /// A command's event (CL_QUEUED, stamped QUEUED now when the queue
    /// profiles) or, without a queue, a user event (CL_SUBMITTED).
    pub fn new(
        context: Arc<Context>,
        queue: Option<Arc<dyn EventQueue>>,
        command_type: cl_command_type,
    ) -> Arc<Event> {
        let status = if queue.is_some() {
            CL_QUEUED
        } else {
            CL_SUBMITTED
        };
        let profiled = queue.as_ref().is_some_and(|q| q.profiling());
        let poll_ns = queue.as_ref().map_or(0, |q| q.wait_poll_ns());
        let mut times = [0; 5];
        if profiled {
            times[0] = host_now_ns();
        }
        Arc::new(Event {
            base: Base::new(Self::TAG),
            context,
            queue,
            command_type,
            profiled,
            doomed: AtomicBool::new(false),
            status_now: AtomicI32::new(status),
            poll_ns,
            state: Mutex::new(State {
                status,
                callbacks: Vec::new(),
                times,
            }),
            cv: Condvar::new(),
        })
    }

    pub fn status(&self) -> cl_int {
        self.state.lock().status
    }

    pub fn is_user(&self) -> bool {
        self.queue.is_none()
    }

    /// The handle of the command's queue (null for a user event):
    /// CL_EVENT_COMMAND_QUEUE.
    pub fn queue_handle(&self) -> cl_command_queue {
        self.queue
            .as_ref()
            .map_or(std::ptr::null_mut(), |q| q.handle())
    }

    /// Failed, or known to be going to fail.
    pub fn is_failed(&self) -> bool {
        self.doomed.load(Ordering::Acquire) || self.status() < 0
    }

    /// Moves the event forward to `status` (CL_SUBMITTED, CL_RUNNING,
    /// CL_COMPLETE or a negative error), running once each callback
    /// registered for a state passed, in the order of the states. A status
    /// that is not a step forward is ignored; a terminal one never changes.
    pub fn set_status(&self, status: cl_int) {
        let mut run: Vec<(cl_int, EventCallback, usize)> = {
            let mut st = self.state.lock();
            if st.status <= CL_COMPLETE || (status >= CL_COMPLETE && status >= st.status) {
                return;
            }
            st.status = status;
            self.status_now.store(status, Ordering::Release);
            let (now, later) = st
                .callbacks
                .drain(..)
                .partition(|(when, _, _)| status <= *when);
            st.callbacks = later;
            now
        };
        self.cv.notify_all();
        // SUBMITTED (2) before RUNNING (1) before COMPLETE (0); stable, so
        // registration order within one state.
        run.sort_by_key(|c| std::cmp::Reverse(c.0));
        for (when, f, data) in run {
            // SAFETY: registered by the application for this event.
            unsafe {
                f(
                    self.handle(),
                    callback_status(when, status),
                    data as *mut c_void,
                )
            };
        }
    }

    fn handle(&self) -> cl_event {
        self as *const Event as cl_event
    }

    /// clSetEventCallback: runs at once (on this thread) if the state was already reached.
    pub fn add_callback(&self, when: cl_int, f: EventCallback, data: usize) {
        let status = {
            let mut st = self.state.lock();
            if st.status > when {
                st.callbacks.push((when, f, data));
                return;
            }
            st.status
        };
        // SAFETY: as above.
        unsafe {
            f(
                self.handle(),
                callback_status(when, status),
                data as *mut c_void,
            )
        };
    }

    /// Blocks until the event is complete or failed; returns its final
    /// status. On a queue that asks for it (`EventQueue::wait_poll_ns`:
    /// GPUs) the status is polled for a few tens of microseconds first: a
    /// short command then completes without the thread going to sleep and
    /// being woken (a futex wake-up costs about 10 µs of launch latency).
    pub fn wait(&self) -> cl_int {
        if self.poll_ns > 0 && self.status_now.load(Ordering::Acquire) > CL_COMPLETE {
            let t0 = std::time::Instant::now();
            'poll: loop {
                for _ in 0..64 {
                    if self.status_now.load(Ordering::Acquire) <= CL_COMPLETE {
                        break 'poll;
                    }
                    std::hint::spin_loop();
                }
                if t0.elapsed().as_nanos() as u64 >= self.poll_ns {
                    break;
                }
            }
        }
        let mut st = self.state.lock();
        while st.status > CL_COMPLETE {
            self.cv.wait(&mut st);
        }
        st.status
    }

    /// Completes the command: stamps COMPLETE now and START/END from the
    /// device times (a command without device work gets its completion
    /// time for both), forced into QUEUED <= SUBMIT <= START <= END <=
    /// COMPLETE against the calibration's error.
    pub fn complete(&self, device: DeviceTimes) {
        if self.profiled {
            let now = host_now_ns();
            let mut st = self.state.lock();
            let t = &mut st.times;
            t[1] = t[1].max(t[0]);
            t[4] = now.max(t[1]);
            let [start, end] = device.unwrap_or([t[4], t[4]]);
            t[2] = start.clamp(t[1], t[4]);
            t[3] = end.clamp(t[2], t[4]);
        }
        self.set_status(CL_COMPLETE);
    }

    /// clGetEventProfilingInfo's value for `param`.
    pub fn profiling_info(&self, param: cl_profiling_info) -> Result<u64, cl_int> {
        let st = self.state.lock();
        // "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE
        // flag is not set for the command-queue, if the execution status of
        // the command identified by event is not CL_COMPLETE or if event is
        // a user event object."
        if !self.profiled || self.is_user() || st.status != CL_COMPLETE {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let i = match param {
            CL_PROFILING_COMMAND_QUEUED => 0,
            CL_PROFILING_COMMAND_SUBMIT => 1,
            CL_PROFILING_COMMAND_START => 2,
            CL_PROFILING_COMMAND_END => 3,
            CL_PROFILING_COMMAND_COMPLETE => 4,
            // "CL_INVALID_VALUE if param_name is not valid"
            _ => return Err(CL_INVALID_VALUE),
        };
        Ok(st.times[i])
    }
}

/// "event_command_status [...] is equal to the command_exec_callback_type
/// used while registering the callback [or] an error code if the command
/// terminated abnormally."
fn callback_status(when: cl_int, status: cl_int) -> cl_int {
    if status < 0 {
        status
    } else {
        when
    }
}

impl Progress for Event {
    fn submitted(&self, host_ns: u64) {
        if self.profiled {
            self.state.lock().times[1] = host_ns;
        }
        self.set_status(CL_SUBMITTED);
    }

    fn running(&self) {
        self.set_status(CL_RUNNING);
    }

    fn doomed(&self) {
        self.doomed.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queue that asks waiters to poll for `.0` ns.
    struct Polling(u64);

    impl EventQueue for Polling {
        fn handle(&self) -> cl_command_queue {
            std::ptr::null_mut()
        }
        fn profiling(&self) -> bool {
            false
        }
        fn wait_poll_ns(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn waiting_polls_then_blocks() {
        for poll_ns in [0, 1_000, 200_000_000] {
            for delay_us in [0, 100, 20_000] {
                let ctx = Context::new(Vec::new(), Vec::new(), None);
                let e = Event::new(ctx, Some(Arc::new(Polling(poll_ns))), CL_COMMAND_MARKER);
                let e2 = e.clone();
                let t = std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_micros(delay_us));
                    e2.set_status(CL_RUNNING);
                    e2.complete(None);
                });
                assert_eq!(
                    e.wait(),
                    CL_COMPLETE,
                    "poll {poll_ns} ns, delay {delay_us} us"
                );
                t.join().expect("thread");
                // A failed command ends the wait with its error.
                let ctx = Context::new(Vec::new(), Vec::new(), None);
                let f = Event::new(ctx, Some(Arc::new(Polling(poll_ns))), CL_COMMAND_MARKER);
                let f2 = f.clone();
                let t = std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_micros(delay_us));
                    f2.set_status(CL_OUT_OF_RESOURCES);
                });
                assert_eq!(f.wait(), CL_OUT_OF_RESOURCES);
                t.join().expect("thread");
            }
        }
    }
}
