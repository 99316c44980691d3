//! `normalize_builtin_vars`: every form in which SPIR-V producers declare
//! and read OpenCL's builtin variables becomes the one the lowering reads:
//! an `Input` variable loaded whole, its components extracted.
//!
//! Forms seen in the wild besides that one:
//! - the variable in another storage class (older translators declared
//!   `__spirv_BuiltInGlobalInvocationId` as `UniformConstant`, decorated
//!   `Constant` and imported by `LinkageAttributes`): it was taken for
//!   program-scope constant data, and every work-item read global id 0;
//! - a component read through an access chain into the variable
//!   (`OpInBoundsAccessChain %p %gid %i` + `OpLoad %p`, also as a
//!   `PtrAccessChain` with element 0): the build failed ("cannot tell which
//!   address space a pointer points to").
//!
//! Algorithm: variables decorated `BuiltIn` get an `Input` pointer type;
//! each access chain into one is dropped and each load through it becomes
//! a load of the whole variable and an `OpCompositeExtract` (constant
//! index) or `OpVectorExtractDynamic`. Any other use of such a chain is an
//! error naming it. Modules without these forms are returned untouched
//! (`None`) after a scan of their words.

use std::collections::{HashMap, HashSet};

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::module_edit::global;
use crate::tools;

const DECORATE: u32 = 71;
const VARIABLE: u32 = 59;
const BUILTIN: u32 = 11;
const INPUT: u32 = 1;
const ACCESS_CHAINS: [u32; 4] = [65, 66, 67, 70];

pub fn normalize_builtin_vars(words: &[u32]) -> Result<Option<Vec<u32>>, String> {
    let insts: Vec<&[u32]> = tools::instructions(words)
        .map_while(Result::ok)
        .map(|(_, inst)| inst)
        .collect();
    let builtins: HashSet<u32> = insts
        .iter()
        .filter(|i| i[0] & 0xffff == DECORATE && i.len() >= 4 && i[2] == BUILTIN)
        .map(|i| i[1])
        .collect();
    let needed = insts.iter().any(|i| {
        let op = i[0] & 0xffff;
        (op == VARIABLE && i.len() >= 4 && builtins.contains(&i[2]) && i[3] != INPUT)
            || (ACCESS_CHAINS.contains(&op) && i.len() >= 5 && builtins.contains(&i[3]))
    });
    if !needed {
        return Ok(None);
    }
    let mut module = rspirv::dr::load_words(words)
        .map_err(|e| format!("cannot parse the SPIR-V module: {e}"))?;
    let vars: HashSet<Word> = module
        .annotations
        .iter()
        .filter(|a| {
            a.class.opcode == Op::Decorate
                && a.operands.get(1) == Some(&Operand::Decoration(Decoration::BuiltIn))
        })
        .filter_map(|a| a.operands.first().and_then(Operand::id_ref_any))
        .collect();
    // Pointer type → pointee, and constants → value.
    let mut pointee: HashMap<Word, Word> = HashMap::new();
    let mut constants: HashMap<Word, u32> = HashMap::new();
    for i in &module.types_global_values {
        match (i.class.opcode, i.result_id) {
            (Op::TypePointer, Some(id)) => {
                pointee.insert(id, i.operands[1].unwrap_id_ref());
            }
            (Op::Constant, Some(id)) => {
                if let Some(Operand::LiteralBit32(v)) = i.operands.first() {
                    constants.insert(id, *v);
                } else if let Some(Operand::LiteralBit64(v)) = i.operands.first() {
                    constants.insert(id, *v as u32);
                }
            }
            _ => {}
        }
    }
    // The variables' types: pointers to the same pointee in Input.
    let mut var_types: HashMap<Word, Word> = HashMap::new();
    let globals: Vec<(Word, Word)> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .filter(|(id, _)| vars.contains(id))
        .collect();
    for (id, ty) in globals {
        let Some(&value_ty) = pointee.get(&ty) else {
            continue;
        };
        let input = global(
            &mut module,
            Op::TypePointer,
            None,
            vec![
                Operand::StorageClass(StorageClass::Input),
                Operand::IdRef(value_ty),
            ],
        );
        // `global` may have appended the type: the variable moves after it.
        let k = module
            .types_global_values
            .iter()
            .position(|i| i.result_id == Some(id))
            .ok_or("a builtin variable vanished")?;
        let mut var = module.types_global_values.remove(k);
        var.result_type = Some(input);
        var.operands = vec![Operand::StorageClass(StorageClass::Input)];
        module.types_global_values.push(var);
        var_types.insert(id, value_ty);
    }
    let mut next = module.header.as_ref().map_or(1, |h| h.bound);
    for f in &mut module.functions {
        // Access chain id → (variable, index operand).
        let mut chains: HashMap<Word, (Word, Operand)> = HashMap::new();
        for b in &f.blocks {
            for i in &b.instructions {
                let base = i.operands.first().and_then(Operand::id_ref_any);
                let Some(var) = base.filter(|v| var_types.contains_key(v)) else {
                    continue;
                };
                let index = match i.class.opcode {
                    Op::AccessChain | Op::InBoundsAccessChain if i.operands.len() == 2 => {
                        i.operands[1].clone()
                    }
                    Op::PtrAccessChain | Op::InBoundsPtrAccessChain
                        if i.operands.len() == 3
                            && i.operands[1]
                                .id_ref_any()
                                .and_then(|e| constants.get(&e))
                                == Some(&0) =>
                    {
                        i.operands[2].clone()
                    }
                    Op::Load => continue,
                    _ => {
                        return Err(format!(
                            "the builtin variable %{var} is used by Op{:?}, which ferrocl does not support",
                            i.class.opcode
                        ))
                    }
                };
                chains.insert(i.result_id.unwrap_or(0), (var, index));
            }
        }
        if chains.is_empty() {
            continue;
        }
        for b in &mut f.blocks {
            let mut out = Vec::with_capacity(b.instructions.len());
            for i in std::mem::take(&mut b.instructions) {
                if i.result_id.is_some_and(|id| chains.contains_key(&id)) {
                    continue;
                }
                let through = i.operands.iter().find_map(|o| {
                    o.id_ref_any()
                        .and_then(|id| chains.get(&id).map(|c| (id, c.clone())))
                });
                let Some((chain, (var, index))) = through else {
                    out.push(i);
                    continue;
                };
                if i.class.opcode != Op::Load || i.operands[0] != Operand::IdRef(chain) {
                    return Err(format!(
                        "an access chain into a builtin variable is used by Op{:?}, which ferrocl does not support",
                        i.class.opcode
                    ));
                }
                let whole = next;
                next += 1;
                out.push(Instruction::new(
                    Op::Load,
                    Some(var_types[&var]),
                    Some(whole),
                    vec![Operand::IdRef(var)],
                ));
                let constant = index.id_ref_any().and_then(|c| constants.get(&c));
                out.push(match constant {
                    Some(&c) => Instruction::new(
                        Op::CompositeExtract,
                        i.result_type,
                        i.result_id,
                        vec![Operand::IdRef(whole), Operand::LiteralBit32(c)],
                    ),
                    None => Instruction::new(
                        Op::VectorExtractDynamic,
                        i.result_type,
                        i.result_id,
                        vec![Operand::IdRef(whole), index],
                    ),
                });
            }
            b.instructions = out;
        }
    }
    if let Some(h) = module.header.as_mut() {
        h.bound = next;
    }
    Ok(Some(module.assemble()))
}
