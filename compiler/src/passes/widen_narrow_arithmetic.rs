//! `widen_narrow_arithmetic`: 8- and 16-bit integer arithmetic is done in
//! 32 bits, its result truncated back to the narrow type.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) loses the wrap-around of
//! narrow integer results whose range it thinks it knows. Found by the GPU
//! fuzz sample (`tests/fuzz-open`, seed 7002 p100077) and reduced on the
//! H200: with `c = (char)(a / b)` (or `a >> n`, or an unsigned division),
//! `(long)(char)(-c)` for `c = -128` gave `+128`: the negation's result was
//! never brought back to 8 bits before the sign extension (the same for
//! 16 bits, and for a sign extension to 32 bits). NVIDIA's own OpenCL gets
//! these cases right, though it has the same fault elsewhere
//! (`-(short)x` sign-extended). The GPU has no 8- or 16-bit ALU, so the
//! driver computes these operations in 32-bit registers anyway.
//!
//! Widening the arithmetic alone was not enough on the H200 (the driver
//! still dropped the sign extension of the truncated 32-bit result); what
//! makes its results right is a sign extension built from the
//! zero-extended value, not `OpSConvert`. Both are kept: the explicit sign
//! extension fixes the fuzz programs p100077, p400038 and p500022
//! (`tests/fuzz-open`), the widening p400066 and p500019.
//!
//! The form of that sign extension matters to the driver, which takes the
//! range of a sign-extended value ([-128, 127]) for the range of the
//! unsigned value an unsigned operation reads (found in session 21 on an
//! H100 and the H200, with the module edited by hand and then with the
//! form chosen by a throwaway switch, over every program below):
//! - `OpBitFieldSExtract(u, 0, 8)`, the form of session 19, made
//!   `(uint)(int)(char)x / d` (a loaded `d`) come out a few units low, as
//!   if divided by a sequence meant for small dividends (fuzz seed 7010
//!   p91, seed 7011 p100092; `tests/tests/narrow_integers.rs`
//!   `sign_extended_quotients`).
//! - `(u ^ 0x80) - 0x80` made seed 7002 p500022 wrong instead, and with
//!   the operands so too, p400038 and seed 7003 p7 k4; a shift pair
//!   `(u << 24) >> 24` those and `negated_narrow_quotients` and corpus
//!   `int_narrow_negate_max.cl`.
//! - `u | ((0 - (u >> 7)) << 8)` (the sign bit copied into the high bits,
//!   which leaves the driver no small range) is right for all of them, and
//!   is what an explicit conversion (`OpSConvert`) becomes.
//!
//! The operand of a widened operation that reads it as signed is
//! sign-extended with `OpBitFieldSExtract`: its reader is signed, so the
//! range is read right; with `OpSConvert` there, `max(-(short4)x, 37)` for
//! `x = -32768` gave `-32768` on the H200 (the negation's 32-bit result,
//! 32768, was taken as already sign-extended; fuzz sample seed 7003 p7 k4,
//! corpus `int_narrow_negate_max.cl`).
//!
//! Algorithm: every arithmetic, bitwise, shift, min/max/abs/clamp
//! instruction whose result is an 8- or 16-bit integer scalar or vector,
//! and every integer comparison of such operands, takes its operands
//! widened to 32 bits (`OpUConvert`, followed by `OpBitFieldSExtract(v, 0,
//! width)` where the operation reads them as signed: signed division and
//! remainder, arithmetic shift, the signed extended instructions and
//! comparisons), runs on the 32-bit type, and an `OpUConvert` back to the
//! narrow type defines the original result id. Shift counts stay as they
//! are (SPIR-V lets a shift's count have any width). Every `OpSConvert`
//! from an 8- or 16-bit value to a wider type becomes `u = OpUConvert` to
//! 32 bits, `u | ((0 - (u >> (width - 1))) << width)`, then a conversion
//! to the result type. Phis, selects, loads, stores and the other
//! conversions are untouched. Switched on by `DeviceCaps::
//! wide_narrow_arithmetic` (NVIDIA only; lavapipe computes narrow types
//! right).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{GlslStd450Op as GLOp, Op, Word};

use super::module_edit::{fresh_id, int_types, rewrite_instructions, value_types};

/// How an operation reads its (narrow) operands.
#[derive(Clone, Copy, PartialEq)]
enum Reads {
    Signed,
    Unsigned,
}

/// The reading of `op`'s operands if it is widened, `None` otherwise; for
/// shifts only the base is widened.
fn reads_of(op: Op) -> Option<Reads> {
    use Op::*;
    match op {
        IAdd | ISub | IMul | UDiv | UMod | BitwiseAnd | BitwiseOr | BitwiseXor | Not | SNegate
        | ShiftLeftLogical | ShiftRightLogical | IEqual | INotEqual | UGreaterThan
        | UGreaterThanEqual | ULessThan | ULessThanEqual => Some(Reads::Unsigned),
        SDiv | SRem | SMod | ShiftRightArithmetic | SGreaterThan | SGreaterThanEqual
        | SLessThan | SLessThanEqual => Some(Reads::Signed),
        _ => None,
    }
}

/// The reading of a GLSL.std.450 instruction's operands, `None` for those
/// left alone.
fn reads_of_glsl(inst: u32) -> Option<Reads> {
    const SIGNED: [GLOp; 5] = [
        GLOp::SAbs,
        GLOp::SSign,
        GLOp::SMin,
        GLOp::SMax,
        GLOp::SClamp,
    ];
    const UNSIGNED: [GLOp; 3] = [GLOp::UMin, GLOp::UMax, GLOp::UClamp];
    if SIGNED.iter().any(|&g| g as u32 == inst) {
        Some(Reads::Signed)
    } else if UNSIGNED.iter().any(|&g| g as u32 == inst) {
        Some(Reads::Unsigned)
    } else {
        None
    }
}

fn is_shift(op: Op) -> bool {
    matches!(
        op,
        Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic
    )
}

fn is_comparison(op: Op) -> bool {
    matches!(
        op,
        Op::IEqual
            | Op::INotEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual
            | Op::SLessThan
            | Op::SLessThanEqual
    )
}

pub fn widen_narrow_arithmetic(module: &mut Module) {
    let ints = int_types(module);
    let narrow = |ty: Word| ints.get(&ty).filter(|(w, _)| *w == 8 || *w == 16).copied();
    let glsl = super::module_edit::glsl_import(module);
    let types = value_types(module);
    // The 32-bit type of each component count, made on first use.
    let mut wide: HashMap<u32, Word> = HashMap::new();
    let mut wide_type = |module: &mut Module, n: u32| -> Word {
        *wide.entry(n).or_insert_with(|| {
            let uint = super::module_edit::global(
                module,
                Op::TypeInt,
                None,
                vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
            );
            if n == 1 {
                uint
            } else {
                super::module_edit::global(
                    module,
                    Op::TypeVector,
                    None,
                    vec![Operand::IdRef(uint), Operand::LiteralBit32(n)],
                )
            }
        })
    };
    rewrite_instructions(module, |module, inst, out| {
        let op = inst.class.opcode;
        let (Some(ty), Some(result)) = (inst.result_type, inst.result_id) else {
            out.push(inst);
            return;
        };
        // Which operands to widen, how, and the narrow type's
        // component count.
        let plan = if op == Op::ExtInst {
            match (glsl, inst.operands.as_slice()) {
                (Some(set), [Operand::IdRef(s), Operand::LiteralExtInstInteger(g), ..])
                    if *s == set =>
                {
                    reads_of_glsl(*g)
                        .zip(narrow(ty))
                        .map(|(r, n)| (r, n, 2..inst.operands.len()))
                }
                _ => None,
            }
        } else if is_comparison(op) {
            let operand_ty = match inst.operands.first() {
                Some(Operand::IdRef(a)) => types.get(a).copied(),
                _ => None,
            };
            reads_of(op)
                .zip(operand_ty.and_then(narrow))
                .map(|(r, n)| (r, n, 0..2))
        } else {
            let end = if is_shift(op) { 1 } else { inst.operands.len() };
            reads_of(op).zip(narrow(ty)).map(|(r, n)| (r, n, 0..end))
        };
        if op == Op::SConvert {
            if let Some(done) = sign_extension(module, &inst, &ints, &types, &mut wide_type) {
                out.extend(done);
                return;
            }
        }
        let Some((reads, narrow_ty, widened)) = plan else {
            out.push(inst);
            return;
        };
        let (width, n) = narrow_ty;
        let wty = wide_type(module, n);
        let mut operands = inst.operands.clone();
        for operand in &mut operands[widened] {
            let Operand::IdRef(v) = *operand else {
                return;
            };
            let w = fresh_id(module);
            out.push(Instruction::new(
                Op::UConvert,
                Some(wty),
                Some(w),
                vec![Operand::IdRef(v)],
            ));
            *operand = Operand::IdRef(match reads {
                Reads::Unsigned => w,
                Reads::Signed => {
                    let uint = wide_type(module, 1);
                    let e = fresh_id(module);
                    out.push(bit_field_sign_extract(module, uint, wty, e, w, width));
                    e
                }
            });
        }
        if is_comparison(op) {
            out.push(Instruction::new(op, Some(ty), Some(result), operands));
        } else {
            let w = fresh_id(module);
            out.push(Instruction::new(op, Some(wty), Some(w), operands));
            out.push(Instruction::new(
                Op::UConvert,
                Some(ty),
                Some(result),
                vec![Operand::IdRef(w)],
            ));
        }
    });
}

/// `r = OpSConvert x` from an 8- or 16-bit `x` to a wider type becomes
/// `u = OpUConvert x` to 32 bits, `e = u | ((0 - (u >> (width - 1))) <<
/// width)` (the sign bit copied into the high bits), converted on to the
/// result type; `None` where `inst` is no such conversion.
fn sign_extension(
    module: &mut Module,
    inst: &Instruction,
    ints: &HashMap<Word, (u32, u32)>,
    types: &HashMap<Word, Word>,
    wide_type: &mut impl FnMut(&mut Module, u32) -> Word,
) -> Option<Vec<Instruction>> {
    let (Some(rty), Some(result), [Operand::IdRef(x)]) =
        (inst.result_type, inst.result_id, inst.operands.as_slice())
    else {
        return None;
    };
    let (width, n) = *ints.get(types.get(x)?)?;
    let (result_width, _) = *ints.get(&rty)?;
    if !(width == 8 || width == 16) || result_width <= width {
        return None;
    }
    let wty = wide_type(module, n);
    let uint = wide_type(module, 1);
    let constant = |module: &mut Module, v: u32| {
        super::module_edit::splat(module, wty, uint, n, Operand::LiteralBit32(v))
    };
    let (zero, sign, high) = (
        constant(module, 0),
        constant(module, width - 1),
        constant(module, width),
    );
    let mut out = Vec::with_capacity(6);
    let mut emit = |module: &mut Module, op: Op, ty: Word, args: &[Word], id: Option<Word>| {
        super::module_edit::push_value(module, &mut out, op, ty, args, id)
    };
    let u = emit(module, Op::UConvert, wty, &[*x], None);
    let s = emit(module, Op::ShiftRightLogical, wty, &[u, sign], None);
    let ones = emit(module, Op::ISub, wty, &[zero, s], None);
    let above = emit(module, Op::ShiftLeftLogical, wty, &[ones, high], None);
    let e = emit(module, Op::BitwiseOr, wty, &[u, above], None);
    let last = match result_width {
        32 => Op::CopyObject,
        w if w > 32 => Op::SConvert,
        _ => Op::UConvert,
    };
    emit(module, last, rty, &[e], Some(result));
    Some(out)
}

/// `e = OpBitFieldSExtract(u, 0, width)` of type `wty` (32-bit components):
/// the sign extension of the low `width` bits of the zero-extended `u`, for
/// the operand of an operation that reads it as signed.
fn bit_field_sign_extract(
    module: &mut Module,
    uint: Word,
    wty: Word,
    e: Word,
    u: Word,
    width: u32,
) -> Instruction {
    let mut constant = |v: u32| {
        super::module_edit::global(
            module,
            Op::Constant,
            Some(uint),
            vec![Operand::LiteralBit32(v)],
        )
    };
    let (zero, count) = (constant(0), constant(width));
    Instruction::new(
        Op::BitFieldSExtract,
        Some(wty),
        Some(e),
        vec![
            Operand::IdRef(u),
            Operand::IdRef(zero),
            Operand::IdRef(count),
        ],
    )
}
