//! The helper function `guard_int64_division` calls for every 64-bit
//! scalar division and remainder: `udivrem64(n, d) -> (n / d, n % d)` as a
//! `u64vec2`, computed without any 64-bit OpUDiv/OpUMod.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) expands 64-bit division
//! into a routine that corrupts unrelated values around it: on the H200,
//! `v = a / b` (or `%`, signed or not, operands beyond 32 bits) made a
//! later `x < y ? 0 : x - y` on other values take the wrong arm
//! (`int64_division::division_whose_operands_do_not_fit_in_32_bits_beside_a_switch`,
//! found by ferrocl-fuzz), while the same code with the division written
//! as a shift-and-subtract loop in OpenCL C was right. So no 64-bit
//! division reaches the driver.
//!
//! The function: where both operands fit in 32 bits (the common case:
//! sizes and ids), one 32-bit OpUDiv and OpUMod; otherwise restoring
//! division, one quotient bit per iteration (shift, compare, subtract),
//! only over the bits the quotient can have: bits(n) - bits(d) + 1. A zero divisor gives an
//! unspecified value, never undefined behaviour (OpenCL C leaves the
//! result undefined): the 32-bit path divides by 1 instead, the loop
//! yields all-ones.

use rspirv::dr::{Function, Instruction, Module, Operand};
use rspirv::spirv::{FunctionControl, LoopControl, Op, SelectionControl, Word};

use super::module_edit::{block, fresh_id, global};

/// Adds `udivrem64` to `module`; returns its id.
pub fn add_udivrem64(module: &mut Module) -> Word {
    let m = module;
    let u32t = global(m, Op::TypeInt, None, vec![lit(32), lit(0)]);
    let u64t = global(m, Op::TypeInt, None, vec![lit(64), lit(0)]);
    let boolt = global(m, Op::TypeBool, None, vec![]);
    let v2 = global(m, Op::TypeVector, None, vec![id(u64t), lit(2)]);
    // OpTypeFunction: the return type, then the parameters' types.
    let fnty = global(m, Op::TypeFunction, None, vec![id(v2), id(u64t), id(u64t)]);
    let c = |m: &mut Module, v: u64| {
        global(m, Op::Constant, Some(u64t), vec![Operand::LiteralBit64(v)])
    };
    let (c0, c1, c32) = (c(m, 0), c(m, 1), c(m, 32));
    let c64 = c(m, 64);
    let one32 = global(m, Op::Constant, Some(u32t), vec![lit(1)]);
    let zero32 = global(m, Op::Constant, Some(u32t), vec![lit(0)]);
    let c33 = global(m, Op::Constant, Some(u32t), vec![lit(33)]);
    let c64_32 = global(m, Op::Constant, Some(u32t), vec![lit(64)]);

    let mut f = Fresh(m);
    let fid = f.id();
    let (n, d) = (f.id(), f.id());
    let [entry, fast, slow, header, body, cont, loop_end, end] = [0; 8].map(|_| f.id());
    let mut blocks = Vec::new();
    let mut b = Vec::new();
    // entry: fits = ((n | d) >> 32) == 0
    let or = f.op(&mut b, Op::BitwiseOr, u64t, &[n, d]);
    let hi = f.op(&mut b, Op::ShiftRightLogical, u64t, &[or, c32]);
    let fits = f.op(&mut b, Op::IEqual, boolt, &[hi, c0]);
    b.push(Instruction::new(
        Op::SelectionMerge,
        None,
        None,
        vec![id(end), Operand::SelectionControl(SelectionControl::NONE)],
    ));
    b.push(branch_if(fits, fast, slow));
    blocks.push(block(entry, b));
    // fast: 32-bit division (a zero divisor divides by 1).
    let mut b = Vec::new();
    let n32 = f.op(&mut b, Op::UConvert, u32t, &[n]);
    let d32 = f.op(&mut b, Op::UConvert, u32t, &[d]);
    let nz = f.op(&mut b, Op::INotEqual, boolt, &[d32, zero32]);
    let d32 = f.op(&mut b, Op::Select, u32t, &[nz, d32, one32]);
    let q32 = f.op(&mut b, Op::UDiv, u32t, &[n32, d32]);
    let r32 = f.op(&mut b, Op::UMod, u32t, &[n32, d32]);
    let qf = f.op(&mut b, Op::UConvert, u64t, &[q32]);
    let rf = f.op(&mut b, Op::UConvert, u64t, &[r32]);
    b.push(goto(end));
    blocks.push(block(fast, b));
    // slow: skip the quotient bits that must be 0. With `bits(x)` the
    // length of x in bits, the quotient has at most bits(n) - bits(d) + 1
    // bits, and the first bits(d) - 1 bits of n only shift into r: the
    // loop starts at i0 = min(bits(n) - bits(d) + 1, 64) with r = n >> i0
    // (none at all where d is longer than n: q = 0, r = n).
    let glsl = glsl_import(f.0);
    let mut b = Vec::new();
    let bits = |f: &mut Fresh, b: &mut Vec<Instruction>, x: Word| {
        let hi64 = f.op(b, Op::ShiftRightLogical, u64t, &[x, c32]);
        let hi = f.op(b, Op::UConvert, u32t, &[hi64]);
        let lo = f.op(b, Op::UConvert, u32t, &[x]);
        let has_hi = f.op(b, Op::INotEqual, boolt, &[hi, zero32]);
        let word = f.op(b, Op::Select, u32t, &[has_hi, hi, lo]);
        // FindUMsb(0) is -1: bits(0) = 0.
        let msb = f.id();
        b.push(Instruction::new(
            Op::ExtInst,
            Some(u32t),
            Some(msb),
            vec![id(glsl), Operand::LiteralExtInstInteger(75), id(word)],
        ));
        let base = f.op(b, Op::Select, u32t, &[has_hi, c33, one32]);
        f.op(b, Op::IAdd, u32t, &[msb, base])
    };
    let (bn, bd) = (bits(&mut f, &mut b, n), bits(&mut f, &mut b, d));
    let longer = f.op(&mut b, Op::UGreaterThan, boolt, &[bd, bn]);
    let diff = f.op(&mut b, Op::ISub, u32t, &[bn, bd]);
    let k = f.op(&mut b, Op::IAdd, u32t, &[diff, one32]);
    let over = f.op(&mut b, Op::UGreaterThan, boolt, &[k, c64_32]);
    let k = f.op(&mut b, Op::Select, u32t, &[over, c64_32, k]);
    let i0_32 = f.op(&mut b, Op::Select, u32t, &[longer, zero32, k]);
    let i0 = f.op(&mut b, Op::UConvert, u64t, &[i0_32]);
    let all = f.op(&mut b, Op::IEqual, boolt, &[i0, c64]);
    let shift = f.op(&mut b, Op::Select, u64t, &[all, c0, i0]);
    let shifted = f.op(&mut b, Op::ShiftRightLogical, u64t, &[n, shift]);
    let r0 = f.op(&mut b, Op::Select, u64t, &[all, c0, shifted]);
    b.push(goto(header));
    blocks.push(block(slow, b));
    // header: q, r, i; i counts the bits left.
    let (q, r, i) = (f.id(), f.id(), f.id());
    let (q2, r2, i2) = (f.id(), f.id(), f.id());
    let mut b = vec![
        phi(u64t, q, &[(c0, slow), (q2, cont)]),
        phi(u64t, r, &[(r0, slow), (r2, cont)]),
        phi(u64t, i, &[(i0, slow), (i2, cont)]),
    ];
    let more = f.op(&mut b, Op::INotEqual, boolt, &[i, c0]);
    b.push(Instruction::new(
        Op::LoopMerge,
        None,
        None,
        vec![
            id(loop_end),
            id(cont),
            Operand::LoopControl(LoopControl::NONE),
        ],
    ));
    b.push(branch_if(more, body, loop_end));
    blocks.push(block(header, b));
    // body: bring down bit i-1 of n; subtract d where it fits.
    let mut b = Vec::new();
    b.push(Instruction::new(
        Op::ISub,
        Some(u64t),
        Some(i2),
        vec![id(i), id(c1)],
    ));
    let shifted = f.op(&mut b, Op::ShiftRightLogical, u64t, &[n, i2]);
    let bit = f.op(&mut b, Op::BitwiseAnd, u64t, &[shifted, c1]);
    let r_up = f.op(&mut b, Op::ShiftLeftLogical, u64t, &[r, c1]);
    let rs = f.op(&mut b, Op::BitwiseOr, u64t, &[r_up, bit]);
    let ge = f.op(&mut b, Op::UGreaterThanEqual, boolt, &[rs, d]);
    let sub = f.op(&mut b, Op::ISub, u64t, &[rs, d]);
    b.push(Instruction::new(
        Op::Select,
        Some(u64t),
        Some(r2),
        vec![id(ge), id(sub), id(rs)],
    ));
    let qbit = f.op(&mut b, Op::ShiftLeftLogical, u64t, &[c1, i2]);
    let add = f.op(&mut b, Op::Select, u64t, &[ge, qbit, c0]);
    b.push(Instruction::new(
        Op::BitwiseOr,
        Some(u64t),
        Some(q2),
        vec![id(q), id(add)],
    ));
    b.push(goto(cont));
    blocks.push(block(body, b));
    blocks.push(block(cont, vec![goto(header)]));
    blocks.push(block(loop_end, vec![goto(end)]));
    // end: join both paths.
    let mut b = Vec::new();
    let (qj, rj) = (f.id(), f.id());
    b.push(phi(u64t, qj, &[(qf, fast), (q, loop_end)]));
    b.push(phi(u64t, rj, &[(rf, fast), (r, loop_end)]));
    let res = f.op(&mut b, Op::CompositeConstruct, v2, &[qj, rj]);
    b.push(Instruction::new(Op::ReturnValue, None, None, vec![id(res)]));
    blocks.push(block(end, b));

    let def = Instruction::new(
        Op::Function,
        Some(v2),
        Some(fid),
        vec![Operand::FunctionControl(FunctionControl::NONE), id(fnty)],
    );
    let params = [n, d]
        .iter()
        .map(|&p| Instruction::new(Op::FunctionParameter, Some(u64t), Some(p), vec![]))
        .collect();
    m.functions.push(Function {
        def: Some(def),
        end: Some(Instruction::new(Op::FunctionEnd, None, None, vec![])),
        parameters: params,
        blocks,
    });
    fid
}

/// The module's GLSL.std.450 import, added if missing.
fn glsl_import(m: &mut Module) -> Word {
    if let Some(r) = super::module_edit::glsl_import(m) {
        return r;
    }
    let name = Operand::LiteralString("GLSL.std.450".into());
    let r = fresh_id(m);
    m.ext_inst_imports.push(Instruction::new(
        Op::ExtInstImport,
        None,
        Some(r),
        vec![name],
    ));
    r
}

struct Fresh<'m>(&'m mut Module);

impl Fresh<'_> {
    fn id(&mut self) -> Word {
        fresh_id(self.0)
    }

    /// Appends `ty %new = op args` to `b`; returns `%new`.
    fn op(&mut self, b: &mut Vec<Instruction>, op: Op, ty: Word, args: &[Word]) -> Word {
        let r = self.id();
        b.push(Instruction::new(
            op,
            Some(ty),
            Some(r),
            args.iter().map(|&a| id(a)).collect(),
        ));
        r
    }
}

fn lit(v: u32) -> Operand {
    Operand::LiteralBit32(v)
}

fn id(v: Word) -> Operand {
    Operand::IdRef(v)
}

fn goto(target: Word) -> Instruction {
    Instruction::new(Op::Branch, None, None, vec![id(target)])
}

fn branch_if(cond: Word, yes: Word, no: Word) -> Instruction {
    Instruction::new(
        Op::BranchConditional,
        None,
        None,
        vec![id(cond), id(yes), id(no)],
    )
}

fn phi(ty: Word, result: Word, incoming: &[(Word, Word)]) -> Instruction {
    let ops = incoming.iter().flat_map(|&(v, p)| [id(v), id(p)]).collect();
    Instruction::new(Op::Phi, Some(ty), Some(result), ops)
}
