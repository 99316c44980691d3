//! `expand_long_sign_extensions`: every `OpSConvert` of a 32-bit integer
//! (scalar or vector) to 64 bits becomes a zero extension and 64-bit
//! arithmetic that computes the same value:
//! `r = OpSConvert x` → `r = OpUConvert(x ^ 0x80000000) + (-2^31)`.
//!
//! Why: lavapipe (Mesa 22.3) folds a signed comparison of such a sign
//! extension with a constant as if the 64-bit value were a large positive
//! number: `convert_long(x) < 6` and `<= 6` were false and `> 6`, `>= 6`
//! true for every `x` (corpus `fuzz_sconvert_compare.cl`, ferrocl-fuzz
//! seed 14 p20, p51, p172, p223, p261). Measured with probe kernels
//! against PoCL (2026-11-27):
//! - only 32 → 64 bits; 8 and 16 → 64, 8 → 16 and 32, 16 → 32 are right;
//! - `OpSLessThan`, `OpSLessThanEqual`, `OpSGreaterThan`,
//!   `OpSGreaterThanEqual` with a constant between about -2^31 and 2^31
//!   (`< 0` alone is right; constants at or beyond 2^32 or below -2^31
//!   are right); `OpIEqual`, `OpINotEqual`, the unsigned comparisons and
//!   comparisons with a non-constant value are right;
//! - scalars and vectors (2 and 4 lanes) alike;
//! - also on values computed from the extension (`X + 1`, `X * 3`,
//!   `X >> 1`, `-X` compared with a constant; not `X & 0xffff`), on a phi
//!   of two extensions, and so in `abs_diff` and in selects on such
//!   comparisons; not through an `OpSelect`, a loop-carried value, or a
//!   phi with another value; `SMax`/`SMin`/`SClamp` are right.
//!
//! That is the behaviour of a wrong value range given to the extension
//! and carried through the arithmetic after it, so rewriting only the
//! comparisons would not be enough: the extension itself is replaced by
//! one whose range lavapipe gets right (that of a zero extension, which
//! the same probes found right for every width).
//!
//! Equivalence, per lane: for a 32-bit `x` read as signed,
//! `x ^ 0x80000000` read as unsigned is `x + 2^31`, in `[0, 2^32)`; its
//! zero extension to 64 bits is that same number, and adding `-2^31`
//! (modulo 2^64) gives `x` as a 64-bit signed number, which is the sign
//! extension's result. The xor form was preferred to the equally right
//! `(zext(x) << 32) >> 32` (arithmetic) because it is no sign-extension
//! idiom a driver would turn back into the faulty operation. Switched on
//! by `DeviceCaps::soft_long_sign_extension` (lavapipe and llvmpipe only;
//! `FERROCL_SOFT_LONG_SIGN_EXTENSION=0|1` overrides it).

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::Op;

use super::module_edit::{
    component_type, fresh_id, int_types, rewrite_instructions, splat, value_types,
};

pub fn expand_long_sign_extensions(module: &mut Module) {
    let ints = int_types(module);
    let types = value_types(module);
    rewrite_instructions(module, |module, inst, out| {
        let (Op::SConvert, Some(rty), Some(result), [Operand::IdRef(x)]) = (
            inst.class.opcode,
            inst.result_type,
            inst.result_id,
            inst.operands.as_slice(),
        ) else {
            out.push(inst);
            return;
        };
        let x = *x;
        let src = types.get(&x).and_then(|t| Some((*t, *ints.get(t)?)));
        let (Some((sty, (32, n))), Some(&(64, _))) = (src, ints.get(&rty)) else {
            out.push(inst);
            return;
        };
        let (s32, s64) = (component_type(module, sty), component_type(module, rty));
        let flip = splat(module, sty, s32, n, Operand::LiteralBit32(0x8000_0000));
        let bias = splat(
            module,
            rty,
            s64,
            n,
            Operand::LiteralBit64((-(1i64 << 31)) as u64),
        );
        let (f, z) = (fresh_id(module), fresh_id(module));
        out.push(Instruction::new(
            Op::BitwiseXor,
            Some(sty),
            Some(f),
            vec![Operand::IdRef(x), Operand::IdRef(flip)],
        ));
        out.push(Instruction::new(
            Op::UConvert,
            Some(rty),
            Some(z),
            vec![Operand::IdRef(f)],
        ));
        out.push(Instruction::new(
            Op::IAdd,
            Some(rty),
            Some(result),
            vec![Operand::IdRef(z), Operand::IdRef(bias)],
        ));
    });
}

#[cfg(test)]
mod tests {
    /// The identity the pass relies on (module doc), over edge values and
    /// a sweep of the 32-bit range, computed the way the emitted
    /// instructions compute it: xor, zero extension, wrapping 64-bit add.
    #[test]
    fn xor_zero_extension_and_bias_is_the_sign_extension() {
        let bias = (-(1i64 << 31)) as u64;
        let edges = [0, 1, -1, 6, -7, i32::MAX, i32::MIN, i32::MIN + 1];
        let sweep = (0..=u32::MAX).step_by(65_521).map(|v| v as i32);
        for x in edges.into_iter().chain(sweep) {
            let z = u64::from(x as u32 ^ 0x8000_0000);
            assert_eq!(z.wrapping_add(bias) as i64, i64::from(x), "x = {x}");
        }
    }
}
