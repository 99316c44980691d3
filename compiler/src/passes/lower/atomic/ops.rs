//! Atomics, fences and barriers (`lower_atomic`, `lower_barrier`): the
//! mapping of `super`'s module docs.
//!
//! Gaps: atomics on private or `__constant` memory, floating-point atomics
//! other than load, store, exchange, compare-exchange and add/min/max
//! (`float`), atomic
//! instructions outside the OpenCL 1.x/2.0 set, widths other than 32/64
//! bits, and 64-bit atomics on a device without them are reported.

use rspirv::dr::Instruction;
use rspirv::spirv::{Capability, MemorySemantics as M, Op, Scope, StorageClass, Word};

use super::{fence_storage, LowerAtomics, Op64, Order, ATOMIC_STORAGE};
use crate::analyses::address_space::Space;
use crate::analyses::type_table::Ty;
use crate::passes::lower::context::Res;
use crate::passes::lower::emit::{ids, Block};

impl LowerAtomics<'_, '_> {
    /// The order of the semantics operand `id` (a constant).
    pub(super) fn order_operand(&mut self, id: Word) -> Res<Order> {
        let s = self
            .const_u32(id)
            .ok_or("atomic memory order must be a compile-time constant")?;
        let o = Order::of(M::from_bits_truncate(s));
        self.atomics.ordered |= o != Order::Relaxed;
        Ok(o)
    }

    /// Vulkan memory scope of a fence or barrier whose input memory scope
    /// is `scope` (`None`: not a constant, taken as Workgroup).
    fn fence_scope(&mut self, scope: Option<u32>, barrier: bool) -> Scope {
        match scope {
            Some(s) if s == Scope::CrossDevice as u32 || s == Scope::Device as u32 => Scope::Device,
            Some(s) if s == Scope::Subgroup as u32 && self.caps.subgroups() => Scope::Subgroup,
            Some(s) if s == Scope::Invocation as u32 && !barrier => Scope::Invocation,
            _ => Scope::Workgroup,
        }
    }

    /// Atomics on 32-bit and, where the device has them, 64-bit integers
    /// (on `__local` memory through `local64`); float exchange/load/store through integer bitcasts.
    /// Scopes and semantics: module docs.
    pub(crate) fn lower_atomic(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let op = inst.class.opcode;
        let ids_: Vec<Word> = inst
            .operands
            .iter()
            .filter_map(|o| o.id_ref_any())
            .collect();
        let ptr = ids_[0];
        let Ty::Pointer(_, pointee) = self.tys.get(self.ty_of(ptr)).clone() else {
            return Err(format!("Op{op:?} on a non-pointer"));
        };
        let (width, float) = match self.tys.get(pointee) {
            Ty::Int(w) => (*w, false),
            Ty::Float(w) => (*w, true),
            _ => return Err(format!("Op{op:?} on a {}", self.tys.c_name(pointee))),
        };
        if width != 32 && width != 64 {
            return Err(format!("{width}-bit atomics are not supported"));
        }
        let space = self.space(ptr)?;
        if width == 64 && !self.caps.int64_atomics {
            return Err("64-bit atomics are not supported on this device".into());
        }
        if width == 64 && space == Space::Local {
            // __local memory is one array of 32-bit words (module docs of
            // `lower`): emulated under a work-group lock (`local64`).
            return self.lower_local64_atomic(b, inst, &ids_, float, pointee);
        }
        if super::float::is_float_rmw(op) {
            if !float {
                return Err(format!("Op{op:?} on an integer"));
            }
            return self.lower_float_rmw(b, inst, &ids_, space, width);
        }
        if width == 64 {
            self.atomics.uses_int64 = true;
        }
        let it = self.out.t_int(width);
        let addr = self.addr_of(b, space, ptr)?;
        let p = match space {
            Space::Global if self.desc.enabled => self.desc_ptr(b, addr, it, width as u64 / 8)?,
            Space::Global => {
                let pt = self.out.t_ptr(StorageClass::PhysicalStorageBuffer, it);
                self.emit(b, Op::ConvertUToPtr, pt, ids(&[addr]))
            }
            Space::Local => {
                let i = self.word_index(b, addr, 0);
                self.word_ptr(b, space, i)?
            }
            _ => return Err("atomics on private or constant memory are not supported".into()),
        };
        let scope = self.out.c_u32(match space {
            Space::Local => Scope::Workgroup as u32,
            _ => Scope::Device as u32,
        });
        // rmw_ordering: no semantics (module docs).
        let rmw = self.caps.rmw_ordering;
        let sem = |l: &mut Self, o: Order| {
            let o = if rmw { Order::Relaxed } else { o };
            l.out.c_u32(o.semantics(ATOMIC_STORAGE).bits())
        };
        let value = |l: &mut Self, b: &mut Block, id: Word| -> Word {
            let v = l.v(id);
            if float {
                l.emit(b, Op::Bitcast, it, ids(&[v]))
            } else {
                v
            }
        };
        let rid = inst.result_id.unwrap_or(0);
        let result = match op {
            Op::AtomicLoad => {
                let o = self.order_operand(ids_[2])?.for_load();
                let s = sem(self, o);
                if rmw && o != Order::Relaxed {
                    let zero = self.out.c_int(width, 0);
                    Some(self.emit(b, Op::AtomicOr, it, ids(&[p, scope, s, zero])))
                } else {
                    Some(self.emit(b, op, it, ids(&[p, scope, s])))
                }
            }
            Op::AtomicStore => {
                let o = self.order_operand(ids_[2])?.for_store();
                let v = value(self, b, ids_[3]);
                self.atomic_store(b, it, [p, scope], o, v);
                None
            }
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                // Weak is strong in Vulkan (and deprecated in SPIR-V 1.4).
                let ne = self.order_operand(ids_[3])?.for_load();
                let eq = self.order_operand(ids_[2])?.join(ne);
                let (eq, ne) = (sem(self, eq), sem(self, ne));
                let v = value(self, b, ids_[4]);
                let c = value(self, b, ids_[5]);
                Some(self.emit(
                    b,
                    Op::AtomicCompareExchange,
                    it,
                    ids(&[p, scope, eq, ne, v, c]),
                ))
            }
            Op::AtomicIIncrement | Op::AtomicIDecrement => {
                let s = self.order_operand(ids_[2])?;
                let s = sem(self, s);
                Some(self.emit(b, op, it, ids(&[p, scope, s])))
            }
            Op::AtomicExchange
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor => {
                if float && op != Op::AtomicExchange {
                    return Err(format!("floating-point Op{op:?} is not supported"));
                }
                let s = self.order_operand(ids_[2])?;
                let s = sem(self, s);
                let v = value(self, b, ids_[3]);
                Some(self.emit(b, op, it, ids(&[p, scope, s, v])))
            }
            Op::AtomicFlagTestAndSet => {
                let s = self.order_operand(ids_[2])?;
                let s = sem(self, s);
                let one = self.out.c_int(width, 1);
                let old = self.emit(b, Op::AtomicExchange, it, ids(&[p, scope, s, one]));
                let zero = self.out.c_int(width, 0);
                let bt = self.out.t_bool();
                let r = self.emit(b, Op::INotEqual, bt, ids(&[old, zero]));
                self.alias.insert(rid, r);
                return Ok(());
            }
            Op::AtomicFlagClear => {
                let o = self.order_operand(ids_[2])?.for_store();
                let zero = self.out.c_int(width, 0);
                self.atomic_store(b, it, [p, scope], o, zero);
                None
            }
            _ => return Err(format!("atomic Op{op:?} is not supported yet")),
        };
        if let Some(r) = result {
            let r = if float {
                let ft = self.lower_ty(pointee)?;
                self.emit(b, Op::Bitcast, ft, ids(&[r]))
            } else {
                r
            };
            self.alias.insert(rid, r);
        }
        Ok(())
    }

    /// A 64-bit atomic on `__local` memory (`local64`): the operands and
    /// orders of `inst` (as for `__global` memory), then its helper's call.
    fn lower_local64_atomic(
        &mut self,
        b: &mut Block,
        inst: &Instruction,
        ids_: &[Word],
        float: bool,
        pointee: Word,
    ) -> Res<()> {
        let op = inst.class.opcode;
        let op64 = Op64::of(op)
            .ok_or_else(|| format!("64-bit atomic Op{op:?} on __local memory is not supported"))?;
        if float
            && !matches!(
                op64,
                Op64::Load
                    | Op64::Store
                    | Op64::Exchange
                    | Op64::CompareExchange
                    | Op64::FAdd
                    | Op64::FMin
                    | Op64::FMax
            )
        {
            return Err(format!("floating-point Op{op:?} is not supported"));
        }
        let it = self.out.t_int(64);
        let value = |l: &mut Self, b: &mut Block, id: Word| -> Word {
            let v = l.v(id);
            if float {
                l.emit(b, Op::Bitcast, it, ids(&[v]))
            } else {
                v
            }
        };
        // Operands: pointer, scope, semantics..., value, comparator.
        let (order, a, c) = match op64 {
            Op64::Load | Op64::Inc | Op64::Dec => (self.order_operand(ids_[2])?, None, None),
            Op64::CompareExchange => {
                let ne = self.order_operand(ids_[3])?;
                let eq = self.order_operand(ids_[2])?;
                let a = value(self, b, ids_[4]);
                let c = value(self, b, ids_[5]);
                (eq.join(ne), Some(a), Some(c))
            }
            _ => {
                let o = self.order_operand(ids_[2])?;
                (o, Some(value(self, b, ids_[3])), None)
            }
        };
        let addr = self.addr_of(b, Space::Local, ids_[0])?;
        let old = self.local64_atomic(b, op64, order != Order::Relaxed, addr, a, c)?;
        if op64 != Op64::Store {
            let r = if float {
                let ft = self.lower_ty(pointee)?;
                self.emit(b, Op::Bitcast, ft, ids(&[old]))
            } else {
                old
            };
            self.alias.insert(inst.result_id.unwrap_or(0), r);
        }
        Ok(())
    }

    /// An atomic store of `v` (type `it`) through `p` at `scope` with
    /// order `o` (at most a release): an exchange with `rmw_ordering`.
    fn atomic_store(&mut self, b: &mut Block, it: Word, [p, scope]: [Word; 2], o: Order, v: Word) {
        if self.caps.rmw_ordering && o != Order::Relaxed {
            let relaxed = self.out.c_u32(0);
            self.emit(b, Op::AtomicExchange, it, ids(&[p, scope, relaxed, v]));
        } else {
            let s = self.out.c_u32(o.semantics(ATOMIC_STORAGE).bits());
            b.push(Op::AtomicStore, None, None, ids(&[p, scope, s, v]));
        }
    }

    /// A fence as a read-modify-write of the Workgroup fence word
    /// (`rmw_ordering`, module docs).
    fn fence_by_rmw(&mut self, b: &mut Block) {
        let var = match self.atomics.fence_word {
            Some(v) => v,
            None => {
                let v = self.out.id();
                self.atomics.fence_word = Some(v);
                v
            }
        };
        let u32t = self.out.t_u32();
        let scope = self.out.c_u32(Scope::Workgroup as u32);
        let relaxed = self.out.c_u32(0);
        self.emit(b, Op::AtomicIIncrement, u32t, ids(&[var, scope, relaxed]));
    }

    /// OpControlBarrier (barriers) and OpMemoryBarrier (fences): module
    /// docs.
    pub(crate) fn lower_barrier(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let op = inst.class.opcode;
        let ids_: Vec<Word> = inst
            .operands
            .iter()
            .filter_map(|o| o.id_ref_any())
            .collect();
        let sem_id = *ids_.last().ok_or("barrier without semantics")?;
        let s = M::from_bits_truncate(
            self.const_u32(sem_id)
                .ok_or("barrier semantics must be a constant")?,
        );
        let storage = fence_storage(s);
        let control = op == Op::ControlBarrier;
        let mem_scope = self.const_u32(ids_[usize::from(control)]);
        let mem_scope = self.fence_scope(mem_scope, control);
        let mem_scope = self.out.c_u32(mem_scope as u32);
        if control {
            let subgroup = Scope::Subgroup as u32;
            let exec_is_subgroup = self.const_u32(ids_[0]) == Some(subgroup);
            if exec_is_subgroup && !self.caps.subgroups() {
                return Err(
                    "sub_group_barrier: sub-groups are not supported by this device".into(),
                );
            }
            let exec = if exec_is_subgroup {
                self.use_group_cap(Capability::GroupNonUniform);
                self.out.c_u32(subgroup)
            } else {
                self.out.c_u32(Scope::Workgroup as u32)
            };
            // A barrier orders its flags' memory as acq_rel (whatever
            // order the input gives, usually SequentiallyConsistent).
            let order = if storage.is_empty() {
                Order::Relaxed
            } else {
                Order::AcqRel
            };
            let semc = self.out.c_u32(order.semantics(storage).bits());
            b.push(op, None, None, ids(&[exec, mem_scope, semc]));
        } else {
            let order = Order::of(s);
            if order != Order::Relaxed && !storage.is_empty() {
                self.atomics.ordered = true;
                if self.caps.rmw_ordering {
                    self.fence_by_rmw(b);
                } else {
                    let semc = self.out.c_u32(order.semantics(storage).bits());
                    b.push(op, None, None, ids(&[mem_scope, semc]));
                }
            }
        }
        Ok(())
    }
}
