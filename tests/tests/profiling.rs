//! Profiling and timers: CL_QUEUE_PROFILING_ENABLE timestamps (ordered,
//! on the host timer's clock, plausible for a kernel of known length), the
//! CL_PROFILING_INFO_NOT_AVAILABLE cases, clGetHostTimer and
//! clGetDeviceAndHostTimer, and the queue properties the device reports.

use std::ptr;
use std::time::Duration;

use ferrocl_tests::events::{launch, Event, RawQueue};
use ferrocl_tests::info::{platform_info, query_value};
use ferrocl_tests::sys::*;
use ferrocl_tests::{check, device_value, expect_error, platform, Cl};

/// Profiling values of an event.
trait Profiled {
    fn try_time(&self, param: cl_profiling_info) -> Result<u64, cl_int>;
    /// QUEUED, SUBMIT, START, END, COMPLETE.
    fn times(&self) -> [u64; 5];
}

impl Profiled for Event {
    fn try_time(&self, param: cl_profiling_info) -> Result<u64, cl_int> {
        let mut v = 0u64;
        // SAFETY: a u64-sized out value.
        let s = unsafe {
            clGetEventProfilingInfo(
                self.0,
                param,
                8,
                (&mut v as *mut u64).cast(),
                ptr::null_mut(),
            )
        };
        if s == CL_SUCCESS {
            Ok(v)
        } else {
            Err(s)
        }
    }

    fn times(&self) -> [u64; 5] {
        [
            CL_PROFILING_COMMAND_QUEUED,
            CL_PROFILING_COMMAND_SUBMIT,
            CL_PROFILING_COMMAND_START,
            CL_PROFILING_COMMAND_END,
            CL_PROFILING_COMMAND_COMPLETE,
        ]
        .map(|p| {
            self.try_time(p)
                .unwrap_or_else(|e| panic!("clGetEventProfilingInfo({p:#x}) failed: {e}"))
        })
    }
}

fn host_timer(cl: &Cl) -> u64 {
    let mut t = 0u64;
    // SAFETY: valid device, out pointer.
    check(
        unsafe { clGetHostTimer(cl.device(), &mut t) },
        "clGetHostTimer",
    );
    t
}

fn assert_ordered(what: &str, t: [u64; 5]) {
    assert!(
        t.windows(2).all(|w| w[0] <= w[1]),
        "{what}: QUEUED <= SUBMIT <= START <= END <= COMPLETE violated: {t:?}"
    );
    assert!(t[0] > 0, "{what}: zero timestamp {t:?}");
}

const SPIN: &str = "kernel void spin(global uint* out, uint n) {
    uint x = get_global_id(0);
    for (uint i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
    out[get_global_id(0)] = x;
}";

fn spin_ref(i: u32, n: u32) -> u32 {
    let mut x = i;
    for _ in 0..n {
        x = x.wrapping_mul(1664525).wrapping_add(1013904223);
    }
    x
}

#[test]
fn kernel_timestamps_ordered_and_plausible() {
    let cl = Cl::new();
    let q = RawQueue::new(&cl, CL_QUEUE_PROFILING_ENABLE);
    let kernel = cl.kernel(SPIN, "spin");
    let items = 1 << 14;
    let out = cl.buffer::<u32>(items);
    let mut durations = Vec::new();
    for iterations in [1u32, 4000, 16000] {
        kernel.arg(0, &out).arg(1, &iterations);
        let before = host_timer(&cl);
        let e = launch(q.0, &kernel, items, &[]);
        e.wait();
        let after = host_timer(&cl);
        let t = e.times();
        assert_ordered(&format!("{iterations} iterations"), t);
        assert!(
            before <= t[0] && t[4] <= after,
            "profiling times {t:?} must lie within the host timer's [{before}, {after}]"
        );
        durations.push(t[3] - t[2]);
        let got = ferrocl_tests::Queue::read(&cl.queue, &out);
        for i in [0, 1, 777, items - 1] {
            assert_eq!(got[i], spin_ref(i as u32, iterations), "item {i}");
        }
    }
    // 16000 iterations per item take longer than 1, and longer than 4000.
    assert!(
        durations[2] > durations[0] && durations[2] > durations[1],
        "END - START per run: {durations:?}"
    );
    assert!(durations[2] > 0);
}

#[test]
fn transfers_and_markers_are_profiled() {
    let cl = Cl::new();
    let q = RawQueue::new(
        &cl,
        CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
    );
    let buffer = cl.buffer::<u32>(1 << 16);
    let data: Vec<u32> = (0..1 << 16).collect();
    let mut w = ptr::null_mut();
    // SAFETY: blocking write from `data`.
    check(
        unsafe {
            clEnqueueWriteBuffer(
                q.0,
                buffer.raw(),
                CL_TRUE,
                0,
                data.len() * 4,
                data.as_ptr().cast(),
                0,
                ptr::null(),
                &mut w,
            )
        },
        "clEnqueueWriteBuffer",
    );
    let w = Event(w);
    let tw = w.times();
    assert_ordered("write", tw);
    let mut m = ptr::null_mut();
    // SAFETY: valid queue, empty wait list.
    check(
        unsafe { clEnqueueMarkerWithWaitList(q.0, 0, ptr::null(), &mut m) },
        "clEnqueueMarkerWithWaitList",
    );
    let m = Event(m);
    m.wait();
    let tm = m.times();
    assert_ordered("marker", tm);
    assert_eq!(tm[2], tm[3], "a marker has no device work: START == END");
    assert!(tm[4] >= tw[4], "the marker completes after the write");
}

#[test]
fn profiling_info_not_available() {
    let cl = Cl::new();
    let kernel = cl.kernel(SPIN, "spin");
    let out = cl.buffer::<u32>(64);
    kernel.arg(0, &out).arg(1, &10u32);

    // A queue without CL_QUEUE_PROFILING_ENABLE.
    let plain = launch(cl.queue.raw(), &kernel, 64, &[]);
    plain.wait();
    expect_error(
        plain.try_time(CL_PROFILING_COMMAND_START).unwrap_err(),
        CL_PROFILING_INFO_NOT_AVAILABLE,
        "event of a queue without profiling",
    );

    // A user event.
    let mut status = CL_SUCCESS;
    // SAFETY: valid context.
    let user = Event(unsafe { clCreateUserEvent(cl.raw(), &mut status) });
    check(status, "clCreateUserEvent");
    expect_error(
        user.try_time(CL_PROFILING_COMMAND_QUEUED).unwrap_err(),
        CL_PROFILING_INFO_NOT_AVAILABLE,
        "user event",
    );

    // A command that is not complete yet (gated by the user event).
    let q = RawQueue::new(&cl, CL_QUEUE_PROFILING_ENABLE);
    let gated = launch(q.0, &kernel, 64, &[&user]);
    std::thread::sleep(Duration::from_millis(20));
    expect_error(
        gated.try_time(CL_PROFILING_COMMAND_QUEUED).unwrap_err(),
        CL_PROFILING_INFO_NOT_AVAILABLE,
        "incomplete command",
    );
    // SAFETY: valid user event.
    check(
        unsafe { clSetUserEventStatus(user.0, CL_COMPLETE) },
        "clSetUserEventStatus",
    );
    gated.wait();
    assert_ordered("gated", gated.times());

    // A bad param_name on a complete profiled event.
    expect_error(
        gated
            .try_time(CL_PROFILING_COMMAND_QUEUED + 100)
            .unwrap_err(),
        CL_INVALID_VALUE,
        "bad param_name",
    );
    // Too small a param_value.
    let mut small = 0u32;
    // SAFETY: 4 bytes given, 8 needed: the call must refuse to write.
    let s = unsafe {
        clGetEventProfilingInfo(
            gated.0,
            CL_PROFILING_COMMAND_END,
            4,
            (&mut small as *mut u32).cast(),
            ptr::null_mut(),
        )
    };
    expect_error(s, CL_INVALID_VALUE, "param_value_size too small");
}

#[test]
fn host_timer_monotonic_and_device_timer_close() {
    let cl = Cl::new();
    let resolution: cl_ulong =
        query_value(platform_info(platform(), CL_PLATFORM_HOST_TIMER_RESOLUTION)).unwrap();
    assert!(resolution > 0, "CL_PLATFORM_HOST_TIMER_RESOLUTION is 0");
    let mut last = host_timer(&cl);
    for _ in 0..1000 {
        let t = host_timer(&cl);
        assert!(t >= last, "host timer went back: {last} then {t}");
        last = t;
    }
    std::thread::sleep(Duration::from_millis(10));
    let t = host_timer(&cl);
    assert!(
        t - last >= 10_000_000,
        "10 ms of sleep advanced the host timer by {} ns",
        t - last
    );
    let before = host_timer(&cl);
    let (mut dev, mut host) = (0u64, 0u64);
    // SAFETY: valid device, two out pointers.
    check(
        unsafe { clGetDeviceAndHostTimer(cl.device(), &mut dev, &mut host) },
        "clGetDeviceAndHostTimer",
    );
    let after = host_timer(&cl);
    assert!(
        before <= host && host <= after,
        "{before} <= {host} <= {after}"
    );
    assert!(
        dev.abs_diff(host) < 50_000_000,
        "device timer {dev} and host timer {host} are more than 50 ms apart"
    );
    // SAFETY: NULL out pointers must be refused.
    expect_error(
        unsafe { clGetDeviceAndHostTimer(cl.device(), ptr::null_mut(), &mut host) },
        CL_INVALID_VALUE,
        "NULL device_timestamp",
    );
    // SAFETY: as above.
    expect_error(
        unsafe { clGetHostTimer(cl.device(), ptr::null_mut()) },
        CL_INVALID_VALUE,
        "NULL host_timestamp",
    );
}

#[test]
fn queue_properties_reported_and_accepted() {
    let cl = Cl::new();
    let props: cl_command_queue_properties =
        device_value(cl.device(), CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    assert_eq!(
        props,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE
    );
    for p in [
        0,
        CL_QUEUE_PROFILING_ENABLE,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        props,
    ] {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context and device (deprecated entry point on purpose).
        #[allow(deprecated)]
        let q = unsafe { clCreateCommandQueue(cl.raw(), cl.device(), p, &mut status) };
        check(status, "clCreateCommandQueue");
        let mut got = 0u64;
        // SAFETY: valid queue, u64 out value.
        check(
            unsafe {
                clGetCommandQueueInfo(
                    q,
                    CL_QUEUE_PROPERTIES,
                    8,
                    (&mut got as *mut u64).cast(),
                    ptr::null_mut(),
                )
            },
            "clGetCommandQueueInfo",
        );
        assert_eq!(got, p);
        // SAFETY: created above.
        check(unsafe { clReleaseCommandQueue(q) }, "clReleaseCommandQueue");
    }
    let mut status = CL_SUCCESS;
    // SAFETY: valid context/device; device-side queues are not supported.
    let list = [
        CL_QUEUE_PROPERTIES as cl_queue_properties,
        CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        0,
    ];
    let q = unsafe {
        clCreateCommandQueueWithProperties(cl.raw(), cl.device(), list.as_ptr(), &mut status)
    };
    assert!(q.is_null());
    expect_error(status, CL_INVALID_QUEUE_PROPERTIES, "CL_QUEUE_ON_DEVICE");
}
