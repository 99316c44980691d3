//! Test hook: a fake device loss. `FERROCL_FAULT_LOST_AT_SUBMIT=N` makes
//! the Nth vkQueueSubmit of the process's queues (counted from 1) fail
//! with VK_ERROR_DEVICE_LOST instead of submitting, so that the lost-device
//! paths (`queue`, `device::Device::is_lost`) can be tested on a device
//! that never loses itself (tests/tests/device_loss.rs). Unset, it costs
//! one load of a `OnceLock` per submission.
//!
//! Layer: Vulkan execution (`crate::vk`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Whether this submission is the one to fail.
pub fn submit_fails() -> bool {
    static AT: OnceLock<Option<u64>> = OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let at = *AT.get_or_init(|| {
        std::env::var("FERROCL_FAULT_LOST_AT_SUBMIT")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    at.is_some_and(|n| COUNT.fetch_add(1, Ordering::Relaxed) + 1 == n)
}
