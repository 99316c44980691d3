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

use std::collections::HashMap;

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Op, Word};

/// Removes the trivial phis of every function in `module`; returns how
/// many went.
pub fn remove_trivial_phis(module: &mut Module) -> usize {
    let mut removed = 0;
    let mut replaced: HashMap<Word, Word> = HashMap::new();
    for f in &mut module.functions {
        loop {
            let mut found: Option<(Word, Word)> = None;
            'search: for b in &f.blocks {
                for inst in &b.instructions {
                    if inst.class.opcode != Op::Phi {
                        continue;
                    }
                    let Some(r) = inst.result_id else { continue };
                    let mut only: Option<Word> = None;
                    let mut trivial = true;
                    for pair in inst.operands.chunks(2) {
                        let Some(Operand::IdRef(v)) = pair.first() else {
                            trivial = false;
                            break;
                        };
                        if *v == r || only == Some(*v) {
                            continue;
                        }
                        if only.is_some() {
                            trivial = false;
                            break;
                        }
                        only = Some(*v);
                    }
                    if let (true, Some(v)) = (trivial, only) {
                        found = Some((r, v));
                        break 'search;
                    }
                }
            }
            let Some((r, v)) = found else { break };
            for b in &mut f.blocks {
                b.instructions
                    .retain(|i| !(i.class.opcode == Op::Phi && i.result_id == Some(r)));
                for inst in &mut b.instructions {
                    for o in &mut inst.operands {
                        if *o == Operand::IdRef(r) {
                            *o = Operand::IdRef(v);
                        }
                    }
                }
            }
            replaced.insert(r, v);
            removed += 1;
        }
    }
    if !replaced.is_empty() {
        // Names and decorations of the removed ids go with them.
        let gone = |o: Option<&Operand>| matches!(o, Some(Operand::IdRef(id)) if replaced.contains_key(id));
        module.debug_names.retain(|i| !gone(i.operands.first()));
        module.annotations.retain(|i| !gone(i.operands.first()));
    }
    removed
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
        assert!(m
            .debug_names
            .iter()
            .all(|n| n.operands[0] != Operand::IdRef(a)));
    }
}
