//! Events: user events gating commands, failure propagating through wait
//! lists, callbacks (once per status, from a runtime thread), out-of-order
//! queues ordered only by wait lists, barriers and markers, and waits
//! across queues.

use std::ptr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ferrocl_tests::events::{launch, raw_list, Event, RawQueue};
use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, expect_error, Buffer, Cl, Pod};

/// An owned cl_event.
/// Non-blocking write of `data` (which must outlive the command: callers
/// wait for the returned event).
fn write_after<T: Pod>(
    q: cl_command_queue,
    buffer: &Buffer<T>,
    data: &[T],
    waits: &[&Event],
) -> Event {
    let list = raw_list(waits);
    let mut ev = ptr::null_mut();
    // SAFETY: the data is copied at enqueue; wait list of live events.
    let s = unsafe {
        clEnqueueWriteBuffer(
            q,
            buffer.raw(),
            CL_FALSE,
            0,
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
    check(s, "clEnqueueWriteBuffer");
    Event(ev)
}

/// Blocking read after `waits`.
fn read_after<T: Pod>(q: cl_command_queue, buffer: &Buffer<T>, waits: &[&Event]) -> Vec<T> {
    let list = raw_list(waits);
    let mut out = ferrocl_tests::pod::zeroed_vec::<T>(buffer.len());
    // SAFETY: blocking read into `out`, which holds the whole buffer.
    let s = unsafe {
        clEnqueueReadBuffer(
            q,
            buffer.raw(),
            CL_TRUE,
            0,
            std::mem::size_of_val(out.as_slice()),
            out.as_mut_ptr().cast(),
            list.len() as cl_uint,
            if list.is_empty() {
                ptr::null()
            } else {
                list.as_ptr()
            },
            ptr::null_mut(),
        )
    };
    check(s, "clEnqueueReadBuffer");
    out
}

fn wait_all(events: &[&Event]) -> cl_int {
    let list = raw_list(events);
    // SAFETY: live events.
    unsafe { clWaitForEvents(list.len() as cl_uint, list.as_ptr()) }
}

fn barrier(q: cl_command_queue) {
    // SAFETY: valid queue, empty wait list, no event.
    check(
        unsafe { clEnqueueBarrierWithWaitList(q, 0, ptr::null(), ptr::null_mut()) },
        "clEnqueueBarrierWithWaitList",
    );
}

fn marker(q: cl_command_queue) -> Event {
    let mut ev = ptr::null_mut();
    // SAFETY: valid queue, empty wait list.
    check(
        unsafe { clEnqueueMarkerWithWaitList(q, 0, ptr::null(), &mut ev) },
        "clEnqueueMarkerWithWaitList",
    );
    Event(ev)
}

const FILL: &str = "kernel void fill(global uint* b, uint k) {
    uint i = get_global_id(0);
    uint x = i;
    for (uint j = 0; j < 64; j++) x = x * 1664525u + 1013904223u;
    b[i] = (x & 0xffu) + i * k;
}
kernel void add(global const uint* a, global uint* out, uint k) {
    uint i = get_global_id(0);
    out[i] = a[i] + k;
}";

fn fill_ref(i: u32, k: u32) -> u32 {
    let mut x = i;
    for _ in 0..64 {
        x = x.wrapping_mul(1664525).wrapping_add(1013904223);
    }
    (x & 0xff).wrapping_add(i.wrapping_mul(k))
}

#[test]
fn user_event_gates_a_command() {
    let cl = Cl::new();
    let buffer = cl.buffer_from(&vec![7u32; 256]);
    let data: Vec<u32> = (0..256).collect();
    let gate = Event::user(&cl);
    assert_eq!(
        gate.status(),
        CL_SUBMITTED,
        "a new user event is CL_SUBMITTED"
    );
    let write = write_after(cl.queue.raw(), &buffer, &data, &[&gate]);
    std::thread::sleep(Duration::from_millis(100));
    let s = write.status();
    assert!(
        s == CL_QUEUED || s == CL_SUBMITTED,
        "a command waiting for an incomplete user event is {s}, not queued/submitted"
    );
    gate.set(CL_COMPLETE);
    assert_eq!(wait_all(&[&write]), CL_SUCCESS);
    assert_eq!(write.status(), CL_COMPLETE);
    assert_same("written after the gate", &cl.queue.read(&buffer), &data);
}

#[test]
fn failed_user_event_fails_dependants() {
    let cl = Cl::new();
    let original = vec![5u32; 64];
    let buffer = cl.buffer_from(&original);
    let data = vec![9u32; 64];
    let gate = Event::user(&cl);
    let write = write_after(cl.queue.raw(), &buffer, &data, &[&gate]);
    // Depends on the failing command through the same (in-order) queue.
    let second = write_after(cl.queue.raw(), &buffer, &data, &[&write]);
    // An unrelated command after them still runs.
    let other = cl.buffer_from(&[0u32; 4]);
    let third = write_after(cl.queue.raw(), &other, &[1u32, 2, 3, 4], &[]);
    gate.set(-1234);
    expect_error(
        wait_all(&[&write]),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "clWaitForEvents on the dependant",
    );
    assert_eq!(write.status(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    expect_error(
        wait_all(&[&second]),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "clWaitForEvents on the dependant's dependant",
    );
    assert_eq!(
        second.status(),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    );
    assert_eq!(wait_all(&[&third]), CL_SUCCESS);
    assert_same(
        "failed commands wrote nothing",
        &cl.queue.read(&buffer),
        &original,
    );
    assert_same(
        "unrelated command ran",
        &cl.queue.read(&other),
        &[1, 2, 3, 4],
    );
}

/// (event, registered for, status received, on the test's own thread)
type Call = (usize, cl_int, cl_int, bool);
static CALLS: Mutex<Vec<Call>> = Mutex::new(Vec::new());
static TEST_THREAD: Mutex<Option<std::thread::ThreadId>> = Mutex::new(None);

extern "C" fn record_call(e: cl_event, status: cl_int, data: *mut std::ffi::c_void) {
    let on_test_thread = *TEST_THREAD.lock().unwrap() == Some(std::thread::current().id());
    CALLS
        .lock()
        .unwrap()
        .push((e as usize, data as usize as cl_int, status, on_test_thread));
}

fn add_callback(e: &Event, when: cl_int) {
    // SAFETY: valid event; the callback only records its arguments.
    let s = unsafe { clSetEventCallback(e.0, when, Some(record_call), when as usize as *mut _) };
    check(s, "clSetEventCallback");
}

fn calls_for(e: &Event, count: usize) -> Vec<Call> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mine: Vec<Call> = CALLS
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.0 == e.0 as usize)
            .copied()
            .collect();
        if mine.len() >= count || Instant::now() > deadline {
            return mine;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn callbacks_once_per_status_from_a_runtime_thread() {
    *TEST_THREAD.lock().unwrap() = Some(std::thread::current().id());
    let cl = Cl::new();
    let kernel = cl.kernel(FILL, "fill");
    let buffer = cl.buffer::<u32>(1024);
    kernel.arg(0, &buffer).arg(1, &3u32);
    let gate = Event::user(&cl);
    let run = launch(cl.queue.raw(), &kernel, 1024, &[&gate]);
    for when in [CL_COMPLETE, CL_RUNNING, CL_SUBMITTED] {
        add_callback(&run, when);
    }
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        calls_for(&run, 0).is_empty(),
        "no callback before the gate opens"
    );
    gate.set(CL_COMPLETE);
    assert_eq!(wait_all(&[&run]), CL_SUCCESS);
    // Give late callbacks a chance to show up twice.
    let calls = calls_for(&run, 3);
    std::thread::sleep(Duration::from_millis(50));
    let calls_after = calls_for(&run, 3);
    assert_eq!(calls, calls_after, "a callback ran again");
    let got: Vec<(cl_int, cl_int)> = calls.iter().map(|c| (c.1, c.2)).collect();
    assert_eq!(
        got,
        vec![
            (CL_SUBMITTED, CL_SUBMITTED),
            (CL_RUNNING, CL_RUNNING),
            (CL_COMPLETE, CL_COMPLETE)
        ],
        "(registered for, status passed), in order"
    );
    assert!(
        calls.iter().all(|c| !c.3),
        "callbacks must run on a runtime thread"
    );
    // Registered after the fact: runs at once with the state registered for.
    add_callback(&run, CL_SUBMITTED);
    let late = calls_for(&run, 4);
    assert_eq!(late.len(), 4);
    assert_eq!((late[3].1, late[3].2), (CL_SUBMITTED, CL_SUBMITTED));
    let want: Vec<u32> = (0..1024).map(|i| fill_ref(i, 3)).collect();
    assert_same("kernel result", &cl.queue.read(&buffer), &want);
}

#[test]
fn callbacks_of_a_failed_command_get_the_error() {
    *TEST_THREAD.lock().unwrap() = Some(std::thread::current().id());
    let cl = Cl::new();
    let buffer = cl.buffer::<u32>(16);
    let data = vec![1u32; 16];
    let gate = Event::user(&cl);
    let write = write_after(cl.queue.raw(), &buffer, &data, &[&gate]);
    for when in [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE] {
        add_callback(&write, when);
    }
    gate.set(-7);
    let calls = calls_for(&write, 3);
    assert_eq!(calls.len(), 3, "every callback runs once: {calls:?}");
    for c in &calls {
        assert_eq!(c.2, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "{c:?}");
    }
}

#[test]
fn out_of_order_queue_chain_ordered_by_events() {
    let cl = Cl::new();
    let q = RawQueue::new(&cl, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let mut props: cl_command_queue_properties = 0;
    // SAFETY: valid queue, u64-sized out value.
    check(
        unsafe {
            clGetCommandQueueInfo(
                q.0,
                CL_QUEUE_PROPERTIES,
                8,
                (&mut props as *mut u64).cast(),
                ptr::null_mut(),
            )
        },
        "clGetCommandQueueInfo",
    );
    assert_eq!(props, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let program = cl.build(FILL);
    let n = 1 << 16;
    for round in 0..4u32 {
        let a = cl.buffer::<u32>(n);
        let out = cl.buffer::<u32>(n);
        let fill = program.kernel("fill");
        let add = program.kernel("add");
        fill.arg(0, &a).arg(1, &(round + 2));
        add.arg(0, &a).arg(1, &out).arg(2, &(round * 10));
        let ea = launch(q.0, &fill, n, &[]);
        let eb = launch(q.0, &add, n, &[&ea]);
        let got = read_after(q.0, &out, &[&eb]);
        let want: Vec<u32> = (0..n as u32)
            .map(|i| fill_ref(i, round + 2).wrapping_add(round * 10))
            .collect();
        assert_same(&format!("round {round}"), &got, &want);
    }
}

#[test]
fn out_of_order_barrier_orders_everything() {
    let cl = Cl::new();
    let q = RawQueue::new(&cl, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let program = cl.build(FILL);
    let n = 1 << 15;
    let a = cl.buffer::<u32>(n);
    let b = cl.buffer::<u32>(n);
    let c = cl.buffer::<u32>(n);
    let fill = program.kernel("fill");
    fill.arg(0, &a).arg(1, &5u32);
    let add1 = program.kernel("add");
    add1.arg(0, &a).arg(1, &b).arg(2, &1u32);
    let add2 = program.kernel("add");
    add2.arg(0, &b).arg(1, &c).arg(2, &100u32);
    let _ea = launch(q.0, &fill, n, &[]);
    barrier(q.0);
    let _eb = launch(q.0, &add1, n, &[]);
    barrier(q.0);
    let _ec = launch(q.0, &add2, n, &[]);
    barrier(q.0);
    let got = read_after(q.0, &c, &[]);
    let want: Vec<u32> = (0..n as u32).map(|i| fill_ref(i, 5) + 101).collect();
    assert_same("c after two barriers", &got, &want);
}

#[test]
fn out_of_order_marker_waits_for_all_previous() {
    let cl = Cl::new();
    let q = RawQueue::new(&cl, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let kernel = cl.kernel(FILL, "fill");
    let a = cl.buffer::<u32>(4096);
    kernel.arg(0, &a).arg(1, &1u32);
    let gate = Event::user(&cl);
    let gated = launch(q.0, &kernel, 4096, &[&gate]);
    let free = launch(q.0, &kernel, 4096, &[]);
    let m = marker(q.0);
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        m.status() > CL_COMPLETE,
        "the marker completed before a command enqueued before it"
    );
    gate.set(CL_COMPLETE);
    assert_eq!(wait_all(&[&m]), CL_SUCCESS);
    assert_eq!(gated.status(), CL_COMPLETE);
    assert_eq!(free.status(), CL_COMPLETE);
    q.finish();
}

#[test]
fn wait_list_and_wait_across_queues() {
    let cl = Cl::new();
    let q2 = RawQueue::new(&cl, 0);
    let program = cl.build(FILL);
    let n = 1 << 14;
    let a = cl.buffer::<u32>(n);
    let out = cl.buffer::<u32>(n);
    let fill = program.kernel("fill");
    fill.arg(0, &a).arg(1, &9u32);
    let add = program.kernel("add");
    add.arg(0, &a).arg(1, &out).arg(2, &3u32);
    let gate = Event::user(&cl);
    let ea = launch(cl.queue.raw(), &fill, n, &[&gate]);
    let eb = launch(q2.0, &add, n, &[&ea]);
    std::thread::sleep(Duration::from_millis(30));
    assert!(
        eb.status() > CL_RUNNING,
        "ran before its cross-queue dependency"
    );
    gate.set(CL_COMPLETE);
    assert_eq!(wait_all(&[&ea, &eb]), CL_SUCCESS);
    let want: Vec<u32> = (0..n as u32).map(|i| fill_ref(i, 9) + 3).collect();
    assert_same("out", &read_after(q2.0, &out, &[]), &want);
}

/// OpenCL 2.1+: "If global_work_size is NULL, or the value in any passed
/// dimension is 0 then the kernel command will trivially succeed after its
/// event dependencies are satisfied": no work-item runs, the event is a real
/// NDRange event that waits for its wait list.
#[test]
fn zero_sized_and_null_global_ndrange_do_nothing_but_order() {
    let cl = Cl::new();
    let out = cl.buffer_from(&[0u32; 16]);
    let kernel = cl.kernel(
        "kernel void one(global uint* out) { out[get_global_id(0) & 15] = 1; }",
        "one",
    );
    kernel.arg(0, &out);
    let zeros = [0usize; 3];
    for dim in 1..=3u32 {
        for global in [ptr::null(), zeros.as_ptr()] {
            // SAFETY: valid queue and kernel; `global` is NULL or 3 entries.
            let s = unsafe {
                clEnqueueNDRangeKernel(
                    cl.queue.raw(),
                    kernel.raw(),
                    dim,
                    ptr::null(),
                    global,
                    ptr::null(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            };
            expect_error(s, CL_SUCCESS, &format!("{dim}-D zero-sized NDRange"));
        }
    }
    let gate = Event::user(&cl);
    let list = raw_list(&[&gate]);
    let mut ev = ptr::null_mut();
    // SAFETY: as above, with a one-event wait list and an event out-pointer.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            cl.queue.raw(),
            kernel.raw(),
            1,
            ptr::null(),
            ptr::null(),
            ptr::null(),
            1,
            list.as_ptr(),
            &mut ev,
        )
    };
    expect_error(s, CL_SUCCESS, "NULL-global NDRange after a user event");
    let ev = Event(ev);
    let mut kind: cl_command_type = 0;
    // SAFETY: valid event; a cl_command_type-sized out value.
    check(
        unsafe {
            clGetEventInfo(
                ev.0,
                CL_EVENT_COMMAND_TYPE,
                std::mem::size_of::<cl_command_type>(),
                (&mut kind as *mut cl_command_type).cast(),
                ptr::null_mut(),
            )
        },
        "clGetEventInfo(COMMAND_TYPE)",
    );
    assert_eq!(kind, CL_COMMAND_NDRANGE_KERNEL);
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        ev.status() > CL_RUNNING,
        "the command ran before its wait list completed (status {})",
        ev.status()
    );
    gate.set(CL_COMPLETE);
    ev.wait();
    assert_eq!(ev.status(), CL_COMPLETE);
    assert_same("untouched", &cl.queue.read(&out), &[0u32; 16]);
}

/// A command that follows another (in-order queue) is not CL_RUNNING
/// while that one is not complete, even where both went to the device in
/// one submission (the gate holds the first until the second is queued
/// behind it). The CTS's test_events `waitlists` found "Test event and
/// second event are both running" on lavapipe.
#[test]
fn a_command_never_runs_before_the_one_it_follows() {
    const SPIN: &str = "kernel void spin(global uint* b, uint n) {
    uint i = get_global_id(0);
    uint x = i;
    for (uint j = 0; j < n; j++) x = x * 1664525u + 1013904223u;
    b[i] = x;
}";
    let cl = Cl::new();
    let spin = cl.build(SPIN).kernel("spin");
    let fill_program = cl.build(FILL);
    let n = 1 << 16;
    let slow = cl.buffer::<u32>(n);
    for round in 0..3u32 {
        let a = cl.buffer::<u32>(n);
        let out = cl.buffer::<u32>(n);
        spin.arg(0, &slow).arg(1, &2000u32);
        let fill = fill_program.kernel("fill");
        let add = fill_program.kernel("add");
        fill.arg(0, &a).arg(1, &(round + 2));
        add.arg(0, &a).arg(1, &out).arg(2, &round);
        let gate = Event::user(&cl);
        let first = launch(cl.queue.raw(), &spin, n, &[&gate]);
        let second = launch(cl.queue.raw(), &fill, n, &[]);
        let third = launch(cl.queue.raw(), &add, n, &[]);
        std::thread::sleep(Duration::from_millis(20));
        gate.set(CL_COMPLETE);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            // The later command first: statuses only move forward, so a
            // later command seen running or complete means the one before
            // it completed before this read of its status.
            let s3 = third.status();
            let s2 = second.status();
            let s1 = first.status();
            assert!(s1 >= CL_COMPLETE && s2 >= CL_COMPLETE && s3 >= CL_COMPLETE);
            if s3 <= CL_RUNNING {
                assert_eq!(s2, CL_COMPLETE, "round {round}: the third command is {s3}");
            }
            if s2 <= CL_RUNNING {
                assert_eq!(s1, CL_COMPLETE, "round {round}: the second command is {s2}");
            }
            if s3 == CL_COMPLETE {
                break;
            }
            assert!(Instant::now() < deadline, "round {round}: not done in 60 s");
            std::hint::spin_loop();
        }
        let got = read_after(cl.queue.raw(), &out, &[&third]);
        let want: Vec<u32> = (0..n as u32)
            .map(|i| fill_ref(i, round + 2).wrapping_add(round))
            .collect();
        assert_same(&format!("round {round}"), &got, &want);
    }
}

/// clFinish from several threads sharing one in-order queue: when it
/// returns, each thread's own non-blocking reads are complete, their data
/// in the thread's memory. The queue's "last command" was set before the
/// engine took the command, so two threads enqueueing at once could leave
/// it at the command the engine took first, and clFinish returned while
/// the other thread's read was still running (ferrocl-apifuzz: a SIGSEGV
/// in the completion thread's copy into memory its thread had freed).
#[test]
fn finish_waits_for_every_thread_s_reads() {
    const THREADS: u32 = 8;
    const ROUNDS: u32 = 150;
    const LEN: usize = 4096;
    let cl = Cl::new();
    let data: Vec<u32> = (0..LEN as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let buffer = cl.buffer_from(&data);
    // The queue's handle as an address: shared by the threads, owned by `cl`.
    let q = cl.queue.raw() as usize;
    let late = std::sync::atomic::AtomicU32::new(0);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (buffer, data, late) = (&buffer, &data, &late);
            s.spawn(move || {
                let q = q as cl_command_queue;
                for r in 0..ROUNDS {
                    let mut out = vec![!0u32; LEN];
                    let n = 1 + ((t + r) as usize * 37) % LEN;
                    // SAFETY: `out` lives until the clFinish below, which
                    // must wait for the read.
                    let st = unsafe {
                        clEnqueueReadBuffer(
                            q,
                            buffer.raw(),
                            CL_FALSE,
                            0,
                            n * 4,
                            out.as_mut_ptr().cast(),
                            0,
                            ptr::null(),
                            ptr::null_mut(),
                        )
                    };
                    check(st, "clEnqueueReadBuffer");
                    // SAFETY: a live queue.
                    check(unsafe { clFinish(q) }, "clFinish");
                    if out[..n] != data[..n] {
                        late.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(
        late.into_inner(),
        0,
        "reads not complete when clFinish returned (of {} reads)",
        THREADS * ROUNDS
    );
}
