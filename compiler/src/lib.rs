//! ferrocl's compiler: OpenCL C (or OpenCL SPIR-V) to Vulkan compute SPIR-V
//! plus the reflection the runtime needs (see `abi` for the kernel ABI).
//!
//! Pipeline (DESIGN §4; `pipeline::build_module` after the front end), each
//! stage a function in its own module:
//!
//! 1. `frontend::compile_opencl_c`: clang-15 → LLVM IR (+ kernel argument
//!    metadata), libclc's math linked in (`frontend::libclc`) →
//!    llvm-spirv-15 → Kernel SPIR-V (`build_il` starts after it, IL that
//!    calls libclc's math taking `frontend::il_math`'s round trip through
//!    LLVM IR first);
//! 2. module-level passes on the Kernel module (`passes`: integer widths,
//!    builtin variables, global variables, async copies, ...), then
//!    `passes::structurize::structurize_cfgs` (spirt): structured control
//!    flow — the lowering keeps the control flow as it is;
//! 3. `passes::specialize::specialize_address_spaces`: clones functions
//!    called with pointers into different address spaces;
//! 4. per kernel, `passes::lower::lower_kernel`: the Vulkan module
//!    (pointers as integers, kernel ABI of `abi`, OpenCL builtins);
//!    then `passes::srem_via_sdiv`, `passes::sdiv_via_udiv`,
//!    `passes::guard_int64_division` and,
//!    where `DeviceCaps::loop_limiter` says the driver cuts long loops,
//!    `passes::loop_limit::guard_loop_limit`;
//! 5. `backend::validate::validate_module`: spirv-val, Vulkan 1.2;
//! 6. `backend::reflect::reflect_kernel`.
//!
//! Layout: the front end in `frontend/`, the passes on SPIR-V in
//! `passes/`, the back end (validation, reflection, ferrocl's program
//! binary format `backend::binary`, clspv-style descriptor maps
//! `descriptor_map`) in `backend/`; the drivers at the top: `pipeline`
//! (`build_source`, `build_il`) and `link` (separate compilation:
//! `compile_source`, `compile_il`, `link_objects`; LLVM bitcode objects
//! and libraries, llvm-link-15), with the types they share: `caps`
//! (`DeviceCaps`), `program` (`Program`, `Kernel`), `error`
//! (`BuildError`), and `cache` (the on-disk cache of built programs).
//!
//! `DeviceCaps::addressing` picks the address format of global pointers
//! (physical or descriptor, `abi`).
//!
//! Debug switch: `FERROCL_DUMP=<dir>` writes the output of every pass that
//! runs, changed or not, as `NN-<pass>.ll` / `NN-<pass>.spv` (per kernel
//! `NN-<kernel>-<pass>.spv`), `NN` the pass's fixed sequence number
//! (`dump` lists them: `00-compile_to_bitcode.ll` ...
//! `26-<kernel>-guard_loop_limit.spv`). Measurement switch:
//! `FERROCL_TIME_PASSES=1` prints the wall time of every tool run and pass
//! (`timing`).

pub mod abi;
mod analyses;
mod backend;
pub mod cache;
mod caps;
mod dump;
mod error;
mod frontend;
mod link;
mod passes;
mod pipeline;
mod program;
mod timing;
mod tools;

// The public API. Modules of this crate import from the concern modules
// (`crate::abi`, `crate::caps`, ...), never from these re-exports.
/// A fingerprint of this compiler's sources (`build.rs`): part of every
/// on-disk compile cache key, and of CL_DRIVER_VERSION, so that the
/// caches of program binaries applications keep by driver version
/// (pyopencl's, hashcat's kernels/) never hand a binary of another
/// compiler back to this one.
pub const COMPILER_ID: &str = env!("FERROCL_COMPILER_SOURCE_HASH");

pub use abi::*;
pub use backend::binary::{
    decode_binary, encode_binary, validate_executable, Binary, BinaryContent, BinaryError,
};
pub use backend::descriptor_map;
pub use caps::{
    DeviceCaps, FloatWidths, FLOAT_ATOMIC_ADD32, FLOAT_ATOMIC_ADD64, FLOAT_ATOMIC_MIN_MAX32,
    FLOAT_ATOMIC_MIN_MAX64, FP_ATOMIC_GLOBAL_ADD, FP_ATOMIC_GLOBAL_LOAD_STORE,
    FP_ATOMIC_GLOBAL_MIN_MAX, FP_ATOMIC_LOCAL_ADD, FP_ATOMIC_LOCAL_LOAD_STORE,
    FP_ATOMIC_LOCAL_MIN_MAX, SUBGROUP_ARITHMETIC, SUBGROUP_BALLOT, SUBGROUP_BASIC,
    SUBGROUP_CLUSTERED, SUBGROUP_SHUFFLE, SUBGROUP_SHUFFLE_RELATIVE, SUBGROUP_VOTE,
};
pub use error::BuildError;
pub use frontend::il_support::{
    spirv_capability_values, spirv_extensions, EXT_INST_SETS as SPIRV_EXT_INST_SETS,
};
pub use frontend::spec_constants::{freeze_spec_constants, spec_constant_sizes};
pub use frontend::target_caps;
pub use link::{
    compile_il, compile_source, link_objects, parse_link_options, LinkOptions, Linked, Object,
};
pub use pipeline::{build_il, build_source};
pub use program::{Kernel, Program};
