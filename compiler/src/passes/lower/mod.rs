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
mod atomic;
mod atomic_kinds;
mod context;
mod descriptor;
mod emit;
mod ext_inst;
mod geometric;
mod image;
mod local64;
mod memory;
mod narrow;
mod printf;
mod sampler;
mod shuffle;
mod subgroup;
mod vmm;
mod wide;
mod workitem;

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{self, BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass, Word};

use super::global_vars::Constants;
use crate::analyses::address_space::Space;
use crate::analyses::image_origins::Origin;
use crate::analyses::kernel_facts::KernelFacts;
use crate::analyses::module_index::ModuleIndex;
use crate::analyses::type_table::Ty;
use crate::{Addressing, ArgBuffer, DeviceCaps, ImplicitField, PrintfCall};
use context::{memory_align, ClBuiltin, Lower, MaskKind, Res};
use emit::{ids, Block};

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

    /// Re-emits the input's constants (same ids, output types). Constants
    /// whose type cannot be lowered are left out: a use of one is reported
    /// where its type is lowered.
    fn lower_constants(&mut self) {
        for g in &self.ix.src.types_global_values {
            let op = g.class.opcode;
            if !matches!(
                op,
                Op::Constant
                    | Op::ConstantComposite
                    | Op::ConstantNull
                    | Op::ConstantTrue
                    | Op::ConstantFalse
                    | Op::Undef
                    | Op::SpecConstant
                    | Op::SpecConstantTrue
                    | Op::SpecConstantFalse
                    | Op::SpecConstantComposite
            ) {
                continue;
            }
            let Some(t) = g.result_type else { continue };
            let Ok(nt) = self.lower_ty(t) else { continue };
            if op == Op::ConstantComposite && self.is_wide(t) {
                // 8/16-wide: regroup the components into 4-wide parts.
                let Ok(pt) = self.wide_part_ty(t) else {
                    continue;
                };
                let comps: Vec<Word> = g.operands.iter().filter_map(|o| o.id_ref_any()).collect();
                let parts: Vec<Word> = comps
                    .chunks(4)
                    .map(|c| self.out.c_composite(pt, c))
                    .collect();
                self.out
                    .globals
                    .push(Instruction::new(op, Some(nt), g.result_id, ids(&parts)));
                continue;
            }
            self.out.globals.push(Instruction::new(
                op,
                Some(nt),
                g.result_id,
                g.operands.clone(),
            ));
        }
    }

    /// Decides what each global variable used by the kernel becomes:
    /// builtins, `__local` variables at offsets of the work-group array,
    /// program-scope constant data at offsets of the constant array.
    fn classify_globals(&mut self, order: &[Word]) -> Res<()> {
        let mut used: Vec<Word> = Vec::new();
        let mut seen = HashSet::new();
        for &f in order {
            for inst in self.ix.funcs[&f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
            {
                for o in &inst.operands {
                    if let Some(id) = o.id_ref_any() {
                        if let Some(g) = self.ix.globals.get(&id) {
                            if g.class.opcode == Op::Variable && seen.insert(id) {
                                used.push(id);
                            }
                        }
                    }
                }
            }
        }
        for var in used {
            let g = self.ix.globals[&var];
            let Ty::Pointer(sc, pointee) = self.tys.get(g.result_type.unwrap_or(0)).clone() else {
                continue;
            };
            match sc {
                StorageClass::Input => {
                    let b = self
                        .ix
                        .builtin_of(var)
                        .ok_or("an Input variable that is not a builtin")?;
                    let cb = match b {
                        BuiltIn::GlobalInvocationId => ClBuiltin::GlobalId,
                        BuiltIn::LocalInvocationId => ClBuiltin::LocalId,
                        BuiltIn::WorkgroupId => ClBuiltin::GroupId,
                        BuiltIn::GlobalSize => ClBuiltin::GlobalSize,
                        BuiltIn::WorkgroupSize => ClBuiltin::LocalSize,
                        BuiltIn::EnqueuedWorkgroupSize => ClBuiltin::EnqueuedLocalSize,
                        BuiltIn::NumWorkgroups => ClBuiltin::NumGroups,
                        BuiltIn::GlobalOffset => ClBuiltin::GlobalOffset,
                        BuiltIn::WorkDim => ClBuiltin::WorkDim,
                        BuiltIn::GlobalLinearId => ClBuiltin::GlobalLinearId,
                        BuiltIn::LocalInvocationIndex => ClBuiltin::LocalLinearId,
                        BuiltIn::SubgroupSize
                        | BuiltIn::SubgroupMaxSize
                        | BuiltIn::NumSubgroups
                        | BuiltIn::NumEnqueuedSubgroups
                        | BuiltIn::SubgroupId
                        | BuiltIn::SubgroupLocalInvocationId
                            if !self.caps.subgroups() =>
                        {
                            return Err(format!(
                                "builtin {b:?}: sub-groups are not supported by this device"
                            ))
                        }
                        BuiltIn::SubgroupSize => ClBuiltin::SubgroupSize,
                        BuiltIn::SubgroupMaxSize => ClBuiltin::SubgroupMaxSize,
                        BuiltIn::NumSubgroups => ClBuiltin::NumSubgroups,
                        BuiltIn::NumEnqueuedSubgroups => ClBuiltin::NumEnqueuedSubgroups,
                        BuiltIn::SubgroupId => ClBuiltin::SubgroupId,
                        BuiltIn::SubgroupLocalInvocationId => ClBuiltin::SubgroupLocalId,
                        BuiltIn::SubgroupEqMask
                        | BuiltIn::SubgroupGeMask
                        | BuiltIn::SubgroupGtMask
                        | BuiltIn::SubgroupLeMask
                        | BuiltIn::SubgroupLtMask
                            if !self.caps.has_subgroup_ops(crate::SUBGROUP_BALLOT) =>
                        {
                            return Err(format!(
                                "builtin {b:?}: sub-group ballots are not supported by this device"
                            ))
                        }
                        BuiltIn::SubgroupEqMask => ClBuiltin::SubgroupMask(MaskKind::Eq),
                        BuiltIn::SubgroupGeMask => ClBuiltin::SubgroupMask(MaskKind::Ge),
                        BuiltIn::SubgroupGtMask => ClBuiltin::SubgroupMask(MaskKind::Gt),
                        BuiltIn::SubgroupLeMask => ClBuiltin::SubgroupMask(MaskKind::Le),
                        BuiltIn::SubgroupLtMask => ClBuiltin::SubgroupMask(MaskKind::Lt),
                        other => return Err(format!("builtin {other:?} is not supported")),
                    };
                    self.work.builtin_vars.insert(var, cb);
                }
                StorageClass::Workgroup => {
                    let align = self.tys.align_of(pointee).max(4);
                    let off = self.mem.static_local_size.next_multiple_of(align);
                    self.mem.static_local_size = off + self.tys.size_of(pointee);
                    self.mem.uses_local = true;
                    self.define_offset(var, off as u32, 32);
                }
                // A large table in the program's buffer (`global_vars`).
                StorageClass::UniformConstant if self.facts.global_offsets.contains_key(&var) => {}
                StorageClass::UniformConstant => {
                    let init = g.operands.get(1).and_then(|o| o.id_ref_any());
                    let align = self.tys.align_of(pointee).max(4) as usize;
                    let off = self.mem.const_data.len().next_multiple_of(align);
                    let size = self.tys.size_of(pointee) as usize;
                    self.mem.const_data.resize(off + size, 0);
                    if let Some(init) = init {
                        let mut bytes = vec![0u8; size];
                        let consts = Constants {
                            globals: &self.ix.globals,
                            tys: &self.tys,
                            spec_ops: &HashMap::new(),
                        };
                        consts.serialize(init, &mut bytes, 0, &|_| None, &mut |_| {})?;
                        self.mem.const_data[off..off + size].copy_from_slice(&bytes);
                    }
                    self.mem.uses_const = true;
                    self.mem.const_offsets.insert(var, off as u64);
                    self.define_offset(var, off as u32, 64);
                }
                StorageClass::CrossWorkgroup => {
                    if !self.facts.global_offsets.contains_key(&var) {
                        return Err(format!(
                            "program-scope __global variable '{}' has no place in the program's buffer",
                            self.ix.name_of(var)
                        ));
                    }
                }
                other => {
                    return Err(format!(
                        "global variable in storage class {other:?} is not supported"
                    ))
                }
            }
        }
        Ok(())
    }

    /// Defines `id` as a constant byte offset (of the pointer's width).
    fn define_offset(&mut self, id: Word, off: u32, width: u32) {
        let t = self.out.t_int(width);
        let lit = if width == 64 {
            Operand::LiteralBit64(off as u64)
        } else {
            Operand::LiteralBit32(off)
        };
        self.out
            .globals
            .push(Instruction::new(Op::Constant, Some(t), Some(id), vec![lit]));
    }

    /// Gives every Function-storage variable of the kernel's functions a
    /// static offset in the private frame array.
    fn assign_frames(&mut self, order: &[Word]) -> Res<()> {
        for &f in order {
            for inst in self.ix.funcs[&f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
            {
                if inst.class.opcode != Op::Variable {
                    continue;
                }
                let Ty::Pointer(_, pointee) = self.tys.get(inst.result_type.unwrap_or(0)).clone()
                else {
                    continue;
                };
                if self.is_opaque(pointee) {
                    // Holds an image or sampler (-O0): resolved statically.
                    continue;
                }
                let align = self.tys.align_of(pointee).max(4);
                let off = self.mem.private_size.next_multiple_of(align);
                self.mem.private_size = off + self.tys.size_of(pointee).max(1);
                self.mem.uses_private = true;
                self.define_offset(inst.result_id.unwrap_or(0), off as u32, 32);
            }
        }
        Ok(())
    }

    fn lower_function(&mut self, f: &'a dr::Function) -> Res<dr::Function> {
        let mut out = dr::Function::new();
        let def = f.def.as_ref().ok_or("function without OpFunction")?;
        let rt = self.lower_ty(def.result_type.unwrap_or(0))?;
        let fty = self.lower_ty(def.operands[1].unwrap_id_ref())?;
        // Pure/Const no longer hold once builtins read push constants and
        // pointers became memory accesses; keep the inlining hints only.
        let control = match def.operands[0] {
            Operand::FunctionControl(c) => {
                c & (spirv::FunctionControl::INLINE | spirv::FunctionControl::DONT_INLINE)
            }
            _ => spirv::FunctionControl::NONE,
        };
        out.def = Some(Instruction::new(
            Op::Function,
            Some(rt),
            def.result_id,
            vec![Operand::FunctionControl(control), Operand::IdRef(fty)],
        ));
        out.end = Some(Instruction::new(Op::FunctionEnd, None, None, vec![]));
        for p in &f.parameters {
            if self.caps.images && self.is_opaque(p.result_type.unwrap_or(0)) {
                continue;
            }
            let t = self.lower_ty(p.result_type.unwrap_or(0))?;
            out.parameters.push(Instruction::new(
                Op::FunctionParameter,
                Some(t),
                p.result_id,
                vec![],
            ));
        }
        // Builtin loads whose uses all extract a constant component are
        // computed per component at the use.
        let mut complex: HashSet<Word> = HashSet::new();
        let mut builtin_loads: HashMap<Word, ClBuiltin> = HashMap::new();
        for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
            if inst.class.opcode == Op::Load {
                if let Some(&cb) = self
                    .work
                    .builtin_vars
                    .get(&inst.operands[0].unwrap_id_ref())
                {
                    builtin_loads.insert(inst.result_id.unwrap_or(0), cb);
                }
            }
        }
        for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
            for (k, o) in inst.operands.iter().enumerate() {
                if let Some(id) = o.id_ref_any() {
                    if builtin_loads.contains_key(&id)
                        && !(k == 0
                            && matches!(
                                inst.class.opcode,
                                Op::CompositeExtract | Op::VectorExtractDynamic
                            ))
                    {
                        complex.insert(id);
                    }
                }
            }
        }
        for (k, blk) in f.blocks.iter().enumerate() {
            let mut b = Block::default();
            if k == 0 {
                self.define_global_addresses(&mut b, f);
            }
            for inst in &blk.instructions {
                if inst.class.opcode == Op::Load {
                    let id = inst.result_id.unwrap_or(0);
                    if let Some(&cb) = builtin_loads.get(&id) {
                        let ty = inst.result_type.unwrap_or(0);
                        if complex.contains(&id) || !matches!(self.tys.get(ty), Ty::Vector(..)) {
                            let v = self.builtin_value(&mut b, cb, ty)?;
                            self.alias.insert(id, v);
                        } else {
                            self.work.deferred_builtins.insert(id, (cb, ty));
                        }
                        continue;
                    }
                }
                self.lower_inst(&mut b, inst)?;
            }
            let mut nb = dr::Block::new();
            nb.label = blk.label.clone();
            nb.instructions = b.insts;
            out.blocks.push(nb);
        }
        // Function variables are defined as constants: drop them (they were
        // skipped) — nothing else to do. Apply aliases now that all are known.
        for blk in &mut out.blocks {
            for inst in &mut blk.instructions {
                for o in &mut inst.operands {
                    if let Some(id) = o.id_ref_any_mut() {
                        let mut x = *id;
                        while let Some(&a) = self.alias.get(&x) {
                            x = a;
                        }
                        *id = x;
                    }
                }
            }
        }
        Ok(out)
    }

    /// Defines, at the top of function `f`, the address of every
    /// program-scope `__global` variable `f` uses: the global-variable
    /// buffer's address, read from its implicit fields, plus the variable's
    /// offset. The variables' ids are aliases of these values while `f` is
    /// lowered.
    fn define_global_addresses(&mut self, b: &mut Block, f: &dr::Function) {
        let mut wanted: Vec<(Word, u64)> = Vec::new();
        let mut seen = HashSet::new();
        for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
            for id in inst.operands.iter().filter_map(|o| o.id_ref_any()) {
                if !seen.insert(id) {
                    continue;
                }
                if let Some(&off) = self.facts.global_offsets.get(&id) {
                    wanted.push((id, off));
                }
            }
        }
        if wanted.is_empty() {
            return;
        }
        let base = if self.desc.enabled {
            // Descriptor addressing: offsets into the buffer's own slot.
            let base = self.out.c_u64((crate::GLOBAL_VARIABLES_SLOT as u64) << 32);
            self.desc_set_slot(base, crate::GLOBAL_VARIABLES_SLOT);
            base
        } else {
            let lo = self.implicit_field(b, ImplicitField::GlobalVariables(0));
            let hi = self.implicit_field(b, ImplicitField::GlobalVariables(1));
            let u32t = self.out.t_u32();
            let u64t = self.out.t_u64();
            let v2 = self.out.t_vec(u32t, 2);
            let v = self.emit(b, Op::CompositeConstruct, v2, ids(&[lo, hi]));
            self.emit(b, Op::Bitcast, u64t, ids(&[v]))
        };
        for (id, off) in wanted {
            let a = self.addr_add(b, Space::Global, base, off);
            self.alias.insert(id, a);
        }
    }

    fn lower_inst(&mut self, b: &mut Block, inst: &'a Instruction) -> Res<()> {
        let op = inst.class.opcode;
        if self.is_image_inst(inst) {
            return self.lower_image_inst(b, inst);
        }
        if self.involves_wide(inst) && self.lower_wide(b, inst)? {
            return Ok(());
        }
        if self.is_subgroup_inst(inst) {
            return self.lower_subgroup_inst(b, inst);
        }
        let id_op = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        match op {
            Op::Line => {
                if let Some(Operand::LiteralBit32(l)) = inst.operands.get(1) {
                    self.line = Some(*l);
                }
            }
            Op::NoLine | Op::LifetimeStart | Op::LifetimeStop | Op::Variable => {
                if op == Op::Variable {
                    if let Some(init) = inst.operands.get(1).and_then(|o| o.id_ref_any()) {
                        let ptr = inst.result_id.unwrap_or(0);
                        let Ty::Pointer(_, pointee) =
                            self.tys.get(inst.result_type.unwrap_or(0)).clone()
                        else {
                            return Ok(());
                        };
                        let align = self.tys.align_of(pointee);
                        let v = self.v(init);
                        self.store_value(b, Space::Private, ptr, pointee, v, align)?;
                    }
                }
            }
            Op::ExtInst => {
                let set = id_op(0);
                let set_name = self
                    .ix
                    .src
                    .ext_inst_imports
                    .iter()
                    .find(|i| i.result_id == Some(set))
                    .map(|i| i.operands[0].unwrap_literal_string().to_string())
                    .unwrap_or_default();
                if set_name == "OpenCL.std" {
                    self.lower_cl_ext_inst(b, inst)?;
                } else if !set_name.contains("DebugInfo") && !set_name.starts_with("NonSemantic") {
                    return Err(format!(
                        "extended instruction set '{set_name}' is not supported"
                    ));
                }
            }
            Op::Load => {
                let ptr = id_op(0);
                let ty = inst.result_type.unwrap_or(0);
                let align =
                    memory_align(&inst.operands[1..]).unwrap_or_else(|| self.tys.align_of(ty));
                let space = self.space(ptr)?;
                let addr = self.addr_of(b, space, ptr)?;
                let v = self.load_value(b, space, addr, ty, align)?;
                self.alias.insert(inst.result_id.unwrap_or(0), v);
            }
            Op::Store => {
                let ptr = id_op(0);
                let val = id_op(1);
                let ty = self.ty_of(val);
                let align =
                    memory_align(&inst.operands[2..]).unwrap_or_else(|| self.tys.align_of(ty));
                let space = self.space(ptr)?;
                let addr = self.addr_of(b, space, ptr)?;
                let val = self.v(val);
                self.store_value(b, space, addr, ty, val, align)?;
            }
            Op::CopyMemory | Op::CopyMemorySized => self.lower_copy_memory(b, inst)?,
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => {
                let chain = matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
                let base = id_op(0);
                let idx: Vec<Word> = inst.operands[1..]
                    .iter()
                    .filter_map(|o| o.id_ref_any())
                    .collect();
                let v = self.access_chain(b, base, &idx, chain)?;
                self.alias.insert(inst.result_id.unwrap_or(0), v);
            }
            Op::Bitcast
            | Op::ConvertPtrToU
            | Op::ConvertUToPtr
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::GenericCastToPtrExplicit
            | Op::CopyObject
            | Op::CopyLogical => {
                let src = id_op(0);
                let to = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let from_ty = self.ty_of(src);
                let from = self.lower_ty(from_ty)?;
                let v = self.v(src);
                let id = inst.result_id.unwrap_or(0);
                if to == from {
                    // OpCopyLogical between two input types that lower to
                    // one type (the lowering drops their layout
                    // decorations) is a plain copy.
                    self.alias.insert(id, v);
                } else if op == Op::CopyLogical {
                    b.push(Op::CopyLogical, Some(to), Some(id), vec![Operand::IdRef(v)]);
                } else if op == Op::Bitcast
                    && !matches!(self.tys.get(from_ty), Ty::Pointer(..))
                    && !matches!(self.tys.get(inst.result_type.unwrap_or(0)), Ty::Pointer(..))
                {
                    b.push(Op::Bitcast, Some(to), Some(id), vec![Operand::IdRef(v)]);
                } else {
                    // Integer ↔ pointer representations of different widths.
                    let from_w = self.int_width(from);
                    let to_w = self.int_width(to);
                    if from_w.is_some() && to_w.is_some() && from_w != to_w {
                        b.push(Op::UConvert, Some(to), Some(id), vec![Operand::IdRef(v)]);
                    } else {
                        b.push(Op::Bitcast, Some(to), Some(id), vec![Operand::IdRef(v)]);
                    }
                }
            }
            Op::PtrEqual | Op::PtrNotEqual => {
                let t = self.out.t_bool();
                let o = if op == Op::PtrEqual {
                    Op::IEqual
                } else {
                    Op::INotEqual
                };
                let (a, c) = (self.v(id_op(0)), self.v(id_op(1)));
                b.push(o, Some(t), inst.result_id, ids(&[a, c]));
            }
            Op::PtrDiff => {
                let t = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let Ty::Pointer(_, pointee) = self.tys.get(self.ty_of(id_op(0))).clone() else {
                    return Err("OpPtrDiff on non-pointers".into());
                };
                let (a, c) = (self.v(id_op(0)), self.v(id_op(1)));
                let d = self.emit(b, Op::ISub, t, ids(&[a, c]));
                let w = self.int_width(t).unwrap_or(64);
                let s = self.out.c_int(w, self.tys.size_of(pointee));
                b.push(Op::SDiv, Some(t), inst.result_id, ids(&[d, s]));
            }
            Op::CompositeExtract => {
                let src = id_op(0);
                if let Some(&(cb, _)) = self.work.deferred_builtins.get(&src) {
                    let d = inst.operands[1].unwrap_literal_bit32();
                    let ty = inst.result_type.unwrap_or(0);
                    let v = self.builtin_component(b, cb, d, ty)?;
                    self.alias.insert(inst.result_id.unwrap_or(0), v);
                } else {
                    self.pass_through(b, inst)?;
                }
            }
            Op::VectorExtractDynamic => {
                let src = id_op(0);
                if let Some(&(cb, vty)) = self.work.deferred_builtins.get(&src) {
                    let v = self.builtin_value(b, cb, vty)?;
                    let idx_orig = id_op(1);
                    let idx = self.v(idx_orig);
                    let ty = inst.result_type.unwrap_or(0);
                    let r = self.builtin_dynamic_extract(b, cb, v, idx, idx_orig, ty)?;
                    self.alias.insert(inst.result_id.unwrap_or(0), r);
                } else {
                    self.pass_through(b, inst)?;
                }
            }
            Op::ControlBarrier | Op::MemoryBarrier => self.lower_barrier(b, inst)?,
            Op::ConvertFToS
            | Op::ConvertFToU
            | Op::SConvert
            | Op::UConvert
            | Op::FConvert
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::SatConvertSToU
            | Op::SatConvertUToS => self.lower_conversion(b, inst)?,
            op if is_float_class(op) => self.lower_float_class(b, inst)?,
            Op::BitCount => {
                let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let x = self.v(id_op(0));
                let r = self.popcount(b, rt, x);
                self.alias.insert(inst.result_id.unwrap_or(0), r);
            }
            Op::FunctionCall => {
                // Image and sampler arguments are not passed (`image`).
                let mut call = inst.clone();
                call.operands = inst
                    .operands
                    .iter()
                    .enumerate()
                    .filter(|&(k, o)| {
                        k == 0
                            || !o
                                .id_ref_any()
                                .is_some_and(|a| self.is_opaque(self.ty_of(a)))
                    })
                    .map(|(_, o)| o.clone())
                    .collect();
                self.pass_through(b, &call)?;
            }
            Op::Return
            | Op::ReturnValue
            | Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Unreachable
            | Op::Phi
            | Op::Select
            | Op::Undef => self.pass_through(b, inst)?,
            _ if format!("{op:?}").starts_with("Atomic") => self.lower_atomic(b, inst)?,
            Op::FDiv if self.is_half_ty(inst.result_type.unwrap_or(0)) => {
                let t = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let (x, y) = (self.v(id_op(0)), self.v(id_op(1)));
                let r = self.half_div(b, t, x, y);
                self.alias.insert(inst.result_id.unwrap_or(0), r);
            }
            _ => {
                if op_needs_kernel(inst) {
                    return Err(unsupported_op_message(op));
                }
                self.pass_through(b, inst)?;
            }
        }
        Ok(())
    }

    /// Whether the input type `t` is half or a half vector.
    fn is_half_ty(&self, t: Word) -> bool {
        let e = match self.tys.get(t) {
            Ty::Vector(e, _) => *e,
            _ => t,
        };
        matches!(self.tys.get(e), Ty::Float(16))
    }

    /// `x / y` of halves (type `t`, scalar or vector): in float, rounded
    /// to half once. OpenCL wants half division within 1 ulp; Vulkan's
    /// 16-bit OpFDiv may be 2.5 ulp off, its 32-bit one within 2.5 float
    /// ulp (2^-13 of a half ulp each).
    pub(crate) fn half_div(&mut self, b: &mut Block, t: Word, x: Word, y: Word) -> Word {
        let ft = self.float_like(t, 32);
        let fx = self.emit(b, Op::FConvert, ft, ids(&[x]));
        let fy = self.emit(b, Op::FConvert, ft, ids(&[y]));
        let q = self.emit(b, Op::FDiv, ft, ids(&[fx, fy]));
        self.narrow_to_half(b, q, ft, t, None)
    }

    /// Conversions: FPRoundingMode on float→int rounds first;
    /// SaturatedConversion clamps to the destination range.
    fn lower_conversion(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let id = inst.result_id.unwrap_or(0);
        let op = inst.class.opcode;
        let rounding = self.ix.decorations.get(&id).and_then(|v| {
            v.iter()
                .find_map(|d| match (d.operands.get(1), d.operands.get(2)) {
                    (
                        Some(Operand::Decoration(Decoration::FPRoundingMode)),
                        Some(Operand::FPRoundingMode(m)),
                    ) => Some(*m),
                    _ => None,
                })
        });
        let saturate = self.ix.has_decoration(id, Decoration::SaturatedConversion)
            || matches!(op, Op::SatConvertSToU | Op::SatConvertUToS);
        let src_id = inst.operands[0].unwrap_id_ref();
        let src = self.v(src_id);
        let src_ty = self.ty_of(src_id);
        let dst_ty = inst.result_type.unwrap_or(0);
        let r = if self.is_wide(dst_ty) {
            let (spt, dpt) = (self.wide_part_ty(src_ty)?, self.wide_part_ty(dst_ty)?);
            let mut parts = Vec::new();
            for i in 0..self.wide_parts(dst_ty) {
                let x = self.wide_part(b, src, spt, i);
                parts.push(self.convert_value(b, op, x, spt, dpt, rounding, saturate)?);
            }
            let t = self.lower_ty(dst_ty)?;
            self.emit(b, Op::CompositeConstruct, t, ids(&parts))
        } else {
            let (st, t) = (self.lower_ty(src_ty)?, self.lower_ty(dst_ty)?);
            self.convert_value(b, op, src, st, t, rounding, saturate)?
        };
        self.alias.insert(id, r);
        Ok(())
    }

    /// One conversion of `x` (output type `st`) to `t`: FPRoundingMode on
    /// float→int rounds first; saturation clamps to the destination range
    /// (NaN → 0).
    #[allow(clippy::too_many_arguments)]
    fn convert_value(
        &mut self,
        b: &mut Block,
        op: Op,
        x: Word,
        st: Word,
        t: Word,
        rounding: Option<spirv::FPRoundingMode>,
        saturate: bool,
    ) -> Res<Word> {
        let mut x = x;
        let mut op = op;
        match op {
            Op::ConvertFToS | Op::ConvertFToU => {
                use spirv::FPRoundingMode as R;
                let r = match rounding {
                    Some(R::RTE) => Some(spirv::GlslStd450Op::RoundEven),
                    Some(R::RTP) => Some(spirv::GlslStd450Op::Ceil),
                    Some(R::RTN) => Some(spirv::GlslStd450Op::Floor),
                    _ => None,
                };
                if let Some(r) = r {
                    x = self.glsl_round(b, r, st, x);
                }
                if saturate {
                    let signed = op == Op::ConvertFToS;
                    return Ok(self.saturating_float_to_int(b, op, x, st, t, signed));
                } else if self.out.scalar_width(self.out.elem(st)) == Some(64) {
                    x = self.clamp_double_to_int(b, x, st, t, op == Op::ConvertFToS);
                }
            }
            Op::ConvertSToF | Op::ConvertUToF => {
                use spirv::FPRoundingMode as R;
                let sw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
                let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
                // Significant bits of the source (the signed minimum is a
                // power of two) and of the float: fewer or as many, every
                // value converts exactly.
                let value_bits = if op == Op::ConvertSToF { sw - 1 } else { sw };
                let precision = match fw {
                    16 => 11,
                    32 => 24,
                    _ => 53,
                };
                if let (Some(mode @ (R::RTZ | R::RTP | R::RTN)), true) =
                    (rounding, value_bits > precision)
                {
                    return Ok(self.int_to_float_directed(b, op, x, st, t, mode));
                }
            }
            Op::FConvert => {
                use spirv::FPRoundingMode as R;
                let sw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
                let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
                if fw == 16 && sw > 16 {
                    // In integer arithmetic (`narrow`): NVIDIA folds an
                    // OpFConvert to half and back into nothing.
                    return Ok(self.narrow_to_half(b, x, st, t, rounding));
                }
                if let (Some(mode @ (R::RTZ | R::RTP | R::RTN)), true) = (rounding, fw < sw) {
                    return Ok(self.float_narrow_directed(b, x, st, t, mode));
                }
                return Ok(self.emit(b, Op::FConvert, t, ids(&[x])));
            }
            Op::SConvert | Op::UConvert | Op::SatConvertSToU | Op::SatConvertUToS => {
                let (sw, dw) = (
                    self.out.scalar_width(st).unwrap_or(32),
                    self.out.scalar_width(t).unwrap_or(32),
                );
                if saturate {
                    // Source signedness: SConvert/SatConvertSToU read a
                    // signed value; destination signedness: SConvert and
                    // SatConvertUToS write a signed one.
                    let src_signed = matches!(op, Op::SConvert | Op::SatConvertSToU);
                    let dst_signed = matches!(op, Op::SConvert | Op::SatConvertUToS);
                    x = self.saturate_int(b, x, st, sw, dw, src_signed, dst_signed);
                }
                let signed_to_unsigned = op == Op::SatConvertSToU;
                op = match op {
                    Op::SatConvertSToU => Op::SConvert,
                    Op::SatConvertUToS => Op::UConvert,
                    o => o,
                };
                if sw == dw {
                    return Ok(x);
                }
                if signed_to_unsigned && saturate && dw > sw {
                    // Widening a clamped non-negative value (SToU): zero-extend.
                    // (A saturated SConvert between signed types sign-extends:
                    // convert_int_sat((char)-5) is -5.)
                    op = Op::UConvert;
                }
            }
            _ => {}
        }
        Ok(self.emit(b, op, t, ids(&[x])))
    }

    /// An integer `x` (type `st`) to float `t` (half, float or double)
    /// rounded toward zero, +inf or -inf (`convert_T_rtz/rtp/rtn`):
    /// Vulkan's conversion rounds to nearest even, so the result `r` is
    /// compared with `x` exactly and moved one ulp where it lies on the
    /// wrong side. The comparison is in 64 bits: `r` converted back (an
    /// integer-valued float) against `x` extended, signed, or unsigned for
    /// ulong sources. `r` may lie outside the 64-bit range, where that
    /// conversion is undefined: at 2^63 (long or ulong near their maximum
    /// rounding up to float or double; 2^64 for ulong) `r` is above `x`,
    /// and so is +inf (a half above 65504), -inf below; those are decided
    /// by float comparisons and converted as 0. One ulp is one step of
    /// the bit pattern, which also takes an infinity to the largest finite
    /// value of its sign (a half rounded toward zero from above 65504).
    fn int_to_float_directed(
        &mut self,
        b: &mut Block,
        op: Op,
        x: Word,
        st: Word,
        t: Word,
        mode: spirv::FPRoundingMode,
    ) -> Word {
        let n = self.out.vec_len(st);
        let vec = |l: &mut Self, e: Word| if n == 1 { e } else { l.out.t_vec(e, n) };
        let sw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
        let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
        let i64t = self.out.t_int(64);
        let i64t = vec(self, i64t);
        let bits_t = self.out.t_int(fw);
        let bits_t = vec(self, bits_t);
        let boolt = self.out.t_bool();
        let boolt = vec(self, boolt);
        let signed = op == Op::ConvertSToF;
        // ulong compares unsigned; everything else fits a signed long.
        let unsigned_cmp = !signed && sw == 64;
        let x64 = if sw == 64 {
            x
        } else {
            let widen = if signed { Op::SConvert } else { Op::UConvert };
            self.emit(b, widen, i64t, ids(&[x]))
        };
        let r = self.emit(b, op, t, ids(&[x]));
        // Above the 64-bit range (half: +inf), below it (half: -inf).
        let (over, under) = if fw == 16 {
            let hi = self.splat(t, 0, 65504.0);
            let over = self.emit(b, Op::FOrdGreaterThan, boolt, ids(&[r, hi]));
            let under = signed.then(|| {
                let lo = self.splat(t, 0, -65504.0);
                self.emit(b, Op::FOrdLessThan, boolt, ids(&[r, lo]))
            });
            (over, under)
        } else {
            let limit = if unsigned_cmp {
                2f64.powi(64)
            } else {
                2f64.powi(63)
            };
            let hi = self.splat(t, 0, limit);
            let over = self.emit(b, Op::FOrdGreaterThanEqual, boolt, ids(&[r, hi]));
            (over, None)
        };
        let outside = match under {
            Some(u) => self.emit(b, Op::LogicalOr, boolt, ids(&[over, u])),
            None => over,
        };
        let zero = self.splat(t, 0, 0.0);
        let r_in = self.emit(b, Op::Select, t, ids(&[outside, zero, r]));
        let (to_int, gt, lt) = if unsigned_cmp {
            (Op::ConvertFToU, Op::UGreaterThan, Op::ULessThan)
        } else {
            (Op::ConvertFToS, Op::SGreaterThan, Op::SLessThan)
        };
        let back = self.emit(b, to_int, i64t, ids(&[r_in]));
        let gt = self.emit(b, gt, boolt, ids(&[back, x64]));
        let lt = self.emit(b, lt, boolt, ids(&[back, x64]));
        let not_outside = self.emit(b, Op::LogicalNot, boolt, ids(&[outside]));
        let gt = self.emit(b, Op::LogicalAnd, boolt, ids(&[gt, not_outside]));
        let lt = self.emit(b, Op::LogicalAnd, boolt, ids(&[lt, not_outside]));
        let above = self.emit(b, Op::LogicalOr, boolt, ids(&[over, gt]));
        let below = match under {
            Some(u) => self.emit(b, Op::LogicalOr, boolt, ids(&[u, lt])),
            None => lt,
        };
        // One ulp toward the side `mode` wants (r has x's sign; it is 0
        // only for x = 0, exact).
        let bits = self.emit(b, Op::Bitcast, bits_t, ids(&[r]));
        let neg = self.emit(b, Op::FOrdLessThan, boolt, ids(&[r, zero]));
        let bits = self.round_directed_bits(b, bits, bits_t, [above, below, neg], mode);
        self.emit(b, Op::Bitcast, t, ids(&[bits]))
    }

    /// A double `x` (type `st`) narrowed to float (type `t`) rounded
    /// toward zero, +inf or -inf (`convert_float_rtz/rtp/rtn`): Vulkan's
    /// OpFConvert rounds to nearest, so the result is converted back
    /// (exactly) and compared with `x`, then moved one ulp where it lies on
    /// the wrong side (`round_directed_bits`). Narrowing to half is done in
    /// integer arithmetic instead (`narrow`): NVIDIA folds a float
    /// converted to half and back, not a double converted to float and
    /// back (`.device/probe/fold.cl`).
    fn float_narrow_directed(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        t: Word,
        mode: spirv::FPRoundingMode,
    ) -> Word {
        let fw = self.out.scalar_width(self.out.elem(t)).unwrap_or(32);
        let boolt = self.bool_ty(t);
        let r = self.emit(b, Op::FConvert, t, ids(&[x]));
        let back = self.emit(b, Op::FConvert, st, ids(&[r]));
        let above = self.emit(b, Op::FOrdGreaterThan, boolt, ids(&[back, x]));
        let below = self.emit(b, Op::FOrdLessThan, boolt, ids(&[back, x]));
        let zero = self.splat(st, 0, 0.0);
        let neg = self.emit(b, Op::FOrdLessThan, boolt, ids(&[x, zero]));
        let bits_t = self.int_like(t, fw);
        let bits = self.emit(b, Op::Bitcast, bits_t, ids(&[r]));
        let bits = self.round_directed_bits(b, bits, bits_t, [above, below, neg], mode);
        self.emit(b, Op::Bitcast, t, ids(&[bits]))
    }

    /// The bit pattern `bits` (type `bits_t`) of a float rounded to
    /// nearest, moved one ulp where `mode` (RTZ, RTP, RTN) wants the other
    /// neighbour of the exact value: `above` / `below` say where the
    /// rounded value lies against the exact one, `neg` that the exact one
    /// is negative. One step of the pattern moves the magnitude (up for a
    /// positive value, down for a negative one, from either zero too), and
    /// takes an infinity to the largest finite value of its sign. NaNs
    /// compare false and stay.
    pub(crate) fn round_directed_bits(
        &mut self,
        b: &mut Block,
        bits: Word,
        bits_t: Word,
        [above, below, neg]: [Word; 3],
        mode: spirv::FPRoundingMode,
    ) -> Word {
        use spirv::FPRoundingMode as R;
        let one = self.splat(bits_t, 1, 0.0);
        let inc = self.emit(b, Op::IAdd, bits_t, ids(&[bits, one]));
        let dec = self.emit(b, Op::ISub, bits_t, ids(&[bits, one]));
        // Toward +inf: a larger magnitude when positive, smaller when
        // negative; toward -inf the other way.
        let up = self.emit(b, Op::Select, bits_t, ids(&[neg, dec, inc]));
        let down = self.emit(b, Op::Select, bits_t, ids(&[neg, inc, dec]));
        let raised = self.emit(b, Op::Select, bits_t, ids(&[below, up, bits]));
        let lowered = self.emit(b, Op::Select, bits_t, ids(&[above, down, bits]));
        match mode {
            R::RTP => raised,
            R::RTN => lowered,
            // Toward zero: up from below when negative, down otherwise.
            _ => self.emit(b, Op::Select, bits_t, ids(&[neg, raised, lowered])),
        }
    }

    /// Copies the defined/used ids into a complete module.
    fn assemble(
        &mut self,
        main: Word,
        name: &str,
        functions: Vec<dr::Function>,
    ) -> Res<(dr::Module, image::ImageBindings)> {
        let mut m = dr::Module::new();
        let mut interface = self.finish_globals();
        let bindings = self.finish_images();
        interface.extend(&bindings.interface);
        // Names: keep those of values that still exist.
        let mut defined: HashSet<Word> = HashSet::new();
        for g in &self.out.globals {
            if let Some(id) = g.result_id {
                defined.insert(id);
            }
        }
        for f in &functions {
            for i in f.all_inst_iter() {
                if let Some(id) = i.result_id {
                    defined.insert(id);
                }
            }
        }
        for n in &self.ix.src.debug_names {
            if let Some(Operand::IdRef(t)) = n.operands.first() {
                if defined.contains(t) && !self.ix.globals.contains_key(t) {
                    m.debug_names.push(n.clone());
                }
            }
        }
        m.debug_names.append(&mut self.out.names);
        let physical = !self.desc.enabled
            || self.out.globals.iter().any(|g| {
                g.class.opcode == Op::TypePointer
                    && g.operands[0] == Operand::StorageClass(StorageClass::PhysicalStorageBuffer)
            });
        let mut caps: Vec<Capability> = vec![Capability::Shader];
        if physical {
            caps.push(Capability::PhysicalStorageBufferAddresses);
        }
        if self.desc.variable_pointers {
            caps.push(Capability::VariablePointersStorageBuffer);
        }
        for g in &self.out.globals {
            let lit = |k: usize| g.operands.get(k).map(|o| o.unwrap_literal_bit32());
            match g.class.opcode {
                Op::TypeInt => match lit(0) {
                    Some(8) => caps.push(Capability::Int8),
                    Some(16) => caps.push(Capability::Int16),
                    Some(64) => caps.push(Capability::Int64),
                    _ => {}
                },
                Op::TypeFloat => match lit(0) {
                    Some(16) => caps.push(Capability::Float16),
                    Some(64) => caps.push(Capability::Float64),
                    _ => {}
                },
                Op::TypePointer
                    if g.operands[0]
                        == Operand::StorageClass(StorageClass::PhysicalStorageBuffer)
                        || g.operands[0] == Operand::StorageClass(StorageClass::StorageBuffer) =>
                {
                    match self.out.scalar_width(g.operands[1].unwrap_id_ref()) {
                        Some(8) => caps.push(Capability::StorageBuffer8BitAccess),
                        Some(16) => caps.push(Capability::StorageBuffer16BitAccess),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        if self.atomics.uses_int64 {
            caps.push(Capability::Int64Atomics);
        }
        caps.extend(&self.subgroups.caps);
        caps.extend(&bindings.caps);
        // Float controls (SPIR-V 1.4 core): the execution modes below, for
        // 32-bit floats and for 16/64 where the module has those types.
        let float_modes: Vec<(ExecutionMode, u32)> = [16, 32, 64]
            .into_iter()
            .filter(|&w| match w {
                16 => caps.contains(&Capability::Float16),
                64 => caps.contains(&Capability::Float64),
                _ => true,
            })
            .flat_map(|w| {
                let denorm =
                    self.caps.preserve_denorms.contains(w) || (w == 32 && self.caps.denorms32);
                let inf_nan = self.caps.preserve_inf_nan.contains(w);
                [
                    denorm.then_some((ExecutionMode::DenormPreserve, w)),
                    inf_nan.then_some((ExecutionMode::SignedZeroInfNanPreserve, w)),
                ]
            })
            .flatten()
            .collect();
        for (mode, _) in &float_modes {
            caps.push(match mode {
                ExecutionMode::DenormPreserve => Capability::DenormPreserve,
                _ => Capability::SignedZeroInfNanPreserve,
            });
        }
        caps.sort_by_key(|c| *c as u32);
        caps.dedup();
        m.capabilities = caps
            .iter()
            .map(|&c| Instruction::new(Op::Capability, None, None, vec![Operand::Capability(c)]))
            .collect();
        if let Some(g) = self.out.glsl_import() {
            m.ext_inst_imports.push(Instruction::new(
                Op::ExtInstImport,
                None,
                Some(g),
                vec![Operand::LiteralString("GLSL.std.450".into())],
            ));
        }
        m.memory_model = Some(Instruction::new(
            Op::MemoryModel,
            None,
            None,
            vec![
                Operand::AddressingModel(if physical {
                    spirv::AddressingModel::PhysicalStorageBuffer64
                } else {
                    spirv::AddressingModel::Logical
                }),
                Operand::MemoryModel(spirv::MemoryModel::GLSL450),
            ],
        ));
        let mut ep = vec![
            Operand::ExecutionModel(spirv::ExecutionModel::GLCompute),
            Operand::IdRef(main),
            Operand::LiteralString(name.to_string()),
        ];
        ep.extend(interface.iter().map(|&i| Operand::IdRef(i)));
        m.entry_points
            .push(Instruction::new(Op::EntryPoint, None, None, ep));
        let ls = match self.work.reqd_size {
            Some(r) if self.work.flatten => [r[0] * r[1] * r[2], 1, 1],
            Some(r) => r,
            None => [1, 1, 1],
        };
        m.execution_modes.push(Instruction::new(
            Op::ExecutionMode,
            None,
            None,
            vec![
                Operand::IdRef(main),
                Operand::ExecutionMode(ExecutionMode::LocalSize),
                Operand::LiteralBit32(ls[0]),
                Operand::LiteralBit32(ls[1]),
                Operand::LiteralBit32(ls[2]),
            ],
        ));
        for (mode, width) in float_modes {
            m.execution_modes.push(Instruction::new(
                Op::ExecutionMode,
                None,
                None,
                vec![
                    Operand::IdRef(main),
                    Operand::ExecutionMode(mode),
                    Operand::LiteralBit32(width),
                ],
            ));
        }
        self.decorate_exact_arithmetic(&functions);
        m.annotations = std::mem::take(&mut self.out.annotations);
        m.types_global_values = std::mem::take(&mut self.out.globals);
        m.functions = functions;
        let mut header = dr::ModuleHeader::new(self.out.bound);
        header.set_version(1, 5);
        m.header = Some(header);
        if self.atomics.ordered && self.caps.vulkan_memory_model {
            vmm::apply(&mut m, true);
        }
        Ok((m, bindings))
    }
}

impl Lower<'_> {
    /// Decorates NoContraction every double-precision add, subtract,
    /// multiply, divide, remainder and negation of `functions`, and the
    /// single-precision ones of the math library's functions (those named
    /// `ferrocl.*` or `*__ferrocl_*`: libclc's and ferrocl's own,
    /// `frontend::libclc`). OpenCL rounds each operation as written (OpenCL
    /// C §7.4: they are correctly rounded), but Vulkan compilers may
    /// otherwise rewrite undecorated arithmetic: Mesa's NIR applies its
    /// inexact-only algebraic rules (reassociation, `a + b - a` → `b`),
    /// NVIDIA's fuses multiplies and adds, either of which destroys the
    /// exact error terms of the compensated sums and split products that
    /// libclc's math is made of. The program's own float arithmetic stays
    /// undecorated: OpenCL C lets it be contracted (FP_CONTRACT).
    fn decorate_exact_arithmetic(&mut self, functions: &[dr::Function]) {
        let mut doubles: HashSet<Word> = HashSet::new();
        let mut floats: HashSet<Word> = HashSet::new();
        for g in &self.out.globals {
            let Some(id) = g.result_id else { continue };
            match g.class.opcode {
                Op::TypeFloat => match g.operands.first() {
                    Some(&Operand::LiteralBit32(64)) => {
                        doubles.insert(id);
                    }
                    Some(&Operand::LiteralBit32(32)) => {
                        floats.insert(id);
                    }
                    _ => {}
                },
                Op::TypeVector => {
                    let e = g.operands.first().and_then(|o| o.id_ref_any());
                    if e.is_some_and(|e| doubles.contains(&e)) {
                        doubles.insert(id);
                    } else if e.is_some_and(|e| floats.contains(&e)) {
                        floats.insert(id);
                    }
                }
                _ => {}
            }
        }
        if doubles.is_empty() && floats.is_empty() {
            return;
        }
        let mut value_ty: HashMap<Word, Word> = HashMap::new();
        for inst in functions.iter().flat_map(|f| f.all_inst_iter()) {
            if let (Some(id), Some(t)) = (inst.result_id, inst.result_type) {
                value_ty.insert(id, t);
            }
        }
        let is_double = |id: Word| value_ty.get(&id).is_some_and(|t| doubles.contains(t));
        let mut exact: Vec<Word> = Vec::new();
        for f in functions {
            let library = f.def_id().is_some_and(|id| {
                let name = self.ix.name_of(id);
                name.starts_with("ferrocl.") || name.contains("__ferrocl_")
            });
            for inst in f.all_inst_iter() {
                let arithmetic = matches!(
                    inst.class.opcode,
                    Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod | Op::FNegate
                );
                // Conversions from a double too: NIR otherwise turns
                // (double)(long)x into trunc(x), which lavapipe gets wrong.
                let conversion = matches!(
                    inst.class.opcode,
                    Op::ConvertFToS | Op::ConvertFToU | Op::FConvert
                ) && inst
                    .operands
                    .first()
                    .and_then(|o| o.id_ref_any())
                    .is_some_and(is_double);
                let to_double = matches!(
                    inst.class.opcode,
                    Op::ConvertSToF | Op::ConvertUToF | Op::FConvert
                );
                let result_double = inst.result_type.is_some_and(|t| doubles.contains(&t));
                let result_float = inst.result_type.is_some_and(|t| floats.contains(&t));
                if (arithmetic || to_double) && result_double
                    || conversion
                    || library && arithmetic && result_float
                {
                    exact.extend(inst.result_id);
                }
            }
        }
        for id in exact {
            self.out
                .decorate(id, vec![Operand::Decoration(Decoration::NoContraction)]);
        }
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

/// Whether the instruction needs a Kernel-only capability (so it must have
/// been lowered).
/// The Kernel-only float classification instructions (`float_class`).
fn is_float_class(op: Op) -> bool {
    matches!(
        op,
        Op::Ordered
            | Op::Unordered
            | Op::IsFinite
            | Op::IsNormal
            | Op::SignBitSet
            | Op::LessOrGreater
    )
}

fn op_needs_kernel(inst: &Instruction) -> bool {
    inst.class.capabilities.iter().any(|c| {
        matches!(
            c,
            Capability::Kernel
                | Capability::Addresses
                | Capability::GenericPointer
                | Capability::DeviceEnqueue
                | Capability::Pipes
                | Capability::Groups
                | Capability::ImageBasic
                | Capability::LiteralSampler
        )
    }) && !matches!(inst.class.opcode, Op::SizeOf)
}

fn unsupported_op_message(op: Op) -> String {
    let what = match op {
        Op::GroupAsyncCopy | Op::GroupWaitEvents => "async_work_group_copy / wait_group_events",
        Op::EnqueueKernel => "enqueue_kernel",
        Op::ReadPipe | Op::WritePipe => "pipes",
        _ if format!("{op:?}").starts_with("Atomic") => "atomics",
        _ if format!("{op:?}").starts_with("Image") => "images",
        _ if format!("{op:?}").starts_with("Group") => "work-group functions",
        _ => "",
    };
    if what.is_empty() {
        format!("instruction Op{op:?} is not supported yet")
    } else {
        format!("{what} (Op{op:?}) not supported yet")
    }
}
