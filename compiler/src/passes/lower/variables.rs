//! Where the kernel's variables live, decided before any function is
//! lowered, and the input's constants re-emitted.
//!
//! * `lower_constants`: the input's constants with output types (8/16-wide
//!   vector constants regrouped into 4-wide parts).
//! * `classify_globals`: each global variable the kernel uses becomes a
//!   builtin (`workitem`), a static offset in the work-group array
//!   (`__local`), an offset in the constant data (program-scope
//!   `__constant`, serialized by `global_vars::Constants`), or an address
//!   in the program's global-variable buffer (`__global`, large
//!   `__constant` tables; `define_global_addresses` at the top of each
//!   function that uses one).
//! * `reserve_null_offsets`: offset 0 of the `__local` and private arrays
//!   stays free where pointers into them become generic (`generic`).
//! * `split_private_frame`: a private variable none of whose pointers
//!   leaves it (`analyses::private_variables`) gets a Function-storage
//!   word array of its own.
//! * `assign_frames`: every other Function-storage variable gets a static
//!   offset in the private frame array (OpenCL forbids recursion, so one
//!   frame per function suffices).
//!
//! Gaps: a global variable in another storage class is reported.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{BuiltIn, Op, StorageClass, Word};

use super::context::{ClBuiltin, Lower, MaskKind, Res};
use super::emit::{ids, Block};
use crate::abi::ImplicitField;
use crate::analyses::address_space::Space;
use crate::analyses::type_table::Ty;
use crate::passes::global_vars::Constants;

impl Lower<'_> {
    /// Re-emits the input's constants (same ids, output types). Constants
    /// whose type cannot be lowered are left out: a use of one is reported
    /// where its type is lowered.
    pub(crate) fn lower_constants(&mut self) {
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
    pub(crate) fn classify_globals(&mut self, order: &[Word]) -> Res<()> {
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
                            if !self.caps.has_subgroup_ops(crate::caps::SUBGROUP_BALLOT) =>
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

    /// Keeps offset 0 of the `__local` and private arrays free where the
    /// kernel converts a pointer into them to generic, so that NULL (0)
    /// is no object's address there and survives the conversion to
    /// generic and back (`generic`): `to_local(p) != NULL` must hold for
    /// every `__local` object.
    pub(crate) fn reserve_null_offsets(&mut self, order: &[Word]) {
        for &f in order {
            for inst in self.ix.funcs[&f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
            {
                if inst.class.opcode != Op::PtrCastToGeneric {
                    continue;
                }
                let src = inst.operands[0].unwrap_id_ref();
                if let Some(Space::Variable(_)) = self.facts.spaces.get(&src) {
                    // Its own array, where NULL is never made (`generic`).
                    continue;
                }
                match self.tys.get(self.ix.ty_of(src)) {
                    Ty::Pointer(StorageClass::Workgroup, _) => {
                        self.mem.static_local_size = self.mem.static_local_size.max(4)
                    }
                    Ty::Pointer(StorageClass::Function | StorageClass::Private, _) => {
                        self.mem.private_size = self.mem.private_size.max(4)
                    }
                    _ => {}
                }
            }
        }
    }

    /// Gives each private variable whose pointers never leave it
    /// (`analyses::private_variables`: their space is `Space::Variable`)
    /// a `u32` array of its own instead of a slice of the private frame:
    /// Function storage, declared at the top of its function
    /// (`declare_own_arrays`), or Private storage where other functions
    /// reach it through a parameter. Its pointers are byte offsets into
    /// that array, from 0, so accesses are the frame's word arithmetic on
    /// another array and constant offsets become constant indices.
    pub(crate) fn split_private_frame(&mut self, order: &[Word]) {
        let shared: HashSet<Word> = order
            .iter()
            .flat_map(|f| &self.ix.funcs[f].parameters)
            .filter_map(|p| match self.facts.spaces.get(&p.result_id?) {
                Some(Space::Variable(v)) => Some(*v),
                _ => None,
            })
            .collect();
        for &f in order {
            for inst in self.ix.funcs[&f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
            {
                let Some(var) = inst.result_id else { continue };
                if inst.class.opcode != Op::Variable
                    || self.facts.spaces.get(&var) != Some(&Space::Variable(var))
                {
                    continue;
                }
                let Ty::Pointer(_, pointee) = self.tys.get(inst.result_type.unwrap_or(0)).clone()
                else {
                    continue;
                };
                let size = self.tys.size_of(pointee).max(1).next_multiple_of(4);
                self.mem.own_size += size;
                let u32t = self.out.t_u32();
                let len = self.out.c_u32((size / 4) as u32);
                let at = self.out.t_array(u32t, len);
                let sc = if shared.contains(&var) {
                    StorageClass::Private
                } else {
                    StorageClass::Function
                };
                let pt = self.out.t_ptr(sc, at);
                let arr = self.out.id();
                let name = self.ix.name_of(var);
                if !name.starts_with('%') {
                    self.out.names.push(Instruction::new(
                        Op::Name,
                        None,
                        None,
                        vec![Operand::IdRef(arr), Operand::LiteralString(name)],
                    ));
                }
                self.mem.own_arrays.insert(var, (arr, sc));
                if sc == StorageClass::Private {
                    self.out.globals.push(Instruction::new(
                        Op::Variable,
                        Some(pt),
                        Some(arr),
                        vec![Operand::StorageClass(sc)],
                    ));
                    self.mem.own_globals.push(arr);
                } else {
                    self.mem.own_decls.entry(f).or_default().push((arr, pt));
                }
                let zero = self.out.c_u32(0);
                self.alias.insert(var, zero);
            }
        }
    }

    /// Declares the own arrays of function `f`'s private variables
    /// (`split_private_frame`) at the top of its first block `b`.
    pub(crate) fn declare_own_arrays(&mut self, b: &mut Block, f: Word) {
        for &(arr, pt) in self.mem.own_decls.get(&f).into_iter().flatten() {
            b.push(
                Op::Variable,
                Some(pt),
                Some(arr),
                vec![Operand::StorageClass(StorageClass::Function)],
            );
        }
    }

    /// Gives every other Function-storage variable of the kernel's
    /// functions a static offset in the private frame array.
    pub(crate) fn assign_frames(&mut self, order: &[Word]) -> Res<()> {
        for &f in order {
            for inst in self.ix.funcs[&f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
            {
                if inst.class.opcode != Op::Variable
                    || self
                        .mem
                        .own_arrays
                        .contains_key(&inst.result_id.unwrap_or(0))
                {
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

    /// Defines, at the top of function `f`, the address of every
    /// program-scope `__global` variable `f` uses: the global-variable
    /// buffer's address, read from its implicit fields, plus the variable's
    /// offset. The variables' ids are aliases of these values while `f` is
    /// lowered.
    pub(crate) fn define_global_addresses(&mut self, b: &mut Block, f: &dr::Function) {
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
            let base = self
                .out
                .c_u64((crate::abi::GLOBAL_VARIABLES_SLOT as u64) << 32);
            self.desc_set_slot(base, crate::abi::GLOBAL_VARIABLES_SLOT);
            base
        } else {
            let lo = self.implicit_field(b, ImplicitField::GlobalVariables(0));
            let hi = self.implicit_field(b, ImplicitField::GlobalVariables(1));
            let u64t = self.out.t_u64();
            self.words_to(b, &[lo, hi], u64t)
        };
        for (id, off) in wanted {
            let a = self.addr_add(b, Space::Global, base, off);
            self.alias.insert(id, a);
        }
    }
}
