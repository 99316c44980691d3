//! ferrocl's compiler: OpenCL C (or OpenCL SPIR-V) to Vulkan compute SPIR-V
//! plus the reflection the runtime needs (see `abi` for the kernel ABI).
//!
//! Pipeline (DESIGN §4), each stage a function in its own module:
//!
//! 1. `frontend::compile_opencl_c`: clang-15 → LLVM IR (+ kernel argument
//!    metadata) → llvm-spirv-15 → Kernel SPIR-V (`build_il` starts after it,
//!    IL that calls libclc's math taking `frontend::il_math`'s round trip
//!    through LLVM IR first);
//! 2. `passes::structurize::structurize_cfgs` (spirt): structured control
//!    flow, on the Kernel module — the lowering keeps the control flow as
//!    it is;
//! 3. `passes::specialize::specialize_address_spaces`: clones functions
//!    called with pointers into different address spaces;
//! 4. per kernel, `passes::lower::lower_kernel`: the Vulkan module
//!    (pointers as integers, kernel ABI of `abi`, OpenCL builtins);
//!    then, where `DeviceCaps::loop_limiter` says the driver cuts long
//!    loops, `passes::loop_limit::guard_loop_limit`;
//! 5. `passes::validate::validate_module`: spirv-val, Vulkan 1.2;
//! 6. `reflect::reflect_kernel`.
//!
//! `DeviceCaps::addressing` picks the address format of global pointers
//! (physical or descriptor, `abi`); `descriptor_map` writes clspv-style
//! descriptor maps for descriptor-addressed programs.
//!
//! Separate compilation (`compile_source`, `compile_il`, `link_objects`: LLVM bitcode
//! objects and libraries, llvm-link-15) is in `link`; ferrocl's program
//! binary format in `binary`.
//!
//! Debug switch: `FERROCL_DUMP=<dir>` writes the module after every stage
//! (`0-frontend.ll`, `1-llvm-spirv.spv`, `2-structurized.spv`,
//! `3-<kernel>-lowered.spv`).

pub mod abi;
mod backend;
pub mod cache;
mod caps;
mod error;
mod frontend;
mod link;
mod passes;
mod pipeline;
mod program;
mod tools;

// The public API.
pub use abi::*;
pub use backend::binary::{decode_binary, encode_binary, Binary, BinaryContent, BinaryError};
pub use backend::descriptor_map;
pub use caps::{
    DeviceCaps, FloatWidths, SUBGROUP_ARITHMETIC, SUBGROUP_BALLOT, SUBGROUP_BASIC,
    SUBGROUP_CLUSTERED, SUBGROUP_SHUFFLE, SUBGROUP_SHUFFLE_RELATIVE, SUBGROUP_VOTE,
};
pub use error::BuildError;
pub use frontend::spec_constants::{freeze_spec_constants, spec_constant_sizes};
pub use frontend::target_caps;
pub use link::{
    compile_il, compile_source, link_objects, parse_link_options, LinkOptions, Linked, Object,
};
pub use pipeline::{build_il, build_source};
pub use program::{Kernel, Program};
