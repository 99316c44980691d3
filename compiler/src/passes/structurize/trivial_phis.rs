//! Trivial phis removed before spirt structurizes the module: a phi whose
//! incoming values are one value `v`, apart from the phi itself (`r =
//! phi(v, v)`, or `r = phi(v, r)` on a loop's back edge), is `v`; its uses
//! read `v` and the phi goes, repeated until no such phi is left (removing
//! one can make another trivial).
//!
//! Why: spirt 0.4's `structurize_func_cfgs` gave a merge block's phi the
//! loop-exit value of another phi of that block when the loop carried such
//! trivial phis (GPU fuzz sample seed 7008 p900051 with the program's
//! functions inlined: `h = phi(h0, v5)` instead of `phi(h0, h)`, an
//! `OpPhi %ulong` with a `%uint` incoming, which spirv-val rejects). With
//! the trivial phis gone the module comes back right.
//!
//! A trivial phi's one value dominates the phi (it reaches the phi along
//! every edge into its block), so every use of the phi may read it.
//!
//! `structurize_cfgs` checks the raw words first ([`has_trivial_phi`]) and
//! parses and reassembles only a module that has one.

use std::collections::HashMap;

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Op, Word};

/// The one value of a phi `result` whose incoming values are `incoming`
/// (itself not counted), if it is trivial.
fn trivial_value(result: Word, incoming: impl Iterator<Item = Word>) -> Option<Word> {
    let mut only = None;
    for v in incoming {
        if v == result || only == Some(v) {
            continue;
        }
        if only.is_some() {
            return None;
        }
        only = Some(v);
    }
    only
}

/// Whether the module's words hold a trivial phi: a walk over the raw
/// instructions, so that the modules without one (nearly all) are not
/// parsed for nothing.
pub fn has_trivial_phi(words: &[u32]) -> bool {
    crate::tools::instructions(words).any(|inst| match inst {
        Ok((_, w)) if w[0] & 0xffff == Op::Phi as u32 && w.len() >= 5 => {
            trivial_value(w[2], w[3..].iter().step_by(2).copied()).is_some()
        }
        _ => false,
    })
}

/// `v` after the replacements of `map` (whose chains end: a value is
/// mapped only to one that was not mapped yet).
fn resolve(map: &HashMap<Word, Word>, mut v: Word) -> Word {
    while let Some(&w) = map.get(&v) {
        v = w;
    }
    v
}

/// Removes the trivial phis of every function in `module`; returns how
/// many went. Each round finds the trivial phis of a function, reading
/// earlier finds of the round through their replacements, then removes
/// them and rewrites every use in one sweep; rounds repeat until one finds
/// nothing (a phi before the one whose removal makes it trivial).
pub fn remove_trivial_phis(module: &mut Module) -> usize {
    let mut gone: Vec<Word> = Vec::new();
    for f in &mut module.functions {
        loop {
            let mut map: HashMap<Word, Word> = HashMap::new();
            for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
                let Some(r) = inst.result_id.filter(|_| inst.class.opcode == Op::Phi) else {
                    continue;
                };
                let ids: Option<Vec<Word>> = inst
                    .operands
                    .iter()
                    .step_by(2)
                    .map(|o| o.id_ref_any().map(|v| resolve(&map, v)))
                    .collect();
                if let Some(v) = ids.and_then(|ids| trivial_value(r, ids.into_iter())) {
                    map.insert(r, v);
                }
            }
            if map.is_empty() {
                break;
            }
            for b in &mut f.blocks {
                b.instructions.retain(|i| {
                    !(i.class.opcode == Op::Phi
                        && i.result_id.is_some_and(|r| map.contains_key(&r)))
                });
                for o in b.instructions.iter_mut().flat_map(|i| &mut i.operands) {
                    if let Operand::IdRef(id) = o {
                        *id = resolve(&map, *id);
                    }
                }
            }
            gone.extend(map.keys());
        }
    }
    if !gone.is_empty() {
        // Names and decorations of the removed ids go with them.
        let removed =
            |o: Option<&Operand>| matches!(o, Some(Operand::IdRef(id)) if gone.contains(id));
        module.debug_names.retain(|i| !removed(i.operands.first()));
        module.annotations.retain(|i| !removed(i.operands.first()));
    }
    gone.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` assembled by spirv-as.
    fn module(text: &str) -> Module {
        let words = crate::tools::spirv_as(text, "spv1.2");
        rspirv::dr::load_words(&words).expect("rspirv reads it")
    }

    /// The id OpName gives `name`.
    fn id(m: &Module, name: &str) -> Word {
        m.debug_names
            .iter()
            .find(|i| matches!(i.operands.get(1), Some(Operand::LiteralString(s)) if s == name))
            .and_then(|i| i.operands[0].id_ref_any())
            .unwrap_or_else(|| panic!("no OpName {name}"))
    }

    const LOOP: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %f "f"
               OpName %a "a"
               OpName %b "b"
               OpName %i "i"
               OpName %x "x"
               OpName %s "s"
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
         %fn = OpTypeFunction %void %uint
          %f = OpFunction %void None %fn
          %x = OpFunctionParameter %uint
      %entry = OpLabel
               OpBranch %head
       %head = OpLabel
          %a = OpPhi %uint %x %entry %b %latch
          %i = OpPhi %uint %uint_0 %entry %j %latch
          %c = OpULessThan %bool %i %x
               OpLoopMerge %exit %latch None
               OpBranchConditional %c %body %exit
       %body = OpLabel
               OpBranch %latch
      %latch = OpLabel
          %b = OpPhi %uint %a %body
          %j = OpIAdd %uint %i %uint_1
               OpBranch %head
       %exit = OpLabel
          %s = OpIAdd %uint %a %i
               OpReturn
               OpFunctionEnd
"#;

    #[test]
    fn loop_carried_copies_become_their_value() {
        let mut m = module(LOOP);
        assert!(has_trivial_phi(&crate::tools::spirv_as(LOOP, "spv1.2")));
        let (a, b, i, x, s) = (
            id(&m, "a"),
            id(&m, "b"),
            id(&m, "i"),
            id(&m, "x"),
            id(&m, "s"),
        );
        assert_eq!(
            remove_trivial_phis(&mut m),
            2,
            "b = phi(a), then a = phi(x, a)"
        );
        let insts: Vec<_> = m.functions[0]
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .collect();
        let phis: Vec<Word> = insts
            .iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .filter_map(|i| i.result_id)
            .collect();
        assert_eq!(phis, vec![i], "only the counter's phi is left");
        let sum = insts.iter().find(|i| i.result_id == Some(s)).unwrap();
        assert_eq!(
            sum.operands,
            vec![Operand::IdRef(x), Operand::IdRef(i)],
            "the use of a reads x"
        );
        assert!(
            insts
                .iter()
                .all(|i| !i.operands.contains(&Operand::IdRef(a))
                    && !i.operands.contains(&Operand::IdRef(b))),
            "no use of a or b is left"
        );
        assert!(!has_trivial_phi(&rspirv::binary::Assemble::assemble(&m)));
        assert!(m
            .debug_names
            .iter()
            .all(|n| n.operands[0] != Operand::IdRef(a)));
    }
}
