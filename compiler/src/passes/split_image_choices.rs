//! `split_image_choices`: an image or sampler chosen at run time (an
//! `OpPhi` or `OpSelect` of images or samplers) becomes a choice of which
//! one, an integer, and each instruction that uses the chosen value is
//! made once per candidate, in the cases of an `OpSwitch` on that integer.
//!
//! Why: Vulkan has no image or sampler values to choose between (a shader
//! loads them from descriptors, and `OpPhi` / `OpSelect` of them is not
//! allowed), yet ordinary OpenCL C makes such choices: LLVM sinks the
//! `read_imagef` of a `switch` whose cases read different images into one
//! call on a phi of the images (darktable's `rawprepare_1f_gainmap`), and
//! a run-time pick of one of several image arguments passed on to a helper
//! makes a phi too (darktable's `laplacian_assemble`). Once split, every
//! image/sampler value has one origin (`analyses::image_origins`), and
//! `specialize_image_calls` clones the helpers per image.
//!
//! # Algorithm (per function; before `structurize_cfgs`, which structures
//! the switches)
//!
//! 1. The *choices* are the phis and selects of image, sampler or
//!    sampled-image type; their *candidates* are the values they choose
//!    from, through nested choices: function parameters and
//!    `OpConstantSampler`s, which dominate every use. Each candidate gets
//!    a number; each choice becomes an `OpPhi` / `OpSelect` of `uint`
//!    (keeping its id) of the candidates' numbers and nested choices.
//! 2. Values *derived* from a choice (`OpSampledImage`, `OpImage`,
//!    `OpCopyObject` of image type) are removed and made again where used.
//! 3. Each other instruction that uses a choice or a derived value (a
//!    read, write, query or call) ends its block: the block switches on
//!    the choice to one block per candidate, which makes the derived
//!    values and the instruction with that candidate, and all branch to a
//!    new block that takes the result (an `OpPhi` with the instruction's
//!    id) and the rest of the original block.
//!
//! Gaps (left alone, so the lowering reports "an image chosen at run
//! time"): candidates other than parameters and literal samplers (images
//! loaded from variables at -O0), an instruction whose operands depend on
//! two different choices, images stored to memory, and a use in a block
//! with an `OpLoopMerge`.

use std::collections::{HashMap, HashSet};

use rspirv::binary::Assemble;
use rspirv::dr::{Block, Function, Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::module_edit::{fresh_id, global};

/// Rewrites `words`; `Ok(None)` when no function chooses an image or
/// sampler at run time.
pub fn split_image_choices(words: &[u32]) -> Result<Option<Vec<u32>>, String> {
    let mut module = rspirv::dr::load_words(words)
        .map_err(|e| format!("cannot parse the SPIR-V module: {e}"))?;
    let opaque: HashSet<Word> = module
        .types_global_values
        .iter()
        .filter(|i| {
            matches!(
                i.class.opcode,
                Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage
            )
        })
        .filter_map(|i| i.result_id)
        .collect();
    if opaque.is_empty() {
        return Ok(None);
    }
    let is_choice = |i: &Instruction| {
        matches!(i.class.opcode, Op::Phi | Op::Select)
            && i.result_type.is_some_and(|t| opaque.contains(&t))
    };
    if !module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .any(is_choice)
    {
        return Ok(None);
    }
    let samplers: HashSet<Word> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::ConstantSampler)
        .filter_map(|i| i.result_id)
        .collect();
    let uint = global(
        &mut module,
        Op::TypeInt,
        None,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    );
    let mut removed = HashSet::new();
    let mut changed = false;
    for f in 0..module.functions.len() {
        let func = std::mem::take(&mut module.functions[f]);
        match split_function(&mut module, func.clone(), &opaque, &samplers, uint) {
            Some((new, gone)) => {
                module.functions[f] = new;
                removed.extend(gone);
                changed = true;
            }
            None => module.functions[f] = func,
        }
    }
    if !changed {
        return Ok(None);
    }
    let dangling = |i: &Instruction| {
        i.operands
            .first()
            .and_then(|o| o.id_ref_any())
            .is_some_and(|t| removed.contains(&t))
    };
    module.debug_names.retain(|i| !dangling(i));
    module.annotations.retain(|i| !dangling(i));
    Ok(Some(module.assemble()))
}

/// A function's choices, in definition order, with their candidates.
struct Choices {
    /// Choice id → its candidates (parameters, literal samplers).
    candidates: HashMap<Word, Vec<Word>>,
    /// Candidate → its number in this function.
    number: HashMap<Word, u32>,
}

/// `None` when the function has no choice or one of the gaps.
fn split_function(
    module: &mut Module,
    mut func: Function,
    opaque: &HashSet<Word>,
    samplers: &HashSet<Word>,
    uint: Word,
) -> Option<(Function, Vec<Word>)> {
    let void: HashSet<Word> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeVoid)
        .filter_map(|i| i.result_id)
        .collect();
    let params: HashSet<Word> = func.parameters.iter().filter_map(|p| p.result_id).collect();
    let defs: HashMap<Word, Instruction> = func
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter_map(|i| Some((i.result_id?, i.clone())))
        .collect();
    let choice_ids: Vec<Word> = func
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| {
            matches!(i.class.opcode, Op::Phi | Op::Select)
                && i.result_type.is_some_and(|t| opaque.contains(&t))
        })
        .filter_map(|i| i.result_id)
        .collect();
    if choice_ids.is_empty() {
        return None;
    }
    let choice_set: HashSet<Word> = choice_ids.iter().copied().collect();
    let mut ch = Choices {
        candidates: HashMap::new(),
        number: HashMap::new(),
    };
    for &c in &choice_ids {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        candidates_of(c, &defs, &choice_set, &mut seen, &mut out)?;
        for &v in &out {
            if !params.contains(&v) && !samplers.contains(&v) {
                return None;
            }
            let n = ch.number.len() as u32;
            ch.number.entry(v).or_insert(n);
        }
        ch.candidates.insert(c, out);
    }
    // Derived values: opaque results computed from a choice.
    let mut derived: HashMap<Word, Word> = HashMap::new(); // value → its choice
    let mut recipes: HashMap<Word, Instruction> = HashMap::new();
    for i in func.blocks.iter().flat_map(|b| &b.instructions) {
        if choice_set.contains(&i.result_id.unwrap_or(0)) {
            continue;
        }
        let roots = roots_of(i, &choice_set, &derived);
        if roots.len() > 1 {
            return None;
        }
        if let (Some(&c), Some(id)) = (roots.first(), i.result_id) {
            if i.result_type.is_some_and(|t| opaque.contains(&t)) {
                if !matches!(
                    i.class.opcode,
                    Op::SampledImage | Op::Image | Op::CopyObject
                ) {
                    return None;
                }
                derived.insert(id, c);
                recipes.insert(id, i.clone());
            }
        }
        if i.class.opcode == Op::Store && !roots.is_empty() {
            return None;
        }
    }
    // 1. Choices become integers.
    for b in &mut func.blocks {
        for i in &mut b.instructions {
            if !choice_set.contains(&i.result_id.unwrap_or(0)) {
                continue;
            }
            i.result_type = Some(uint);
            let first = usize::from(i.class.opcode == Op::Select);
            for (k, o) in i.operands.iter_mut().enumerate() {
                let is_value = if i.class.opcode == Op::Phi {
                    k % 2 == 0
                } else {
                    k >= first
                };
                let Some(v) = o.id_ref_any().filter(|_| is_value) else {
                    continue;
                };
                if !choice_set.contains(&v) {
                    let n = ch.number[&v];
                    *o = Operand::IdRef(global(
                        module,
                        Op::Constant,
                        Some(uint),
                        vec![Operand::LiteralBit32(n)],
                    ));
                }
            }
        }
    }
    // 2. and 3.
    let mut blocks = Vec::new();
    let mut renamed_parents: HashMap<Word, Word> = HashMap::new(); // old block → block now ending it
    for block in std::mem::take(&mut func.blocks) {
        let mut label = block.label.clone();
        let mut current: Vec<Instruction> = Vec::new();
        let has_loop_merge = block
            .instructions
            .iter()
            .any(|i| i.class.opcode == Op::LoopMerge);
        let old_label = block.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        for inst in block.instructions {
            let id = inst.result_id.unwrap_or(0);
            if derived.contains_key(&id) {
                continue;
            }
            if choice_set.contains(&id) {
                current.push(inst);
                continue;
            }
            let roots = roots_of(&inst, &choice_set, &derived);
            let Some(&c) = roots.first() else {
                current.push(inst);
                continue;
            };
            if has_loop_merge {
                return None;
            }
            // Split: this block switches on `c` to one case per candidate.
            let join = fresh_id(module);
            let mut cases = Vec::new();
            let mut phi_ops = Vec::new();
            for &cand in &ch.candidates[&c] {
                let case = fresh_id(module);
                let mut body = Vec::new();
                let mut subst: HashMap<Word, Word> = HashMap::new();
                subst.insert(c, cand);
                remake(module, &inst, &recipes, &mut subst, &mut body);
                let mut made = inst.clone();
                substitute(&mut made, &subst);
                if made.result_id.is_some() && !void.contains(&made.result_type.unwrap_or(0)) {
                    let r = fresh_id(module);
                    made.result_id = Some(r);
                    phi_ops.push(Operand::IdRef(r));
                    phi_ops.push(Operand::IdRef(case));
                }
                body.push(made);
                body.push(Instruction::new(
                    Op::Branch,
                    None,
                    None,
                    vec![Operand::IdRef(join)],
                ));
                cases.push((ch.number[&cand], case, body));
            }
            let mut switch_ops = vec![Operand::IdRef(c), Operand::IdRef(cases[0].1)];
            for (n, case, _) in &cases {
                switch_ops.push(Operand::LiteralBit32(*n));
                switch_ops.push(Operand::IdRef(*case));
            }
            current.push(Instruction::new(Op::Switch, None, None, switch_ops));
            blocks.push(Block {
                label: label.take(),
                instructions: std::mem::take(&mut current),
            });
            for (_, case, body) in cases {
                blocks.push(Block {
                    label: Some(Instruction::new(Op::Label, None, Some(case), vec![])),
                    instructions: body,
                });
            }
            label = Some(Instruction::new(Op::Label, None, Some(join), vec![]));
            renamed_parents.insert(old_label, join);
            if let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) {
                if void.contains(&ty) {
                    continue;
                }
                current.push(Instruction::new(Op::Phi, Some(ty), Some(r), phi_ops));
            }
        }
        blocks.push(Block {
            label,
            instructions: current,
        });
    }
    // Phis of the successors name the block that now ends each split one.
    for b in &mut blocks {
        for i in &mut b.instructions {
            if i.class.opcode != Op::Phi {
                continue;
            }
            for k in (1..i.operands.len()).step_by(2) {
                if let Some(&j) = i.operands[k]
                    .id_ref_any()
                    .and_then(|p| renamed_parents.get(&p))
                {
                    i.operands[k] = Operand::IdRef(j);
                }
            }
        }
    }
    func.blocks = blocks;
    Some((func, derived.into_keys().collect()))
}

/// The candidates of choice `c`, nested choices followed, in first-seen
/// order; `None` on an operand that is not a value.
fn candidates_of(
    c: Word,
    defs: &HashMap<Word, Instruction>,
    choices: &HashSet<Word>,
    seen: &mut HashSet<Word>,
    out: &mut Vec<Word>,
) -> Option<()> {
    if !seen.insert(c) {
        return Some(());
    }
    let i = &defs[&c];
    let values: Vec<Word> = match i.class.opcode {
        Op::Phi => i
            .operands
            .iter()
            .step_by(2)
            .map(|o| o.id_ref_any())
            .collect::<Option<_>>()?,
        _ => i.operands[1..]
            .iter()
            .map(|o| o.id_ref_any())
            .collect::<Option<_>>()?,
    };
    for v in values {
        if choices.contains(&v) {
            candidates_of(v, defs, choices, seen, out)?;
        } else if !out.contains(&v) {
            out.push(v);
        }
    }
    Some(())
}

/// The choices that `inst`'s operands depend on (directly or through
/// derived values).
fn roots_of(
    inst: &Instruction,
    choices: &HashSet<Word>,
    derived: &HashMap<Word, Word>,
) -> Vec<Word> {
    let mut roots = Vec::new();
    for o in &inst.operands {
        let Some(v) = o.id_ref_any() else { continue };
        let r = if choices.contains(&v) {
            Some(v)
        } else {
            derived.get(&v).copied()
        };
        if let Some(r) = r.filter(|r| !roots.contains(r)) {
            roots.push(r);
        }
    }
    roots
}

/// Makes again, into `body`, the derived values that `inst` uses, with
/// `subst` applied (a choice → its candidate, a derived value → the new
/// one).
fn remake(
    module: &mut Module,
    inst: &Instruction,
    recipes: &HashMap<Word, Instruction>,
    subst: &mut HashMap<Word, Word>,
    body: &mut Vec<Instruction>,
) {
    for o in &inst.operands {
        let Some(v) = o.id_ref_any() else { continue };
        if subst.contains_key(&v) {
            continue;
        }
        if let Some(r) = recipes.get(&v) {
            remake(module, r, recipes, subst, body);
            let mut made = r.clone();
            substitute(&mut made, subst);
            let id = fresh_id(module);
            made.result_id = Some(id);
            subst.insert(v, id);
            body.push(made);
        }
    }
}

fn substitute(inst: &mut Instruction, subst: &HashMap<Word, Word>) {
    for o in &mut inst.operands {
        if let Some(&n) = o.id_ref_any().and_then(|v| subst.get(&v)) {
            *o = Operand::IdRef(n);
        }
    }
}
