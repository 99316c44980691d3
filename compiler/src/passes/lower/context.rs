//! The shared lowering context (`Lower`): the read-only analyses, the
//! module being built, and the state that several concerns read and
//! write (memory arrays, push constants, builtins, descriptor addressing).
//! State that one concern owns is defined in that concern's file.
//!
//! Gaps: types without a Vulkan counterpart (runtime arrays, events, pipes,
//! images and samplers used in unsupported ways) are reported by `lower_ty`;
//! a pointer whose space is `Mixed` or unknown by `space`.

use std::collections::{BTreeMap, HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{self, BuiltIn, Capability, Op, StorageClass, Word};

use super::emit::{Block, Out};
use crate::abi::ImplicitField;
use crate::analyses::address_space::Space;
use crate::analyses::buffer_slots::Slots;
use crate::analyses::kernel_facts::KernelFacts;
use crate::analyses::module_index::ModuleIndex;
use crate::analyses::type_table::{Ty, TypeTable};
use crate::caps::DeviceCaps;

/// A lowering result, or the message of why the kernel cannot be lowered.
pub(crate) type Res<T> = Result<T, String>;

/// OpenCL builtin variables the input may load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClBuiltin {
    GlobalId,
    LocalId,
    GroupId,
    GlobalSize,
    LocalSize,
    EnqueuedLocalSize,
    NumGroups,
    GlobalOffset,
    WorkDim,
    GlobalLinearId,
    LocalLinearId,
    /// `get_sub_group_size` (this sub-group's size).
    SubgroupSize,
    /// `get_max_sub_group_size`.
    SubgroupMaxSize,
    /// `get_num_sub_groups`.
    NumSubgroups,
    /// `get_enqueued_num_sub_groups`.
    NumEnqueuedSubgroups,
    /// `get_sub_group_id`.
    SubgroupId,
    /// `get_sub_group_local_id`.
    SubgroupLocalId,
    /// `get_sub_group_{eq,ge,gt,le,lt}_mask` (cl_khr_subgroup_ballot).
    SubgroupMask(MaskKind),
}

/// Which sub-group mask: the bits of the lanes with a sub-group local id
/// equal to, greater than or equal to, … the work-item's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MaskKind {
    Eq,
    Ge,
    Gt,
    Le,
    Lt,
}

pub(crate) struct Lower<'a> {
    /// The input module by id (read-only).
    pub(super) ix: &'a ModuleIndex<'a>,
    /// What the analyses say about this kernel (read-only).
    pub(super) facts: &'a KernelFacts<'a>,
    pub(super) caps: &'a DeviceCaps,
    /// The input's types (`ix.tys`) and the 4-wide vector types the
    /// lowering adds to split 8/16-wide ones (`wide::synth_vec4`).
    pub(super) tys: TypeTable,
    /// Input types of the values the lowering adds for the 4-wide parts
    /// of 8/16-wide operands (`subgroup`); other values: `ix.value_ty`.
    pub(super) synth_ty: HashMap<Word, Word>,
    /// The module being built.
    pub(super) out: Out,
    /// Input values replaced by output ones.
    pub(super) alias: HashMap<Word, Word>,
    /// Source line of the instruction being lowered (OpLine).
    pub(super) line: Option<u32>,
    /// The memory arrays (`memory`).
    pub(super) mem: MemoryArrays,
    /// The push-constant block and implicit fields (`args`, `workitem`).
    pub(super) pc: PushConstants,
    /// Builtin variables, Vulkan inputs, work-group sizes (`workitem`).
    pub(super) work: WorkItems,
    /// Sub-group capabilities (`subgroup`).
    pub(super) subgroups: Subgroups,
    /// Descriptor addressing (`descriptor`).
    pub(super) desc: Desc,
    /// Capabilities and SPIR-V extensions of the instructions that need
    /// them (`dot_product`, `clock`).
    pub(super) extras: Extras,
    /// Helper functions with loops (`helper_fn`), and the work-group
    /// collectives' scratch (`work_group`).
    pub(super) helpers: Helpers,
}

/// The helper functions the lowering adds to the kernel's module (the
/// instruction walk keeps one output block per input block, so code with
/// a loop is a function of its own): work-group folds (`work_group`),
/// floating-point compare-exchange loops (`atomic::float`).
#[derive(Default)]
pub(crate) struct Helpers {
    /// Function ids by what they compute (a key naming the operation,
    /// type and memory).
    pub fns: HashMap<String, Word>,
    /// Their definitions (added to the module by `kernel`).
    pub functions: Vec<dr::Function>,
    /// Byte offset of the work-group collectives' scratch words in the
    /// `__local` array, once reserved (`work_group`).
    pub wg_scratch: Option<u32>,
}

/// Capabilities and extensions the lowered kernel declares for what it
/// uses beyond the defaults (`assemble`).
#[derive(Default)]
pub(crate) struct Extras {
    pub caps: Vec<Capability>,
    pub extensions: Vec<&'static str>,
    /// Float multiplies and adds the program lets the driver contract
    /// (`mad`, which clang also makes of `a * b + c` under FP_CONTRACT
    /// ON): left undecorated by `decorate_exact_arithmetic`.
    pub contractable: HashSet<Word>,
}

impl Extras {
    pub fn require(&mut self, caps: &[Capability], extension: &'static str) {
        for c in caps {
            if !self.caps.contains(c) {
                self.caps.push(*c);
            }
        }
        if !self.extensions.contains(&extension) {
            self.extensions.push(extension);
        }
    }
}

pub(super) fn rep_width(sc: StorageClass) -> u32 {
    match sc {
        StorageClass::Workgroup | StorageClass::Function | StorageClass::Private => 32,
        _ => 64,
    }
}

pub(super) fn memory_align(operands: &[Operand]) -> Option<u64> {
    let mut it = operands.iter();
    while let Some(o) = it.next() {
        if let Operand::MemoryAccess(ma) = o {
            if ma.contains(spirv::MemoryAccess::ALIGNED) {
                if let Some(Operand::LiteralBit32(a)) = it.next() {
                    return Some(*a as u64);
                }
            }
        }
    }
    None
}

/// The kernel's memory arrays (`lower` module docs): the work-group array
/// of `__local` data, the private frame array and the constant data.
pub(crate) struct MemoryArrays {
    pub local_var: Word,
    pub private_var: Word,
    pub const_var: Word,
    pub uses_local: bool,
    pub uses_private: bool,
    pub uses_const: bool,
    /// Bytes of static `__local` data (variables, then `local64`'s locks).
    pub static_local_size: u64,
    /// Bytes of the private frame.
    pub private_size: u64,
    /// The own word arrays of private variables (`split_private_frame`):
    /// input variable id → the array's variable and its storage class
    /// (Function; Private where other functions reach it by a parameter).
    pub own_arrays: HashMap<Word, (Word, StorageClass)>,
    /// The Private own arrays, for the entry point's interface.
    pub own_globals: Vec<Word>,
    /// The own arrays to declare at the top of each function: function id
    /// → (array variable, its pointer type).
    pub own_decls: HashMap<Word, Vec<(Word, Word)>>,
    /// Bytes of all own arrays together.
    pub own_size: u64,
    /// The program-scope `__constant` data.
    pub const_data: Vec<u8>,
    /// Offsets of the program-scope `__constant` variables in `const_data`.
    pub const_offsets: HashMap<Word, u64>,
    /// The Workgroup array's length in words when the kernel has `__local`
    /// pointer arguments (a spec-constant expression: `abi`, "`__local`
    /// memory"); None without them.
    pub local_end: Option<Word>,
}

impl MemoryArrays {
    /// Takes the arrays' variable ids from `out`.
    pub fn new(out: &mut Out) -> Self {
        let local_var = out.id();
        let private_var = out.id();
        let const_var = out.id();
        MemoryArrays {
            local_var,
            private_var,
            const_var,
            uses_local: false,
            uses_private: false,
            uses_const: false,
            static_local_size: 0,
            private_size: 0,
            own_arrays: HashMap::new(),
            own_globals: Vec::new(),
            own_decls: HashMap::new(),
            own_size: 0,
            const_data: Vec::new(),
            const_offsets: HashMap::new(),
            local_end: None,
        }
    }
}

/// The push-constant block: kernel arguments (or the argument buffer's
/// address) and the implicit fields.
pub(crate) struct PushConstants {
    pub var: Word,
    pub used: bool,
    /// Bytes of the block (known after `build_entry`).
    pub size: u32,
    /// Implicit fields in order of first use, with the constant of their
    /// word index (defined by `build_entry`).
    pub implicit: Vec<(ImplicitField, Word)>,
    /// The most implicit words the image and sampler arguments can have
    /// (up to two per image, one per sampler; known after `scan_images`).
    pub meta_words: u32,
    /// Image and sampler fields live in the argument buffer, not in push
    /// constants (a kernel with many image/sampler arguments).
    pub spill_meta: bool,
    /// Those fields with the u64 constant of their byte offset in the
    /// argument buffer (defined by `build_entry`).
    pub spilled: Vec<(ImplicitField, Word)>,
}

impl PushConstants {
    /// Takes the block's variable id from `out`.
    pub fn new(out: &mut Out) -> Self {
        PushConstants {
            var: out.id(),
            used: false,
            size: 0,
            implicit: Vec::new(),
            meta_words: 0,
            spill_meta: false,
            spilled: Vec::new(),
        }
    }
}

/// OpenCL builtin variables and what implements them.
#[derive(Default)]
pub(crate) struct WorkItems {
    pub builtin_vars: HashMap<Word, ClBuiltin>,
    /// Loads of vector builtins whose uses all extract a constant component.
    pub deferred_builtins: HashMap<Word, (ClBuiltin, Word)>,
    /// Vulkan builtin input variables.
    pub vk_inputs: HashMap<BuiltIn, Word>,
    /// `reqd_work_group_size`.
    pub reqd_size: Option<[u32; 3]>,
    /// The kernel uses sub-groups: its Vulkan work-group is one-dimensional
    /// (`subgroup` module docs), local ids come from LocalInvocationIndex.
    pub flatten: bool,
    /// The local-size spec constants (SpecId 0, 1, 2) once defined.
    pub local_specs: Option<[Word; 3]>,
    pub wg_size: Option<Word>,
    pub enqueued_size: Option<[Word; 3]>,
}

/// What the sub-group lowering used.
#[derive(Default)]
pub(crate) struct Subgroups {
    /// GroupNonUniform* capabilities.
    pub caps: Vec<Capability>,
}

/// How a kernel argument is passed in descriptor addressing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgClass {
    Buffer,
    Pod,
    Local,
    /// Image or sampler.
    Opaque,
}

/// Descriptor-addressing state of one kernel's lowering.
#[derive(Default)]
pub(crate) struct Desc {
    pub enabled: bool,
    /// Slots of input values (`analyses::buffer_slots`).
    pub(super) slots: HashMap<Word, Slots>,
    /// Slots of the output address values the lowering made.
    pub(super) out_slots: HashMap<Word, Slots>,
    /// Binding of each argument (by position) that has one.
    pub arg_binding: Vec<Option<u32>>,
    pub classes: Vec<ArgClass>,
    /// The binding of the clustered POD buffer.
    pub pod_cluster_binding: Option<u32>,
    /// Binding of the global-variable buffer, when the kernel uses it.
    pub globals_binding: Option<u32>,
    /// Binding of the buffer of spilled image/sampler fields
    /// (`spilled_field`), when the kernel has one: after every other.
    pub spill_binding: u32,
    /// The launch's printf buffer (`printf_buffer_var`), when the kernel
    /// calls printf: its variable and binding (after every other).
    pub printf: Option<(Word, u32)>,
    /// Slot → binding of every buffer the kernel can reach.
    pub(super) slot_binding: BTreeMap<u32, u32>,
    /// (binding, element type) → view variable.
    pub(super) views: HashMap<(u32, Word), Word>,
    /// Element type → pointer type of its view struct.
    pub(super) view_types: HashMap<Word, Word>,
    /// POD buffers: binding → (variable, uniform).
    pub pod_vars: BTreeMap<u32, (Word, bool)>,
    /// Variables to decorate with the descriptor set: (variable, binding).
    pub(super) bound: Vec<(Word, u32)>,
    pub variable_pointers: bool,
}

impl<'a> Lower<'a> {
    pub(super) fn new(facts: &'a KernelFacts<'a>, caps: &'a DeviceCaps) -> Self {
        let bound = facts.ix.src.header.as_ref().map_or(1, |h| h.bound);
        let mut out = Out::new(bound);
        let mem = MemoryArrays::new(&mut out);
        let pc = PushConstants::new(&mut out);
        Lower {
            ix: facts.ix,
            facts,
            caps,
            tys: facts.ix.tys.clone(),
            synth_ty: HashMap::new(),
            out,
            alias: HashMap::new(),
            line: None,
            mem,
            pc,
            work: Default::default(),
            subgroups: Default::default(),
            desc: Default::default(),
            extras: Default::default(),
            helpers: Default::default(),
        }
    }

    /// The input type of value `id` (0 if unknown).
    pub(crate) fn ty_of(&self, id: Word) -> Word {
        match self.synth_ty.get(&id) {
            Some(&t) => t,
            None => self.ix.ty_of(id),
        }
    }

    pub(crate) fn v(&self, id: Word) -> Word {
        let mut id = id;
        while let Some(&a) = self.alias.get(&id) {
            id = a;
        }
        id
    }

    /// The output type of an input type.
    pub(crate) fn lower_ty(&mut self, t: Word) -> Res<Word> {
        Ok(match self.tys.get(t).clone() {
            Ty::Void => self.out.t_void(),
            Ty::Bool => self.out.t_bool(),
            Ty::Int(w) => self.out.t_int(w),
            Ty::Float(w) => self.out.t_float(w),
            Ty::Vector(e, n) => {
                let e = self.lower_ty(e)?;
                if n > 4 {
                    // 8/16-wide: an array of 4-wide parts (see `wide`).
                    let v4 = self.out.t_vec(e, 4);
                    let k = self.out.c_u32(n.div_ceil(4));
                    self.out.t_array(v4, k)
                } else {
                    self.out.t_vec(e, n)
                }
            }
            Ty::Array(e, n) => {
                let e = self.lower_ty(e)?;
                let n = self.out.c_u32(n as u32);
                self.out.t_array(e, n)
            }
            Ty::Struct(m, _) => {
                let mut members = Vec::new();
                for x in m {
                    members.push(self.lower_ty(x)?);
                }
                self.out.t_struct(&members)
            }
            Ty::Pointer(sc, _) => self.out.t_int(rep_width(sc)),
            Ty::Function(r, p) => {
                let r = self.lower_ty(r)?;
                let mut ps = Vec::new();
                for x in p {
                    // Images and samplers are not passed (`image`).
                    if self.caps.images && self.is_opaque(x) {
                        continue;
                    }
                    ps.push(self.lower_ty(x)?);
                }
                self.out.t_fn(r, &ps)
            }
            Ty::RuntimeArray(_) => return Err("runtime arrays are not supported".into()),
            Ty::Opaque(op) => {
                return Err(match op {
                    Op::TypeImage | Op::TypeSampledImage | Op::TypeSampler if !self.caps.images => {
                        "images are not supported by the device".into()
                    }
                    Op::TypeImage | Op::TypeSampledImage => {
                        "an image value used in an unsupported way".into()
                    }
                    Op::TypeSampler => "a sampler value used in an unsupported way".into(),
                    Op::TypeEvent => "events (async_work_group_copy) are not supported yet".into(),
                    Op::TypePipe => "pipes are not supported".into(),
                    _ => format!("type {op:?} is not supported"),
                })
            }
        })
    }

    pub(crate) fn emit(&mut self, b: &mut Block, op: Op, ty: Word, operands: Vec<Operand>) -> Word {
        if let Some(c) = self.fold_u32(op, ty, &operands) {
            return c;
        }
        let id = self.out.id();
        b.push(op, Some(ty), Some(id), operands);
        id
    }

    /// `op` on two 32-bit integer constants made here, as a constant:
    /// the address arithmetic on constant offsets (`memory`) folds to
    /// constant word indices, which drivers split arrays by.
    fn fold_u32(&mut self, op: Op, ty: Word, operands: &[Operand]) -> Option<Word> {
        let [Operand::IdRef(x), Operand::IdRef(y)] = operands else {
            return None;
        };
        if ty != self.out.t_u32() {
            return None;
        }
        let (x, y) = (self.out.const_u32(*x)?, self.out.const_u32(*y)?);
        let v = match op {
            Op::IAdd => x.wrapping_add(y),
            Op::ISub => x.wrapping_sub(y),
            Op::IMul => x.wrapping_mul(y),
            Op::ShiftRightLogical if y < 32 => x >> y,
            Op::ShiftLeftLogical if y < 32 => x << y,
            Op::BitwiseAnd => x & y,
            Op::BitwiseOr => x | y,
            Op::BitwiseXor => x ^ y,
            _ => return None,
        };
        Some(self.out.c_u32(v))
    }

    /// The space a pointer operand points to, or an error.
    pub(crate) fn space(&self, ptr: Word) -> Res<Space> {
        self.facts.space(ptr)
    }

    /// Copies `inst` with lowered result type and aliased operands.
    pub(crate) fn pass_through(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let rt = match inst.result_type {
            Some(t) => Some(self.lower_ty(t)?),
            None => None,
        };
        let ops = inst.operands.iter().map(|o| self.map_operand(o)).collect();
        b.push(inst.class.opcode, rt, inst.result_id, ops);
        Ok(())
    }

    pub(super) fn map_operand(&self, o: &Operand) -> Operand {
        match o {
            Operand::IdRef(i) => Operand::IdRef(self.v(*i)),
            other => other.clone(),
        }
    }

    pub(crate) fn int_width(&self, new_ty: Word) -> Option<u32> {
        self.out.int_width(new_ty)
    }

    /// Whether the output type `t` is half or a half vector.
    pub(crate) fn is_half_float(&self, t: Word) -> bool {
        let e = self.out.elem(t);
        self.out.is_float(e) && self.out.scalar_width(e) == Some(16)
    }

    pub(crate) fn is_opaque(&self, ty: Word) -> bool {
        matches!(
            self.tys.get(ty),
            Ty::Opaque(Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage)
        )
    }
}
