//! Defects ferrocl-apifuzz found (tests/src/apifuzz), each reproduced with
//! the smallest call sequence and the spec's expected code.

use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{expect_error, Cl};

/// Buffer origin, host origin, region, the four pitches, and what
/// overflows.
type RectCase = ([usize; 3], [usize; 3], [usize; 3], [usize; 4], &'static str);

/// clEnqueueReadBufferRect of a 4096-byte buffer into `host`.
fn read_rect(
    cl: &Cl,
    buffer: cl_mem,
    origin: [usize; 3],
    host_origin: [usize; 3],
    region: [usize; 3],
    pitches: [usize; 4],
    host: &mut [u8],
) -> cl_int {
    // SAFETY: live queue and buffer; three-element arrays; a valid call
    // would stay inside `host` (its extent is checked by each caller).
    unsafe {
        clEnqueueReadBufferRect(
            cl.queue.raw(),
            buffer,
            CL_TRUE,
            origin.as_ptr(),
            host_origin.as_ptr(),
            region.as_ptr(),
            pitches[0],
            pitches[1],
            pitches[2],
            pitches[3],
            host.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    }
}

/// Rectangles whose extent overflows size_t (region × pitch, or origin ×
/// pitch) are out of bounds: "CL_INVALID_VALUE if the region being read or
/// written specified by (buffer_origin, region, buffer_row_pitch,
/// buffer_slice_pitch) is out of bounds" (5.2.2). ferrocl computed them
/// unchecked: a panic in debug builds (caught: CL_OUT_OF_HOST_MEMORY), a
/// wrapped, small end passing the bounds check in release builds.
#[test]
fn rect_extents_that_overflow_are_invalid() {
    let cl = Cl::new();
    let buffer = cl.buffer::<u8>(4096);
    let mut host = vec![0u8; 4096];
    let max = usize::MAX;
    let cases: [RectCase; 6] = [
        (
            [0; 3],
            [0; 3],
            [4, max, 1],
            [16, 0, 16, 0],
            "region[1] x row pitch",
        ),
        (
            [0; 3],
            [0; 3],
            [4, 2, max],
            [16, 32, 16, 32],
            "region[2] x slice pitch",
        ),
        (
            [0, 0, max],
            [0; 3],
            [4, 1, 1],
            [0; 4],
            "buffer origin[2] x slice pitch",
        ),
        (
            [0, max, 0],
            [0; 3],
            [4, 1, 1],
            [16, 0, 16, 0],
            "buffer origin[1] x row pitch",
        ),
        (
            [max, 0, 0],
            [0; 3],
            [4, 1, 1],
            [0; 4],
            "buffer origin[0] + region[0]",
        ),
        (
            [0; 3],
            [0, 0, max],
            [4, 1, 1],
            [0; 4],
            "host origin[2] x slice pitch",
        ),
    ];
    for (origin, host_origin, region, pitches, what) in cases {
        let code = read_rect(
            &cl,
            buffer.raw(),
            origin,
            host_origin,
            region,
            pitches,
            &mut host,
        );
        expect_error(
            code,
            CL_INVALID_VALUE,
            &format!("clEnqueueReadBufferRect, {what} overflows"),
        );
    }
    // The same through clEnqueueCopyBufferRect (both sides are buffers).
    let other = cl.buffer::<u8>(4096);
    let (o, r) = ([0usize, 0, max], [4usize, 1, 1]);
    // SAFETY: live objects; three-element arrays.
    let code = unsafe {
        clEnqueueCopyBufferRect(
            cl.queue.raw(),
            buffer.raw(),
            other.raw(),
            o.as_ptr(),
            [0usize; 3].as_ptr(),
            r.as_ptr(),
            0,
            0,
            0,
            0,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    expect_error(
        code,
        CL_INVALID_VALUE,
        "clEnqueueCopyBufferRect, src origin overflows",
    );
    // A valid rectangle next to them still reads.
    let code = read_rect(
        &cl,
        buffer.raw(),
        [0; 3],
        [0; 3],
        [4, 2, 1],
        [16, 0, 16, 0],
        &mut host,
    );
    expect_error(
        code,
        CL_SUCCESS,
        "clEnqueueReadBufferRect of a valid rectangle",
    );
}

/// clEnqueueWaitForEvents (OpenCL 1.0/1.1, deprecated since 1.2):
/// "CL_INVALID_EVENT if event objects specified in event_list are not
/// valid events" (ferrocl gave the wait-list code of the newer functions,
/// CL_INVALID_EVENT_WAIT_LIST, which this function's errors never name).
#[test]
#[allow(deprecated)]
fn enqueue_wait_for_events_invalid_event() {
    let cl = Cl::new();
    let not_an_event = [cl.queue.raw() as cl_event];
    // SAFETY: a live queue and a one-handle list of a live object.
    let code =
        unsafe { clEnqueueWaitForEvents(cl.queue.raw(), 1, not_an_event.as_ptr().cast_mut()) };
    expect_error(
        code,
        CL_INVALID_EVENT,
        "clEnqueueWaitForEvents with a queue as event",
    );
    let null = [ptr::null_mut::<std::ffi::c_void>() as cl_event];
    // SAFETY: as above, a NULL handle.
    let code = unsafe { clEnqueueWaitForEvents(cl.queue.raw(), 1, null.as_ptr().cast_mut()) };
    expect_error(
        code,
        CL_INVALID_EVENT,
        "clEnqueueWaitForEvents with a NULL event",
    );
}
