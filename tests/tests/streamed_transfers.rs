//! Large reads and writes stream through a few staging chunks
//! (runtime/src/core/transfer.rs). This binary sets `FERROCL_STREAM_CHUNK`
//! to 64 KiB before the first OpenCL call, so transfers above 256 KiB
//! stream: contents with odd offsets and sizes, several non-blocking
//! transfers in flight at once, kernels between them, a failed wait list,
//! and profiling times that cover the whole transfer.

use std::ptr;
use std::sync::Once;

use ferrocl_tests::events::{Event, RawQueue};
use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, Cl, Context};

static SMALL_CHUNKS: Once = Once::new();

fn cl() -> Cl {
    SMALL_CHUNKS.call_once(|| std::env::set_var("FERROCL_STREAM_CHUNK", "65536"));
    Cl::new()
}

fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i ^ seed).wrapping_mul(0x9E37_79B9).rotate_left(seed % 31))
        .collect()
}

/// Non-blocking write of `data` at byte `offset`; returns its event.
fn write_async(
    q: cl_command_queue,
    mem: cl_mem,
    offset: usize,
    data: &[u32],
    waits: &[&Event],
) -> (cl_int, cl_event) {
    let list: Vec<cl_event> = waits.iter().map(|e| e.0).collect();
    let mut ev = ptr::null_mut();
    // SAFETY: `data` outlives the command (callers wait before dropping it).
    let s = unsafe {
        clEnqueueWriteBuffer(
            q,
            mem,
            CL_FALSE,
            offset,
            std::mem::size_of_val(data),
            data.as_ptr().cast(),
            list.len() as cl_uint,
            if list.is_empty() {
                ptr::null()
            } else {
                list.as_ptr()
            },
            &mut ev,
        )
    };
    (s, ev)
}

fn read_async(q: cl_command_queue, mem: cl_mem, offset: usize, out: &mut [u32]) -> cl_event {
    let mut ev = ptr::null_mut();
    // SAFETY: `out` outlives the command (callers wait before using it).
    let s = unsafe {
        clEnqueueReadBuffer(
            q,
            mem,
            CL_FALSE,
            offset,
            std::mem::size_of_val(out),
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            &mut ev,
        )
    };
    check(s, "clEnqueueReadBuffer");
    ev
}

#[test]
fn large_reads_and_writes_with_odd_offsets() {
    let cl = cl();
    let n = (3 << 20) / 4 + 123; // 3 MiB and a bit: 49 chunks
    let mut mirror = pattern(n, 1);
    let buffer = cl.buffer_from(&mirror);
    assert_same("initial", &cl.queue.read(&buffer), &mirror);
    // A write that starts and ends inside chunks.
    let patch = pattern(600_001, 2);
    cl.queue.write(&buffer, 777, &patch);
    mirror[777..777 + patch.len()].copy_from_slice(&patch);
    assert_same("after patch", &cl.queue.read(&buffer), &mirror);
    assert_same(
        "range",
        &cl.queue.read_range(&buffer, 4097, 300_000),
        &mirror[4097..304_097],
    );
}

#[test]
fn several_streamed_transfers_in_flight_with_kernels_between() {
    let cl = cl();
    let n = 1 << 19; // 2 MiB per transfer
    let a = pattern(n, 3);
    let b = pattern(n, 4);
    let buf = cl.buffer::<u32>(n);
    let out = cl.buffer::<u32>(n);
    let k = cl.kernel(
        "kernel void twice(global const uint* a, global uint* o) {
             size_t i = get_global_id(0); o[i] = a[i] * 2u + 1u; }",
        "twice",
    );
    k.arg(0, &buf).arg(1, &out);
    let q = cl.queue.raw();
    let mut first = vec![0u32; n];
    let mut second = vec![0u32; n];
    let (s, e1) = write_async(q, buf.raw(), 0, &a, &[]);
    check(s, "clEnqueueWriteBuffer");
    cl.queue.try_enqueue(&k, None, &[n], None).expect("enqueue");
    let r1 = read_async(q, out.raw(), 0, &mut first);
    let (s, e2) = write_async(q, buf.raw(), 0, &b, &[]);
    check(s, "clEnqueueWriteBuffer");
    cl.queue.try_enqueue(&k, None, &[n], None).expect("enqueue");
    let r2 = read_async(q, out.raw(), 0, &mut second);
    cl.queue.finish();
    for e in [e1, r1, e2, r2] {
        drop(Event(e));
    }
    let want1: Vec<u32> = a
        .iter()
        .map(|x| x.wrapping_mul(2).wrapping_add(1))
        .collect();
    let want2: Vec<u32> = b
        .iter()
        .map(|x| x.wrapping_mul(2).wrapping_add(1))
        .collect();
    assert_same("first round", &first, &want1);
    assert_same("second round", &second, &want2);
}

#[test]
fn a_failed_wait_list_fails_the_whole_streamed_write() {
    let cl = cl();
    let n = 1 << 18; // 1 MiB
    let old = pattern(n, 5);
    let buffer = cl.buffer_from(&old);
    let gate = Event::user(&cl.context);
    let new = pattern(n, 6);
    let (s, ev) = write_async(cl.queue.raw(), buffer.raw(), 0, &new, &[&gate]);
    check(s, "clEnqueueWriteBuffer");
    let ev = Event(ev);
    gate.set(-77);
    cl.queue.finish();
    assert_eq!(ev.status(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_same("nothing written", &cl.queue.read(&buffer), &old);
}

#[test]
fn profiling_covers_the_whole_streamed_read() {
    let _ = cl();
    let ctx = Context::new();
    let q = RawQueue::new(&ctx, CL_QUEUE_PROFILING_ENABLE);
    let n = 1 << 18;
    let data = pattern(n, 7);
    let mut status = CL_SUCCESS;
    // SAFETY: copies `data` at creation.
    let mem = unsafe {
        clCreateBuffer(
            ctx.raw(),
            CL_MEM_COPY_HOST_PTR,
            n * 4,
            data.as_ptr() as *mut _,
            &mut status,
        )
    };
    check(status, "clCreateBuffer");
    let mut back = vec![0u32; n];
    let ev = Event(read_async(q.0, mem, 0, &mut back));
    ev.wait();
    assert_same("read", &back, &data);
    let t = [
        CL_PROFILING_COMMAND_QUEUED,
        CL_PROFILING_COMMAND_SUBMIT,
        CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END,
        CL_PROFILING_COMMAND_COMPLETE,
    ]
    .map(|p| {
        let mut v: cl_ulong = 0;
        // SAFETY: completed event of a profiling queue; a cl_ulong.
        let s = unsafe {
            clGetEventProfilingInfo(
                ev.0,
                p,
                8,
                (&mut v as *mut cl_ulong).cast(),
                ptr::null_mut(),
            )
        };
        check(s, "clGetEventProfilingInfo");
        v
    });
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "ordered: {t:?}");
    assert!(t[3] > t[2], "the transfer took time: {t:?}");
    // SAFETY: we own this reference.
    check(unsafe { clReleaseMemObject(mem) }, "clReleaseMemObject");
}
