//! Sub-word and misaligned accesses of `lower::memory`: words of the
//! `u32` arrays that hold `__local`, private and `__constant` memory, and
//! values assembled from (or scattered into) bytes where an access is
//! below its natural alignment. Sub-word stores to `__local` memory clear
//! and set their bits with OpAtomicAnd/OpAtomicOr so that concurrent
//! stores to the other bytes of the word survive.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Scope, StorageClass, Word};

use crate::analyses::address_space::Space;
use crate::analyses::type_table::{align_at, Ty};
use crate::passes::lower::context::{memory_align, Lower, Res};
use crate::passes::lower::emit::{ids, Block};
use crate::passes::lower::helper_fn::HelperFn;

/// Chunks a copy may have before it becomes a loop (`copy_in_loop`).
const UNROLLED_COPY_CHUNKS: u64 = 1024;

impl Lower<'_> {
    pub(super) fn load_word(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        extra: u32,
    ) -> Res<Word> {
        let i = self.word_index(b, addr, extra);
        let p = self.word_ptr(b, space, i)?;
        let u32t = self.out.t_u32();
        Ok(self.emit(b, Op::Load, u32t, ids(&[p])))
    }

    /// Bit shift of the byte `addr` inside its word: `(addr & 3) * 8`.
    pub(super) fn byte_shift(&mut self, b: &mut Block, addr: Word) -> Word {
        let u32t = self.out.t_u32();
        let three = self.out.c_u32(3);
        let lo = self.emit(b, Op::BitwiseAnd, u32t, ids(&[addr, three]));
        self.emit(b, Op::ShiftLeftLogical, u32t, ids(&[lo, three]))
    }

    /// Converts an integer of `from` bits to the scalar type `nt` of the same
    /// width (bitcast for floats).
    pub(super) fn int_bits_to(&mut self, b: &mut Block, v: Word, nt: Word) -> Word {
        if self.out.is_float(nt) {
            self.emit(b, Op::Bitcast, nt, ids(&[v]))
        } else {
            v
        }
    }

    /// Loads a scalar of `bytes` bytes, output type `nt`.
    pub(crate) fn load_scalar(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        nt: Word,
        bytes: u64,
        align: u64,
    ) -> Res<Word> {
        if space == Space::Global {
            if (align >= bytes || bytes == 1) && self.desc.enabled {
                return self.desc_load(b, nt, addr, bytes);
            }
            if align >= bytes || bytes == 1 {
                return Ok(self.psb_load(b, nt, addr, bytes.max(align)));
            }
            return self.load_bytewise(b, space, addr, nt, bytes);
        }
        let u32t = self.out.t_u32();
        match bytes {
            4 if align >= 4 => {
                let w = self.load_word(b, space, addr, 0)?;
                Ok(if nt == u32t {
                    w
                } else {
                    self.emit(b, Op::Bitcast, nt, ids(&[w]))
                })
            }
            8 if align >= 4 => {
                let lo = self.load_word(b, space, addr, 0)?;
                let hi = self.load_word(b, space, addr, 1)?;
                Ok(self.words_to(b, &[lo, hi], nt))
            }
            1 | 2 if align >= bytes => {
                let w = self.load_word(b, space, addr, 0)?;
                let sh = self.byte_shift(b, addr);
                let x = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[w, sh]));
                let it = self.out.t_int(bytes as u32 * 8);
                let x = self.emit(b, Op::UConvert, it, ids(&[x]));
                Ok(self.int_bits_to(b, x, nt))
            }
            _ => self.load_bytewise(b, space, addr, nt, bytes),
        }
    }

    /// A misaligned scalar, assembled from its bytes (little-endian).
    pub(super) fn load_bytewise(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        nt: Word,
        bytes: u64,
    ) -> Res<Word> {
        let wide = if bytes > 4 { 64 } else { 32 };
        let wt = self.out.t_int(wide);
        let u8t = self.out.t_int(8);
        let mut acc = self.out.c_int(wide, 0);
        for i in 0..bytes {
            let a = self.addr_add(b, space, addr, i);
            let byte = self.load_scalar(b, space, a, u8t, 1, 1)?;
            let x = self.emit(b, Op::UConvert, wt, ids(&[byte]));
            let sh = self.out.c_u32(i as u32 * 8);
            let x = self.emit(b, Op::ShiftLeftLogical, wt, ids(&[x, sh]));
            acc = self.emit(b, Op::BitwiseOr, wt, ids(&[acc, x]));
        }
        let bits = bytes as u32 * 8;
        if bits != wide {
            let it = self.out.t_int(bits);
            acc = self.emit(b, Op::UConvert, it, ids(&[acc]));
        }
        Ok(self.int_bits_to(b, acc, nt))
    }

    /// The bits of scalar `value` (type `nt`) as an unsigned integer.
    pub(super) fn scalar_bits(&mut self, b: &mut Block, value: Word, nt: Word, bytes: u64) -> Word {
        if self.out.is_float(nt) {
            let it = self.out.t_int(bytes as u32 * 8);
            self.emit(b, Op::Bitcast, it, ids(&[value]))
        } else {
            value
        }
    }

    /// Stores a scalar of `bytes` bytes (output type `nt`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn store_scalar(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        nt: Word,
        value: Word,
        bytes: u64,
        align: u64,
    ) -> Res<()> {
        if space == Space::Global {
            if (align >= bytes || bytes == 1) && self.desc.enabled {
                return self.desc_store(b, nt, addr, value, bytes);
            }
            if align >= bytes || bytes == 1 {
                self.psb_store(b, nt, addr, value, bytes.max(align));
                return Ok(());
            }
            return self.store_bytewise(b, space, addr, nt, value, bytes);
        }
        let u32t = self.out.t_u32();
        match bytes {
            4 if align >= 4 => {
                let w = if nt == u32t {
                    value
                } else {
                    self.emit(b, Op::Bitcast, u32t, ids(&[value]))
                };
                let i = self.word_index(b, addr, 0);
                let p = self.word_ptr(b, space, i)?;
                b.push(Op::Store, None, None, ids(&[p, w]));
                Ok(())
            }
            8 if align >= 4 => {
                let v2 = self.out.t_vec(u32t, 2);
                let v = self.emit(b, Op::Bitcast, v2, ids(&[value]));
                for k in 0..2 {
                    let w = self.emit(
                        b,
                        Op::CompositeExtract,
                        u32t,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(k)],
                    );
                    let i = self.word_index(b, addr, k);
                    let p = self.word_ptr(b, space, i)?;
                    b.push(Op::Store, None, None, ids(&[p, w]));
                }
                Ok(())
            }
            1 | 2 if align >= bytes => {
                let bits = self.scalar_bits(b, value, nt, bytes);
                let x = self.emit(b, Op::UConvert, u32t, ids(&[bits]));
                let sh = self.byte_shift(b, addr);
                let x = self.emit(b, Op::ShiftLeftLogical, u32t, ids(&[x, sh]));
                let ones = self.out.c_u32(if bytes == 1 { 0xff } else { 0xffff });
                let m = self.emit(b, Op::ShiftLeftLogical, u32t, ids(&[ones, sh]));
                let keep = self.emit(b, Op::Not, u32t, ids(&[m]));
                let i = self.word_index(b, addr, 0);
                let p = self.word_ptr(b, space, i)?;
                if space == Space::Local {
                    // Two atomics: other work-items may store the other
                    // bytes of this word concurrently.
                    let scope = self.out.c_u32(Scope::Workgroup as u32);
                    let relaxed = self.out.c_u32(0);
                    self.emit(b, Op::AtomicAnd, u32t, ids(&[p, scope, relaxed, keep]));
                    self.emit(b, Op::AtomicOr, u32t, ids(&[p, scope, relaxed, x]));
                } else {
                    let w = self.emit(b, Op::Load, u32t, ids(&[p]));
                    let w = self.emit(b, Op::BitwiseAnd, u32t, ids(&[w, keep]));
                    let w = self.emit(b, Op::BitwiseOr, u32t, ids(&[w, x]));
                    b.push(Op::Store, None, None, ids(&[p, w]));
                }
                Ok(())
            }
            _ => self.store_bytewise(b, space, addr, nt, value, bytes),
        }
    }

    pub(super) fn store_bytewise(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        nt: Word,
        value: Word,
        bytes: u64,
    ) -> Res<()> {
        let bits = self.scalar_bits(b, value, nt, bytes);
        let it = self.out.t_int(bytes as u32 * 8);
        let u8t = self.out.t_int(8);
        for i in 0..bytes {
            let sh = self.out.c_u32(i as u32 * 8);
            let x = self.emit(b, Op::ShiftRightLogical, it, ids(&[bits, sh]));
            let byte = self.emit(b, Op::UConvert, u8t, ids(&[x]));
            let a = self.addr_add(b, space, addr, i);
            self.store_scalar(b, space, a, u8t, byte, 1, 1)?;
        }
        Ok(())
    }

    /// OpCopyMemory / OpCopyMemorySized with a constant size: copied in the
    /// widest chunks the alignment allows (16 bytes between global
    /// addresses, else up to 8).
    pub(crate) fn lower_copy_memory(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let dst = inst.operands[0].unwrap_id_ref();
        let src = inst.operands[1].unwrap_id_ref();
        let (size, mem_ops) = if inst.class.opcode == Op::CopyMemorySized {
            let s = inst.operands[2].unwrap_id_ref();
            let size = self.tys.const_index(s).ok_or(
                "memcpy with a size that is not a compile-time constant is not supported yet",
            )?;
            (size as u64, &inst.operands[3..])
        } else {
            let Ty::Pointer(_, p) = self.tys.get(self.ty_of(dst)).clone() else {
                return Err("bad OpCopyMemory".into());
            };
            (self.tys.size_of(p), &inst.operands[2..])
        };
        let align = memory_align(mem_ops).unwrap_or(1);
        let ds = self.space(dst)?;
        let ss = self.space(src)?;
        let da = self.addr_of(b, ds, dst)?;
        let sa = self.addr_of(b, ss, src)?;
        // Global to global: up to 16 bytes (a uvec4) at a time.
        let widest = if ds == Space::Global && ss == Space::Global {
            16
        } else {
            8
        };
        let chunk = [16u64, 8, 4, 2, 1]
            .into_iter()
            .find(|c| *c <= widest && align >= *c && size % c == 0)
            .unwrap_or(1);
        if size / chunk > UNROLLED_COPY_CHUNKS {
            return self.copy_in_loop(b, [(ds, da), (ss, sa)], size / chunk, chunk);
        }
        let ct = if chunk == 16 {
            let u32t = self.out.t_u32();
            self.out.t_vec(u32t, 4)
        } else {
            self.out.t_int(chunk as u32 * 8)
        };
        let mut off = 0;
        while off < size {
            let a = align_at(align, off);
            let s = self.addr_add(b, ss, sa, off);
            let v = if chunk == 16 {
                self.global_load(b, ct, s, 16, a)?
            } else {
                self.load_scalar(b, ss, s, ct, chunk, a)?
            };
            let d = self.addr_add(b, ds, da, off);
            if chunk == 16 {
                self.global_store(b, ct, d, v, 16, a)?;
            } else {
                self.store_scalar(b, ds, d, ct, v, chunk, a)?;
            }
            off += chunk;
        }
        Ok(())
    }

    /// A copy of `n` chunks of `chunk` bytes from `src` to `dst` (each an
    /// address in its space's form), as a call of a loop helper: a large
    /// struct or array copy unrolled would be thousands of instructions.
    /// Every chunk offset is a multiple of `chunk`, which the caller chose
    /// no wider than the copy's alignment, so each access is aligned to it.
    fn copy_in_loop(
        &mut self,
        b: &mut Block,
        [(ds, da), (ss, sa)]: [(Space, Word); 2],
        n: u64,
        chunk: u64,
    ) -> Res<()> {
        let bound_global = |s: Space| s == Space::Global && self.desc.enabled;
        if bound_global(ds) || bound_global(ss) {
            // A descriptor-addressed global pointer names its binding
            // statically, which does not reach a helper function.
            return Err(format!(
                "memcpy of more than {UNROLLED_COPY_CHUNKS} elements of {chunk} bytes \
                 from or to global memory with descriptor addressing is not supported yet"
            ));
        }
        // A private variable's own Function-storage array is the kernel
        // function's: the helper gets it as a pointer parameter.
        let mut arrays: Vec<(Word, Word, Word)> = Vec::new();
        for s in [ds, ss] {
            let Space::Variable(v) = s else { continue };
            let (arr, sc) = *self
                .mem
                .own_arrays
                .get(&v)
                .ok_or("a private variable without its array")?;
            if sc != StorageClass::Function || arrays.iter().any(|&(w, ..)| w == v) {
                continue;
            }
            let pt = self
                .mem
                .own_decls
                .values()
                .flatten()
                .find(|&&(a, _)| a == arr)
                .map(|&(_, pt)| pt)
                .ok_or("a private variable's array without its declaration")?;
            arrays.push((v, arr, pt));
        }
        let key = format!("copy:{ds:?}:{ss:?}:{chunk}");
        let f = match self.helper(&key) {
            Some(f) => f,
            None => self.define_copy_loop(key, ds, ss, chunk, &arrays)?,
        };
        let count = self
            .out
            .c_u32(u32::try_from(n).map_err(|_| "memcpy of 2^32 chunks or more")?);
        let void = self.out.t_void();
        let mut args = vec![da, sa, count];
        args.extend(arrays.iter().map(|&(_, arr, _)| arr));
        self.call_helper(b, f, void, &args);
        Ok(())
    }

    /// The helper of `copy_in_loop`: parameters (dst, src, count, then a
    /// pointer to each own array in `arrays`: variable, array, its type).
    fn define_copy_loop(
        &mut self,
        key: String,
        ds: Space,
        ss: Space,
        chunk: u64,
        arrays: &[(Word, Word, Word)],
    ) -> Res<Word> {
        let addr_ty = |l: &mut Self, s: Space| {
            if s == Space::Global {
                l.out.t_u64()
            } else {
                l.out.t_u32()
            }
        };
        let (dt, st) = (addr_ty(self, ds), addr_ty(self, ss));
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let fid = self.out.id();
        let (d, s, n) = (self.out.id(), self.out.id(), self.out.id());
        let [entry, header, body, latch, exit] = [(); 5].map(|_| self.out.id());
        let (i, next) = (self.out.id(), self.out.id());

        let mut eb = Block::default();
        eb.push(Op::Branch, None, None, ids(&[header]));

        let mut hb = Block::default();
        let zero = self.out.c_u32(0);
        hb.push(
            Op::Phi,
            Some(u32t),
            Some(i),
            ids(&[zero, entry, next, latch]),
        );
        let more = self.emit(&mut hb, Op::ULessThan, bt, ids(&[i, n]));
        Self::loop_merge(&mut hb, exit, latch);
        hb.push(Op::BranchConditional, None, None, ids(&[more, body, exit]));

        // The body reaches the own arrays through the parameters.
        let array_params: Vec<(Word, Word)> = arrays
            .iter()
            .map(|&(_, _, pt)| (self.out.id(), pt))
            .collect();
        let saved: Vec<_> = arrays
            .iter()
            .zip(&array_params)
            .map(|(&(v, ..), &(param, _))| {
                (
                    v,
                    self.mem
                        .own_arrays
                        .insert(v, (param, StorageClass::Function)),
                )
            })
            .collect();
        let mut bb = Block::default();
        let size = self.out.c_u32(chunk as u32);
        let off = self.emit(&mut bb, Op::IMul, u32t, ids(&[i, size]));
        let at = |l: &mut Self, bb: &mut Block, space: Space, base: Word, t: Word| {
            if space == Space::Global {
                let off64 = l.emit(bb, Op::UConvert, t, ids(&[off]));
                l.emit(bb, Op::IAdd, t, ids(&[base, off64]))
            } else {
                l.emit(bb, Op::IAdd, t, ids(&[base, off]))
            }
        };
        let sa = at(self, &mut bb, ss, s, st);
        let da = at(self, &mut bb, ds, d, dt);
        if chunk == 16 {
            let vt = self.out.t_vec(u32t, 4);
            let v = self.global_load(&mut bb, vt, sa, 16, 16)?;
            self.global_store(&mut bb, vt, da, v, 16, 16)?;
        } else {
            let ct = self.out.t_int(chunk as u32 * 8);
            let v = self.load_scalar(&mut bb, ss, sa, ct, chunk, chunk)?;
            self.store_scalar(&mut bb, ds, da, ct, v, chunk, chunk)?;
        }
        bb.push(Op::Branch, None, None, ids(&[latch]));
        for (v, old) in saved {
            if let Some(old) = old {
                self.mem.own_arrays.insert(v, old);
            }
        }

        let mut lb = Block::default();
        let one = self.out.c_u32(1);
        lb.push(Op::IAdd, Some(u32t), Some(next), ids(&[i, one]));
        lb.push(Op::Branch, None, None, ids(&[header]));

        let mut xb = Block::default();
        xb.push(Op::Return, None, None, vec![]);

        let void = self.out.t_void();
        self.define_helper(
            key,
            HelperFn {
                id: fid,
                result: void,
                params: [(d, dt), (s, st), (n, u32t)]
                    .into_iter()
                    .chain(array_params)
                    .collect(),
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
}
