//! ferrocl's compiler: OpenCL C (or OpenCL SPIR-V) to Vulkan compute SPIR-V
//! plus the reflection the runtime needs (see `abi` for the kernel ABI).
//!
//! Pipeline (DESIGN §4), each stage its own module under `passes/`:
//! front end (clang-15 → llvm-spirv-15) → lower to the Vulkan environment →
//! structurize (spirt) → validate → reflect.

pub mod abi;

pub use abi::*;

/// What the compiler needs to know about the target device. Part of the
/// on-disk cache key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceCaps {
    pub addressing: Addressing,
    /// VkPhysicalDeviceLimits::maxPushConstantsSize.
    pub max_push_constant_size: u32,
    /// shaderFloat64.
    pub fp64: bool,
    /// shaderFloat16 (arithmetic on half).
    pub fp16: bool,
    /// shaderBufferInt64Atomics.
    pub int64_atomics: bool,
    /// Subgroup size (for reflection of sub-group queries).
    pub subgroup_size: u32,
    /// Highest SPIR-V version the Vulkan device accepts, as (major, minor).
    pub spirv_version: (u8, u8),
}

/// One compiled kernel: a self-contained Vulkan SPIR-V module with a single
/// GLCompute entry point, and its reflection.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// Name of the entry point in `spirv`.
    pub entry_point: String,
    /// The module's words.
    pub spirv: Vec<u32>,
    pub args: Vec<KernelArg>,
    /// Size in bytes of the push-constant block (0: no push constants).
    pub push_constant_size: u32,
    /// `Some` when the argument block lives in a device buffer.
    pub arg_buffer: Option<ArgBuffer>,
    /// Implicit fields and their push-constant byte offsets.
    pub implicit: Vec<(ImplicitField, u32)>,
    /// `__attribute__((reqd_work_group_size(x,y,z)))`.
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// `__attribute__((work_group_size_hint(x,y,z)))`.
    pub work_group_size_hint: Option<[u32; 3]>,
    /// `__attribute__((vec_type_hint(T)))` as written, e.g. `float4`.
    pub vec_type_hint: Option<String>,
    /// The attributes string for CL_KERNEL_ATTRIBUTES.
    pub attributes: String,
    /// Bytes of `__local` memory the kernel declares itself (not counting
    /// `__local` pointer arguments).
    pub static_local_size: u32,
    /// Bytes of private memory per work-item the lowering allocated.
    pub private_size: u32,
}

/// The output of a successful build.
#[derive(Clone, Debug)]
pub struct Program {
    /// Warnings from the front end (may be empty).
    pub log: String,
    pub kernels: Vec<Kernel>,
}

/// A failed build: `log` is what clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)
/// shows (clang's diagnostics with file:line:col, or a line naming the
/// construct the lowering cannot handle and its source line).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{log}")]
pub struct BuildError {
    pub log: String,
    /// True when the build options themselves were invalid
    /// (CL_INVALID_BUILD_OPTIONS rather than CL_BUILD_PROGRAM_FAILURE).
    pub invalid_options: bool,
}

// Entry points (implemented in `build.rs`-free modules under src/):
//
// pub fn build_source(source: &str, options: &str, caps: &DeviceCaps) -> Result<Program, BuildError>
// pub fn build_il(spirv: &[u8], options: &str, caps: &DeviceCaps) -> Result<Program, BuildError>
