//! `check_id_definitions`: every id an application's SPIR-V module uses
//! is defined, once, where SPIR-V lets it be used. spirt 0.4 trusts this:
//! a value used where its definition does not dominate the use is passed
//! along the control flow graph back to the function's entry, where spirt
//! indexes the function's parameters with it and panics (ferrocl-ilfuzz:
//! swapped instructions, an id operand overwritten). The panic is caught,
//! but Rust prints it on the application's stderr, and ferrocl does not
//! install a process-wide panic hook in someone else's process
//! (docs/reliability.md). So the module is refused here first, with the
//! instruction and the id at fault.
//!
//! The rules (SPIR-V 2.4 and 2.16), on the module as rspirv sections it:
//!
//! * no id is defined twice;
//! * an instruction outside functions uses only ids defined before it,
//!   except OpTypeForwardPointer's pointer (and, from types, the pointer
//!   types it declares ahead), references to functions, and what the
//!   compiler does not read as uses: names, decorations, entry points and
//!   execution modes (dangling ones are dropped), debug-information
//!   OpExtInst (dropped);
//! * inside a function, a value defined in the function is used only where
//!   its definition dominates the use (in reachable blocks; an OpPhi's
//!   value at the end of its parent block), never in another function,
//!   and a block label only as a branch target or an OpPhi parent, which
//!   must be blocks of the same function (the entry block is no target);
//!   OpPhi has (value, parent) pairs and is not in the entry block;
//! * result types are types.
//!
//! OpLoopMerge and OpSelectionMerge are not checked: the compiler drops
//! them before reading the module (`strip_debug_ext_insts`).

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Block, Function, Instruction, Module, Operand};
use rspirv::spirv::Op;

/// Where an id is defined.
#[derive(Clone, Copy)]
enum Place {
    /// Outside functions (the OpFunction itself too), at this position.
    Global(usize),
    /// A parameter of function `0`.
    Param(usize),
    /// The label of block `1` of function `0`.
    Label(usize, usize),
    /// Instruction `2` (from 1) of block `1` of function `0`.
    Local(usize, usize, usize),
}

#[derive(Clone, Copy)]
struct Def {
    op: Op,
    place: Place,
}

/// Checks the module; the message names the instruction and the id.
pub fn check_id_definitions(module: &Module) -> Result<(), String> {
    let names = Names::of(module);
    let defs = definitions(module, &names)?;
    let debug_sets: HashSet<u32> = module
        .ext_inst_imports
        .iter()
        .filter(
            |i| !matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "OpenCL.std"),
        )
        .filter_map(|i| i.result_id)
        .collect();
    let cx = Cx {
        defs: &defs,
        names: &names,
        debug_sets: &debug_sets,
    };
    cx.check_globals(module)?;
    for (f, func) in module.functions.iter().enumerate() {
        cx.check_function(f, func)?;
    }
    Ok(())
}

/// The module's OpName strings, for messages.
struct Names(HashMap<u32, String>);

impl Names {
    fn of(module: &Module) -> Names {
        let mut names = HashMap::new();
        for n in &module.debug_names {
            if let (Op::Name, [Operand::IdRef(id), Operand::LiteralString(s)]) =
                (n.class.opcode, &n.operands[..])
            {
                names.entry(*id).or_insert_with(|| s.clone());
            }
        }
        Names(names)
    }

    /// `%12` or `%12 ("name")`.
    fn id(&self, id: u32) -> String {
        match self.0.get(&id) {
            Some(n) => format!("%{id} (\"{n}\")"),
            None => format!("%{id}"),
        }
    }
}

/// The instructions outside functions, in the module's order.
fn global_insts(module: &Module) -> impl Iterator<Item = &Instruction> {
    module
        .capabilities
        .iter()
        .chain(&module.extensions)
        .chain(&module.ext_inst_imports)
        .chain(&module.memory_model)
        .chain(&module.entry_points)
        .chain(&module.execution_modes)
        .chain(&module.debug_string_source)
        .chain(&module.debug_names)
        .chain(&module.debug_module_processed)
        .chain(&module.annotations)
        .chain(&module.types_global_values)
}

fn definitions(module: &Module, names: &Names) -> Result<HashMap<u32, Def>, String> {
    let mut defs: HashMap<u32, Def> = HashMap::new();
    let mut define = |inst: &Instruction, place: Place| -> Result<(), String> {
        let Some(id) = inst.result_id else {
            return Ok(());
        };
        let op = inst.class.opcode;
        if let Some(old) = defs.insert(id, Def { op, place }) {
            return Err(format!(
                "{} is defined twice, by Op{:?} and by Op{op:?}",
                names.id(id),
                old.op
            ));
        }
        Ok(())
    };
    let mut at = 0;
    for inst in global_insts(module) {
        define(inst, Place::Global(at))?;
        at += 1;
    }
    for (f, func) in module.functions.iter().enumerate() {
        if let Some(def) = &func.def {
            define(def, Place::Global(at))?;
            at += 1;
        }
        for p in &func.parameters {
            define(p, Place::Param(f))?;
        }
        for (b, block) in func.blocks.iter().enumerate() {
            if let Some(label) = &block.label {
                define(label, Place::Label(f, b))?;
            }
            for (i, inst) in block.instructions.iter().enumerate() {
                define(inst, Place::Local(f, b, i + 1))?;
            }
        }
    }
    Ok(defs)
}

/// The id operands of `inst` that the compiler reads as uses: every
/// IdRef-like operand, but not the literal last operand of OpenCL.std's
/// vloadn, vload_halfn, vloada_halfn (n) and vstore_half*_r (the rounding
/// mode), which rspirv reads as ids.
fn id_operands(inst: &Instruction) -> Vec<u32> {
    let mut ids: Vec<u32> = inst
        .operands
        .iter()
        .filter_map(|o| match o {
            Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) => Some(*id),
            _ => None,
        })
        .collect();
    if inst.class.opcode == Op::ExtInst {
        let number = match inst.operands.get(1) {
            Some(Operand::LiteralExtInstInteger(n)) => *n,
            _ => 0,
        };
        // Operands after the set and the number: vloadn (offset, p, n) = 3,
        // vstore_half_r (data, offset, p, mode) = 4.
        let literal_last = match number {
            171 | 174 | 179 => inst.operands.len() == 5,
            176 | 178 | 181 => inst.operands.len() == 6,
            _ => false,
        };
        if literal_last {
            ids.pop();
        }
    }
    ids
}

struct Cx<'a> {
    defs: &'a HashMap<u32, Def>,
    names: &'a Names,
    debug_sets: &'a HashSet<u32>,
}

impl Cx<'_> {
    fn def(&self, inst: &Instruction, id: u32) -> Result<Def, String> {
        self.defs.get(&id).copied().ok_or_else(|| {
            format!(
                "Op{:?}{} uses {}, which nothing in the module defines",
                inst.class.opcode,
                self.result_of(inst),
                self.names.id(id)
            )
        })
    }

    /// ` %5` when `inst` has a result.
    fn result_of(&self, inst: &Instruction) -> String {
        inst.result_id
            .map(|r| format!(" {}", self.names.id(r)))
            .unwrap_or_default()
    }

    /// Not read by the compiler as uses (dropped or resolved by name).
    fn ignored(&self, inst: &Instruction) -> bool {
        let op = inst.class.opcode;
        matches!(
            op,
            Op::Name
                | Op::MemberName
                | Op::EntryPoint
                | Op::ExecutionMode
                | Op::ExecutionModeId
                | Op::LoopMerge
                | Op::SelectionMerge
        ) || op.is_annotation()
            || (op == Op::ExtInst
                && matches!(inst.operands.first(), Some(Operand::IdRef(s)) if self.debug_sets.contains(s)))
    }

    fn check_result_type(&self, inst: &Instruction) -> Result<(), String> {
        let Some(ty) = inst.result_type else {
            return Ok(());
        };
        let def = self.def(inst, ty)?;
        if !def.op.is_type() {
            return Err(format!(
                "Op{:?}{} has result type {}, which is not a type but Op{:?}",
                inst.class.opcode,
                self.result_of(inst),
                self.names.id(ty),
                def.op
            ));
        }
        Ok(())
    }

    fn check_globals(&self, module: &Module) -> Result<(), String> {
        let mut forward_pointers = HashSet::new();
        let insts =
            global_insts(module).chain(module.functions.iter().filter_map(|f| f.def.as_ref()));
        for (at, inst) in insts.enumerate() {
            let op = inst.class.opcode;
            if self.ignored(inst) {
                continue;
            }
            if op == Op::TypeForwardPointer {
                if let Some(Operand::IdRef(p)) = inst.operands.first() {
                    forward_pointers.insert(*p);
                }
                continue;
            }
            self.check_result_type(inst)?;
            for id in inst.result_type.into_iter().chain(id_operands(inst)) {
                let def = self.def(inst, id)?;
                let ahead = match def.place {
                    Place::Global(d) => d >= at,
                    _ => {
                        return Err(format!(
                            "Op{op:?}{} outside functions uses {}, which a function defines",
                            self.result_of(inst),
                            self.names.id(id)
                        ))
                    }
                };
                let allowed =
                    def.op == Op::Function || (op.is_type() && forward_pointers.contains(&id));
                if ahead && !allowed {
                    return Err(format!(
                        "Op{op:?}{} uses {} before its definition (Op{:?})",
                        self.result_of(inst),
                        self.names.id(id),
                        def.op
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_function(&self, f: usize, func: &Function) -> Result<(), String> {
        let fname = func
            .def
            .as_ref()
            .and_then(|d| d.result_id)
            .map(|id| self.names.id(id))
            .unwrap_or_default();
        for p in &func.parameters {
            self.check_result_type(p)?;
        }
        if func.blocks.is_empty() {
            return Ok(());
        }
        let cfg = Cfg::of(self, f, &fname, &func.blocks)?;
        for (b, block) in func.blocks.iter().enumerate() {
            for (i, inst) in block.instructions.iter().enumerate() {
                if self.ignored(inst) {
                    continue;
                }
                self.check_result_type(inst)?;
                let at = Use {
                    f,
                    b,
                    pos: i + 1,
                    fname: &fname,
                };
                self.check_local_uses(inst, &at, &cfg)?;
            }
        }
        Ok(())
    }

    /// The id operands of `inst` (in block `at.b`, not a merge): labels
    /// where the instruction takes blocks, dominating values elsewhere.
    fn check_local_uses(&self, inst: &Instruction, at: &Use, cfg: &Cfg) -> Result<(), String> {
        let op = inst.class.opcode;
        let ids = id_operands(inst);
        if op == Op::Phi {
            if at.b == 0 {
                return Err(format!(
                    "OpPhi{} is in the entry block of function {}",
                    self.result_of(inst),
                    at.fname
                ));
            }
            if !ids.len().is_multiple_of(2) || ids.len() != inst.operands.len() {
                return Err(format!(
                    "OpPhi{} does not have (value, parent block) pairs",
                    self.result_of(inst)
                ));
            }
            for pair in ids.chunks(2) {
                let parent = self.label_in(inst, pair[1], at)?;
                // The value is used at the end of its parent block.
                let end = Use {
                    b: parent,
                    pos: usize::MAX,
                    ..*at
                };
                self.check_value(inst, pair[0], &end, cfg)?;
            }
            return Ok(());
        }
        let labels_from = match op {
            Op::Branch => 0,
            Op::BranchConditional | Op::Switch => 1,
            _ => usize::MAX,
        };
        for (k, &id) in ids.iter().enumerate() {
            if k >= labels_from {
                self.label_in(inst, id, at)?;
            } else {
                self.check_value(inst, id, at, cfg)?;
            }
        }
        Ok(())
    }

    /// `id` must be a block of the function `at.f`: its index.
    fn label_in(&self, inst: &Instruction, id: u32, at: &Use) -> Result<usize, String> {
        match self.def(inst, id)?.place {
            Place::Label(f, b) if f == at.f => Ok(b),
            _ => Err(format!(
                "Op{:?}{} in function {} names {} as a block, which is not a block of that function",
                inst.class.opcode,
                self.result_of(inst),
                at.fname,
                self.names.id(id)
            )),
        }
    }

    /// `id` used as a value at `at`.
    fn check_value(&self, inst: &Instruction, id: u32, at: &Use, cfg: &Cfg) -> Result<(), String> {
        let def = self.def(inst, id)?;
        let op = inst.class.opcode;
        let place = |f: usize| -> Result<(), String> {
            if f == at.f {
                return Ok(());
            }
            Err(format!(
                "Op{op:?}{} in function {} uses {}, which another function defines",
                self.result_of(inst),
                at.fname,
                self.names.id(id)
            ))
        };
        match def.place {
            Place::Global(_) => Ok(()),
            Place::Param(f) => place(f),
            Place::Label(f, _) => {
                place(f)?;
                Err(format!(
                    "Op{op:?}{} uses the block label {} as a value",
                    self.result_of(inst),
                    self.names.id(id)
                ))
            }
            Place::Local(f, d, pos) => {
                place(f)?;
                // Uses in blocks the entry does not reach constrain nothing
                // the compiler reads (no path brings a value there).
                let dominated = !cfg.reachable(at.b)
                    || (d == at.b && pos < at.pos)
                    || (d != at.b && cfg.dominates(d, at.b));
                if dominated {
                    return Ok(());
                }
                Err(format!(
                    "Op{op:?}{} in function {} uses {}, whose definition (Op{:?}) \
                     does not dominate the use{}",
                    self.result_of(inst),
                    at.fname,
                    self.names.id(id),
                    def.op,
                    if op == Op::Phi {
                        " (the end of the OpPhi's parent block)"
                    } else {
                        ""
                    }
                ))
            }
        }
    }
}

/// A use: instruction `pos` (from 1; `usize::MAX`: the block's end) of
/// block `b` of function `f`.
#[derive(Clone, Copy)]
struct Use<'a> {
    f: usize,
    b: usize,
    pos: usize,
    fname: &'a str,
}

/// A function's control flow graph: its dominator tree as pre- and
/// post-order numbers (`pre[a] <= pre[b] && post[b] <= post[a]`: `a`
/// dominates `b`); `None` for blocks the entry does not reach.
struct Cfg {
    order: Vec<Option<(usize, usize)>>,
}

impl Cfg {
    fn of(cx: &Cx, f: usize, fname: &str, blocks: &[Block]) -> Result<Cfg, String> {
        let n = blocks.len();
        let mut succs = vec![Vec::new(); n];
        for (b, block) in blocks.iter().enumerate() {
            let Some(term) = block.instructions.last() else {
                continue;
            };
            let from = match term.class.opcode {
                Op::Branch => 0,
                Op::BranchConditional | Op::Switch => 1,
                _ => continue,
            };
            let at = Use {
                f,
                b,
                pos: block.instructions.len(),
                fname,
            };
            for &id in id_operands(term).iter().skip(from) {
                let t = cx.label_in(term, id, &at)?;
                if t == 0 {
                    return Err(format!(
                        "Op{:?} in function {fname} branches to its entry block",
                        term.class.opcode
                    ));
                }
                succs[b].push(t);
            }
        }
        // Reverse post-order from the entry (iteratively: deep graphs).
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = succs[b].get(*next) {
                *next += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        let mut rpo_index = vec![usize::MAX; n];
        for (i, &b) in post.iter().rev().enumerate() {
            rpo_index[b] = i;
        }
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            if seen[b] {
                for &s in ss {
                    preds[s].push(b);
                }
            }
        }
        // Immediate dominators (Cooper, Harvey and Kennedy's iteration).
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev().skip(1) {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, &rpo_index, p, new)
                    };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        // Number the dominator tree.
        let mut children = vec![Vec::new(); n];
        for &b in post.iter().rev().skip(1) {
            children[idom[b]].push(b);
        }
        let mut order = vec![None; n];
        let mut counter = 0;
        let mut pre = vec![0; n];
        let mut stack = vec![(0usize, 0usize)];
        pre[0] = counter;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&c) = children[b].get(*next) {
                *next += 1;
                counter += 1;
                pre[c] = counter;
                stack.push((c, 0));
            } else {
                counter += 1;
                order[b] = Some((pre[b], counter));
                stack.pop();
            }
        }
        Ok(Cfg { order })
    }

    fn reachable(&self, b: usize) -> bool {
        self.order[b].is_some()
    }

    /// Whether `a` dominates `b` (both reachable).
    fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.order[a], self.order[b]) {
            (Some((pa, qa)), Some((pb, qb))) => pa <= pb && qb <= qa,
            _ => false,
        }
    }
}

fn intersect(idom: &[usize], rpo: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rpo[a] > rpo[b] {
            a = idom[a];
        }
        while rpo[b] > rpo[a] {
            b = idom[b];
        }
    }
    a
}

#[cfg(test)]
mod tests;
