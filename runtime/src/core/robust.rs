//! Robust mode: kernels whose out-of-bounds global accesses read zero and
//! drop their writes, instead of reaching whatever memory lies there.
//!
//! Opt-in, per build with the option `-ferrocl-robust` or for the whole
//! process with `FERROCL_ROBUST=1`. How it works: such kernels use
//! descriptor addressing (each buffer argument is a storage-buffer binding
//! whose range is exactly the cl_mem's, `compiler/src/abi.rs`), and the
//! device is created with robustBufferAccess2 (VK_EXT_robustness2), which
//! makes the driver bound every access through a binding. A global pointer
//! is `binding << 32 | offset`: an index up to 4 GiB past (or before) the
//! buffer stays in its binding, or lands far outside the range of the
//! neighbouring one, and is dropped; only a pointer moved by whole multiples
//! of 4 GiB could reach another argument.
//!
//! The device feature must be chosen when the VkDevice is created, before
//! any build option is seen, so it is enabled wherever the device has it
//! (`crate::vk::device::Device::robust_buffers`) unless
//! `FERROCL_ROBUST=0`: it bounds only accesses through descriptors, which
//! physical addressing (the default) does not make, so kernels outside
//! robust mode pay nothing unless built with descriptor addressing.
//!
//! Refused, with a build log: robust mode on a device without
//! robustBufferAccess2 (or with `FERROCL_ROBUST=0`), and a kernel with
//! physical addressing in a robust build (`-ferrocl-addressing=physical`,
//! or a program binary built without robust mode). Robust kernels take no
//! raw device addresses (clSetKernelArgSVMPointer,
//! clSetKernelArgDevicePointerEXT: CL_INVALID_OPERATION, as for every
//! descriptor-addressed kernel).
//!
//! Layer: foundation (environment switch and build checks; no objects).

use std::sync::OnceLock;

use ferrocl_compiler::{Addressing, Program};

/// `FERROCL_ROBUST`: `Some(true)` for 1, `Some(false)` for 0, else `None`.
fn env() -> Option<bool> {
    static V: OnceLock<Option<bool>> = OnceLock::new();
    *V.get_or_init(|| match std::env::var("FERROCL_ROBUST").as_deref() {
        Ok("1") => Some(true),
        Ok("0") => Some(false),
        _ => None,
    })
}

/// Every build is robust (`FERROCL_ROBUST=1`).
pub fn process_robust() -> bool {
    env() == Some(true)
}

/// Whether devices are created with robustBufferAccess2 where they have
/// it: unless `FERROCL_ROBUST=0`.
pub fn device_robustness_wanted() -> bool {
    env() != Some(false)
}

/// Whether `options` ask for robust mode.
pub fn requested_by(options: &str) -> bool {
    options.split_whitespace().any(|w| w == "-ferrocl-robust")
}

/// Why `p`, built with `options` for a device with (`robust_device`) or
/// without robust buffer access, cannot be a robust executable; `None`
/// when it can or robust mode was not asked for.
pub fn robust_error(p: &Program, options: &str, robust_device: bool) -> Option<String> {
    let by = if requested_by(options) {
        "-ferrocl-robust"
    } else if process_robust() {
        "FERROCL_ROBUST=1"
    } else {
        return None;
    };
    if !robust_device {
        return Some(format!(
            "error: {by}: robust mode needs robustBufferAccess2 (VK_EXT_robustness2), \
             which this device lacks or FERROCL_ROBUST=0 switched off\n"
        ));
    }
    p.kernels
        .iter()
        .find(|k| k.addressing != Addressing::Descriptor)
        .map(|k| {
            format!(
                "error: {by}: kernel '{}' uses physical addressing, whose accesses robust \
                 mode cannot bound (-ferrocl-addressing=physical, or a binary built \
                 without robust mode)\n",
                k.name
            )
        })
}
