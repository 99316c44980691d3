//! `resolve_execution_mode_ids`: an IL module's OpExecutionModeId (SPIR-V
//! 1.2) rewritten as the OpExecutionMode of the literal twin of its mode,
//! with the values of its constant operands: SubgroupsPerWorkgroupId →
//! SubgroupsPerWorkgroup, LocalSizeId → LocalSize, LocalSizeHintId →
//! LocalSizeHint. The rest of the compiler (rspirv's loader included,
//! which does not read OpExecutionModeId) sees literal modes only.
//!
//! It runs on the module as the application gave it, after
//! `freeze_spec_constants` made every specialization constant with a
//! SpecId a plain OpConstant, so an operand that is still not an
//! OpConstant of an integer type (an OpSpecConstantOp, say) is reported.
//!
//! Gaps: other modes taken by id (none is an OpenCL one) are reported.

use rspirv::spirv::{ExecutionMode, Op};

/// The module with its OpExecutionModeIds rewritten (module docs), or
/// `None` when it has none.
pub fn resolve_execution_mode_ids(words: &[u32]) -> Result<Option<Vec<u32>>, String> {
    let insts = instructions(words);
    if !insts
        .iter()
        .any(|&(at, _)| opcode(words[at]) == Op::ExecutionModeId as u32)
    {
        return Ok(None);
    }
    // Integer types (id → width) and their constants (id → low word).
    let mut int_width = std::collections::HashMap::new();
    let mut constants = std::collections::HashMap::new();
    for &(at, n) in &insts {
        let w = &words[at..at + n];
        if opcode(w[0]) == Op::TypeInt as u32 && n >= 3 {
            int_width.insert(w[1], w[2]);
        } else if opcode(w[0]) == Op::Constant as u32 && n >= 4 {
            if let Some(&width) = int_width.get(&w[1]) {
                constants.insert(w[2], (width, w[3]));
            }
        }
    }
    let mut out = words[..5].to_vec();
    for &(at, n) in &insts {
        let w = &words[at..at + n];
        if opcode(w[0]) != Op::ExecutionModeId as u32 || n < 3 {
            out.extend_from_slice(w);
            continue;
        }
        let literal = match w[2] {
            m if m == ExecutionMode::SubgroupsPerWorkgroupId as u32 => {
                ExecutionMode::SubgroupsPerWorkgroup
            }
            m if m == ExecutionMode::LocalSizeId as u32 => ExecutionMode::LocalSize,
            m if m == ExecutionMode::LocalSizeHintId as u32 => ExecutionMode::LocalSizeHint,
            m => {
                return Err(format!(
                    "OpExecutionModeId with execution mode {m} is not supported"
                ))
            }
        };
        out.push((n as u32) << 16 | Op::ExecutionMode as u32);
        out.push(w[1]);
        out.push(literal as u32);
        for &id in &w[3..] {
            match constants.get(&id) {
                Some(&(width, value)) if width <= 32 => out.push(value),
                _ => {
                    return Err(format!(
                        "OpExecutionModeId {literal:?}Id: operand %{id} is not a 32-bit integer \
                         constant"
                    ))
                }
            }
        }
    }
    Ok(Some(out))
}

fn opcode(word: u32) -> u32 {
    word & 0xffff
}

/// (start, word count) of each instruction after the header; the stream is
/// sound (`il_structure::check_il_structure` ran before).
fn instructions(words: &[u32]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        if n == 0 || i + n > words.len() {
            break;
        }
        v.push((i, n));
        i += n;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(op: Op, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | op as u32];
        v.extend_from_slice(operands);
        v
    }

    fn module(body: &[Vec<u32>]) -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0200, 0, 100, 0];
        for i in body {
            w.extend(i);
        }
        w
    }

    #[test]
    fn id_modes_become_literal_modes() {
        let m = module(&[
            inst(
                Op::ExecutionModeId,
                &[1, ExecutionMode::SubgroupsPerWorkgroupId as u32, 11],
            ),
            inst(
                Op::ExecutionModeId,
                &[1, ExecutionMode::LocalSizeId as u32, 11, 12, 12],
            ),
            inst(Op::TypeInt, &[10, 32, 0]),
            inst(Op::Constant, &[10, 11, 3]),
            inst(Op::Constant, &[10, 12, 1]),
        ]);
        let out = resolve_execution_mode_ids(&m).unwrap().unwrap();
        let expected = module(&[
            inst(
                Op::ExecutionMode,
                &[1, ExecutionMode::SubgroupsPerWorkgroup as u32, 3],
            ),
            inst(
                Op::ExecutionMode,
                &[1, ExecutionMode::LocalSize as u32, 3, 1, 1],
            ),
            inst(Op::TypeInt, &[10, 32, 0]),
            inst(Op::Constant, &[10, 11, 3]),
            inst(Op::Constant, &[10, 12, 1]),
        ]);
        assert_eq!(out, expected);
    }

    #[test]
    fn modules_without_them_are_kept() {
        let m = module(&[inst(Op::TypeInt, &[10, 32, 0])]);
        assert_eq!(resolve_execution_mode_ids(&m), Ok(None));
    }

    #[test]
    fn non_constant_operands_are_reported() {
        let m = module(&[
            inst(
                Op::ExecutionModeId,
                &[1, ExecutionMode::SubgroupsPerWorkgroupId as u32, 11],
            ),
            inst(Op::TypeInt, &[10, 32, 0]),
            inst(Op::SpecConstantOp, &[10, 11, 128, 12, 12]),
        ]);
        let e = resolve_execution_mode_ids(&m).unwrap_err();
        assert!(e.contains("%11"), "{e}");
    }
}
