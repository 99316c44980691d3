//! The pipelines of kernels with `__local` pointer arguments.
//!
//! Such a kernel's `__local` memory is one Workgroup array whose length is
//! a specialization constant: the size of the arguments' region
//! (`ferrocl_compiler::LOCAL_ARGS_SPEC_ID`; the arguments' offsets in it
//! are push constants, `ferrocl_compiler::abi`, "`__local` memory"). The
//! sizes are known only at clSetKernelArg, but a pipeline with a larger
//! region than a launch needs runs that launch just as well, so:
//!
//! - the *generic* pipeline of a work-group size has the largest region
//!   the device allows ([`generic_region`]); it is one of the pipelines
//!   made ahead of the first launch (`super::prewarm`), so that launch
//!   compiles nothing;
//! - the *exact* pipeline of a launch has its region rounded up to a
//!   [`BUCKET`] ([`exact_region`]): a large Workgroup array limits how many
//!   work-groups a GPU keeps resident (NVIDIA: the SM's shared memory is
//!   split between them), so launches move to it once it is made;
//! - a launch takes the exact pipeline when it is made, else the generic
//!   one (made, or being made ahead: waited for) and queues the exact one
//!   for the background worker; with neither it creates the exact one
//!   itself, as every launch did before (`FERROCL_PREWARM=0` always ends
//!   there: nothing is made ahead).
//!
//! An exact pipeline is queued once per kernel and specialization: if its
//! creation in the background fails, launches keep the generic one.
//!
//! The result never depends on which one ran: the kernel reads its
//! arguments' offsets from push constants either way, and the part of the
//! array past the launch's region is never touched.
//!
//! Buckets of 1 KiB: an application that sizes its `__local` arguments
//! from the work-group size or the problem gets one exact pipeline per
//! KiB at most (48 on a 48 KiB device), and the occupancy given away is
//! under 1 KiB per work-group. GPUs allocate shared memory to a
//! work-group in small granules (NVIDIA also reserves 1 KiB per block
//! since Ampere), so the resident work-groups per SM fall step by step
//! as the size grows: a power-of-two bucket could nearly halve them
//! (17 KiB → 32 KiB) where 1 KiB costs at most a few percent. Not
//! measured on a GPU yet.
//!
//! Layer: programs (beside `super::prewarm`, whose worker makes the
//! pipelines), below kernels (`super::kernel` picks a launch's pipeline
//! here).

use std::sync::Arc;

use ash::vk;
use ferrocl_compiler::{local_args_base, LOCAL_ARGS_SPEC_ID, LOCAL_ARG_MIN_ALIGN};

use super::device::Device;
use super::error::CLResult;
use super::prewarm;
use crate::vk::pipeline::{describe, KernelPipelines, Variant};

/// Exact pipelines' regions are multiples of this many bytes (module doc).
pub const BUCKET: u32 = 1024;

/// Bytes of Workgroup memory a kernel may use beside its one array: the
/// lowering's fence word (`passes::lower::atomic`), rounded up.
pub const BESIDE_ARRAY: u32 = 16;

/// The region of the generic pipeline of a kernel with
/// `static_local_size` bytes of its own `__local` data on `dev`: all of
/// maxComputeSharedMemorySize that the kernel leaves (0 when it leaves
/// nothing).
pub fn generic_region(dev: &Device, static_local_size: u32) -> u32 {
    let max = u32::try_from(dev.local_mem_size()).unwrap_or(u32::MAX);
    max.saturating_sub(local_args_base(static_local_size))
        .saturating_sub(BESIDE_ARRAY)
        / LOCAL_ARG_MIN_ALIGN
        * LOCAL_ARG_MIN_ALIGN
}

/// The region of the exact pipeline of a launch whose arguments take
/// `needed` bytes (a multiple of 16): rounded up to a [`BUCKET`], but not
/// past `generic` (then the generic pipeline is the exact one); a launch
/// that needs more than `generic` gets exactly what it needs. A launch
/// whose arguments need nothing (OpenCL 3.1's zero-size `__local`
/// arguments) gets a bucket too: without `__local` data of its own the
/// kernel's Workgroup array would have no word, which Vulkan does not
/// allow (with such data, `generic` may be 0 and so is the region).
pub fn exact_region(needed: u32, generic: u32) -> u32 {
    if needed > generic {
        needed
    } else {
        needed.max(1).next_multiple_of(BUCKET).min(generic)
    }
}

/// The specialization of a launch's `__local` arguments' region.
pub fn region_spec(region: u32) -> [(u32, u32); 1] {
    [(LOCAL_ARGS_SPEC_ID, region)]
}

/// `spec` (one dispatch's, ending with its [`region_spec`]) with the
/// region `region` instead.
fn with_region(spec: &[(u32, u32)], region: u32) -> Vec<(u32, u32)> {
    spec.iter()
        .map(|&(id, v)| (id, if id == LOCAL_ARGS_SPEC_ID { region } else { v }))
        .collect()
}

/// The pipeline of one dispatch of a kernel with `__local` pointer
/// arguments whose exact specialization is `exact` and whose generic
/// region is `generic` (module doc). After running with the generic
/// pipeline it queues the exact one for the background worker, once.
pub fn pipeline(
    kp: &Arc<KernelPipelines>,
    exact: &[(u32, u32)],
    generic: u32,
) -> CLResult<vk::Pipeline> {
    let generic_spec = with_region(exact, generic);
    if generic_spec == exact {
        return kp.get(exact);
    }
    let (p, variant) = kp.get_either(exact, &generic_spec)?;
    if variant == Variant::Generic && kp.request(exact) {
        if prewarm::make_later(kp, exact.to_vec()) {
            prewarm::log(|| {
                format!(
                    "kernel '{}': launch with the generic pipeline {}; the exact one {} queued",
                    kp.entry.to_string_lossy(),
                    describe(&generic_spec),
                    describe(exact)
                )
            });
        } else {
            // No worker: a later launch asks again (and meanwhile runs
            // with the generic pipeline).
            kp.unrequest(exact);
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_regions_are_buckets_up_to_the_generic_one() {
        assert_eq!(exact_region(16, 49136), 1024);
        assert_eq!(exact_region(1024, 49136), 1024);
        assert_eq!(exact_region(1040, 49136), 2048);
        assert_eq!(exact_region(48 * 1024 - 64, 49136), 49136);
        assert_eq!(exact_region(49136, 49136), 49136);
        // More than the generic region: exactly what it needs.
        assert_eq!(exact_region(49152, 49136), 49152);
        // A generic region of nothing (the kernel's own data fills the
        // device): every launch is its own.
        assert_eq!(exact_region(32, 0), 32);
        // Zero-size arguments only (OpenCL 3.1): one bucket, or nothing
        // where the kernel's own data leaves no generic region.
        assert_eq!(exact_region(0, 49136), 1024);
        assert_eq!(exact_region(0, 0), 0);
    }

    #[test]
    fn the_region_is_the_only_value_replaced() {
        let spec = [(0, 64), (1, 1), (2, 1), (3, 64), (4, 1), (5, 1), (6, 1024)];
        let g = with_region(&spec, 4096);
        assert_eq!(&g[..6], &spec[..6]);
        assert_eq!(g[6], (LOCAL_ARGS_SPEC_ID, 4096));
    }
}
