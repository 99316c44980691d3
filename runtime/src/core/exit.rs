//! Process exit: what ferrocl must not do once `exit()` has begun.
//!
//! At exit the C runtime runs `atexit` handlers and library destructors in
//! the reverse order of their registration. A Vulkan driver loaded after
//! the application's libraries (ferrocl loads it when the platform is
//! first used) is torn down *before* the destructors of those libraries
//! run; a library that releases its cached OpenCL objects there (CLBlast's
//! program cache does: its static destructors release programs, kernels
//! and through them the last reference to a context) would make ferrocl
//! destroy Vulkan objects of a driver that no longer exists: SIGSEGV at
//! exit (seen with NVIDIA's driver).
//!
//! [`watch`] registers a handler that runs before the driver's teardown
//! (it is registered after the driver was loaded: after the Vulkan
//! instance and each device are created, and again after the first
//! pipeline is made, when a driver may load its shader compiler); the
//! first time it runs, [`exiting`] becomes true and the hooks of
//! [`on_exit`] run (the background pipeline worker stops there and waits
//! for the compile in progress, `super::prewarm`); from then on
//! clRelease* keeps the objects it would free (`super::object::release`):
//! the process is ending, the memory goes with it.
//!
//! ferrocl's own threads (each queue's submitter and completer) call
//! Vulkan on their own schedule, so `exit()` on an application thread can
//! begin while one of them is inside the driver, and die there when the
//! driver is torn down (SIGSEGV on the H200: `release_at_exit::
//! exit_while_queues_work_is_clean`, 2 of 2 runs before this guard; and
//! `ferrocl-stress` under a faked device loss, whose completer was stuck
//! in the driver). Such a thread holds a [`Busy`] around each stretch of
//! Vulkan work ([`background_work`]); the handler closes the door (a
//! thread that asks later gets `None` and parks for good, [`park_forever`])
//! and waits for those inside to leave, at most [`EXIT_WAIT`] (a stretch
//! that waits for the device gives up its wait when it finds the process
//! exiting, `crate::vk::queue`).
//!
//! Layer: foundation, below every OpenCL object type.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static EXITING: AtomicBool = AtomicBool::new(false);

/// What runs once when the process begins to exit ([`on_exit`]).
static HOOKS: Mutex<Vec<fn()>> = Mutex::new(Vec::new());

/// Handlers registered so far ([`watch`] stops at [`MAX_WATCHES`]).
static WATCHES: AtomicU32 = AtomicU32::new(0);

/// A process creates one instance and a few devices: a handler per
/// creation, bounded so that a program making devices in a loop does not
/// fill the C runtime's handler table.
const MAX_WATCHES: u32 = 16;

/// Whether the process has begun to exit.
pub fn exiting() -> bool {
    EXITING.load(Ordering::Acquire)
}

extern "C" {
    fn atexit(f: extern "C" fn()) -> i32;
}

/// Stretches of background Vulkan work in progress, with [`CLOSED`] set
/// once the process has begun to exit.
static BUSY: AtomicU64 = AtomicU64::new(0);
const CLOSED: u64 = 1 << 63;

/// The longest the exit handler waits for background work to end: a
/// device wait is sliced into at most 250 ms, and a stretch blocked on
/// something else (a user event) must not hold the process's exit.
pub const EXIT_WAIT: Duration = Duration::from_secs(2);

thread_local! {
    /// [`Busy`] guards this thread holds (a callback run by a background
    /// thread may call `exit()` itself: the handler does not wait for it).
    static HELD: Cell<u64> = const { Cell::new(0) };
}

/// A stretch of Vulkan work by one of ferrocl's own threads
/// ([`background_work`]); dropping it ends the stretch.
pub struct Busy(());

impl Drop for Busy {
    fn drop(&mut self) {
        HELD.with(|h| h.set(h.get() - 1));
        BUSY.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Begins a stretch of Vulkan work on a ferrocl thread; `None` once the
/// process has begun to exit (the thread must not call Vulkan again:
/// [`park_forever`]).
pub fn background_work() -> Option<Busy> {
    if BUSY.fetch_add(1, Ordering::SeqCst) & CLOSED != 0 {
        BUSY.fetch_sub(1, Ordering::SeqCst);
        return None;
    }
    HELD.with(|h| h.set(h.get() + 1));
    Some(Busy(()))
}

/// Where a ferrocl thread ends once the process exits: it keeps what it
/// holds (the driver is being torn down) until the process is gone.
pub fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

/// Closes the door to background work and waits (at most [`EXIT_WAIT`])
/// for the stretches in progress on other threads to end.
fn close_background_work() {
    let own = HELD.with(Cell::get);
    let before = BUSY.fetch_or(CLOSED, Ordering::SeqCst);
    if before & !CLOSED == own {
        return;
    }
    let start = Instant::now();
    while BUSY.load(Ordering::SeqCst) & !CLOSED > own && start.elapsed() < EXIT_WAIT {
        std::thread::sleep(Duration::from_micros(200));
    }
}

extern "C" fn at_exit() {
    // Registered several times: the first call (the latest registration,
    // before the teardown of whatever the driver loaded last) does it.
    if EXITING.swap(true, Ordering::AcqRel) {
        return;
    }
    close_background_work();
    let hooks = HOOKS.lock().map(|h| h.clone()).unwrap_or_default();
    for h in hooks {
        h();
    }
}

/// Runs `hook` once when the process begins to exit, before the Vulkan
/// driver's teardown. `hook` must not call Vulkan.
pub fn on_exit(hook: fn()) {
    if let Ok(mut h) = HOOKS.lock() {
        if !h.contains(&hook) {
            h.push(hook);
        }
    }
}

/// [`watch`] the first time `done` is found unset (e.g. once after the
/// first pipeline is made).
pub fn watch_once(done: &AtomicBool) {
    if !done.load(Ordering::Acquire) && !done.swap(true, Ordering::AcqRel) {
        watch();
    }
}

/// Registers the exit handler again: call right after loading more of the
/// Vulkan driver (creating the instance, a device), so that the handler
/// runs before that part's teardown.
pub fn watch() {
    if WATCHES.fetch_add(1, Ordering::AcqRel) < MAX_WATCHES {
        // SAFETY: registers a plain function that only stores a flag.
        unsafe { atexit(at_exit) };
    }
}
