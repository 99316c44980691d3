//! Work-group collective functions (OpenCL C 3.0
//! `__opencl_c_work_group_collective_functions`, core in OpenCL C 2.0).
//!
//! llvm-spirv turns `work_group_all/any/broadcast/reduce_<op>/
//! scan_{in,ex}clusive_<op>` into the Kernel `OpGroup*` instructions with
//! Workgroup execution scope (the same instructions as the sub-group
//! functions, `subgroup`); IL programs arrive the same way. Vulkan has no
//! work-group-wide group operations, so each becomes sub-group operations
//! combined through `__local` memory:
//!
//! * **Scratch**: `2 × (DeviceCaps::max_num_sub_groups + 1)` words of the
//!   `__local` array after the kernel's own `__local` data (counted in
//!   `static_local_size`, so CL_KERNEL_LOCAL_MEM_SIZE and the launch's
//!   size check include it): slot `k` (two words, for 64-bit values) holds
//!   sub-group `k`'s partial result, the last slot a broadcast value.
//!   Accessed with relaxed Workgroup-scope atomics, ordered by the
//!   barriers around them.
//! * **Reduce** of `x` by `op`: `r` = the sub-group's reduction of `x`
//!   (OpGroupNonUniform<op> Reduce); a work-group barrier (earlier readers
//!   of the scratch are done); every work-item stores `r` to the slot of its
//!   sub-group (all store the same value); a barrier; then each work-item
//!   folds slots `0 … n−1` in order (`n` = get_num_sub_groups, a helper
//!   function with a loop): `((s0 op s1) op s2) …`. Every work-item computes
//!   the same fold of the same values, so all get the same result, and the
//!   order of float additions is fixed for a given work-group size.
//! * **Scans**: as the reduction, plus the sub-group's inclusive or
//!   exclusive scan `s`; work-item of sub-group `g` > 0 folds slots
//!   `0 … g−1` into `p` (the combined totals of the earlier sub-groups) and
//!   returns `p op s`; for the exclusive scan the first lane of the
//!   sub-group returns `p` itself (its `s` is the identity); sub-group 0
//!   returns `s`. Exclusive scans' identities are Vulkan's (0 for add, the
//!   type's maximum / minimum for min / max, ±INF for floats), as
//!   OpenCL's.
//! * **all / any**: the reduction by unsigned min / max of `p ? 1 : 0`.
//! * **broadcast(x, id…)**: the work-item whose local linear id is `id`
//!   (1D), `x + y × get_local_size(0)` (2D) or `x + (y + z ×
//!   get_local_size(1)) × get_local_size(0)` (3D) stores `x` to the
//!   broadcast slot between two barriers (every other work-item stores to
//!   its sub-group's slot instead, so no store needs a branch), then every
//!   work-item reads it.
//!
//! Sub-groups are those of `subgroup`: a kernel that uses these functions
//! runs as one-dimensional Vulkan work-groups whose sub-group `k` holds the
//! work-items `k×S … k×S+S−1` of the local linear id, which makes the scans
//! follow the local linear id. A work-group smaller than the enqueued size
//! (non-uniform work-groups) has fewer sub-groups, the last one partial:
//! Vulkan's group operations work on the active lanes, and the folds run
//! over get_num_sub_groups slots. Float min and max are Vulkan's
//! (GroupNonUniformFMin / FMax, NMin / NMax between sub-groups): a NaN is
//! ignored if another value is not NaN.
//!
//! Gaps: a device without sub-group arithmetic does not report these
//! functions (`DeviceCaps::work_group_collectives`); vector and 8/16-bit
//! integer operands (not OpenCL C functions) are reported.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, GroupOperation, MemorySemantics as M, Op, Scope, Word};

use super::context::{ClBuiltin, Lower, Res};
use super::emit::{ids, Block};
use super::helper_fn::HelperFn;
use crate::analyses::address_space::Space;

/// The combining operation of a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combine {
    IAdd,
    FAdd,
    SMin,
    UMin,
    FMin,
    SMax,
    UMax,
    FMax,
}

impl Combine {
    fn of(op: Op) -> Option<Combine> {
        Some(match op {
            Op::GroupIAdd => Combine::IAdd,
            Op::GroupFAdd => Combine::FAdd,
            Op::GroupSMin => Combine::SMin,
            Op::GroupUMin => Combine::UMin,
            Op::GroupFMin => Combine::FMin,
            Op::GroupSMax => Combine::SMax,
            Op::GroupUMax => Combine::UMax,
            Op::GroupFMax => Combine::FMax,
            _ => return None,
        })
    }

    /// The sub-group instruction.
    fn non_uniform(self) -> Op {
        match self {
            Combine::IAdd => Op::GroupNonUniformIAdd,
            Combine::FAdd => Op::GroupNonUniformFAdd,
            Combine::SMin => Op::GroupNonUniformSMin,
            Combine::UMin => Op::GroupNonUniformUMin,
            Combine::FMin => Op::GroupNonUniformFMin,
            Combine::SMax => Op::GroupNonUniformSMax,
            Combine::UMax => Op::GroupNonUniformUMax,
            Combine::FMax => Op::GroupNonUniformFMax,
        }
    }
}

impl Lower<'_> {
    /// Whether `inst` is a Kernel group instruction of Workgroup scope.
    pub(crate) fn is_work_group_inst(&self, inst: &Instruction) -> bool {
        (matches!(
            inst.class.opcode,
            Op::GroupAll | Op::GroupAny | Op::GroupBroadcast
        ) || Combine::of(inst.class.opcode).is_some())
            && inst
                .operands
                .first()
                .and_then(|o| o.id_ref_any())
                .and_then(|s| self.const_u32(s))
                == Some(Scope::Workgroup as u32)
    }

    /// A work-group collective function (module docs).
    pub(crate) fn lower_work_group_inst(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        if !self.caps.work_group_collectives() {
            return Err("work-group collective functions are not supported by this device".into());
        }
        let op = inst.class.opcode;
        let id_op = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let rid = inst.result_id.unwrap_or(0);
        let r = match op {
            Op::GroupAll | Op::GroupAny => {
                let (u32t, bt) = (self.out.t_u32(), self.out.t_bool());
                let p = self.v(id_op(1));
                let (one, zero) = (self.out.c_u32(1), self.out.c_u32(0));
                let u = self.emit(b, Op::Select, u32t, ids(&[p, one, zero]));
                let c = if op == Op::GroupAll {
                    Combine::UMin
                } else {
                    Combine::UMax
                };
                let r = self.collective(b, GroupOperation::Reduce, c, u32t, u)?;
                self.emit(b, Op::INotEqual, bt, ids(&[r, zero]))
            }
            Op::GroupBroadcast => {
                let t = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let x = self.v(id_op(1));
                self.broadcast(b, t, x, id_op(2))?
            }
            _ => {
                let c = Combine::of(op).ok_or_else(|| format!("Op{op:?} is not a group op"))?;
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
                let t = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let x = self.v(id_op(2));
                self.collective(b, group_op, c, t, x)?
            }
        };
        self.alias.insert(rid, r);
        Ok(())
    }

    /// A reduction or scan of `x` (type `t`) over the work-group.
    fn collective(
        &mut self,
        b: &mut Block,
        gop: GroupOperation,
        c: Combine,
        t: Word,
        x: Word,
    ) -> Res<Word> {
        self.check_collective_type(t)?;
        self.use_group_cap(Capability::GroupNonUniformArithmetic);
        let bt = self.out.t_bool();
        let sg_scope = self.out.c_u32(Scope::Subgroup as u32);
        let group = |l: &mut Self, b: &mut Block, g: GroupOperation| {
            let mut operands = vec![Operand::IdRef(sg_scope), Operand::GroupOperation(g)];
            operands.push(Operand::IdRef(x));
            l.emit(b, c.non_uniform(), t, operands)
        };
        let total = group(self, b, GroupOperation::Reduce);
        let scan = (gop != GroupOperation::Reduce).then(|| group(self, b, gop));
        let sg = self.builtin_u32(b, ClBuiltin::SubgroupId, 0);
        self.wg_scratch_barrier(b);
        self.store_slot(b, sg, total, t)?;
        self.wg_scratch_barrier(b);
        let fold = self.fold_helper(c, t)?;
        let Some(scan) = scan else {
            let n = self.builtin_u32(b, ClBuiltin::NumSubgroups, 0);
            return Ok(self.call_helper(b, fold, t, &[n]));
        };
        let p = self.call_helper(b, fold, t, &[sg]);
        let joined = self.combine(b, c, t, p, scan);
        let joined = if gop == GroupOperation::ExclusiveScan {
            let lane = self.builtin_u32(b, ClBuiltin::SubgroupLocalId, 0);
            let zero = self.out.c_u32(0);
            let first = self.emit(b, Op::IEqual, bt, ids(&[lane, zero]));
            self.emit(b, Op::Select, t, ids(&[first, p, joined]))
        } else {
            joined
        };
        let zero = self.out.c_u32(0);
        let first_sg = self.emit(b, Op::IEqual, bt, ids(&[sg, zero]));
        Ok(self.emit(b, Op::Select, t, ids(&[first_sg, scan, joined])))
    }

    /// `work_group_broadcast(x, id…)` (module docs); `id_orig`: the input's
    /// local id operand (a scalar, or a vector of 2 or 3 components).
    fn broadcast(&mut self, b: &mut Block, t: Word, x: Word, id_orig: Word) -> Res<Word> {
        self.check_collective_type(t)?;
        let (u32t, bt) = (self.out.t_u32(), self.out.t_bool());
        let id_ty = self.lower_ty(self.ty_of(id_orig))?;
        let id = self.v(id_orig);
        let n = self.out.vec_len(id_ty);
        let elem = self.out.elem(id_ty);
        let wide = self.out.int_width(elem) != Some(32);
        let mut comps = Vec::new();
        for d in 0..n.max(1) {
            let c = if n > 1 {
                self.emit(
                    b,
                    Op::CompositeExtract,
                    elem,
                    vec![Operand::IdRef(id), Operand::LiteralBit32(d)],
                )
            } else {
                id
            };
            comps.push(if wide {
                self.emit(b, Op::UConvert, u32t, ids(&[c]))
            } else {
                c
            });
        }
        // x + (y + z × size(1)) × size(0)
        let mut lin = *comps.last().expect("one component");
        for d in (0..comps.len() - 1).rev() {
            let size = self.builtin_u32(b, ClBuiltin::LocalSize, d as u32);
            let m = self.emit(b, Op::IMul, u32t, ids(&[lin, size]));
            lin = self.emit(b, Op::IAdd, u32t, ids(&[m, comps[d]]));
        }
        let me = self.builtin_u32(b, ClBuiltin::LocalLinearId, 0);
        let sg = self.builtin_u32(b, ClBuiltin::SubgroupId, 0);
        let bslot = self.out.c_u32(self.caps.max_num_sub_groups);
        let mine = self.emit(b, Op::IEqual, bt, ids(&[me, lin]));
        let slot = self.emit(b, Op::Select, u32t, ids(&[mine, bslot, sg]));
        self.wg_scratch_barrier(b);
        self.store_slot(b, slot, x, t)?;
        self.wg_scratch_barrier(b);
        self.load_slot(b, bslot, t)
    }

    /// Scalars of 16, 32 or 64 bits (OpenCL C's collectives take int,
    /// uint, long, ulong, half, float and double).
    fn check_collective_type(&self, t: Word) -> Res<()> {
        match self.out.scalar_width(t) {
            Some(16 | 32 | 64) if self.out.vec_len(t) <= 1 => Ok(()),
            _ => Err("work-group functions on this type are not supported".into()),
        }
    }

    /// A work-group barrier ordering the scratch's accesses.
    fn wg_scratch_barrier(&mut self, b: &mut Block) {
        let wg = self.out.c_u32(Scope::Workgroup as u32);
        let sem = self
            .out
            .c_u32((M::ACQUIRE_RELEASE | M::WORKGROUP_MEMORY).bits());
        b.push(Op::ControlBarrier, None, None, ids(&[wg, wg, sem]));
    }

    /// Word index of the scratch's first word, reserved on first use.
    fn wg_scratch_word(&mut self) -> u32 {
        if let Some(off) = self.helpers.wg_scratch {
            return off / 4;
        }
        let off = self.mem.static_local_size.next_multiple_of(8);
        let slots = u64::from(self.caps.max_num_sub_groups) + 1;
        self.mem.static_local_size = off + 8 * slots;
        self.mem.uses_local = true;
        self.helpers.wg_scratch = Some(off as u32);
        off as u32 / 4
    }

    /// Pointers to the two words of scratch slot `slot` (a u32 value).
    fn slot_words(&mut self, b: &mut Block, slot: Word) -> Res<[Word; 2]> {
        let u32t = self.out.t_u32();
        let base = self.wg_scratch_word();
        let base = self.out.c_u32(base);
        let one = self.out.c_u32(1);
        let i = self.emit(b, Op::ShiftLeftLogical, u32t, ids(&[slot, one]));
        let i = self.emit(b, Op::IAdd, u32t, ids(&[i, base]));
        let i1 = self.emit(b, Op::IAdd, u32t, ids(&[i, one]));
        Ok([
            self.word_ptr(b, Space::Local, i)?,
            self.word_ptr(b, Space::Local, i1)?,
        ])
    }

    /// Stores `v` (type `t`) to scratch slot `slot`.
    fn store_slot(&mut self, b: &mut Block, slot: Word, v: Word, t: Word) -> Res<()> {
        let u32t = self.out.t_u32();
        let [p0, p1] = self.slot_words(b, slot)?;
        let scope = self.out.c_u32(Scope::Workgroup as u32);
        let relaxed = self.out.c_u32(0);
        let words: Vec<Word> = match self.out.scalar_width(t) {
            Some(64) => {
                let v2 = self.out.t_vec(u32t, 2);
                let w = self.emit(b, Op::Bitcast, v2, ids(&[v]));
                (0..2)
                    .map(|k| {
                        self.emit(
                            b,
                            Op::CompositeExtract,
                            u32t,
                            vec![Operand::IdRef(w), Operand::LiteralBit32(k)],
                        )
                    })
                    .collect()
            }
            Some(16) => {
                let u16t = self.out.t_int(16);
                let h = if self.out.is_float(t) {
                    self.emit(b, Op::Bitcast, u16t, ids(&[v]))
                } else {
                    v
                };
                vec![self.emit(b, Op::UConvert, u32t, ids(&[h]))]
            }
            _ if t == u32t => vec![v],
            _ => vec![self.emit(b, Op::Bitcast, u32t, ids(&[v]))],
        };
        for (p, w) in [p0, p1].into_iter().zip(words) {
            b.push(Op::AtomicStore, None, None, ids(&[p, scope, relaxed, w]));
        }
        Ok(())
    }

    /// The value (type `t`) of scratch slot `slot`.
    fn load_slot(&mut self, b: &mut Block, slot: Word, t: Word) -> Res<Word> {
        let u32t = self.out.t_u32();
        let [p0, p1] = self.slot_words(b, slot)?;
        let scope = self.out.c_u32(Scope::Workgroup as u32);
        let relaxed = self.out.c_u32(0);
        let lo = self.emit(b, Op::AtomicLoad, u32t, ids(&[p0, scope, relaxed]));
        Ok(match self.out.scalar_width(t) {
            Some(64) => {
                let hi = self.emit(b, Op::AtomicLoad, u32t, ids(&[p1, scope, relaxed]));
                self.words_to(b, &[lo, hi], t)
            }
            Some(16) => {
                let u16t = self.out.t_int(16);
                let h = self.emit(b, Op::UConvert, u16t, ids(&[lo]));
                if self.out.is_float(t) {
                    self.emit(b, Op::Bitcast, t, ids(&[h]))
                } else {
                    h
                }
            }
            _ if t == u32t => lo,
            _ => self.emit(b, Op::Bitcast, t, ids(&[lo])),
        })
    }

    /// `a op x` (type `t`).
    fn combine(&mut self, b: &mut Block, c: Combine, t: Word, a: Word, x: Word) -> Word {
        let bt = self.out.t_bool();
        let pick = |l: &mut Self, b: &mut Block, cmp: Op| {
            let lt = l.emit(b, cmp, bt, ids(&[x, a]));
            l.emit(b, Op::Select, t, ids(&[lt, x, a]))
        };
        let glsl = |l: &mut Self, b: &mut Block, inst: u32| {
            let set = l.out.glsl();
            l.emit(
                b,
                Op::ExtInst,
                t,
                vec![
                    Operand::IdRef(set),
                    Operand::LiteralExtInstInteger(inst),
                    Operand::IdRef(a),
                    Operand::IdRef(x),
                ],
            )
        };
        match c {
            Combine::IAdd => self.emit(b, Op::IAdd, t, ids(&[a, x])),
            Combine::FAdd => self.emit(b, Op::FAdd, t, ids(&[a, x])),
            Combine::SMin => pick(self, b, Op::SLessThan),
            Combine::UMin => pick(self, b, Op::ULessThan),
            Combine::SMax => pick(self, b, Op::SGreaterThan),
            Combine::UMax => pick(self, b, Op::UGreaterThan),
            // GLSL.std.450 NMin / NMax: a NaN operand gives the other.
            Combine::FMin => glsl(self, b, 79),
            Combine::FMax => glsl(self, b, 80),
        }
    }

    /// The helper `T fold(u32 n)`: slots `0 … n−1` combined in order by
    /// `c` (slot 0 alone for n ≤ 1).
    fn fold_helper(&mut self, c: Combine, t: Word) -> Res<Word> {
        let key = format!("wg_fold_{c:?}_{t}");
        if let Some(f) = self.helper(&key) {
            return Ok(f);
        }
        let (u32t, bt) = (self.out.t_u32(), self.out.t_bool());
        let (fid, n) = (self.out.id(), self.out.id());
        let [entry, header, body, latch, exit] = [(); 5].map(|_| self.out.id());
        let (acc, j, acc2, j2) = (self.out.id(), self.out.id(), self.out.id(), self.out.id());
        let (zero, one) = (self.out.c_u32(0), self.out.c_u32(1));

        let mut eb = Block::default();
        let first = self.load_slot(&mut eb, zero, t)?;
        eb.push(Op::Branch, None, None, ids(&[header]));

        let mut hb = Block::default();
        hb.push(
            Op::Phi,
            Some(t),
            Some(acc),
            ids(&[first, entry, acc2, latch]),
        );
        hb.push(Op::Phi, Some(u32t), Some(j), ids(&[one, entry, j2, latch]));
        let more = self.emit(&mut hb, Op::ULessThan, bt, ids(&[j, n]));
        Self::loop_merge(&mut hb, exit, latch);
        hb.push(Op::BranchConditional, None, None, ids(&[more, body, exit]));

        let mut bb = Block::default();
        let w = self.load_slot(&mut bb, j, t)?;
        let r = self.combine(&mut bb, c, t, acc, w);
        bb.push(Op::CopyObject, Some(t), Some(acc2), ids(&[r]));
        bb.push(Op::Branch, None, None, ids(&[latch]));

        let mut lb = Block::default();
        lb.push(Op::IAdd, Some(u32t), Some(j2), ids(&[j, one]));
        lb.push(Op::Branch, None, None, ids(&[header]));

        let mut xb = Block::default();
        xb.push(Op::ReturnValue, None, None, ids(&[acc]));

        self.define_helper(
            key,
            HelperFn {
                id: fid,
                result: t,
                params: vec![(n, u32t)],
                blocks: vec![
                    (entry, eb),
                    (header, hb),
                    (body, bb),
                    (latch, lb),
                    (exit, xb),
                ],
            },
        );
        Ok(fid)
    }
}
