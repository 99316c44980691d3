//! Atomics, fences and barriers: OpenCL's memory orders and scopes in
//! Vulkan's SPIR-V environment.
//!
//! llvm-spirv-15 writes OpenCL's orders and scopes as they are: scopes
//! CrossDevice (memory_scope_all_svm_devices), Device, Workgroup, Subgroup
//! and Invocation (memory_scope_work_item); semantics with
//! SequentiallyConsistent, AcquireRelease, Acquire or Release and, for
//! atomics, no storage-class bits (fences and barriers carry their
//! CLK_*_MEM_FENCE flags as CrossWorkgroupMemory / WorkgroupMemory /
//! ImageMemory). The OpenCL 1.x functions (`atomic_add`, `atom_*`) get
//! Workgroup scope and relaxed semantics whatever memory they touch.
//!
//! # Mapping
//!
//! This module emits the GLSL450 memory model's semantics (in that model
//! an acquire/release with a storage class makes that storage class's
//! writes available/visible at the given scope). Where the device has the
//! Vulkan memory model (`DeviceCaps::vulkan_memory_model`), a kernel with
//! a non-relaxed atomic or fence is then switched to it by `vmm`
//! (MakeAvailable/MakeVisible on the semantics, NonPrivatePointer on plain
//! global and local loads and stores): under GLSL450, NVIDIA's plain
//! global loads may read a per-SM cache that a release in another SM does
//! not reach (tests/atomics_orders.rs, lock-free stack on an H100).
//!
//! * **Atomics on `__global` memory** (buffer device addresses or, with
//!   descriptor addressing, storage buffers): memory scope Device, whatever
//!   the input says. CrossDevice is not a Vulkan scope; without SVM no
//!   memory is shared with the host or another device while a kernel runs
//!   (a cl_mem is used by one device at a time, `core::residency`), so
//!   all-devices scope *is* device scope. Narrower scopes are widened: the
//!   1.x functions arrive with Workgroup scope although OpenCL makes them
//!   atomic across the device, and a wider scope implements a narrower one.
//! * **Atomics on `__local` memory**: Workgroup scope (OpenCL: atomics on
//!   local memory order within the work-group and ignore the scope).
//!   64-bit ones are emulated under a work-group lock (`local64`): the
//!   lock's acquire/release carry the orders given.
//! * **Orders** of atomics: SequentiallyConsistent and AcquireRelease become
//!   AcquireRelease, Acquire and Release stay; then clamped to what the
//!   instruction may carry in Vulkan: OpAtomicLoad at most Acquire,
//!   OpAtomicStore at most Release, the Unequal semantics of a compare-
//!   exchange at most Acquire (and Equal is raised to at least Unequal's
//!   order, as SPIR-V requires). Relaxed stays 0 (no storage bits).
//! * **Storage classes** of a non-relaxed atomic: UniformMemory |
//!   WorkgroupMemory, both. OpenCL orders at least the address space of
//!   the object; ordering both lets a `__global` flag publish `__local`
//!   data too and costs nothing measurable (Vulkan requires at least one).
//! * **Fences** (`atomic_work_item_fence`, `mem_fence`, `read_mem_fence`,
//!   `write_mem_fence`: OpMemoryBarrier): the storage classes of the flags
//!   given (CLK_GLOBAL_MEM_FENCE → UniformMemory, CLK_LOCAL_MEM_FENCE →
//!   WorkgroupMemory, CLK_IMAGE_MEM_FENCE → ImageMemory), the order as for
//!   atomics (seq_cst → acq_rel); a relaxed fence or one without flags
//!   orders nothing and is dropped. Scope: CrossDevice and Device →
//!   Device, Workgroup, Subgroup (Workgroup without sub-groups) and
//!   Invocation as given.
//! * **Barriers** (OpControlBarrier): Workgroup execution scope (Subgroup
//!   for `sub_group_barrier`), AcquireRelease with the flags' storage
//!   classes, memory scope as for fences (Invocation: Workgroup).
//!
//! # Drivers whose memory barriers stall (`DeviceCaps::rmw_ordering`)
//!
//! lavapipe 22.3 turns every memory barrier (OpMemoryBarrier, and the
//! barrier spirv-to-NIR puts around an atomic with acquire/release
//! semantics) into a work-group execution barrier, which loses work in
//! divergent control flow (a compare-exchange loop of a lock-free stack
//! dropped most pushes). Its read-modify-writes are sequentially
//! consistent LLVM atomics on the CPU, which order memory by themselves,
//! so there: atomics carry no semantics, an ordered OpAtomicLoad becomes
//! OpAtomicOr with 0, an ordered OpAtomicStore (and flag clear) an
//! OpAtomicExchange whose result is unused, and an ordered fence an
//! OpAtomicIIncrement of a Workgroup word of its own (not an idempotent
//! operation, which LLVM may turn into a plain load). Barriers stay.
//!
//! # What seq_cst loses
//!
//! Vulkan has no sequentially consistent order (its memory model treats
//! SequentiallyConsistent as AcquireRelease), so memory_order_seq_cst is
//! implemented as acq_rel: every single-location guarantee holds
//! (coherence, atomicity of read-modify-writes, one modification order
//! per object) and so does every release/acquire synchronization (message
//! passing, locks, ticket counters), but the single total order S over all
//! seq_cst operations on *different* objects is not promised: the
//! store-buffering (Dekker) and IRIW litmus outcomes that seq_cst forbids
//! may be observed on hardware that allows them (lavapipe's atomics are
//! sequentially consistent x86/ARM atomics; NVIDIA's acquire/release are
//! not SC). Kernels that need that order can use read-modify-writes for
//! their seq_cst loads and stores (e.g. `atomic_fetch_or(p, 0)`,
//! `atomic_exchange`): acq_rel read-modify-writes of one object are
//! totally ordered and synchronize with each other.
//!
//! # Files
//!
//! This file holds the vocabulary (`Order`, `Op64`) and the state of the
//! kernel's atomics (`Atomics`, `Local64`, both owned by `LowerAtomics`,
//! the concern's view of the lowering); `ops` lowers atomics, fences and
//! barriers, `float` the float add/min/max of cl_ext_float_atomics,
//! `lower::local64` emulates 64-bit atomics on `__local` memory.
//!
//! Gaps: seq_cst is acq_rel ("What seq_cst loses" above).

mod float;
mod ops;

use std::collections::HashMap;

use rspirv::dr;
use rspirv::spirv::{MemorySemantics as M, Op, Word};

use crate::passes::lower::context::Lower;

/// An OpenCL memory order, as Vulkan can express it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Order {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

impl Order {
    /// The order of input semantics (SequentiallyConsistent → AcqRel).
    pub(crate) fn of(s: M) -> Order {
        let acq = s.contains(M::ACQUIRE);
        let rel = s.contains(M::RELEASE);
        if s.intersects(M::SEQUENTIALLY_CONSISTENT | M::ACQUIRE_RELEASE) || (acq && rel) {
            Order::AcqRel
        } else if acq {
            Order::Acquire
        } else if rel {
            Order::Release
        } else {
            Order::Relaxed
        }
    }

    /// At most an acquire (loads, the Unequal semantics of compare-exchange).
    pub(crate) fn for_load(self) -> Order {
        if self == Order::Relaxed {
            Order::Relaxed
        } else {
            Order::Acquire
        }
    }

    /// At most a release (stores).
    pub(crate) fn for_store(self) -> Order {
        if self == Order::Relaxed {
            Order::Relaxed
        } else {
            Order::Release
        }
    }

    /// The least order at least as strong as both.
    pub(crate) fn join(self, other: Order) -> Order {
        match (self, other) {
            (a, b) if a == b => a,
            (Order::Relaxed, x) | (x, Order::Relaxed) => x,
            _ => Order::AcqRel,
        }
    }

    /// Vulkan semantics: the order's bit and `storage`; 0 when relaxed.
    pub(crate) fn semantics(self, storage: M) -> M {
        match self {
            Order::Relaxed => M::empty(),
            Order::Acquire => M::ACQUIRE | storage,
            Order::Release => M::RELEASE | storage,
            Order::AcqRel => M::ACQUIRE_RELEASE | storage,
        }
    }
}

/// The Vulkan storage-class bits of input fence flags.
pub(crate) fn fence_storage(s: M) -> M {
    let mut n = M::empty();
    if s.intersects(M::CROSS_WORKGROUP_MEMORY | M::UNIFORM_MEMORY) {
        n |= M::UNIFORM_MEMORY;
    }
    if s.contains(M::WORKGROUP_MEMORY) {
        n |= M::WORKGROUP_MEMORY;
    }
    if s.contains(M::IMAGE_MEMORY) {
        n |= M::IMAGE_MEMORY;
    }
    n
}

/// The storage classes a non-relaxed atomic orders (`atomic` module docs).
pub(crate) const ATOMIC_STORAGE: M = M::UNIFORM_MEMORY.union(M::WORKGROUP_MEMORY);

/// The emulated operation of a helper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Op64 {
    Load,
    Store,
    Exchange,
    CompareExchange,
    Add,
    Sub,
    Inc,
    Dec,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    /// Float add, min and max of doubles (`float`).
    FAdd,
    FMin,
    FMax,
}

impl Op64 {
    /// The emulation of the atomic instruction `op`, if there is one.
    pub(crate) fn of(op: Op) -> Option<Op64> {
        Some(match op {
            Op::AtomicLoad => Op64::Load,
            Op::AtomicStore => Op64::Store,
            Op::AtomicExchange => Op64::Exchange,
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => Op64::CompareExchange,
            Op::AtomicIAdd => Op64::Add,
            Op::AtomicISub => Op64::Sub,
            Op::AtomicIIncrement => Op64::Inc,
            Op::AtomicIDecrement => Op64::Dec,
            Op::AtomicSMin => Op64::SMin,
            Op::AtomicUMin => Op64::UMin,
            Op::AtomicSMax => Op64::SMax,
            Op::AtomicUMax => Op64::UMax,
            Op::AtomicAnd => Op64::And,
            Op::AtomicOr => Op64::Or,
            Op::AtomicXor => Op64::Xor,
            Op::AtomicFAddEXT => Op64::FAdd,
            Op::AtomicFMinEXT => Op64::FMin,
            Op::AtomicFMaxEXT => Op64::FMax,
            _ => return None,
        })
    }
}

/// The atomic concern's view of the lowering: the shared context and the
/// state of the kernel's atomics (`Atomics`) and of its 64-bit `__local`
/// ones (`local64`).
pub(crate) struct LowerAtomics<'c, 'a> {
    pub cx: &'c mut Lower<'a>,
    pub atomics: &'c mut Atomics,
    pub local64: &'c mut Local64,
}

impl<'a> std::ops::Deref for LowerAtomics<'_, 'a> {
    type Target = Lower<'a>;
    fn deref(&self) -> &Lower<'a> {
        self.cx
    }
}

impl<'a> std::ops::DerefMut for LowerAtomics<'_, 'a> {
    fn deref_mut(&mut self) -> &mut Lower<'a> {
        self.cx
    }
}

/// What the kernel's atomics and fences need of the module.
#[derive(Default)]
pub(crate) struct Atomics {
    /// A 64-bit atomic was emitted (Int64Atomics).
    pub uses_int64: bool,
    /// The Workgroup word fences read-modify-write with
    /// `DeviceCaps::rmw_ordering`, once one is needed.
    pub fence_word: Option<Word>,
    /// The kernel has a non-relaxed atomic or fence (`vmm`).
    pub ordered: bool,
    /// Capabilities of native float atomics (`float`).
    pub float_caps: Vec<rspirv::spirv::Capability>,
}

/// The helpers of one kernel and its lock table.
#[derive(Default)]
pub(crate) struct Local64 {
    /// Byte offset of the lock table in the `__local` array, once reserved.
    pub(crate) locks: Option<u32>,
    /// Helper function ids by (operation, ordered).
    pub(crate) fns: HashMap<(Op64, bool), Word>,
    /// The helpers' definitions (added to the module by `run`).
    pub(crate) functions: Vec<dr::Function>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_map_to_what_vulkan_allows() {
        let seq = Order::of(M::SEQUENTIALLY_CONSISTENT);
        assert_eq!(seq, Order::AcqRel);
        assert_eq!(Order::of(M::ACQUIRE | M::WORKGROUP_MEMORY), Order::Acquire);
        assert_eq!(Order::of(M::RELEASE), Order::Release);
        assert_eq!(Order::of(M::ACQUIRE | M::RELEASE), Order::AcqRel);
        assert_eq!(Order::of(M::CROSS_WORKGROUP_MEMORY), Order::Relaxed);
        assert_eq!(seq.for_load(), Order::Acquire);
        assert_eq!(seq.for_store(), Order::Release);
        assert_eq!(Order::Release.for_load(), Order::Acquire);
        assert_eq!(Order::Relaxed.for_store(), Order::Relaxed);
        assert_eq!(Order::Relaxed.join(Order::Acquire), Order::Acquire);
        assert_eq!(Order::Release.join(Order::Acquire), Order::AcqRel);
        assert_eq!(Order::Relaxed.semantics(ATOMIC_STORAGE), M::empty());
        assert_eq!(
            Order::Acquire.semantics(M::UNIFORM_MEMORY).bits(),
            (M::ACQUIRE | M::UNIFORM_MEMORY).bits()
        );
        assert_eq!(
            fence_storage(M::CROSS_WORKGROUP_MEMORY | M::IMAGE_MEMORY),
            M::UNIFORM_MEMORY | M::IMAGE_MEMORY
        );
    }
}
