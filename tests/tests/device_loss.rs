//! Runaway kernels, lost devices and allocations the device cannot
//! satisfy end in CL errors, never in a hang, a panic or an abort.
//!
//! Each test runs in a child process of this test binary (the same test,
//! with `FERROCL_DEVICE_LOSS_CHILD` set): its environment switches must be
//! set before ferrocl starts, and a device treated as lost stays lost for
//! the process. The parent checks that the child passed within a time
//! limit: a hang (in a wait, at a release, at exit) fails the test.
//!
//! - `runaway_kernel_fails_after_the_kernel_timeout`: with
//!   `FERROCL_KERNEL_TIMEOUT_MS=300`, a kernel that runs far longer (on
//!   lavapipe: 2^24 work-items of 60000 loop passes, within the loop
//!   limiter's bound so that nothing cuts it; elsewhere: a loop that
//!   spins on a word nobody writes) fails its event with
//!   CL_OUT_OF_RESOURCES about 300 ms after it started. The device then
//!   counts as lost: later commands fail, on every queue.
//! - `lost_device_fails_commands_cleanly`: the fault hook
//!   `FERROCL_FAULT_LOST_AT_SUBMIT` makes a vkQueueSubmit fail with
//!   VK_ERROR_DEVICE_LOST.
//! - `allocation_the_device_cannot_satisfy`: with the address space
//!   limited (RLIMIT_AS) below one more buffer of
//!   CL_DEVICE_MAX_MEM_ALLOC_SIZE, creating it fails with
//!   CL_MEM_OBJECT_ALLOCATION_FAILURE or CL_OUT_OF_RESOURCES (lavapipe's
//!   device memory is host memory; on a GPU the same happens once device
//!   memory is full).

use std::io::Read;
use std::process::{Command, Stdio};
use std::ptr;
use std::time::{Duration, Instant};

use ferrocl_tests::events::Event;
use ferrocl_tests::sys::*;
use ferrocl_tests::{device_string, device_value, Buffer, Cl, ClError, Kernel};

const CHILD: &str = "FERROCL_DEVICE_LOSS_CHILD";

/// Runs test `name` in a child process with `env`; fails unless it passes
/// within `limit`.
fn run_in_child(name: &str, env: &[(&str, &str)], limit: Duration) {
    let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .stdout(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("spawn the test binary");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            break st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{name}: the child process still ran after {limit:?} (a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = reader.join().unwrap_or_default();
    eprintln!("{out}");
    assert!(status.success(), "{name}: the child failed ({status})");
    assert!(
        out.contains("1 passed"),
        "{name}: the child did not run the test"
    );
    eprintln!(
        "{name}: child passed in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

/// The tests of this file one at a time: the runaway kernel's child
/// process keeps NVIDIA's GPU busy until it is killed (its exit waits for
/// the kernel), and `ferrocl-stress` beside it made no progress at all
/// (a watchdog "hang" at round 0, GPU run 8 of session 19).
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

fn is_lavapipe(cl: &Cl) -> bool {
    device_string(cl.device(), CL_DEVICE_NAME).contains("llvmpipe")
}

const SOURCE: &str = r#"
// 60000 passes: within lavapipe's loop bound (65535 per batch of 8), so
// the loop limiter does not cut it; the condition keeps the loop alive.
kernel void long_loops(global uint* out) {
    uint s = get_global_id(0);
    for (uint k = 0; k < 60000u; k++)
        s = s * 1664525u + 1013904223u + k;
    if (s == 0x9e3779b9u)
        out[0] = s;
}

// Never ends unless the host writes the flag (it does not).
kernel void spin(volatile global uint* flag, global uint* out) {
    uint n = 0;
    while (flag[0] == 0u)
        n++;
    out[0] = n;
}

kernel void fill(global uint* out, uint v) {
    out[get_global_id(0)] = v + (uint)get_global_id(0);
}
"#;

fn launch(q: cl_command_queue, k: &Kernel, n: usize) -> Result<Event, cl_int> {
    let mut ev = ptr::null_mut();
    // SAFETY: valid queue and kernel, one dimension, no wait list.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            q,
            k.raw(),
            1,
            ptr::null(),
            &n,
            ptr::null(),
            0,
            ptr::null(),
            &mut ev,
        )
    };
    if s == CL_SUCCESS {
        Ok(Event(ev))
    } else {
        Err(s)
    }
}

fn wait(e: &Event) -> cl_int {
    // SAFETY: one live event.
    unsafe { clWaitForEvents(1, &e.0) }
}

fn finish(q: cl_command_queue) -> cl_int {
    // SAFETY: valid queue.
    unsafe { clFinish(q) }
}

/// Blocking read of `b` into a vector: the status and the data.
fn read(q: cl_command_queue, b: &Buffer<u32>) -> (cl_int, Vec<u32>) {
    let mut data = vec![0u32; b.len()];
    // SAFETY: blocking read into `data`, which holds the whole buffer.
    let s = unsafe {
        clEnqueueReadBuffer(
            q,
            b.raw(),
            CL_TRUE,
            0,
            4 * data.len(),
            data.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    (s, data)
}

const ITEMS: usize = 256;

fn fill_ref(v: u32) -> Vec<u32> {
    (0..ITEMS as u32).map(|i| v + i).collect()
}

/// A working launch on `cl`'s queue: the values are exact.
fn works(cl: &Cl, fill: &Kernel, out: &Buffer<u32>, v: u32) {
    fill.arg(0, out).arg(1, &v);
    let e = launch(cl.queue.raw(), fill, ITEMS).expect("enqueue");
    assert_eq!(ClError(wait(&e)), ClError(CL_SUCCESS), "a working launch");
    let (s, data) = read(cl.queue.raw(), out);
    assert_eq!(ClError(s), ClError(CL_SUCCESS));
    assert_eq!(data, fill_ref(v));
}

/// The device is lost: commands on `q` fail cleanly (an enqueue is
/// accepted or refused with an error, its event ends with a negative
/// status, waits and blocking reads return errors, clFinish too).
fn commands_fail(q: cl_command_queue, fill: &Kernel, out: &Buffer<u32>, what: &str) {
    fill.arg(0, out).arg(1, &5u32);
    match launch(q, fill, ITEMS) {
        Ok(e) => {
            assert_ne!(ClError(wait(&e)), ClError(CL_SUCCESS), "{what}: wait");
            assert!(e.status() < 0, "{what}: status {}", e.status());
        }
        Err(s) => assert_ne!(ClError(s), ClError(CL_SUCCESS)),
    }
    let (s, _) = read(q, out);
    assert_ne!(
        ClError(s),
        ClError(CL_SUCCESS),
        "{what}: blocking read on a lost device"
    );
    let mut status = CL_SUCCESS;
    // SAFETY: valid queue and buffer, the whole buffer, blocking.
    let p = unsafe {
        clEnqueueMapBuffer(
            q,
            out.raw(),
            CL_TRUE,
            CL_MAP_READ,
            0,
            4 * out.len(),
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut status,
        )
    };
    assert_ne!(
        ClError(status),
        ClError(CL_SUCCESS),
        "{what}: blocking map on a lost device"
    );
    assert!(p.is_null(), "{what}: a failed map returns NULL");
    assert_eq!(
        ClError(finish(q)),
        ClError(CL_OUT_OF_RESOURCES),
        "{what}: clFinish"
    );
}

#[test]
fn runaway_kernel_fails_after_the_kernel_timeout() {
    let _serial = serial();
    const TIMEOUT_MS: u64 = 300;
    if !in_child() {
        return run_in_child(
            "runaway_kernel_fails_after_the_kernel_timeout",
            &[("FERROCL_KERNEL_TIMEOUT_MS", &TIMEOUT_MS.to_string())],
            Duration::from_secs(120),
        );
    }
    let cl = Cl::new();
    let program = cl.build(SOURCE);
    let fill = program.kernel("fill");
    let out = cl.buffer::<u32>(ITEMS);
    works(&cl, &fill, &out, 1);
    let flag = cl.buffer_from(&[0u32]);
    let small = cl.buffer_from(&[0u32]);
    let (runaway, n) = if is_lavapipe(&cl) {
        let k = program.kernel("long_loops");
        k.arg(0, &small);
        (k, 1usize << 24)
    } else {
        let k = program.kernel("spin");
        k.arg(0, &flag).arg(1, &small);
        (k, 1)
    };
    let start = Instant::now();
    let e = launch(cl.queue.raw(), &runaway, n).expect("enqueue the runaway kernel");
    let waited = wait(&e);
    let took = start.elapsed();
    eprintln!("the wait for the runaway kernel ended after {took:?}");
    assert_eq!(
        ClError(waited),
        ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        "clWaitForEvents"
    );
    assert_eq!(ClError(e.status()), ClError(CL_OUT_OF_RESOURCES), "status");
    assert!(
        took >= Duration::from_millis(TIMEOUT_MS),
        "ended before the timeout: {took:?}"
    );
    assert!(took < Duration::from_secs(30), "ended late: {took:?}");
    assert_eq!(
        ClError(finish(cl.queue.raw())),
        ClError(CL_OUT_OF_RESOURCES)
    );
    // The device counts as lost: this queue and a new one fail.
    commands_fail(cl.queue.raw(), &fill, &out, "the same queue");
    let other = cl.context.queue();
    commands_fail(other.raw(), &fill, &out, "another queue");
    // Releasing everything (the wrappers check CL_SUCCESS) while the
    // kernel may still run, and exiting, do not hang.
}

#[test]
fn lost_device_fails_commands_cleanly() {
    let _serial = serial();
    lost_device_run("lost_device_fails_commands_cleanly", false);
}

/// The same on a profiling queue: the failed submission's commands had
/// timestamp queries that were never written. Reading them with
/// VK_QUERY_RESULT_WAIT_BIT blocked the queue's completer thread in
/// NVIDIA's driver for good (and crashed it there when the process
/// exited: `ferrocl-stress` under a faked loss).
#[test]
fn lost_device_fails_profiled_commands_cleanly() {
    let _serial = serial();
    lost_device_run("lost_device_fails_profiled_commands_cleanly", true);
}

fn lost_device_run(name: &str, profiling: bool) {
    if !in_child() {
        // Submission 3: after two working launches (ferrocl's own
        // submissions come from buffers with host data, not made here).
        return run_in_child(
            name,
            &[("FERROCL_FAULT_LOST_AT_SUBMIT", "3")],
            Duration::from_secs(120),
        );
    }
    let cl = Cl::new();
    let queue = if profiling {
        cl.context.queue_with(CL_QUEUE_PROFILING_ENABLE)
    } else {
        cl.context.queue()
    };
    let q = queue.raw();
    let program = cl.build(SOURCE);
    let fill = program.kernel("fill");
    let out = cl.buffer::<u32>(ITEMS);
    // Submissions 1 and 2: the launches (the reads copy through mapped
    // memory or a queue submission: count them).
    fill.arg(0, &out).arg(1, &1u32);
    let e = launch(q, &fill, ITEMS).expect("enqueue");
    assert_eq!(ClError(wait(&e)), ClError(CL_SUCCESS), "first launch");
    fill.arg(1, &2u32);
    let e = launch(q, &fill, ITEMS).expect("enqueue");
    assert_eq!(ClError(wait(&e)), ClError(CL_SUCCESS), "second launch");
    if profiling {
        assert!(end_time(&e).is_ok(), "the second launch's end time");
    }
    // Submission 3 fails as VK_ERROR_DEVICE_LOST.
    fill.arg(1, &3u32);
    let e = launch(q, &fill, ITEMS).expect("enqueue");
    assert_eq!(
        ClError(wait(&e)),
        ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        "the launch whose submission failed"
    );
    assert_eq!(ClError(e.status()), ClError(CL_OUT_OF_RESOURCES));
    if profiling {
        assert_eq!(
            end_time(&e).map_err(ClError),
            Err(ClError(CL_PROFILING_INFO_NOT_AVAILABLE)),
            "a failed command has no end time"
        );
    }
    assert_eq!(ClError(finish(q)), ClError(CL_OUT_OF_RESOURCES));
    commands_fail(q, &fill, &out, "the same queue");
    let other = cl.context.queue();
    commands_fail(other.raw(), &fill, &out, "another queue");
}

/// CL_PROFILING_COMMAND_END of `e`, or the error code.
fn end_time(e: &Event) -> Result<u64, cl_int> {
    let mut t = 0u64;
    // SAFETY: valid event; an 8-byte result.
    let r = unsafe {
        clGetEventProfilingInfo(
            e.0,
            CL_PROFILING_COMMAND_END,
            8,
            (&raw mut t).cast(),
            std::ptr::null_mut(),
        )
    };
    if r == CL_SUCCESS {
        Ok(t)
    } else {
        Err(r)
    }
}

#[repr(C)]
struct Rlimit {
    cur: u64,
    max: u64,
}

extern "C" {
    fn getrlimit(resource: i32, rlim: *mut Rlimit) -> i32;
    fn setrlimit(resource: i32, rlim: *const Rlimit) -> i32;
}

const RLIMIT_AS: i32 = 9;

/// This process's virtual size in bytes (VmSize).
fn vm_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmSize");
    kib * 1024
}

fn try_buffer(cl: &Cl, bytes: usize) -> Result<Buffer<u32>, cl_int> {
    let mut status = CL_SUCCESS;
    // SAFETY: valid context, no host pointer.
    let raw = unsafe {
        clCreateBuffer(
            cl.raw(),
            CL_MEM_READ_WRITE,
            bytes,
            ptr::null_mut(),
            &mut status,
        )
    };
    if status == CL_SUCCESS {
        Ok(Buffer::from_raw(raw, bytes / 4))
    } else {
        Err(status)
    }
}

#[test]
fn allocation_the_device_cannot_satisfy() {
    let _serial = serial();
    if !in_child() {
        return run_in_child(
            "allocation_the_device_cannot_satisfy",
            &[],
            Duration::from_secs(120),
        );
    }
    let cl = Cl::new();
    let program = cl.build(SOURCE);
    let fill = program.kernel("fill");
    let out = cl.buffer::<u32>(ITEMS);
    works(&cl, &fill, &out, 1);
    let max: u64 = device_value(cl.device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    if !is_lavapipe(&cl) {
        // A GPU's memory is not limited by the address space: fill it.
        let mut kept = Vec::new();
        let err = loop {
            match try_buffer(&cl, max as usize) {
                Ok(b) => kept.push(b),
                Err(e) => break e,
            }
            let global: u64 = device_value(cl.device(), CL_DEVICE_GLOBAL_MEM_SIZE);
            assert!(
                (kept.len() as u64) * max <= 2 * global,
                "{} buffers of {max} bytes, twice CL_DEVICE_GLOBAL_MEM_SIZE, and no allocation failed",
                kept.len()
            );
        };
        eprintln!(
            "{} buffers of {max} bytes, then {}",
            kept.len(),
            ClError(err)
        );
        assert!(
            err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES,
            "{}",
            ClError(err)
        );
        drop(kept);
        works(&cl, &fill, &out, 2);
        return;
    }
    let mut old = Rlimit { cur: 0, max: 0 };
    // SAFETY: a valid out pointer.
    assert_eq!(unsafe { getrlimit(RLIMIT_AS, &mut old) }, 0);
    // Room for small things (thread stacks, the read-back staging), not
    // for one more buffer of the largest size.
    let limit = Rlimit {
        cur: vm_size() + max / 4,
        max: old.max,
    };
    // SAFETY: a valid limit; lowering the soft limit is always allowed.
    assert_eq!(unsafe { setrlimit(RLIMIT_AS, &limit) }, 0);
    let result = try_buffer(&cl, max as usize);
    // SAFETY: restores the limit read above.
    assert_eq!(unsafe { setrlimit(RLIMIT_AS, &old) }, 0);
    eprintln!(
        "clCreateBuffer of {max} bytes within RLIMIT_AS: {:?}",
        result.as_ref().map(|_| ()).map_err(|e| ClError(*e))
    );
    match result {
        Ok(_) => panic!("a buffer of {max} bytes beyond the address-space limit was created"),
        Err(e) => assert!(
            e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES,
            "clCreateBuffer of {max} bytes: {}",
            ClError(e)
        ),
    }
    // Nothing the application had is lost; the device still works.
    works(&cl, &fill, &out, 2);
}

/// On lavapipe, the loop limiter (compiler/src/passes/loop_limit.rs) cuts
/// an infinite loop: the wait ends at once with an error, without the
/// kernel timeout, and the queue works again after clFinish reports it
/// (tests/loop_limit.rs has the details). Elsewhere only the kernel
/// timeout ends such a kernel (the test above).
#[test]
fn infinite_loop_is_cut_by_the_loop_limiter_on_lavapipe() {
    let _serial = serial();
    let cl = Cl::new();
    if in_child()
        || !is_lavapipe(&cl)
        || std::env::var("FERROCL_LOOP_LIMITER").as_deref() == Ok("0")
    {
        return;
    }
    let program = cl.build(SOURCE);
    let spin = program.kernel("spin");
    let flag = cl.buffer_from(&[0u32]);
    let small = cl.buffer_from(&[0u32]);
    spin.arg(0, &flag).arg(1, &small);
    let start = Instant::now();
    let e = launch(cl.queue.raw(), &spin, 64).expect("enqueue");
    assert_eq!(
        ClError(wait(&e)),
        ClError(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        "clWaitForEvents"
    );
    assert_eq!(ClError(e.status()), ClError(CL_OUT_OF_RESOURCES), "status");
    eprintln!(
        "the loop limiter ended the wait after {:?}",
        start.elapsed()
    );
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(
        ClError(finish(cl.queue.raw())),
        ClError(CL_OUT_OF_RESOURCES)
    );
    let fill = program.kernel("fill");
    let out = cl.buffer::<u32>(ITEMS);
    works(&cl, &fill, &out, 3);
}

/// A device lost under load: `ferrocl-stress` (16 threads, queues chained
/// by each other's events, user events, callbacks that enqueue, maps) with
/// a faked loss at submission 2000. Every thread must get an error code
/// and the tool must report it (exit status 1) instead of hanging (its
/// watchdog: exit status 3) or dying of a signal.
#[test]
fn device_lost_under_stress_fails_every_thread_cleanly() {
    let _serial = serial();
    if in_child() {
        return;
    }
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrocl-stress"))
        .args([
            "--seed",
            "5",
            "--seconds",
            "60",
            "--hang-after",
            "30",
            "--quiet",
        ])
        .env("FERROCL_FAULT_LOST_AT_SUBMIT", "2000")
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ferrocl-stress");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            break st;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ferrocl-stress still ran after 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let err = reader.join().unwrap_or_default();
    eprintln!("{err}");
    eprintln!("ended after {:?}", start.elapsed());
    assert_eq!(status.code(), Some(1), "exit status ({status})");
    assert!(
        err.contains("FAILED") && err.contains("CL_"),
        "the failure names an error code"
    );
    assert!(!err.contains("HANG"));
}
