//! The vocabulary `atomic` and `local64` share: an OpenCL memory order as
//! Vulkan can express it (`Order`, with the storage-class bits of fences
//! and atomics; the mapping is explained in `atomic`'s module docs), and
//! the 64-bit `__local` atomic operations `local64` emulates (`Op64`).

use rspirv::spirv::{MemorySemantics as M, Op};

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
            _ => return None,
        })
    }
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
