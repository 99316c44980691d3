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
//! Per function of the kernel, every `OpVariable` (Function storage, not
//! an image or sampler) is a candidate; its *pointers* are the variable
//! and every access chain, pointer-to-pointer bitcast, copy and cast to
//! or from generic of one of its pointers (iterated to a fixed point, so
//! any block order works). Generic ones count: in OpenCL C 2.0 and later
//! `(uchar *)array` is a generic pointer, and where it is only accessed
//! through, its space is known statically. A candidate is kept when each
//! use of each of its pointers is
//!
//! * the pointer operand of an `OpLoad` or `OpStore`,
//! * an operand of `OpCopyMemory`/`OpCopyMemorySized`,
//! * the base of an access chain, a bitcast to another pointer type, an
//!   `OpCopyObject` or a cast to or from generic (which make another of
//!   its pointers),
//! * `OpLifetimeStart`/`OpLifetimeStop`.
//!
//! Any other use lets the pointer escape and the variable stays in the
//! frame: stored as a value, converted to an integer, passed to a
//! function, returned, a phi or select operand (which could mix it with
//! another variable's pointer), compared, asked for its fence
//! (`get_fence`), an atomic's or an extended instruction's operand, a
//! printf argument.
//!
//! Offsets stay byte offsets within the variable (the pointer's value
//! starts at 0), so type punning is the same word arithmetic as in the
//! frame, and an out-of-bounds offset is as undefined as in OpenCL C.
//!
//! Gaps: a pointer passed to a helper function keeps its variable in the
//! frame even where every call passes the same variable (the callee's
//! frame is per function, the array would have to be per invocation).

use std::collections::{HashMap, HashSet};

use rspirv::dr;
use rspirv::spirv::{Op, StorageClass, Word};

use super::module_index::ModuleIndex;
use super::type_table::Ty;

/// The pointer values of every private variable of the kernel's functions
/// `order` that gets an array of its own (module docs): pointer id → the
/// variable's id (a variable maps to itself).
pub fn own_variable_pointers(ix: &ModuleIndex, order: &[Word]) -> HashMap<Word, Word> {
    let mut all = HashMap::new();
    for &f in order {
        all.extend(own_in_function(ix, ix.funcs[&f]));
    }
    all
}

/// `own_variable_pointers` of one function.
fn own_in_function(ix: &ModuleIndex, f: &dr::Function) -> HashMap<Word, Word> {
    let insts = || f.blocks.iter().flat_map(|b| &b.instructions);
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
    // Derived pointers, to a fixed point (a use may precede its definition
    // in block order).
    loop {
        let mut changed = false;
        for inst in insts() {
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

/// Whether operand `k` of `inst`, a pointer of a candidate, is used in a
/// way that keeps it within its variable (module docs).
fn is_access_use(ix: &ModuleIndex, inst: &dr::Instruction, k: usize) -> bool {
    match inst.class.opcode {
        Op::Load => k == 0,
        Op::Store => k == 0,
        Op::CopyMemory | Op::CopyMemorySized => k <= 1,
        Op::LifetimeStart | Op::LifetimeStop => true,
        _ => k == 0 && derives_pointer(ix, inst),
    }
}
