//! The Vulkan memory model for kernels with ordered atomics or fences
//! (`DeviceCaps::vulkan_memory_model`).
//!
//! Under the GLSL450 memory model a release/acquire pair orders the
//! atomics, but the kernel's ordinary loads and stores of `__global`
//! memory are not "coherent": NVIDIA's driver may serve them from the SM's
//! L1 cache, which is not coherent across SMs, so a consumer that acquires
//! a node with a compare-exchange and then reads `node->next` with a plain
//! load can read stale data (tests/atomics_orders.rs, lock-free stack, on
//! an H100). OpenCL's release/acquire makes every earlier plain store of
//! the releasing work-item visible to the acquiring one's later plain
//! loads. The Vulkan memory model (SPIR-V 1.5 core) says exactly that:
//!
//! * `OpMemoryModel ... Vulkan`, capabilities VulkanMemoryModel and, when
//!   an atomic, fence or barrier has Device scope, VulkanMemoryModelDeviceScope;
//! * every atomic, OpMemoryBarrier and OpControlBarrier semantics with
//!   Release or AcquireRelease gets MakeAvailable, with Acquire or
//!   AcquireRelease MakeVisible (the storage-class bits stay as `atomic`
//!   chose them; SequentiallyConsistent is still never emitted);
//! * every OpLoad/OpStore through a PhysicalStorageBuffer, StorageBuffer or
//!   Workgroup pointer gets the NonPrivatePointer memory operand, so the
//!   atomics' availability and visibility operations cover them (no
//!   MakePointerAvailable/Visible: the atomics carry them).
//!
//! It applies to a kernel whose source has a non-relaxed atomic or fence
//! (`atomic::Atomics::ordered`, set before `rmw_ordering` drops the
//! semantics); other kernels keep GLSL450 and are unchanged. A kernel with
//! a read_write image (whose variable GLSL450 decorates Coherent, which the
//! Vulkan model forbids) keeps GLSL450 too.
//!
//! Gaps: see above (read_write images keep GLSL450).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{
    Capability, Decoration, MemoryAccess, MemoryModel, MemorySemantics as M, Op, Scope,
    StorageClass, Word,
};

/// Positions of (scope, semantics...) operands of an instruction that
/// carries memory semantics.
fn sem_operands(op: Op) -> Option<(usize, &'static [usize])> {
    Some(match op {
        Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => (1, &[2, 3]),
        Op::AtomicLoad
        | Op::AtomicStore
        | Op::AtomicExchange
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
        | Op::AtomicFMaxEXT => (1, &[2]),
        Op::MemoryBarrier => (0, &[1]),
        Op::ControlBarrier => (1, &[2]),
        _ => return None,
    })
}

/// The semantics with the Vulkan model's availability/visibility bits.
fn with_av(s: u32) -> u32 {
    let m = M::from_bits_truncate(s);
    let mut n = m;
    if m.intersects(M::RELEASE | M::ACQUIRE_RELEASE) {
        n |= M::MAKE_AVAILABLE;
    }
    if m.intersects(M::ACQUIRE | M::ACQUIRE_RELEASE) {
        n |= M::MAKE_VISIBLE;
    }
    n.bits() | (s & !M::all().bits())
}

/// Switches `m` (a lowered kernel) to the Vulkan memory model (module
/// docs). Returns false, leaving `m` as it is, where the module cannot use
/// it: a Coherent or Volatile decoration, or Device scope without
/// `device_scope` (VulkanMemoryModelDeviceScope).
pub(crate) fn apply(m: &mut Module, device_scope: bool) -> bool {
    let forbidden = m.annotations.iter().any(|a| {
        a.operands.iter().any(|o| {
            matches!(
                o,
                Operand::Decoration(Decoration::Coherent | Decoration::Volatile)
            )
        })
    });
    if forbidden {
        return false;
    }
    let mut u32t = None;
    let mut ptr_class: HashMap<Word, StorageClass> = HashMap::new();
    for g in &m.types_global_values {
        match g.class.opcode {
            Op::TypeInt if g.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)] => {
                u32t = g.result_id;
            }
            Op::TypePointer => {
                if let (Some(id), Some(&Operand::StorageClass(sc))) =
                    (g.result_id, g.operands.first())
                {
                    ptr_class.insert(id, sc);
                }
            }
            _ => {}
        }
    }
    let Some(u32t) = u32t else { return false };
    let mut value: HashMap<Word, u32> = HashMap::new();
    let mut constant: HashMap<u32, Word> = HashMap::new();
    for g in &m.types_global_values {
        if g.class.opcode == Op::Constant && g.result_type == Some(u32t) {
            if let (Some(id), Some(&Operand::LiteralBit32(v))) = (g.result_id, g.operands.first()) {
                value.insert(id, v);
                constant.entry(v).or_insert(id);
            }
        }
    }
    // Pointer ids → their storage class.
    let mut class_of: HashMap<Word, StorageClass> = HashMap::new();
    let mut note = |i: &Instruction| {
        if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
            if let Some(&sc) = ptr_class.get(&t) {
                class_of.insert(id, sc);
            }
        }
    };
    m.types_global_values.iter().for_each(&mut note);
    for f in &m.functions {
        f.parameters.iter().for_each(&mut note);
        for b in &f.blocks {
            b.instructions.iter().for_each(&mut note);
        }
    }
    // Device scope needs VulkanMemoryModelDeviceScope.
    let device = Scope::Device as u32;
    let mut uses_device = false;
    for f in &m.functions {
        for b in &f.blocks {
            for i in &b.instructions {
                let Some((sc, _)) = sem_operands(i.class.opcode) else {
                    continue;
                };
                let scopes = if i.class.opcode == Op::ControlBarrier {
                    &i.operands[..2]
                } else {
                    &i.operands[sc..=sc]
                };
                uses_device |= scopes
                    .iter()
                    .any(|o| matches!(o, Operand::IdRef(id) if value.get(id) == Some(&device)));
            }
        }
    }
    if uses_device && !device_scope {
        return false;
    }
    let mut bound = m.header.as_ref().map_or(0, |h| h.bound);
    let mut new_consts = Vec::new();
    let nonprivate = |sc: Option<&StorageClass>| {
        matches!(
            sc,
            Some(
                StorageClass::PhysicalStorageBuffer
                    | StorageClass::StorageBuffer
                    | StorageClass::Workgroup
            )
        )
    };
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for i in &mut b.instructions {
                let op = i.class.opcode;
                let at = match op {
                    Op::Load => 1,
                    Op::Store => 2,
                    _ => {
                        if let Some((_, sems)) = sem_operands(op) {
                            for &k in sems {
                                let Some(&Operand::IdRef(id)) = i.operands.get(k) else {
                                    continue;
                                };
                                let Some(&v) = value.get(&id) else { continue };
                                let n = with_av(v);
                                if n != v {
                                    let c = *constant.entry(n).or_insert_with(|| {
                                        let c = bound;
                                        bound += 1;
                                        new_consts.push(Instruction::new(
                                            Op::Constant,
                                            Some(u32t),
                                            Some(c),
                                            vec![Operand::LiteralBit32(n)],
                                        ));
                                        c
                                    });
                                    i.operands[k] = Operand::IdRef(c);
                                }
                            }
                        }
                        continue;
                    }
                };
                let Some(&Operand::IdRef(p)) = i.operands.first() else {
                    continue;
                };
                if !nonprivate(class_of.get(&p)) {
                    continue;
                }
                match i.operands.get_mut(at) {
                    Some(Operand::MemoryAccess(ma)) => *ma |= MemoryAccess::NON_PRIVATE_POINTER,
                    _ => i
                        .operands
                        .push(Operand::MemoryAccess(MemoryAccess::NON_PRIVATE_POINTER)),
                }
            }
        }
    }
    m.types_global_values.extend(new_consts);
    if let Some(h) = m.header.as_mut() {
        h.bound = bound;
    }
    let mut caps = vec![Capability::VulkanMemoryModel];
    if uses_device {
        caps.push(Capability::VulkanMemoryModelDeviceScope);
    }
    for c in caps {
        m.capabilities.push(Instruction::new(
            Op::Capability,
            None,
            None,
            vec![Operand::Capability(c)],
        ));
    }
    if let Some(mm) = m.memory_model.as_mut() {
        mm.operands[1] = Operand::MemoryModel(MemoryModel::Vulkan);
    }
    true
}
