//! `srem_via_sdiv`: every signed remainder `OpSRem a b` becomes
//! `a - (a / b) * b` with `OpSDiv`.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) computes a lone OpSRem as an
//! unsigned remainder when an operand is negative (CTS integer_ops:
//! `-1 % INT_MIN` gave `0x7fffffff`, `1 % -1` gave 1, for char, short, int
//! and long), while OpSDiv is right. The identity holds for every operand
//! pair OpSRem defines (b != 0, and not INT_MIN / -1), scalars and
//! vectors alike. Runs before `guard_int64_division`, which then also
//! guards the 64-bit divisions this pass introduces.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::Op;

use super::module_edit::{fresh_id, rewrite_instructions};

pub fn srem_via_sdiv(module: &mut Module) {
    rewrite_instructions(module, |module, inst, out| {
        let (Op::SRem, Some(ty), Some(result)) =
            (inst.class.opcode, inst.result_type, inst.result_id)
        else {
            out.push(inst);
            return;
        };
        let (a, d) = (inst.operands[0].clone(), inst.operands[1].clone());
        let (q, m) = (fresh_id(module), fresh_id(module));
        out.push(Instruction::new(
            Op::SDiv,
            Some(ty),
            Some(q),
            vec![a.clone(), d.clone()],
        ));
        out.push(Instruction::new(
            Op::IMul,
            Some(ty),
            Some(m),
            vec![Operand::IdRef(q), d],
        ));
        out.push(Instruction::new(
            Op::ISub,
            Some(ty),
            Some(result),
            vec![a, Operand::IdRef(m)],
        ));
    });
}
