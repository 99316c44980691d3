//! Floating-point atomic add, min and max (cl_ext_float_atomics:
//! `atomic_fetch_add/sub/min/max[_explicit]` on `atomic_float` and
//! `atomic_double`), which llvm-spirv writes as OpAtomicFAddEXT (sub: an
//! add of the negated value), OpAtomicFMinEXT and OpAtomicFMaxEXT
//! (SPV_EXT_shader_atomic_float_add / _min_max, `frontend`):
//!
//! * **Native** on `__global` memory where the device has the operation
//!   for the width (`DeviceCaps::float_atomics`: VK_EXT_shader_atomic_float
//!   and _float2's buffer features): the same instruction on a float
//!   pointer (a physical storage buffer pointer, or the float view of a
//!   storage buffer with descriptor addressing), with its capability and
//!   extension. Min/max of NaN and of zeros of both signs are then the
//!   device's.
//! * **Compare-exchange loop** otherwise, on the integer bits (a helper
//!   function, `helper_fn`): load the word(s), compute the new value,
//!   OpAtomicCompareExchange, retry from the value seen until it succeeds.
//!   Each lane retries on its own, so lanes that run in lock step (lavapipe)
//!   never wait for each other. Sums are rounded once per operation, as a
//!   native add is. Min/max: GLSL.std.450 NMin/NMax (a NaN operand gives the
//!   other value; both NaN give NaN), with -0 below +0 (equal operands are
//!   combined bitwise: or for min, and for max, which only changes zeros).
//!   32-bit floats on `__local` memory (a word of the `__local` array) are
//!   always loops; 64-bit ones take the `local64` lock like every 64-bit
//!   `__local` atomic.
//! * **Orders and scopes** as for integer atomics (`super` module docs):
//!   the compare-exchange carries the order given, the first load is
//!   relaxed.
//!
//! Half atomics never reach this pass: llvm-spirv-15 cannot translate
//! them, so the front end gives them definitions (compare-exchange loops
//! on the 32-bit word that holds the half, `frontend::libclc`,
//! `half_atomics.cl`) before translation. SPIR-V modules with 16-bit
//! float atomics (clCreateProgramWithIL) are not supported: the
//! AtomicFloat16*EXT capabilities are not reported.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Op, Scope, StorageClass, Word};

use super::{LowerAtomics, Order, ATOMIC_STORAGE};
use crate::analyses::address_space::Space;
use crate::caps::{
    FLOAT_ATOMIC_ADD32, FLOAT_ATOMIC_ADD64, FLOAT_ATOMIC_MIN_MAX32, FLOAT_ATOMIC_MIN_MAX64,
};
use crate::passes::lower::context::Res;
use crate::passes::lower::emit::{ids, Block};
use crate::passes::lower::helper_fn::HelperFn;

/// Whether `op` is a float read-modify-write of SPV_EXT_shader_atomic_float_*.
pub(crate) fn is_float_rmw(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT
    )
}

impl LowerAtomics<'_, '_> {
    /// OpAtomicF{Add,Min,Max}EXT of `width` bits on `__global` memory or
    /// 32 bits on `__local` memory (module docs). Operands: pointer,
    /// scope, semantics, value.
    pub(crate) fn lower_float_rmw(
        &mut self,
        b: &mut Block,
        inst: &Instruction,
        ids_: &[Word],
        space: Space,
        width: u32,
    ) -> Res<()> {
        let op = inst.class.opcode;
        let order = self.order_operand(ids_[2])?;
        let ft = self.out.t_float(width);
        let v = self.v(ids_[3]);
        let addr = self.addr_of(b, space, ids_[0])?;
        let native_bit = match (op, width) {
            (Op::AtomicFAddEXT, 32) => FLOAT_ATOMIC_ADD32,
            (Op::AtomicFAddEXT, _) => FLOAT_ATOMIC_ADD64,
            (_, 32) => FLOAT_ATOMIC_MIN_MAX32,
            _ => FLOAT_ATOMIC_MIN_MAX64,
        };
        let rid = inst.result_id.unwrap_or(0);
        if space == Space::Global && self.caps.float_atomics & native_bit != 0 {
            let p = if self.desc.enabled {
                self.desc_ptr(b, addr, ft, u64::from(width / 8))?
            } else {
                let pt = self.out.t_ptr(StorageClass::PhysicalStorageBuffer, ft);
                self.emit(b, Op::ConvertUToPtr, pt, ids(&[addr]))
            };
            let scope = self.out.c_u32(Scope::Device as u32);
            let o = if self.caps.rmw_ordering {
                Order::Relaxed
            } else {
                order
            };
            let sem = self.out.c_u32(o.semantics(ATOMIC_STORAGE).bits());
            let cap = match (op, width) {
                (Op::AtomicFAddEXT, 32) => Capability::AtomicFloat32AddEXT,
                (Op::AtomicFAddEXT, _) => Capability::AtomicFloat64AddEXT,
                (_, 32) => Capability::AtomicFloat32MinMaxEXT,
                _ => Capability::AtomicFloat64MinMaxEXT,
            };
            if !self.atomics.float_caps.contains(&cap) {
                self.atomics.float_caps.push(cap);
            }
            if width == 64 {
                self.atomics.uses_int64 = true;
            }
            b.push(op, Some(ft), Some(rid), ids(&[p, scope, sem, v]));
            return Ok(());
        }
        let f = self.float_cas_helper(op, width, space, order, addr)?;
        let r = self.call_helper(b, f, ft, &[addr, v]);
        self.alias.insert(rid, r);
        Ok(())
    }

    /// The helper `T f(addr, T v)` (module docs' loop) for `op` on floats
    /// of `width` bits in `space`, with order `order`; `addr`: the call's
    /// address (descriptor addressing: its buffers, which the helper's
    /// pointer selects among).
    fn float_cas_helper(
        &mut self,
        op: Op,
        width: u32,
        space: Space,
        order: Order,
        addr: Word,
    ) -> Res<Word> {
        let desc_slots = if space == Space::Global && self.desc.enabled {
            format!("{:?}", self.desc.out_slots.get(&addr))
        } else {
            String::new()
        };
        let key = format!("float_cas_{op:?}_{width}_{space:?}_{order:?}_{desc_slots}");
        if let Some(f) = self.helper(&key) {
            return Ok(f);
        }
        let (ft, it, bt) = (
            self.out.t_float(width),
            self.out.t_int(width),
            self.out.t_bool(),
        );
        let at = if space == Space::Global {
            self.out.t_u64()
        } else {
            self.out.t_u32()
        };
        let (fid, a, v) = (self.out.id(), self.out.id(), self.out.id());
        if let Some(s) = self.desc.out_slots.get(&addr).cloned() {
            if space == Space::Global && self.desc.enabled {
                self.desc.out_slots.insert(a, s);
            }
        }
        let [entry, header, body, latch, exit] = [(); 5].map(|_| self.out.id());
        let (cur, seen) = (self.out.id(), self.out.id());

        let mut eb = Block::default();
        let p = match space {
            Space::Global if self.desc.enabled => {
                self.desc_ptr(&mut eb, a, it, u64::from(width / 8))?
            }
            Space::Global => {
                let pt = self.out.t_ptr(StorageClass::PhysicalStorageBuffer, it);
                self.emit(&mut eb, Op::ConvertUToPtr, pt, ids(&[a]))
            }
            Space::Local => {
                let i = self.word_index(&mut eb, a, 0);
                self.word_ptr(&mut eb, Space::Local, i)?
            }
            _ => {
                return Err("float atomics on private or constant memory are not supported".into())
            }
        };
        let scope = self.out.c_u32(match space {
            Space::Local => Scope::Workgroup as u32,
            _ => Scope::Device as u32,
        });
        if width == 64 {
            self.atomics.uses_int64 = true;
        }
        let relaxed = self.out.c_u32(0);
        let first = self.emit(&mut eb, Op::AtomicLoad, it, ids(&[p, scope, relaxed]));
        eb.push(Op::Branch, None, None, ids(&[header]));

        let mut hb = Block::default();
        hb.push(
            Op::Phi,
            Some(it),
            Some(cur),
            ids(&[first, entry, seen, latch]),
        );
        crate::passes::lower::context::Lower::loop_merge(&mut hb, exit, latch);
        hb.push(Op::Branch, None, None, ids(&[body]));

        let mut bb = Block::default();
        let old = self.emit(&mut bb, Op::Bitcast, ft, ids(&[cur]));
        let new_bits = self.float_rmw_value(&mut bb, op, ft, it, old, v);
        let rmw = self.caps.rmw_ordering;
        let (eq, ne) = if rmw {
            (Order::Relaxed, Order::Relaxed)
        } else {
            (order, order.for_load())
        };
        let eq = self.out.c_u32(eq.join(ne).semantics(ATOMIC_STORAGE).bits());
        let ne = self.out.c_u32(ne.semantics(ATOMIC_STORAGE).bits());
        bb.push(
            Op::AtomicCompareExchange,
            Some(it),
            Some(seen),
            ids(&[p, scope, eq, ne, new_bits, cur]),
        );
        let done = self.emit(&mut bb, Op::IEqual, bt, ids(&[seen, cur]));
        bb.push(Op::BranchConditional, None, None, ids(&[done, exit, latch]));

        let mut lb = Block::default();
        lb.push(Op::Branch, None, None, ids(&[header]));

        let mut xb = Block::default();
        let r = self.emit(&mut xb, Op::Bitcast, ft, ids(&[cur]));
        xb.push(Op::ReturnValue, None, None, ids(&[r]));

        self.define_helper(
            key,
            HelperFn {
                id: fid,
                result: ft,
                params: vec![(a, at), (v, ft)],
                blocks: vec![
                    (entry, eb),
                    (header, hb),
                    (body, bb),
                    (latch, lb),
                    (exit, xb),
                ],
            },
        );
        Ok(fid)
    }

    /// The bits (integer type `it`) of `op`'s new value from the old value
    /// `old` and the operand `v` (float type `ft`): module docs.
    pub(crate) fn float_rmw_value(
        &mut self,
        b: &mut Block,
        op: Op,
        ft: Word,
        it: Word,
        old: Word,
        v: Word,
    ) -> Word {
        if op == Op::AtomicFAddEXT {
            let s = self.emit(b, Op::FAdd, ft, ids(&[old, v]));
            return self.emit(b, Op::Bitcast, it, ids(&[s]));
        }
        let min = op == Op::AtomicFMinEXT;
        let set = self.out.glsl();
        let m = self.emit(
            b,
            Op::ExtInst,
            ft,
            vec![
                Operand::IdRef(set),
                Operand::LiteralExtInstInteger(if min { 79 } else { 80 }),
                Operand::IdRef(old),
                Operand::IdRef(v),
            ],
        );
        let m = self.emit(b, Op::Bitcast, it, ids(&[m]));
        let (ob, vb) = (
            self.emit(b, Op::Bitcast, it, ids(&[old])),
            self.emit(b, Op::Bitcast, it, ids(&[v])),
        );
        let both = self.emit(
            b,
            if min { Op::BitwiseOr } else { Op::BitwiseAnd },
            it,
            ids(&[ob, vb]),
        );
        let bt = self.out.t_bool();
        let eq = self.emit(b, Op::FOrdEqual, bt, ids(&[old, v]));
        self.emit(b, Op::Select, it, ids(&[eq, both, m]))
    }
}
