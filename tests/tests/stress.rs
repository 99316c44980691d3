//! Object lifetimes under load: many create / enqueue / release cycles
//! whose resident memory must stay bounded, and many threads using the API
//! at once (kernel arguments, shared and separate queues, objects created
//! and released concurrently) with every result checked.

use std::ptr;
use std::sync::Barrier;

use ferrocl_tests::events::Event;
use ferrocl_tests::sys::*;
use ferrocl_tests::{check, Cl, Context, Kernel, Queue};

const SOURCE: &str = r#"
kernel void touch(global uint* scratch, global uint* count) {
    scratch[get_global_id(0)] = (uint)get_global_id(0) + 1;
    if (get_global_id(0) == 0)
        atomic_inc(count);
}

kernel void add(global uint* buf, uint v) {
    buf[get_global_id(0)] += v + (uint)get_global_id(0);
}
"#;

/// Resident set size of this process in KiB (VmRSS).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// A raw buffer of `bytes`, released by the caller.
fn raw_buffer(cl: &Context, bytes: usize) -> cl_mem {
    let mut status = CL_SUCCESS;
    // SAFETY: no host pointer.
    let m = unsafe {
        clCreateBuffer(
            cl.raw(),
            CL_MEM_READ_WRITE,
            bytes,
            ptr::null_mut(),
            &mut status,
        )
    };
    check(status, "clCreateBuffer");
    m
}

fn set_mem_arg(k: cl_kernel, index: u32, m: &cl_mem) {
    // SAFETY: a cl_mem argument given by address.
    check(
        unsafe { clSetKernelArg(k, index, size_of::<cl_mem>(), (m as *const cl_mem).cast()) },
        "clSetKernelArg",
    );
}

fn enqueue(q: cl_command_queue, k: cl_kernel, n: usize, event: Option<&mut cl_event>) {
    let out = event.map_or(ptr::null_mut(), |e| e as *mut cl_event);
    // SAFETY: valid queue and kernel; one dimension.
    check(
        unsafe {
            clEnqueueNDRangeKernel(q, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), out)
        },
        "clEnqueueNDRangeKernel",
    );
}

/// `cycles` rounds of: create a buffer, make it a kernel argument, launch
/// the kernel with an event, release the buffer while the launch may still
/// be in flight; every 32 rounds wait for the events and release them; every
/// 512 rounds also create and release a kernel object. Returns the counter
/// the kernel increments once per launch.
fn cycles(cl: &Cl, program: &ferrocl_tests::Program, count: &ferrocl_tests::Buffer<u32>, n: usize) {
    const ITEMS: usize = 64;
    let kernel = program.kernel("touch");
    kernel.arg(1, count);
    let mut events: Vec<Event> = Vec::with_capacity(32);
    for i in 0..n {
        let m = raw_buffer(cl, ITEMS * 4);
        set_mem_arg(kernel.raw(), 0, &m);
        let mut ev = ptr::null_mut();
        enqueue(cl.queue.raw(), kernel.raw(), ITEMS, Some(&mut ev));
        // SAFETY: the buffer created above; the launch holds what it needs.
        check(unsafe { clReleaseMemObject(m) }, "clReleaseMemObject");
        events.push(Event(ev));
        if events.len() == 32 || i + 1 == n {
            events.last().unwrap().wait();
            for e in events.drain(..) {
                assert_eq!(e.status(), CL_COMPLETE, "launch status");
            }
        }
        if i % 512 == 511 {
            let extra = program.kernel("touch");
            drop(extra);
        }
    }
}

/// The tests of this file run one at a time: the resident-set measurement
/// must not see the other tests' threads building programs.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `n` cycles after a warm-up and checks that the resident set grew
/// by less than `max_growth_kib` and that every launch ran.
fn bounded_rss(n: usize, max_growth_kib: u64) {
    let _one_at_a_time = serial();
    let cl = Cl::new();
    let program = cl.build(SOURCE);
    let count = cl.buffer_from(&[0u32]);
    // Warm-up: pipelines, staging pools, allocator blocks, the loader.
    let warm = 2048;
    cycles(&cl, &program, &count, warm);
    cl.queue.finish();
    // Two halves: a leak grows both by about as much, while a one-off
    // step (a pool or the allocator growing once on a loaded machine)
    // shows in one of them only, so the smaller growth is the measure.
    let start = std::time::Instant::now();
    let mut rss = vec![rss_kib()];
    for _ in 0..2 {
        cycles(&cl, &program, &count, n / 2);
        cl.queue.finish();
        rss.push(rss_kib());
    }
    eprintln!(
        "{n} cycles in {:.1} s; VmRSS {} -> {} -> {} KiB",
        start.elapsed().as_secs_f64(),
        rss[0],
        rss[1],
        rss[2]
    );
    assert_eq!(
        cl.queue.read(&count),
        vec![(warm + n / 2 * 2) as u32],
        "launches"
    );
    let growth = rss[1]
        .saturating_sub(rss[0])
        .min(rss[2].saturating_sub(rss[1]));
    let limit = max_growth_kib / 2;
    assert!(
        growth < limit,
        "VmRSS grew by at least {growth} KiB in each half of {n} cycles ({} bytes per cycle)",
        growth * 1024 / (n as u64 / 2)
    );
}

/// 100 000 cycles (about 15 s in a debug build on lavapipe): a leak of 40
/// bytes or more per cycle fails.
#[test]
fn create_enqueue_release_100k_cycles_keep_memory_bounded() {
    bounded_rss(100_000, 4096);
}

/// Threads each own a kernel (setting its arguments every round) and a
/// buffer, and launch on a queue shared by all threads and on their own
/// queue in turn; meanwhile they create and release buffers, user events
/// and kernels. Every buffer must end with exactly its own launches' sum.
#[test]
fn threads_share_a_context_and_queue() {
    let _one_at_a_time = serial();
    const THREADS: usize = 8;
    const ROUNDS: u32 = 40;
    const ITEMS: usize = 256;
    let cl = Cl::new();
    let program = cl.build(SOURCE);
    let start = Barrier::new(THREADS);
    let results: Vec<Vec<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (cl, program, start) = (&cl, &program, &start);
                s.spawn(move || {
                    let own: Queue = cl.queue();
                    let kernel: Kernel = program.kernel("add");
                    let buf = cl.buffer_from(&[0u32; ITEMS]);
                    start.wait();
                    for r in 0..ROUNDS {
                        let v = t as u32 * 1000 + r;
                        kernel.arg(0, &buf).arg(1, &v);
                        let q = if r % 2 == 0 {
                            cl.queue.raw()
                        } else {
                            own.raw()
                        };
                        let mut ev = ptr::null_mut();
                        enqueue(q, kernel.raw(), ITEMS, Some(&mut ev));
                        let ev = Event(ev);
                        // Objects created and released meanwhile.
                        let tmp = raw_buffer(cl, 4096);
                        let user = Event::user(cl);
                        let extra = program.kernel("touch");
                        set_mem_arg(extra.raw(), 0, &tmp);
                        user.set(CL_COMPLETE);
                        drop(extra);
                        // SAFETY: the buffer created above.
                        check(unsafe { clReleaseMemObject(tmp) }, "clReleaseMemObject");
                        // The next launch goes to the other queue: order by waiting.
                        ev.wait();
                        assert_eq!(ev.status(), CL_COMPLETE);
                    }
                    own.read(&buf)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, got) in results.iter().enumerate() {
        let sum: u32 = (0..ROUNDS).map(|r| t as u32 * 1000 + r).sum();
        let want: Vec<u32> = (0..ITEMS as u32).map(|i| sum + ROUNDS * i).collect();
        assert_eq!(got, &want, "thread {t}'s buffer");
    }
}

/// The CTS vectors pattern: threads sharing one in-order queue each build
/// their own program, then write (blocking), launch and read (blocking).
/// A thread must read its own kernel's results, whatever the others do
/// meanwhile (builds, enqueues, reads). On the H100, concurrent pipeline
/// creation made about one launch in 300 run another thread's kernel
/// (`vk::Device::pipeline_lock`): 256 launches here.
#[test]
fn threads_build_and_run_their_own_programs_on_a_shared_queue() {
    let _one_at_a_time = serial();
    const THREADS: u32 = 16;
    const ROUNDS: u32 = 16;
    const ITEMS: usize = 4096;
    let cl = Cl::new();
    // Unique sources defeat the on-disk compile cache, so builds take
    // real time while the other threads' commands run.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let cl = &cl;
            s.spawn(move || {
                for r in 0..ROUNDS {
                    let k = t * 100 + r + 1;
                    let source = format!(
                        "// {nonce}\n\
                         kernel void f(global const uint* in, global uint* out) {{\n\
                             size_t i = get_global_id(0);\n\
                             out[i] = in[i] * {k}u + {t}u;\n\
                         }}"
                    );
                    let kernel = cl.kernel(&source, "f");
                    let input: Vec<u32> = (0..ITEMS as u32).map(|i| i ^ k).collect();
                    let din = cl.buffer::<u32>(ITEMS);
                    let dout = cl.buffer::<u32>(ITEMS);
                    cl.queue.write(&din, 0, &input);
                    kernel.arg(0, &din).arg(1, &dout);
                    // No clFinish: the blocking read orders after the launch.
                    cl.queue
                        .try_enqueue(&kernel, None, &[ITEMS], None)
                        .expect("clEnqueueNDRangeKernel");
                    let want: Vec<u32> = input.iter().map(|x| x.wrapping_mul(k) + t).collect();
                    assert_eq!(cl.queue.read(&dout), want, "thread {t} round {r}");
                }
            });
        }
    });
}

/// `ferrocl-stress` (src/bin/ferrocl-stress.rs) reports a hang: with
/// thread 0 stopped on purpose, the others wait for it, and the watchdog
/// must exit with status 3 naming where each thread is.
#[test]
fn stress_tool_watchdog_reports_a_stalled_thread() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferrocl-stress"))
        .args(["--stall-at", "3", "--hang-after", "3", "--seconds", "60"])
        .args(["--threads", "4", "--quiet"])
        .output()
        .expect("run ferrocl-stress");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "exit status; stderr: {err}");
    assert!(err.contains("HANG"), "{err}");
    assert!(
        err.contains("thread  0: round 3, stalled on purpose"),
        "{err}"
    );
}
