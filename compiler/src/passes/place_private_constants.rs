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
//! At -O0 (SPIR-V producers that do not optimize: clang-15 or clang-14
//! with their llvm-spirv) clang emits that global without LLVM's
//! `constant`, so it has no `Constant` decoration, but nothing writes it:
//! it is taken the same way, and a write found below is a build error.
//! Nothing proves such a variable unwritten but its uses, so where a
//! module has one, every address derived from these variables must stay
//! where its uses can be seen: one converted to a generic pointer or an
//! integer, stored to memory, or used by any other instruction without a
//! result but a copy from it is a build error too (a write through it
//! would change data every work-item shares).
//!
//! Algorithm (on words, before `global_vars` lays out constant data): each
//! module-scope `OpVariable` of storage class `Function` that has an
//! initializer (decorated `Constant` or not) becomes `UniformConstant`
//! (program-scope constant data, `global_vars`), and so do, transitively,
//! the pointer results derived from it (bitcasts, access chains, copies,
//! selects and phis of such pointers): each gets the `UniformConstant`
//! pointer type to the same pointee. Reads (loads, copies from it) need no
//! change. Known gaps (a build error naming them): such a variable without
//! an initializer or written (a store, a copy into it, an atomic), and
//! derived pointers passed to a function or stored to memory.

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
    let constant: HashSet<Word> = module
        .annotations
        .iter()
        .filter(|a| {
            a.class.opcode == Op::Decorate
                && a.operands.get(1) == Some(&Operand::Decoration(Decoration::Constant))
        })
        .filter_map(|a| a.operands.first().and_then(Operand::id_ref_any))
        .collect();
    // A variable without the decoration is constant only if no use writes
    // it: its addresses may not escape (module doc).
    let strict = vars.iter().any(|(var, _, _)| !constant.contains(var));
    let escapes = |op: Op| {
        Err(format!(
            "the address of a module-scope variable in the private address space that is not \
             decorated Constant is used by Op{op:?}, where ferrocl cannot see that it is never \
             written"
        ))
    };
    for (var, ty, operands) in vars {
        if operands < 2 {
            return Err(format!(
                "a module-scope variable (%{var}) in the private address space without an initializer, which ferrocl does not support"
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
                    Op::PtrCastToGeneric | Op::ConvertPtrToU if strict => {
                        return escapes(i.class.opcode)
                    }
                    Op::Load
                    | Op::CopyMemory
                    | Op::CopyMemorySized
                    | Op::PtrCastToGeneric
                    | Op::ConvertPtrToU
                    | Op::Line => {}
                    op => {
                        return Err(format!(
                            "the address of a module-scope variable in the private address space is used by Op{op:?}, which ferrocl does not support"
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
                    return Err(format!(
                        "a module-scope variable in the private address space is written (Op{:?}), which ferrocl does not support",
                        i.class.opcode
                    ));
                }
            }
            // Instructions without a result: only copies from these
            // addresses (checked above) and lifetime markers may use them.
            let uses_moved = || {
                i.operands
                    .iter()
                    .any(|o| o.id_ref_any().is_some_and(|x| moved.contains_key(&x)))
            };
            let harmless = matches!(
                i.class.opcode,
                Op::CopyMemory | Op::CopyMemorySized | Op::LifetimeStart | Op::LifetimeStop
            );
            if strict && i.result_id.is_none() && !harmless && uses_moved() {
                return escapes(i.class.opcode);
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

#[cfg(test)]
mod tests {
    use super::place_private_constants;

    /// A kernel copying from (`read`) or storing to (`write`) a
    /// module-scope `Function` variable with an initializer and no
    /// `Constant` decoration, as llvm-spirv writes clang's -O0 `constinit`.
    fn module(body: &str) -> Vec<u32> {
        let asm = format!(
            "OpCapability Addresses\n\
             OpCapability Kernel\n\
             OpCapability Int64\n\
             OpMemoryModel Physical64 OpenCL\n\
             OpEntryPoint Kernel %k \"k\"\n\
             %void = OpTypeVoid\n\
             %uint = OpTypeInt 32 0\n\
             %ulong = OpTypeInt 64 0\n\
             %uint_0 = OpConstant %uint 0\n\
             %uint_1 = OpConstant %uint 1\n\
             %uint_7 = OpConstant %uint 7\n\
             %pf = OpTypePointer Function %uint\n\
             %pg = OpTypePointer CrossWorkgroup %uint\n\
             %fn = OpTypeFunction %void %pg\n\
             %init = OpVariable %pf Function %uint_7\n\
             %k = OpFunction %void None %fn\n\
             %out = OpFunctionParameter %pg\n\
             %entry = OpLabel\n\
             {body}\
             OpReturn\n\
             OpFunctionEnd\n"
        );
        crate::tools::spirv_as(&asm, "spv1.0")
    }

    #[test]
    fn an_unwritten_variable_without_the_decoration_becomes_constant_data() {
        let words = module("%v = OpLoad %uint %init\nOpStore %out %v\n");
        let out = place_private_constants(&words)
            .expect("taken")
            .expect("changed");
        let text = rspirv::binary::Disassemble::disassemble(&rspirv::dr::load_words(&out).unwrap());
        assert!(text.contains("UniformConstant"), "{text}");
    }

    #[test]
    fn an_address_that_escapes_is_a_build_error() {
        for (body, want) in [
            (
                "%a = OpConvertPtrToU %ulong %init\nOpStore %out %uint_7\n",
                "not decorated Constant is used by OpConvertPtrToU",
            ),
            (
                "%x = OpAtomicIIncrement %uint %init %uint_1 %uint_0\nOpStore %out %x\n",
                "is used by OpAtomicIIncrement",
            ),
            (
                "OpAtomicStore %init %uint_1 %uint_0 %uint_7\n",
                "not decorated Constant is used by OpAtomicStore",
            ),
        ] {
            let e = place_private_constants(&module(body)).expect_err(body);
            assert!(e.contains(want), "{body}: {e}");
        }
    }

    #[test]
    fn a_written_one_is_a_build_error_naming_the_write() {
        let words = module("OpStore %init %uint_7\n");
        let e = place_private_constants(&words).expect_err("a written private variable");
        assert!(e.contains("is written (OpStore)"), "{e}");
    }
}
