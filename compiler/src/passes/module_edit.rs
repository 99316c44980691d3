//! Small edits of an rspirv module shared by the passes that run on whole
//! modules (`async_copy`, `guard_int64_division`, ...): fresh ids,
//! find-or-add of global types and constants, the tables of integer
//! types and value types, an instruction pushed under a (fresh) id, and
//! the capabilities of the integer widths declared.

use std::collections::HashMap;

use rspirv::dr::{Block, Instruction, Module, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

/// A new id (bumps the header's bound).
pub fn fresh_id(module: &mut Module) -> Word {
    let id = module.header.as_ref().map_or(1, |h| h.bound);
    if let Some(h) = module.header.as_mut() {
        h.bound = id + 1;
    }
    id
}

/// A block labelled `label` holding `instructions`.
pub fn block(label: Word, instructions: Vec<Instruction>) -> Block {
    Block {
        label: Some(Instruction::new(Op::Label, None, Some(label), vec![])),
        instructions,
    }
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

/// The Input variable of built-in `bi`, of type `ty`: the module's, or a
/// new one (listed in every entry point's interface).
pub fn builtin_input(module: &mut Module, bi: BuiltIn, ty: Word) -> Word {
    let existing = module.annotations.iter().find_map(|a| {
        match (a.operands.first(), a.operands.get(1), a.operands.get(2)) {
            (
                Some(Operand::IdRef(t)),
                Some(Operand::Decoration(Decoration::BuiltIn)),
                Some(Operand::BuiltIn(b)),
            ) if *b == bi => Some(*t),
            _ => None,
        }
    });
    if let Some(v) = existing {
        return v;
    }
    let pt = global(
        module,
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Input),
            Operand::IdRef(ty),
        ],
    );
    let v = fresh_id(module);
    module.types_global_values.push(Instruction::new(
        Op::Variable,
        Some(pt),
        Some(v),
        vec![Operand::StorageClass(StorageClass::Input)],
    ));
    module.annotations.push(Instruction::new(
        Op::Decorate,
        None,
        None,
        vec![
            Operand::IdRef(v),
            Operand::Decoration(Decoration::BuiltIn),
            Operand::BuiltIn(bi),
        ],
    ));
    for ep in &mut module.entry_points {
        ep.operands.push(Operand::IdRef(v));
    }
    v
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

/// Integer types of the module: id -> (width, components).
pub fn int_types(module: &Module) -> HashMap<Word, (u32, u32)> {
    numeric_types(module, Op::TypeInt)
}

/// Floating-point types of the module: id -> (width, components).
pub fn float_types(module: &Module) -> HashMap<Word, (u32, u32)> {
    numeric_types(module, Op::TypeFloat)
}

/// The scalar types made by `scalar_op` (OpTypeInt or OpTypeFloat) and
/// the vectors of them: id -> (width, components).
fn numeric_types(module: &Module, scalar_op: Op) -> HashMap<Word, (u32, u32)> {
    let mut types = HashMap::new();
    for inst in &module.types_global_values {
        let Some(id) = inst.result_id else { continue };
        match (inst.class.opcode, inst.operands.as_slice()) {
            (op, [Operand::LiteralBit32(w), ..]) if op == scalar_op => {
                types.insert(id, (*w, 1));
            }
            (Op::TypeVector, [Operand::IdRef(c), Operand::LiteralBit32(n)]) => {
                if let Some(&(w, 1)) = types.get(c) {
                    types.insert(id, (w, *n));
                }
            }
            _ => {}
        }
    }
    types
}

/// The type of every value the functions define (and of the module's
/// constants).
pub fn value_types(module: &Module) -> HashMap<Word, Word> {
    let mut types = HashMap::new();
    let globals = module.types_global_values.iter();
    let params = module.functions.iter().flat_map(|f| f.parameters.iter());
    let body = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter());
    for inst in globals.chain(params).chain(body) {
        if let (Some(id), Some(ty)) = (inst.result_id, inst.result_type) {
            types.insert(id, ty);
        }
    }
    types
}

/// The component type of vector type `ty`; `ty` itself otherwise.
pub fn component_type(module: &Module, ty: Word) -> Word {
    module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(ty) && i.class.opcode == Op::TypeVector)
        .and_then(|i| match i.operands.first() {
            Some(Operand::IdRef(c)) => Some(*c),
            _ => None,
        })
        .unwrap_or(ty)
}

/// A constant of type `ty` (`n` components of `scalar`) with every
/// component the literal `value` (found or added, as [`global`]).
pub fn splat(module: &mut Module, ty: Word, scalar: Word, n: u32, value: Operand) -> Word {
    let c = global(module, Op::Constant, Some(scalar), vec![value]);
    if n == 1 {
        return c;
    }
    global(
        module,
        Op::ConstantComposite,
        Some(ty),
        vec![Operand::IdRef(c); n as usize],
    )
}

/// Runs `edit` on every instruction of every function, in order; `edit`
/// pushes onto `out` what replaces the instruction (the instruction
/// itself to keep it). A block's instructions are taken out of the module
/// while it is edited, so `edit` may add globals and fresh ids.
pub fn rewrite_instructions(
    module: &mut Module,
    mut edit: impl FnMut(&mut Module, Instruction, &mut Vec<Instruction>),
) {
    for fi in 0..module.functions.len() {
        for bi in 0..module.functions[fi].blocks.len() {
            let old = std::mem::take(&mut module.functions[fi].blocks[bi].instructions);
            let mut out = Vec::with_capacity(old.len());
            for inst in old {
                edit(module, inst, &mut out);
            }
            module.functions[fi].blocks[bi].instructions = out;
        }
    }
}

/// Declares Int8 / Int16 / Int64 where an integer type of that width is
/// declared and its capability is not.
pub fn declare_width_capabilities(module: &mut Module) {
    let widths: std::collections::HashSet<u32> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeInt)
        .map(|i| i.operands[0].unwrap_literal_bit32())
        .collect();
    for (w, cap) in [
        (8, rspirv::spirv::Capability::Int8),
        (16, rspirv::spirv::Capability::Int16),
        (64, rspirv::spirv::Capability::Int64),
    ] {
        let has = module
            .capabilities
            .iter()
            .any(|c| c.operands.first() == Some(&Operand::Capability(cap)));
        if widths.contains(&w) && !has {
            module.capabilities.push(Instruction::new(
                Op::Capability,
                None,
                None,
                vec![Operand::Capability(cap)],
            ));
        }
    }
}

/// Pushes `op` of type `ty` on the ids `args` to `out`, defining `result`
/// (a fresh id if `None`); returns the id it defines.
pub fn push_value(
    module: &mut Module,
    out: &mut Vec<Instruction>,
    op: Op,
    ty: Word,
    args: &[Word],
    result: Option<Word>,
) -> Word {
    let id = result.unwrap_or_else(|| fresh_id(module));
    let operands = args.iter().map(|&a| Operand::IdRef(a)).collect();
    out.push(Instruction::new(op, Some(ty), Some(id), operands));
    id
}
