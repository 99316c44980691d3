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
mod analyses;
mod binary;
pub mod cache;
pub mod descriptor_map;
mod frontend;
mod link;
mod passes;
mod pipeline;
mod reflect;
mod spec_constants;
mod tools;

pub use abi::*;
pub use binary::{decode_binary, encode_binary, Binary, BinaryContent, BinaryError};
pub use frontend::target_caps;
pub use link::{
    compile_il, compile_source, link_objects, parse_link_options, LinkOptions, Linked, Object,
};
pub use spec_constants::{freeze_spec_constants, spec_constant_sizes};

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
    /// shaderBufferInt64Atomics: 64-bit atomics on `__global` memory, and
    /// on `__local` memory through a lock emulation (`lower::local64`);
    /// cl_khr_int64_base_atomics / _extended_atomics are declared (and
    /// reported by the runtime) exactly when this is set.
    pub int64_atomics: bool,
    /// Vulkan subgroup size of compute pipelines; 0 where the device has no
    /// sub-groups (the runtime reports `cl_khr_subgroups` /
    /// `__opencl_c_subgroups` otherwise, see `DeviceCaps::subgroups`).
    pub subgroup_size: u32,
    /// The device reports the `cl_khr_subgroups` extension (sub-groups with
    /// independent forward progress), so `cl_khr_subgroups` is defined for
    /// every OpenCL C version. Without it (but with `subgroup_size` > 0)
    /// only OpenCL C 3.0's `__opencl_c_subgroups` feature is.
    pub khr_subgroups: bool,
    /// The sub-group operations Vulkan supports in compute shaders
    /// (`VkPhysicalDeviceSubgroupProperties::supportedOperations`, the
    /// `SUBGROUP_*` bits); they decide the optional `cl_khr_subgroup_*`
    /// extensions (`DeviceCaps::subgroup_extensions`). Meaningful only with
    /// `subgroup_size` > 0.
    pub subgroup_ops: u32,
    /// Highest SPIR-V version the Vulkan device accepts, as (major, minor).
    pub spirv_version: (u8, u8),
    /// The device reports image support (CL_DEVICE_IMAGE_SUPPORT): image
    /// and sampler arguments are lowered per `abi` (set by the runtime only
    /// when it can back them: sampled/storage images, formatless storage
    /// reads and writes).
    pub images: bool,
    /// read_write images (`__opencl_c_read_write_images`): storage-image
    /// reads without a format (shaderStorageImageReadWithoutFormat).
    pub read_write_images: bool,
    /// GLSL.std.450 `Fma` on doubles is fused (one rounding), as OpenCL's
    /// `fma` must be. Vulkan does not promise it: where it is false, double
    /// `fma` is computed in software (`frontend::libclc`).
    pub fused_fma64: bool,
    /// GLSL.std.450 `Fma` on floats is fused. Where it is false, float
    /// `fma` is libclc's software one (`frontend::libclc`).
    pub fused_fma32: bool,
    /// The device reports single-precision denormals (CL_FP_DENORM, where
    /// it preserves them when a module asks: shaderDenormPreserveFloat32):
    /// kernels get the DenormPreserve 32 execution mode and libclc's float
    /// code is told that denormals are supported. Without it denormals may
    /// be flushed (OpenCL allows it then), and libclc's float functions
    /// flush the results they compute in integer arithmetic. The runtime
    /// sets it only on request (`FERROCL_DENORMS32=1`): libclc-15's float
    /// code is written for devices that flush.
    pub denorms32: bool,
    /// Float widths whose denormals the device preserves when a module
    /// asks (shaderDenormPreserveFloat16/32/64): kernels get DenormPreserve
    /// for them. Vulkan leaves denormal handling to the implementation
    /// otherwise, and NVIDIA's then flushes some operations and not others
    /// (libclc's cbrt(1e-40) returned 1e-40), which no OpenCL rule allows.
    /// With it, single-precision denormals are computed exactly whether or
    /// not CL_FP_DENORM is reported (`denorms32`).
    pub preserve_denorms: FloatWidths,
    /// Float widths whose signed zeros, infinities and NaNs the device
    /// preserves when a module asks (shaderSignedZeroInfNanPreserveFloat*):
    /// kernels get SignedZeroInfNanPreserve for them. Without it a Vulkan
    /// compiler may assume there are none (NVIDIA's turned
    /// `select(a, b, a < b)` into a max that dropped a NaN `a`, and
    /// remainder(+0, y) returned -0), while OpenCL C requires IEEE 754
    /// behaviour unless the build says `-cl-finite-math-only`.
    pub preserve_inf_nan: FloatWidths,
    /// The driver's memory barriers are work-group execution barriers
    /// while its read-modify-writes are sequentially consistent atomics
    /// (lavapipe 22.3: OpMemoryBarrier, and the acquire/release semantics
    /// of an atomic, stop the work-group like OpControlBarrier, which
    /// loses work in divergent control flow such as a compare-exchange
    /// loop). Atomics are then emitted without semantics, ordered loads
    /// and stores as read-modify-writes, fences as a read-modify-write of
    /// a work-group word (`passes::lower::atomic`).
    pub rmw_ordering: bool,
    /// The device has the Vulkan memory model with device scope
    /// (vulkanMemoryModel and vulkanMemoryModelDeviceScope): kernels with
    /// non-relaxed atomics or fences are emitted in it, so that release and
    /// acquire order their ordinary `__global` and `__local` loads and
    /// stores too (`passes::lower::vmm`). Without it they keep GLSL450.
    pub vulkan_memory_model: bool,
    /// The driver ends loops after a fixed number of passes (lavapipe:
    /// gallivm's loop limiter, 65535 passes per SIMD batch over all the
    /// shader's loops). Kernels with loops then set a status word when the
    /// limit may have cut one (`passes::loop_limit`, `Kernel::loop_status`);
    /// the runtime fails such a launch.
    pub loop_limiter: bool,
    /// Options of the descriptor address format (binding of POD arguments,
    /// sampler map); ignored with physical addressing.
    pub descriptor: DescriptorOptions,
}

/// A set of float widths (16, 32, 64).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatWidths(pub u8);

impl FloatWidths {
    pub const ALL: FloatWidths = FloatWidths(0b111);

    fn bit(width: u32) -> u8 {
        match width {
            16 => 1,
            32 => 2,
            64 => 4,
            _ => 0,
        }
    }

    /// The set of the widths whose flag (16, 32, 64 bits: Vulkan's
    /// `VkBool32`s) is set.
    pub fn from_flags(f16: u32, f32: u32, f64: u32) -> FloatWidths {
        FloatWidths(
            [(16, f16), (32, f32), (64, f64)]
                .into_iter()
                .filter(|&(_, f)| f != 0)
                .map(|(w, _)| Self::bit(w))
                .sum(),
        )
    }

    pub fn contains(self, width: u32) -> bool {
        self.0 & Self::bit(width) != 0
    }
}

impl DeviceCaps {
    /// Atomics and fences at device and all-devices scope are supported:
    /// release/acquire across work-groups must order ordinary loads and
    /// stores too, which takes the Vulkan memory model
    /// (`vulkan_memory_model`) or lavapipe's ordered read-modify-writes
    /// (`rmw_ordering`). The runtime reports the scopes
    /// (CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES) and the front end defines
    /// their OpenCL C 3.0 feature macros under this one condition.
    pub fn device_scope_atomics(&self) -> bool {
        self.vulkan_memory_model || self.rmw_ordering
    }

    /// Sub-groups are supported (`subgroup_size` > 0): the sub-group
    /// functions are declared and lowered (`passes::lower::subgroup`).
    pub fn subgroups(&self) -> bool {
        self.subgroup_size > 0
    }

    /// Whether Vulkan has all the sub-group operations `bits`
    /// (`SUBGROUP_*`) in compute shaders (and sub-groups are supported).
    pub fn has_subgroup_ops(&self, bits: u32) -> bool {
        self.subgroups() && self.subgroup_ops & bits == bits
    }

    /// The optional Khronos sub-group extensions this device supports, with
    /// their versions: each needs sub-groups (not `cl_khr_subgroups`'s
    /// independent forward progress) and the Vulkan operations it is
    /// lowered to. `cl_khr_subgroup_extended_types` relies on
    /// `shaderSubgroupExtendedTypes`, which sub-groups require anyway.
    pub fn subgroup_extensions(&self) -> Vec<(&'static str, (u32, u32, u32))> {
        let mut e = Vec::new();
        if !self.subgroups() {
            return e;
        }
        let table: [(&'static str, u32); 8] = [
            ("cl_khr_subgroup_extended_types", SUBGROUP_BASIC),
            ("cl_khr_subgroup_non_uniform_vote", SUBGROUP_VOTE),
            ("cl_khr_subgroup_ballot", SUBGROUP_BALLOT),
            ("cl_khr_subgroup_shuffle", SUBGROUP_SHUFFLE),
            // Sub-group shuffles (`frontend::rotate`).
            ("cl_khr_subgroup_rotate", SUBGROUP_SHUFFLE),
            (
                "cl_khr_subgroup_shuffle_relative",
                SUBGROUP_SHUFFLE_RELATIVE,
            ),
            (
                "cl_khr_subgroup_non_uniform_arithmetic",
                SUBGROUP_ARITHMETIC,
            ),
            (
                "cl_khr_subgroup_clustered_reduce",
                SUBGROUP_ARITHMETIC | SUBGROUP_CLUSTERED,
            ),
        ];
        for (name, bits) in table {
            if self.has_subgroup_ops(bits) {
                e.push((name, (1, 0, 0)));
            }
        }
        e
    }
}

/// `VkSubgroupFeatureFlagBits`, as in `DeviceCaps::subgroup_ops`.
pub const SUBGROUP_BASIC: u32 = 0x1;
pub const SUBGROUP_VOTE: u32 = 0x2;
pub const SUBGROUP_ARITHMETIC: u32 = 0x4;
pub const SUBGROUP_BALLOT: u32 = 0x8;
pub const SUBGROUP_SHUFFLE: u32 = 0x10;
pub const SUBGROUP_SHUFFLE_RELATIVE: u32 = 0x20;
pub const SUBGROUP_CLUSTERED: u32 = 0x40;

impl DeviceCaps {
    /// The sub-group extensions clang knows that the device does not report
    /// (`subgroup_extensions`): their `-cl-ext` switch is off and their macro
    /// undefined.
    pub(crate) fn unsupported_subgroup_extensions(&self) -> Vec<(&'static str, &'static str)> {
        let on = self.subgroup_extensions();
        crate::frontend::CLANG_SUBGROUP_EXTENSIONS
            .iter()
            .copied()
            .filter(|(_, e)| !on.iter().any(|(n, _)| n == e))
            .collect()
    }
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
    /// The kernel's printf calls, by record index (see `abi::PrintfCall`).
    pub printf: Vec<PrintfCall>,
    /// The kernel's `__constant` data, where printf `%s` arguments point
    /// (empty without printf).
    pub printf_strings: Vec<u8>,
    /// The descriptor set of image/sampler arguments (and, with descriptor
    /// addressing, of every argument; `None` when the kernel has none): 0,
    /// or 1 when `literal_samplers` is not empty (or a sampler map is given).
    pub descriptor_set: Option<u32>,
    /// Literal samplers, in the `abi::sampler_bits` encoding: entry `i` is
    /// VK_DESCRIPTOR_TYPE_SAMPLER at set 0, binding `i`.
    pub literal_samplers: Vec<u32>,
    /// The address format the kernel was compiled for.
    pub addressing: Addressing,
    /// Descriptor addressing: the binding (in `descriptor_set`) of the
    /// program's global-variable buffer, when the kernel uses it.
    pub global_variables_binding: Option<u32>,
    /// Descriptor addressing: the binding (in `descriptor_set`) of the
    /// launch's printf buffer (a storage buffer, whole range), when the
    /// kernel calls printf. Physical addressing passes the buffer's address
    /// in `ImplicitField::PrintfBuffer` instead.
    pub printf_binding: Option<u32>,
    /// The kernel binds a loop-status word (abi, "Loop status": set
    /// `LOOP_STATUS_SET`, binding `LOOP_STATUS_BINDING`) and writes 1 into
    /// it when the driver's loop limiter may have cut one of its loops.
    /// Only with `DeviceCaps::loop_limiter`, in kernels with loops.
    pub loop_status: bool,
}

/// The output of a successful build.
#[derive(Clone, Debug)]
pub struct Program {
    /// Warnings from the front end (may be empty).
    pub log: String,
    pub kernels: Vec<Kernel>,
    /// Program-scope `__global` variables (empty `size` when none).
    pub global_variables: GlobalVariables,
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

impl BuildError {
    /// A build failure (CL_BUILD_PROGRAM_FAILURE) with this log.
    pub fn failure(log: impl Into<String>) -> Self {
        BuildError {
            log: log.into(),
            invalid_options: false,
        }
    }

    /// Invalid build options (CL_INVALID_BUILD_OPTIONS).
    pub fn options(log: impl Into<String>) -> Self {
        BuildError {
            log: log.into(),
            invalid_options: true,
        }
    }

    /// A bug of ours (invalid output, panic): the log says so.
    pub fn internal(msg: impl std::fmt::Display) -> Self {
        BuildError::failure(format!("internal compiler error: {msg}"))
    }
}

/// Builds an OpenCL C program (clCreateProgramWithSource + clBuildProgram):
/// every kernel of `source` becomes its own Vulkan module.
///
/// `options` are the application's build options (`-D`, `-I`, `-cl-std=`,
/// `-cl-fast-relaxed-math`, ...); ferrocl's target options
/// (`-ferrocl-addressing=`, `-pod-ubo`, `-cluster-pod-kernel-args`)
/// override `caps` ([`target_caps`]). Thread-safe; never panics.
pub fn build_source(source: &str, options: &str, caps: &DeviceCaps) -> Result<Program, BuildError> {
    let caps = &frontend::target_caps(options, caps)?;
    cached(cache::Input::Source(source), options, caps, || {
        pipeline::guard(|| pipeline::build_source(source, options, caps))
    })
}

/// Builds a program from OpenCL (Kernel-flavour) SPIR-V
/// (clCreateProgramWithIL + clBuildProgram). Thread-safe; never panics.
pub fn build_il(spirv: &[u8], options: &str, caps: &DeviceCaps) -> Result<Program, BuildError> {
    let caps = &frontend::target_caps(options, caps)?;
    cached(cache::Input::Il(spirv), options, caps, || {
        pipeline::guard(|| pipeline::build_il(spirv, options, caps))
    })
}

/// `build` through the on-disk cache (`cache`): a hit skips the whole
/// pipeline; a successful miss is stored.
fn cached(
    input: cache::Input,
    options: &str,
    caps: &DeviceCaps,
    build: impl FnOnce() -> Result<Program, BuildError>,
) -> Result<Program, BuildError> {
    let entry = cache::Entry::new(&input, options, caps);
    if let Some(p) = entry.as_ref().and_then(|e| e.load(caps)) {
        return Ok(p);
    }
    let p = build()?;
    if let Some(e) = &entry {
        e.store(&p, options, caps);
    }
    Ok(p)
}
