//! ferrocl-stress: many threads, each with its own queue (in-order or
//! out-of-order, by the seed), chaining events across queues, for as long
//! as asked; every result is checked exactly.
//!
//! ```text
//! ferrocl-stress [--seed S] [--seconds D] [--threads T] [--hang-after H] [--quiet]
//! ferrocl-stress --stall-at R ...   thread 0 stops at round R (checks the watchdog)
//! ```
//!
//! Thread `t` owns a buffer whose contents follow a deterministic sequence
//! of kernels (a CPU model computes the same values) and writes a shared
//! buffer that thread `t + 1` reads. Each round of thread `t`:
//! 1. creates a user event and launches a `step` of its buffer waiting for
//!    it; the user event goes to thread `t + 2`, which sets it, and a
//!    callback on the step's event enqueues an atomic increment on the
//!    queue (from ferrocl's completion thread);
//! 2. writes its shared buffer after thread `t + 1`'s read of the last
//!    round (a wait list holding another queue's event), publishing the
//!    write's event;
//! 3. mixes thread `t - 1`'s shared buffer into its own after that
//!    thread's write (another queue's event again), publishing the read's
//!    event;
//! 4. does zero to three of: another step, a marker, a barrier, a mapped
//!    write from the host;
//! 5. maps its buffer (blocking) and compares it with the model.
//!
//! Out-of-order queues chain their own commands with wait lists (or
//! through markers and barriers); in-order queues rely on the queue order.
//! A third of the queues have profiling on.
//! When every thread has run the same number of rounds, the callbacks'
//! counters are checked. A watchdog prints where each thread is and exits
//! with 3 when no thread has moved for `--hang-after` seconds (default
//! 120). Exit status: 0 all exact, 1 a wrong value or error code, 2 usage,
//! 3 hang.

use std::collections::HashMap;
use std::ffi::c_void;
use std::process::ExitCode;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use ferrocl_tests::events::{raw_list, Event, RawQueue};
use ferrocl_tests::fuzz::rng::Rng;
use ferrocl_tests::sys::*;
use ferrocl_tests::{error_name, Buffer, Cl, Kernel};

const SOURCE: &str = r#"
kernel void step(global uint* a, uint mul, uint add) {
    uint i = get_global_id(0);
    a[i] = a[i] * mul + add + i;
}
kernel void produce(global uint* s, uint v) {
    uint i = get_global_id(0);
    s[i] = (v ^ (i * 2654435761u)) + i;
}
kernel void mix(global uint* a, global const uint* s, uint k) {
    uint i = get_global_id(0);
    a[i] = (a[i] ^ (s[i] + k)) * 3u + 1u;
}
kernel void bump(global uint* c) {
    atomic_inc(&c[get_global_id(0)]);
}
"#;

/// Words per buffer (one work-item each).
const N: usize = 1024;

struct Args {
    seed: u64,
    seconds: f64,
    threads: usize,
    hang_after: u64,
    quiet: bool,
    stall_at: Option<u64>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        seed: 1,
        seconds: 60.0,
        threads: 16,
        hang_after: 120,
        quiet: false,
        stall_at: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--seed" => a.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--seconds" => a.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--threads" => a.threads = value()?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--hang-after" => {
                a.hang_after = value()?.parse().map_err(|e| format!("--hang-after: {e}"))?
            }
            "--quiet" => a.quiet = true,
            "--stall-at" => {
                a.stall_at = Some(value()?.parse().map_err(|e| format!("--stall-at: {e}"))?)
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    if a.threads < 3 {
        return Err("--threads must be at least 3".into());
    }
    Ok(a)
}

/// The value `produce` writes at word `i` for thread `t`'s round `r`.
fn produced(seed: u64, t: usize, r: u64, i: u32) -> u32 {
    let v = produce_arg(seed, t, r);
    (v ^ i.wrapping_mul(2_654_435_761)).wrapping_add(i)
}

fn produce_arg(seed: u64, t: usize, r: u64) -> u32 {
    Rng::for_item(seed ^ 0x5eed, (t as u64) << 32 | r).next_u64() as u32
}

/// Events and user events handed from one thread to another, by
/// (kind, producing thread, round).
#[derive(Default)]
struct Mailbox {
    slots: Mutex<HashMap<(char, usize, u64), Event>>,
    cv: Condvar,
}

impl Mailbox {
    fn put(&self, key: (char, usize, u64), e: Event) {
        self.slots.lock().unwrap().insert(key, e);
        self.cv.notify_all();
    }

    fn take(&self, key: (char, usize, u64)) -> Event {
        let mut slots = self.slots.lock().unwrap();
        loop {
            if let Some(e) = slots.remove(&key) {
                return e;
            }
            slots = self.cv.wait(slots).unwrap();
        }
    }
}

/// Where each thread is, for the watchdog.
struct Progress {
    at: Mutex<Vec<(u64, &'static str)>>,
    ticks: AtomicU64,
}

impl Progress {
    fn note(&self, t: usize, round: u64, what: &'static str) {
        self.at.lock().unwrap()[t] = (round, what);
        self.ticks.fetch_add(1, Ordering::Relaxed);
    }
}

/// Round bookkeeping: every thread runs rounds `0..last`.
struct Rounds {
    /// (round each thread is in, the last round once decided).
    state: Mutex<(Vec<u64>, Option<u64>)>,
}

impl Rounds {
    /// Thread `t` may start round `r` (false: the run is over).
    fn start(&self, t: usize, r: u64) -> bool {
        let mut s = self.state.lock().unwrap();
        if s.1.is_some_and(|last| r >= last) {
            return false;
        }
        s.0[t] = r;
        true
    }

    /// Ends the run after the rounds already started.
    fn stop(&self) {
        let mut s = self.state.lock().unwrap();
        if s.1.is_none() {
            s.1 = Some(s.0.iter().max().copied().unwrap_or(0) + 1);
        }
    }
}

struct Shared<'a> {
    cl: &'a Cl,
    program: &'a ferrocl_tests::Program,
    seed: u64,
    threads: usize,
    shared: Vec<Buffer<u32>>,
    counters: Vec<Buffer<u32>>,
    mail: Mailbox,
    progress: Progress,
    rounds: Rounds,
    commands: AtomicU64,
    failed: AtomicBool,
    stall_at: Option<u64>,
}

/// What a callback needs: the queue to enqueue on, the kernel and the
/// count of callbacks that ran.
struct Callback {
    queue: cl_command_queue,
    bump: cl_kernel,
    fired: *const AtomicUsize,
    bad_status: *const AtomicUsize,
}

extern "C" fn on_complete(_event: cl_event, status: cl_int, data: *mut c_void) {
    // SAFETY: `data` is the Box made at registration, given to one callback.
    let cb = unsafe { Box::from_raw(data.cast::<Callback>()) };
    // SAFETY: the thread that registered the callback waits for it before
    // its counters, queue and kernel go away.
    let (fired, bad) = unsafe { (&*cb.fired, &*cb.bad_status) };
    if status != CL_COMPLETE {
        bad.fetch_add(1, Ordering::Relaxed);
    }
    let n = N;
    // SAFETY: live queue and kernel (see above), one dimension, no events.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            cb.queue,
            cb.bump,
            1,
            ptr::null(),
            &n,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    if s != CL_SUCCESS {
        bad.fetch_add(1, Ordering::Relaxed);
    }
    fired.fetch_add(1, Ordering::Release);
}

/// Reports the first failure and exits with `code`; a thread that fails
/// after it waits for the exit (exit() must run once).
fn exit_once(sh: &Shared, code: i32, report: impl FnOnce()) -> ! {
    if sh.failed.swap(true, Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    report();
    std::process::exit(code);
}

fn fail(sh: &Shared, msg: String) -> ! {
    exit_once(sh, 1, || {
        eprintln!("ferrocl-stress: FAILED (seed {}): {msg}", sh.seed)
    })
}

fn ok(sh: &Shared, s: cl_int, what: &str, t: usize, r: u64) {
    if s != CL_SUCCESS {
        fail(
            sh,
            format!("thread {t} round {r}: {what} returned {}", error_name(s)),
        );
    }
}

/// One thread's queue and the last command on its own buffer (out-of-order
/// queues chain through it).
struct Lane {
    q: RawQueue,
    ooo: bool,
    prev: Option<Event>,
}

impl Lane {
    /// The wait list of a command on the own buffer: `extra` plus, in an
    /// out-of-order queue, the previous such command.
    fn waits<'e>(&'e self, extra: &[&'e Event]) -> Vec<cl_event> {
        let mut v: Vec<&Event> = extra.to_vec();
        if self.ooo {
            v.extend(self.prev.as_ref());
        }
        raw_list(&v)
    }
}

fn launch(
    sh: &Shared,
    lane: &Lane,
    k: &Kernel,
    waits: &[cl_event],
    t: usize,
    r: u64,
    what: &str,
) -> Event {
    let n = N;
    let mut ev = ptr::null_mut();
    // SAFETY: valid queue and kernel, one dimension, live events.
    let s = unsafe {
        clEnqueueNDRangeKernel(
            lane.q.0,
            k.raw(),
            1,
            ptr::null(),
            &n,
            ptr::null(),
            waits.len() as cl_uint,
            if waits.is_empty() {
                ptr::null()
            } else {
                waits.as_ptr()
            },
            &mut ev,
        )
    };
    ok(sh, s, what, t, r);
    sh.commands.fetch_add(1, Ordering::Relaxed);
    Event(ev)
}

/// Maps the own buffer after `waits`; returns the pointer and the map
/// event (blocking maps return a completed one).
fn map(
    sh: &Shared,
    lane: &Lane,
    buf: &Buffer<u32>,
    flags: cl_map_flags,
    waits: &[cl_event],
    t: usize,
    r: u64,
) -> (*mut u32, Event) {
    let mut ev = ptr::null_mut();
    let mut s = CL_SUCCESS;
    // SAFETY: valid queue and buffer, the whole buffer, live events.
    let p = unsafe {
        clEnqueueMapBuffer(
            lane.q.0,
            buf.raw(),
            CL_TRUE,
            flags,
            0,
            4 * N,
            waits.len() as cl_uint,
            if waits.is_empty() {
                ptr::null()
            } else {
                waits.as_ptr()
            },
            &mut ev,
            &mut s,
        )
    };
    ok(sh, s, "clEnqueueMapBuffer", t, r);
    sh.commands.fetch_add(1, Ordering::Relaxed);
    (p.cast(), Event(ev))
}

fn unmap(sh: &Shared, lane: &Lane, buf: &Buffer<u32>, p: *mut u32, t: usize, r: u64) -> Event {
    let mut ev = ptr::null_mut();
    // SAFETY: `p` was returned by a map of `buf` on this queue.
    let s =
        unsafe { clEnqueueUnmapMemObject(lane.q.0, buf.raw(), p.cast(), 0, ptr::null(), &mut ev) };
    ok(sh, s, "clEnqueueUnmapMemObject", t, r);
    sh.commands.fetch_add(1, Ordering::Relaxed);
    Event(ev)
}

/// A marker or barrier after `waits` (none: after everything before).
fn sync_point(
    sh: &Shared,
    lane: &Lane,
    barrier: bool,
    waits: &[cl_event],
    t: usize,
    r: u64,
) -> Event {
    let mut ev = ptr::null_mut();
    let list = if waits.is_empty() {
        ptr::null()
    } else {
        waits.as_ptr()
    };
    // SAFETY: valid queue, live events.
    let s = unsafe {
        if barrier {
            clEnqueueBarrierWithWaitList(lane.q.0, waits.len() as cl_uint, list, &mut ev)
        } else {
            clEnqueueMarkerWithWaitList(lane.q.0, waits.len() as cl_uint, list, &mut ev)
        }
    };
    ok(sh, s, if barrier { "barrier" } else { "marker" }, t, r);
    sh.commands.fetch_add(1, Ordering::Relaxed);
    Event(ev)
}

/// Thread `t`'s whole run; returns its round count.
fn worker(sh: &Shared, t: usize) -> u64 {
    let n = sh.threads;
    let mut rng = Rng::for_item(sh.seed, t as u64);
    let ooo = rng.below(2) == 1;
    // A third of the queues measure every command (timestamp queries).
    let profiling = rng.below(3) == 0;
    let props = if ooo {
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
    } else {
        0
    } | if profiling {
        CL_QUEUE_PROFILING_ENABLE
    } else {
        0
    };
    let mut lane = Lane {
        q: RawQueue::new(&sh.cl.context, props),
        ooo,
        prev: None,
    };
    let p = sh.program;
    let (step, produce, mix, bump) = (
        p.kernel("step"),
        p.kernel("produce"),
        p.kernel("mix"),
        p.kernel("bump"),
    );
    bump.arg(0, &sh.counters[t]);
    let init: Vec<u32> = (0..N as u32)
        .map(|i| i.wrapping_mul(t as u32 + 7))
        .collect();
    let own = sh.cl.buffer_from(&init);
    let mut model = init;
    let fired = AtomicUsize::new(0);
    let bad_status = AtomicUsize::new(0);
    let mut registered = 0usize;
    let (next, prev_t, setter_of) = ((t + 1) % n, (t + n - 1) % n, (t + n - 2) % n);
    let mut r = 0u64;
    while sh.rounds.start(t, r) {
        let pr = &sh.progress;
        if t == 0 && sh.stall_at == Some(r) {
            pr.note(t, r, "stalled on purpose (--stall-at)");
            loop {
                std::thread::park();
            }
        }
        // 1. A step waiting for a user event that thread t + 2 sets.
        pr.note(t, r, "step after user event");
        let user = Event::user(&sh.cl.context);
        let (mul, add) = (rng.next_u64() as u32 | 1, rng.next_u64() as u32);
        step.arg(0, &own).arg(1, &mul).arg(2, &add);
        let w = lane.waits(&[&user]);
        let s1 = launch(sh, &lane, &step, &w, t, r, "step");
        for (i, m) in model.iter_mut().enumerate() {
            *m = m.wrapping_mul(mul).wrapping_add(add).wrapping_add(i as u32);
        }
        let data = Box::into_raw(Box::new(Callback {
            queue: lane.q.0,
            bump: bump.raw(),
            fired: &fired,
            bad_status: &bad_status,
        }));
        // SAFETY: live event; the callback owns `data`.
        let s = unsafe { clSetEventCallback(s1.0, CL_COMPLETE, Some(on_complete), data.cast()) };
        ok(sh, s, "clSetEventCallback", t, r);
        registered += 1;
        lane.prev = Some(s1);
        sh.mail.put(('u', t, r), user);
        pr.note(t, r, "waiting for the user event of thread t-2");
        let theirs = sh.mail.take(('u', setter_of, r));
        // 2. Write the shared buffer once thread t + 1 has read last round's.
        pr.note(t, r, "waiting for thread t+1's read of the last round");
        let read = (r > 0).then(|| sh.mail.take(('r', next, r - 1)));
        // Sometimes the user event is set only now.
        let late = rng.below(2) == 0;
        if !late {
            theirs.set(CL_COMPLETE);
        }
        pr.note(t, r, "produce");
        let v = produce_arg(sh.seed, t, r);
        produce.arg(0, &sh.shared[t]).arg(1, &v);
        let w = raw_list(&read.iter().collect::<Vec<_>>());
        let written = launch(sh, &lane, &produce, &w, t, r, "produce");
        sh.mail.put(('w', t, r), written);
        if late {
            // SAFETY: valid queue.
            ok(sh, unsafe { clFlush(lane.q.0) }, "clFlush", t, r);
            theirs.set(CL_COMPLETE);
        }
        drop(theirs);
        // 3. Mix in thread t - 1's shared buffer after its write.
        pr.note(t, r, "waiting for thread t-1's write");
        let theirs = sh.mail.take(('w', prev_t, r));
        let k = rng.next_u64() as u32;
        mix.arg(0, &own).arg(1, &sh.shared[prev_t]).arg(2, &k);
        pr.note(t, r, "mix");
        let w = lane.waits(&[&theirs]);
        let mixed = launch(sh, &lane, &mix, &w, t, r, "mix");
        for (i, m) in model.iter_mut().enumerate() {
            let s = produced(sh.seed, prev_t, r, i as u32);
            *m = (*m ^ s.wrapping_add(k)).wrapping_mul(3).wrapping_add(1);
        }
        // SAFETY: one more reference for the reader's mailbox entry.
        ok(sh, unsafe { clRetainEvent(mixed.0) }, "clRetainEvent", t, r);
        sh.mail.put(('r', t, r), Event(mixed.0));
        lane.prev = Some(mixed);
        drop(theirs);
        // 4. Extras.
        for _ in 0..rng.below(4) {
            match rng.below(4) {
                0 => {
                    pr.note(t, r, "extra step");
                    let (mul, add) = (rng.next_u64() as u32 | 1, rng.next_u64() as u32);
                    step.arg(0, &own).arg(1, &mul).arg(2, &add);
                    let w = lane.waits(&[]);
                    lane.prev = Some(launch(sh, &lane, &step, &w, t, r, "extra step"));
                    for (i, m) in model.iter_mut().enumerate() {
                        *m = m.wrapping_mul(mul).wrapping_add(add).wrapping_add(i as u32);
                    }
                }
                c @ (1 | 2) => {
                    pr.note(t, r, "marker or barrier");
                    let barrier = c == 2;
                    // A barrier without a wait list orders after everything
                    // before it, in both kinds of queue.
                    let w = if barrier { Vec::new() } else { lane.waits(&[]) };
                    let e = sync_point(sh, &lane, barrier, &w, t, r);
                    lane.prev = Some(e);
                }
                _ => {
                    pr.note(t, r, "mapped write");
                    let w = lane.waits(&[]);
                    let (p, _ev) = map(sh, &lane, &own, CL_MAP_READ | CL_MAP_WRITE, &w, t, r);
                    let add = rng.next_u64() as u32;
                    // SAFETY: a blocking map of the whole buffer: N words.
                    let host = unsafe { std::slice::from_raw_parts_mut(p, N) };
                    for (h, m) in host.iter_mut().zip(model.iter_mut()) {
                        *h = h.wrapping_add(add);
                        *m = m.wrapping_add(add);
                    }
                    lane.prev = Some(unmap(sh, &lane, &own, p, t, r));
                }
            }
        }
        // 5. Check.
        pr.note(t, r, "blocking map to check");
        let w = lane.waits(&[]);
        let (p, _ev) = map(sh, &lane, &own, CL_MAP_READ, &w, t, r);
        // SAFETY: a blocking map of the whole buffer: N words.
        let host = unsafe { std::slice::from_raw_parts(p, N) };
        if let Some(i) = (0..N).find(|&i| host[i] != model[i]) {
            fail(
                sh,
                format!(
                    "thread {t} ({}) round {r}: word {i} is {:#x}, expected {:#x}",
                    if ooo { "out-of-order" } else { "in-order" },
                    host[i],
                    model[i]
                ),
            );
        }
        lane.prev = Some(unmap(sh, &lane, &own, p, t, r));
        r += 1;
    }
    // Callbacks: each enqueued one increment of every counter word.
    sh.progress.note(t, r, "waiting for callbacks");
    while fired.load(Ordering::Acquire) < registered {
        std::thread::sleep(Duration::from_millis(1));
    }
    sh.progress.note(t, r, "clFinish");
    lane.q.finish();
    let counts = sh.cl.queue.read(&sh.counters[t]);
    if bad_status.load(Ordering::Relaxed) != 0 {
        fail(sh, format!("thread {t}: a callback saw an error status"));
    }
    if let Some(i) = counts.iter().position(|&c| c as usize != registered) {
        fail(
            sh,
            format!(
                "thread {t}: counter word {i} is {}, expected {registered} (callbacks)",
                counts[i]
            ),
        );
    }
    sh.progress.note(t, r, "done");
    r
}

/// Prints every thread's position and exits with 3 when nothing moved for
/// `hang_after` seconds; returns once `done` is set.
fn watchdog(sh: &Shared, hang_after: u64, done: &AtomicBool) {
    let mut last = (sh.progress.ticks.load(Ordering::Relaxed), Instant::now());
    while !done.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(200));
        let ticks = sh.progress.ticks.load(Ordering::Relaxed);
        if ticks != last.0 {
            last = (ticks, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(hang_after) {
            exit_once(sh, 3, || {
                eprintln!(
                    "ferrocl-stress: HANG (seed {}): no progress for {hang_after} s",
                    sh.seed
                );
                for (t, (r, what)) in sh.progress.at.lock().unwrap().iter().enumerate() {
                    eprintln!("  thread {t:2}: round {r}, {what}");
                }
            });
        }
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ferrocl-stress: {e}");
            return ExitCode::from(2);
        }
    };
    let cl = Cl::new();
    let program = cl.build(SOURCE);
    let sh = Shared {
        cl: &cl,
        program: &program,
        seed: args.seed,
        threads: args.threads,
        shared: (0..args.threads).map(|_| cl.buffer::<u32>(N)).collect(),
        counters: (0..args.threads)
            .map(|_| cl.buffer_from(&[0u32; N]))
            .collect(),
        mail: Mailbox::default(),
        progress: Progress {
            at: Mutex::new(vec![(0, "not started"); args.threads]),
            ticks: AtomicU64::new(0),
        },
        rounds: Rounds {
            state: Mutex::new((vec![0; args.threads], None)),
        },
        commands: AtomicU64::new(0),
        failed: AtomicBool::new(false),
        stall_at: args.stall_at,
    };
    let start = Instant::now();
    let done = AtomicBool::new(false);
    let rounds: Vec<u64> = std::thread::scope(|s| {
        let (sh, done) = (&sh, &done);
        s.spawn(move || watchdog(sh, args.hang_after, done));
        let workers: Vec<_> = (0..args.threads)
            .map(|t| s.spawn(move || worker(sh, t)))
            .collect();
        let mut next_report = 10.0;
        while workers.iter().any(|w| !w.is_finished()) {
            std::thread::sleep(Duration::from_millis(50));
            let secs = start.elapsed().as_secs_f64();
            if secs >= args.seconds {
                sh.rounds.stop();
            }
            if !args.quiet && secs >= next_report {
                eprintln!(
                    "ferrocl-stress: {secs:.0} s, {} commands",
                    sh.commands.load(Ordering::Relaxed)
                );
                next_report += 10.0;
            }
        }
        let r = workers.into_iter().map(|w| w.join().unwrap()).collect();
        done.store(true, Ordering::Release);
        r
    });
    // Reads of the last round nobody waited for.
    sh.mail.slots.lock().unwrap().clear();
    let ooo = (0..args.threads)
        .filter(|&t| Rng::for_item(args.seed, t as u64).below(2) == 1)
        .count();
    println!(
        "ferrocl-stress: seed {}, {} threads ({ooo} out-of-order queues), {} rounds each, \
         {} commands in {:.1} s: all results exact",
        args.seed,
        args.threads,
        rounds[0],
        sh.commands.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
