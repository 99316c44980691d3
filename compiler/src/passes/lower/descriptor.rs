//! Descriptor addressing (`abi`, `Addressing::Descriptor`): global memory
//! through storage-buffer bindings instead of buffer device addresses.
//!
//! # Algorithm
//!
//! A global pointer value stays a u64, `slot << 32 | byte offset` (argument
//! `i`: slot `i + 1`; the program's global-variable buffer:
//! `GLOBAL_VARIABLES_SLOT`; NULL: 0), so pointer arithmetic, comparisons
//! and pointer↔integer casts are the physical path's integer code.
//!
//! * **Slot analysis** (`analyses::buffer_slots`): a data-flow pass over the
//!   kernel's call graph gives every pointer (and pointer-derived integer)
//!   value of the input the set of slots it may point into: the kernel's
//!   buffer parameters and the global-variable buffer are roots; access
//!   chains, casts, integer add/sub/and/or, phis, selects, call arguments
//!   and returned values propagate; a pointer loaded from memory or made
//!   from an unrelated integer is `Unknown` (any of the kernel's buffers).
//! * **Typed views**: an access of element type `T` (a scalar, or a vector
//!   whose alignment allows one access) to slot `s` goes through a
//!   StorageBuffer variable `struct { T data[]; }` (ArrayStride = OpenCL
//!   size of `T`) bound to `s`'s binding; a binding has one such variable
//!   per accessed type (Vulkan allows aliased bindings of one descriptor
//!   type; all are decorated `Aliased`). The element index is the offset
//!   divided by the size, which the access's alignment guarantees; less
//!   aligned accesses are split into smaller ones by `memory` (down to
//!   bytes), so type punning is just another view.
//! * One candidate slot: the access is direct. Several (a pointer selected
//!   between two arguments, a phi, a pointer loaded from memory): the view
//!   variable is chosen by the run-time slot with OpSelect
//!   (VariablePointersStorageBuffer), then indexed; on devices with
//!   `DeviceCaps::branch_buffer_selects` (NVIDIA) the per-kernel pass
//!   `branch_buffer_selects` turns such accesses into branches.
//! * POD arguments are read word by word from their storage / uniform
//!   buffer (`args`); buffer arguments' values are constants, except that
//!   the NULL mask (`ImplicitField::NullBufferArgs`) turns a NULL argument
//!   into 0.
//!
//! Gaps: an access through a NULL pointer, and a global pointer that can
//! point into no buffer of the kernel, are reported.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::context::{ArgClass, Lower, Res};
use super::emit::{ids, Block};
use crate::abi::{Addressing, GLOBAL_VARIABLES_SLOT};
use crate::analyses::buffer_slots::{arg_slot, infer_buffer_slots, Slots};
use crate::analyses::type_table::Ty;

impl Lower<'_> {
    /// Classifies the kernel's arguments, assigns their bindings (the
    /// descriptor rules) and runs the slot analysis. `order`: the call
    /// graph, entry first.
    pub(crate) fn prepare_descriptors(&mut self, order: &[Word], entry_fn: Word) -> Res<()> {
        if self.caps.addressing != Addressing::Descriptor {
            return Ok(());
        }
        self.desc.enabled = true;
        let f = self.ix.funcs[&entry_fn];
        let mut classes = Vec::new();
        for p in &f.parameters {
            let t = p.result_type.unwrap_or(0);
            classes.push(match self.tys.get(t) {
                Ty::Pointer(StorageClass::CrossWorkgroup | StorageClass::UniformConstant, _) => {
                    ArgClass::Buffer
                }
                Ty::Pointer(StorageClass::Workgroup, _) => ArgClass::Local,
                Ty::Opaque(_) => ArgClass::Opaque,
                _ => ArgClass::Pod,
            });
        }
        let cluster = self.caps.descriptor.cluster_pod_args;
        let mut next = 0u32;
        let mut bindings = Vec::new();
        for &c in &classes {
            bindings.push(match c {
                ArgClass::Pod if cluster => None,
                ArgClass::Local => {
                    next += 1;
                    None
                }
                _ => {
                    next += 1;
                    Some(next - 1)
                }
            });
        }
        if cluster && classes.contains(&ArgClass::Pod) {
            self.desc.pod_cluster_binding = Some(next);
            next += 1;
        }
        for (i, &c) in classes.iter().enumerate() {
            if c == ArgClass::Buffer {
                self.desc
                    .slot_binding
                    .insert(arg_slot(i), bindings[i].unwrap_or(0));
            }
        }
        let uses_globals = order.iter().any(|&f| {
            self.ix.funcs[&f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .flat_map(|i| i.operands.iter().filter_map(|o| o.id_ref_any()))
                .any(|id| self.facts.global_offsets.contains_key(&id))
        });
        if uses_globals {
            self.desc.globals_binding = Some(next);
            self.desc.slot_binding.insert(GLOBAL_VARIABLES_SLOT, next);
            next += 1;
        }
        self.desc.spill_binding = next;
        self.desc.arg_binding = bindings;
        self.desc.classes = classes;
        let buffers: Vec<bool> = self
            .desc
            .classes
            .iter()
            .map(|&c| c == ArgClass::Buffer)
            .collect();
        self.desc.slots = infer_buffer_slots(
            self.ix,
            self.facts.global_offsets,
            order,
            entry_fn,
            &buffers,
        );
        Ok(())
    }

    /// Records the slots of output address `addr` (the value of input
    /// pointer `ptr`).
    pub(crate) fn desc_note_pointer(&mut self, ptr: Word, addr: Word) {
        if !self.desc.enabled {
            return;
        }
        let s = self.desc.slots.get(&ptr).cloned().unwrap_or(Slots::Unknown);
        let s = Slots::join(self.desc.out_slots.get(&addr), Some(&s)).unwrap_or(Slots::Unknown);
        self.desc.out_slots.insert(addr, s);
    }

    /// `to` is `from` plus an offset: same slots.
    pub(crate) fn desc_derive(&mut self, from: Word, to: Word) {
        if !self.desc.enabled {
            return;
        }
        if let Some(s) = self.desc.out_slots.get(&from).cloned() {
            self.desc.out_slots.insert(to, s);
        }
    }

    /// `addr` points into slot `slot` (a constant address the lowering
    /// made, such as the global-variable buffer's).
    pub(crate) fn desc_set_slot(&mut self, addr: Word, slot: u32) {
        self.desc.out_slots.insert(addr, Slots::one(slot));
    }

    /// The slots an access through `addr` must consider.
    fn candidates(&self, addr: Word) -> Res<Vec<u32>> {
        match self.desc.out_slots.get(&addr) {
            Some(Slots::Known(s)) => {
                let v: Vec<u32> = s
                    .iter()
                    .copied()
                    .filter(|s| self.desc.slot_binding.contains_key(s))
                    .collect();
                if v.is_empty() {
                    Err("access through a NULL pointer".into())
                } else {
                    Ok(v)
                }
            }
            _ => {
                let v: Vec<u32> = self.desc.slot_binding.keys().copied().collect();
                if v.is_empty() {
                    Err("a global pointer that points into no buffer of the kernel \
                         (descriptor addressing: pointers must come from the kernel's \
                         buffer arguments)"
                        .into())
                } else {
                    Ok(v)
                }
            }
        }
    }

    /// The pointer type of the view struct of element type `nt`
    /// (`stride` bytes apart).
    fn view_type(&mut self, nt: Word, stride: u64) -> Word {
        if let Some(&t) = self.desc.view_types.get(&nt) {
            return t;
        }
        let arr = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::TypeRuntimeArray,
            None,
            Some(arr),
            ids(&[nt]),
        ));
        self.out.decorate(
            arr,
            vec![
                Operand::Decoration(Decoration::ArrayStride),
                Operand::LiteralBit32(stride as u32),
            ],
        );
        let st = self.out.block_struct(arr);
        let pt = self.out.t_ptr(StorageClass::StorageBuffer, st);
        self.desc.view_types.insert(nt, pt);
        pt
    }

    /// The view variable of element type `nt` of slot `slot`'s binding.
    fn view(&mut self, slot: u32, nt: Word, stride: u64) -> Word {
        let binding = self.desc.slot_binding[&slot];
        if let Some(&v) = self.desc.views.get(&(binding, nt)) {
            return v;
        }
        let pt = self.view_type(nt, stride);
        let v = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(v),
            vec![Operand::StorageClass(StorageClass::StorageBuffer)],
        ));
        self.out
            .decorate(v, vec![Operand::Decoration(Decoration::Aliased)]);
        self.desc.views.insert((binding, nt), v);
        self.desc.bound.push((v, binding));
        v
    }

    /// A StorageBuffer pointer to the element of type `nt` (`size` bytes,
    /// a power of two; the access is `size`-aligned) at global address
    /// `addr`.
    pub(crate) fn desc_ptr(&mut self, b: &mut Block, addr: Word, nt: Word, size: u64) -> Res<Word> {
        let slots = self.candidates(addr)?;
        let u32t = self.out.t_u32();
        let off = self.emit(b, Op::UConvert, u32t, ids(&[addr]));
        let idx = if size <= 1 {
            off
        } else {
            let sh = self.out.c_u32(size.trailing_zeros());
            self.emit(b, Op::ShiftRightLogical, u32t, ids(&[off, sh]))
        };
        let base = if let [s] = slots[..] {
            self.view(s, nt, size)
        } else {
            let u64t = self.out.t_u64();
            let c32 = self.out.c_u32(32);
            let hi = self.emit(b, Op::ShiftRightLogical, u64t, ids(&[addr, c32]));
            let slot = self.emit(b, Op::UConvert, u32t, ids(&[hi]));
            let pt = self.view_type(nt, size);
            let bt = self.out.t_bool();
            let (last, rest) = slots.split_last().expect("non-empty");
            let mut cur = self.view(*last, nt, size);
            for &s in rest.iter().rev() {
                let c = self.out.c_u32(s);
                let eq = self.emit(b, Op::IEqual, bt, ids(&[slot, c]));
                let v = self.view(s, nt, size);
                cur = self.emit(b, Op::Select, pt, ids(&[eq, v, cur]));
            }
            self.desc.variable_pointers = true;
            cur
        };
        let pt = self.out.t_ptr(StorageClass::StorageBuffer, nt);
        let zero = self.out.c_u32(0);
        Ok(self.emit(b, Op::AccessChain, pt, ids(&[base, zero, idx])))
    }

    /// The variable of the POD buffer at `binding` (`bytes` bytes).
    pub(crate) fn pod_var(&mut self, binding: u32, bytes: u32) -> (Word, bool) {
        if let Some(&v) = self.desc.pod_vars.get(&binding) {
            return v;
        }
        let ubo = self.caps.descriptor.pod_ubo;
        let u32t = self.out.t_u32();
        let (elem, stride, n, sc) = if ubo {
            let v4 = self.out.t_vec(u32t, 4);
            (v4, 16, bytes.div_ceil(16).max(1), StorageClass::Uniform)
        } else {
            (
                u32t,
                4,
                bytes.div_ceil(4).max(1),
                StorageClass::StorageBuffer,
            )
        };
        let len = self.out.c_u32(n);
        let arr = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::TypeArray,
            None,
            Some(arr),
            ids(&[elem, len]),
        ));
        self.out.decorate(
            arr,
            vec![
                Operand::Decoration(Decoration::ArrayStride),
                Operand::LiteralBit32(stride),
            ],
        );
        let st = self.out.block_struct(arr);
        let pt = self.out.t_ptr(sc, st);
        let v = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(v),
            vec![Operand::StorageClass(sc)],
        ));
        if !ubo {
            self.out
                .decorate(v, vec![Operand::Decoration(Decoration::NonWritable)]);
        }
        self.desc.pod_vars.insert(binding, (v, ubo));
        self.desc.bound.push((v, binding));
        (v, ubo)
    }

    /// Word `k` of the POD buffer `var`.
    pub(crate) fn pod_word(&mut self, b: &mut Block, var: Word, ubo: bool, k: u32) -> Word {
        let u32t = self.out.t_u32();
        let zero = self.out.c_u32(0);
        let p = if ubo {
            let pt = self.out.t_ptr(StorageClass::Uniform, u32t);
            let i = self.out.c_u32(k / 4);
            let j = self.out.c_u32(k % 4);
            self.emit(b, Op::AccessChain, pt, ids(&[var, zero, i, j]))
        } else {
            let pt = self.out.t_ptr(StorageClass::StorageBuffer, u32t);
            let i = self.out.c_u32(k);
            self.emit(b, Op::AccessChain, pt, ids(&[var, zero, i]))
        };
        self.emit(b, Op::Load, u32t, ids(&[p]))
    }

    /// The value of buffer argument `i` (slot `i + 1` at offset 0, or 0
    /// when the NULL mask says so).
    pub(crate) fn desc_buffer_arg(&mut self, b: &mut Block, i: usize) -> Word {
        let mask =
            self.implicit_field(b, crate::abi::ImplicitField::NullBufferArgs((i / 32) as u8));
        let u32t = self.out.t_u32();
        let u64t = self.out.t_u64();
        let bt = self.out.t_bool();
        let bit = self.out.c_u32(1 << (i % 32));
        let m = self.emit(b, Op::BitwiseAnd, u32t, ids(&[mask, bit]));
        let zero = self.out.c_u32(0);
        let is_null = self.emit(b, Op::INotEqual, bt, ids(&[m, zero]));
        let null = self.out.c_u64(0);
        let val = self.out.c_u64((arg_slot(i) as u64) << 32);
        self.emit(b, Op::Select, u64t, ids(&[is_null, null, val]))
    }

    /// The variable of the launch's printf buffer (`Kernel::printf_binding`):
    /// a StorageBuffer `struct { u32 words[]; }` at the binding after every
    /// other: `spill_binding`, or the one after it when image/sampler fields
    /// spill (decided before any function is lowered).
    pub(crate) fn printf_buffer_var(&mut self) -> Word {
        if let Some((v, _)) = self.desc.printf {
            return v;
        }
        let u32t = self.out.t_u32();
        let pt = self.view_type(u32t, 4);
        let v = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(v),
            vec![Operand::StorageClass(StorageClass::StorageBuffer)],
        ));
        let binding = self.desc.spill_binding + u32::from(self.pc.spill_meta);
        self.desc.printf = Some((v, binding));
        self.desc.bound.push((v, binding));
        v
    }

    /// Decorates the view and POD variables with their set and binding;
    /// returns them (the entry point's interface).
    pub(crate) fn finish_descriptors(&mut self, set: u32) -> Vec<Word> {
        let bound = std::mem::take(&mut self.desc.bound);
        for &(v, binding) in &bound {
            self.out.decorate(
                v,
                vec![
                    Operand::Decoration(Decoration::DescriptorSet),
                    Operand::LiteralBit32(set),
                ],
            );
            self.out.decorate(
                v,
                vec![
                    Operand::Decoration(Decoration::Binding),
                    Operand::LiteralBit32(binding),
                ],
            );
        }
        bound.into_iter().map(|(v, _)| v).collect()
    }

    /// Whether the kernel has any descriptor-addressed binding.
    pub(crate) fn desc_has_bindings(&self) -> bool {
        self.desc.enabled
            && (self.desc.arg_binding.iter().any(|b| b.is_some())
                || self.desc.pod_cluster_binding.is_some()
                || self.desc.globals_binding.is_some()
                || self.desc.printf.is_some())
    }
}
