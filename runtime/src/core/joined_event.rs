//! The event of one command made of several queues' commands: a command
//! buffer enqueued on several queues (cl_khr_command_buffer_multi_device).
//!
//! The spec's rules for such an event: CL_EVENT_COMMAND_QUEUE is NULL;
//! CL_SUBMITTED once commands were submitted to any queue, CL_RUNNING once
//! any started, CL_COMPLETE once all completed (an error if any part
//! failed: the first part's error to be reported); profiling is available
//! if any queue profiles, with the host times of those moments, START and
//! END falling back to SUBMIT and COMPLETE (allowed by the spec: the parts
//! run concurrently on several devices).
//!
//! The parts are ordinary queue commands; the joined event follows them
//! through their event callbacks. It has a queue for the event module's
//! sake (so it is not a user event), [`NoQueue`], whose handle is NULL: a
//! queue that waits for it treats it as a foreign event.
//!
//! Layer: events and queues, above `event`.

use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use opencl_sys::*;

use super::context::Context;
use super::event::{Event, EventQueue};
use crate::vk::clock::host_now_ns;
use crate::vk::queue::Progress;

/// The queue of a joined event: none (NULL handle).
struct NoQueue {
    profiling: bool,
}

impl EventQueue for NoQueue {
    fn handle(&self) -> cl_command_queue {
        std::ptr::null_mut()
    }
    fn profiling(&self) -> bool {
        self.profiling
    }
}

/// What the parts' callbacks share.
struct Join {
    event: Arc<Event>,
    /// Parts not yet complete.
    left: AtomicUsize,
    /// The first error a part ended with (0: none).
    error: AtomicI32,
    /// When the first part was submitted (host ns; 0: not yet).
    submitted: AtomicU64,
}

/// An event of `context` over `parts` (at least one): see the module doc.
/// `profiling`: whether any of the parts' queues profiles.
pub fn join(
    context: Arc<Context>,
    profiling: bool,
    command_type: cl_command_type,
    parts: &[Arc<Event>],
) -> Arc<Event> {
    let event = Event::new(context, Some(Arc::new(NoQueue { profiling })), command_type);
    let j = Arc::new(Join {
        event: event.clone(),
        left: AtomicUsize::new(parts.len()),
        error: AtomicI32::new(0),
        submitted: AtomicU64::new(0),
    });
    let hooks: [(cl_int, super::event::EventCallback); 3] = [
        (CL_SUBMITTED, part_submitted),
        (CL_RUNNING, part_running),
        (CL_COMPLETE, part_complete),
    ];
    for p in parts {
        for (when, f) in hooks {
            // One reference per callback, given back by the callback.
            p.add_callback(when, f, Arc::into_raw(j.clone()) as usize);
        }
    }
    event
}

/// The reference [`join`] gave a callback.
///
/// # Safety
/// `data` must come from `Arc::into_raw` of a [`Join`], once.
unsafe fn take(data: *mut c_void) -> Arc<Join> {
    // SAFETY: caller contract.
    unsafe { Arc::from_raw(data as *const Join) }
}

unsafe extern "C" fn part_submitted(_: cl_event, status: cl_int, data: *mut c_void) {
    // SAFETY: registered by `join` with its own reference.
    let j = unsafe { take(data) };
    let now = host_now_ns().max(1);
    if status >= 0
        && j.submitted
            .compare_exchange(0, now, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    {
        j.event.submitted(now);
    }
}

unsafe extern "C" fn part_running(_: cl_event, status: cl_int, data: *mut c_void) {
    // SAFETY: as above.
    let j = unsafe { take(data) };
    if status >= 0 {
        j.event.running();
    }
}

unsafe extern "C" fn part_complete(_: cl_event, status: cl_int, data: *mut c_void) {
    // SAFETY: as above.
    let j = unsafe { take(data) };
    if status < 0 {
        let _ = j
            .error
            .compare_exchange(0, status, Ordering::AcqRel, Ordering::Acquire);
    }
    if j.left.fetch_sub(1, Ordering::AcqRel) != 1 {
        return;
    }
    let error = j.error.load(Ordering::Acquire);
    if error < 0 {
        j.event.set_status(error);
    } else {
        let start = j.submitted.load(Ordering::Acquire);
        j.event.complete(Some([start, host_now_ns()]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(ctx: &Arc<Context>) -> Arc<Event> {
        Event::new(
            ctx.clone(),
            Some(Arc::new(NoQueue { profiling: false })),
            CL_COMMAND_MARKER,
        )
    }

    #[test]
    fn completes_with_the_last_part() {
        let ctx = Context::new(Vec::new(), Vec::new(), None);
        let (a, b) = (part(&ctx), part(&ctx));
        let e = join(
            ctx,
            false,
            CL_COMMAND_COMMAND_BUFFER_KHR,
            &[a.clone(), b.clone()],
        );
        assert_eq!(e.status(), CL_QUEUED);
        assert!(e.queue_handle().is_null());
        assert!(!e.is_user());
        a.submitted(host_now_ns());
        assert_eq!(e.status(), CL_SUBMITTED);
        a.running();
        assert_eq!(e.status(), CL_RUNNING);
        a.complete(None);
        assert_eq!(e.status(), CL_RUNNING);
        b.complete(None);
        assert_eq!(e.status(), CL_COMPLETE);
    }

    #[test]
    fn fails_with_a_failed_part() {
        let ctx = Context::new(Vec::new(), Vec::new(), None);
        let (a, b) = (part(&ctx), part(&ctx));
        let e = join(
            ctx,
            false,
            CL_COMMAND_COMMAND_BUFFER_KHR,
            &[a.clone(), b.clone()],
        );
        b.set_status(CL_OUT_OF_RESOURCES);
        assert_eq!(e.status(), CL_QUEUED);
        a.complete(None);
        assert_eq!(e.wait(), CL_OUT_OF_RESOURCES);
    }
}
