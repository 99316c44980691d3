//! Small edits of an rspirv module shared by the passes that run on whole
//! modules (`async_copy`, `guard_int64_division`): fresh ids and
//! find-or-add of global types and constants.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

/// A new id (bumps the header's bound).
pub fn fresh_id(module: &mut Module) -> Word {
    let id = module.header.as_ref().map_or(1, |h| h.bound);
    if let Some(h) = module.header.as_mut() {
        h.bound = id + 1;
    }
    id
}

/// The id of a global (type or constant) instruction, added at the end of
/// the global section if no identical one exists.
pub fn global(module: &mut Module, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Word {
    if let Some(i) = module
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == op && i.result_type == ty && i.operands == operands)
    {
        return i.result_id.unwrap_or(0);
    }
    let id = fresh_id(module);
    module
        .types_global_values
        .push(Instruction::new(op, ty, Some(id), operands));
    id
}

/// The module's GLSL.std.450 import, if it has one.
pub fn glsl_import(module: &Module) -> Option<Word> {
    module
        .ext_inst_imports
        .iter()
        .find_map(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) if s == "GLSL.std.450" => i.result_id,
            _ => None,
        })
}
