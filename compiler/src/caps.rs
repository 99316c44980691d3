//! What the compiler needs to know about the target device: `DeviceCaps`
//! (part of the on-disk cache key), the float-width sets it uses
//! (`FloatWidths`) and Vulkan's sub-group operation bits (`SUBGROUP_*`).

use crate::abi::{Addressing, DescriptorOptions};

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
    /// Depth images (cl_khr_depth_images): `image2d_depth_t` and
    /// `image2d_array_depth_t` arguments, backed by single-channel colour
    /// images (CL_DEPTH on R32_SFLOAT / R16_UNORM), their texels a scalar
    /// float in the kernel.
    pub depth_images: bool,
    /// Mipmapped images (cl_khr_mipmap_image): reads with a lod or
    /// gradients and `get_image_num_mip_levels` (`passes::lower::image`).
    pub mipmap_image: bool,
    /// Writes to a mip level (cl_khr_mipmap_image_writes; 0: not
    /// supported): how many image arguments a kernel may write at a level,
    /// each taking `abi::MIP_WRITE_LEVELS - 1` more storage-image bindings
    /// (`abi::IMAGE_LEVEL_BINDING_BASE`) of the device's per-stage budget.
    pub mipmap_image_write_args: u32,
    /// 2D images made from buffers (cl_khr_image2d_from_buffer; 0: not
    /// supported): in a kernel with at most this many image arguments,
    /// every 2D image argument (at a position below
    /// `abi::IMAGE_FROM_BUFFER_MAX_ARGS`) also gets a texel-buffer binding,
    /// chosen by a specialization constant (`abi::IMAGE_FROM_BUFFER_SPEC_ID`).
    /// The bound keeps a kernel's images and their twins within the
    /// device's descriptor limits.
    pub image2d_from_buffer_args: u32,
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
    /// 64-bit integer division and remainder whose operands do not fit in
    /// 32 bits are computed by ferrocl's own loop (`passes::udivrem64`),
    /// never by the driver's 64-bit OpUDiv/OpSDiv/OpUMod/OpSMod: NVIDIA's
    /// driver 580 expands those into code that corrupts comparisons near
    /// them. Elsewhere the driver's operation stays (lavapipe's is exact
    /// and much faster than a loop, which would also count against its
    /// loop limiter).
    pub soft_int64_division: bool,
    /// 8- and 16-bit integer arithmetic is done in 32 bits and truncated
    /// (`passes::widen_narrow_arithmetic`): NVIDIA's driver 580 loses the
    /// wrap-around of narrow results whose range it thinks it knows.
    pub wide_narrow_arithmetic: bool,
    /// Every sign extension of a 32-bit integer to 64 bits is computed as
    /// a zero extension and 64-bit arithmetic
    /// (`passes::expand_long_sign_extensions`): lavapipe 22.3 folds signed
    /// comparisons of such a value (or of a value computed from it) with
    /// a constant as if it were a large positive number.
    pub soft_long_sign_extension: bool,
    /// Loop exits that the structurizer routes through the latch's phis
    /// become branches to the loop's merge block again
    /// (`passes::branch_loop_exits`): lavapipe 22.3's NIR runs a loop for
    /// two passes only when such an exit path turns out dead late in its
    /// optimization.
    pub branch_loop_exits: bool,
    /// A bitcast of a 64-bit scalar to four 16-bit components goes
    /// through two 32-bit halves (`passes::split_bitcasts_to_16bit`):
    /// lavapipe 22.3's NIR loses the top 16 bits when it folds the direct
    /// form.
    pub split_bitcasts_to_16bit: bool,
    /// The program's own functions are inlined into their callers before
    /// the translation to SPIR-V (`frontend::inline_functions`): NVIDIA's
    /// driver 580 can make a kernel that never ends when functions are
    /// called from divergent paths (pyopencl's Hankel functions).
    pub inline_functions: bool,
    /// Values a loop defines and code after it uses go through Function
    /// variables (`passes::spill_loop_live_outs`): lavapipe 22.3 gives a
    /// work-item that left a loop early the value of the loop's last
    /// iteration, which it did not run (its loads read 0 there).
    pub spill_loop_live_outs: bool,
    /// Boolean phis become phis of 32-bit integers
    /// (`passes::widen_bool_phis`): NVIDIA's driver 580 crashed the
    /// process compiling modules with boolean phis in and around loops.
    pub integer_bool_phis: bool,
    /// Descriptor addressing without variable pointers
    /// (`passes::branch_buffer_selects`): accesses through a select of
    /// StorageBuffer pointers branch instead, and the module does not
    /// declare VariablePointersStorageBuffer. NVIDIA's driver 580 loses
    /// every Workgroup atomic (local atomics, sub-word `__local` stores) in
    /// a module that declares it.
    pub branch_buffer_selects: bool,
    /// shaderIntegerDotProduct (Vulkan 1.3 / VK_KHR_shader_integer_dot_product):
    /// OpSDot/OpUDot/OpSUDot and their AccSat forms are passed to Vulkan
    /// as they are. Without it they are computed exactly in 32/64-bit
    /// arithmetic (`passes::lower::dot_product`); cl_khr_integer_dot_product
    /// is supported either way.
    pub integer_dot_product: bool,
    /// shaderDeviceClock (VK_KHR_shader_clock): OpReadClockKHR at Device
    /// scope, `clock_read_device` of cl_khr_kernel_clock.
    pub device_clock: bool,
    /// shaderSubgroupClock (VK_KHR_shader_clock): OpReadClockKHR at
    /// Subgroup scope, `clock_read_sub_group` (needs sub-groups too).
    pub subgroup_clock: bool,
    /// CL_DEVICE_MAX_NUM_SUB_GROUPS: sub-groups of the largest work-group a
    /// sub-group kernel may have (0 without sub-groups). The work-group
    /// collective functions keep one partial result per sub-group in
    /// `__local` memory (`passes::lower::work_group`).
    pub max_num_sub_groups: u32,
    /// The floating-point atomics Vulkan has natively on `__global` memory
    /// (`FLOAT_ATOMIC_*` bits: VK_EXT_shader_atomic_float and _float2
    /// buffer features); the others are compare-exchange loops
    /// (`passes::lower::atomic::float`).
    pub float_atomics: u32,
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

    /// The OpenCL C 3.0 work-group collective functions
    /// (`__opencl_c_work_group_collective_functions`): lowered to sub-group
    /// reductions and scans combined through `__local` memory
    /// (`passes::lower::work_group`), so they need sub-groups with Vulkan's
    /// arithmetic operations.
    pub fn work_group_collectives(&self) -> bool {
        self.has_subgroup_ops(SUBGROUP_BASIC | SUBGROUP_ARITHMETIC) && self.max_num_sub_groups > 0
    }

    /// cl_ext_float_atomics capabilities (`CL_DEVICE_*_FP_ATOMIC_*_EXT`
    /// bits) of floats of `width` bits: every operation on `__global` and
    /// `__local` memory for float, and for double where the device has
    /// doubles and 64-bit atomics (the compare-exchange loops need them),
    /// and for half where the device has halves (cl_khr_fp16): ferrocl's
    /// own compare-exchange loops on the 32-bit word that holds the half,
    /// linked before translation (`frontend::libclc`, `half_atomics.cl`).
    pub fn fp_atomic_caps(&self, width: u32) -> u64 {
        let all = FP_ATOMIC_GLOBAL_ALL | FP_ATOMIC_LOCAL_ALL;
        match width {
            32 => all,
            64 if self.fp64 && self.int64_atomics => all,
            16 if self.fp16 => all,
            _ => 0,
        }
    }

    /// The cl_ext_float_atomics feature macros this device defines (and
    /// reports in CL_DEVICE_OPENCL_C_FEATURES): those of `FP_ATOMIC_MACROS`
    /// whose capability `fp_atomic_caps` has.
    pub fn fp_atomic_macros(&self) -> Vec<&'static str> {
        FP_ATOMIC_MACROS
            .iter()
            .filter(|&&(w, bit, _)| self.fp_atomic_caps(w) & bit != 0)
            .map(|&(_, _, m)| m)
            .collect()
    }

    /// The sub-group extensions OpenCL C 3.1 made core.
    pub const SUBGROUP_EXTENSIONS_3_1: [&'static str; 4] = [
        "cl_khr_subgroup_extended_types",
        "cl_khr_subgroup_shuffle",
        "cl_khr_subgroup_shuffle_relative",
        "cl_khr_subgroup_rotate",
    ];

    /// OpenCL C 3.1 is supported: OpenCL C 3.0 plus what 3.1 made core.
    /// Sub-groups (CL_DEVICE_MAX_NUM_SUB_GROUPS > 0) with
    /// [`Self::SUBGROUP_EXTENSIONS_3_1`], which need Vulkan's operations
    /// (`subgroup_extensions`), decide; the rest holds on every device:
    /// extended bit operations (`passes::lower::bit_field`), integer dot
    /// products (`passes::lower::dot_product`), printf's `z` and `t`
    /// (formatted on the host). The front end takes `-cl-std=CL3.1` and
    /// the runtime reports OpenCL 3.1 only where this holds.
    pub fn opencl_c_3_1(&self) -> bool {
        let have = self.subgroup_extensions();
        self.max_num_sub_groups > 0
            && Self::SUBGROUP_EXTENSIONS_3_1
                .iter()
                .all(|n| have.iter().any(|(m, _)| m == n))
    }

    /// Sub-groups are supported (`subgroup_size` > 0): the sub-group
    /// functions are declared and lowered (`passes::lower::subgroup`).
    pub fn subgroups(&self) -> bool {
        self.subgroup_size > 0
    }

    /// cl_khr_kernel_clock's scopes this device supports (Vulkan has
    /// Device and Subgroup clocks, no work-group one): `(device,
    /// sub_group)`. The extension is reported where either is.
    pub fn kernel_clock_scopes(&self) -> (bool, bool) {
        (self.device_clock, self.subgroup_clock && self.subgroups())
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

/// `DeviceCaps::float_atomics`: OpAtomicFAddEXT on 32-bit floats in
/// storage buffers / physical storage buffers (shaderBufferFloat32AtomicAdd).
pub const FLOAT_ATOMIC_ADD32: u32 = 0x1;
/// shaderBufferFloat64AtomicAdd.
pub const FLOAT_ATOMIC_ADD64: u32 = 0x2;
/// OpAtomicFMinEXT / OpAtomicFMaxEXT on 32-bit floats
/// (shaderBufferFloat32AtomicMinMax, VK_EXT_shader_atomic_float2).
pub const FLOAT_ATOMIC_MIN_MAX32: u32 = 0x4;
/// shaderBufferFloat64AtomicMinMax.
pub const FLOAT_ATOMIC_MIN_MAX64: u32 = 0x8;

/// cl_ext_float_atomics: `cl_device_fp_atomic_capabilities_ext` bits.
pub const FP_ATOMIC_GLOBAL_LOAD_STORE: u64 = 1 << 0;
pub const FP_ATOMIC_GLOBAL_ADD: u64 = 1 << 1;
pub const FP_ATOMIC_GLOBAL_MIN_MAX: u64 = 1 << 2;
pub const FP_ATOMIC_LOCAL_LOAD_STORE: u64 = 1 << 16;
pub const FP_ATOMIC_LOCAL_ADD: u64 = 1 << 17;
pub const FP_ATOMIC_LOCAL_MIN_MAX: u64 = 1 << 18;
const FP_ATOMIC_GLOBAL_ALL: u64 =
    FP_ATOMIC_GLOBAL_LOAD_STORE | FP_ATOMIC_GLOBAL_ADD | FP_ATOMIC_GLOBAL_MIN_MAX;
const FP_ATOMIC_LOCAL_ALL: u64 =
    FP_ATOMIC_LOCAL_LOAD_STORE | FP_ATOMIC_LOCAL_ADD | FP_ATOMIC_LOCAL_MIN_MAX;

/// The cl_ext_float_atomics feature macros clang-15's SPIR target defines
/// (whatever the device), each with its float width and capability bit.
pub const FP_ATOMIC_MACROS: [(u32, u64, &str); 14] = [
    (
        16,
        FP_ATOMIC_GLOBAL_LOAD_STORE,
        "__opencl_c_ext_fp16_global_atomic_load_store",
    ),
    (
        16,
        FP_ATOMIC_LOCAL_LOAD_STORE,
        "__opencl_c_ext_fp16_local_atomic_load_store",
    ),
    (
        16,
        FP_ATOMIC_GLOBAL_ADD,
        "__opencl_c_ext_fp16_global_atomic_add",
    ),
    (
        16,
        FP_ATOMIC_LOCAL_ADD,
        "__opencl_c_ext_fp16_local_atomic_add",
    ),
    (
        16,
        FP_ATOMIC_GLOBAL_MIN_MAX,
        "__opencl_c_ext_fp16_global_atomic_min_max",
    ),
    (
        16,
        FP_ATOMIC_LOCAL_MIN_MAX,
        "__opencl_c_ext_fp16_local_atomic_min_max",
    ),
    (
        32,
        FP_ATOMIC_GLOBAL_ADD,
        "__opencl_c_ext_fp32_global_atomic_add",
    ),
    (
        32,
        FP_ATOMIC_LOCAL_ADD,
        "__opencl_c_ext_fp32_local_atomic_add",
    ),
    (
        32,
        FP_ATOMIC_GLOBAL_MIN_MAX,
        "__opencl_c_ext_fp32_global_atomic_min_max",
    ),
    (
        32,
        FP_ATOMIC_LOCAL_MIN_MAX,
        "__opencl_c_ext_fp32_local_atomic_min_max",
    ),
    (
        64,
        FP_ATOMIC_GLOBAL_ADD,
        "__opencl_c_ext_fp64_global_atomic_add",
    ),
    (
        64,
        FP_ATOMIC_LOCAL_ADD,
        "__opencl_c_ext_fp64_local_atomic_add",
    ),
    (
        64,
        FP_ATOMIC_GLOBAL_MIN_MAX,
        "__opencl_c_ext_fp64_global_atomic_min_max",
    ),
    (
        64,
        FP_ATOMIC_LOCAL_MIN_MAX,
        "__opencl_c_ext_fp64_local_atomic_min_max",
    ),
];

/// `VkSubgroupFeatureFlagBits`, as in `DeviceCaps::subgroup_ops`.
pub const SUBGROUP_BASIC: u32 = 0x1;
pub const SUBGROUP_VOTE: u32 = 0x2;
pub const SUBGROUP_ARITHMETIC: u32 = 0x4;
pub const SUBGROUP_BALLOT: u32 = 0x8;
pub const SUBGROUP_SHUFFLE: u32 = 0x10;
pub const SUBGROUP_SHUFFLE_RELATIVE: u32 = 0x20;
pub const SUBGROUP_CLUSTERED: u32 = 0x40;

/// The optional sub-group extensions clang-15's SPIR target declares; those
/// the device does not support (`DeviceCaps::subgroup_extensions`) are
/// switched off with `-cl-ext` and their macros undefined, so a kernel that
/// uses them gets clang's error.
pub(crate) const CLANG_SUBGROUP_EXTENSIONS: [(&str, &str); 10] = [
    ("-cl_khr_subgroup_ballot", "cl_khr_subgroup_ballot"),
    (
        "-cl_khr_subgroup_clustered_reduce",
        "cl_khr_subgroup_clustered_reduce",
    ),
    (
        "-cl_khr_subgroup_extended_types",
        "cl_khr_subgroup_extended_types",
    ),
    (
        "-cl_khr_subgroup_non_uniform_arithmetic",
        "cl_khr_subgroup_non_uniform_arithmetic",
    ),
    (
        "-cl_khr_subgroup_non_uniform_vote",
        "cl_khr_subgroup_non_uniform_vote",
    ),
    ("-cl_khr_subgroup_rotate", "cl_khr_subgroup_rotate"),
    ("-cl_khr_subgroup_shuffle", "cl_khr_subgroup_shuffle"),
    (
        "-cl_khr_subgroup_shuffle_relative",
        "cl_khr_subgroup_shuffle_relative",
    ),
    ("-cl_intel_subgroups", "cl_intel_subgroups"),
    ("-cl_intel_subgroups_short", "cl_intel_subgroups_short"),
];

impl DeviceCaps {
    /// The sub-group extensions clang knows that the device does not report
    /// (`subgroup_extensions`): their `-cl-ext` switch is off and their macro
    /// undefined.
    pub(crate) fn unsupported_subgroup_extensions(&self) -> Vec<(&'static str, &'static str)> {
        let on = self.subgroup_extensions();
        CLANG_SUBGROUP_EXTENSIONS
            .iter()
            .copied()
            .filter(|(_, e)| !on.iter().any(|(n, _)| n == e))
            .collect()
    }
}
