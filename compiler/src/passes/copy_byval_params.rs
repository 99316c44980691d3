//! `copy_byval_params`: a function parameter decorated `FuncParamAttr
//! ByVal` (a struct or array passed by value: LLVM's `byval`) gets its own
//! copy at the function's entry.
//!
//! Why: `byval` means the callee works on a copy, but LLVM leaves the copy
//! to the code generator: the caller passes a pointer to its own variable
//! (at -O0 always; at -O2 where the call is not inlined and the callee is
//! not rewritten). Without the copy, a helper that modifies its by-value
//! struct changed the caller's.
//!
//! Algorithm: per such parameter, a `Function` variable of the pointee
//! type is added to the entry block (after its other variables), the
//! parameter's bytes are copied into it (`OpCopyMemory`), and every other
//! use of the parameter in the function names the copy. A callee that
//! never writes through the parameter pays one copy of the struct per call.
//! Not copied: the parameters of entry points (the host's argument, which
//! nothing else sees), and those of functions called only from entry points
//! that pass their own parameter through and use it nowhere else
//! (llvm-spirv's kernel wrappers).

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, FunctionParameterAttribute, Op, Word};

use super::module_edit::fresh_id;

pub fn copy_byval_params(module: &mut Module) {
    let byval: Vec<Word> = module
        .annotations
        .iter()
        .filter(|a| {
            a.class.opcode == Op::Decorate
                && a.operands.get(1) == Some(&Operand::Decoration(Decoration::FuncParamAttr))
                && a.operands.get(2)
                    == Some(&Operand::FunctionParameterAttribute(
                        FunctionParameterAttribute::ByVal,
                    ))
        })
        .filter_map(|a| a.operands.first().and_then(Operand::id_ref_any))
        .collect();
    if byval.is_empty() {
        return;
    }
    let needs_copy = params_needing_copies(module, &byval);
    for f in 0..module.functions.len() {
        let params: Vec<(Word, Word)> = module.functions[f]
            .parameters
            .iter()
            .filter_map(|p| Some((p.result_id?, p.result_type?)))
            .filter(|(id, _)| needs_copy.contains(id))
            .collect();
        if params.is_empty() || module.functions[f].blocks.is_empty() {
            continue;
        }
        let mut copies: HashMap<Word, Word> = HashMap::new();
        let mut setup = Vec::new();
        let mut copy_ops = Vec::new();
        for (param, ty) in params {
            let copy = fresh_id(module);
            copies.insert(param, copy);
            setup.push(Instruction::new(
                Op::Variable,
                Some(ty),
                Some(copy),
                vec![Operand::StorageClass(rspirv::spirv::StorageClass::Function)],
            ));
            copy_ops.push(Instruction::new(
                Op::CopyMemory,
                None,
                None,
                vec![Operand::IdRef(copy), Operand::IdRef(param)],
            ));
        }
        let func = &mut module.functions[f];
        for b in &mut func.blocks {
            for i in &mut b.instructions {
                for o in &mut i.operands {
                    if let Operand::IdRef(id) = o {
                        if let Some(&c) = copies.get(id) {
                            *id = c;
                        }
                    }
                }
            }
        }
        let entry = &mut func.blocks[0].instructions;
        let vars = entry
            .iter()
            .take_while(|i| matches!(i.class.opcode, Op::Variable | Op::Line | Op::NoLine))
            .count();
        let tail = entry.split_off(vars);
        entry.extend(setup);
        entry.extend(copy_ops);
        entry.extend(tail);
    }
}

/// The `byval` parameters some call passes another pointer than an entry
/// point's own parameter.
fn params_needing_copies(module: &Module, byval: &[Word]) -> HashSet<Word> {
    let entries: HashSet<Word> = module
        .entry_points
        .iter()
        .filter_map(|e| e.operands.get(1).and_then(Operand::id_ref_any))
        .collect();
    let params: HashMap<Word, Vec<Word>> = module
        .functions
        .iter()
        .filter_map(|f| {
            let id = f.def.as_ref()?.result_id?;
            Some((
                id,
                f.parameters.iter().filter_map(|p| p.result_id).collect(),
            ))
        })
        .collect();
    let mut out = HashSet::new();
    for f in &module.functions {
        let Some(caller) = f.def.as_ref().and_then(|d| d.result_id) else {
            continue;
        };
        let own = &params[&caller];
        let uses = |p: Word| {
            f.blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .flat_map(|i| &i.operands)
                .filter(|o| o.id_ref_any() == Some(p))
                .count()
        };
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            if i.class.opcode != Op::FunctionCall {
                continue;
            }
            let Some(callee) = i.operands.first().and_then(Operand::id_ref_any) else {
                continue;
            };
            let Some(formals) = params.get(&callee) else {
                continue;
            };
            for (formal, actual) in formals.iter().zip(&i.operands[1..]) {
                let passed_through = entries.contains(&caller)
                    && actual
                        .id_ref_any()
                        .is_some_and(|a| own.contains(&a) && uses(a) == 1);
                if byval.contains(formal) && !passed_through {
                    out.insert(*formal);
                }
            }
        }
    }
    out
}
