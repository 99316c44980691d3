//! Objects released while the process exits, after the Vulkan driver has
//! been torn down: what a library's static destructors do (CLBlast's
//! program cache releases its programs and kernels, and through them the
//! last reference to the context, from a C++ destructor that runs after
//! the driver's). The process must still exit with status 0: ferrocl
//! keeps such objects instead of destroying Vulkan objects of a dead
//! driver (runtime/src/core/exit.rs). NVIDIA's driver died with SIGSEGV
//! there (CLBlast's SGEMM through libclblast, scripts/apps/sgemm.c).
//!
//! The same holds while ferrocl's own threads (each queue's submitter and
//! completer) still work: `exit()` on one application thread while others
//! keep enqueuing must not let those threads call into the driver during
//! its teardown (a completer reading timestamps died with SIGSEGV in
//! NVIDIA's library: `ferrocl-stress` with a faked device loss).

use std::sync::Mutex;

use ferrocl_tests::{Buffer, Context, Kernel, Program, Queue};

const CHILD: &str = "FERROCL_TEST_RELEASE_AT_EXIT_CHILD";
const BUSY_CHILD: &str = "FERROCL_TEST_EXIT_WHILE_BUSY_CHILD";

/// Everything the child releases at exit, in the order CLBlast's cache
/// drops it: kernel, program, then the buffer, queue and context.
struct Held {
    kernel: Kernel,
    program: Program,
    buffer: Buffer<u32>,
    queue: Queue,
    context: Context,
}

// SAFETY: OpenCL handles may be used and released from any thread.
unsafe impl Send for Held {}

static HELD: Mutex<Option<Held>> = Mutex::new(None);

extern "C" {
    fn atexit(f: extern "C" fn()) -> i32;
}

extern "C" fn release_everything() {
    if let Some(h) = HELD.lock().ok().and_then(|mut g| g.take()) {
        let Held {
            kernel,
            program,
            buffer,
            queue,
            context,
        } = h;
        drop((kernel, program, buffer, queue, context));
        eprintln!("released at exit");
    }
}

/// The child: registers its exit handler before ferrocl (and through it
/// the Vulkan driver) is loaded, so that it runs after the driver's own
/// teardown, then uses a kernel and leaves everything to that handler.
#[test]
fn child_releases_at_exit() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    // SAFETY: registers a plain function.
    unsafe { atexit(release_everything) };
    let context = Context::new();
    let program = context.build("kernel void fill(global uint* a) { a[get_global_id(0)] = 7u; }");
    let kernel = program.kernel("fill");
    let buffer = context.buffer::<u32>(64);
    let queue = context.queue();
    kernel.arg(0, &buffer);
    queue.run(&kernel, &[64], None);
    assert_eq!(queue.read(&buffer), vec![7u32; 64]);
    *HELD.lock().unwrap() = Some(Held {
        kernel,
        program,
        buffer,
        queue,
        context,
    });
}

#[test]
fn objects_released_after_the_driver_exits_cleanly() {
    let exe = std::env::current_exe().expect("current_exe");
    let out = std::process::Command::new(exe)
        .env(CHILD, "1")
        .args(["--exact", "child_releases_at_exit", "--test-threads", "1"])
        .output()
        .expect("rerun the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child exited with {:?}:\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(stderr.contains("released at exit"), "{stderr}");
}

/// The child: four threads, each with its own profiling queue, enqueue
/// small kernels and wait for them without a pause; after 300 ms the test
/// thread calls `exit(0)` while they (and ferrocl's queue threads) are at
/// work.
#[test]
fn child_exits_while_queues_work() {
    if std::env::var_os(BUSY_CHILD).is_none() {
        return;
    }
    let context = Context::new();
    let program = context.build(
        "kernel void spin(global uint* a) { uint x = get_global_id(0); \
         for (uint i = 0; i < 2000u; i++) x = x * 1664525u + 1013904223u; a[get_global_id(0)] = x; }",
    );
    let context = &context;
    let program = &program;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(move || {
                let queue = context.queue_with(ferrocl_tests::sys::CL_QUEUE_PROFILING_ENABLE);
                let kernel = program.kernel("spin");
                let buffer = context.buffer::<u32>(4096);
                kernel.arg(0, &buffer);
                loop {
                    for _ in 0..8 {
                        let _ = queue.try_enqueue(&kernel, None, &[4096], None);
                    }
                    // SAFETY: valid queue; the result is ignored (the
                    // process is about to exit).
                    unsafe { ferrocl_tests::sys::clFinish(queue.raw()) };
                }
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::process::exit(0);
    });
}

#[test]
fn exit_while_queues_work_is_clean() {
    let exe = std::env::current_exe().expect("current_exe");
    for run in 0..5 {
        let mut child = std::process::Command::new(&exe)
            .env(BUSY_CHILD, "1")
            .args([
                "--exact",
                "child_exits_while_queues_work",
                "--test-threads",
                "1",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("rerun the test binary");
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(st) = child.try_wait().expect("try_wait") {
                break st;
            }
            if start.elapsed() > std::time::Duration::from_secs(60) {
                let _ = child.kill();
                panic!("run {run}: the child did not exit within 60 s of exit()");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(status.success(), "run {run}: child exited with {status}");
    }
}
