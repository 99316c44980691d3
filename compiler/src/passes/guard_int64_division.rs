//! `guard_int64_division`: no 64-bit scalar or vector integer division
//! or remainder reaches the driver; each becomes a call of `udivrem64`
//! (`compiler/src/passes/udivrem64.rs`), which takes a 32-bit path
//! whenever both operands fit in 32 bits.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) gets 64-bit division wrong
//! in several ways: it merged loads whose addresses came from different
//! 64-bit OpUMod results with the same divisor (`f[(i+1) % n]` and
//! `f[(i+2) % n]` read the same element), and its expansion of a 64-bit
//! division whose operands do not fit in 32 bits corrupts unrelated
//! comparisons near it (see `udivrem64`). OpenCL's `size_t` is 64-bit, so
//! `(i + 1) % n` on ids is a 64-bit OpUMod: the 32-bit path is also much
//! cheaper on every GPU.
//!
//! Algorithm: each 64-bit scalar `r = a OP b` (OP in UDiv, UMod, SDiv,
//! SRem, SMod) becomes a call `udivrem64(a', b')` and a component of its
//! result: for the unsigned operations `a' = a`, `b' = b`; for the signed
//! ones the magnitudes (`|-2^63|` is 2^63 as an unsigned value, so
//! `-2^63 / -1` wraps to -2^63 like the hardware's), and the sign is put
//! back: the quotient is negated where the operands' signs differ, the
//! remainder takes the sign of `a` (SRem) or, where it is not zero and
//! the signs differ, `b` is added (SMod).
//!
//! Vectors of 64-bit integers are rewritten lane by lane.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::udivrem64::add_udivrem64;

struct Ids<'m> {
    module: &'m mut Module,
}

impl Ids<'_> {
    fn fresh(&mut self) -> Word {
        super::module_edit::fresh_id(self.module)
    }

    /// A global (type or constant), reused if an identical one exists.
    fn global(&mut self, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Word {
        super::module_edit::global(self.module, op, ty, operands)
    }

    fn t_int(&mut self, width: u32) -> Word {
        self.global(
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(width), Operand::LiteralBit32(0)],
        )
    }

    fn t_bool(&mut self) -> Word {
        self.global(Op::TypeBool, None, vec![])
    }

    fn c64(&mut self, v: u64) -> Word {
        let t = self.t_int(64);
        self.global(Op::Constant, Some(t), vec![Operand::LiteralBit64(v)])
    }
}

fn is_int64_scalar(m: &Module, ty: Word) -> bool {
    m.types_global_values.iter().any(|i| {
        i.result_id == Some(ty)
            && i.class.opcode == Op::TypeInt
            && i.operands.first() == Some(&Operand::LiteralBit32(64))
    })
}

/// `Some(0)` for a 64-bit integer scalar type, `Some(n)` for a vector of
/// `n` of them, `None` otherwise.
fn int64_lanes(m: &Module, ty: Word) -> Option<u32> {
    if is_int64_scalar(m, ty) {
        return Some(0);
    }
    let v = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(ty) && i.class.opcode == Op::TypeVector)?;
    let (Some(Operand::IdRef(c)), Some(Operand::LiteralBit32(n))) =
        (v.operands.first(), v.operands.get(1))
    else {
        return None;
    };
    is_int64_scalar(m, *c).then_some(*n)
}

pub fn guard_int64_division(module: &mut Module) {
    let mut targets = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.instructions.iter().enumerate() {
                let op = inst.class.opcode;
                if matches!(op, Op::UDiv | Op::UMod | Op::SDiv | Op::SRem | Op::SMod)
                    && inst
                        .result_type
                        .is_some_and(|t| int64_lanes(module, t).is_some())
                {
                    targets.push((fi, bi, ii));
                }
            }
        }
    }
    if targets.is_empty() {
        return;
    }
    let helper = add_udivrem64(module);
    let mut ids = Ids { module };
    let u64t = ids.t_int(64);
    let consts = Consts {
        u64t,
        boolt: ids.t_bool(),
        c0: ids.c64(0),
        v2: ids.global(
            Op::TypeVector,
            None,
            vec![Operand::IdRef(u64t), Operand::LiteralBit32(2)],
        ),
        helper,
    };
    // Rewrite from the back so earlier indices stay valid.
    for &(fi, bi, ii) in targets.iter().rev() {
        let inst = ids.module.functions[fi].blocks[bi].instructions[ii].clone();
        let op = inst.class.opcode;
        let ty = inst.result_type.unwrap_or(u64t);
        let result = inst.result_id.unwrap_or(0);
        let (a, b) = (
            inst.operands[0].unwrap_id_ref(),
            inst.operands[1].unwrap_id_ref(),
        );
        let signed = matches!(op, Op::SDiv | Op::SRem | Op::SMod);
        let lanes = int64_lanes(ids.module, ty).unwrap_or(0);
        let mut seq = Vec::new();
        if lanes == 0 {
            guarded(&mut ids, &mut seq, &consts, op, signed, a, b);
            // The last instruction (the select) computes the result: it
            // takes over the original id.
            if let Some(last) = seq.last_mut() {
                last.result_id = Some(result);
            }
        } else {
            // Vectors: each lane on its own (NVIDIA's driver 580 also
            // mis-computes some 64-bit vector remainders).
            let mut parts = Vec::new();
            for lane in 0..lanes {
                let mut extract = |ids: &mut Ids, v: Word| {
                    let id = ids.fresh();
                    seq.push(Instruction::new(
                        Op::CompositeExtract,
                        Some(u64t),
                        Some(id),
                        vec![Operand::IdRef(v), Operand::LiteralBit32(lane)],
                    ));
                    id
                };
                let (al, bl) = (extract(&mut ids, a), extract(&mut ids, b));
                parts.push(guarded(&mut ids, &mut seq, &consts, op, signed, al, bl));
            }
            seq.push(Instruction::new(
                Op::CompositeConstruct,
                Some(ty),
                Some(result),
                parts.into_iter().map(Operand::IdRef).collect(),
            ));
        }
        let block = &mut ids.module.functions[fi].blocks[bi].instructions;
        block.splice(ii..=ii, seq);
    }
}

/// Types and constants the rewritten sequences share.
struct Consts {
    u64t: Word,
    boolt: Word,
    c0: Word,
    /// `u64vec2`, the helper's result type.
    v2: Word,
    /// `udivrem64`.
    helper: Word,
}

/// Appends to `seq` the rewritten 64-bit scalar `a OP b` (see the module
/// doc) and returns the id of its result (the last instruction).
fn guarded(
    ids: &mut Ids,
    seq: &mut Vec<Instruction>,
    k: &Consts,
    op: Op,
    signed: bool,
    a: Word,
    b: Word,
) -> Word {
    let mut emit = |ids: &mut Ids, op: Op, ty: Word, operands: Vec<Operand>| {
        let id = ids.fresh();
        seq.push(Instruction::new(op, Some(ty), Some(id), operands));
        id
    };
    let ids_of = |v: &[Word]| v.iter().map(|&w| Operand::IdRef(w)).collect::<Vec<_>>();
    let want_rem = !matches!(op, Op::UDiv | Op::SDiv);
    let (u64t, boolt) = (k.u64t, k.boolt);
    if !signed {
        let res = emit(ids, Op::FunctionCall, k.v2, ids_of(&[k.helper, a, b]));
        let lane = Operand::LiteralBit32(u32::from(want_rem));
        return emit(
            ids,
            Op::CompositeExtract,
            u64t,
            vec![Operand::IdRef(res), lane],
        );
    }
    let na = emit(ids, Op::SLessThan, boolt, ids_of(&[a, k.c0]));
    let nb = emit(ids, Op::SLessThan, boolt, ids_of(&[b, k.c0]));
    let mut magnitude = |ids: &mut Ids, v: Word, neg: Word| {
        let minus = emit(ids, Op::SNegate, u64t, ids_of(&[v]));
        emit(ids, Op::Select, u64t, ids_of(&[neg, minus, v]))
    };
    let (ua, ub) = (magnitude(ids, a, na), magnitude(ids, b, nb));
    let res = emit(ids, Op::FunctionCall, k.v2, ids_of(&[k.helper, ua, ub]));
    let lane = Operand::LiteralBit32(u32::from(want_rem));
    let part = emit(
        ids,
        Op::CompositeExtract,
        u64t,
        vec![Operand::IdRef(res), lane],
    );
    let minus = emit(ids, Op::SNegate, u64t, ids_of(&[part]));
    if op == Op::SDiv {
        let differ = emit(ids, Op::LogicalNotEqual, boolt, ids_of(&[na, nb]));
        return emit(ids, Op::Select, u64t, ids_of(&[differ, minus, part]));
    }
    let rem = emit(ids, Op::Select, u64t, ids_of(&[na, minus, part]));
    if op == Op::SRem {
        return rem;
    }
    // SMod: the remainder takes the sign of b.
    let nonzero = emit(ids, Op::INotEqual, boolt, ids_of(&[rem, k.c0]));
    let differ = emit(ids, Op::LogicalNotEqual, boolt, ids_of(&[na, nb]));
    let adjust = emit(ids, Op::LogicalAnd, boolt, ids_of(&[nonzero, differ]));
    let plus_b = emit(ids, Op::IAdd, u64t, ids_of(&[rem, b]));
    emit(ids, Op::Select, u64t, ids_of(&[adjust, plus_b, rem]))
}
