//! What a build produces: a `Program` of `Kernel`s, each a Vulkan module
//! with the reflection the runtime needs (`backend::reflect` fills it in).

use crate::abi::{Addressing, ArgBuffer, GlobalVariables, ImplicitField, KernelArg, PrintfCall};

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
    /// Sub-groups per work-group the kernel requires (SPIR-V execution
    /// mode SubgroupsPerWorkgroup(Id)), CL_KERNEL_COMPILE_NUM_SUB_GROUPS;
    /// 0 when it requires none.
    pub compile_num_sub_groups: u32,
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
