//! cl_event: the status of one command (or a user event), waited on with a
//! condition variable and completed by the queue's completer thread.

use std::ffi::c_void;
use std::sync::Arc;

use opencl_sys::*;
use parking_lot::{Condvar, Mutex};

use super::context::Context;
use super::object::{tag, Base, ClObject};
use super::queue::Queue;

pub type EventCallback = unsafe extern "C" fn(cl_event, cl_int, *mut c_void);

#[repr(C)]
pub struct Event {
    base: Base,
    pub context: Arc<Context>,
    pub queue: Option<Arc<Queue>>,
    pub command_type: cl_command_type,
    state: Mutex<State>,
    cv: Condvar,
}

struct State {
    status: cl_int,
    callbacks: Vec<(cl_int, EventCallback, usize)>,
}

impl ClObject for Event {
    const TAG: u32 = tag(b"EVNT");
    const INVALID: cl_int = CL_INVALID_EVENT;
    fn base(&self) -> &Base {
        &self.base
    }
}

impl Event {
    pub fn new(
        context: Arc<Context>,
        queue: Option<Arc<Queue>>,
        command_type: cl_command_type,
    ) -> Arc<Event> {
        let status = if queue.is_some() {
            CL_QUEUED
        } else {
            CL_SUBMITTED
        };
        Arc::new(Event {
            base: Base::new(Self::TAG),
            context,
            queue,
            command_type,
            state: Mutex::new(State {
                status,
                callbacks: Vec::new(),
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

    /// Moves the event to `status` (CL_SUBMITTED, CL_RUNNING, CL_COMPLETE or
    /// a negative error), running the callbacks registered for the states
    /// passed. A terminal status never changes again.
    pub fn set_status(self: &Arc<Self>, status: cl_int) {
        let run: Vec<(cl_int, EventCallback, usize)> = {
            let mut st = self.state.lock();
            if st.status <= CL_COMPLETE {
                return;
            }
            st.status = status;
            let (now, later) = st
                .callbacks
                .drain(..)
                .partition(|(when, _, _)| status <= *when);
            st.callbacks = later;
            now
        };
        self.cv.notify_all();
        let h = Arc::as_ptr(self) as cl_event;
        for (_, f, data) in run {
            // SAFETY: registered by the application for this event.
            unsafe { f(h, status, data as *mut c_void) };
        }
    }

    /// clSetEventCallback: runs at once (on this thread) if the state was already reached.
    pub fn add_callback(self: &Arc<Self>, when: cl_int, f: EventCallback, data: usize) {
        let status = {
            let mut st = self.state.lock();
            if st.status > when {
                st.callbacks.push((when, f, data));
                return;
            }
            st.status
        };
        // SAFETY: as above.
        unsafe { f(Arc::as_ptr(self) as cl_event, status, data as *mut c_void) };
    }

    /// Blocks until the event is complete or failed; returns its final status.
    pub fn wait(&self) -> cl_int {
        let mut st = self.state.lock();
        while st.status > CL_COMPLETE {
            self.cv.wait(&mut st);
        }
        st.status
    }
}
