//! Counts of live Vulkan-backed objects, for leak checks (`ferrocl-soak`):
//! buffers (each a VkBuffer with its memory), images (VkImage, views,
//! memory), buffer views, kernel pipeline sets (shader module, layout,
//! pipelines) and queue engines (command pools, fences, threads). Each
//! wrapper holds a [`Live`] token: created with the object, dropped with
//! it. Read only through the debug entry point the ICD gives while
//! FERROCL_LOG is set (`icd/src/lib.rs`): no public API.

use std::sync::atomic::{AtomicI64, Ordering};

/// What a token counts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Buffer = 0,
    Image = 1,
    BufferView = 2,
    KernelPipelines = 3,
    QueueEngine = 4,
}

/// The number of kinds (the length of [`counts`]).
pub const KINDS: usize = 5;

static LIVE: [AtomicI64; KINDS] = [const { AtomicI64::new(0) }; KINDS];

/// One live object of a kind.
#[derive(Debug)]
pub struct Live(Kind);

impl Live {
    pub fn new(kind: Kind) -> Live {
        LIVE[kind as usize].fetch_add(1, Ordering::Relaxed);
        Live(kind)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        LIVE[self.0 as usize].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Live objects of each kind, in [`Kind`] order.
pub fn counts() -> [i64; KINDS] {
    std::array::from_fn(|i| LIVE[i].load(Ordering::Relaxed))
}
