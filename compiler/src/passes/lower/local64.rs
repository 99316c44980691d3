//! 64-bit atomics on `__local` memory, emulated with work-group locks.
//!
//! `__local` memory is one Workgroup array of 32-bit words (`lower` module
//! docs), which Vulkan cannot view as 64-bit integers without
//! VK_KHR_workgroup_memory_explicit_layout (lavapipe lacks it). So every
//! 64-bit atomic on `__local` memory (the 1.x `atom_*`/`atomic_*`
//! functions of cl_khr_int64_base/extended_atomics and OpenCL C 2.0/3.0's
//! `atomic_long`/`atomic_ulong`/`atomic_double` operations: load, store,
//! exchange, compare-exchange, fetch add/sub/min/max/and/or/xor, inc/dec)
//! becomes a call of a helper function that runs the read-modify-write of
//! the object's two words under a lock:
//!
//! * **Locks**: `LOCK_STRIPES` words of the `__local` array, after the
//!   kernel's own `__local` variables (counted in `static_local_size`, so
//!   CL_KERNEL_LOCAL_MEM_SIZE and the launch's size check include them). An
//!   object at byte offset `a` takes lock `(a >> 3) % LOCK_STRIPES`, so
//!   every 64-bit atomic on one object takes the same lock and atomics on
//!   neighbouring objects rarely contend. Workgroup memory starts
//!   undefined: the entry function (`args::build_entry`) stores 0 to every
//!   lock word with relaxed atomics and then runs a work-group barrier
//!   (acquire/release on Workgroup memory), in the entry's uniform control
//!   flow, before calling the kernel.
//! * **The helper** (one per operation and "ordered" flag, `u64 f(u32
//!   addr, u64 a, u64 c)`) is safe where a sub-group's lanes run in lock
//!   step without independent forward progress (lavapipe's SIMD lanes, and
//!   llvmpipe running a work-group's lane chunks one after the other up to
//!   a barrier): the lock is taken and released in the same loop iteration
//!   by the lane that got it, and a lane that did not get it retries on the
//!   next iteration, so no lane ever waits for another one to move:
//!
//!   ```text
//!   loop {                               // OpLoopMerge exit, latch
//!       got = cmpxchg(lock, 0 -> 1) == 0  // acquire
//!       if got {                         // OpSelectionMerge join
//!           old = lo | hi << 32          // relaxed atomic word loads
//!           lo, hi = op(old, a, c)       // relaxed atomic word stores
//!           lock = 0                     // release
//!       }
//!       if got break                     // join: break or continue
//!   }
//!   return old
//!   ```
//!
//!   The data words are read and written with relaxed Workgroup-scope
//!   atomics, ordered by the lock's acquire and release (Workgroup
//!   memory; Uniform memory too where the source asked for a non-relaxed
//!   order, as `atomic` does for every ordered atomic), so neither the
//!   GLSL450 model nor the Vulkan model (`vmm`) needs the plain accesses'
//!   availability rules here. With `DeviceCaps::rmw_ordering` (lavapipe)
//!   the lock's operations carry no semantics and the release is an
//!   exchange (`atomic` module docs): its read-modify-writes are
//!   sequentially consistent CPU atomics.
//! * **Orders and scopes**: each emulated operation is atomic with respect
//!   to every other 64-bit atomic on `__local` memory of the work-group
//!   (which is all OpenCL asks: local atomics order within the work-group,
//!   and mixing 32- and 64-bit atomics on one object is undefined). An
//!   acquire order is the lock's acquire; a release order is the lock's
//!   release: a reader that observes the new value took the lock after this
//!   operation released it. seq_cst is acq_rel, as everywhere (`atomic`).
//!   Compare-exchange writes the old value back when the comparison fails
//!   (under the lock nobody else writes the object atomically).
//! * **lavapipe's loop limit**: llvmpipe ends every loop after 65535
//!   iterations counted over all of an invocation's loops (hang
//!   protection; a plain 70000-iteration loop stops early too). Each
//!   emulated atomic is a loop of up to (contending SIMD lanes, 8)
//!   iterations there, so a kernel doing about 8000 64-bit `__local`
//!   atomics per work-item in a loop (the CTS's c11 atomic_exchange with
//!   10000 iterations) loses operations on lavapipe. Unrolling several
//!   lock attempts per iteration did not lower the count there.
//! * Floating-point (`atomic_double`): exchange, load, store and
//!   compare-exchange through bit casts, as on `__global` memory; add, min
//!   and max (cl_ext_float_atomics) computed as `atomic::float` does.
//!
//! Gaps: lavapipe's loop limit can drop operations of kernels doing about
//! 8000 of them per work-item (above).

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{FunctionControl, MemorySemantics as M, Op, Scope, Word};

use super::atomic::{LowerAtomics, Op64, Order};
use super::context::{Lower, Res};
use super::emit::{ids, Block};
use crate::analyses::address_space::Space;

/// Lock words per work-group (a power of two).
pub(crate) const LOCK_STRIPES: u32 = 8;

impl LowerAtomics<'_, '_> {
    /// A 64-bit atomic `op` on the `__local` object at byte offset `addr`:
    /// a call of its helper (module docs). `a`, `c`: the u64 operands
    /// (value, comparator; `None` where the operation has none); `ordered`:
    /// the source gave a non-relaxed order. Returns the old value (u64).
    pub(crate) fn local64_atomic(
        &mut self,
        b: &mut Block,
        op: Op64,
        ordered: bool,
        addr: Word,
        a: Option<Word>,
        c: Option<Word>,
    ) -> Res<Word> {
        let f = self.local64_helper(op, ordered)?;
        let u64t = self.out.t_u64();
        let zero = self.out.c_u64(0);
        let args = [f, addr, a.unwrap_or(zero), c.unwrap_or(zero)];
        Ok(self.emit(b, Op::FunctionCall, u64t, ids(&args)))
    }

    /// Byte offset of the lock table, reserved after the kernel's static
    /// `__local` data on first use.
    fn local64_locks(&mut self) -> u32 {
        if let Some(off) = self.local64.locks {
            return off;
        }
        let off = self.mem.static_local_size.next_multiple_of(4);
        self.mem.static_local_size = off + 4 * LOCK_STRIPES as u64;
        self.mem.uses_local = true;
        self.local64.locks = Some(off as u32);
        off as u32
    }

    /// The helper of `op` (module docs), defined on first use.
    fn local64_helper(&mut self, op: Op64, ordered: bool) -> Res<Word> {
        if let Some(&f) = self.local64.fns.get(&(op, ordered)) {
            return Ok(f);
        }
        let locks = self.local64_locks();
        let (u32t, u64t, boolt) = (self.out.t_u32(), self.out.t_u64(), self.out.t_bool());
        let fnty = self.out.t_fn(u64t, &[u32t, u64t, u64t]);
        let fid = self.out.id();
        self.local64.fns.insert((op, ordered), fid);
        let (addr, a, c) = (self.out.id(), self.out.id(), self.out.id());
        let [entry, header, body, crit, join, latch, exit] = [(); 7].map(|_| self.out.id());

        let scope = self.out.c_u32(Scope::Workgroup as u32);
        let storage = if ordered {
            M::WORKGROUP_MEMORY | M::UNIFORM_MEMORY
        } else {
            M::WORKGROUP_MEMORY
        };
        let rmw = self.caps.rmw_ordering;
        let acquire = if rmw { Order::Relaxed } else { Order::Acquire };
        let acquire = self.out.c_u32(acquire.semantics(storage).bits());
        let relaxed = self.out.c_u32(0);
        let (zero32, one32, thirty_two) =
            (self.out.c_u32(0), self.out.c_u32(1), self.out.c_u32(32));

        // entry: the lock's and the two words' pointers.
        let mut eb = Block::default();
        let idx = self.word_index(&mut eb, addr, 0);
        let w0 = self.word_ptr(&mut eb, Space::Local, idx)?;
        let idx1 = self.emit(&mut eb, Op::IAdd, u32t, ids(&[idx, one32]));
        let w1 = self.word_ptr(&mut eb, Space::Local, idx1)?;
        let three = self.out.c_u32(3);
        let obj = self.emit(&mut eb, Op::ShiftRightLogical, u32t, ids(&[addr, three]));
        let mask = self.out.c_u32(LOCK_STRIPES - 1);
        let stripe = self.emit(&mut eb, Op::BitwiseAnd, u32t, ids(&[obj, mask]));
        let base = self.out.c_u32(locks / 4);
        let li = self.emit(&mut eb, Op::IAdd, u32t, ids(&[base, stripe]));
        let lock = self.word_ptr(&mut eb, Space::Local, li)?;
        eb.push(Op::Branch, None, None, ids(&[header]));

        // header: the loop.
        let mut hb = Block::default();
        hb.push(
            Op::LoopMerge,
            None,
            None,
            vec![
                Operand::IdRef(exit),
                Operand::IdRef(latch),
                Operand::LoopControl(rspirv::spirv::LoopControl::NONE),
            ],
        );
        hb.push(Op::Branch, None, None, ids(&[body]));

        // body: try the lock.
        let mut bb = Block::default();
        let got_old = self.emit(
            &mut bb,
            Op::AtomicCompareExchange,
            u32t,
            ids(&[lock, scope, acquire, relaxed, one32, zero32]),
        );
        let got = self.emit(&mut bb, Op::IEqual, boolt, ids(&[got_old, zero32]));
        bb.push(
            Op::SelectionMerge,
            None,
            None,
            vec![
                Operand::IdRef(join),
                Operand::SelectionControl(rspirv::spirv::SelectionControl::NONE),
            ],
        );
        bb.push(Op::BranchConditional, None, None, ids(&[got, crit, join]));

        // crit: the critical section, then the release.
        let mut cb = Block::default();
        let lo = self.emit(&mut cb, Op::AtomicLoad, u32t, ids(&[w0, scope, relaxed]));
        let hi = self.emit(&mut cb, Op::AtomicLoad, u32t, ids(&[w1, scope, relaxed]));
        let lo64 = self.emit(&mut cb, Op::UConvert, u64t, ids(&[lo]));
        let hi64 = self.emit(&mut cb, Op::UConvert, u64t, ids(&[hi]));
        let hi64 = self.emit(
            &mut cb,
            Op::ShiftLeftLogical,
            u64t,
            ids(&[hi64, thirty_two]),
        );
        let old = self.emit(&mut cb, Op::BitwiseOr, u64t, ids(&[hi64, lo64]));
        let new = self.local64_compute(&mut cb, op, old, a, c);
        if let Some(new) = new {
            let nlo = self.emit(&mut cb, Op::UConvert, u32t, ids(&[new]));
            let nhi = self.emit(
                &mut cb,
                Op::ShiftRightLogical,
                u64t,
                ids(&[new, thirty_two]),
            );
            let nhi = self.emit(&mut cb, Op::UConvert, u32t, ids(&[nhi]));
            cb.push(Op::AtomicStore, None, None, ids(&[w0, scope, relaxed, nlo]));
            cb.push(Op::AtomicStore, None, None, ids(&[w1, scope, relaxed, nhi]));
        }
        self.local64_unlock(&mut cb, [lock, scope], storage, zero32);
        cb.push(Op::Branch, None, None, ids(&[join]));

        // join: leave the loop once the lock was had.
        let mut jb = Block::default();
        let zero64 = self.out.c_u64(0);
        let result = self.out.id();
        jb.push(
            Op::Phi,
            Some(u64t),
            Some(result),
            ids(&[old, crit, zero64, body]),
        );
        jb.push(Op::BranchConditional, None, None, ids(&[got, exit, latch]));

        // latch: the back edge.
        let mut lb = Block::default();
        lb.push(Op::Branch, None, None, ids(&[header]));

        // exit.
        let mut xb = Block::default();
        xb.push(Op::ReturnValue, None, None, ids(&[result]));

        let mut func = dr::Function::new();
        func.def = Some(Instruction::new(
            Op::Function,
            Some(u64t),
            Some(fid),
            vec![
                Operand::FunctionControl(FunctionControl::NONE),
                Operand::IdRef(fnty),
            ],
        ));
        func.end = Some(Instruction::new(Op::FunctionEnd, None, None, vec![]));
        for (p, t) in [(addr, u32t), (a, u64t), (c, u64t)] {
            func.parameters.push(Instruction::new(
                Op::FunctionParameter,
                Some(t),
                Some(p),
                vec![],
            ));
        }
        for (label, blk) in [
            (entry, eb),
            (header, hb),
            (body, bb),
            (crit, cb),
            (join, jb),
            (latch, lb),
            (exit, xb),
        ] {
            let mut nb = dr::Block::new();
            nb.label = Some(Instruction::new(Op::Label, None, Some(label), vec![]));
            nb.instructions = blk.insts;
            func.blocks.push(nb);
        }
        self.local64.functions.push(func);
        Ok(fid)
    }

    /// The release of `lock`: a release store of 0 (an exchange with
    /// `rmw_ordering`, `atomic` module docs).
    fn local64_unlock(&mut self, b: &mut Block, [lock, scope]: [Word; 2], storage: M, zero: Word) {
        let u32t = self.out.t_u32();
        if self.caps.rmw_ordering {
            let relaxed = self.out.c_u32(0);
            self.emit(
                b,
                Op::AtomicExchange,
                u32t,
                ids(&[lock, scope, relaxed, zero]),
            );
        } else {
            let sem = self.out.c_u32(Order::Release.semantics(storage).bits());
            b.push(Op::AtomicStore, None, None, ids(&[lock, scope, sem, zero]));
        }
    }

    /// The new value of the object (u64) from its old value `old` and the
    /// operands `a` (value) and `c` (comparator); `None`: no write (load).
    fn local64_compute(
        &mut self,
        b: &mut Block,
        op: Op64,
        old: Word,
        a: Word,
        c: Word,
    ) -> Option<Word> {
        let u64t = self.out.t_u64();
        let boolt = self.out.t_bool();
        let one = self.out.c_u64(1);
        let pick = |l: &mut Self, b: &mut Block, cmp: Op| {
            let lt = l.emit(b, cmp, boolt, ids(&[a, old]));
            l.emit(b, Op::Select, u64t, ids(&[lt, a, old]))
        };
        Some(match op {
            Op64::Load => return None,
            Op64::Store | Op64::Exchange => a,
            Op64::CompareExchange => {
                let eq = self.emit(b, Op::IEqual, boolt, ids(&[old, c]));
                self.emit(b, Op::Select, u64t, ids(&[eq, a, old]))
            }
            Op64::Add => self.emit(b, Op::IAdd, u64t, ids(&[old, a])),
            Op64::Sub => self.emit(b, Op::ISub, u64t, ids(&[old, a])),
            Op64::Inc => self.emit(b, Op::IAdd, u64t, ids(&[old, one])),
            Op64::Dec => self.emit(b, Op::ISub, u64t, ids(&[old, one])),
            Op64::SMin => pick(self, b, Op::SLessThan),
            Op64::UMin => pick(self, b, Op::ULessThan),
            Op64::SMax => pick(self, b, Op::SGreaterThan),
            Op64::UMax => pick(self, b, Op::UGreaterThan),
            Op64::And => self.emit(b, Op::BitwiseAnd, u64t, ids(&[old, a])),
            Op64::Or => self.emit(b, Op::BitwiseOr, u64t, ids(&[old, a])),
            Op64::Xor => self.emit(b, Op::BitwiseXor, u64t, ids(&[old, a])),
            Op64::FAdd | Op64::FMin | Op64::FMax => {
                let f64t = self.out.t_float(64);
                let of = self.emit(b, Op::Bitcast, f64t, ids(&[old]));
                let af = self.emit(b, Op::Bitcast, f64t, ids(&[a]));
                let rop = match op {
                    Op64::FAdd => Op::AtomicFAddEXT,
                    Op64::FMin => Op::AtomicFMinEXT,
                    _ => Op::AtomicFMaxEXT,
                };
                self.float_rmw_value(b, rop, f64t, u64t, of, af)
            }
        })
    }
}

impl Lower<'_> {
    /// In the entry function, before the kernel runs: every lock word
    /// cleared, then a work-group barrier (module docs). Nothing when the
    /// kernel has no 64-bit `__local` atomics (`locks`: the lock table's
    /// offset, `Local64::locks`).
    pub(crate) fn local64_init_locks(&mut self, b: &mut Block, locks: Option<u32>) -> Res<()> {
        let Some(off) = locks else {
            return Ok(());
        };
        let scope = self.out.c_u32(Scope::Workgroup as u32);
        let relaxed = self.out.c_u32(0);
        let zero = self.out.c_u32(0);
        for k in 0..LOCK_STRIPES {
            let i = self.out.c_u32(off / 4 + k);
            let p = self.word_ptr(b, Space::Local, i)?;
            b.push(Op::AtomicStore, None, None, ids(&[p, scope, relaxed, zero]));
        }
        let sem = self
            .out
            .c_u32((M::ACQUIRE_RELEASE | M::WORKGROUP_MEMORY).bits());
        b.push(Op::ControlBarrier, None, None, ids(&[scope, scope, sem]));
        Ok(())
    }
}
