//! The application's specialization constants of an IL program
//! (clSetProgramSpecializationConstant), applied to the OpenCL SPIR-V
//! before it enters the pipeline.
//!
//! `spec_constant_sizes` lists the module's `SpecId`s with the byte size
//! clSetProgramSpecializationConstant expects (1 for a boolean, the type's
//! width otherwise). `freeze_spec_constants` turns every scalar
//! `OpSpecConstant{,True,False}` that carries a `SpecId` into the plain
//! constant of the application's value (or of its default when none was
//! set) and drops its `SpecId` decoration.
//!
//! Freezing all of them, set or not, keeps the application's SpecIds out of
//! the lowered module, where SpecIds 0-5 and 8+ belong to ferrocl's own
//! work-group size and `__local` argument constants (see `abi`). An
//! OpenCL program is specialized once per clBuildProgram anyway: a later
//! clSetProgramSpecializationConstant only affects the next build.
//!
//! Gaps: `OpSpecConstantComposite` and `OpSpecConstantOp` are left as they
//! are (their operands become plain constants); the pipeline does not take
//! `OpSpecConstantOp` in the application's module.

use std::collections::HashMap;

use crate::tools::{bytes_to_words, words_to_bytes};

const OP_DECORATE: u32 = 71;
const OP_TYPE_BOOL: u32 = 20;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_CONSTANT_TRUE: u32 = 41;
const OP_CONSTANT_FALSE: u32 = 42;
const OP_CONSTANT: u32 = 43;
const OP_SPEC_CONSTANT_TRUE: u32 = 48;
const OP_SPEC_CONSTANT_FALSE: u32 = 49;
const OP_SPEC_CONSTANT: u32 = 50;
const DECORATION_SPEC_ID: u32 = 1;

/// One instruction: (opcode, word range in the module).
fn instructions(words: &[u32]) -> Option<Vec<(u32, std::ops::Range<usize>)>> {
    crate::tools::instructions(words)
        .map(|r| {
            r.ok()
                .map(|(i, inst)| (inst[0] & 0xffff, i..i + inst.len()))
        })
        .collect()
}

/// A scalar specialization constant with a SpecId.
struct SpecConstant {
    /// Word index of the instruction.
    at: usize,
    /// Its SpecId.
    spec_id: u32,
    /// Byte size as the application gives the value.
    size: usize,
}

/// The module's words and its SpecId-decorated scalar spec constants.
fn scan(il: &[u8]) -> Option<(Vec<u32>, Vec<SpecConstant>)> {
    let words = bytes_to_words(il)?;
    let insts = instructions(&words)?;
    let mut spec_ids: HashMap<u32, u32> = HashMap::new();
    // Result id of a type → byte size (0 for bool).
    let mut type_size: HashMap<u32, usize> = HashMap::new();
    for (op, r) in &insts {
        let w = &words[r.clone()];
        match *op {
            OP_DECORATE if w.len() >= 4 && w[2] == DECORATION_SPEC_ID => {
                spec_ids.insert(w[1], w[3]);
            }
            OP_TYPE_BOOL if w.len() >= 2 => {
                type_size.insert(w[1], 1);
            }
            OP_TYPE_INT | OP_TYPE_FLOAT if w.len() >= 3 => {
                type_size.insert(w[1], (w[2] as usize).div_ceil(8));
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    for (op, r) in &insts {
        let w = &words[r.clone()];
        if !matches!(
            *op,
            OP_SPEC_CONSTANT | OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE
        ) || w.len() < 3
        {
            continue;
        }
        let (Some(&spec_id), Some(&size)) = (spec_ids.get(&w[2]), type_size.get(&w[1])) else {
            continue;
        };
        found.push(SpecConstant {
            at: r.start,
            spec_id,
            size,
        });
    }
    Some((words, found))
}

/// SpecId → the byte size clSetProgramSpecializationConstant takes for it
/// (1 for a boolean). None when `il` is not a readable SPIR-V module.
pub fn spec_constant_sizes(il: &[u8]) -> Option<HashMap<u32, usize>> {
    let (_, found) = scan(il)?;
    Some(found.into_iter().map(|c| (c.spec_id, c.size)).collect())
}

/// `il` with every SpecId-decorated scalar spec constant replaced by a
/// plain constant: `values[spec_id]` (little-endian bytes of the constant's
/// size; for a boolean one byte, non-zero is true) or the module's default.
/// Returns little-endian SPIR-V, or None when `il` is not readable.
pub fn freeze_spec_constants(il: &[u8], values: &HashMap<u32, Vec<u8>>) -> Option<Vec<u8>> {
    let (mut words, found) = scan(il)?;
    let mut frozen_ids = Vec::new();
    for c in &found {
        let op = words[c.at] & 0xffff;
        let count = (words[c.at] >> 16) as usize;
        frozen_ids.push(words[c.at + 2]);
        let value = values.get(&c.spec_id);
        if op == OP_SPEC_CONSTANT {
            // Literal words of the value, low-order word first; narrower
            // types zero-extended into their one word.
            if let Some(bytes) = value {
                for (k, slot) in words[c.at + 3..c.at + count].iter_mut().enumerate() {
                    let mut b = [0u8; 4];
                    for (j, byte) in b.iter_mut().enumerate() {
                        *byte = bytes.get(k * 4 + j).copied().unwrap_or(0);
                    }
                    *slot = u32::from_le_bytes(b);
                }
            }
            words[c.at] = (words[c.at] & 0xffff_0000) | OP_CONSTANT;
        } else {
            let truth = match value {
                Some(bytes) => bytes.iter().any(|&b| b != 0),
                None => op == OP_SPEC_CONSTANT_TRUE,
            };
            let new = if truth {
                OP_CONSTANT_TRUE
            } else {
                OP_CONSTANT_FALSE
            };
            words[c.at] = (words[c.at] & 0xffff_0000) | new;
        }
    }
    // Drop the SpecId decorations of the frozen constants.
    let insts = instructions(&words)?;
    let mut out = words[..5].to_vec();
    for (op, r) in insts {
        let w = &words[r.clone()];
        if op == OP_DECORATE
            && w.len() >= 4
            && w[2] == DECORATION_SPEC_ID
            && frozen_ids.contains(&w[1])
        {
            continue;
        }
        out.extend_from_slice(w);
    }
    Some(words_to_bytes(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | op];
        v.extend_from_slice(operands);
        v
    }

    /// %2 int32, %3 int64, %4 bool, %5 int8; spec constants %10 (SpecId 0,
    /// 7), %11 (SpecId 8, 1<<40), %12 (SpecId 100, false), %13 (SpecId 3,
    /// 200), and %14 without a SpecId.
    fn module() -> Vec<u8> {
        let mut w = vec![0x0723_0203, 0x0001_0000, 0, 20, 0];
        w.extend(inst(OP_DECORATE, &[10, DECORATION_SPEC_ID, 0]));
        w.extend(inst(OP_DECORATE, &[11, DECORATION_SPEC_ID, 8]));
        w.extend(inst(OP_DECORATE, &[12, DECORATION_SPEC_ID, 100]));
        w.extend(inst(OP_DECORATE, &[13, DECORATION_SPEC_ID, 3]));
        w.extend(inst(OP_TYPE_INT, &[2, 32, 0]));
        w.extend(inst(OP_TYPE_INT, &[3, 64, 0]));
        w.extend(inst(OP_TYPE_BOOL, &[4]));
        w.extend(inst(OP_TYPE_INT, &[5, 8, 0]));
        w.extend(inst(OP_SPEC_CONSTANT, &[2, 10, 7]));
        w.extend(inst(OP_SPEC_CONSTANT, &[3, 11, 0, 1 << 8]));
        w.extend(inst(OP_SPEC_CONSTANT_FALSE, &[4, 12]));
        w.extend(inst(OP_SPEC_CONSTANT, &[5, 13, 200]));
        w.extend(inst(OP_SPEC_CONSTANT, &[2, 14, 9]));
        words_to_bytes(&w)
    }

    #[test]
    fn sizes_by_spec_id() {
        let sizes = spec_constant_sizes(&module()).unwrap();
        let want: HashMap<u32, usize> = [(0, 4), (8, 8), (100, 1), (3, 1)].into_iter().collect();
        assert_eq!(sizes, want);
    }

    #[test]
    fn freezes_set_and_default_values() {
        let values: HashMap<u32, Vec<u8>> = [
            (0, 0xdead_beefu32.to_le_bytes().to_vec()),
            (100, vec![1]),
            (3, vec![0xfe]),
        ]
        .into_iter()
        .collect();
        let out = freeze_spec_constants(&module(), &values).unwrap();
        let words = bytes_to_words(&out).unwrap();
        let insts = instructions(&words).unwrap();
        let body: Vec<Vec<u32>> = insts
            .iter()
            .map(|(_, r)| words[r.clone()].to_vec())
            .collect();
        // No SpecId decoration is left.
        assert!(!body.iter().any(|w| w[0] & 0xffff == OP_DECORATE));
        assert!(body.contains(&inst(OP_CONSTANT, &[2, 10, 0xdead_beef])));
        // Not set: its default.
        assert!(body.contains(&inst(OP_CONSTANT, &[3, 11, 0, 1 << 8])));
        assert!(body.contains(&inst(OP_CONSTANT_TRUE, &[4, 12])));
        assert!(body.contains(&inst(OP_CONSTANT, &[5, 13, 0xfe])));
        // A spec constant without SpecId is not the application's to set.
        assert!(body.contains(&inst(OP_SPEC_CONSTANT, &[2, 14, 9])));
    }

    #[test]
    fn unreadable_module() {
        assert!(spec_constant_sizes(&[1, 2, 3]).is_none());
        assert!(freeze_spec_constants(&[0; 24], &HashMap::new()).is_none());
    }
}
