//! `check_il_structure`: the shape an application's SPIR-V module must
//! have before any pass reads it. The passes and the crates under them
//! (rspirv's decoder, spirt) index by word counts and ids and may panic
//! on a module that breaks these rules; ferrocl-ilfuzz found such modules
//! (a word count running past the end, ids at or beyond the bound). A
//! module that passes can still be invalid in other ways: those are
//! diagnosed by `diagnose_invalid_il` when a later stage fails.
//!
//! * the id bound is at least 1 and at most 0x3fffff (the universal limit);
//! * every instruction's word count is at least 1 and the instruction
//!   ends inside the module;
//! * every result id, result type and id operand (as rspirv's grammar
//!   reads the operands) is below the bound;
//! * LinkageAttributes decorates only functions and variables (spirv-val
//!   2023.1 lets others pass; spirt cannot read them);
//! * floats are 16, 32 or 64 bits wide and integers 8 to 64 (the
//!   lowering builds masks from the width; the SPIR-V extension for other
//!   widths is not taken), vectors have 2, 3, 4, 8 or 16 components (the
//!   lowering splits wide vectors into parts: a component count of 689
//!   million made the build run for minutes);
//! * every id used is defined, once, where SPIR-V lets it be used
//!   (`il_definitions`: definitions dominate their uses).

use std::ffi::OsStr;

use std::collections::HashSet;

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op};

use crate::tools::{self, run_tool, ScratchDir};

/// SPIR-V's universal limit on the id bound.
const MAX_BOUND: u32 = 0x3f_ffff;

/// Checks `words` (host order, header included); the message names the
/// first instruction at fault.
pub fn check_il_structure(words: &[u32]) -> Result<(), String> {
    check_il_stream(words)?;
    // The stream is sound: rspirv reads it without running off the end.
    check_il_ids(words)
}

/// The first rules: a header, a bound in range, every instruction's word
/// count at least 1 and inside the module. rspirv reads a module that
/// passes without running off its end.
pub fn check_il_stream(words: &[u32]) -> Result<(), String> {
    if words.len() < 5 {
        return Err("the module has no complete header".into());
    }
    let bound = words[3];
    if bound == 0 || bound > MAX_BOUND {
        return Err(format!("the id bound {bound} is out of range"));
    }
    let mut i = 5;
    let mut n = 0;
    while i < words.len() {
        let (op, count) = (words[i] & 0xffff, (words[i] >> 16) as usize);
        if count == 0 || i + count > words.len() {
            return Err(format!(
                "instruction {n} (opcode {op}, at word {i}) has word count {count}, \
                 but the module ends at word {}",
                words.len()
            ));
        }
        i += count;
        n += 1;
    }
    Ok(())
}

/// The rules after the stream's (`check_il_stream` passed).
fn check_il_ids(words: &[u32]) -> Result<(), String> {
    let bound = words[3];
    // What is read is what the compiler reads: the module without its
    // debug-information OpExtInst (rspirv refuses them at module scope,
    // where llvm-spirv-15 puts them for `-g`), merge instructions and
    // vloadn's literal (`strip_debug_ext_insts`). A module rspirv cannot
    // read goes on unchecked: rspirv 0.13 also refuses valid modules
    // (OpExecutionModeId, strings that are not UTF-8), which the build
    // takes after rewriting them (`il_program` checks the rewritten
    // module again); the others the build refuses when it reads them,
    // before spirt.
    let readable = crate::pipeline::strip_debug_ext_insts(words);
    let Ok(module) = rspirv::dr::load_words(&readable) else {
        return Ok(());
    };
    for inst in module.all_inst_iter() {
        let ids = inst
            .result_id
            .iter()
            .chain(inst.result_type.iter())
            .copied()
            .chain(inst.operands.iter().filter_map(|o| match o {
                Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) => {
                    Some(*id)
                }
                _ => None,
            }));
        for id in ids {
            if id == 0 || id >= bound {
                return Err(format!(
                    "Op{:?} uses id {id}, outside the module's bound {bound}",
                    inst.class.opcode
                ));
            }
        }
    }
    check_decorations(&module)?;
    super::il_definitions::check_id_definitions(&module)?;
    for t in &module.types_global_values {
        let (what, allowed): (&str, &[u32]) = match t.class.opcode {
            Op::TypeFloat => ("OpTypeFloat of width", &[16, 32, 64]),
            Op::TypeInt => ("OpTypeInt of width", &[8, 16, 32, 64]),
            Op::TypeVector => ("OpTypeVector of", &[2, 3, 4, 8, 16]),
            _ => continue,
        };
        let n = match (t.class.opcode, &t.operands[..]) {
            (Op::TypeVector, [_, Operand::LiteralBit32(n), ..]) => *n,
            (Op::TypeVector, _) => continue,
            (_, [Operand::LiteralBit32(w), ..]) => *w,
            _ => continue,
        };
        if !allowed.contains(&n) {
            let unit = if t.class.opcode == Op::TypeVector {
                " components"
            } else {
                ""
            };
            return Err(format!("{what} {n}{unit}"));
        }
    }
    Ok(())
}

/// LinkageAttributes decorates functions and variables only.
fn check_decorations(module: &rspirv::dr::Module) -> Result<(), String> {
    let linkable: HashSet<u32> = module
        .functions
        .iter()
        .filter_map(|f| f.def.as_ref()?.result_id)
        .chain(
            module
                .types_global_values
                .iter()
                .filter(|i| i.class.opcode == Op::Variable)
                .filter_map(|i| i.result_id),
        )
        .collect();
    for d in &module.annotations {
        let Some(Operand::IdRef(target)) = d.operands.first() else {
            continue;
        };
        let linkage = d
            .operands
            .contains(&Operand::Decoration(Decoration::LinkageAttributes));
        if d.class.opcode == Op::Decorate && linkage && !linkable.contains(target) {
            return Err(format!(
                "LinkageAttributes decorates %{target}, which is not a function or variable"
            ));
        }
    }
    Ok(())
}

/// When a build of an IL module fails inside the compiler: spirv-val's
/// verdict on the module as the application gave it (`il`), for the SPIR-V
/// version it declares. `Some(message)` when the module is invalid: the
/// failure is then the application's, and the message names the construct.
pub fn diagnose_invalid_il(il: &[u8], scratch: &ScratchDir) -> Option<String> {
    let words = tools::bytes_to_words(il)?;
    let minor = (words.get(1)? >> 8) & 0xff;
    let env = format!("spv1.{}", minor.min(6));
    let file = scratch.file("input-check.spv");
    std::fs::write(&file, tools::words_to_bytes(&words)).ok()?;
    let args = [
        OsStr::new("--target-env"),
        OsStr::new(&env),
        file.as_os_str(),
    ];
    let out = run_tool(tools::SPIRV_VAL, &args, &scratch.path).ok()?;
    if out.success {
        return None;
    }
    let msg = format!("{}{}", out.stdout, out.stderr);
    Some(msg.lines().take(3).collect::<Vec<_>>().join("\n"))
}
