//! What a decoded executable must satisfy before the runtime trusts it.
//! The checksum only catches accidental corruption: a binary whose
//! checksum was recomputed after an edit (ferrocl-ilfuzz makes such
//! binaries by the thousand) reaches the decoder with any bytes at all.
//!
//! * `check_kernel_layout` (every decode, cheap): each offset the
//!   reflection gives lies inside the block it indexes (push constants,
//!   the argument buffer) and the push constants fit the device: the
//!   runtime writes argument values at these offsets. (The reader already
//!   refuses dimensions beyond 3; a field naming an argument the kernel
//!   lacks is refused by the launch, CL_INVALID_KERNEL_ARGS.)
//! * `validate_executable` (clCreateProgramWithBinary only, one spirv-val
//!   run per kernel): each kernel's module passes the validation the
//!   compiler applies to its own output (`backend::validate`), so the
//!   driver is never handed a module it may crash on. The program cache,
//!   whose files ferrocl wrote itself, skips it.

use super::BinaryError;
use crate::abi::ArgKind;
use crate::backend::validate::validate_module;
use crate::caps::DeviceCaps;
use crate::program::{Kernel, Program};
use crate::tools::ScratchDir;

/// Offsets, dimensions and argument indices of `k`'s reflection.
pub(super) fn check_kernel_layout(k: &Kernel, caps: &DeviceCaps) -> Result<(), BinaryError> {
    let bad = |what: &str| {
        Err(BinaryError(format!(
            "kernel '{}': {what} out of range",
            k.name
        )))
    };
    if k.push_constant_size > caps.max_push_constant_size {
        return bad("push-constant size");
    }
    let push = u64::from(k.push_constant_size.next_multiple_of(4));
    let inside = |offset: u32, size: u64, block: u64| u64::from(offset) + size <= block;
    let block = match &k.arg_buffer {
        Some(ab) if ab.descriptor.is_none() => {
            if !inside(ab.address_offset, 8, push) {
                return bad("argument buffer address offset");
            }
            u64::from(ab.size)
        }
        _ => push,
    };
    for a in &k.args {
        let size = match a.kind {
            ArgKind::Buffer => 8,
            ArgKind::Pod => u64::from(a.size),
            _ => continue,
        };
        if a.descriptor.is_none() && !inside(a.offset, size, block) {
            return bad(&format!("argument '{}' offset", a.name));
        }
    }
    for &(_, off) in &k.implicit {
        if !inside(off, 4, push) {
            return bad("implicit field");
        }
    }
    if let Some(ab) = &k.arg_buffer {
        for &(_, off) in &ab.implicit {
            if !inside(off, 4, u64::from(ab.size)) {
                return bad("argument-buffer field");
            }
        }
    }
    Ok(())
}

/// Runs spirv-val (Vulkan 1.2) over every kernel of `p`, an executable
/// an application gave to clCreateProgramWithBinary.
pub fn validate_executable(p: &Program) -> Result<(), BinaryError> {
    let scratch = ScratchDir::new().map_err(|e| BinaryError(e.log))?;
    for (i, k) in p.kernels.iter().enumerate() {
        validate_module(&k.spirv, &k.name, i, &scratch).map_err(|e| {
            BinaryError(
                e.log
                    .replace("internal compiler error: ", "")
                    .replace("invalid Vulkan SPIR-V", "its SPIR-V is invalid"),
            )
        })?;
    }
    Ok(())
}
