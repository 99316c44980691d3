//! Owned raw events and queues for the event, profiling and ordering
//! tests: user events, queues with explicit properties, and kernel
//! launches that return their event.

use std::ptr;

use opencl_sys::*;

use crate::{check, Context, Kernel};

/// An event we own one reference to.
pub struct Event(pub cl_event);

impl Event {
    /// clWaitForEvents on this event alone.
    pub fn wait(&self) {
        // SAFETY: one live event.
        check(unsafe { clWaitForEvents(1, &self.0) }, "clWaitForEvents");
    }

    pub fn user(context: &Context) -> Event {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context.
        let raw = unsafe { clCreateUserEvent(context.raw(), &mut status) };
        check(status, "clCreateUserEvent");
        Event(raw)
    }

    pub fn status(&self) -> cl_int {
        let mut v: cl_int = 0;
        // SAFETY: valid event; a cl_int-sized out value.
        let s = unsafe {
            clGetEventInfo(
                self.0,
                CL_EVENT_COMMAND_EXECUTION_STATUS,
                std::mem::size_of::<cl_int>(),
                (&mut v as *mut cl_int).cast(),
                ptr::null_mut(),
            )
        };
        check(s, "clGetEventInfo");
        v
    }

    pub fn set(&self, status: cl_int) {
        // SAFETY: valid user event.
        check(
            unsafe { clSetUserEventStatus(self.0, status) },
            "clSetUserEventStatus",
        );
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        let s = unsafe { clReleaseEvent(self.0) };
        if !std::thread::panicking() {
            check(s, "clReleaseEvent");
        }
    }
}

pub fn raw_list(waits: &[&Event]) -> Vec<cl_event> {
    waits.iter().map(|e| e.0).collect()
}

/// A raw queue with `props` (owned).
pub struct RawQueue(pub cl_command_queue);

impl RawQueue {
    pub fn new(context: &Context, props: cl_command_queue_properties) -> RawQueue {
        let list = [CL_QUEUE_PROPERTIES as cl_queue_properties, props, 0];
        let mut status = CL_SUCCESS;
        // SAFETY: valid context/device, 0-terminated property list.
        let raw = unsafe {
            clCreateCommandQueueWithProperties(
                context.raw(),
                context.device(),
                list.as_ptr(),
                &mut status,
            )
        };
        check(status, "clCreateCommandQueueWithProperties");
        RawQueue(raw)
    }

    pub fn finish(&self) {
        // SAFETY: valid queue.
        check(unsafe { clFinish(self.0) }, "clFinish");
    }
}

impl Drop for RawQueue {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        let s = unsafe { clReleaseCommandQueue(self.0) };
        if !std::thread::panicking() {
            check(s, "clReleaseCommandQueue");
        }
    }
}

/// Enqueues `kernel` over `n` items after `waits`; returns its event.
// `q` is an OpenCL handle the implementation checks, not memory we read.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn launch(q: cl_command_queue, kernel: &Kernel, n: usize, waits: &[&Event]) -> Event {
    let list = raw_list(waits);
    let mut ev = ptr::null_mut();
    // SAFETY: valid queue and kernel, one dimension, wait list of live events.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            q,
            kernel.raw(),
            1,
            ptr::null(),
            &n,
            ptr::null(),
            list.len() as cl_uint,
            if list.is_empty() {
                ptr::null()
            } else {
                list.as_ptr()
            },
            &mut ev,
        )
    };
    check(s, "clEnqueueNDRangeKernel");
    Event(ev)
}

// SAFETY: event calls are thread-safe (OpenCL 3.0, appendix A.2).
unsafe impl Send for Event {}
unsafe impl Sync for Event {}
