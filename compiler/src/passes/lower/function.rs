//! The instruction walk: `lower_function` lowers one function of the
//! input, block by block, dispatching each instruction to the concern that
//! rewrites it (`lower_inst`): images, 8/16-wide vectors, sub-groups,
//! OpenCL.std (`ext_inst`), memory accesses and pointer arithmetic
//! (`memory`), atomics and barriers (`atomic`), conversions (`convert`);
//! everything else passes through with lowered types and aliased operands.
//!
//! Builtin-variable loads whose uses all extract a constant component are
//! computed per component at the use (`workitem`). Values replaced by
//! other values are recorded as aliases and substituted once the whole
//! function is lowered.
//!
//! Gaps: an instruction that needs a Kernel-only capability and has no
//! rewrite is reported (`unsupported_op_message`).

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{self, Capability, Op, Word};

use super::bit_field::is_bit_field_op;
use super::context::{memory_align, ClBuiltin, Res};
use super::dot_product::is_dot_op;
use super::emit::{ids, Block};
use super::ext_inst::ClExtInst;
use super::kernel::KernelLowering;
use crate::analyses::builtin_imports::BuiltinImport;
use crate::analyses::type_table::Ty;

impl<'a> KernelLowering<'a> {
    pub(crate) fn lower_function(&mut self, f: &'a dr::Function) -> Res<dr::Function> {
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
                self.declare_own_arrays(&mut b, def.result_id.unwrap_or(0));
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

    fn lower_inst(&mut self, b: &mut Block, inst: &'a Instruction) -> Res<()> {
        let op = inst.class.opcode;
        if self.is_image_inst(inst) {
            return self.images().lower_image_inst(b, inst);
        }
        if is_bit_field_op(op) {
            return self.lower_bit_field_inst(b, inst);
        }
        if is_dot_op(op) {
            return self.lower_dot_inst(b, inst);
        }
        if self.involves_wide(inst) && self.split_wide_vector(b, inst)? {
            return Ok(());
        }
        if self.is_subgroup_inst(inst) {
            return self.lower_subgroup_inst(b, inst);
        }
        if self.is_work_group_inst(inst) {
            return self.lower_work_group_inst(b, inst);
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
                        let space = self.space(ptr)?;
                        let addr = self.addr_of(b, space, ptr)?;
                        self.store_value(b, space, addr, pointee, v, align)?;
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
                    let e = ClExtInst::decode(inst)?;
                    if e.name == "printf" {
                        let (id, rty) =
                            (inst.result_id.unwrap_or(0), inst.result_type.unwrap_or(0));
                        self.printf().lower_printf(b, id, rty, &e.raw)?;
                    } else {
                        self.lower_ext_inst(b, inst, e)?;
                    }
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
            Op::PtrCastToGeneric => self.lower_to_generic(b, inst)?,
            Op::GenericCastToPtr => self.lower_from_generic(b, inst, false)?,
            Op::GenericCastToPtrExplicit => self.lower_from_generic(b, inst, true)?,
            Op::GenericPtrMemSemantics => self.lower_generic_semantics(b, inst)?,
            Op::Bitcast
            | Op::ConvertPtrToU
            | Op::ConvertUToPtr
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
                let size = self.tys.size_of(pointee);
                let s = self.out.c_int(w, size);
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
            Op::ControlBarrier | Op::MemoryBarrier => self.atomics().lower_barrier(b, inst)?,
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
            Op::FunctionCall if self.ix.builtin_import(id_op(0)).is_some() => {
                self.lower_builtin_call(b, inst)?
            }
            Op::ReadClockKHR => self.lower_read_clock(b, inst)?,
            // cl_khr_expect_assume: hints, which Vulkan has no use for.
            Op::ExpectKHR => {
                let v = self.v(id_op(0));
                self.alias.insert(inst.result_id.unwrap_or(0), v);
            }
            Op::AssumeTrueKHR => {}
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
            _ if format!("{op:?}").starts_with("Atomic") => self.atomics().lower_atomic(b, inst)?,
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
}

impl KernelLowering<'_> {
    /// A call of an imported builtin (`analyses::builtin_imports`): the
    /// instruction it stands for.
    fn lower_builtin_call(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let callee = inst.operands[0].unwrap_id_ref();
        let Some(builtin) = self.ix.builtin_import(callee) else {
            return Err("not a builtin call".into());
        };
        let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let mut args: Vec<Word> = inst.operands[1..]
            .iter()
            .filter_map(|o| o.id_ref_any())
            .map(|x| self.v(x))
            .collect();
        let r = match builtin {
            BuiltinImport::PackedDot { op, swap } => {
                if args.len() < 2 {
                    return Err("packed dot product with too few operands".into());
                }
                if swap {
                    args.swap(0, 1);
                }
                let u32t = self.out.t_u32();
                self.dot_product(b, op, rt, u32t, &args, true)?
            }
            BuiltinImport::Clock { scope, .. } => self.read_clock(b, scope, rt)?,
        };
        self.alias.insert(inst.result_id.unwrap_or(0), r);
        Ok(())
    }
}

/// The Kernel-only float classification instructions (`float_class`).
pub(super) fn is_float_class(op: Op) -> bool {
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

/// Whether the instruction needs a Kernel-only capability (so it must have
/// been lowered).
pub(super) fn op_needs_kernel(inst: &Instruction) -> bool {
    inst.class.capabilities.iter().any(|c| {
        matches!(
            c,
            Capability::Kernel
                | Capability::Addresses
                | Capability::GenericPointer
                | Capability::DeviceEnqueue
                | Capability::SubgroupDispatch
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
