//! `guard_int64_division`: 64-bit scalar integer division and remainder
//! take a 32-bit path whenever both operands fit in 32 bits; where the
//! driver's 64-bit division is wrong (`DeviceCaps::soft_int64_division`,
//! NVIDIA), no 64-bit division reaches it at all.
//!
//! Why: OpenCL's `size_t` is 64-bit, so `(i + 1) % n` on ids is a 64-bit
//! OpUMod. NVIDIA's Vulkan compiler (driver 580) merges loads whose
//! addresses come from different 64-bit OpUMod results with the same
//! divisor (`f[(i+1) % n]` and `f[(i+2) % n]` read the same element),
//! while the 32-bit operations are handled correctly; and its expansion of
//! a 64-bit division whose operands do not fit in 32 bits corrupts
//! unrelated comparisons near it (`udivrem64`). 32-bit division is also
//! much cheaper than 64-bit division on every GPU.
//!
//! Algorithm, the default (select) form: each `r = a OP b` (OP in UDiv,
//! UMod, SDiv, SRem, SMod) whose result is a 64-bit scalar becomes
//! `r = fits(a, b) ? widen(narrow(a) OP narrow(b)) : a OP b`, where `fits`
//! is "both values are in [0, 2^32)" for the unsigned operations and "both
//! are in [-2^31, 2^31), and a is not -2^31" for the signed ones (so that
//! the 32-bit operation cannot overflow). The 64-bit operation stays for
//! the rare values outside that range. Both operations run (the result is
//! an OpSelect), so where the operands do not fit the 32-bit divisor is 1:
//! a truncated divisor of 0 (or -1 under -2^31) would be undefined
//! behaviour in SPIR-V.
//!
//! The soft (call) form: `r` is a component of `udivrem64(a', b')`
//! (`compiler/src/passes/udivrem64.rs`, which has the 32-bit path inside):
//! for the unsigned operations `a' = a`, `b' = b`; for the signed ones the
//! magnitudes (`|-2^63|` is 2^63 as an unsigned value, so `-2^63 / -1`
//! wraps to -2^63 like the hardware's), and the sign is put back: the
//! quotient is negated where the operands' signs differ, the remainder
//! takes the sign of `a` (SRem) or, where it is not zero and the signs
//! differ, `b` is added (SMod).
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

pub fn guard_int64_division(module: &mut Module, soft: bool) {
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
    let helper = soft.then(|| add_udivrem64(module));
    let mut ids = Ids { module };
    let u32t = ids.t_int(32);
    let u64t = ids.t_int(64);
    let consts = Consts {
        u32t,
        u64t,
        boolt: ids.t_bool(),
        c32: ids.c64(32),
        c0: ids.c64(0),
        int_min: ids.global(
            Op::Constant,
            Some(u32t),
            vec![Operand::LiteralBit32(0x8000_0000)],
        ),
        one32: ids.global(Op::Constant, Some(u32t), vec![Operand::LiteralBit32(1)]),
        v2: if soft {
            ids.global(
                Op::TypeVector,
                None,
                vec![Operand::IdRef(u64t), Operand::LiteralBit32(2)],
            )
        } else {
            0
        },
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
    u32t: Word,
    u64t: Word,
    boolt: Word,
    c32: Word,
    c0: Word,
    /// -2^31 as a 32-bit constant.
    int_min: Word,
    /// 1 as a 32-bit constant.
    one32: Word,
    /// `u64vec2`, `udivrem64`'s result type (soft form only; 0 otherwise).
    v2: Word,
    /// `udivrem64`, in the soft form.
    helper: Option<Word>,
}

/// The rewritten 64-bit scalar `a OP b`, in the form `k` asks for.
fn guarded(
    ids: &mut Ids,
    seq: &mut Vec<Instruction>,
    k: &Consts,
    op: Op,
    signed: bool,
    a: Word,
    b: Word,
) -> Word {
    match k.helper {
        Some(helper) => call_form(helper, ids, seq, k, op, a, b),
        None => select_form(ids, seq, k, op, signed, a, b),
    }
}

/// Appends to `seq` the select form of the 64-bit scalar `a OP b` (see
/// the module doc) and returns the id of its result (the last instruction).
fn select_form(
    ids: &mut Ids,
    seq: &mut Vec<Instruction>,
    k: &Consts,
    op: Op,
    signed: bool,
    a: Word,
    b: Word,
) -> Word {
    let mut emit = |ids: &mut Ids, op: Op, ty: Word, operands: Vec<Word>| {
        let id = ids.fresh();
        seq.push(Instruction::new(
            op,
            Some(ty),
            Some(id),
            operands.into_iter().map(Operand::IdRef).collect(),
        ));
        id
    };
    let narrow = if signed { Op::SConvert } else { Op::UConvert };
    let a32 = emit(ids, narrow, k.u32t, vec![a]);
    let b32 = emit(ids, narrow, k.u32t, vec![b]);
    let fits = if signed {
        // Both survive the round trip through 32 bits, and a is not
        // -2^31 (-2^31 / -1 overflows in 32 bits). Equalities only: an
        // earlier form, (a + 2^31 - 1) <u 2^32 - 1, relied on wrap-around
        // that NVIDIA's compiler (driver 580) did not honour (1 % -1 gave 1).
        let aw = emit(ids, Op::SConvert, k.u64t, vec![a32]);
        let bw = emit(ids, Op::SConvert, k.u64t, vec![b32]);
        let fa = emit(ids, Op::IEqual, k.boolt, vec![aw, a]);
        let fb = emit(ids, Op::IEqual, k.boolt, vec![bw, b]);
        let not_min = emit(ids, Op::INotEqual, k.boolt, vec![a32, k.int_min]);
        let both = emit(ids, Op::LogicalAnd, k.boolt, vec![fa, fb]);
        emit(ids, Op::LogicalAnd, k.boolt, vec![both, not_min])
    } else {
        let or = emit(ids, Op::BitwiseOr, k.u64t, vec![a, b]);
        let hi = emit(ids, Op::ShiftRightLogical, k.u64t, vec![or, k.c32]);
        emit(ids, Op::IEqual, k.boolt, vec![hi, k.c0])
    };
    // The 32-bit operation runs whatever `fits` says (OpSelect keeps the
    // code branch-free), so its divisor must never make it undefined: in
    // SPIR-V a zero divisor, or -2^31 / -1, is undefined *behaviour*, not an
    // undefined value, which a driver may exploit (b = 2^63 does not fit
    // and truncates to 0). Where the operands do not fit, the 32-bit
    // operation divides by 1 instead; where they do, it divides by `b`
    // exactly as the program asked.
    let b32 = emit(ids, Op::Select, k.u32t, vec![fits, b32, k.one32]);
    let r32 = emit(ids, op, k.u32t, vec![a32, b32]);
    let r64 = emit(ids, narrow, k.u64t, vec![r32]);
    let full = emit(ids, op, k.u64t, vec![a, b]);
    emit(ids, Op::Select, k.u64t, vec![fits, r64, full])
}

/// Appends to `seq` the call form of the 64-bit scalar `a OP b` (see the
/// module doc), calling `helper`, and returns the id of its result.
fn call_form(
    helper: Word,
    ids: &mut Ids,
    seq: &mut Vec<Instruction>,
    k: &Consts,
    op: Op,
    a: Word,
    b: Word,
) -> Word {
    let signed = matches!(op, Op::SDiv | Op::SRem | Op::SMod);
    let mut emit = |ids: &mut Ids, op: Op, ty: Word, operands: Vec<Operand>| {
        let id = ids.fresh();
        seq.push(Instruction::new(op, Some(ty), Some(id), operands));
        id
    };
    let ids_of = |v: &[Word]| v.iter().map(|&w| Operand::IdRef(w)).collect::<Vec<_>>();
    let want_rem = !matches!(op, Op::UDiv | Op::SDiv);
    let (u64t, boolt) = (k.u64t, k.boolt);
    if !signed {
        let res = emit(ids, Op::FunctionCall, k.v2, ids_of(&[helper, a, b]));
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
    let res = emit(ids, Op::FunctionCall, k.v2, ids_of(&[helper, ua, ub]));
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
