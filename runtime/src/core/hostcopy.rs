//! Host-side copies between application memory and staging memory.
//!
//! One core's memcpy (about 10 GB/s) is slower than a PCIe 5 DMA, so a
//! large transfer's host half is split over several threads: reads and
//! writes of tens of MiB then run at the speed of the bus rather than of
//! one core.
//!
//! Layer: foundation (no object, no device): used by the memory, residency
//! and transfer layers.

/// Below this, one thread copies (threads cost more than they save).
const PARALLEL_FROM: usize = 4 << 20;
/// At most this many threads per copy.
const MAX_THREADS: usize = 8;

fn threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get() / 2)
            .unwrap_or(1)
            .clamp(1, MAX_THREADS)
    })
}

/// Copies `len` bytes from `src` to `dst`, in parallel when large.
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping`: `src` readable and `dst` writable
/// for `len` bytes, the ranges disjoint, neither touched by anything else
/// until this returns.
pub unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    let n = threads();
    if len < PARALLEL_FROM || n == 1 {
        // SAFETY: caller contract.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
        return;
    }
    // Parts of whole 4 KiB pages, so no two threads share a page.
    let part = len.div_ceil(n).next_multiple_of(4096);
    let (s, d) = (src as usize, dst as usize);
    let spawned = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for start in (part..len).step_by(part) {
            let n = part.min(len - start);
            let h = std::thread::Builder::new().spawn_scoped(scope, move || {
                // SAFETY: a disjoint sub-range of the caller's ranges.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (s + start) as *const u8,
                        (d + start) as *mut u8,
                        n,
                    )
                }
            });
            match h {
                Ok(h) => handles.push(h),
                // No thread: copy this part here.
                // SAFETY: as above.
                Err(_) => unsafe {
                    std::ptr::copy_nonoverlapping(
                        (s + start) as *const u8,
                        (d + start) as *mut u8,
                        n,
                    )
                },
            }
        }
        // SAFETY: the first part, on this thread.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, part.min(len)) };
        handles.into_iter().all(|h| h.join().is_ok())
    });
    debug_assert!(spawned, "a copy thread panicked");
}

#[cfg(test)]
mod tests {
    #[test]
    fn large_and_small_copies_are_exact() {
        for len in [0usize, 1, 4095, 4 << 20, (9 << 20) + 123] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4096) as u8).collect();
            let mut dst = vec![0u8; len];
            // SAFETY: distinct vectors of `len` bytes.
            unsafe { super::copy(src.as_ptr(), dst.as_mut_ptr(), len) };
            assert!(src == dst, "len {len}");
        }
    }
}
