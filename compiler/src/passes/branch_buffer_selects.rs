//! `branch_buffer_selects`: descriptor addressing without variable
//! pointers. Every load, store or atomic through an `OpSelect` of
//! StorageBuffer pointers (`lower::descriptor::desc_ptr`'s choice of a
//! buffer binding by the pointer's run-time slot) becomes a call of a
//! helper function that branches on the selects' conditions and accesses
//! each candidate binding directly; the `VariablePointersStorageBuffer`
//! capability then goes.
//!
//! Why: NVIDIA's Vulkan compiler (driver 580) loses every atomic on
//! Workgroup memory in a module that declares the capability: local
//! `atomic_add` adds nothing, and the sub-word `__local` stores (an
//! `OpAtomicAnd` and an `OpAtomicOr` on the word) write nothing (GPU probes
//! of session 25, H200: `generic_address_space::struct_members`' short and
//! char members of `__local` structs, a kernel that picks one of two global
//! buffers beside `__local` uchar stores, another beside a local
//! `atomic_add`; all right once the capability is gone, still wrong with the
//! selects gone and the capability kept). Physical addressing never
//! declares it.
//!
//! The helper for an access `I(OpAccessChain(T, i...), ops...)` where `T`
//! is a tree of selects `select(c, L, R)` with view variables at the
//! leaves: parameters are the tree's conditions, the chain's indices and
//! `I`'s operands that are not module-level constants; the body is a
//! selection construct per select (`OpSelectionMerge` +
//! `OpBranchConditional c`), each leaf's block doing the access on its view
//! variable, and the result (if `I` has one) joined by `OpPhi`. Helpers
//! are shared between accesses of the same shape.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Block, Function, Instruction, Module, Operand};
use rspirv::spirv::{Capability, FunctionControl, Op, SelectionControl, StorageClass, Word};

use super::module_edit::{block, fresh_id, global};

/// A select tree over StorageBuffer pointers.
#[derive(Debug)]
enum Tree {
    /// `OpSelect %c %then %else`, the condition's position among the
    /// helper's condition parameters.
    Select(usize, Box<Tree>, Box<Tree>),
    /// A pointer that is not a select (a view variable).
    Leaf(Word),
}

/// How a helper is built (helpers are shared by the `Debug` text of their
/// shape and parameter types): the access's opcode, result type and operands
/// (module-level ids kept, the others numbered as parameters), the access
/// chain's result type and indices, and the tree.
#[derive(Debug)]
struct Shape {
    op: Op,
    result_type: Option<Word>,
    /// The access's operands after the pointer.
    operands: Vec<Arg>,
    chain_type: Word,
    chain_indices: Vec<Arg>,
    tree: Tree,
}

/// An operand of the helper's access: a module-level id (constants), a
/// parameter (by position), or a literal.
#[derive(Debug)]
enum Arg {
    Global(Word),
    Param(usize),
    Literal(Operand),
}

/// What the pass reads of the module.
struct Facts {
    /// `OpSelect`s of StorageBuffer pointers: id -> (condition, then, else).
    selects: HashMap<Word, (Word, Word, Word)>,
    /// Access chains on such selects: id -> (result type, base, indices).
    chains: HashMap<Word, (Word, Word, Vec<Word>)>,
    /// Module-level ids (types, constants, variables).
    globals: HashSet<Word>,
    /// The type of every value.
    types: HashMap<Word, Word>,
}

impl Facts {
    fn of(module: &Module) -> Facts {
        let mut storage_pointers = HashSet::new();
        let mut globals = HashSet::new();
        for i in &module.types_global_values {
            if let Some(id) = i.result_id {
                globals.insert(id);
            }
            if let (
                Op::TypePointer,
                Some(id),
                [Operand::StorageClass(StorageClass::StorageBuffer), _],
            ) = (i.class.opcode, i.result_id, i.operands.as_slice())
            {
                storage_pointers.insert(id);
            }
        }
        let types = super::module_edit::value_types(module);
        let mut selects = HashMap::new();
        let mut chains = HashMap::new();
        let body = module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter());
        for i in body.clone() {
            if let (
                Op::Select,
                Some(id),
                Some(t),
                [Operand::IdRef(c), Operand::IdRef(a), Operand::IdRef(b)],
            ) = (
                i.class.opcode,
                i.result_id,
                i.result_type,
                i.operands.as_slice(),
            ) {
                if storage_pointers.contains(&t) {
                    selects.insert(id, (*c, *a, *b));
                }
            }
        }
        for i in body {
            if let (Op::AccessChain, Some(id), Some(t), [Operand::IdRef(base), rest @ ..]) = (
                i.class.opcode,
                i.result_id,
                i.result_type,
                i.operands.as_slice(),
            ) {
                if selects.contains_key(base) {
                    let idx = rest.iter().filter_map(|o| match o {
                        Operand::IdRef(v) => Some(*v),
                        _ => None,
                    });
                    chains.insert(id, (t, *base, idx.collect()));
                }
            }
        }
        Facts {
            selects,
            chains,
            globals,
            types,
        }
    }

    /// The tree of `ptr`, its conditions appended to `conds`.
    fn tree(&self, ptr: Word, conds: &mut Vec<Word>) -> Tree {
        match self.selects.get(&ptr) {
            Some(&(c, a, b)) => {
                conds.push(c);
                let k = conds.len() - 1;
                let then = self.tree(a, conds);
                let other = self.tree(b, conds);
                Tree::Select(k, Box::new(then), Box::new(other))
            }
            None => Tree::Leaf(ptr),
        }
    }

    /// `op` as a helper argument: module-level ids stay, other ids become
    /// parameters (pushed onto `params`).
    fn arg(&self, op: &Operand, params: &mut Vec<Word>) -> Arg {
        match op {
            Operand::IdRef(v) if self.globals.contains(v) => Arg::Global(*v),
            Operand::IdRef(v) => {
                params.push(*v);
                Arg::Param(params.len() - 1)
            }
            other => Arg::Literal(other.clone()),
        }
    }
}

/// The accesses the pass rewrites (the pointer is their first operand).
fn is_access(op: Op) -> bool {
    matches!(op, Op::Load | Op::Store) || super::dispatch_generic::is_atomic(op)
}

/// Rewrites the module; returns how many accesses became helper calls, or
/// what uses such a pointer in a way it cannot rewrite.
pub fn branch_buffer_selects(module: &mut Module) -> Result<usize, String> {
    let facts = Facts::of(module);
    if facts.selects.is_empty() {
        return Ok(0);
    }
    let mut helpers: HashMap<String, Word> = HashMap::new();
    let mut new_functions = Vec::new();
    let mut rewritten = 0;
    for fi in 0..module.functions.len() {
        for bi in 0..module.functions[fi].blocks.len() {
            let old = std::mem::take(&mut module.functions[fi].blocks[bi].instructions);
            let mut out = Vec::with_capacity(old.len());
            for inst in old {
                let chain = match inst.operands.first() {
                    Some(Operand::IdRef(p)) if is_access(inst.class.opcode) => facts.chains.get(p),
                    _ => None,
                };
                let Some((chain_type, base, indices)) = chain else {
                    out.push(inst);
                    continue;
                };
                let mut conds = Vec::new();
                let tree = facts.tree(*base, &mut conds);
                let mut params = conds.clone();
                let chain_indices = indices
                    .iter()
                    .map(|&v| facts.arg(&Operand::IdRef(v), &mut params))
                    .collect();
                let operands = inst.operands[1..]
                    .iter()
                    .map(|o| facts.arg(o, &mut params))
                    .collect();
                let shape = Shape {
                    op: inst.class.opcode,
                    result_type: inst.result_type,
                    operands,
                    chain_type: *chain_type,
                    chain_indices,
                    tree,
                };
                let param_types: Vec<Word> = params
                    .iter()
                    .map(|p| facts.types.get(p).copied().unwrap_or(0))
                    .collect();
                let key = format!("{shape:?} {param_types:?}");
                let helper = match helpers.get(&key) {
                    Some(&h) => h,
                    None => {
                        let (h, f) = helper(module, &shape, &param_types);
                        new_functions.push(f);
                        helpers.insert(key, h);
                        h
                    }
                };
                let void = global(module, Op::TypeVoid, None, vec![]);
                let mut ops = vec![Operand::IdRef(helper)];
                ops.extend(params.iter().map(|&p| Operand::IdRef(p)));
                let result = inst.result_id.unwrap_or_else(|| fresh_id(module));
                out.push(Instruction::new(
                    Op::FunctionCall,
                    Some(inst.result_type.unwrap_or(void)),
                    Some(result),
                    ops,
                ));
                rewritten += 1;
            }
            module.functions[fi].blocks[bi].instructions = out;
        }
    }
    module.functions.extend(new_functions);
    remove_dead_pointers(module, &facts);
    if let Some(op) = leftover_pointer_use(module, &facts) {
        // The capability would have to stay, and with it the driver's
        // fault: a build error, never silently lost atomics.
        return Err(format!(
            "a pointer chosen at run time between buffers is used by {op:?}, which \
             descriptor addressing cannot branch on this device (its driver loses \
             __local atomics in modules with variable pointers)"
        ));
    }
    module.capabilities.retain(|c| {
        !matches!(
            c.operands.first(),
            Some(Operand::Capability(
                Capability::VariablePointersStorageBuffer | Capability::VariablePointers
            ))
        )
    });
    Ok(rewritten)
}

/// Removes the selects and access chains left without uses.
fn remove_dead_pointers(module: &mut Module, facts: &Facts) {
    loop {
        let mut used = HashSet::new();
        for f in &module.functions {
            for i in f.blocks.iter().flat_map(|b| b.instructions.iter()) {
                for o in &i.operands {
                    if let Operand::IdRef(v) = o {
                        used.insert(*v);
                    }
                }
            }
        }
        let mut removed = false;
        for f in &mut module.functions {
            for b in &mut f.blocks {
                b.instructions.retain(|i| {
                    let dead = i.result_id.is_some_and(|id| {
                        (facts.selects.contains_key(&id) || facts.chains.contains_key(&id))
                            && !used.contains(&id)
                    });
                    removed |= dead;
                    !dead
                });
            }
        }
        if !removed {
            return;
        }
    }
}

/// The opcode of an instruction left using a select of StorageBuffer
/// pointers or an access chain on one (a use the pass does not rewrite),
/// if any.
fn leftover_pointer_use(module: &Module, facts: &Facts) -> Option<Op> {
    let pointer = |v: &Word| facts.selects.contains_key(v) || facts.chains.contains_key(v);
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| !i.result_id.is_some_and(|r| pointer(&r)))
        .find(|i| {
            i.operands
                .iter()
                .any(|o| matches!(o, Operand::IdRef(v) if pointer(v)))
        })
        .map(|i| i.class.opcode)
}

/// The helper function of `shape` (its id and body).
fn helper(module: &mut Module, shape: &Shape, param_types: &[Word]) -> (Word, Function) {
    let void = global(module, Op::TypeVoid, None, vec![]);
    let ret = shape.result_type.unwrap_or(void);
    let mut fn_operands = vec![Operand::IdRef(ret)];
    fn_operands.extend(param_types.iter().map(|&t| Operand::IdRef(t)));
    let fn_type = global(module, Op::TypeFunction, None, fn_operands);
    let fid = fresh_id(module);
    let params: Vec<Word> = param_types.iter().map(|_| fresh_id(module)).collect();
    let entry = fresh_id(module);
    let mut blocks = Vec::new();
    let mut cur = Vec::new();
    let (result, last) = emit_tree(
        module,
        shape,
        &params,
        &shape.tree,
        entry,
        &mut cur,
        &mut blocks,
    );
    cur.push(match result {
        Some(r) => Instruction::new(Op::ReturnValue, None, None, vec![Operand::IdRef(r)]),
        None => Instruction::new(Op::Return, None, None, vec![]),
    });
    blocks.push(block(last, cur));
    let def = Instruction::new(
        Op::Function,
        Some(ret),
        Some(fid),
        vec![
            Operand::FunctionControl(FunctionControl::NONE),
            Operand::IdRef(fn_type),
        ],
    );
    let parameters = params
        .iter()
        .zip(param_types)
        .map(|(&p, &t)| Instruction::new(Op::FunctionParameter, Some(t), Some(p), vec![]))
        .collect();
    let f = Function {
        def: Some(def),
        end: Some(Instruction::new(Op::FunctionEnd, None, None, vec![])),
        parameters,
        blocks,
    };
    (fid, f)
}

/// Emits `tree`'s accesses starting in the block labelled `label` (whose
/// instructions so far are `cur`); finished blocks go to `blocks`.
/// Returns the access's result (if any) and the label of the block the
/// code continues in (its instructions are `cur`).
fn emit_tree(
    module: &mut Module,
    shape: &Shape,
    params: &[Word],
    tree: &Tree,
    label: Word,
    cur: &mut Vec<Instruction>,
    blocks: &mut Vec<Block>,
) -> (Option<Word>, Word) {
    let arg = |a: &Arg| match a {
        Arg::Global(v) => Operand::IdRef(*v),
        Arg::Param(k) => Operand::IdRef(params[*k]),
        Arg::Literal(o) => o.clone(),
    };
    match tree {
        Tree::Leaf(var) => {
            let chain = fresh_id(module);
            let mut ops = vec![Operand::IdRef(*var)];
            ops.extend(shape.chain_indices.iter().map(arg));
            cur.push(Instruction::new(
                Op::AccessChain,
                Some(shape.chain_type),
                Some(chain),
                ops,
            ));
            let result = shape.result_type.map(|_| fresh_id(module));
            let mut ops = vec![Operand::IdRef(chain)];
            ops.extend(shape.operands.iter().map(arg));
            cur.push(Instruction::new(shape.op, shape.result_type, result, ops));
            (result, label)
        }
        Tree::Select(k, then, other) => {
            let [yes, no, merge] = [(); 3].map(|_| fresh_id(module));
            cur.push(Instruction::new(
                Op::SelectionMerge,
                None,
                None,
                vec![
                    Operand::IdRef(merge),
                    Operand::SelectionControl(SelectionControl::NONE),
                ],
            ));
            cur.push(Instruction::new(
                Op::BranchConditional,
                None,
                None,
                vec![
                    Operand::IdRef(params[*k]),
                    Operand::IdRef(yes),
                    Operand::IdRef(no),
                ],
            ));
            blocks.push(block(label, std::mem::take(cur)));
            let mut arms = Vec::new();
            for (start, sub) in [(yes, then), (no, other)] {
                let mut body = Vec::new();
                let (r, end) = emit_tree(module, shape, params, sub, start, &mut body, blocks);
                body.push(Instruction::new(
                    Op::Branch,
                    None,
                    None,
                    vec![Operand::IdRef(merge)],
                ));
                blocks.push(block(end, body));
                arms.push((r, end));
            }
            let result = match (shape.result_type, arms[0].0, arms[1].0) {
                (Some(t), Some(a), Some(b)) => {
                    let r = fresh_id(module);
                    cur.push(Instruction::new(
                        Op::Phi,
                        Some(t),
                        Some(r),
                        vec![
                            Operand::IdRef(a),
                            Operand::IdRef(arms[0].1),
                            Operand::IdRef(b),
                            Operand::IdRef(arms[1].1),
                        ],
                    ));
                    Some(r)
                }
                _ => None,
            };
            (result, merge)
        }
    }
}

#[cfg(test)]
mod tests;
