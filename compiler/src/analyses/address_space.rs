//! Address-space inference: where each pointer value of a kernel points
//! (`Space`).
//!
//! The lowering turns pointers into integers (`passes::lower` module
//! docs): a u64 device address for `__global`, a byte offset into the
//! work-group, private or constant array otherwise. For that it must know
//! statically where each pointer points, including generic and
//! `__constant` ones.
//!
//! # Algorithm
//!
//! A data-flow pass over a kernel's call graph: the space comes from the
//! storage class for most pointer types (program-scope `__constant`
//! variables: `Const`, or `Global` for the large tables that live in the
//! program's buffer, `passes::global_vars`; kernel parameters by their
//! storage class), and from the operands for Generic/UniformConstant ones
//! (casts, access chains, phis, selects, call arguments, returned values).
//! A pointer loaded from memory or made from an integer is `Global`, or
//! `Mixed` if it is generic (its tag says where it points). Values reached
//! by two spaces are `Mixed`. Iterates to a fixed point (at most 32
//! rounds).
//!
//! `infer_program_spaces` joins the result over every kernel of a module
//! (for `passes::specialize`); `infer_kernel_spaces` is one kernel's (for
//! the lowering).
//!
//! A `Mixed` generic pointer (a phi of a global and a local pointer, a
//! pointer stored in memory and loaded back) is a tagged value at run
//! time: `passes::specialize` first clones functions to remove mixed
//! parameters, `passes::dispatch_generic` turns the accesses through the
//! rest into branches on the tag, and `passes::lower::generic` lowers the
//! casts and tag tests.
//!
//! Gaps: a `Mixed` pointer that is not generic (a `__constant` pointer
//! that may address a kernel argument or a program-scope table) is
//! reported by the lowering.

use std::collections::HashMap;

use rspirv::dr;
use rspirv::spirv::{Op, StorageClass, Word};

use super::module_index::ModuleIndex;
use super::type_table::Ty;

/// Where a pointer value points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// A buffer device address (u64).
    Global,
    /// A byte offset into the work-group array.
    Local,
    /// A byte offset into the invocation's private frame array.
    Private,
    /// A byte offset into the program-scope constant data.
    Const,
    /// A byte offset into the own word array of the private variable with
    /// this id (`private_variables`: a variable none of whose pointers
    /// escapes it).
    Variable(Word),
    /// Different spaces reach this value, or a generic pointer from
    /// memory: known at run time only (a generic pointer's tag).
    Mixed,
}

/// The space of a pointer type's storage class, where that fixes it.
pub(crate) fn space_of_class(sc: StorageClass) -> Option<Space> {
    match sc {
        StorageClass::CrossWorkgroup => Some(Space::Global),
        StorageClass::Workgroup => Some(Space::Local),
        StorageClass::Function | StorageClass::Private => Some(Space::Private),
        _ => None,
    }
}

/// The space of a pointer of storage class `sc` loaded from memory or
/// made from an integer: a generic one carries its space in its tag
/// (`passes::lower::generic`), known only at run time; any other is a
/// global address.
fn from_memory(sc: StorageClass) -> Space {
    if sc == StorageClass::Generic {
        Space::Mixed
    } else {
        Space::Global
    }
}

fn join(a: Option<Space>, b: Option<Space>) -> Option<Space> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(x), Some(y)) if x == y => Some(x),
        _ => Some(Space::Mixed),
    }
}

/// Where every pointer value of the module points, joined over all its
/// kernels (for `specialize_address_spaces`). `global_offsets`: the
/// program-scope variables in the program's buffer
/// (`global_vars::global_offsets`). Modules the lowering would reject
/// anyway (a call of an undefined function) give an empty map.
pub fn infer_program_spaces(
    module: &dr::Module,
    global_offsets: &HashMap<Word, u64>,
) -> HashMap<Word, Space> {
    let ix = ModuleIndex::new(module);
    let mut spaces = HashMap::new();
    for ep in &module.entry_points {
        let entry_fn = ep.operands[1].unwrap_id_ref();
        let Ok(order) = ix.call_graph(entry_fn) else {
            return HashMap::new();
        };
        infer_spaces(&ix, global_offsets, &order, entry_fn, &mut spaces);
    }
    spaces
}

/// Where every pointer value of one kernel points: its entry function
/// `entry_fn` and the functions it reaches, `order`
/// (`ModuleIndex::call_graph`).
pub fn infer_kernel_spaces(
    ix: &ModuleIndex,
    global_offsets: &HashMap<Word, u64>,
    order: &[Word],
    entry_fn: Word,
) -> HashMap<Word, Space> {
    let mut spaces = HashMap::new();
    infer_spaces(ix, global_offsets, order, entry_fn, &mut spaces);
    spaces
}

/// Joins into `spaces` the `Space` of every pointer value of the kernel
/// whose entry function is `entry_fn` and whose call graph is `order`
/// (module docs). Iterates to a fixed point over the call graph.
fn infer_spaces(
    ix: &ModuleIndex,
    global_offsets: &HashMap<Word, u64>,
    order: &[Word],
    entry_fn: Word,
    spaces: &mut HashMap<Word, Space>,
) {
    // Globals.
    for (&id, g) in &ix.globals {
        if let Some(Ty::Pointer(sc, _)) = g.result_type.map(|t| ix.tys.get(t)) {
            if g.class.opcode == Op::Variable {
                let s = match sc {
                    StorageClass::UniformConstant if global_offsets.contains_key(&id) => {
                        Some(Space::Global)
                    }
                    StorageClass::UniformConstant => Some(Space::Const),
                    sc => space_of_class(*sc),
                };
                if let Some(s) = s {
                    spaces.insert(id, s);
                }
            }
        }
    }
    // Kernel parameters.
    for p in &ix.funcs[&entry_fn].parameters {
        if let Ty::Pointer(sc, _) = ix.tys.get(p.result_type.unwrap_or(0)) {
            let s = match sc {
                StorageClass::UniformConstant | StorageClass::CrossWorkgroup => Space::Global,
                StorageClass::Workgroup => Space::Local,
                _ => Space::Private,
            };
            spaces.insert(p.result_id.unwrap_or(0), s);
        }
    }
    for _round in 0..32 {
        let mut changed = false;
        let mut set = |spaces: &mut HashMap<Word, Space>, id: Word, s: Option<Space>| {
            let old = spaces.get(&id).copied();
            let new = join(old, s);
            if new != old {
                if let Some(n) = new {
                    spaces.insert(id, n);
                    changed = true;
                }
            }
        };
        for &f in order {
            let func = ix.funcs[&f];
            for inst in func.blocks.iter().flat_map(|b| &b.instructions) {
                if inst.class.opcode == Op::FunctionCall {
                    let callee = inst.operands[0].unwrap_id_ref();
                    let params = &ix.funcs[&callee].parameters;
                    for (p, a) in params.iter().zip(&inst.operands[1..]) {
                        let a = a.unwrap_id_ref();
                        if matches!(ix.tys.get(ix.ty_of(a)), Ty::Pointer(..)) {
                            let s = spaces.get(&a).copied();
                            set(spaces, p.result_id.unwrap_or(0), s);
                        }
                    }
                }
                let Some(id) = inst.result_id else { continue };
                let Some(Ty::Pointer(sc, _)) = inst.result_type.map(|t| ix.tys.get(t)) else {
                    continue;
                };
                let sc = *sc;
                let fixed = space_of_class(sc);
                let from = |k: usize| inst.operands.get(k).and_then(|o| o.id_ref_any());
                let s = match inst.class.opcode {
                    _ if fixed.is_some() && inst.class.opcode != Op::FunctionCall => fixed,
                    Op::AccessChain
                    | Op::InBoundsAccessChain
                    | Op::PtrAccessChain
                    | Op::InBoundsPtrAccessChain
                    | Op::CopyObject
                    | Op::PtrCastToGeneric
                    | Op::GenericCastToPtr
                    | Op::GenericCastToPtrExplicit => from(0).and_then(|o| spaces.get(&o).copied()),
                    Op::Bitcast => {
                        let o = from(0).unwrap_or(0);
                        match ix.tys.get(ix.ty_of(o)) {
                            Ty::Pointer(..) => spaces.get(&o).copied(),
                            _ => Some(from_memory(sc)),
                        }
                    }
                    Op::Phi => {
                        let mut s = None;
                        for k in (0..inst.operands.len()).step_by(2) {
                            s = join(s, from(k).and_then(|o| spaces.get(&o).copied()));
                        }
                        s
                    }
                    Op::Select => join(
                        from(1).and_then(|o| spaces.get(&o).copied()),
                        from(2).and_then(|o| spaces.get(&o).copied()),
                    ),
                    Op::FunctionCall => {
                        let callee = inst.operands[0].unwrap_id_ref();
                        let mut s = None;
                        for ci in ix.funcs[&callee]
                            .blocks
                            .iter()
                            .flat_map(|b| &b.instructions)
                        {
                            if ci.class.opcode == Op::ReturnValue {
                                s = join(s, spaces.get(&ci.operands[0].unwrap_id_ref()).copied());
                            }
                        }
                        s
                    }
                    Op::Undef | Op::ConstantNull => None,
                    // Loaded from memory or made from an integer.
                    _ => Some(from_memory(sc)),
                };
                set(spaces, id, s);
            }
        }
        if !changed {
            return;
        }
    }
}
