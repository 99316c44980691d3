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
//! Layer: foundation, below every OpenCL object type.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

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

extern "C" fn at_exit() {
    // Registered several times: the first call (the latest registration,
    // before the teardown of whatever the driver loaded last) does it.
    if EXITING.swap(true, Ordering::AcqRel) {
        return;
    }
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
