//! `place_private_constants`: module-scope constants in the private
//! address space become `__constant` data.
//!
//! Why: clang-15 emits the constant part of an aggregate initializer that
//! also holds run-time values (`int t[2][8] = {{-108, 5, ...}, {a[i], 7}}`)
//! as a module-scope constant in LLVM's default address space
//! (`@constinit`) and copies it in with `llvm.memcpy`; llvm-spirv-15 gives
//! such a global the `Function` storage class at module scope, which is not
//! valid SPIR-V ("`Function` storage class outside function": a build
//! error). Found by ferrocl-fuzz.
//!
//! Algorithm (on words, before `global_vars` lays out constant data): each
//! module-scope `OpVariable` of storage class `Function` that has an
//! initializer and the `Constant` decoration becomes `UniformConstant`
//! (program-scope constant data, `global_vars`), and so do, transitively,
//! the pointer results derived from it (bitcasts, access chains, copies,
//! selects and phis of such pointers): each gets the `UniformConstant`
//! pointer type to the same pointee. Reads (loads, copies from it) need no
//! change. Known gaps (a build error naming them): such a variable without
//! an initializer or not constant, and derived pointers passed to a
//! function or stored to memory.

use std::collections::{HashMap, HashSet};

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::module_edit::global;
use crate::tools;

const VARIABLE: u32 = 59;
const FUNCTION: u32 = 54;
const STORAGE_FUNCTION: u32 = 7;

pub fn place_private_constants(words: &[u32]) -> Result<Option<Vec<u32>>, String> {
    let needed = tools::instructions(words)
        .map_while(Result::ok)
        .map(|(_, i)| i)
        .take_while(|i| i[0] & 0xffff != FUNCTION)
        .any(|i| i[0] & 0xffff == VARIABLE && i.len() >= 4 && i[3] == STORAGE_FUNCTION);
    if !needed {
        return Ok(None);
    }
    let mut module = rspirv::dr::load_words(words)
        .map_err(|e| format!("cannot parse the SPIR-V module: {e}"))?;
    let constant: HashSet<Word> = module
        .annotations
        .iter()
        .filter(|a| {
            a.class.opcode == Op::Decorate
                && a.operands.get(1) == Some(&Operand::Decoration(Decoration::Constant))
        })
        .filter_map(|a| a.operands.first().and_then(Operand::id_ref_any))
        .collect();
    let pointee: HashMap<Word, Word> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypePointer)
        .filter_map(|i| Some((i.result_id?, i.operands[1].unwrap_id_ref())))
        .collect();
    // Pointers to move (value id → its new pointer type), starting with the
    // variables.
    let mut moved: HashMap<Word, Word> = HashMap::new();
    let vars: Vec<(Word, Word, usize)> = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Function))
        })
        .filter_map(|i| Some((i.result_id?, i.result_type?, i.operands.len())))
        .collect();
    for (var, ty, operands) in vars {
        if operands < 2 || !constant.contains(&var) {
            return Err(format!(
                "a module-scope variable (%{var}) in the private address space that is not a constant, which ferrocl does not support"
            ));
        }
        let to = constant_pointer(&mut module, &pointee, ty)?;
        let inst = module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(var))
            .ok_or("a variable vanished")?;
        inst.result_type = Some(to);
        inst.operands[0] = Operand::StorageClass(StorageClass::UniformConstant);
        moved.insert(var, to);
    }
    // The variable must follow its new pointer type.
    let (vars, mut rest): (Vec<Instruction>, Vec<Instruction>) = module
        .types_global_values
        .drain(..)
        .partition(|i| i.result_id.is_some_and(|id| moved.contains_key(&id)));
    rest.extend(vars);
    module.types_global_values = rest;
    // Derived pointers, to a fixed point (phis may name later values).
    loop {
        let mut changed = false;
        let mut retype = Vec::new();
        for f in &module.functions {
            for i in f.blocks.iter().flat_map(|b| &b.instructions) {
                let Some(id) = i.result_id else { continue };
                if moved.contains_key(&id) {
                    continue;
                }
                let uses_moved = i
                    .operands
                    .iter()
                    .any(|o| o.id_ref_any().is_some_and(|x| moved.contains_key(&x)));
                if !uses_moved {
                    continue;
                }
                match i.class.opcode {
                    Op::Bitcast
                    | Op::AccessChain
                    | Op::InBoundsAccessChain
                    | Op::PtrAccessChain
                    | Op::InBoundsPtrAccessChain
                    | Op::CopyObject
                    | Op::Select
                    | Op::Phi => retype.push((id, i.result_type.unwrap_or(0))),
                    Op::Load
                    | Op::CopyMemory
                    | Op::CopyMemorySized
                    | Op::PtrCastToGeneric
                    | Op::ConvertPtrToU
                    | Op::Line => {}
                    op => {
                        return Err(format!(
                            "a private constant's address is used by Op{op:?}, which ferrocl does not support"
                        ))
                    }
                }
            }
        }
        for (id, ty) in retype {
            let p = pointee_of(&module);
            let to = constant_pointer(&mut module, &p, ty)?;
            moved.insert(id, to);
            changed = true;
        }
        if !changed {
            break;
        }
    }
    for f in &mut module.functions {
        for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            if let Some(&to) = i.result_id.and_then(|id| moved.get(&id)) {
                i.result_type = Some(to);
            }
            if matches!(
                i.class.opcode,
                Op::CopyMemory | Op::CopyMemorySized | Op::Store
            ) {
                let target = i.operands.first().and_then(Operand::id_ref_any);
                if target.is_some_and(|t| moved.contains_key(&t)) {
                    return Err("a store to a private constant".into());
                }
            }
        }
    }
    Ok(Some(module.assemble()))
}

fn pointee_of(module: &Module) -> HashMap<Word, Word> {
    module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypePointer)
        .filter_map(|i| Some((i.result_id?, i.operands[1].unwrap_id_ref())))
        .collect()
}

/// The `UniformConstant` pointer type to what pointer type `ty` points at.
fn constant_pointer(
    module: &mut Module,
    pointee: &HashMap<Word, Word>,
    ty: Word,
) -> Result<Word, String> {
    let &to = pointee
        .get(&ty)
        .ok_or("a private constant's address has a non-pointer type")?;
    Ok(global(
        module,
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::UniformConstant),
            Operand::IdRef(to),
        ],
    ))
}
