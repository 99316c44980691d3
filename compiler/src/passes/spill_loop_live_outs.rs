//! `spill_loop_live_outs`: every value a loop defines and code after the
//! loop uses goes through a Function variable: stored where it is
//! defined, loaded in the loop's merge block, where the device asks for it
//! (`DeviceCaps::spill_loop_live_outs`: lavapipe).
//!
//! ```text
//!   H: OpLoopMerge M C             H: OpLoopMerge M C
//!   D: %v = ...                    D: %v = ...
//!                                     OpStore (%spill[%zero]) %v
//!   C: OpBranchConditional %c H M  C: OpBranchConditional %c H M
//!   M: ... %v ...                  M: %v' = OpLoad (%spill[%zero])
//!                                     ... %v' ...
//! ```
//!
//! Why: lavapipe 22.3 runs a loop for as long as any work-item of a SIMD
//! batch is in it, and a value defined in the loop and read after it
//! (valid SPIR-V: its definition dominates the merge block) is the one
//! computed in the batch's last iteration, where a work-item that had left
//! the loop earlier is masked off: its loads read 0 there (corpus
//! `fuzz_loop_exit_value.cl`, fuzz seed 19 p53, both wrong before). A
//! store is masked, so the variable keeps each work-item's own last
//! value. Measured on lavapipe: a phi in the merge block does not help
//! (NIR removes a phi with one source). The variable is an array of two
//! indexed by `LocalInvocationId.x >> 31`, which is 0 but not a constant
//! to the driver, so that NIR keeps it in memory rather than turning it
//! back into values (not tried: a variable NIR could promote).
//!
//! A phi of the merge block (a break that `branch_loop_exits` sends there
//! brings its values through one, and so does the latch) goes the same
//! way: each predecessor stores the value it brings just before its
//! branch, and the merge block loads it under the phi's id. Before, such
//! phis were left, and lavapipe gave the work-items that left the loop
//! early another work-item's value through them (fuzz seed 27 p100595:
//! a dead break and trip counts that differ in a group; test
//! `loop_exit_branches::divergent_trips_with_a_dead_break`).
//!
//! The loop construct is what the header reaches without passing its
//! merge block; loops are done innermost first, so that a value of an
//! inner loop used after the outer one goes through both merge blocks.
//! Values of pointer, image and sampler types are left (they cannot be
//! stored in a Function variable).

use std::collections::{HashMap, HashSet, VecDeque};

use rspirv::dr::{Block, Function, Instruction, Module, Operand};
use rspirv::spirv::{BuiltIn, Op, StorageClass, Word};

use super::branch_loop_exits::{id, label, phi_pairs, targets};
use super::module_edit::{builtin_input, fresh_id, global};

/// Spills the live-out values of every loop of every function of
/// `module`; returns whether it changed anything.
pub fn spill_loop_live_outs(module: &mut Module) -> bool {
    let opaque: HashSet<Word> = module
        .types_global_values
        .iter()
        .filter(|i| {
            matches!(
                i.class.opcode,
                Op::TypePointer
                    | Op::TypeImage
                    | Op::TypeSampler
                    | Op::TypeSampledImage
                    | Op::TypeEvent
                    | Op::TypeDeviceEvent
                    | Op::TypeReserveId
                    | Op::TypeQueue
                    | Op::TypePipe
                    | Op::TypeForwardPointer
            )
        })
        .filter_map(|i| i.result_id)
        .collect();
    let mut changed = false;
    for fi in 0..module.functions.len() {
        let mut zero = None;
        for (merge, construct) in loops_innermost_first(&module.functions[fi]) {
            let phis = merge_phis(&module.functions[fi], merge, &opaque);
            if !phis.is_empty() {
                let z = *zero.get_or_insert_with(|| runtime_zero(module, fi));
                demote_merge_phis(module, fi, merge, &phis, z);
                changed = true;
            }
            let live_out = live_outs(&module.functions[fi], &construct, &opaque);
            if live_out.is_empty() {
                continue;
            }
            let z = *zero.get_or_insert_with(|| runtime_zero(module, fi));
            spill(module, fi, merge, &construct, &live_out, z);
            changed = true;
        }
    }
    changed
}

/// (merge block, construct) of every loop of `f`, innermost first.
fn loops_innermost_first(f: &Function) -> Vec<(Word, HashSet<Word>)> {
    let succ: HashMap<Word, Vec<Word>> = f
        .blocks
        .iter()
        .map(|b| {
            (
                label(b),
                b.instructions.last().map(targets).unwrap_or_default(),
            )
        })
        .collect();
    let mut loops = Vec::new();
    for b in &f.blocks {
        let Some(lm) = b
            .instructions
            .iter()
            .find(|i| i.class.opcode == Op::LoopMerge)
        else {
            continue;
        };
        let Some(merge) = lm.operands.first().and_then(id) else {
            continue;
        };
        let mut seen = HashSet::from([label(b)]);
        let mut todo = VecDeque::from([label(b)]);
        while let Some(x) = todo.pop_front() {
            for &s in succ.get(&x).into_iter().flatten() {
                if s != merge && seen.insert(s) {
                    todo.push_back(s);
                }
            }
        }
        loops.push((merge, seen));
    }
    loops.sort_by_key(|(_, c)| c.len());
    loops
}

/// The values (id, type) defined in `construct` and used outside it, in
/// order of first use. A phi's pair whose parent is in the construct
/// reads the value on the exit edge itself and does not count.
fn live_outs(f: &Function, construct: &HashSet<Word>, opaque: &HashSet<Word>) -> Vec<(Word, Word)> {
    let defs: HashMap<Word, Word> = f
        .blocks
        .iter()
        .filter(|b| construct.contains(&label(b)))
        .flat_map(|b| &b.instructions)
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .filter(|(_, ty)| !opaque.contains(ty))
        .collect();
    let mut out: Vec<(Word, Word)> = Vec::new();
    let mut note = |w: Word| {
        if let Some(&ty) = defs.get(&w) {
            if !out.iter().any(|&(v, _)| v == w) {
                out.push((w, ty));
            }
        }
    };
    for b in f.blocks.iter().filter(|b| !construct.contains(&label(b))) {
        for i in &b.instructions {
            if i.class.opcode == Op::Phi {
                for (v, parent) in phi_pairs(i) {
                    if !construct.contains(&parent) {
                        note(v);
                    }
                }
            } else {
                i.operands.iter().filter_map(id).for_each(&mut note);
            }
        }
    }
    out
}

/// The phis (result ids) of the loop merge block `merge` of `f` whose
/// values may be stored in a Function variable.
fn merge_phis(f: &Function, merge: Word, opaque: &HashSet<Word>) -> Vec<Word> {
    f.blocks
        .iter()
        .filter(|b| label(b) == merge)
        .flat_map(|b| &b.instructions)
        .take_while(|i| i.class.opcode == Op::Phi)
        .filter(|i| i.result_type.is_some_and(|t| !opaque.contains(&t)))
        .filter_map(|i| i.result_id)
        .collect()
}

/// Each phi of `phis` (in the loop's merge block `merge`, function `fi`)
/// becomes a `%spill[zero]` variable: every predecessor stores the value
/// it brings, just before its branch (and its merge instruction), and the
/// merge block loads it under the phi's result id. The predecessors are
/// in the loop, so each store is masked like the spills of defined values
/// (a break that `branch_loop_exits` sends to the merge block brings its
/// values through such phis: fuzz seed 27 p100595).
fn demote_merge_phis(module: &mut Module, fi: usize, merge: Word, phis: &[Word], zero: Word) {
    let Some(mi) = module.functions[fi]
        .blocks
        .iter()
        .position(|b| label(b) == merge)
    else {
        return;
    };
    let mut vars = Vec::new();
    // Per predecessor, the access chains and stores to put before its
    // branch.
    let mut stores: HashMap<Word, Vec<Instruction>> = HashMap::new();
    let mut loads = Vec::new();
    for &r in phis {
        let Some(phi) = module.functions[fi].blocks[mi]
            .instructions
            .iter()
            .find(|i| i.result_id == Some(r))
            .cloned()
        else {
            continue;
        };
        let Some(ty) = phi.result_type else {
            continue;
        };
        let var = SpillVar::new(module, ty, zero, &mut vars);
        for (v, parent) in phi_pairs(&phi) {
            let store = var.store(module, v);
            stores.entry(parent).or_default().extend(store);
        }
        loads.extend(var.load(module, Some(r)).1);
    }
    let f = &mut module.functions[fi];
    declare_variables(f, vars);
    for b in f.blocks.iter_mut() {
        let Some(insts) = stores.remove(&label(b)) else {
            continue;
        };
        let n = b.instructions.len();
        let merge_inst = n >= 2
            && matches!(
                b.instructions[n - 2].class.opcode,
                Op::SelectionMerge | Op::LoopMerge
            );
        let at = if merge_inst { n - 2 } else { n - 1 };
        b.instructions.splice(at..at, insts);
    }
    let m = &mut f.blocks[mi];
    let demoted: HashSet<Word> = phis.iter().copied().collect();
    m.instructions.retain(|i| {
        !(i.class.opcode == Op::Phi && i.result_id.is_some_and(|r| demoted.contains(&r)))
    });
    insert_after_phis(m, loads);
}

/// Spills `live_out` of the loop (`merge`, `construct`) of function `fi`
/// through `%spill[zero]` variables.
fn spill(
    module: &mut Module,
    fi: usize,
    merge: Word,
    construct: &HashSet<Word>,
    live_out: &[(Word, Word)],
    zero: Word,
) {
    let mut vars = Vec::new();
    let mut stores = HashMap::new();
    let mut loads = Vec::new();
    let mut renamed = HashMap::new();
    for &(v, ty) in live_out {
        let var = SpillVar::new(module, ty, zero, &mut vars);
        stores.insert(v, var.store(module, v).to_vec());
        let (loaded, load) = var.load(module, None);
        loads.extend(load);
        renamed.insert(v, loaded);
    }
    let f = &mut module.functions[fi];
    declare_variables(f, vars);
    for b in f
        .blocks
        .iter_mut()
        .filter(|b| construct.contains(&label(b)))
    {
        let mut k = 0;
        while k < b.instructions.len() {
            let def = b.instructions[k].result_id;
            k += 1;
            if let Some(insts) = def.and_then(|d| stores.remove(&d)) {
                let after_phis = b
                    .instructions
                    .iter()
                    .take_while(|i| i.class.opcode == Op::Phi)
                    .count();
                let at = k.max(after_phis);
                b.instructions.splice(at..at, insts);
            }
        }
    }
    let rename = |o: &mut Operand| {
        if let Operand::IdRef(w) = o {
            if let Some(&new) = renamed.get(w) {
                *w = new;
            }
        }
    };
    for b in f
        .blocks
        .iter_mut()
        .filter(|b| !construct.contains(&label(b)))
    {
        for i in &mut b.instructions {
            if i.class.opcode != Op::Phi {
                i.operands.iter_mut().for_each(rename);
                continue;
            }
            for k in (0..i.operands.len()).step_by(2) {
                let parent = i.operands.get(k + 1).and_then(id).unwrap_or(0);
                if !construct.contains(&parent) {
                    rename(&mut i.operands[k]);
                }
            }
        }
    }
    if let Some(m) = f.blocks.iter_mut().find(|b| label(b) == merge) {
        insert_after_phis(m, loads);
    }
}

/// One `%spill` variable: a Function array of two values of type `ty`,
/// read and written at index `zero`.
struct SpillVar {
    var: Word,
    ty: Word,
    elem_ptr: Word,
    zero: Word,
}

impl SpillVar {
    /// A new variable; its `OpVariable` goes to `vars`.
    fn new(module: &mut Module, ty: Word, zero: Word, vars: &mut Vec<Instruction>) -> Self {
        let uint = uint_type(module);
        let two = global(
            module,
            Op::Constant,
            Some(uint),
            vec![Operand::LiteralBit32(2)],
        );
        let array = global(
            module,
            Op::TypeArray,
            None,
            vec![Operand::IdRef(ty), Operand::IdRef(two)],
        );
        let array_ptr = function_pointer(module, array);
        let elem_ptr = function_pointer(module, ty);
        let var = fresh_id(module);
        vars.push(Instruction::new(
            Op::Variable,
            Some(array_ptr),
            Some(var),
            vec![Operand::StorageClass(StorageClass::Function)],
        ));
        SpillVar {
            var,
            ty,
            elem_ptr,
            zero,
        }
    }

    /// `OpAccessChain` to the element, with a fresh id.
    fn element(&self, module: &mut Module) -> (Word, Instruction) {
        let p = fresh_id(module);
        let chain = Instruction::new(
            Op::AccessChain,
            Some(self.elem_ptr),
            Some(p),
            vec![Operand::IdRef(self.var), Operand::IdRef(self.zero)],
        );
        (p, chain)
    }

    /// The element's access chain and the store of `v` to it.
    fn store(&self, module: &mut Module, v: Word) -> [Instruction; 2] {
        let (p, chain) = self.element(module);
        let store = Instruction::new(
            Op::Store,
            None,
            None,
            vec![Operand::IdRef(p), Operand::IdRef(v)],
        );
        [chain, store]
    }

    /// The element's access chain and its load into `result` (a fresh id
    /// if `None`), with the loaded id.
    fn load(&self, module: &mut Module, result: Option<Word>) -> (Word, [Instruction; 2]) {
        let (p, chain) = self.element(module);
        let r = result.unwrap_or_else(|| fresh_id(module));
        let load = Instruction::new(Op::Load, Some(self.ty), Some(r), vec![Operand::IdRef(p)]);
        (r, [chain, load])
    }
}

/// Puts `vars` (Function `OpVariable`s) at the start of `f`'s first
/// block, after its variables.
fn declare_variables(f: &mut Function, vars: Vec<Instruction>) {
    let first_non_variable = f.blocks[0]
        .instructions
        .iter()
        .take_while(|i| i.class.opcode == Op::Variable)
        .count();
    f.blocks[0]
        .instructions
        .splice(first_non_variable..first_non_variable, vars);
}

/// Puts `insts` into `b` right after its phis.
fn insert_after_phis(b: &mut Block, insts: Vec<Instruction>) {
    let after_phis = b
        .instructions
        .iter()
        .take_while(|i| i.class.opcode == Op::Phi)
        .count();
    b.instructions.splice(after_phis..after_phis, insts);
}

fn uint_type(module: &mut Module) -> Word {
    global(
        module,
        Op::TypeInt,
        None,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    )
}

fn function_pointer(module: &mut Module, ty: Word) -> Word {
    global(
        module,
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Function),
            Operand::IdRef(ty),
        ],
    )
}

/// `LocalInvocationId.x >> 31`, computed at the start of function `fi`
/// (after its variables): 0, but not a constant to the driver. The
/// built-in variable is added (and listed in every entry point's
/// interface) where the module lacks it.
fn runtime_zero(module: &mut Module, fi: usize) -> Word {
    let uint = uint_type(module);
    let v3 = global(
        module,
        Op::TypeVector,
        None,
        vec![Operand::IdRef(uint), Operand::LiteralBit32(3)],
    );
    let var = builtin_input(module, BuiltIn::LocalInvocationId, v3);
    let c31 = global(
        module,
        Op::Constant,
        Some(uint),
        vec![Operand::LiteralBit32(31)],
    );
    let [l, x, z] = [(); 3].map(|_| fresh_id(module));
    let insts = vec![
        Instruction::new(Op::Load, Some(v3), Some(l), vec![Operand::IdRef(var)]),
        Instruction::new(
            Op::CompositeExtract,
            Some(uint),
            Some(x),
            vec![Operand::IdRef(l), Operand::LiteralBit32(0)],
        ),
        Instruction::new(
            Op::ShiftRightLogical,
            Some(uint),
            Some(z),
            vec![Operand::IdRef(x), Operand::IdRef(c31)],
        ),
    ];
    let entry = &mut module.functions[fi].blocks[0];
    let at = entry
        .instructions
        .iter()
        .take_while(|i| i.class.opcode == Op::Variable)
        .count();
    entry.instructions.splice(at..at, insts);
    z
}
