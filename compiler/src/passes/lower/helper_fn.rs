//! Helper functions the lowering adds to a kernel's module
//! (`context::Helpers`): the instruction walk keeps one output block per
//! input block, so code that needs a loop (a work-group fold, a
//! compare-exchange loop) is a function of its own, defined once per
//! kernel and called where needed.
//!
//! Gaps: none (a builder).

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{FunctionControl, LoopControl, Op, Word};

use super::context::Lower;
use super::emit::{ids, Block};

/// The pieces of a helper function: its id, result type, parameters
/// (id, type) and blocks (label, instructions) in order.
pub(crate) struct HelperFn {
    pub id: Word,
    pub result: Word,
    pub params: Vec<(Word, Word)>,
    pub blocks: Vec<(Word, Block)>,
}

impl Lower<'_> {
    /// The helper `key`, if it is already defined.
    pub(crate) fn helper(&self, key: &str) -> Option<Word> {
        self.helpers.fns.get(key).copied()
    }

    /// Adds the function `f` as the helper `key`.
    pub(crate) fn define_helper(&mut self, key: String, f: HelperFn) {
        let param_tys: Vec<Word> = f.params.iter().map(|&(_, t)| t).collect();
        let fnty = self.out.t_fn(f.result, &param_tys);
        let mut func = dr::Function::new();
        func.def = Some(Instruction::new(
            Op::Function,
            Some(f.result),
            Some(f.id),
            vec![
                Operand::FunctionControl(FunctionControl::NONE),
                Operand::IdRef(fnty),
            ],
        ));
        func.end = Some(Instruction::new(Op::FunctionEnd, None, None, vec![]));
        for (p, t) in f.params {
            func.parameters.push(Instruction::new(
                Op::FunctionParameter,
                Some(t),
                Some(p),
                vec![],
            ));
        }
        for (label, blk) in f.blocks {
            let mut nb = dr::Block::new();
            nb.label = Some(Instruction::new(Op::Label, None, Some(label), vec![]));
            nb.instructions = blk.insts;
            func.blocks.push(nb);
        }
        self.helpers.fns.insert(key, f.id);
        self.helpers.functions.push(func);
    }

    /// Ends a loop header block: OpLoopMerge `merge`, `latch`.
    pub(crate) fn loop_merge(b: &mut Block, merge: Word, latch: Word) {
        b.push(
            Op::LoopMerge,
            None,
            None,
            vec![
                Operand::IdRef(merge),
                Operand::IdRef(latch),
                Operand::LoopControl(LoopControl::NONE),
            ],
        );
    }

    /// A call of helper `f` returning `rt`.
    pub(crate) fn call_helper(&mut self, b: &mut Block, f: Word, rt: Word, args: &[Word]) -> Word {
        let mut a = vec![f];
        a.extend_from_slice(args);
        self.emit(b, Op::FunctionCall, rt, ids(&a))
    }
}
