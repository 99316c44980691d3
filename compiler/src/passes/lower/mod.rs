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
//!   (`Space`) is inferred by a data-flow pass over the kernel's call graph
//!   (`analyses::address_space`): from the storage class for most types, from the
//!   operands for Generic/UniformConstant ones (casts, access chains, phis,
//!   selects, call arguments, returned values).
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
//!   buffer like `__global` variables (`global_vars`). Accesses to these are assembled from word
//!   accesses (shift/mask/bitcast); sub-word stores to `__local` use two
//!   atomics (and/or) so neighbouring bytes written by other work-items
//!   are never lost.
//! * Program-scope `__global` variables (and large `__constant` tables)
//!   live in the program's global-variable buffer (`passes::global_vars`):
//!   a function that uses one computes its address from the buffer's
//!   address (two implicit push-constant fields) at its top. printf writes records into the
//!   launch's printf buffer (`printf`; a binding of its own with descriptor
//!   addressing).
//! * Images and samplers (`image`, `sampler`): descriptor variables per
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
//!
//! # Gaps
//!
//! Sub-groups: `subgroup`. Pipes and device enqueue are reported as unsupported
//! (images and samplers: see `image`); 8/16-wide vectors, structs
//! passed by value, dynamic-size memcpy and generic pointers whose address
//! space cannot be inferred statically too.

mod args;
mod assemble;
mod atomic;
mod atomic_kinds;
mod context;
mod convert;
mod descriptor;
mod emit;
mod ext_inst;
mod function;
mod image;
mod local64;
mod memory;
mod narrow;
mod printf;
mod subgroup;
mod values;
mod variables;
mod vmm;
mod wide;
mod workitem;

use std::collections::HashMap;

use rspirv::dr::{self, Operand};
use rspirv::spirv::{Capability, ExecutionMode, Word};

use crate::analyses::image_origins::Origin;
use crate::analyses::kernel_facts::KernelFacts;
use crate::analyses::module_index::ModuleIndex;
use crate::{Addressing, ArgBuffer, DeviceCaps, ImplicitField, PrintfCall};
use context::{Lower, Res};

pub use args::ArgLayout;
pub(crate) use ext_inst::ROUNDED_STORE;

/// The result of lowering one kernel.
pub struct LoweredKernel {
    pub module: dr::Module,
    pub args: Vec<ArgLayout>,
    pub push_constant_size: u32,
    pub arg_buffer: Option<ArgBuffer>,
    pub implicit: Vec<(ImplicitField, u32)>,
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<String>,
    pub static_local_size: u32,
    pub private_size: u32,
    pub printf: Vec<PrintfCall>,
    pub printf_strings: Vec<u8>,
    /// Descriptor set of the image/sampler arguments (`Kernel::descriptor_set`).
    pub descriptor_set: Option<u32>,
    /// `Kernel::literal_samplers`.
    pub literal_samplers: Vec<u32>,
    pub addressing: Addressing,
    /// `Kernel::global_variables_binding`.
    pub global_variables_binding: Option<u32>,
    /// `Kernel::printf_binding`.
    pub printf_binding: Option<u32>,
}

/// A lowering failure: the message, and the source line it concerns.
pub struct LowerError {
    pub message: String,
    pub line: Option<u32>,
}

/// Lowers the kernel whose OpEntryPoint is `entry` (an index into
/// `module.entry_points`) to a self-contained Vulkan compute module.
/// `image_origins`: `analyses::image_origins::opaque_origins` of `module`.
pub fn lower_kernel(
    module: &dr::Module,
    entry: usize,
    caps: &DeviceCaps,
    global_offsets: &HashMap<Word, u64>,
    image_origins: &HashMap<Word, Origin>,
) -> Result<LoweredKernel, LowerError> {
    let ix = ModuleIndex::new(module);
    let entry_fn = module.entry_points[entry].operands[1].unwrap_id_ref();
    let facts =
        KernelFacts::new(&ix, entry_fn, global_offsets, image_origins).map_err(|message| {
            LowerError {
                message,
                line: None,
            }
        })?;
    let mut l = Lower::new(&facts, caps);
    let r = l.run(entry);
    r.map_err(|message| LowerError {
        message,
        line: l.line,
    })
}

impl<'a> Lower<'a> {
    fn run(&mut self, entry: usize) -> Res<LoweredKernel> {
        let ep = &self.ix.src.entry_points[entry];
        let entry_fn = self.facts.entry_fn;
        let name = ep.operands[2].unwrap_literal_string().to_string();
        let mut hint = None;
        let mut vec_hint = None;
        for em in &self.ix.src.execution_modes {
            if em.operands[0] != Operand::IdRef(entry_fn) {
                continue;
            }
            let lits: Vec<u32> = em.operands[2..]
                .iter()
                .filter_map(|o| {
                    if let Operand::LiteralBit32(v) = o {
                        Some(*v)
                    } else {
                        None
                    }
                })
                .collect();
            match em.operands[1] {
                Operand::ExecutionMode(ExecutionMode::LocalSize) if lits.len() == 3 => {
                    self.work.reqd_size = Some([lits[0], lits[1], lits[2]])
                }
                Operand::ExecutionMode(ExecutionMode::LocalSizeHint) if lits.len() == 3 => {
                    hint = Some([lits[0], lits[1], lits[2]])
                }
                Operand::ExecutionMode(ExecutionMode::VecTypeHint) if !lits.is_empty() => {
                    vec_hint = Some(vec_type_hint_name(lits[0]))
                }
                _ => {}
            }
        }
        let facts = self.facts;
        let order = &facts.order;
        if self.caps.subgroups() && self.uses_subgroups(order) {
            self.work.flatten = true;
            self.use_group_cap(Capability::GroupNonUniform);
        }
        self.scan_images(entry_fn, order)?;
        self.lower_constants();
        self.classify_globals(order)?;
        self.assign_frames(order)?;
        self.prepare_descriptors(order, entry_fn)?;
        self.pc.spill_meta = self.meta_crowds_push_constants();

        // Lower every reachable function.
        let mut functions = Vec::new();
        for &f in order {
            let func = self.lower_function(self.ix.funcs[&f])?;
            functions.push(func);
        }
        self.line = None;
        let main = self.out.id();
        let arg_info = self.build_entry(main, entry_fn, &mut functions)?;
        functions.append(&mut self.local64.functions);
        let (module, bindings) = self.assemble(main, &name, functions)?;
        Ok(LoweredKernel {
            module,
            args: arg_info.args,
            push_constant_size: arg_info.push_constant_size,
            arg_buffer: arg_info.arg_buffer,
            implicit: arg_info.implicit,
            reqd_work_group_size: self.work.reqd_size,
            work_group_size_hint: hint,
            vec_type_hint: vec_hint,
            static_local_size: self.mem.static_local_size as u32,
            private_size: self.mem.private_size as u32,
            printf_strings: if self.printf.calls.is_empty() {
                Vec::new()
            } else {
                self.mem.const_data.clone()
            },
            printf: std::mem::take(&mut self.printf.calls),
            descriptor_set: bindings.descriptor_set,
            literal_samplers: bindings.literal_samplers,
            addressing: self.caps.addressing,
            global_variables_binding: self.desc.globals_binding,
            printf_binding: self.desc.printf.map(|(_, b)| b),
        })
    }
}

/// `vec_type_hint` operand of OpExecutionMode VecTypeHint → `float4`.
fn vec_type_hint_name(v: u32) -> String {
    let base = match v & 0xffff {
        0 => "char",
        1 => "short",
        2 => "int",
        3 => "long",
        4 => "half",
        5 => "float",
        6 => "double",
        _ => "int",
    };
    let n = v >> 16;
    if n <= 1 {
        base.to_string()
    } else {
        format!("{base}{n}")
    }
}
