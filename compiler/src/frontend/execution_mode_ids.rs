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
//! `kept_dispatch_modes` and `restore_dispatch_modes` carry the
//! SubgroupDispatch modes (SubgroupSize, SubgroupsPerWorkgroup), which
//! llvm-spirv-15 drops, across the front end's round trips through LLVM IR
//! (`make_il_reducible`, `il_math::link_il_math`): by entry-point name.
//!
//! Gaps: other modes taken by id (none is an OpenCL one) are reported.

use std::collections::HashMap;

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
    let mut int_width = HashMap::new();
    let mut constants = HashMap::new();
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

/// One kept execution mode: the entry point's name, the mode and its
/// literal operands.
pub type KeptMode = (String, u32, Vec<u32>);

/// The modes `restore_dispatch_modes` puts back.
const KEPT: [ExecutionMode; 2] = [
    ExecutionMode::SubgroupSize,
    ExecutionMode::SubgroupsPerWorkgroup,
];

/// The SubgroupDispatch modes of `words`' entry points (module docs).
pub fn kept_dispatch_modes(words: &[u32]) -> Vec<KeptMode> {
    let names = entry_names(words);
    instructions(words)
        .into_iter()
        .map(|(at, n)| &words[at..at + n])
        .filter(|w| {
            opcode(w[0]) == Op::ExecutionMode as u32
                && w.len() >= 3
                && KEPT.iter().any(|&m| m as u32 == w[2])
        })
        .filter_map(|w| Some((names.get(&w[1])?.clone(), w[2], w[3..].to_vec())))
        .collect()
}

/// `words` with the `kept` modes its entry points lack added after its
/// last entry point or execution mode (module docs).
pub fn restore_dispatch_modes(words: &[u32], kept: &[KeptMode]) -> Vec<u32> {
    let ids: HashMap<String, u32> = entry_names(words)
        .into_iter()
        .map(|(id, n)| (n, id))
        .collect();
    let insts = instructions(words);
    let present = kept_dispatch_modes(words);
    let mut added = Vec::new();
    for k in kept {
        if present.contains(k) {
            continue;
        }
        if let Some(&id) = ids.get(&k.0) {
            added.push(((3 + k.2.len() as u32) << 16) | Op::ExecutionMode as u32);
            added.extend([id, k.1]);
            added.extend(&k.2);
        }
    }
    if added.is_empty() {
        return words.to_vec();
    }
    let after = insts
        .iter()
        .filter(|&&(at, _)| {
            let op = opcode(words[at]);
            op == Op::EntryPoint as u32
                || op == Op::ExecutionMode as u32
                || op == Op::ExecutionModeId as u32
        })
        .map(|&(at, n)| at + n)
        .max()
        .unwrap_or(words.len());
    let mut out = words[..after].to_vec();
    out.extend(added);
    out.extend_from_slice(&words[after..]);
    out
}

/// Entry point function id → name.
fn entry_names(words: &[u32]) -> HashMap<u32, String> {
    instructions(words)
        .into_iter()
        .map(|(at, n)| &words[at..at + n])
        .filter(|w| opcode(w[0]) == Op::EntryPoint as u32 && w.len() >= 4)
        .map(|w| {
            let bytes: Vec<u8> = w[3..]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            (w[2], String::from_utf8_lossy(&bytes).into_owned())
        })
        .collect()
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
    fn dispatch_modes_survive_a_round_trip() {
        let name = u32::from_le_bytes(*b"k\0\0\0");
        let entry = inst(Op::EntryPoint, &[6, 1, name]);
        let size = ExecutionMode::SubgroupSize as u32;
        let count = ExecutionMode::SubgroupsPerWorkgroup as u32;
        let m = module(&[
            entry.clone(),
            inst(Op::ExecutionMode, &[1, size, 8]),
            inst(Op::ExecutionMode, &[1, count, 2]),
            inst(Op::TypeInt, &[10, 32, 0]),
        ]);
        let kept = kept_dispatch_modes(&m);
        assert_eq!(
            kept,
            vec![("k".into(), size, vec![8]), ("k".into(), count, vec![2])]
        );
        // After a round trip the function is %5 and one mode is lost.
        let trip = module(&[
            inst(Op::EntryPoint, &[6, 5, name]),
            inst(Op::ExecutionMode, &[5, size, 8]),
            inst(Op::TypeInt, &[10, 32, 0]),
        ]);
        let expected = module(&[
            inst(Op::EntryPoint, &[6, 5, name]),
            inst(Op::ExecutionMode, &[5, size, 8]),
            inst(Op::ExecutionMode, &[5, count, 2]),
            inst(Op::TypeInt, &[10, 32, 0]),
        ]);
        assert_eq!(restore_dispatch_modes(&trip, &kept), expected);
        assert_eq!(restore_dispatch_modes(&m, &kept), m);
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
