//! Which private variables can live in arrays of their own instead of
//! slices of the shared private frame (`passes::lower::variables`,
//! `split_private_frame`).
//!
//! The lowering gives private memory reached through pointers one `u32`
//! word array per invocation (the frame), every pointer a byte offset
//! into it. Drivers do poorly with one big array indexed everywhere
//! (NVIDIA's compiler neither splits nor scalar-replaces it; hashcat's MD5
//! kernel: ~4600 access chains into it). A variable whose pointers never
//! leave the variable can instead have an array of its own, which the
//! driver's scalar replacement handles like any local array.
//!
//! # Algorithm
//!
//! Over the kernel's call graph, every `OpVariable` (Function storage,
//! not an image or sampler) is a candidate; its *pointers* are the
//! variable, every access chain, pointer-to-pointer bitcast, copy and
//! cast to or from generic of one of its pointers, every phi or select
//! that chooses between its pointers only, and every pointer parameter a
//! call passes one of its pointers to (iterated to a fixed point, so any
//! block or function order works). Generic ones count: in
//! OpenCL C 2.0 and later `(uchar *)array` is a generic pointer, and where
//! it is only accessed through, its space is known statically. A
//! candidate is kept when each use of each of its pointers is
//!
//! * the pointer operand of an `OpLoad` or `OpStore`,
//! * an operand of `OpCopyMemory`/`OpCopyMemorySized`,
//! * the base of an access chain, a bitcast to another pointer type, an
//!   `OpCopyObject` or a cast to or from generic (which make another of
//!   its pointers),
//! * `OpLifetimeStart`/`OpLifetimeStop`,
//! * an operand of a phi or select whose other operands point into the
//!   same variable (clang merges the stores of a switch's cases into one
//!   store through a phi of their pointers: hashcat's
//!   `switch_buffer_by_offset_le`),
//! * an argument of a call whose parameter receives pointers into this
//!   variable only, from every call in the kernel (hashcat's
//!   `md5_transform(ctx->w0, ...)`: one variable behind each parameter).
//!
//! Any other use lets the pointer escape and the variable stays in the
//! frame: stored as a value, converted to an integer, returned, merged by
//! a phi or select with a pointer into another variable (or anything
//! else: a global pointer, NULL), compared, asked for its fence (`get_fence`), an atomic's or an
//! extended instruction's operand, a printf argument, passed to a
//! parameter that also receives other pointers (a helper called with two
//! different arrays keeps both in the frame).
//!
//! Offsets stay byte offsets within the variable (the pointer's value
//! starts at 0), so type punning is the same word arithmetic as in the
//! frame, and an out-of-bounds offset is as undefined as in OpenCL C.
//! A variable reached through a parameter lives in a Private array (per
//! invocation, like the frame: OpenCL C has no recursion), any other in a
//! Function array (`passes::lower::variables`).
//!
//! Gaps: a helper called with pointers into different variables, or a
//! phi of pointers into different variables, keeps them all in the frame
//! (cloning the helper per variable, or giving such variables one array
//! together, would free them).

use std::collections::{HashMap, HashSet};

use rspirv::dr;
use rspirv::spirv::{Op, StorageClass, Word};

use super::module_index::ModuleIndex;
use super::type_table::Ty;

/// The pointer values of every private variable of the kernel's functions
/// `order` that gets an array of its own (module docs): pointer id → the
/// variable's id (a variable maps to itself; a parameter that points into
/// one maps to it too).
pub fn own_variable_pointers(ix: &ModuleIndex, order: &[Word]) -> HashMap<Word, Word> {
    let funcs: Vec<&dr::Function> = order.iter().map(|f| ix.funcs[f]).collect();
    let insts = || {
        funcs
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
    };
    let mut root: HashMap<Word, Word> = HashMap::new();
    for inst in insts() {
        if inst.class.opcode != Op::Variable {
            continue;
        }
        let Some(Ty::Pointer(StorageClass::Function, pointee)) =
            inst.result_type.map(|t| ix.tys.get(t))
        else {
            continue;
        };
        if matches!(
            ix.tys.get(*pointee),
            Ty::Opaque(Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage)
        ) {
            continue;
        }
        if let Some(id) = inst.result_id {
            root.insert(id, id);
        }
    }
    if root.is_empty() {
        return root;
    }
    // Derived pointers and the parameters they are passed to, to a fixed
    // point (a use may precede its definition in block order, a callee its
    // caller). A parameter takes the root of the first argument seen; the
    // check below makes sure every call agrees.
    loop {
        let mut changed = false;
        for inst in insts() {
            if inst.class.opcode == Op::FunctionCall {
                for (p, a) in call_pairs(ix, inst) {
                    if let (Some(&r), false) = (root.get(&a), root.contains_key(&p)) {
                        root.insert(p, r);
                        changed = true;
                    }
                }
                continue;
            }
            if let Some(ops) = merged_pointers(inst) {
                let id = inst.result_id.unwrap_or(0);
                if let (Some(r), false) = (
                    ops.iter().find_map(|o| root.get(o)).copied(),
                    root.contains_key(&id),
                ) {
                    root.insert(id, r);
                    changed = true;
                }
                continue;
            }
            let (Some(id), Some(&r)) = (
                inst.result_id,
                inst.operands
                    .first()
                    .and_then(|o| o.id_ref_any())
                    .and_then(|o| root.get(&o)),
            ) else {
                continue;
            };
            if derives_pointer(ix, inst) && !root.contains_key(&id) {
                root.insert(id, r);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut escaped: HashSet<Word> = HashSet::new();
    for inst in insts() {
        if inst.class.opcode == Op::FunctionCall && !ix.funcs.contains_key(&callee_of(inst)) {
            // No body: nothing to follow the pointers into.
            let args = inst.operands[1..].iter().filter_map(|o| o.id_ref_any());
            escaped.extend(args.filter_map(|a| root.get(&a)).copied());
            continue;
        }
        if inst.class.opcode == Op::FunctionCall {
            // Every argument for a parameter that points into a variable
            // must point into that same variable, and the reverse.
            for (p, a) in call_pairs(ix, inst) {
                let (rp, ra) = (root.get(&p), root.get(&a));
                if rp != ra {
                    escaped.extend(rp.into_iter().chain(ra).copied());
                }
            }
            continue;
        }
        if let Some(ops) = merged_pointers(inst) {
            // Every merged pointer must point into the merge's variable.
            let rm = inst.result_id.and_then(|id| root.get(&id));
            for o in ops {
                let ro = root.get(&o);
                if ro != rm {
                    escaped.extend(rm.into_iter().chain(ro).copied());
                }
            }
            continue;
        }
        for (k, o) in inst.operands.iter().enumerate() {
            let Some(&r) = o.id_ref_any().and_then(|id| root.get(&id)) else {
                continue;
            };
            if !is_access_use(ix, inst, k) {
                escaped.insert(r);
            }
        }
    }
    root.retain(|_, r| !escaped.contains(r));
    root
}

/// The (parameter, argument) pairs of a call whose parameter is a pointer
/// (images and samplers are no concern here: they are no variables').
fn call_pairs(ix: &ModuleIndex, call: &dr::Instruction) -> Vec<(Word, Word)> {
    let Some(f) = ix.funcs.get(&callee_of(call)) else {
        return Vec::new();
    };
    f.parameters
        .iter()
        .zip(&call.operands[1..])
        .filter(|(p, _)| matches!(p.result_type.map(|t| ix.tys.get(t)), Some(Ty::Pointer(..))))
        .filter_map(|(p, a)| Some((p.result_id?, a.id_ref_any()?)))
        .collect()
}

/// The values an `OpPhi` or `OpSelect` chooses between (phi: every
/// incoming value; select: both arms), or None for other instructions.
fn merged_pointers(inst: &dr::Instruction) -> Option<Vec<Word>> {
    let ids = |ops: &[dr::Operand]| ops.iter().filter_map(|o| o.id_ref_any()).collect();
    match inst.class.opcode {
        Op::Phi => Some(ids(&inst
            .operands
            .iter()
            .step_by(2)
            .cloned()
            .collect::<Vec<_>>())),
        Op::Select => Some(ids(inst.operands.get(1..3)?)),
        _ => None,
    }
}

fn callee_of(call: &dr::Instruction) -> Word {
    call.operands[0].unwrap_id_ref()
}

/// Whether `inst`, whose operand 0 is a pointer of a candidate, makes
/// another pointer into the same variable.
fn derives_pointer(ix: &ModuleIndex, inst: &dr::Instruction) -> bool {
    match inst.class.opcode {
        Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain
        | Op::CopyObject
        | Op::PtrCastToGeneric
        | Op::GenericCastToPtr
        | Op::GenericCastToPtrExplicit => true,
        Op::Bitcast => matches!(
            inst.result_type.map(|t| ix.tys.get(t)),
            Some(Ty::Pointer(..))
        ),
        _ => false,
    }
}

/// Whether operand `k` of `inst` (not a call), a pointer of a candidate,
/// is used in a way that keeps it within its variable (module docs).
fn is_access_use(ix: &ModuleIndex, inst: &dr::Instruction, k: usize) -> bool {
    match inst.class.opcode {
        Op::Load => k == 0,
        Op::Store => k == 0,
        Op::CopyMemory | Op::CopyMemorySized => k <= 1,
        Op::LifetimeStart | Op::LifetimeStop => true,
        _ => k == 0 && derives_pointer(ix, inst),
    }
}
