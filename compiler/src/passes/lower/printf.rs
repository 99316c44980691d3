//! OpenCL C `printf` (OpenCL.std printf): `lower_printf`.
//!
//! # Algorithm
//!
//! The format string must be a string literal (program-scope `__constant`
//! data): it is read at compile time and becomes one `PrintfCall` of the
//! kernel's reflection, with the layout of its arguments. At run time the
//! call reserves its record in the launch's printf buffer with one atomic
//! add on the buffer's `used` word, then stores the call's index and its
//! arguments as u32 words (see `abi::PrintfCall`); the runtime formats the
//! records on the host when the launch completes. A record that does not
//! fit is written past the capacity, where the runtime left room for it,
//! and printf returns -1 (no branch needed); otherwise 0.
//!
//! The buffer is reached through its 64-bit device address
//! (`ImplicitField::PrintfBuffer`) with physical addressing, and through a
//! storage-buffer binding of the kernel's set (`Kernel::printf_binding`, a
//! `u32` runtime array, word-indexed) with descriptor addressing, which
//! uses no buffer device address.
//!
//! Arguments: integers and floating-point values (and vectors of them) as
//! their bits, each component zero-extended to whole words; a pointer to
//! `__constant` `char` data (a `%s` argument) as its byte offset in the
//! kernel's constant data, which the reflection carries; any other pointer
//! as its 64-bit value.
//!
//! # Gaps
//!
//! A format string that is not a literal, and `%s` of a string that is not
//! in `__constant` memory, are build errors.

use rspirv::dr::Operand;
use rspirv::spirv::{MemoryAccess, Op, Scope, StorageClass, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};
use crate::abi::{ImplicitField, PrintfArg, PrintfArgKind, PrintfCall};
use crate::analyses::address_space::Space;
use crate::analyses::type_table::Ty;

/// The printf concern's view of the lowering: the shared context and the
/// kernel's printf calls.
pub(crate) struct LowerPrintf<'c, 'a> {
    pub cx: &'c mut Lower<'a>,
    pub printf: &'c mut Printf,
}

impl<'a> std::ops::Deref for LowerPrintf<'_, 'a> {
    type Target = Lower<'a>;
    fn deref(&self) -> &Lower<'a> {
        self.cx
    }
}

impl<'a> std::ops::DerefMut for LowerPrintf<'_, 'a> {
    fn deref_mut(&mut self) -> &mut Lower<'a> {
        self.cx
    }
}

/// The kernel's printf calls.
#[derive(Default)]
pub(crate) struct Printf {
    pub calls: Vec<PrintfCall>,
}

impl LowerPrintf<'_, '_> {
    /// The byte offset in the constant data that pointer `id` (an input
    /// value) has, when it is a compile-time constant.
    fn const_address(&self, id: Word) -> Option<u64> {
        if let Some(&o) = self.mem.const_offsets.get(&id) {
            return Some(o);
        }
        let d = self.ix.defs.get(&id)?;
        let arg = |k: usize| d.operands.get(k).and_then(|o| o.id_ref_any());
        match d.class.opcode {
            Op::Bitcast
            | Op::CopyObject
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::GenericCastToPtrExplicit => self.const_address(arg(0)?),
            op @ (Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain) => {
                let base = arg(0)?;
                let mut off = self.const_address(base)? as i64;
                let Ty::Pointer(_, pointee) = self.tys.get(self.ty_of(base)).clone() else {
                    return None;
                };
                let idx: Vec<Word> = d.operands[1..]
                    .iter()
                    .filter_map(|o| o.id_ref_any())
                    .collect();
                let ptr_chain = matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
                off += self.tys.const_chain_offset(pointee, ptr_chain, &idx)?;
                u64::try_from(off).ok()
            }
            _ => None,
        }
    }

    /// The u32 words of scalar `v` (output type `nt`, `bytes` bytes).
    fn scalar_words(&mut self, b: &mut Block, v: Word, nt: Word, bytes: u32) -> Vec<Word> {
        let u32t = self.out.t_u32();
        match bytes {
            8 => {
                let v2 = self.out.t_vec(u32t, 2);
                let x = self.emit(b, Op::Bitcast, v2, ids(&[v]));
                (0..2)
                    .map(|k| {
                        self.emit(
                            b,
                            Op::CompositeExtract,
                            u32t,
                            vec![Operand::IdRef(x), Operand::LiteralBit32(k)],
                        )
                    })
                    .collect()
            }
            4 if nt == u32t => vec![v],
            4 => vec![self.emit(b, Op::Bitcast, u32t, ids(&[v]))],
            _ => {
                let bits = if self.out.is_float(nt) {
                    let it = self.out.t_int(bytes * 8);
                    self.emit(b, Op::Bitcast, it, ids(&[v]))
                } else {
                    v
                };
                vec![self.emit(b, Op::UConvert, u32t, ids(&[bits]))]
            }
        }
    }

    /// Describes argument `a` of a printf call and appends its words.
    fn printf_arg(&mut self, b: &mut Block, a: Word, words: &mut Vec<Word>) -> Res<PrintfArg> {
        let ty = self.ty_of(a);
        let (elem, n) = match self.tys.get(ty).clone() {
            Ty::Vector(e, n) => (e, n),
            Ty::Pointer(_, pointee) => {
                let space = self.space(a)?;
                let v = self.v(a);
                let nt = self.lower_ty(ty)?;
                let is_string = space == Space::Const && self.tys.get(pointee) == &Ty::Int(8);
                if is_string {
                    let u32t = self.out.t_u32();
                    let w = if self.out.int_width(nt) == Some(32) {
                        v
                    } else {
                        self.emit(b, Op::UConvert, u32t, ids(&[v]))
                    };
                    words.push(w);
                    return Ok(PrintfArg {
                        kind: PrintfArgKind::String,
                        bytes: 4,
                        components: 1,
                    });
                }
                if space == Space::Const {
                    return Err("printf: only strings may be passed from __constant memory".into());
                }
                let u64t = self.out.t_u64();
                let w = if self.out.int_width(nt) == Some(64) {
                    v
                } else {
                    self.emit(b, Op::UConvert, u64t, ids(&[v]))
                };
                words.extend(self.scalar_words(b, w, u64t, 8));
                return Ok(PrintfArg {
                    kind: PrintfArgKind::Pointer,
                    bytes: 8,
                    components: 1,
                });
            }
            _ => (ty, 1),
        };
        let (kind, bytes) = match self.tys.get(elem) {
            Ty::Int(w) => (PrintfArgKind::Int, w.div_ceil(8)),
            Ty::Bool => (PrintfArgKind::Int, 1),
            Ty::Float(w) => (PrintfArgKind::Float, w / 8),
            _ => {
                return Err(format!(
                    "printf argument of type {} is not supported",
                    self.tys.c_name(ty)
                ))
            }
        };
        let et = self.lower_ty(elem)?;
        let v = self.v(a);
        for i in 0..n {
            let c = if n == 1 {
                v
            } else {
                self.vector_elem(b, v, ty, et, i)
            };
            let c = if self.tys.get(elem) == &Ty::Bool {
                let u8t = self.out.t_int(8);
                let (one, zero) = (self.out.c_int(8, 1), self.out.c_int(8, 0));
                self.emit(b, Op::Select, u8t, ids(&[c, one, zero]))
            } else {
                c
            };
            let ct = if self.tys.get(elem) == &Ty::Bool {
                self.out.t_int(8)
            } else {
                et
            };
            words.extend(self.scalar_words(b, c, ct, bytes));
        }
        Ok(PrintfArg {
            kind,
            bytes: bytes as u8,
            components: n as u8,
        })
    }

    /// OpenCL.std printf: `raw` = format, arguments (see the module doc).
    pub(crate) fn lower_printf(
        &mut self,
        b: &mut Block,
        id: Word,
        rty: Word,
        raw: &[Word],
    ) -> Res<()> {
        let (&fmt, args) = raw.split_first().ok_or("printf without a format")?;
        let off = self
            .const_address(fmt)
            .ok_or("printf: the format must be a string literal")? as usize;
        let bytes = self.mem.const_data.get(off..).unwrap_or_default();
        let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
        let format = String::from_utf8_lossy(&bytes[..end]).into_owned();

        let index = self.printf.calls.len() as u32;
        let mut words = vec![self.out.c_u32(index)];
        let mut descs = Vec::new();
        for &a in args {
            descs.push(self.printf_arg(b, a, &mut words)?);
        }
        let call = PrintfCall {
            format,
            args: descs,
        };
        let size = call.record_size() as u32;
        self.printf.calls.push(call);

        let ok = if self.desc.enabled {
            self.printf_store_descriptor(b, size, &words)
        } else {
            self.printf_store_physical(b, size, &words)
        };
        let rt = self.lower_ty(rty)?;
        let w = self.out.int_width(rt).unwrap_or(32);
        let zero = self.out.c_int(w, 0);
        let minus1 = self.out.c_int(w, u64::MAX >> (64 - w));
        b.push(Op::Select, Some(rt), Some(id), ids(&[ok, zero, minus1]));
        Ok(())
    }

    /// `at + size <= cap` without wrapping (`size <= cap && at <= cap -
    /// size`), and the byte offset (in the records) where the record goes:
    /// `at` when it fits, else `cap`. Returns (fits, offset).
    fn printf_slot(&mut self, b: &mut Block, at: Word, cap: Word, size_c: Word) -> (Word, Word) {
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let size_fits = self.emit(b, Op::ULessThanEqual, bt, ids(&[size_c, cap]));
        let room = self.emit(b, Op::ISub, u32t, ids(&[cap, size_c]));
        let at_fits = self.emit(b, Op::ULessThanEqual, bt, ids(&[at, room]));
        let ok = self.emit(b, Op::LogicalAnd, bt, ids(&[size_fits, at_fits]));
        let slot = self.emit(b, Op::Select, u32t, ids(&[ok, at, cap]));
        (ok, slot)
    }

    /// Descriptor addressing: reserves and writes the record through the
    /// printf buffer's binding (`printf_buffer_var`), word-indexed; returns
    /// whether it fit.
    fn printf_store_descriptor(&mut self, b: &mut Block, size: u32, words: &[Word]) -> Word {
        let var = self.printf_buffer_var();
        let u32t = self.out.t_u32();
        let pt = self.out.t_ptr(StorageClass::StorageBuffer, u32t);
        let zero = self.out.c_u32(0);
        let one = self.out.c_u32(1);
        let used = self.emit(b, Op::AccessChain, pt, ids(&[var, zero, zero]));
        let scope = self.out.c_u32(Scope::Device as u32);
        let size_c = self.out.c_u32(size);
        let at = self.emit(b, Op::AtomicIAdd, u32t, ids(&[used, scope, zero, size_c]));
        let cap_ptr = self.emit(b, Op::AccessChain, pt, ids(&[var, zero, one]));
        let cap = self.emit(b, Op::Load, u32t, ids(&[cap_ptr]));
        let (ok, slot) = self.printf_slot(b, at, cap, size_c);
        // Records start at word 2; `slot` is a multiple of 4.
        let two = self.out.c_u32(2);
        let rec = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[slot, two]));
        for (k, &w) in words.iter().enumerate() {
            let off = self.out.c_u32(2 + k as u32);
            let i = self.emit(b, Op::IAdd, u32t, ids(&[rec, off]));
            let p = self.emit(b, Op::AccessChain, pt, ids(&[var, zero, i]));
            b.push(Op::Store, None, None, ids(&[p, w]));
        }
        ok
    }

    /// Physical addressing: reserves and writes the record through the
    /// buffer's device address (`ImplicitField::PrintfBuffer`); returns
    /// whether it fit.
    fn printf_store_physical(&mut self, b: &mut Block, size: u32, words: &[Word]) -> Word {
        let u32t = self.out.t_u32();
        let u64t = self.out.t_u64();
        let lo = self.implicit_field(b, ImplicitField::PrintfBuffer(0));
        let hi = self.implicit_field(b, ImplicitField::PrintfBuffer(1));
        let v2 = self.out.t_vec(u32t, 2);
        let v = self.emit(b, Op::CompositeConstruct, v2, ids(&[lo, hi]));
        let base = self.emit(b, Op::Bitcast, u64t, ids(&[v]));
        let pt = self.out.t_ptr(StorageClass::PhysicalStorageBuffer, u32t);
        let used = self.emit(b, Op::ConvertUToPtr, pt, ids(&[base]));
        let scope = self.out.c_u32(Scope::Device as u32);
        let relaxed = self.out.c_u32(0);
        let size_c = self.out.c_u32(size);
        let at = self.emit(
            b,
            Op::AtomicIAdd,
            u32t,
            ids(&[used, scope, relaxed, size_c]),
        );
        let cap_addr = self.addr_add(b, Space::Global, base, 4);
        let cap_ptr = self.emit(b, Op::ConvertUToPtr, pt, ids(&[cap_addr]));
        let aligned = vec![
            Operand::IdRef(cap_ptr),
            Operand::MemoryAccess(MemoryAccess::ALIGNED),
            Operand::LiteralBit32(4),
        ];
        let cap = self.emit(b, Op::Load, u32t, aligned);
        let (ok, slot) = self.printf_slot(b, at, cap, size_c);
        let slot = self.emit(b, Op::UConvert, u64t, ids(&[slot]));
        let rec = self.emit(b, Op::IAdd, u64t, ids(&[base, slot]));
        for (k, &w) in words.iter().enumerate() {
            let a = self.addr_add(b, Space::Global, rec, 8 + 4 * k as u64);
            let p = self.emit(b, Op::ConvertUToPtr, pt, ids(&[a]));
            b.push(
                Op::Store,
                None,
                None,
                vec![
                    Operand::IdRef(p),
                    Operand::IdRef(w),
                    Operand::MemoryAccess(MemoryAccess::ALIGNED),
                    Operand::LiteralBit32(4),
                ],
            );
        }
        ok
    }
}
