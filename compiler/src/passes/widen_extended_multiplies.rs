//! `widen_extended_multiplies`: every `OpUMulExtended` / `OpSMulExtended`
//! of 32-bit (or narrower) integers becomes one 64-bit multiplication
//! whose low and high halves make the result struct.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) got the high half of
//! `OpUMulExtended` wrong when one factor was built from 16-bit values:
//! `mad_hi((uint3)92, upsample(-(ushort3)37, (ushort3)x), acc)` in a loop
//! (GPU fuzz sample seed 7010 p100076, reduced on the H200; also the scalar
//! `uint` form). The same kernel with the product done as a 64-bit
//! multiplication, the module edited by hand and nothing else changed, was
//! right there (session 21, `tests/fuzz-open/README.md`). A 32×32→64-bit
//! product is what the hardware computes for either form (one wide
//! multiply-add), and every Vulkan driver ferrocl runs on has 64-bit
//! integers, so the pass runs for every device: one form of `mul_hi`,
//! `mad_hi` and of the `OpUMulExtended` that SPIR-V producers emit.
//!
//! Algorithm: for `r = Op[SU]MulExtended %struct a b` whose members have
//! `n` components of width `w ≤ 32`: `a` and `b` converted to 64 bits
//! (`OpSConvert` for the signed form, `OpUConvert` for the unsigned), one
//! `OpIMul`, the low half `OpUConvert` of the product, the high half
//! `OpUConvert` of the product shifted right by `w` (arithmetic for the
//! signed form), and `r = OpCompositeConstruct %struct low high`, so the
//! users of `r` are untouched. 64-bit factors stay as they are (no wider
//! type exists). Int64 is declared where it was not
//! (`module_edit::declare_width_capabilities`).

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Op, Word};

use super::module_edit::{
    declare_width_capabilities, global, int_types, push_value, rewrite_instructions, splat,
};

pub fn widen_extended_multiplies(module: &mut Module) {
    let ints = int_types(module);
    // Each struct type's first member type.
    let members: std::collections::HashMap<Word, Word> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeStruct)
        .filter_map(|i| match (i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::IdRef(m))) => Some((id, *m)),
            _ => None,
        })
        .collect();
    rewrite_instructions(module, |module, inst, out| {
        let op = inst.class.opcode;
        let factors = match inst.operands.as_slice() {
            [Operand::IdRef(a), Operand::IdRef(b)] => Some((*a, *b)),
            _ => None,
        };
        let member = inst.result_type.and_then(|s| members.get(&s)).copied();
        let shape = member.and_then(|m| ints.get(&m)).copied();
        let (Some(st), Some(r), Some((a, b)), Some(half), Some((w, n))) =
            (inst.result_type, inst.result_id, factors, member, shape)
        else {
            out.push(inst);
            return;
        };
        let signed = match op {
            Op::SMulExtended => true,
            Op::UMulExtended => false,
            _ => {
                out.push(inst);
                return;
            }
        };
        if w > 32 {
            out.push(inst);
            return;
        }
        let long = global(
            module,
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(64), Operand::LiteralBit32(0)],
        );
        let wide = if n == 1 {
            long
        } else {
            global(
                module,
                Op::TypeVector,
                None,
                vec![Operand::IdRef(long), Operand::LiteralBit32(n)],
            )
        };
        let shift = splat(module, wide, long, n, Operand::LiteralBit64(u64::from(w)));
        let mut emit = |module: &mut Module, op: Op, ty: Word, args: &[Word]| {
            push_value(module, out, op, ty, args, None)
        };
        let convert = if signed { Op::SConvert } else { Op::UConvert };
        let wa = emit(module, convert, wide, &[a]);
        let wb = emit(module, convert, wide, &[b]);
        let product = emit(module, Op::IMul, wide, &[wa, wb]);
        let low = emit(module, Op::UConvert, half, &[product]);
        let down = if signed {
            Op::ShiftRightArithmetic
        } else {
            Op::ShiftRightLogical
        };
        let shifted = emit(module, down, wide, &[product, shift]);
        let high = emit(module, Op::UConvert, half, &[shifted]);
        push_value(
            module,
            out,
            Op::CompositeConstruct,
            st,
            &[low, high],
            Some(r),
        );
    });
    declare_width_capabilities(module);
}
