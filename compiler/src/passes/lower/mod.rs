//! Lowering one kernel of an OpenCL (Kernel) SPIR-V module to a Vulkan
//! compute module: `lower_kernel`.
//!
//! # Algorithm
//!
//! The output is a new module built from the input one (ids of values are
//! kept; types are re-created, hash-consed, through `Out`):
//!
//! * **Pointers are integers** (DESIGN §4, physical addressing). A pointer
//!   type becomes `u64` for CrossWorkgroup, UniformConstant and Generic and
//!   `u32` for Workgroup, Function and Private. Where a pointer points
//!   (`Space`) is inferred by a data-flow pass over the kernel's call
//!   graph (`analyses::address_space`): from the storage class for most
//!   types, from the operands for Generic/UniformConstant ones (casts,
//!   access chains, phis, selects, call arguments, returned values).
//!   Generic pointers carry a tag in their top bits (`generic`); where
//!   the space is known only at run time, accesses branch on it
//!   (`passes::dispatch_generic`).
//! * Access chains become integer arithmetic with OpenCL C sizes and struct
//!   offsets (`analyses::type_table`); pointer casts vanish.
//! * Global memory: a load/store is `OpConvertUToPtr` to a
//!   PhysicalStorageBuffer pointer of the scalar/vector type plus an
//!   `Aligned` access. Composites are split into members; bool is a byte.
//!   With descriptor addressing (`descriptor`) the same u64 values are
//!   `slot << 32 | offset` and accesses go through typed views of the
//!   slot's storage-buffer binding; POD arguments come from their buffers.
//! * `__local` memory: one Workgroup `u32` array holds every kernel-scope
//!   `__local` variable (at static offsets) and then each `__local` pointer
//!   argument (sized by its SpecId, rounded up to 16 bytes, aligned to
//!   16 bytes or to its pointee's alignment if larger). Private memory
//!   addressed through pointers (allocas) lives in one per-invocation
//!   Private `u32` array, one static frame per function (OpenCL forbids
//!   recursion). Program-scope `__constant` data is a Private `u32` array
//!   with an initializer, except large tables, which live in the program's
//!   buffer like `__global` variables (`global_vars`). Accesses to these
//!   are assembled from word accesses (shift/mask/bitcast); sub-word stores
//!   to `__local` use two atomics (and/or) so neighbouring bytes written by
//!   other work-items are never lost (`memory`, `variables`).
//! * Program-scope `__global` variables (and large `__constant` tables)
//!   live in the program's global-variable buffer (`passes::global_vars`):
//!   a function that uses one computes its address from the buffer's
//!   address (two implicit push-constant fields) at its top. printf writes
//!   records into the launch's printf buffer (`printf`; a binding of its
//!   own with descriptor addressing).
//! * Images and samplers (`image`): descriptor variables per
//!   the ABI's descriptor sets; each image/sampler value is resolved to
//!   its kernel argument or literal sampler (`analyses::image_origins`), so
//!   functions take none; OpenCL's addressing and filter modes are emulated
//!   where Vulkan's differ.
//! * Kernel arguments come from push constants (`args`), OpenCL builtin
//!   variables from Vulkan builtins, spec constants and implicit
//!   push-constant fields (`workitem`), OpenCL.std from GLSL.std.450 or
//!   inline code (`ext_inst`).
//! * Atomics, fences and barriers keep OpenCL's memory orders in Vulkan's
//!   terms: scopes Device/Workgroup, seq_cst as acq_rel, storage-class
//!   bits on every ordered operation (`atomic`). 64-bit atomics on
//!   `__local` memory (whose array has 32-bit words) run under work-group
//!   lock words kept after the static `__local` data (`local64`).
//! * Conversions keep OpenCL's rounding modes and saturation (`convert`,
//!   `narrow`); 8/16-wide vectors are arrays of 4-wide parts (`wide`);
//!   sub-group functions are GroupNonUniform instructions (`subgroup`).
//! * Bit-field instructions on every integer width (`bit_field`), integer
//!   dot products (`dot_product`) and kernel clocks (`clock`);
//!   OpExpectKHR is its value and OpAssumeTrueKHR is dropped
//!   (cl_khr_expect_assume: hints only).
//!
//! # Structure
//!
//! The inputs are analyses computed once and read-only here
//! (`analyses::kernel_facts`: the module index, the kernel's call graph,
//! address spaces, image origins). `KernelLowering::run` (`kernel`) runs
//! the stages: `scan_images`, `lower_constants` / `classify_globals` /
//! `assign_frames` (`variables`), `prepare_descriptors`, `lower_function`
//! (`function`, the instruction walk that dispatches every instruction to
//! its concern), `build_entry` (`args`), then `finish_globals`,
//! `finish_images` and `assemble`. State lives in two places:
//!
//! * `context::Lower`, the shared context: the analyses, the module being
//!   built (`emit::Out`, value aliases, the working type table) and what
//!   several concerns read and write (memory arrays, push constants,
//!   builtins, sub-group capabilities, descriptor addressing). Concerns
//!   without state of their own (`memory`, `descriptor`, `workitem`,
//!   `ext_inst`, `wide`, `subgroup`, `convert`, `narrow`, `values`) are
//!   methods on it.
//! * State one concern owns (images, atomics, printf) is held by
//!   `KernelLowering` and reaches the concern through its view
//!   (`image::LowerImages`, `atomic::LowerAtomics`, `printf::LowerPrintf`):
//!   the shared context plus that state only.
//!
//! # Gaps
//!
//! Sub-groups: `subgroup`. Pipes and device enqueue are reported as
//! unsupported (images and samplers: see `image`); 8/16-wide vectors,
//! structs passed by value and dynamic-size memcpy too.

mod args;
mod assemble;
mod atomic;
mod bit_field;
mod clock;
mod context;
mod convert;
mod descriptor;
mod dot_product;
mod emit;
mod ext_inst;
mod function;
mod generic;
mod helper_fn;
mod image;
mod kernel;
mod local64;
mod memory;
mod narrow;
mod printf;
mod subgroup;
mod subgroup_dispatch;
mod values;
mod variables;
mod vmm;
mod wide;
mod work_group;
mod workitem;

use std::collections::HashMap;

use rspirv::spirv::Word;

use crate::analyses::image_origins::Origin;
use crate::analyses::kernel_facts::KernelFacts;
use crate::analyses::module_index::ModuleIndex;
use crate::caps::DeviceCaps;
use context::Lower;
use kernel::KernelLowering;

pub use args::ArgLayout;
pub(crate) use ext_inst::ROUNDED_STORE;
pub use kernel::LoweredKernel;
pub(crate) use wide::wide_access;

/// A lowering failure: the message, and the source line it concerns.
pub struct LowerError {
    pub message: String,
    pub line: Option<u32>,
}

/// Lowers the kernel whose OpEntryPoint is `entry` (an index into the
/// entry points of `ix`'s module) to a self-contained Vulkan compute
/// module. `ix` is the module's index, built once for all its kernels;
/// `image_origins`: `analyses::image_origins::opaque_origins` of the
/// module.
pub fn lower_kernel(
    ix: &ModuleIndex,
    entry: usize,
    caps: &DeviceCaps,
    global_offsets: &HashMap<Word, u64>,
    image_origins: &HashMap<Word, Origin>,
) -> Result<LoweredKernel, LowerError> {
    let entry_fn = ix.src.entry_points[entry].operands[1].unwrap_id_ref();
    let facts =
        KernelFacts::new(ix, entry_fn, global_offsets, image_origins).map_err(|message| {
            LowerError {
                message,
                line: None,
            }
        })?;
    let mut l = KernelLowering::new(Lower::new(&facts, caps));
    let r = l.run(entry);
    r.map_err(|message| LowerError {
        message,
        line: l.line,
    })
}
