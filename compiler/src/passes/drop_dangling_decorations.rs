//! `drop_dangling_decorations`: removes decorations and debug names whose
//! target id the module never defines.
//!
//! llvm-spirv-15 leaves such decorations behind when LLVM's optimizer has
//! folded the value they were written for: e.g. `convert_short3_sat` of a
//! comparison folded to a constant keeps its `OpDecorate %id
//! SaturatedConversion` while `%id` is gone. (It also writes the decoration of a
//! conversion used before its definition, by a loop header's `phi`, on the
//! forward reference's placeholder id: that conversion would lose its
//! saturation here, so the front end defines the integer saturating
//! conversions itself, `frontend::saturate`.) SPIR-V calls such a module
//! invalid, and spirt refuses to read it ("decorated IDs never defined"),
//! which failed the build with an internal compiler error. A decoration of
//! nothing says nothing, so dropping it changes no behaviour. The same
//! holds for a decoration or name of an OpExtInstImport or OpString
//! result, which spirt does not count as defined either.
//!
//! Algorithm: one scan of the words collects every result id (from the
//! grammar's operand table) and the targets of `OpDecorate`,
//! `OpMemberDecorate`, `OpDecorateId`, `OpDecorateString`,
//! `OpMemberDecorateString`, `OpName` and `OpMemberName`; only a module
//! with a target that is never defined is rewritten (the others are
//! returned untouched, `None`), dropping exactly those instructions.
//! Decoration groups are expanded before this pass
//! (`pipeline::expand_decoration_groups`).

use std::collections::HashSet;

use rspirv::grammar::{Instruction, OperandKind, INSTRUCTION_TABLE};
use rspirv::spirv::Op;

use crate::tools;

/// The instructions whose first operand is the id they describe.
const TARGETED: [Op; 7] = [
    Op::Decorate,
    Op::MemberDecorate,
    Op::DecorateId,
    Op::DecorateString,
    Op::MemberDecorateString,
    Op::Name,
    Op::MemberName,
];

/// Results spirt does not count as defined values: a decoration or name
/// of one is dangling too (ferrocl-ilfuzz made such modules; spirv-val
/// lets them pass).
const NOT_VALUES: [Op; 2] = [Op::ExtInstImport, Op::String];

pub fn drop_dangling_decorations(words: &[u32]) -> Result<Option<Vec<u32>>, String> {
    if words.len() < 5 {
        return Ok(None);
    }
    let insts: Vec<(usize, &[u32])> = tools::instructions(words).map_while(Result::ok).collect();
    let mut defined = HashSet::new();
    let mut targets = Vec::new();
    for &(at, inst) in &insts {
        let Some(grammar) = INSTRUCTION_TABLE.lookup_opcode(inst[0] & 0xffff) else {
            // An instruction rspirv does not know may define an id: leave
            // the module as it is.
            return Ok(None);
        };
        if TARGETED.contains(&grammar.opcode) {
            if let Some(&target) = inst.get(1) {
                targets.push((at, target));
            }
        } else if let Some(id) = result_id(grammar, inst) {
            if !NOT_VALUES.contains(&grammar.opcode) {
                defined.insert(id);
            }
        }
    }
    let dangling: HashSet<usize> = targets
        .iter()
        .filter(|(_, target)| !defined.contains(target))
        .map(|&(at, _)| at)
        .collect();
    if dangling.is_empty() {
        return Ok(None);
    }
    let mut out = words[..5].to_vec();
    for &(at, inst) in &insts {
        if !dangling.contains(&at) {
            out.extend_from_slice(inst);
        }
    }
    Ok(Some(out))
}

/// The result id `inst` defines, if any: the grammar puts it first, or
/// second after a result type.
fn result_id(grammar: &Instruction<'_>, inst: &[u32]) -> Option<u32> {
    let mut operand = 1;
    for logical in grammar.operands.iter().take(2) {
        match logical.kind {
            OperandKind::IdResultType => operand += 1,
            OperandKind::IdResult => return inst.get(operand).copied(),
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::binary::Assemble;
    use rspirv::dr::{Builder, Operand};
    use rspirv::spirv::{AddressingModel, Capability, Decoration, MemoryModel};

    fn module(dangling: bool) -> Vec<u32> {
        let mut b = Builder::new();
        b.capability(Capability::Kernel);
        b.capability(Capability::Addresses);
        b.memory_model(AddressingModel::Physical64, MemoryModel::OpenCL);
        let int = b.type_int(32, 0);
        let c = b.constant_bit32(int, 7);
        b.decorate(c, Decoration::RelaxedPrecision, []);
        b.name(c, "seven");
        if dangling {
            b.decorate(1000, Decoration::SaturatedConversion, []);
            b.name(1000, "gone");
            b.member_decorate(1001, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        }
        b.module().assemble()
    }

    #[test]
    fn drops_only_what_targets_nothing() {
        let clean = module(false);
        assert_eq!(drop_dangling_decorations(&clean), Ok(None));
        let out = drop_dangling_decorations(&module(true)).unwrap().unwrap();
        assert_eq!(out, clean);
    }
}
