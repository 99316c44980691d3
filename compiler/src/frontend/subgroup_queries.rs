//! `resolve_kernel_subgroup_queries`: SPIR-V's OpGetKernelMaxNumSubgroups
//! and OpGetKernelLocalSizeForSubgroupCount (capability SubgroupDispatch)
//! in an IL module, replaced by what they compute, before the pipeline
//! (whose structurizer cannot read a function used as an operand).
//!
//! Both ask about the kernel their Invoke function would be enqueued as;
//! the answer follows from its execution modes and the device's one
//! sub-group size S (`DeviceCaps::subgroup_size`), with the rules of
//! clGetKernelSubGroupInfo's CL_KERNEL_MAX_NUM_SUB_GROUPS and
//! CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT:
//!
//! * `LocalSize` (x, y, z): ⌈xyz / S⌉ sub-groups at most, and the local
//!   size x for exactly that count when y = z = 1;
//! * `SubgroupsPerWorkgroup N`: N, and N × S for N;
//! * neither: CL_DEVICE_MAX_NUM_SUB_GROUPS (`DeviceCaps::max_num_sub_groups`),
//!   and count × S for a count from 1 to it.
//!
//! Every other count gives 0. Param, Param Size and Param Align (the
//! block's captured data) do not change the answer. A count that is not a
//! constant becomes a range check and a select. It runs after
//! `execution_mode_ids::resolve_execution_mode_ids`, so the modes are
//! literal ones.

use std::collections::HashMap;

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{ExecutionMode, Op, Word};

use crate::caps::DeviceCaps;

/// The module with its sub-group dispatch queries replaced (module docs),
/// or `None` when it has none.
pub fn resolve_kernel_subgroup_queries(
    words: &[u32],
    caps: &DeviceCaps,
) -> Result<Option<Vec<u32>>, String> {
    let is_query = |op: u32| {
        op == Op::GetKernelMaxNumSubgroups as u32
            || op == Op::GetKernelLocalSizeForSubgroupCount as u32
    };
    let mut i = 5;
    let mut found = false;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        found |= is_query(words[i] & 0xffff);
        i += n.max(1);
    }
    if !found {
        return Ok(None);
    }
    let s = caps.subgroup_size;
    if s == 0 {
        return Err(
            "OpGetKernelMaxNumSubgroups / OpGetKernelLocalSizeForSubgroupCount: \
                    the device has no sub-groups"
                .into(),
        );
    }
    let mut module = rspirv::dr::load_words(words)
        .map_err(|e| format!("cannot parse the SPIR-V module: {e}"))?;
    let mut r = Resolver::new(&mut module, s, caps.max_num_sub_groups);
    let mut functions = std::mem::take(&mut r.module.functions);
    for f in &mut functions {
        for b in &mut f.blocks {
            let mut out = Vec::with_capacity(b.instructions.len());
            for inst in b.instructions.drain(..) {
                if is_query(inst.class.opcode as u32) {
                    r.resolve(&inst, &mut out)?;
                } else {
                    out.push(inst);
                }
            }
            b.instructions = out;
        }
    }
    r.module.functions = functions;
    if let Some(h) = r.module.header.as_mut() {
        h.bound = r.bound;
    }
    Ok(Some(r.module.assemble()))
}

/// The work-group shape an Invoke function's execution modes fix.
struct Modes {
    local_size: Option<[u32; 3]>,
    sub_groups: Option<u32>,
}

struct Resolver<'m> {
    module: &'m mut Module,
    s: u32,
    device_max: u32,
    bound: Word,
    consts: HashMap<(Word, u32), Word>,
    bool_ty: Option<Word>,
}

impl<'m> Resolver<'m> {
    fn new(module: &'m mut Module, s: u32, device_max: u32) -> Self {
        let bound = module.header.as_ref().map_or(1, |h| h.bound);
        let bool_ty = module
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == Op::TypeBool)
            .and_then(|i| i.result_id);
        Resolver {
            module,
            s,
            device_max,
            bound,
            consts: HashMap::new(),
            bool_ty,
        }
    }

    fn id(&mut self) -> Word {
        self.bound += 1;
        self.bound - 1
    }

    fn constant(&mut self, ty: Word, v: u32) -> Word {
        if let Some(&c) = self.consts.get(&(ty, v)) {
            return c;
        }
        let c = self.id();
        self.module.types_global_values.push(Instruction::new(
            Op::Constant,
            Some(ty),
            Some(c),
            vec![Operand::LiteralBit32(v)],
        ));
        self.consts.insert((ty, v), c);
        c
    }

    fn bool_ty(&mut self) -> Word {
        if let Some(t) = self.bool_ty {
            return t;
        }
        let t = self.id();
        self.module
            .types_global_values
            .push(Instruction::new(Op::TypeBool, None, Some(t), vec![]));
        self.bool_ty = Some(t);
        t
    }

    fn modes(&self, func: Word) -> Modes {
        let mut m = Modes {
            local_size: None,
            sub_groups: None,
        };
        for em in &self.module.execution_modes {
            if em.operands.first() != Some(&Operand::IdRef(func)) {
                continue;
            }
            let lit = |k: usize| match em.operands.get(k) {
                Some(Operand::LiteralBit32(v)) => *v,
                _ => 1,
            };
            match em.operands.get(1) {
                Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                    m.local_size = Some([lit(2), lit(3), lit(4)])
                }
                Some(Operand::ExecutionMode(ExecutionMode::SubgroupsPerWorkgroup)) => {
                    m.sub_groups = Some(lit(2))
                }
                _ => {}
            }
        }
        m
    }

    /// Appends to `out` the instructions computing `inst`'s value.
    fn resolve(&mut self, inst: &Instruction, out: &mut Vec<Instruction>) -> Result<(), String> {
        let local = inst.class.opcode == Op::GetKernelLocalSizeForSubgroupCount;
        let ids: Vec<Word> = inst
            .operands
            .iter()
            .filter_map(|o| o.id_ref_any())
            .collect();
        let (ty, result) = (
            inst.result_type.ok_or("query without a result type")?,
            inst.result_id.ok_or("query without a result")?,
        );
        let invoke = *ids
            .get(usize::from(local))
            .ok_or("sub-group dispatch query without its Invoke function")?;
        let modes = self.modes(invoke);
        let s = self.s;
        let max = match (modes.local_size, modes.sub_groups) {
            (_, Some(n)) => n,
            (Some(r), None) => (r[0] * r[1] * r[2]).div_ceil(s),
            (None, None) => self.device_max,
        };
        let copy = |v: Word| {
            Instruction::new(
                Op::CopyObject,
                Some(ty),
                Some(result),
                vec![Operand::IdRef(v)],
            )
        };
        if !local {
            let c = self.constant(ty, max);
            out.push(copy(c));
            return Ok(());
        }
        let count = ids[0];
        let zero = self.constant(ty, 0);
        let bool_ty = self.bool_ty();
        let mut emit = |r: &mut Self, op: Op, t: Word, args: &[Word]| {
            let id = r.id();
            out.push(Instruction::new(
                op,
                Some(t),
                Some(id),
                args.iter().map(|&a| Operand::IdRef(a)).collect(),
            ));
            id
        };
        let (ok, size) = match (modes.local_size, modes.sub_groups) {
            // Only the kernel's own count, with its own size (which is
            // one-dimensional only when y = z = 1).
            (Some(r), _) => {
                let n = self.constant(ty, max);
                let size = self.constant(ty, if r[1] == 1 && r[2] == 1 { r[0] } else { 0 });
                (emit(self, Op::IEqual, bool_ty, &[count, n]), size)
            }
            (None, Some(n)) => {
                let nc = self.constant(ty, n);
                let size = self.constant(ty, n * s);
                (emit(self, Op::IEqual, bool_ty, &[count, nc]), size)
            }
            // 1 ≤ count ≤ max, as count - 1 < max unsigned.
            (None, None) => {
                let (one, maxc, sc) = (
                    self.constant(ty, 1),
                    self.constant(ty, max),
                    self.constant(ty, s),
                );
                let below = emit(self, Op::ISub, ty, &[count, one]);
                let ok = emit(self, Op::ULessThan, bool_ty, &[below, maxc]);
                (ok, emit(self, Op::IMul, ty, &[count, sc]))
            }
        };
        out.push(Instruction::new(
            Op::Select,
            Some(ty),
            Some(result),
            vec![
                Operand::IdRef(ok),
                Operand::IdRef(size),
                Operand::IdRef(zero),
            ],
        ));
        Ok(())
    }
}
