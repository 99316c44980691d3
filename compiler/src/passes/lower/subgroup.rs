//! Sub-groups (`cl_khr_subgroups`, OpenCL C 3.0 `__opencl_c_subgroups`).
//!
//! llvm-spirv turns the OpenCL C sub-group functions into the Kernel
//! `OpGroup*` instructions with Subgroup execution scope and the query
//! functions into loads of the `Subgroup*` builtin variables; Vulkan has
//! the `OpGroupNonUniform*` instructions and its own builtins instead:
//!
//! | OpenCL C                        | Kernel SPIR-V                   | Vulkan SPIR-V                                   |
//! |---------------------------------|---------------------------------|-------------------------------------------------|
//! | `sub_group_all` / `_any`        | OpGroupAll / OpGroupAny         | OpGroupNonUniformAll / Any (Vote)              |
//! | `sub_group_broadcast(x, id)`    | OpGroupBroadcast                | OpGroupNonUniformBroadcast (constant id), else OpGroupNonUniformShuffle |
//! | `sub_group_reduce_<op>`         | OpGroup{I,F}Add, {S,U,F}Min/Max Reduce | OpGroupNonUniform* Reduce (Arithmetic)  |
//! | `sub_group_scan_{ex,in}clusive_<op>` | … ExclusiveScan / InclusiveScan | … ExclusiveScan / InclusiveScan         |
//! | `sub_group_barrier`             | OpControlBarrier (Subgroup)     | OpControlBarrier (Subgroup), see `lower_barrier` |
//!
//! The optional extensions (`cl_khr_subgroup_extended_types`,
//! `_non_uniform_vote`, `_ballot`, `_shuffle`, `_shuffle_relative`,
//! `_non_uniform_arithmetic`, `_clustered_reduce`, `_rotate`;
//! `DeviceCaps::subgroup_extensions`
//! decides which the device reports): llvm-spirv already emits
//! `OpGroupNonUniform*` for their functions, kept as they are with their
//! capabilities (`lower_non_uniform`); `get_sub_group_<k>_mask` loads the
//! `Subgroup*Mask` builtins, computed from the sub-group local id and size
//! instead (`workitem`), so partial sub-groups have no bits past their end.
//! `sub_group_rotate` / `sub_group_clustered_rotate` arrive as shuffles
//! (`frontend::rotate` defines them in the program's LLVM IR); an IL
//! module's OpGroupNonUniformRotateKHR (SPV_KHR_subgroup_rotate, core in
//! OpenCL 3.1) becomes the same shuffle (`lower_rotate`).
//!
//! Vulkan's group instructions take scalars and vectors of up to 4
//! components: on 8/16-wide vectors (broadcasts of
//! `cl_khr_subgroup_extended_types` and `_ballot`) each 4-wide part is its
//! own instruction (`split_wide_subgroup_inst`). Clustered reductions need
//! a constant power-of-two cluster size (else a build error); SPIR-V wants
//! ClusterSize ≤ the sub-group size, so a cluster at least as large as
//! `DeviceCaps::subgroup_size` is a plain Reduce over the sub-group. The
//! front end keeps clang from merging identical sub-group calls of both
//! arms of a branch (`frontend::uses_subgroup_functions`), which would
//! change their active sets.
//!
//! Vulkan's exclusive scans start from the operation's identity (0, the
//! type's maximum for min, its minimum for max, ±INF for floats), as
//! OpenCL's do. Reductions of 8/16/64-bit integers and of `half` need
//! `shaderSubgroupExtendedTypes`, which the runtime requires before it
//! reports sub-groups.
//!
//! The queries (`workitem`): with `S` = Vulkan's SubgroupSize,
//! `get_sub_group_local_id` = SubgroupLocalInvocationId,
//! `get_sub_group_id` = SubgroupId, `get_num_sub_groups` = ⌈local linear
//! size / S⌉ (not NumSubgroups, which lavapipe rounds down),
//! `get_max_sub_group_size` = min(S, enqueued local linear size),
//! `get_sub_group_size` = min(S, local linear size − SubgroupId × S) (the
//! last sub-group of a work-group whose size is not a multiple of `S` is
//! partial), `get_enqueued_num_sub_groups` = ⌈enqueued local linear size /
//! S⌉. These assume the usual layout (sub-group `i` holds the invocations
//! `i×S … i×S+S−1` of LocalInvocationIndex), which every known driver uses
//! and which the runtime pins down where Vulkan lets it (a required subgroup
//! size, full subgroups when the local size x is a multiple of `S`).
//!
//! Gaps: clustered reductions whose cluster size is not a constant,
//! group operations Vulkan lacks, a variable broadcast id without shuffle
//! support, and 8/16-wide operands with a scalar result are reported.

use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, GroupOperation, Op, Scope, Word};

use super::context::Res;
use super::context::{ClBuiltin, Lower};
use super::emit::ids;
use super::emit::Block;
use crate::analyses::type_table::Ty;

impl Lower<'_> {
    /// The value of a constant integer id of the input, if it is one.
    pub(crate) fn const_u32(&self, id: Word) -> Option<u32> {
        self.tys.int_consts.get(&id).map(|c| c.0 as u32)
    }

    pub(crate) fn use_group_cap(&mut self, c: Capability) {
        if !self.subgroups.caps.contains(&c) {
            self.subgroups.caps.push(c);
        }
        if !self.subgroups.caps.contains(&Capability::GroupNonUniform) {
            self.subgroups.caps.push(Capability::GroupNonUniform);
        }
    }

    /// Whether the functions of `order` use sub-groups: a sub-group
    /// instruction or barrier, a sub-group builtin variable, or a
    /// work-group collective (made of sub-group operations, `work_group`).
    pub(crate) fn uses_subgroups(&self, order: &[Word]) -> bool {
        let subgroup_builtin = |id: Word| {
            self.ix.decorations.get(&id).is_some_and(|ds| {
                ds.iter().any(|d| {
                    matches!(
                        d.operands.get(2),
                        Some(Operand::BuiltIn(
                            BuiltIn::SubgroupSize
                                | BuiltIn::SubgroupMaxSize
                                | BuiltIn::NumSubgroups
                                | BuiltIn::NumEnqueuedSubgroups
                                | BuiltIn::SubgroupId
                                | BuiltIn::SubgroupLocalInvocationId
                                | BuiltIn::SubgroupEqMask
                                | BuiltIn::SubgroupGeMask
                                | BuiltIn::SubgroupGtMask
                                | BuiltIn::SubgroupLeMask
                                | BuiltIn::SubgroupLtMask
                        ))
                    )
                })
            })
        };
        order.iter().any(|f| {
            self.ix.funcs[f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .any(|inst| {
                    self.is_subgroup_inst(inst)
                        || self.is_work_group_inst(inst)
                        || (inst.class.opcode == Op::ControlBarrier
                            && inst
                                .operands
                                .first()
                                .and_then(|o| o.id_ref_any())
                                .and_then(|s| self.const_u32(s))
                                == Some(Scope::Subgroup as u32))
                        || (inst.class.opcode == Op::Load
                            && inst
                                .operands
                                .first()
                                .and_then(|o| o.id_ref_any())
                                .is_some_and(subgroup_builtin))
                })
        })
    }

    /// Whether `inst` is a Kernel group instruction of Subgroup scope, or
    /// an `OpGroupNonUniform*` instruction (the optional `cl_khr_subgroup_*`
    /// extensions).
    pub(crate) fn is_subgroup_inst(&self, inst: &rspirv::dr::Instruction) -> bool {
        (matches!(
            inst.class.opcode,
            Op::GroupAll
                | Op::GroupAny
                | Op::GroupBroadcast
                | Op::GroupIAdd
                | Op::GroupFAdd
                | Op::GroupSMin
                | Op::GroupUMin
                | Op::GroupFMin
                | Op::GroupSMax
                | Op::GroupUMax
                | Op::GroupFMax
        ) || non_uniform_op(inst.class.opcode).is_some())
            && inst
                .operands
                .first()
                .and_then(|o| o.id_ref_any())
                .and_then(|s| self.const_u32(s))
                == Some(Scope::Subgroup as u32)
    }

    /// An `OpGroup*` instruction of Subgroup scope (`is_subgroup_inst`).
    pub(crate) fn lower_subgroup_inst(
        &mut self,
        b: &mut Block,
        inst: &rspirv::dr::Instruction,
    ) -> Res<()> {
        if !self.caps.subgroups() {
            return Err("sub-group functions are not supported by this device".into());
        }
        let op = inst.class.opcode;
        if let Some(bits) = non_uniform_op(op) {
            return self.lower_non_uniform(b, inst, bits);
        }
        let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let scope = self.out.c_u32(Scope::Subgroup as u32);
        let id_op = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let (new_op, operands) = match op {
            Op::GroupAll | Op::GroupAny => {
                self.use_group_cap(Capability::GroupNonUniformVote);
                let p = self.v(id_op(1));
                let o = if op == Op::GroupAll {
                    Op::GroupNonUniformAll
                } else {
                    Op::GroupNonUniformAny
                };
                (o, ids(&[scope, p]))
            }
            Op::GroupBroadcast => {
                let x = self.v(id_op(1));
                let id_orig = id_op(2);
                match self.const_u32(id_orig) {
                    Some(c) => {
                        self.use_group_cap(Capability::GroupNonUniformBallot);
                        let c = self.out.c_u32(c);
                        (Op::GroupNonUniformBroadcast, ids(&[scope, x, c]))
                    }
                    None => {
                        // OpenCL only promises the id is uniform within
                        // the sub-group: a shuffle reads any lane.
                        self.use_group_cap(Capability::GroupNonUniformShuffle);
                        let mut id = self.v(id_orig);
                        let it = self.lower_ty(self.ty_of(id_orig))?;
                        if self.int_width(it) != Some(32) {
                            let u32t = self.out.t_u32();
                            id = self.emit(b, Op::UConvert, u32t, ids(&[id]));
                        }
                        (Op::GroupNonUniformShuffle, ids(&[scope, x, id]))
                    }
                }
            }
            _ => {
                self.use_group_cap(Capability::GroupNonUniformArithmetic);
                let group_op = match inst.operands.get(1) {
                    Some(Operand::GroupOperation(g)) => *g,
                    _ => return Err(format!("Op{op:?} without a group operation")),
                };
                if !matches!(
                    group_op,
                    GroupOperation::Reduce
                        | GroupOperation::InclusiveScan
                        | GroupOperation::ExclusiveScan
                ) {
                    return Err(format!(
                        "Op{op:?} with group operation {group_op:?} is not supported"
                    ));
                }
                let o = match op {
                    Op::GroupIAdd => Op::GroupNonUniformIAdd,
                    Op::GroupFAdd => Op::GroupNonUniformFAdd,
                    Op::GroupSMin => Op::GroupNonUniformSMin,
                    Op::GroupUMin => Op::GroupNonUniformUMin,
                    Op::GroupFMin => Op::GroupNonUniformFMin,
                    Op::GroupSMax => Op::GroupNonUniformSMax,
                    Op::GroupUMax => Op::GroupNonUniformUMax,
                    _ => Op::GroupNonUniformFMax,
                };
                let x = self.v(id_op(2));
                (
                    o,
                    vec![
                        Operand::IdRef(scope),
                        Operand::GroupOperation(group_op),
                        Operand::IdRef(x),
                    ],
                )
            }
        };
        b.push(new_op, Some(rt), inst.result_id, operands);
        Ok(())
    }

    /// A sub-group instruction on 8/16-wide vectors (broadcasts, shuffles
    /// ... of `cl_khr_subgroup_extended_types` and the other extensions):
    /// Vulkan's group instructions take scalars and vectors of at most 4
    /// components, so the instruction runs once per 4-wide part (`wide`),
    /// through `lower_subgroup_inst` as if the input had a 4-wide one, and
    /// the parts are put together again. The parts are component-wise
    /// exact: every such OpenCL function works per component.
    pub(crate) fn split_wide_subgroup_inst(
        &mut self,
        b: &mut Block,
        inst: &rspirv::dr::Instruction,
    ) -> Res<()> {
        let op = inst.class.opcode;
        let rty = inst.result_type.unwrap_or(0);
        let rid = inst.result_id.unwrap_or(0);
        let Ty::Vector(elem, n) = self.tys.get(rty).clone() else {
            return Err(format!(
                "Op{op:?} with an 8/16-wide vector operand and a scalar result is not supported"
            ));
        };
        let part_rt = self.synth_vec4(elem);
        let t = self.lower_ty(rty)?;
        let mut parts = Vec::new();
        for i in 0..n.div_ceil(4) {
            let mut part = inst.clone();
            // Fresh ids (past the input's bound) stand for the input's
            // 4-wide part values and result.
            let part_id = self.out.id();
            part.result_id = Some(part_id);
            part.result_type = Some(part_rt);
            for o in part.operands.iter_mut() {
                let Operand::IdRef(x) = o else { continue };
                let xt = self.ty_of(*x);
                if !self.is_wide(xt) {
                    continue;
                }
                let Ty::Vector(xe, _) = self.tys.get(xt).clone() else {
                    continue;
                };
                let x_part_ty = self.synth_vec4(xe);
                let pt = self.lower_ty(x_part_ty)?;
                let xv = self.v(*x);
                let p = self.wide_part(b, xv, pt, i);
                let synth = self.out.id();
                self.synth_ty.insert(synth, x_part_ty);
                self.alias.insert(synth, p);
                *o = Operand::IdRef(synth);
            }
            self.lower_subgroup_inst(b, &part)?;
            parts.push(self.v(part_id));
        }
        let r = self.emit(b, Op::CompositeConstruct, t, ids(&parts));
        self.alias.insert(rid, r);
        Ok(())
    }

    /// An `OpGroupNonUniform*` instruction, which llvm-spirv emits for the
    /// optional sub-group extensions: the same instruction in Vulkan, with
    /// its capability, once the device is known to have the operations
    /// (`bits`, `SUBGROUP_*`). Ballots are `uint4` in OpenCL and `uvec4`
    /// in Vulkan, bit `i` of both the sub-group local id `i`, and
    /// `get_sub_group_local_id` is SubgroupLocalInvocationId: the same
    /// layout. Broadcasts from an id that is not a constant become shuffles
    /// (OpGroupNonUniformBroadcast wants a constant id before SPIR-V 1.5).
    fn lower_non_uniform(
        &mut self,
        b: &mut Block,
        inst: &rspirv::dr::Instruction,
        bits: u32,
    ) -> Res<()> {
        let op = inst.class.opcode;
        let mut clustered = matches!(
            inst.operands.get(1),
            Some(Operand::GroupOperation(GroupOperation::ClusteredReduce))
        );
        let plain;
        let mut inst = inst;
        if clustered {
            // The extension's cluster size: a compile-time constant power
            // of two. SPIR-V wants ClusterSize ≤ the sub-group size; a
            // cluster as large as the sub-group (or larger) is all of it,
            // a plain reduction (NVIDIA's compiler crashes on ClusterSize
            // 64 with 32-wide sub-groups).
            let size = inst.operands.get(3).and_then(|o| o.id_ref_any());
            let size = match size.and_then(|s| self.const_u32(s)) {
                Some(c) => c,
                None => {
                    return Err("sub_group_clustered_reduce_*: the cluster size \
                                must be a compile-time constant"
                        .into())
                }
            };
            if !size.is_power_of_two() {
                return Err(format!(
                    "sub_group_clustered_reduce_*: cluster size {size} is not a power of two"
                ));
            }
            if size >= self.caps.subgroup_size {
                let mut p = inst.clone();
                p.operands[1] = Operand::GroupOperation(GroupOperation::Reduce);
                p.operands.truncate(3);
                plain = p;
                inst = &plain;
                clustered = false;
            }
        }
        let bits = bits
            | if clustered {
                crate::caps::SUBGROUP_CLUSTERED
            } else {
                0
            };
        if !self.caps.has_subgroup_ops(bits) {
            return Err(format!(
                "Op{op:?}: the sub-group operation is not supported by this device"
            ));
        }
        let cap = match op {
            Op::GroupNonUniformElect => Capability::GroupNonUniform,
            Op::GroupNonUniformAll | Op::GroupNonUniformAny | Op::GroupNonUniformAllEqual => {
                Capability::GroupNonUniformVote
            }
            Op::GroupNonUniformShuffle | Op::GroupNonUniformShuffleXor => {
                Capability::GroupNonUniformShuffle
            }
            Op::GroupNonUniformShuffleUp | Op::GroupNonUniformShuffleDown => {
                Capability::GroupNonUniformShuffleRelative
            }
            _ if bits & crate::caps::SUBGROUP_BALLOT != 0 => Capability::GroupNonUniformBallot,
            _ => {
                if clustered {
                    Capability::GroupNonUniformClustered
                } else {
                    Capability::GroupNonUniformArithmetic
                }
            }
        };
        if op == Op::GroupNonUniformRotateKHR {
            return self.lower_rotate(b, inst);
        }
        self.use_group_cap(cap);
        if op == Op::GroupNonUniformBroadcast {
            let id_orig = inst
                .operands
                .get(2)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0);
            if self.const_u32(id_orig).is_none() {
                if !self.caps.has_subgroup_ops(crate::caps::SUBGROUP_SHUFFLE) {
                    return Err("sub_group_non_uniform_broadcast with a variable id: \
                                shuffles are not supported by this device"
                        .into());
                }
                self.use_group_cap(Capability::GroupNonUniformShuffle);
                let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let scope = self.out.c_u32(Scope::Subgroup as u32);
                let x = self.v(inst.operands[1].id_ref_any().unwrap_or(0));
                let mut id = self.v(id_orig);
                let it = self.lower_ty(self.ty_of(id_orig))?;
                if self.int_width(it) != Some(32) {
                    let u32t = self.out.t_u32();
                    id = self.emit(b, Op::UConvert, u32t, ids(&[id]));
                }
                b.push(
                    Op::GroupNonUniformShuffle,
                    Some(rt),
                    inst.result_id,
                    ids(&[scope, x, id]),
                );
                return Ok(());
            }
        }
        self.pass_through(b, inst)
    }
}

impl Lower<'_> {
    /// OpGroupNonUniformRotateKHR (SPV_KHR_subgroup_rotate; few Vulkan
    /// drivers have it, lavapipe 22.3 does not): the shuffle the source
    /// path's definitions make (`frontend::rotate`), from lane `(id +
    /// delta) % get_max_sub_group_size()`, or with a ClusterSize `c` (a
    /// power of two, as the extension requires) from `(id & -c) | ((id +
    /// delta) & (c - 1))`, in `uint` arithmetic.
    fn lower_rotate(&mut self, b: &mut Block, inst: &rspirv::dr::Instruction) -> Res<()> {
        self.use_group_cap(Capability::GroupNonUniformShuffle);
        let op_id = |k: usize| inst.operands.get(k).and_then(|o| o.id_ref_any());
        let (Some(x), Some(delta)) = (op_id(1), op_id(2)) else {
            return Err("OpGroupNonUniformRotateKHR without a value and a delta".into());
        };
        let u32t = self.out.t_u32();
        let as_u32 = |cx: &mut Self, b: &mut Block, v: Word| -> Res<Word> {
            let t = cx.lower_ty(cx.ty_of(v))?;
            let lv = cx.v(v);
            Ok(if cx.int_width(t) == Some(32) {
                lv
            } else {
                cx.emit(b, Op::UConvert, u32t, ids(&[lv]))
            })
        };
        let delta = as_u32(self, b, delta)?;
        let id = self.builtin_u32(b, ClBuiltin::SubgroupLocalId, 0);
        let sum = self.emit(b, Op::IAdd, u32t, ids(&[id, delta]));
        let lane = match op_id(3) {
            None => {
                let max = self.builtin_u32(b, ClBuiltin::SubgroupMaxSize, 0);
                self.emit(b, Op::UMod, u32t, ids(&[sum, max]))
            }
            Some(c) => {
                let c = as_u32(self, b, c)?;
                let one = self.out.c_u32(1);
                let mask = self.emit(b, Op::ISub, u32t, ids(&[c, one]));
                let neg = self.emit(b, Op::SNegate, u32t, ids(&[c]));
                let hi = self.emit(b, Op::BitwiseAnd, u32t, ids(&[id, neg]));
                let lo = self.emit(b, Op::BitwiseAnd, u32t, ids(&[sum, mask]));
                self.emit(b, Op::BitwiseOr, u32t, ids(&[hi, lo]))
            }
        };
        let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let scope = self.out.c_u32(Scope::Subgroup as u32);
        let xv = self.v(x);
        b.push(
            Op::GroupNonUniformShuffle,
            Some(rt),
            inst.result_id,
            ids(&[scope, xv, lane]),
        );
        Ok(())
    }
}

/// The Vulkan sub-group operations (`SUBGROUP_*`) an `OpGroupNonUniform*`
/// instruction needs; `None` for other instructions.
fn non_uniform_op(op: Op) -> Option<u32> {
    use crate::caps::{
        SUBGROUP_ARITHMETIC, SUBGROUP_BALLOT, SUBGROUP_BASIC, SUBGROUP_SHUFFLE,
        SUBGROUP_SHUFFLE_RELATIVE, SUBGROUP_VOTE,
    };
    Some(match op {
        Op::GroupNonUniformElect => SUBGROUP_BASIC,
        Op::GroupNonUniformAll | Op::GroupNonUniformAny | Op::GroupNonUniformAllEqual => {
            SUBGROUP_VOTE
        }
        Op::GroupNonUniformBroadcast
        | Op::GroupNonUniformBroadcastFirst
        | Op::GroupNonUniformBallot
        | Op::GroupNonUniformInverseBallot
        | Op::GroupNonUniformBallotBitExtract
        | Op::GroupNonUniformBallotBitCount
        | Op::GroupNonUniformBallotFindLSB
        | Op::GroupNonUniformBallotFindMSB => SUBGROUP_BALLOT,
        Op::GroupNonUniformShuffle
        | Op::GroupNonUniformShuffleXor
        | Op::GroupNonUniformRotateKHR => SUBGROUP_SHUFFLE,
        Op::GroupNonUniformShuffleUp | Op::GroupNonUniformShuffleDown => SUBGROUP_SHUFFLE_RELATIVE,
        Op::GroupNonUniformIAdd
        | Op::GroupNonUniformFAdd
        | Op::GroupNonUniformIMul
        | Op::GroupNonUniformFMul
        | Op::GroupNonUniformSMin
        | Op::GroupNonUniformUMin
        | Op::GroupNonUniformFMin
        | Op::GroupNonUniformSMax
        | Op::GroupNonUniformUMax
        | Op::GroupNonUniformFMax
        | Op::GroupNonUniformBitwiseAnd
        | Op::GroupNonUniformBitwiseOr
        | Op::GroupNonUniformBitwiseXor
        | Op::GroupNonUniformLogicalAnd
        | Op::GroupNonUniformLogicalOr
        | Op::GroupNonUniformLogicalXor => SUBGROUP_ARITHMETIC,
        _ => return None,
    })
}
