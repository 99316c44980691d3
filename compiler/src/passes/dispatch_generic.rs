//! `dispatch_generic_accesses`: memory accesses through generic pointers
//! whose address space is only known at run time become calls of small
//! functions that branch on the pointer's tag.
//!
//! After `specialize_address_spaces` most generic pointers have one
//! statically known space (`analyses::address_space`) and the lowering
//! treats them exactly like the named space. What is left `Mixed` (a phi
//! or select of a `__local` and a `__global` pointer, a generic pointer
//! loaded from memory or made from an integer) is a tagged 64-bit value at
//! run time (`passes::lower::generic`): its top bits say global, local or
//! private. Each instruction that accesses memory through such a pointer
//! (loads, stores, atomics, memcpy, the OpenCL.std instructions with
//! pointer operands) is replaced by a call of a new function:
//!
//! ```text
//! %f = OpFunction %T None %fnty      ; (generic pointer, the other operands)
//!      %sem = OpGenericPtrMemSemantics %uint %p
//!      OpSelectionMerge %merge None
//!      OpSwitch %sem %global 256 %local 0 %private
//! %global:  %pg = OpGenericCastToPtr %CrossWorkgroup_T %p ; the access on %pg
//! %local:   %pl = OpGenericCastToPtr %Workgroup_T %p      ; the access on %pl
//! %private: %pp = OpGenericCastToPtr %Function_T %p       ; the access on %pp
//! %merge:   OpPhi of the three results; OpReturnValue
//! ```
//!
//! so that each arm is an access in a named space, which the lowering
//! handles as usual, and the tag test is `OpGenericPtrMemSemantics`,
//! lowered from the tag. The input is already structurized, and the new
//! function is a structured selection itself. An instruction with two
//! dynamic pointers (a memcpy between them) is dispatched on the first,
//! and each arm's copy then on the second. Atomics have no private arm
//! (OpenCL C 2.0 §6.13.11: atomic objects live in global or local memory;
//! an atomic through a private pointer is undefined and yields an
//! undefined value here without touching memory).
//!
//! Runs on the whole module after `specialize_address_spaces`, with the
//! spaces joined over every kernel (a pointer dynamic in one kernel is
//! dispatched in all that share the function: correct, only slower).
//!
//! Gaps: none known for the instructions listed; another instruction that
//! reads memory through a dynamic pointer is reported by the lowering
//! (`KernelFacts::space`), naming the construct.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{FunctionControl, Op, SelectionControl, StorageClass, Word};

use super::global_vars::global_offsets;
use super::module_edit::{block, fresh_id, global};
use crate::analyses::address_space::{infer_program_spaces, Space};

/// `OpGenericPtrMemSemantics` of a local pointer (WorkgroupMemory).
const LOCAL_SEMANTICS: u32 = 0x100;
/// OpenCL.std `printf`: its pointer operands are values, not accesses.
const OPENCL_STD_PRINTF: u32 = 184;

/// See the module documentation.
pub fn dispatch_generic_accesses(module: &mut dr::Module) {
    let mut spaces = infer_program_spaces(module, &global_offsets(module));
    if !spaces.values().any(|s| *s == Space::Mixed) {
        return;
    }
    // Each round removes one dynamic operand from one instruction; the arms
    // of a memcpy between two dynamic pointers add three more.
    for _round in 0..100_000 {
        let Some(site) = find_site(module, &spaces) else {
            return;
        };
        dispatch_site(module, &mut spaces, site);
    }
}

/// An instruction (function, block, instruction index) accessing memory
/// through the dynamic generic pointer in operand `operand`.
struct Site {
    func: usize,
    block: usize,
    inst: usize,
    operand: usize,
}

/// The atomic instructions (their pointer is the first operand).
pub(crate) fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFlagTestAndSet
            | Op::AtomicFlagClear
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
    )
}

/// Whether operand `k` of `inst` is an address `inst` accesses memory
/// through (if it is a pointer at all).
fn is_access_operand(inst: &Instruction, k: usize) -> bool {
    match inst.class.opcode {
        Op::Load | Op::CopyMemory | Op::CopyMemorySized => true,
        // Operand 1 is the stored value (maybe a pointer itself).
        Op::Store => k == 0,
        Op::ExtInst => {
            k >= 2
                && inst.operands.get(1) != Some(&Operand::LiteralExtInstInteger(OPENCL_STD_PRINTF))
        }
        op => is_atomic(op) && k == 0,
    }
}

/// Storage class and pointee of every pointer type; type of every
/// function-local value.
struct Types {
    pointers: HashMap<Word, (StorageClass, Word)>,
    value_ty: HashMap<Word, Word>,
}

impl Types {
    fn of(module: &dr::Module) -> Self {
        let mut pointers = HashMap::new();
        for g in &module.types_global_values {
            if g.class.opcode == Op::TypePointer {
                if let (Some(id), Operand::StorageClass(sc), Operand::IdRef(p)) =
                    (g.result_id, &g.operands[0], &g.operands[1])
                {
                    pointers.insert(id, (*sc, *p));
                }
            }
        }
        let mut value_ty = HashMap::new();
        for f in &module.functions {
            for i in f.parameters.iter().chain(f.all_inst_iter()) {
                if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                    value_ty.insert(r, t);
                }
            }
        }
        Types { pointers, value_ty }
    }

    fn generic_pointee(&self, id: Word) -> Option<Word> {
        match self.pointers.get(self.value_ty.get(&id)?) {
            Some((StorageClass::Generic, p)) => Some(*p),
            _ => None,
        }
    }
}

fn find_site(module: &dr::Module, spaces: &HashMap<Word, Space>) -> Option<Site> {
    let types = Types::of(module);
    for (fi, f) in module.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.instructions.iter().enumerate() {
                for (k, o) in inst.operands.iter().enumerate() {
                    let Operand::IdRef(id) = o else { continue };
                    if spaces.get(id) == Some(&Space::Mixed)
                        && is_access_operand(inst, k)
                        && types.generic_pointee(*id).is_some()
                    {
                        return Some(Site {
                            func: fi,
                            block: bi,
                            inst: ii,
                            operand: k,
                        });
                    }
                }
            }
        }
    }
    None
}

/// Replaces the instruction at `site` by a call of a new dispatching
/// function (module docs) and records the spaces of the new values.
fn dispatch_site(module: &mut dr::Module, spaces: &mut HashMap<Word, Space>, site: Site) {
    let types = Types::of(module);
    let func = &module.functions[site.func];
    let inst = func.blocks[site.block].instructions[site.inst].clone();
    let ptr = inst.operands[site.operand].unwrap_id_ref();
    let pointee = types.generic_pointee(ptr).unwrap_or(0);
    // The function's own values among the operands become parameters (the
    // dispatched pointer first); globals (constants, variables, types,
    // the extended instruction set) are used as they are.
    let local: HashSet<Word> = func
        .parameters
        .iter()
        .chain(func.all_inst_iter())
        .filter_map(|i| i.result_id)
        .collect();
    let mut args = vec![ptr];
    for o in &inst.operands {
        if let Operand::IdRef(id) = o {
            if local.contains(id) && !args.contains(id) {
                args.push(*id);
            }
        }
    }
    let params: Vec<(Word, Word)> = args
        .iter()
        .map(|a| (fresh_id(module), types.value_ty[a]))
        .collect();
    let renamed: HashMap<Word, Word> = args
        .iter()
        .zip(&params)
        .map(|(&a, &(p, _))| (a, p))
        .collect();
    for (a, &(p, _)) in args.iter().zip(&params) {
        if let Some(&s) = spaces.get(a) {
            spaces.insert(p, s);
        }
    }

    let void = global(module, Op::TypeVoid, None, vec![]);
    let uint = global(
        module,
        Op::TypeInt,
        None,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    );
    let result_ty = inst.result_type.unwrap_or(void);
    let mut fn_ops = vec![Operand::IdRef(result_ty)];
    fn_ops.extend(params.iter().map(|&(_, t)| Operand::IdRef(t)));
    let fn_ty = global(module, Op::TypeFunction, None, fn_ops);
    let fn_id = fresh_id(module);
    let p = params[0].0;

    let mut arms: Vec<(StorageClass, Space)> = vec![
        (StorageClass::CrossWorkgroup, Space::Global),
        (StorageClass::Workgroup, Space::Local),
    ];
    let atomic = is_atomic(inst.class.opcode);
    if !atomic {
        arms.push((StorageClass::Function, Space::Private));
    }
    let [entry, global_l, local_l, private_l, merge] = [(); 5].map(|_| fresh_id(module));
    let sem = fresh_id(module);
    let mut blocks = vec![block(
        entry,
        vec![
            Instruction::new(
                Op::GenericPtrMemSemantics,
                Some(uint),
                Some(sem),
                vec![Operand::IdRef(p)],
            ),
            Instruction::new(
                Op::SelectionMerge,
                None,
                None,
                vec![
                    Operand::IdRef(merge),
                    Operand::SelectionControl(SelectionControl::NONE),
                ],
            ),
            Instruction::new(
                Op::Switch,
                None,
                None,
                vec![
                    Operand::IdRef(sem),
                    Operand::IdRef(global_l),
                    Operand::LiteralBit32(LOCAL_SEMANTICS),
                    Operand::IdRef(local_l),
                    Operand::LiteralBit32(0),
                    Operand::IdRef(private_l),
                ],
            ),
        ],
    )];
    let mut phi = Vec::new();
    for (label, arm) in [global_l, local_l, private_l]
        .into_iter()
        .zip(arms.iter().map(Some).chain([None]))
    {
        let mut insts = Vec::new();
        match arm {
            Some(&(sc, space)) => {
                let pt = global(
                    module,
                    Op::TypePointer,
                    None,
                    vec![Operand::StorageClass(sc), Operand::IdRef(pointee)],
                );
                let named = fresh_id(module);
                spaces.insert(named, space);
                insts.push(Instruction::new(
                    Op::GenericCastToPtr,
                    Some(pt),
                    Some(named),
                    vec![Operand::IdRef(p)],
                ));
                let mut access = inst.clone();
                for (k, o) in access.operands.iter_mut().enumerate() {
                    if let Operand::IdRef(id) = o {
                        *id = if k == site.operand {
                            named
                        } else {
                            renamed.get(id).copied().unwrap_or(*id)
                        };
                    }
                }
                if let Some(r) = inst.result_id {
                    let nr = fresh_id(module);
                    if let Some(&s) = spaces.get(&r) {
                        spaces.insert(nr, s);
                    }
                    access.result_id = Some(nr);
                    phi.extend([Operand::IdRef(nr), Operand::IdRef(label)]);
                }
                insts.push(access);
            }
            // Atomics through a private pointer (module docs).
            None if atomic => {
                if inst.result_id.is_some() {
                    let undef = global(module, Op::Undef, Some(result_ty), vec![]);
                    phi.extend([Operand::IdRef(undef), Operand::IdRef(label)]);
                }
            }
            None => continue,
        }
        insts.push(Instruction::new(
            Op::Branch,
            None,
            None,
            vec![Operand::IdRef(merge)],
        ));
        blocks.push(block(label, insts));
    }
    let mut tail = Vec::new();
    if inst.result_id.is_some() {
        let r = fresh_id(module);
        if let Some(&s) = inst.result_id.and_then(|o| spaces.get(&o)) {
            spaces.insert(r, s);
        }
        tail.push(Instruction::new(Op::Phi, Some(result_ty), Some(r), phi));
        tail.push(Instruction::new(
            Op::ReturnValue,
            None,
            None,
            vec![Operand::IdRef(r)],
        ));
    } else {
        tail.push(Instruction::new(Op::Return, None, None, vec![]));
    }
    blocks.push(block(merge, tail));

    let mut f = dr::Function::new();
    f.def = Some(Instruction::new(
        Op::Function,
        Some(result_ty),
        Some(fn_id),
        vec![
            Operand::FunctionControl(FunctionControl::NONE),
            Operand::IdRef(fn_ty),
        ],
    ));
    f.end = Some(Instruction::new(Op::FunctionEnd, None, None, vec![]));
    f.parameters = params
        .iter()
        .map(|&(id, t)| Instruction::new(Op::FunctionParameter, Some(t), Some(id), vec![]))
        .collect();
    f.blocks = blocks;
    module.functions.push(f);

    let mut call_ops = vec![Operand::IdRef(fn_id)];
    call_ops.extend(args.iter().map(|&a| Operand::IdRef(a)));
    let call_result = match inst.result_id {
        Some(r) => r,
        None => fresh_id(module),
    };
    module.functions[site.func].blocks[site.block].instructions[site.inst] = Instruction::new(
        Op::FunctionCall,
        Some(result_ty),
        Some(call_result),
        call_ops,
    );
}
