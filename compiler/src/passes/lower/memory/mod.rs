//! Memory accesses through integer pointers: access chains, loads, stores
//! and copies, for every `Space`.
//!
//! Global memory is accessed through PhysicalStorageBuffer pointers made
//! from the address (descriptor addressing: through the typed views of
//! `descriptor`, where an access of `n` bytes must be `n`-aligned), with the `Aligned` operand the input gives (scalars
//! whose alignment is below their size are assembled from bytes). The
//! other spaces are `u32` word arrays: aligned 32/64-bit scalars are one or
//! two word accesses, 8/16-bit ones a shift and mask of their word, and
//! anything misaligned is assembled byte by byte (`bytes`). Sub-word stores to
//! `__local` memory clear and set their bits with OpAtomicAnd/OpAtomicOr so
//! that concurrent stores to the other bytes of the word survive.
//!
//! A memcpy of more than 1024 chunks is a loop in a helper function
//! (`bytes::copy_in_loop`; a private variable's own array is passed to it
//! as a pointer), smaller ones are unrolled.
//!
//! Gaps: memcpy of a size that is not a compile-time constant, a memcpy of
//! more than 1024 chunks from or to global memory under descriptor
//! addressing (a binding is named statically and does not reach a helper
//! function), stores to `__constant` memory, and loads or stores of arrays
//! of more than 4096 elements at once are reported.

use rspirv::dr::Operand;
use rspirv::spirv::{MemoryAccess, Op, StorageClass, Word};

use super::context::{rep_width, Lower, Res};
use super::emit::{ids, Block};
use super::wide::{wide_access, WideAccess};
use crate::analyses::address_space::Space;
use crate::analyses::type_table::{align_at, Ty};

mod bytes;

impl Lower<'_> {
    /// The address form of pointer value `ptr` for an access in `space`:
    /// u64 for global memory, u32 byte offset otherwise.
    pub(crate) fn addr_of(&mut self, b: &mut Block, space: Space, ptr: Word) -> Res<Word> {
        let Ty::Pointer(sc, _) = self.tys.get(self.ty_of(ptr)).clone() else {
            return Err("access through a non-pointer".into());
        };
        let v = self.v(ptr);
        let w = rep_width(sc);
        Ok(match (space, w) {
            (Space::Global, 64) => {
                self.desc_note_pointer(ptr, v);
                v
            }
            (Space::Global, _) => return Err("global access through a 32-bit pointer".into()),
            (_, 64) => {
                let t = self.out.t_u32();
                self.emit(b, Op::UConvert, t, ids(&[v]))
            }
            _ => v,
        })
    }

    /// `addr + off` in the address form of `space`.
    pub(crate) fn addr_add(&mut self, b: &mut Block, space: Space, addr: Word, off: u64) -> Word {
        if off == 0 {
            return addr;
        }
        if space == Space::Global {
            let c = self.out.c_u64(off);
            let t = self.out.t_u64();
            let a = self.emit(b, Op::IAdd, t, ids(&[addr, c]));
            self.desc_derive(addr, a);
            a
        } else {
            let c = self.out.c_u32(off as u32);
            let t = self.out.t_u32();
            self.emit(b, Op::IAdd, t, ids(&[addr, c]))
        }
    }

    /// An integer value `v` (input type `ty`) converted to `width` bits with
    /// sign extension (GEP indices are signed).
    fn index_to(&mut self, b: &mut Block, v: Word, ty: Word, width: u32) -> Res<Word> {
        let Ty::Int(w) = self.tys.get(ty).clone() else {
            return Err("non-integer index".into());
        };
        let v = self.v(v);
        if w == width {
            return Ok(v);
        }
        let t = self.out.t_int(width);
        Ok(self.emit(
            b,
            if w < width {
                Op::SConvert
            } else {
                Op::UConvert
            },
            t,
            ids(&[v]),
        ))
    }

    /// OpAccessChain family → `base + Σ index × stride + constant offset`,
    /// in the width of the base pointer's representation.
    pub(crate) fn access_chain(
        &mut self,
        b: &mut Block,
        base: Word,
        indices: &[Word],
        ptr_chain: bool,
    ) -> Res<Word> {
        let Ty::Pointer(sc, pointee) = self.tys.get(self.ty_of(base)).clone() else {
            return Err("access chain on a non-pointer".into());
        };
        let width = rep_width(sc);
        let t = self.out.t_int(width);
        let mut konst: i64 = 0;
        let mut acc = self.v(base);
        let mut cur = pointee;
        let mut rest = indices;
        let mut terms: Vec<(Word, u64)> = Vec::new();
        if ptr_chain {
            let (first, r) = indices.split_first().ok_or("empty pointer access chain")?;
            terms.push((*first, self.tys.size_of(pointee)));
            rest = r;
        }
        for &idx in rest {
            match self.tys.get(cur).clone() {
                Ty::Struct(members, _) => {
                    let i = self
                        .tys
                        .const_index(idx)
                        .ok_or("non-constant struct index")? as usize;
                    konst += self.tys.member_offset(cur, i) as i64;
                    cur = *members.get(i).ok_or("struct index out of range")?;
                }
                Ty::Array(e, _) | Ty::RuntimeArray(e) | Ty::Vector(e, _) => {
                    terms.push((idx, self.tys.size_of(e)));
                    cur = e;
                }
                _ => return Err("access chain into a scalar".into()),
            }
        }
        for (idx, stride) in terms {
            if let Some(c) = self.tys.const_index(idx) {
                konst = konst.wrapping_add(c.wrapping_mul(stride as i64));
                continue;
            }
            let ity = self.ty_of(idx);
            let mut x = self.index_to(b, idx, ity, width)?;
            if stride != 1 {
                let s = self.out.c_int(width, stride);
                x = self.emit(b, Op::IMul, t, ids(&[x, s]));
            }
            acc = self.emit(b, Op::IAdd, t, ids(&[acc, x]));
        }
        if konst != 0 {
            let c = self.out.c_int(width, konst as u64);
            acc = self.emit(b, Op::IAdd, t, ids(&[acc, c]));
        }
        Ok(acc)
    }

    /// Loads a value of input type `ty` from `addr` in `space`.
    pub(crate) fn load_value(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        ty: Word,
        align: u64,
    ) -> Res<Word> {
        let nt = self.lower_ty(ty)?;
        match self.tys.get(ty).clone() {
            Ty::Struct(members, _) => {
                let (offs, _) = self.tys.struct_layout(ty);
                let mut parts = Vec::new();
                for (m, off) in members.iter().zip(offs) {
                    let a = self.addr_add(b, space, addr, off);
                    parts.push(self.load_value(b, space, a, *m, align_at(align, off))?);
                }
                Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
            }
            Ty::Vector(e, n) if self.word_access(space, e, n, align) => {
                self.load_words(b, space, addr, ty, align)
            }
            Ty::Vector(e, n) if n > 4 => {
                if let Some(v) = self.load_wide_variant(b, space, addr, ty, align)? {
                    return Ok(v);
                }
                let v4 = self.synth_vec4(e);
                let ps = 4 * self.tys.size_of(e);
                let mut parts = Vec::new();
                for i in 0..n.div_ceil(4) as u64 {
                    let a = self.addr_add(b, space, addr, i * ps);
                    parts.push(self.load_value(b, space, a, v4, align_at(align, i * ps))?);
                }
                Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
            }
            t @ (Ty::Array(..) | Ty::Vector(..)) => {
                let (e, n, is_vec) = t.elements().unwrap_or((0, 0, false));
                let es = self.tys.size_of(e);
                let size = self.tys.size_of(ty);
                if is_vec && space == Space::Global && align >= es {
                    if !self.desc.enabled {
                        return Ok(self.psb_load(b, nt, addr, align));
                    }
                    if align >= size {
                        return self.desc_load(b, nt, addr, size);
                    }
                }
                if n > 4096 {
                    return Err("loading an array of more than 4096 elements at once".into());
                }
                let mut parts = Vec::new();
                for i in 0..n {
                    let off = i * es;
                    let a = self.addr_add(b, space, addr, off);
                    parts.push(self.load_value(b, space, a, e, align_at(align, off))?);
                }
                Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
            }
            Ty::Bool => {
                let t8 = self.out.t_int(8);
                let v = self.load_scalar(b, space, addr, t8, 1, align)?;
                let z = self.out.c_int(8, 0);
                Ok(self.emit(b, Op::INotEqual, nt, ids(&[v, z])))
            }
            Ty::Pointer(..) => {
                let t64 = self.out.t_u64();
                let v = self.load_scalar(b, space, addr, t64, 8, align)?;
                if nt == t64 {
                    Ok(v)
                } else {
                    Ok(self.emit(b, Op::UConvert, nt, ids(&[v])))
                }
            }
            Ty::Int(w) | Ty::Float(w) => {
                self.load_scalar(b, space, addr, nt, w.div_ceil(8) as u64, align)
            }
            _ => Err(format!(
                "cannot load a value of type {}",
                self.tys.c_name(ty)
            )),
        }
    }

    /// Stores `value` (input type `ty`) at `addr` in `space`.
    pub(crate) fn store_value(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        ty: Word,
        value: Word,
        align: u64,
    ) -> Res<()> {
        if space == Space::Const {
            return Err("store to __constant memory".into());
        }
        let nt = self.lower_ty(ty)?;
        match self.tys.get(ty).clone() {
            Ty::Struct(members, _) => {
                let (offs, _) = self.tys.struct_layout(ty);
                for (i, (m, off)) in members.iter().zip(offs).enumerate() {
                    let mt = self.lower_ty(*m)?;
                    let part = self.emit(
                        b,
                        Op::CompositeExtract,
                        mt,
                        vec![Operand::IdRef(value), Operand::LiteralBit32(i as u32)],
                    );
                    let a = self.addr_add(b, space, addr, off);
                    self.store_value(b, space, a, *m, part, align_at(align, off))?;
                }
                Ok(())
            }
            Ty::Vector(e, n) if self.word_access(space, e, n, align) => {
                self.store_words(b, space, addr, ty, value, align)
            }
            Ty::Vector(e, n) if n > 4 => {
                if self.store_wide_variant(b, space, addr, ty, value, align)? {
                    return Ok(());
                }
                let v4 = self.synth_vec4(e);
                let pt = self.wide_part_ty(ty)?;
                let ps = 4 * self.tys.size_of(e);
                for i in 0..n.div_ceil(4) {
                    let part = self.wide_part(b, value, pt, i);
                    let off = i as u64 * ps;
                    let a = self.addr_add(b, space, addr, off);
                    self.store_value(b, space, a, v4, part, align_at(align, off))?;
                }
                Ok(())
            }
            t @ (Ty::Array(..) | Ty::Vector(..)) => {
                let (e, n, is_vec) = t.elements().unwrap_or((0, 0, false));
                let es = self.tys.size_of(e);
                let size = self.tys.size_of(ty);
                if is_vec && space == Space::Global && align >= es {
                    if !self.desc.enabled {
                        self.psb_store(b, nt, addr, value, align);
                        return Ok(());
                    }
                    if align >= size {
                        return self.desc_store(b, nt, addr, value, size);
                    }
                }
                if n > 4096 {
                    return Err("storing an array of more than 4096 elements at once".into());
                }
                let et = self.lower_ty(e)?;
                for i in 0..n {
                    let part = self.emit(
                        b,
                        Op::CompositeExtract,
                        et,
                        vec![Operand::IdRef(value), Operand::LiteralBit32(i as u32)],
                    );
                    let off = i * es;
                    let a = self.addr_add(b, space, addr, off);
                    self.store_value(b, space, a, e, part, align_at(align, off))?;
                }
                Ok(())
            }
            Ty::Bool => {
                let t8 = self.out.t_int(8);
                let one = self.out.c_int(8, 1);
                let zero = self.out.c_int(8, 0);
                let v = self.emit(b, Op::Select, t8, ids(&[value, one, zero]));
                self.store_scalar(b, space, addr, t8, v, 1, align)
            }
            Ty::Pointer(..) => {
                let t64 = self.out.t_u64();
                let v = if nt == t64 {
                    value
                } else {
                    self.emit(b, Op::UConvert, t64, ids(&[value]))
                };
                self.store_scalar(b, space, addr, t64, v, 8, align)
            }
            Ty::Int(w) | Ty::Float(w) => {
                self.store_scalar(b, space, addr, nt, value, w.div_ceil(8) as u64, align)
            }
            _ => Err(format!(
                "cannot store a value of type {}",
                self.tys.c_name(ty)
            )),
        }
    }

    /// Whether `wide_access()` chooses how the 8/16-wide vector type `ty`
    /// at `align` in `space` is accessed: physical global memory, element
    /// alignment, not the default.
    fn wide_variant(&self, space: Space, ty: Word, align: u64) -> Option<WideAccess> {
        let Ty::Vector(e, _) = self.tys.get(ty) else {
            return None;
        };
        let w = wide_access();
        (space == Space::Global
            && !self.desc.enabled
            && align >= self.tys.size_of(*e)
            && w != WideAccess::Parts)
            .then_some(w)
    }

    /// A global load of wide vector type `ty` as `wide_access()` says
    /// (`None`: the default, one access per part).
    fn load_wide_variant(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        ty: Word,
        align: u64,
    ) -> Res<Option<Word>> {
        let Some(w) = self.wide_variant(space, ty, align) else {
            return Ok(None);
        };
        let Ty::Vector(e, n) = self.tys.get(ty).clone() else {
            return Ok(None);
        };
        let es = self.tys.size_of(e);
        let nt = self.lower_ty(ty)?;
        let pt = self.wide_part_ty(ty)?;
        let count = n.div_ceil(4);
        let parts: Vec<Word> = match w {
            WideAccess::Parts => return Ok(None),
            WideAccess::Scalar => {
                let mut scalars = Vec::new();
                for i in 0..n as u64 {
                    let a = self.addr_add(b, space, addr, i * es);
                    scalars.push(self.load_value(b, space, a, e, align_at(align, i * es))?);
                }
                return self.make_vector(b, ty, &scalars).map(Some);
            }
            WideAccess::Align16 => (0..count as u64)
                .map(|i| {
                    let off = i * 4 * es;
                    let a = self.addr_add(b, space, addr, off);
                    self.psb_load(b, pt, a, align_at(align, off).min(16))
                })
                .collect(),
            WideAccess::Whole => {
                let at = self.out.t_array_stride(pt, count, 4 * es as u32);
                let v = self.psb_load(b, at, addr, align);
                (0..count).map(|i| self.wide_part(b, v, pt, i)).collect()
            }
        };
        Ok(Some(self.emit(b, Op::CompositeConstruct, nt, ids(&parts))))
    }

    /// A global store of wide vector `value` (type `ty`) as `wide_access()`
    /// says; false: the default, one access per part.
    fn store_wide_variant(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        ty: Word,
        value: Word,
        align: u64,
    ) -> Res<bool> {
        let Some(w) = self.wide_variant(space, ty, align) else {
            return Ok(false);
        };
        let Ty::Vector(e, n) = self.tys.get(ty).clone() else {
            return Ok(false);
        };
        let es = self.tys.size_of(e);
        let pt = self.wide_part_ty(ty)?;
        let count = n.div_ceil(4);
        match w {
            WideAccess::Parts => return Ok(false),
            WideAccess::Scalar => {
                let et = self.lower_ty(e)?;
                for i in 0..n {
                    let x = self.vector_elem(b, value, ty, et, i);
                    let off = i as u64 * es;
                    let a = self.addr_add(b, space, addr, off);
                    self.store_value(b, space, a, e, x, align_at(align, off))?;
                }
            }
            WideAccess::Align16 => {
                for i in 0..count {
                    let part = self.wide_part(b, value, pt, i);
                    let off = i as u64 * 4 * es;
                    let a = self.addr_add(b, space, addr, off);
                    self.psb_store(b, pt, a, part, align_at(align, off).min(16));
                }
            }
            WideAccess::Whole => {
                let at = self.out.t_array_stride(pt, count, 4 * es as u32);
                let parts: Vec<Word> = (0..count)
                    .map(|i| self.wide_part(b, value, pt, i))
                    .collect();
                let v = self.emit(b, Op::CompositeConstruct, at, ids(&parts));
                self.psb_store(b, at, addr, v, align);
            }
        }
        Ok(true)
    }

    /// Whether a vector of `n` elements of input type `e`, aligned to
    /// `align` bytes in `space`, is accessed as 32-bit words (`load_words`):
    /// elements narrower than a word filling whole words (so never a
    /// 3-vector), at a word-aligned address. In global memory only 8/16-wide
    /// vectors are: a narrower one is a single vector access already.
    fn word_access(&self, space: Space, e: Word, n: u32, align: u64) -> bool {
        let es = self.tys.size_of(e);
        matches!(self.tys.get(e), Ty::Int(_) | Ty::Float(_))
            && es < 4
            && (n as u64 * es).is_multiple_of(4)
            && align >= 4
            && (space != Space::Global || n > 4)
    }

    /// The widest access (in words: 4, 2 or 1) at word `w` of `words`
    /// whose address is aligned to `align` bytes.
    fn word_chunk(space: Space, w: u32, words: u32, align: u64) -> u32 {
        if space != Space::Global {
            return 1;
        }
        [4, 2, 1]
            .into_iter()
            .find(|&c| align >= 4 * c as u64 && w + c <= words)
            .unwrap_or(1)
    }

    /// A global load of `nt` (`size` bytes) at `addr`, aligned to `align`
    /// (≥ `size` with descriptor addressing).
    fn global_load(
        &mut self,
        b: &mut Block,
        nt: Word,
        addr: Word,
        size: u64,
        align: u64,
    ) -> Res<Word> {
        if self.desc.enabled {
            self.desc_load(b, nt, addr, size)
        } else {
            Ok(self.psb_load(b, nt, addr, align))
        }
    }

    /// A global store of `value` (`nt`, `size` bytes) at `addr`, aligned to
    /// `align` (≥ `size` with descriptor addressing).
    #[allow(clippy::too_many_arguments)]
    fn global_store(
        &mut self,
        b: &mut Block,
        nt: Word,
        addr: Word,
        value: Word,
        size: u64,
        align: u64,
    ) -> Res<()> {
        if self.desc.enabled {
            self.desc_store(b, nt, addr, value, size)
        } else {
            self.psb_store(b, nt, addr, value, align);
            Ok(())
        }
    }

    /// Loads a vector of narrow elements (input type `ty`, `word_access`)
    /// as 32-bit words: global memory in accesses of up to 16 bytes (a
    /// uchar16 is one uvec4 load), the word arrays one word each; each
    /// 4-wide part (or the whole vector) is then a bitcast of its words.
    fn load_words(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        ty: Word,
        align: u64,
    ) -> Res<Word> {
        let Ty::Vector(e, n) = self.tys.get(ty).clone() else {
            return Err("word access to a non-vector".into());
        };
        let es = self.tys.size_of(e);
        let count = (n as u64 * es / 4) as u32;
        let u32t = self.out.t_u32();
        let mut words = Vec::new();
        let mut w = 0;
        while w < count {
            let off = w as u64 * 4;
            let a = align_at(align, off);
            let c = Self::word_chunk(space, w, count, a);
            let at = self.addr_add(b, space, addr, off);
            if c == 1 {
                words.push(self.load_scalar(b, space, at, u32t, 4, a)?);
            } else {
                let vt = self.out.t_vec(u32t, c);
                let v = self.global_load(b, vt, at, 4 * c as u64, a)?;
                for k in 0..c {
                    words.push(self.emit(
                        b,
                        Op::CompositeExtract,
                        u32t,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(k)],
                    ));
                }
            }
            w += c;
        }
        let nt = self.lower_ty(ty)?;
        if n <= 4 {
            return Ok(self.words_to(b, &words, nt));
        }
        let pt = self.wide_part_ty(ty)?;
        let parts: Vec<Word> = words
            .chunks(es as usize)
            .map(|ws| self.words_to(b, ws, pt))
            .collect();
        Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
    }

    /// Stores a vector of narrow elements (`load_words`' counterpart).
    #[allow(clippy::too_many_arguments)]
    fn store_words(
        &mut self,
        b: &mut Block,
        space: Space,
        addr: Word,
        ty: Word,
        value: Word,
        align: u64,
    ) -> Res<()> {
        let Ty::Vector(e, n) = self.tys.get(ty).clone() else {
            return Err("word access to a non-vector".into());
        };
        let es = self.tys.size_of(e);
        let count = (n as u64 * es / 4) as u32;
        let mut words = Vec::new();
        if n <= 4 {
            self.words_of(b, value, count, &mut words);
        } else {
            let pt = self.wide_part_ty(ty)?;
            for i in 0..n.div_ceil(4) {
                let part = self.wide_part(b, value, pt, i);
                self.words_of(b, part, es as u32, &mut words);
            }
        }
        let u32t = self.out.t_u32();
        let mut w = 0;
        while w < count {
            let off = w as u64 * 4;
            let a = align_at(align, off);
            let c = Self::word_chunk(space, w, count, a);
            let at = self.addr_add(b, space, addr, off);
            if c == 1 {
                self.store_scalar(b, space, at, u32t, words[w as usize], 4, a)?;
            } else {
                let vt = self.out.t_vec(u32t, c);
                let ws = &words[w as usize..(w + c) as usize];
                let v = self.emit(b, Op::CompositeConstruct, vt, ids(ws));
                self.global_store(b, vt, at, v, 4 * c as u64, a)?;
            }
            w += c;
        }
        Ok(())
    }

    /// The value of type `nt` whose bits are `words` (u32 values, first
    /// word lowest).
    pub(super) fn words_to(&mut self, b: &mut Block, words: &[Word], nt: Word) -> Word {
        let u32t = self.out.t_u32();
        if self.out.scalar_width(self.out.elem(nt)) == Some(64) && words.len().is_multiple_of(2) {
            return self.join_words64(b, words, nt);
        }
        let bits = if words.len() == 1 {
            words[0]
        } else {
            let vt = self.out.t_vec(u32t, words.len() as u32);
            self.emit(b, Op::CompositeConstruct, vt, ids(words))
        };
        self.emit(b, Op::Bitcast, nt, ids(&[bits]))
    }

    /// The value of type `nt` (64-bit lanes) whose bits are `words`, each
    /// lane `lo | hi << 32` on u64 rather than an OpBitcast of a u32 pair.
    /// Why: in the GPU fuzz sample's seed 7002 program 100034
    /// (`int64_division::division_whose_operands_do_not_fit_in_32_bits_
    /// beside_a_switch`) NVIDIA's compiler (driver 580) took `0 <u c` as
    /// false for c = 0xffffffffffffff67 loaded from the private word array
    /// (an OpBitcast of a uvec2); the same program with `c` a literal, or
    /// with the comparison written on 32-bit halves, is right. Whether
    /// this form is enough on NVIDIA is not measured yet: `ferrocl-fuzz
    /// --check` of that program and the sample's other mismatches on the
    /// GPU says.
    fn join_words64(&mut self, b: &mut Block, words: &[Word], nt: Word) -> Word {
        let u64t = self.out.t_int(64);
        let c32 = self.out.c_int(64, 32);
        let lanes: Vec<Word> = words
            .chunks(2)
            .map(|pair| {
                let lo = self.emit(b, Op::UConvert, u64t, ids(&[pair[0]]));
                let hi = self.emit(b, Op::UConvert, u64t, ids(&[pair[1]]));
                let hi = self.emit(b, Op::ShiftLeftLogical, u64t, ids(&[hi, c32]));
                self.emit(b, Op::BitwiseOr, u64t, ids(&[lo, hi]))
            })
            .collect();
        let (v, vt) = if lanes.len() == 1 {
            (lanes[0], u64t)
        } else {
            let vt = self.out.t_vec(u64t, lanes.len() as u32);
            (self.emit(b, Op::CompositeConstruct, vt, ids(&lanes)), vt)
        };
        if vt == nt {
            v
        } else {
            self.emit(b, Op::Bitcast, nt, ids(&[v]))
        }
    }

    /// Appends the `count` u32 words of vector value `v` to `words`.
    fn words_of(&mut self, b: &mut Block, v: Word, count: u32, words: &mut Vec<Word>) {
        let u32t = self.out.t_u32();
        if count == 1 {
            words.push(self.emit(b, Op::Bitcast, u32t, ids(&[v])));
            return;
        }
        let vt = self.out.t_vec(u32t, count);
        let bits = self.emit(b, Op::Bitcast, vt, ids(&[v]));
        for k in 0..count {
            words.push(self.emit(
                b,
                Op::CompositeExtract,
                u32t,
                vec![Operand::IdRef(bits), Operand::LiteralBit32(k)],
            ));
        }
    }

    fn aligned(align: u64) -> Vec<Operand> {
        vec![
            Operand::MemoryAccess(MemoryAccess::ALIGNED),
            Operand::LiteralBit32(align.clamp(1, 1 << 16) as u32),
        ]
    }

    fn psb_load(&mut self, b: &mut Block, nt: Word, addr: Word, align: u64) -> Word {
        let pt = self.out.t_ptr(StorageClass::PhysicalStorageBuffer, nt);
        let p = self.emit(b, Op::ConvertUToPtr, pt, ids(&[addr]));
        let mut ops = vec![Operand::IdRef(p)];
        ops.extend(Self::aligned(align));
        self.emit(b, Op::Load, nt, ops)
    }

    /// Descriptor addressing: a load of `nt` (`size` bytes, aligned).
    fn desc_load(&mut self, b: &mut Block, nt: Word, addr: Word, size: u64) -> Res<Word> {
        let p = self.desc_ptr(b, addr, nt, size)?;
        Ok(self.emit(b, Op::Load, nt, ids(&[p])))
    }

    /// Descriptor addressing: a store of `nt` (`size` bytes, aligned).
    fn desc_store(
        &mut self,
        b: &mut Block,
        nt: Word,
        addr: Word,
        value: Word,
        size: u64,
    ) -> Res<()> {
        let p = self.desc_ptr(b, addr, nt, size)?;
        b.push(Op::Store, None, None, ids(&[p, value]));
        Ok(())
    }

    fn psb_store(&mut self, b: &mut Block, nt: Word, addr: Word, value: Word, align: u64) {
        let pt = self.out.t_ptr(StorageClass::PhysicalStorageBuffer, nt);
        let p = self.emit(b, Op::ConvertUToPtr, pt, ids(&[addr]));
        let mut ops = vec![Operand::IdRef(p), Operand::IdRef(value)];
        ops.extend(Self::aligned(align));
        b.push(Op::Store, None, None, ops);
    }

    /// Pointer to word `index` (u32 value) of the array backing `space`.
    pub(crate) fn word_ptr(&mut self, b: &mut Block, space: Space, index: Word) -> Res<Word> {
        let (var, sc) = match space {
            Space::Local => {
                self.mem.uses_local = true;
                (self.mem.local_var, StorageClass::Workgroup)
            }
            Space::Private => {
                self.mem.uses_private = true;
                (self.mem.private_var, StorageClass::Private)
            }
            Space::Const => {
                self.mem.uses_const = true;
                (self.mem.const_var, StorageClass::Private)
            }
            Space::Variable(v) => *self
                .mem
                .own_arrays
                .get(&v)
                .ok_or("a private variable without its array")?,
            _ => return Err("word access to global memory".into()),
        };
        let u32t = self.out.t_u32();
        let pt = self.out.t_ptr(sc, u32t);
        Ok(self.emit(b, Op::AccessChain, pt, ids(&[var, index])))
    }

    pub(crate) fn word_index(&mut self, b: &mut Block, addr: Word, extra: u32) -> Word {
        let u32t = self.out.t_u32();
        let two = self.out.c_u32(2);
        let i = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[addr, two]));
        if extra == 0 {
            i
        } else {
            let e = self.out.c_u32(extra);
            self.emit(b, Op::IAdd, u32t, ids(&[i, e]))
        }
    }
}
