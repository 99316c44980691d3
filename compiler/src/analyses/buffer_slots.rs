//! Descriptor addressing's slot analysis: which buffers each global
//! pointer value of a kernel may point into (`passes::lower::descriptor`).
//!
//! A global pointer is `slot << 32 | byte offset` there: argument `i` is
//! slot `arg_slot(i)`, the program's global-variable buffer
//! `GLOBAL_VARIABLES_SLOT`, NULL 0.
//!
//! # Algorithm
//!
//! A data-flow pass over the kernel's call graph: the kernel's buffer
//! parameters and the global-variable buffer's variables are roots (NULL
//! and undefined pointers point nowhere); access chains, casts, integer
//! add/sub/and/or/xor, phis, selects, call arguments and returned values
//! propagate (joining sets); a pointer loaded from memory or made from an
//! unrelated integer is `Unknown` (any of the kernel's buffers). Iterates
//! to a fixed point (at most 64 rounds).
//!
//! Gaps: a pointer stored in memory and loaded back is `Unknown`, so its
//! accesses select among every buffer at run time.

use std::collections::{BTreeSet, HashMap};

use rspirv::spirv::{Op, Word};

use super::module_index::ModuleIndex;
use super::type_table::Ty;
use crate::abi::GLOBAL_VARIABLES_SLOT;

/// Which buffers a pointer value may point into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slots {
    Known(BTreeSet<u32>),
    /// Any buffer of the kernel (decided at run time).
    Unknown,
}

impl Slots {
    pub fn one(s: u32) -> Self {
        Slots::Known(BTreeSet::from([s]))
    }

    pub fn join(a: Option<&Slots>, b: Option<&Slots>) -> Option<Slots> {
        match (a, b) {
            (None, None) => None,
            (Some(x), None) | (None, Some(x)) => Some(x.clone()),
            (Some(Slots::Unknown), _) | (_, Some(Slots::Unknown)) => Some(Slots::Unknown),
            (Some(Slots::Known(x)), Some(Slots::Known(y))) => {
                Some(Slots::Known(x.union(y).copied().collect()))
            }
        }
    }
}

/// Slot of kernel argument `i`.
pub fn arg_slot(i: usize) -> u32 {
    i as u32 + 1
}

/// The slots every pointer (and pointer-derived integer) value of the
/// kernel may point into (module docs): `entry_fn` and the functions it
/// reaches (`order`); `buffers[i]`: parameter `i` of `entry_fn` is a
/// buffer; `global_offsets`: the variables in the program's
/// global-variable buffer.
pub fn infer_buffer_slots(
    ix: &ModuleIndex,
    global_offsets: &HashMap<Word, u64>,
    order: &[Word],
    entry_fn: Word,
    buffers: &[bool],
) -> HashMap<Word, Slots> {
    let mut slots: HashMap<Word, Slots> = HashMap::new();
    for (i, p) in ix.funcs[&entry_fn].parameters.iter().enumerate() {
        if buffers.get(i) == Some(&true) {
            slots.insert(p.result_id.unwrap_or(0), Slots::one(arg_slot(i)));
        }
    }
    for &id in global_offsets.keys() {
        slots.insert(id, Slots::one(GLOBAL_VARIABLES_SLOT));
    }
    for (&id, g) in &ix.globals {
        if matches!(g.class.opcode, Op::ConstantNull | Op::Undef)
            && matches!(ix.tys.get(g.result_type.unwrap_or(0)), Ty::Pointer(..))
        {
            slots.insert(id, Slots::Known(BTreeSet::new()));
        }
    }
    for _round in 0..64 {
        let mut changed = false;
        let mut set = |slots: &mut HashMap<Word, Slots>, id: Word, s: Option<Slots>| {
            let new = Slots::join(slots.get(&id), s.as_ref());
            if let Some(n) = new {
                if slots.get(&id) != Some(&n) {
                    slots.insert(id, n);
                    changed = true;
                }
            }
        };
        for &f in order {
            for inst in ix.funcs[&f].blocks.iter().flat_map(|b| &b.instructions) {
                let from = |slots: &HashMap<Word, Slots>, k: usize| {
                    inst.operands
                        .get(k)
                        .and_then(|o| o.id_ref_any())
                        .and_then(|o| slots.get(&o))
                        .cloned()
                };
                if inst.class.opcode == Op::FunctionCall {
                    let callee = inst.operands[0].unwrap_id_ref();
                    let params = &ix.funcs[&callee].parameters;
                    for (k, p) in params.iter().enumerate() {
                        let s = from(&slots, k + 1);
                        set(&mut slots, p.result_id.unwrap_or(0), s);
                    }
                }
                let Some(id) = inst.result_id else { continue };
                let rty = inst.result_type.map(|t| ix.tys.get(t).clone());
                let is_ptr = matches!(rty, Some(Ty::Pointer(..)));
                let is_int = matches!(rty, Some(Ty::Int(_)));
                if !is_ptr && !is_int {
                    continue;
                }
                let s = match inst.class.opcode {
                    Op::AccessChain
                    | Op::InBoundsAccessChain
                    | Op::PtrAccessChain
                    | Op::InBoundsPtrAccessChain
                    | Op::CopyObject
                    | Op::PtrCastToGeneric
                    | Op::GenericCastToPtr
                    | Op::GenericCastToPtrExplicit
                    | Op::ConvertPtrToU
                    | Op::UConvert
                    | Op::SConvert
                    | Op::Bitcast => from(&slots, 0),
                    Op::IAdd | Op::ISub | Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor => {
                        Slots::join(from(&slots, 0).as_ref(), from(&slots, 1).as_ref())
                    }
                    Op::ConvertUToPtr => Some(from(&slots, 0).unwrap_or(Slots::Unknown)),
                    Op::Phi => {
                        let mut s = None;
                        for k in (0..inst.operands.len()).step_by(2) {
                            s = Slots::join(s.as_ref(), from(&slots, k).as_ref());
                        }
                        s
                    }
                    Op::Select => Slots::join(from(&slots, 1).as_ref(), from(&slots, 2).as_ref()),
                    Op::FunctionCall => {
                        let callee = inst.operands[0].unwrap_id_ref();
                        let mut s = None;
                        for ci in ix.funcs[&callee]
                            .blocks
                            .iter()
                            .flat_map(|b| &b.instructions)
                        {
                            if ci.class.opcode == Op::ReturnValue {
                                let r = slots.get(&ci.operands[0].unwrap_id_ref());
                                s = Slots::join(s.as_ref(), r);
                            }
                        }
                        s
                    }
                    Op::Variable => None,
                    // Loaded from memory, or anything else: any buffer.
                    _ if is_ptr => Some(Slots::Unknown),
                    _ => None,
                };
                // Bitcasts of an integer to a pointer: any buffer.
                let s = match s {
                    None if is_ptr && inst.class.opcode == Op::Bitcast => Some(Slots::Unknown),
                    s => s,
                };
                set(&mut slots, id, s);
            }
        }
        if !changed {
            break;
        }
    }
    slots
}
