//! `sdiv_via_udiv`: every signed division `OpSDiv a b` of 8-, 16- or
//! 32-bit integers (scalars and vectors) becomes an unsigned division of
//! the magnitudes with the sign put back:
//! `s = sa ^ sb`, `q = (|a| / |b| ^ s) - s`, where `sa = a >> (w - 1)`
//! (arithmetic) and `|a| = (a ^ sa) - sa`, the same for `b`.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) divides a vector by a
//! divisor it finds to be a choice among constants wrongly: for
//! `int4 x % select(d, 1, d == 0 | (x == INT_MIN & d == -1))` with
//! `d = (0, 0, 5, -1)` (the fuzzer's guarded remainder; GPU sample seed
//! 7003 p6) it divided lane 2 by 1 instead of 5. The H200 probes of
//! session 18 (runs 61–65, the divisor as SPIR-V) found: OpSDiv is wrong
//! whether the divisor is an OpSelect or a bit blend of the constants;
//! the unsigned division of the magnitudes is wrong with OpSelect and
//! right with the blend. So both changes are made: this pass, and the
//! `select` builtin of integer vectors as a blend
//! (`passes::lower::ext_inst`, `inline`). A division by a constant
//! vector (`x / (int4)(1, 1, 7, 3)`) was right before either. Signed
//! remainders reach this pass as divisions (`srem_via_sdiv` runs first).
//! 64-bit divisions are `guard_int64_division`'s.
//!
//! The identity holds wherever OpSDiv is defined (b != 0, and not
//! `MIN / -1`): `|MIN|` is `MIN` read as unsigned, its true magnitude.
//! On every device: the extra operations (two shifts, four XORs and
//! subtractions) are small beside a division.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::module_edit::{component_type, fresh_id, int_types, rewrite_instructions, splat};

pub fn sdiv_via_udiv(module: &mut Module) {
    let ints = int_types(module);
    rewrite_instructions(module, |module, inst, out| {
        let (Op::SDiv, Some(ty), Some(result), [Operand::IdRef(a), Operand::IdRef(b)]) = (
            inst.class.opcode,
            inst.result_type,
            inst.result_id,
            inst.operands.as_slice(),
        ) else {
            out.push(inst);
            return;
        };
        let Some(&(width, n)) = ints.get(&ty).filter(|(w, _)| *w <= 32) else {
            out.push(inst);
            return;
        };
        let scalar = component_type(module, ty);
        let top = splat(module, ty, scalar, n, Operand::LiteralBit32(width - 1));
        let (a, b) = (*a, *b);
        let mut op = |module: &mut Module, op: Op, x: Word, y: Word| {
            let id = fresh_id(module);
            out.push(Instruction::new(
                op,
                Some(ty),
                Some(id),
                vec![Operand::IdRef(x), Operand::IdRef(y)],
            ));
            id
        };
        let sa = op(module, Op::ShiftRightArithmetic, a, top);
        let xa = op(module, Op::BitwiseXor, a, sa);
        let ua = op(module, Op::ISub, xa, sa);
        let sb = op(module, Op::ShiftRightArithmetic, b, top);
        let xb = op(module, Op::BitwiseXor, b, sb);
        let ub = op(module, Op::ISub, xb, sb);
        let q = op(module, Op::UDiv, ua, ub);
        let s = op(module, Op::BitwiseXor, sa, sb);
        let xq = op(module, Op::BitwiseXor, q, s);
        out.push(Instruction::new(
            Op::ISub,
            Some(ty),
            Some(result),
            vec![Operand::IdRef(xq), Operand::IdRef(s)],
        ));
    });
}

#[cfg(test)]
mod tests {
    /// The identity the pass emits (module doc), computed the way the
    /// instructions compute it, against Rust's signed division: every
    /// 8-bit pair, and 32-bit edge values.
    #[test]
    fn unsigned_division_of_magnitudes_is_the_signed_division() {
        fn via_udiv32(a: i32, b: i32) -> i32 {
            let (sa, sb) = (a >> 31, b >> 31);
            let (ua, ub) = (
                (a ^ sa).wrapping_sub(sa) as u32,
                (b ^ sb).wrapping_sub(sb) as u32,
            );
            let s = sa ^ sb;
            (((ua / ub) as i32) ^ s).wrapping_sub(s)
        }
        fn via_udiv8(a: i8, b: i8) -> i8 {
            let (sa, sb) = (a >> 7, b >> 7);
            let (ua, ub) = (
                (a ^ sa).wrapping_sub(sa) as u8,
                (b ^ sb).wrapping_sub(sb) as u8,
            );
            let s = sa ^ sb;
            (((ua / ub) as i8) ^ s).wrapping_sub(s)
        }
        for a in i8::MIN..=i8::MAX {
            for b in i8::MIN..=i8::MAX {
                if b != 0 && !(a == i8::MIN && b == -1) {
                    assert_eq!(via_udiv8(a, b), a / b, "{a} / {b}");
                }
            }
        }
        let edges = [
            i32::MIN,
            i32::MIN + 1,
            -65537,
            -7,
            -5,
            -2,
            -1,
            0,
            1,
            2,
            5,
            7,
            65537,
            i32::MAX - 1,
            i32::MAX,
        ];
        for &a in &edges {
            for &b in &edges {
                if b != 0 && !(a == i32::MIN && b == -1) {
                    assert_eq!(via_udiv32(a, b), a / b, "{a} / {b}");
                }
            }
        }
    }
}
