//! `expand_async_copies`: `async_work_group_copy`,
//! `async_work_group_strided_copy` (OpGroupAsyncCopy) and
//! `wait_group_events` (OpGroupWaitEvents) become plain code, on the
//! Kernel module before structurization (so the loops it adds are
//! structurized like the source's own).
//!
//! # Algorithm
//!
//! OpenCL lets an implementation perform the copy synchronously: every
//! work-item of the work-group reaches the call with the same arguments,
//! and the data is only guaranteed to be there after `wait_group_events`.
//! So each copy becomes a loop in which work-item `l` (its local linear id)
//! copies elements `l, l + L, l + 2L, ...` (`L` = work-group size) below
//! `num_elements`:
//!
//! ```text
//! B:      ...before the copy...
//!         %lid = load LocalInvocationIndex; %L = product of WorkgroupSize
//!         branch %head
//! %head:  %i = phi [%lid, B], [%next, %body]
//!         branch (%i < num_elements) ? %body : %exit
//! %body:  dst[i * dst_stride] = src[i * src_stride]; %next = %i + %L
//!         branch %head
//! %exit:  %event = copy of the event operand; ...after the copy...
//! ```
//!
//! The stride applies to the source when the destination is `__local`
//! (a gather into local memory) and to the destination otherwise. The
//! event is the event operand passed through (its value means nothing:
//! the type becomes `uint`, see `types`). `wait_group_events` becomes a
//! work-group barrier over local and global memory, which makes every
//! work-item's share of the copy visible to all.
//!
//! Phis of the block's successors that named the split block now name
//! `%exit`.
//!
//! Known gap: none of the copies overlap with computation (they are
//! synchronous); that is allowed by the specification.

use rspirv::binary::Assemble;
use rspirv::dr::{Block, Instruction, Module, Operand};
use rspirv::spirv::{BuiltIn, Op, StorageClass, Word};

const OP_GROUP_ASYNC_COPY: u32 = 259;
const OP_GROUP_WAIT_EVENTS: u32 = 260;

/// Rewrites the async copies of the Kernel module `words` (unchanged if
/// it has none).
pub fn expand_async_copies(words: &[u32]) -> Result<Vec<u32>, String> {
    if !has_opcode(words, &[OP_GROUP_ASYNC_COPY, OP_GROUP_WAIT_EVENTS]) {
        return Ok(words.to_vec());
    }
    let mut module = rspirv::dr::load_words(words)
        .map_err(|e| format!("cannot parse the SPIR-V module: {e}"))?;
    let mut x = Expander {
        module: &mut module,
        builtins: Default::default(),
    };
    for f in 0..x.module.functions.len() {
        x.expand_function(f)?;
    }
    Ok(module.assemble())
}

fn has_opcode(words: &[u32], ops: &[u32]) -> bool {
    crate::tools::instructions(words)
        .map_while(Result::ok)
        .any(|(_, inst)| ops.contains(&(inst[0] & 0xffff)))
}

struct Expander<'m> {
    module: &'m mut Module,
    /// Input variables of the builtins used, by builtin.
    builtins: std::collections::HashMap<BuiltIn, Word>,
}

impl Expander<'_> {
    fn fresh(&mut self) -> Word {
        super::module_edit::fresh_id(self.module)
    }

    /// A global (type or constant), reused if an identical one exists.
    fn global(&mut self, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Word {
        super::module_edit::global(self.module, op, ty, operands)
    }

    fn c_u32(&mut self, v: u32) -> Word {
        let t = self.global(
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
        );
        self.global(Op::Constant, Some(t), vec![Operand::LiteralBit32(v)])
    }

    fn type_of(&self, f: usize, id: Word) -> Option<Word> {
        let func = &self.module.functions[f];
        self.module
            .types_global_values
            .iter()
            .chain(func.parameters.iter())
            .chain(func.blocks.iter().flat_map(|b| b.instructions.iter()))
            .find(|i| i.result_id == Some(id))
            .and_then(|i| i.result_type)
    }

    fn def(&self, id: Word) -> Option<&Instruction> {
        self.module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
    }

    /// The Input variable of builtin `bi`, of type `ty` (added if absent).
    fn builtin_var(&mut self, bi: BuiltIn, ty: Word) -> Word {
        if let Some(&v) = self.builtins.get(&bi) {
            return v;
        }
        let var = super::module_edit::builtin_input(self.module, bi, ty);
        self.builtins.insert(bi, var);
        var
    }

    fn expand_function(&mut self, f: usize) -> Result<(), String> {
        let mut bi = 0;
        while bi < self.module.functions[f].blocks.len() {
            let pos = self.module.functions[f].blocks[bi]
                .instructions
                .iter()
                .position(|i| matches!(i.class.opcode, Op::GroupAsyncCopy | Op::GroupWaitEvents));
            let Some(k) = pos else {
                bi += 1;
                continue;
            };
            let inst = self.module.functions[f].blocks[bi].instructions[k].clone();
            if inst.class.opcode == Op::GroupWaitEvents {
                let wg = self.c_u32(rspirv::spirv::Scope::Workgroup as u32);
                // WorkgroupMemory | CrossWorkgroupMemory | SequentiallyConsistent.
                let sem = self.c_u32(0x310);
                self.module.functions[f].blocks[bi].instructions[k] = Instruction::new(
                    Op::ControlBarrier,
                    None,
                    None,
                    vec![Operand::IdRef(wg), Operand::IdRef(wg), Operand::IdRef(sem)],
                );
                continue;
            }
            self.expand_copy(f, bi, k, &inst)?;
            // The rest of the block is now the exit block, 3 further on.
            bi += 3;
        }
        Ok(())
    }

    /// Splits block `bi` of function `f` at the copy `inst` (index `k`).
    fn expand_copy(
        &mut self,
        f: usize,
        bi: usize,
        k: usize,
        inst: &Instruction,
    ) -> Result<(), String> {
        let id = |n: usize| {
            inst.operands
                .get(n)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let (dst, src, num, stride, event) = (id(1), id(2), id(3), id(4), id(5));
        let idx_ty = self
            .type_of(f, num)
            .ok_or("async_work_group_copy: untyped element count")?;
        let dst_ty = self.type_of(f, dst).ok_or("async copy: untyped pointer")?;
        let src_ty = self.type_of(f, src).ok_or("async copy: untyped pointer")?;
        let ptr_info = |x: &Self, t: Word| {
            x.def(t)
                .and_then(|d| match (d.class.opcode, &d.operands[..]) {
                    (Op::TypePointer, [Operand::StorageClass(sc), Operand::IdRef(p)]) => {
                        Some((*sc, *p))
                    }
                    _ => None,
                })
        };
        let (dst_sc, elem) =
            ptr_info(self, dst_ty).ok_or("async copy: destination is not a pointer")?;
        ptr_info(self, src_ty).ok_or("async copy: source is not a pointer")?;
        let bool_ty = self.global(Op::TypeBool, None, vec![]);
        let v3 = self.global(
            Op::TypeVector,
            None,
            vec![Operand::IdRef(idx_ty), Operand::LiteralBit32(3)],
        );
        let lid_var = self.builtin_var(BuiltIn::LocalInvocationIndex, idx_ty);
        let wgs_var = self.builtin_var(BuiltIn::WorkgroupSize, v3);

        let (head, body, exit) = (self.fresh(), self.fresh(), self.fresh());
        let (lid, wgs, s0, s1, s2, s01, step) = (
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
        );
        let (i, cond, next) = (self.fresh(), self.fresh(), self.fresh());
        let (si, di, sp, dp, val) = (
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
            self.fresh(),
        );

        let func = &mut self.module.functions[f];
        let b_label = func.blocks[bi]
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or("block without a label")?;
        // Successors' phis now come from the exit block.
        for blk in func.blocks.iter_mut() {
            for ph in blk
                .instructions
                .iter_mut()
                .filter(|i| i.class.opcode == Op::Phi)
            {
                for n in (1..ph.operands.len()).step_by(2) {
                    if ph.operands[n] == Operand::IdRef(b_label) {
                        ph.operands[n] = Operand::IdRef(exit);
                    }
                }
            }
        }
        let rest: Vec<Instruction> = func.blocks[bi].instructions.split_off(k + 1);
        func.blocks[bi].instructions.pop();
        let new = |op: Op, ty: Option<Word>, r: Option<Word>, o: Vec<Operand>| {
            Instruction::new(op, ty, r, o)
        };
        let ids = |v: &[Word]| v.iter().map(|&x| Operand::IdRef(x)).collect::<Vec<_>>();
        let ex = |t: Word, r: Word, c: u32| {
            new(
                Op::CompositeExtract,
                Some(t),
                Some(r),
                vec![Operand::IdRef(wgs), Operand::LiteralBit32(c)],
            )
        };
        func.blocks[bi].instructions.extend([
            new(Op::Load, Some(idx_ty), Some(lid), ids(&[lid_var])),
            new(Op::Load, Some(v3), Some(wgs), ids(&[wgs_var])),
            ex(idx_ty, s0, 0),
            ex(idx_ty, s1, 1),
            ex(idx_ty, s2, 2),
            new(Op::IMul, Some(idx_ty), Some(s01), ids(&[s0, s1])),
            new(Op::IMul, Some(idx_ty), Some(step), ids(&[s01, s2])),
            new(Op::Branch, None, None, ids(&[head])),
        ]);
        let label = |l: Word| Some(new(Op::Label, None, Some(l), vec![]));
        let head_block = Block {
            label: label(head),
            instructions: vec![
                new(
                    Op::Phi,
                    Some(idx_ty),
                    Some(i),
                    ids(&[lid, b_label, next, body]),
                ),
                new(Op::ULessThan, Some(bool_ty), Some(cond), ids(&[i, num])),
                new(Op::BranchConditional, None, None, ids(&[cond, body, exit])),
            ],
        };
        // The stride applies to the side that is not `__local`.
        let (sidx, didx) = if dst_sc == StorageClass::Workgroup {
            (si, i)
        } else {
            (i, di)
        };
        let strided = if dst_sc == StorageClass::Workgroup {
            si
        } else {
            di
        };
        let body_block = Block {
            label: label(body),
            instructions: vec![
                new(Op::IMul, Some(idx_ty), Some(strided), ids(&[i, stride])),
                new(
                    Op::InBoundsPtrAccessChain,
                    Some(src_ty),
                    Some(sp),
                    ids(&[src, sidx]),
                ),
                new(
                    Op::InBoundsPtrAccessChain,
                    Some(dst_ty),
                    Some(dp),
                    ids(&[dst, didx]),
                ),
                new(Op::Load, Some(elem), Some(val), ids(&[sp])),
                new(Op::Store, None, None, ids(&[dp, val])),
                new(Op::IAdd, Some(idx_ty), Some(next), ids(&[i, step])),
                new(Op::Branch, None, None, ids(&[head])),
            ],
        };
        let mut exit_insts = Vec::with_capacity(rest.len() + 1);
        if let Some(r) = inst.result_id {
            exit_insts.push(new(
                Op::CopyObject,
                inst.result_type,
                Some(r),
                ids(&[event]),
            ));
        }
        exit_insts.extend(rest);
        let exit_block = Block {
            label: label(exit),
            instructions: exit_insts,
        };
        func.blocks
            .splice(bi + 1..bi + 1, [head_block, body_block, exit_block]);
        Ok(())
    }
}
