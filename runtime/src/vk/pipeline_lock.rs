//! The lock under which a device's shader modules and pipelines are
//! created and destroyed, one at a time (`super::device::Device::
//! pipeline_lock` says why), with two priorities: work an application
//! thread waits for now (a launch's pipeline, clCreateKernel's module,
//! releases) goes before background work (`crate::core::prewarm`'s
//! worker). A thread that needs the lock now therefore waits for the
//! creation in progress, if any, and for other threads that need it now,
//! never for the worker's queue: while one of them waits, the worker
//! starts nothing.
//!
//! Each grant gets a number (1, 2, ...) and the count of background
//! grants before it, so tests can see in which order creations ran.

use std::thread::ThreadId;

use parking_lot::{Condvar, Mutex};

/// Who is waiting for the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// An application thread (a launch, clCreateKernel, a release).
    Now,
    /// The background worker: only when no `Now` waiter is there.
    Background,
}

#[derive(Default)]
struct State {
    held: bool,
    /// `Now` waiters not granted yet (few: one per application thread).
    waiting_now: Vec<ThreadId>,
    /// Grants so far, and those of them to `Background` callers.
    grants: u64,
    background_grants: u64,
}

/// One device's lock (module doc).
#[derive(Default)]
pub struct PipelineLock {
    state: Mutex<State>,
    released: Condvar,
}

/// Holds the lock until dropped.
pub struct PipelineGuard<'a> {
    lock: &'a PipelineLock,
    grant: u64,
    background_before: u64,
}

impl PipelineGuard<'_> {
    /// The number of this grant (the first is 1).
    pub fn grant(&self) -> u64 {
        self.grant
    }

    /// How many grants before this one went to `Background` callers.
    pub fn background_before(&self) -> u64 {
        self.background_before
    }
}

impl PipelineLock {
    /// Waits for the lock: while it is held, and for `Background` also
    /// while any `Now` caller waits.
    pub fn lock(&self, priority: Priority) -> PipelineGuard<'_> {
        let mut st = self.state.lock();
        let background_before = st.background_grants;
        if priority == Priority::Now {
            let me = std::thread::current().id();
            st.waiting_now.push(me);
            while st.held {
                self.released.wait(&mut st);
            }
            st.waiting_now.retain(|t| *t != me);
        } else {
            while st.held || !st.waiting_now.is_empty() {
                self.released.wait(&mut st);
            }
            st.background_grants += 1;
        }
        st.held = true;
        st.grants += 1;
        PipelineGuard {
            lock: self,
            grant: st.grants,
            // Background grants cannot happen while a `Now` caller
            // waits: the count when it came is the count before its grant.
            background_before,
        }
    }

    /// How many grants there were so far, and how many of them went to
    /// `Background` callers (tests).
    pub fn grants(&self) -> (u64, u64) {
        let st = self.state.lock();
        (st.grants, st.background_grants)
    }

    /// Whether `thread` waits for the lock with `Priority::Now` (tests).
    pub fn is_waiting_now(&self, thread: ThreadId) -> bool {
        self.state.lock().waiting_now.contains(&thread)
    }
}

impl Drop for PipelineGuard<'_> {
    fn drop(&mut self) {
        self.lock.state.lock().held = false;
        // Both kinds of waiter share the condition variable; each checks
        // its own rule.
        self.lock.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    /// Whether `cond` came to hold within 20 s.
    fn wait_until(cond: impl Fn() -> bool) -> bool {
        let t = Instant::now();
        while !cond() {
            if t.elapsed() > Duration::from_secs(20) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }

    #[test]
    fn a_waiter_that_needs_it_now_goes_before_background_waiters() {
        let lock = PipelineLock::default();
        let background_grant = AtomicU64::new(0);
        let now_grant = AtomicU64::new(0);
        let held = lock.lock(Priority::Now);
        assert_eq!(held.grant(), 1);
        std::thread::scope(|s| {
            s.spawn(|| {
                let g = lock.lock(Priority::Background);
                background_grant.store(g.grant(), Ordering::SeqCst);
            });
            // The background waiter comes first (most likely), and waits.
            std::thread::sleep(Duration::from_millis(20));
            let now = s.spawn(|| {
                let g = lock.lock(Priority::Now);
                now_grant.store(g.grant(), Ordering::SeqCst);
                assert_eq!(g.background_before(), 0);
            });
            let id = now.thread().id();
            let waiting = wait_until(|| lock.is_waiting_now(id));
            // Let go before asserting: a failure must not leave the
            // threads waiting.
            drop(held);
            assert!(waiting, "the Now caller waited");
        });
        assert_eq!(now_grant.load(Ordering::SeqCst), 2);
        assert_eq!(background_grant.load(Ordering::SeqCst), 3);
        assert_eq!(lock.grants(), (3, 1));
        assert!(!lock.is_waiting_now(std::thread::current().id()));
    }

    #[test]
    fn background_waiters_get_it_when_nobody_needs_it_now() {
        let lock = PipelineLock::default();
        let g = lock.lock(Priority::Background);
        assert_eq!((g.grant(), g.background_before()), (1, 0));
        drop(g);
        let g = lock.lock(Priority::Background);
        assert_eq!((g.grant(), g.background_before()), (2, 1));
        drop(g);
        let g = lock.lock(Priority::Now);
        assert_eq!((g.grant(), g.background_before()), (3, 2));
    }
}
