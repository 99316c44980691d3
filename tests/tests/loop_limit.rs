//! Long loops on a driver that cuts them: lavapipe (Mesa 22.3) ends every
//! loop once a shader has made 65535 loop passes per batch of 8 work-items,
//! all loops together (compiler/src/passes/loop_limit.rs). There a launch
//! whose loop may have been cut fails: its event's status is
//! CL_OUT_OF_RESOURCES, clWaitForEvents and a read that waits for it say
//! CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, and so does every later
//! command of the queue (a later launch does nothing) until clFinish says
//! CL_OUT_OF_RESOURCES; then the queue works again. Everywhere else (and
//! for short loops on lavapipe too) the results are exact.

use std::ptr;

use ferrocl_tests::events::Event;
use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, device_string, Buffer, Cl, ClError, Kernel};

const SOURCE: &str = r#"
// A linear congruential step per pass: nothing can shorten the loop.
kernel void single(global uint* out, uint n) {
    uint s = get_global_id(0);
    for (uint k = 0; k < n; k++)
        s = s * 1664525u + 1013904223u + k;
    out[get_global_id(0)] = s;
}

kernel void nested(global uint* out, uint n, uint m) {
    uint s = get_global_id(0);
    for (uint i = 0; i < n; i++)
        for (uint k = 0; k < m; k++)
            s = s * 1664525u + 1013904223u + (i ^ k);
    out[get_global_id(0)] = s;
}

kernel void fill(global uint* out, uint v) {
    out[get_global_id(0)] = v;
}
"#;

/// Work-items per launch: several of lavapipe's 8-wide batches, in two
/// work-groups.
const ITEMS: usize = 64;

fn single_ref(n: u32) -> Vec<u32> {
    (0..ITEMS as u32)
        .map(|gid| {
            (0..n).fold(gid, |s, k| {
                s.wrapping_mul(1664525)
                    .wrapping_add(1013904223)
                    .wrapping_add(k)
            })
        })
        .collect()
}

fn nested_ref(n: u32, m: u32) -> Vec<u32> {
    (0..ITEMS as u32)
        .map(|gid| {
            let mut s = gid;
            for i in 0..n {
                for k in 0..m {
                    s = s
                        .wrapping_mul(1664525)
                        .wrapping_add(1013904223)
                        .wrapping_add(i ^ k);
                }
            }
            s
        })
        .collect()
}

/// The device under test cuts long loops (and ferrocl checks for it):
/// lavapipe, unless `FERROCL_LOOP_LIMITER=0`.
fn cuts_loops(cl: &Cl) -> bool {
    device_string(cl.device(), CL_DEVICE_NAME).contains("llvmpipe")
        && std::env::var("FERROCL_LOOP_LIMITER").as_deref() != Ok("0")
}

/// lavapipe with the check turned off: loops are cut silently, so no
/// result can be expected.
fn unchecked(cl: &Cl) -> bool {
    device_string(cl.device(), CL_DEVICE_NAME).contains("llvmpipe") && !cuts_loops(cl)
}

fn launch(cl: &Cl, kernel: &Kernel) -> Event {
    let n = ITEMS;
    let local = 32usize;
    let mut ev = ptr::null_mut();
    // SAFETY: valid queue and kernel, one dimension, no wait list.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            cl.queue.raw(),
            kernel.raw(),
            1,
            ptr::null(),
            &n,
            &local,
            0,
            ptr::null(),
            &mut ev,
        )
    };
    assert_eq!(ClError(s), ClError(CL_SUCCESS), "clEnqueueNDRangeKernel");
    Event(ev)
}

/// Blocking read of `out` after `event`: the status and the data.
fn read_after(cl: &Cl, out: &Buffer<u32>, event: &Event) -> (cl_int, Vec<u32>) {
    let mut data = vec![0u32; out.len()];
    // SAFETY: blocking read into `data`, which holds the whole buffer; a
    // wait list of one live event.
    let s = unsafe {
        clEnqueueReadBuffer(
            cl.queue.raw(),
            out.raw(),
            CL_TRUE,
            0,
            4 * data.len(),
            data.as_mut_ptr().cast(),
            1,
            &event.0,
            ptr::null_mut(),
        )
    };
    (s, data)
}

fn finish(cl: &Cl) -> cl_int {
    // SAFETY: valid queue.
    unsafe { clFinish(cl.queue.raw()) }
}

/// Runs `kernel` and checks the launch: exact `want` where loops are not
/// cut; on lavapipe, exact `want` when `fits`, else the failure statuses.
fn expect(cl: &Cl, kernel: &Kernel, out: &Buffer<u32>, want: &[u32], fits: bool, what: &str) {
    if unchecked(cl) {
        eprintln!("{what}: lavapipe with FERROCL_LOOP_LIMITER=0 cuts loops silently; not checked");
        return;
    }
    let event = launch(cl, kernel);
    if fits || !cuts_loops(cl) {
        let (s, data) = read_after(cl, out, &event);
        assert_eq!(ClError(s), ClError(CL_SUCCESS), "{what}: read");
        assert_eq!(event.status(), CL_COMPLETE, "{what}: event status");
        assert_eq!(ClError(finish(cl)), ClError(CL_SUCCESS), "{what}: clFinish");
        assert_same(what, &data, want);
        return;
    }
    // SAFETY: one live event.
    let waited = unsafe { clWaitForEvents(1, &event.0) };
    assert_eq!(
        ClError(waited),
        ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        "{what}: clWaitForEvents"
    );
    assert_eq!(
        ClError(event.status()),
        ClError(CL_OUT_OF_RESOURCES),
        "{what}: event status"
    );
    let (s, _) = read_after(cl, out, &event);
    assert_eq!(
        ClError(s),
        ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        "{what}: read waiting for the failed launch"
    );
    clear_failure(cl, what);
}

/// After a failed launch: clFinish says CL_OUT_OF_RESOURCES once, then the
/// queue is usable again.
fn clear_failure(cl: &Cl, what: &str) {
    assert_eq!(
        ClError(finish(cl)),
        ClError(CL_OUT_OF_RESOURCES),
        "{what}: clFinish after the failed launch"
    );
    assert_eq!(
        ClError(finish(cl)),
        ClError(CL_SUCCESS),
        "{what}: the next clFinish (reported once)"
    );
}

fn single(cl: &Cl, n: u32, fits: bool) {
    let out = cl.buffer::<u32>(ITEMS);
    let k = cl.kernel(SOURCE, "single");
    k.arg(0, &out).arg(1, &n);
    expect(cl, &k, &out, &single_ref(n), fits, &format!("{n} passes"));
}

fn nested(cl: &Cl, n: u32, m: u32, fits: bool) {
    let out = cl.buffer::<u32>(ITEMS);
    let k = cl.kernel(SOURCE, "nested");
    k.arg(0, &out).arg(1, &n).arg(2, &m);
    expect(
        cl,
        &k,
        &out,
        &nested_ref(n, m),
        fits,
        &format!("{n}×{m} passes"),
    );
}

#[test]
fn loop_of_70000_passes() {
    single(&Cl::new(), 70_000, false);
}

#[test]
fn loop_of_a_million_passes() {
    single(&Cl::new(), 1_000_000, false);
}

#[test]
fn nested_loops_of_300_by_300() {
    nested(&Cl::new(), 300, 300, false);
}

/// Loops well within the limit give exact results everywhere, and a queue
/// whose launch failed goes on working.
#[test]
fn short_loops_are_unaffected() {
    let cl = Cl::new();
    single(&cl, 1000, true);
    nested(&cl, 100, 100, true);
    // 60,000 passes: close to lavapipe's limit, not over it.
    single(&cl, 60_000, true);
    single(&cl, 70_000, false);
    single(&cl, 1000, true);
}

/// Until clFinish reports the failure, the queue's later commands fail
/// too: a later launch does nothing, a blocking read without a wait list
/// returns an error instead of what the cut loop computed.
#[test]
fn later_commands_fail_until_clfinish() {
    let cl = Cl::new();
    if !cuts_loops(&cl) {
        return;
    }
    let long = cl.kernel(SOURCE, "single");
    let out = cl.buffer::<u32>(ITEMS);
    long.arg(0, &out).arg(1, &100_000u32);
    // A kernel without loops: its launch is skipped all the same.
    let short = cl.kernel(SOURCE, "fill");
    let other = cl.buffer_from(&vec![7u32; ITEMS]);
    short.arg(0, &other).arg(1, &10u32);
    let failed = launch(&cl, &long);
    let skipped = launch(&cl, &short);
    let mut data = vec![0u32; ITEMS];
    // SAFETY: blocking read into `data`, which holds the whole buffer.
    let read = unsafe {
        clEnqueueReadBuffer(
            cl.queue.raw(),
            other.raw(),
            CL_TRUE,
            0,
            4 * ITEMS,
            data.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    assert_eq!(
        ClError(read),
        ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        "blocking read after the failed launch"
    );
    assert_eq!(ClError(failed.status()), ClError(CL_OUT_OF_RESOURCES));
    assert_eq!(
        ClError(skipped.status()),
        ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    );
    clear_failure(&cl, "100000 passes");
    // The later launch did nothing: its buffer is as written.
    assert_same("skipped launch", &cl.queue.read(&other), &[7u32; ITEMS]);
    // And the queue works again.
    let again = launch(&cl, &short);
    assert_eq!(ClError(finish(&cl)), ClError(CL_SUCCESS));
    assert_eq!(again.status(), CL_COMPLETE);
    assert_same("after clFinish", &cl.queue.read(&other), &[10u32; ITEMS]);
}

/// A failure poisons its own queue only.
#[test]
fn other_queues_are_unaffected() {
    let cl = Cl::new();
    if !cuts_loops(&cl) {
        return;
    }
    let second = cl.context.queue();
    let long = cl.kernel(SOURCE, "single");
    let out = cl.buffer::<u32>(ITEMS);
    long.arg(0, &out).arg(1, &100_000u32);
    let failed = launch(&cl, &long);
    let short = cl.kernel(SOURCE, "single");
    let other = cl.buffer::<u32>(ITEMS);
    short.arg(0, &other).arg(1, &1000u32);
    second.run(&short, &[ITEMS], None);
    assert_same("other queue", &second.read(&other), &single_ref(1000));
    // SAFETY: one live event.
    unsafe { clWaitForEvents(1, &failed.0) };
    assert_eq!(ClError(failed.status()), ClError(CL_OUT_OF_RESOURCES));
    clear_failure(&cl, "100000 passes");
}
