//! The text the front end includes after clang's default header (with the
//! `#undef`s of `FrontendOptions::undef_macros`): macros and declarations
//! of extensions clang-15 does not know (`prelude`).
//!
//! * cl_khr_expect_assume: `__builtin_expect` and `__builtin_assume` are
//!   clang builtins in every OpenCL C version; only the macro is missing.
//!   clang turns them into `llvm.expect` (folded by -O2) and `llvm.assume`
//!   (dropped by llvm-spirv-15 without SPV_KHR_expect_assume); IL's
//!   OpExpectKHR / OpAssumeTrueKHR are dropped by the lowering.
//! * cl_khr_kernel_clock: its functions, declared `overloadable` so that
//!   they get the Itanium names a later clang gives them
//!   (`_Z17clock_read_devicev`), for the scopes the device has
//!   (`DeviceCaps::kernel_clock_scopes`); the calls become OpReadClockKHR
//!   (`analyses::builtin_imports`, `passes::lower::clock`). Vulkan has no
//!   work-group clock, so `__opencl_c_kernel_clock_scope_work_group` and
//!   its functions are never declared.
//!
//! cl_khr_extended_bit_ops and cl_khr_integer_dot_product need nothing
//! here: clang-15 declares them (and defines their macros) for OpenCL C 2.0
//! and 3.0, not for 1.x.

use crate::caps::DeviceCaps;

/// The prelude for a device.
pub fn prelude(caps: &DeviceCaps) -> String {
    let mut s = String::from("#define cl_khr_expect_assume 1\n");
    let (device, sub_group) = caps.kernel_clock_scopes();
    if device || sub_group {
        s.push_str("#define cl_khr_kernel_clock 1\n");
    }
    for (on, scope) in [(device, "device"), (sub_group, "sub_group")] {
        if on {
            s.push_str(&format!(
                "#define __opencl_c_kernel_clock_scope_{scope} 1\n\
                 ulong __attribute__((overloadable)) clock_read_{scope}(void);\n\
                 uint2 __attribute__((overloadable)) clock_read_hilo_{scope}(void);\n"
            ));
        }
    }
    s
}
