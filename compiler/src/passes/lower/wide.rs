//! 8- and 16-wide vectors (Vulkan has at most 4 components).
//!
//! A wide vector value is lowered to an array of 4-wide vectors
//! (`lower_ty`), so it can sit in structs, phis, selects, function
//! parameters and constants unchanged. Instructions with vector semantics
//! are rewritten here (`split_wide_vector`): component-wise ones
//! (arithmetic, conversions, comparisons, selects with a vector condition,
//! ...) run once per 4-wide part; extracts/inserts index `[i / 4][i % 4]`;
//! shuffles and constructions go through scalars; dynamic extracts/inserts
//! select over the parts; bitcasts reshape through scalars; any/all
//! combine the parts.
//! Loads, stores and arguments split in `memory` / `args`.
//!
//! Gaps: instructions on 8/16-wide vectors that need a Kernel-only
//! capability (other than the float classifications) or whose result is
//! not wide are reported.

use std::sync::OnceLock;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};
use crate::analyses::type_table::Ty;

/// How an 8/16-wide vector of 4- or 8-byte elements is accessed in global
/// memory with physical addressing (`memory::load_wide_variant`): a
/// measurement knob for drivers' compilers, `FERROCL_WIDE_ACCESS=parts|
/// align16|whole|scalar`, read once per process and part of the compile
/// cache's key. Narrow elements are 32-bit words whatever it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideAccess {
    /// One access per 4-wide part, `Aligned` as its offset from the
    /// vector's alignment allows (float16 at 64: 64, 16, 32, 16). The
    /// default.
    Parts,
    /// The same, `Aligned` at most 16.
    Align16,
    /// One access of the whole vector: an array of 4-wide parts with an
    /// explicit ArrayStride, `Aligned` as the vector.
    Whole,
    /// One access per element.
    Scalar,
}

/// `FERROCL_WIDE_ACCESS`, read once.
pub fn wide_access() -> WideAccess {
    static W: OnceLock<WideAccess> = OnceLock::new();
    *W.get_or_init(|| match std::env::var("FERROCL_WIDE_ACCESS").as_deref() {
        Ok("align16") => WideAccess::Align16,
        Ok("whole") => WideAccess::Whole,
        Ok("scalar") => WideAccess::Scalar,
        _ => WideAccess::Parts,
    })
}

impl Lower<'_> {
    pub(crate) fn is_wide(&self, ty: Word) -> bool {
        matches!(self.tys.get(ty), Ty::Vector(_, n) if *n > 4)
    }

    /// Number of 4-wide parts of a wide vector type.
    pub(crate) fn wide_parts(&self, ty: Word) -> u32 {
        match self.tys.get(ty) {
            Ty::Vector(_, n) => n.div_ceil(4),
            _ => 1,
        }
    }

    /// The output type of one part (a 4-wide vector) of a wide vector type.
    pub(crate) fn wide_part_ty(&mut self, ty: Word) -> Res<Word> {
        let Ty::Vector(e, _) = self.tys.get(ty).clone() else {
            return Err("not a vector".into());
        };
        let e = self.lower_ty(e)?;
        Ok(self.out.t_vec(e, 4))
    }

    /// An input-module id for the 4-wide vector of `elem` (created if the
    /// input has none), for splitting loads and stores.
    pub(crate) fn synth_vec4(&mut self, elem: Word) -> Word {
        if let Some((&id, _)) = self
            .tys
            .types
            .iter()
            .find(|(_, t)| **t == Ty::Vector(elem, 4))
        {
            return id;
        }
        let id = self.out.id();
        self.tys.types.insert(id, Ty::Vector(elem, 4));
        id
    }

    pub(crate) fn wide_part(&mut self, b: &mut Block, v: Word, part_ty: Word, i: u32) -> Word {
        self.emit(
            b,
            Op::CompositeExtract,
            part_ty,
            vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
        )
    }

    /// Component `i` of vector value `v` (input type `ty`, output element
    /// type `et`), wide or not.
    pub(crate) fn vector_elem(
        &mut self,
        b: &mut Block,
        v: Word,
        ty: Word,
        et: Word,
        i: u32,
    ) -> Word {
        let path = if self.is_wide(ty) {
            vec![
                Operand::IdRef(v),
                Operand::LiteralBit32(i / 4),
                Operand::LiteralBit32(i % 4),
            ]
        } else {
            vec![Operand::IdRef(v), Operand::LiteralBit32(i)]
        };
        self.emit(b, Op::CompositeExtract, et, path)
    }

    /// A vector of input type `ty` from its scalar components.
    pub(crate) fn make_vector(&mut self, b: &mut Block, ty: Word, scalars: &[Word]) -> Res<Word> {
        let nt = self.lower_ty(ty)?;
        if !self.is_wide(ty) {
            return Ok(self.emit(b, Op::CompositeConstruct, nt, ids(scalars)));
        }
        let pt = self.wide_part_ty(ty)?;
        let parts: Vec<Word> = scalars
            .chunks(4)
            .map(|c| self.emit(b, Op::CompositeConstruct, pt, ids(c)))
            .collect();
        Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
    }

    /// All scalar components of a value of input type `ty` (scalar or
    /// vector).
    fn scalars_of(&mut self, b: &mut Block, v: Word, ty: Word) -> Res<Vec<Word>> {
        match self.tys.get(ty).clone() {
            Ty::Vector(e, n) => {
                let et = self.lower_ty(e)?;
                Ok((0..n).map(|i| self.vector_elem(b, v, ty, et, i)).collect())
            }
            _ => Ok(vec![v]),
        }
    }

    /// Whether `inst` has a wide vector result or operand.
    pub(crate) fn involves_wide(&self, inst: &Instruction) -> bool {
        inst.result_type.is_some_and(|t| self.is_wide(t))
            || inst
                .operands
                .iter()
                .any(|o| matches!(o, Operand::IdRef(i) if self.is_wide(self.ty_of(*i))))
    }

    /// Lowers an instruction involving wide vectors. Returns false when the
    /// ordinary path handles it (memory, calls, phis, ...).
    pub(crate) fn split_wide_vector(&mut self, b: &mut Block, inst: &Instruction) -> Res<bool> {
        let op = inst.class.opcode;
        let rid = inst.result_id.unwrap_or(0);
        let rty = inst.result_type.unwrap_or(0);
        let id_at = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        if self.is_subgroup_inst(inst) {
            self.split_wide_subgroup_inst(b, inst)?;
            return Ok(true);
        }
        let r = match op {
            Op::Load
            | Op::Store
            | Op::CopyMemory
            | Op::CopyMemorySized
            | Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::Phi
            | Op::FunctionCall
            | Op::ReturnValue
            | Op::Return
            | Op::Undef
            | Op::CopyObject
            | Op::ExpectKHR
            | Op::ExtInst
            | Op::Line
            | Op::NoLine
            | Op::Variable
            | Op::ConvertPtrToU
            | Op::ConvertUToPtr
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::GenericCastToPtrExplicit
            | Op::ConvertFToS
            | Op::ConvertFToU
            | Op::SConvert
            | Op::UConvert
            | Op::FConvert
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::SatConvertSToU
            | Op::SatConvertUToS => return Ok(false),
            Op::Bitcast if matches!(self.tys.get(rty), Ty::Pointer(..)) => return Ok(false),
            Op::Select if !self.is_wide(self.ty_of(id_at(0))) => return Ok(false),
            Op::CompositeExtract | Op::CompositeInsert => {
                let (obj_k, first_lit) = if op == Op::CompositeExtract {
                    (0, 1)
                } else {
                    (1, 2)
                };
                let comp = id_at(obj_k);
                let mut cur = self.ty_of(comp);
                let mut path = Vec::new();
                for o in &inst.operands[first_lit..] {
                    let i = o.unwrap_literal_bit32();
                    match self.tys.get(cur).clone() {
                        Ty::Vector(e, n) if n > 4 => {
                            path.push(i / 4);
                            path.push(i % 4);
                            cur = e;
                        }
                        Ty::Vector(e, _) | Ty::Array(e, _) => {
                            path.push(i);
                            cur = e;
                        }
                        Ty::Struct(m, _) => {
                            path.push(i);
                            cur = m[i as usize];
                        }
                        _ => return Err("bad composite path".into()),
                    }
                }
                let t = self.lower_ty(rty)?;
                let mut ops: Vec<Operand> = Vec::new();
                if op == Op::CompositeInsert {
                    ops.push(Operand::IdRef(self.v(id_at(0))));
                }
                ops.push(Operand::IdRef(self.v(comp)));
                ops.extend(path.into_iter().map(Operand::LiteralBit32));
                self.emit(b, op, t, ops)
            }
            Op::CompositeConstruct => {
                let mut scalars = Vec::new();
                for o in &inst.operands {
                    let x = o.unwrap_id_ref();
                    let t = self.ty_of(x);
                    let v = self.v(x);
                    scalars.extend(self.scalars_of(b, v, t)?);
                }
                self.make_vector(b, rty, &scalars)?
            }
            Op::VectorShuffle => {
                let (a, c) = (id_at(0), id_at(1));
                let (at, ct) = (self.ty_of(a), self.ty_of(c));
                let (av, cv) = (self.v(a), self.v(c));
                let sa = self.scalars_of(b, av, at)?;
                let sc = self.scalars_of(b, cv, ct)?;
                let all: Vec<Word> = sa.iter().chain(&sc).copied().collect();
                let picked: Vec<Word> = inst.operands[2..]
                    .iter()
                    .map(|o| {
                        let k = o.unwrap_literal_bit32() as usize;
                        *all.get(k).unwrap_or(&all[0])
                    })
                    .collect();
                self.make_vector(b, rty, &picked)?
            }
            Op::VectorExtractDynamic => {
                let (v, idx) = (id_at(0), id_at(1));
                let vt = self.ty_of(v);
                let vv = self.v(v);
                let idx_v = self.v(idx);
                let (sel, lane) = self.split_index(b, idx, idx_v)?;
                let pt = self.wide_part_ty(vt)?;
                let et = self.lower_ty(rty)?;
                let bt = self.out.t_bool();
                let mut r = 0;
                for i in 0..self.wide_parts(vt) {
                    let p = self.wide_part(b, vv, pt, i);
                    let x = self.emit(b, Op::VectorExtractDynamic, et, ids(&[p, lane]));
                    if i == 0 {
                        r = x;
                    } else {
                        let ci = self.out.c_u32(i);
                        let is = self.emit(b, Op::IEqual, bt, ids(&[sel, ci]));
                        r = self.emit(b, Op::Select, et, ids(&[is, x, r]));
                    }
                }
                r
            }
            Op::VectorInsertDynamic => {
                let (v, x, idx) = (id_at(0), id_at(1), id_at(2));
                let vt = self.ty_of(v);
                let (vv, xv, idx_v) = (self.v(v), self.v(x), self.v(idx));
                let (sel, lane) = self.split_index(b, idx, idx_v)?;
                let pt = self.wide_part_ty(vt)?;
                let bt = self.out.t_bool();
                let mut parts = Vec::new();
                for i in 0..self.wide_parts(vt) {
                    let p = self.wide_part(b, vv, pt, i);
                    let ins = self.emit(b, Op::VectorInsertDynamic, pt, ids(&[p, xv, lane]));
                    let ci = self.out.c_u32(i);
                    let is = self.emit(b, Op::IEqual, bt, ids(&[sel, ci]));
                    parts.push(self.emit(b, Op::Select, pt, ids(&[is, ins, p])));
                }
                let t = self.lower_ty(vt)?;
                self.emit(b, Op::CompositeConstruct, t, ids(&parts))
            }
            Op::Any | Op::All => {
                let v = id_at(0);
                let vt = self.ty_of(v);
                let vv = self.v(v);
                let pt = self.wide_part_ty(vt)?;
                let bt = self.out.t_bool();
                let mut r = 0;
                for i in 0..self.wide_parts(vt) {
                    let p = self.wide_part(b, vv, pt, i);
                    let x = self.emit(b, op, bt, ids(&[p]));
                    r = if i == 0 {
                        x
                    } else {
                        self.emit(
                            b,
                            if op == Op::Any {
                                Op::LogicalOr
                            } else {
                                Op::LogicalAnd
                            },
                            bt,
                            ids(&[r, x]),
                        )
                    };
                }
                r
            }
            Op::Bitcast => self.wide_bitcast(b, id_at(0), rty)?,
            _ => {
                // Component-wise: once per 4-wide part (the Kernel-only
                // float classifications through `float_class`).
                let float_class = super::function::is_float_class(op);
                if super::function::op_needs_kernel(inst) && !float_class {
                    return Err(format!(
                        "Op{op:?} on 8/16-wide vectors is not supported yet"
                    ));
                }
                let k = if self.is_wide(rty) {
                    self.wide_parts(rty)
                } else {
                    return Err(format!(
                        "Op{op:?} on 8/16-wide vectors is not supported yet"
                    ));
                };
                let part_rt = self.wide_part_ty(rty)?;
                let t = self.lower_ty(rty)?;
                let mut parts = Vec::new();
                for i in 0..k {
                    let mut ops = Vec::new();
                    for o in &inst.operands {
                        match o {
                            Operand::IdRef(x) if self.is_wide(self.ty_of(*x)) => {
                                let pt = self.wide_part_ty(self.ty_of(*x))?;
                                let v = self.v(*x);
                                ops.push(Operand::IdRef(self.wide_part(b, v, pt, i)));
                            }
                            other => ops.push(self.map_operand(other)),
                        }
                    }
                    parts.push(if float_class {
                        let xt = self.wide_part_ty(self.ty_of(id_at(0)))?;
                        let x = ops[0].unwrap_id_ref();
                        let y = ops.get(1).map_or(0, |o| o.unwrap_id_ref());
                        self.float_class(b, op, part_rt, xt, [x, y])?
                    } else if op == Op::BitCount {
                        // Vulkan counts 32-bit operands only.
                        self.popcount(b, part_rt, ops[0].unwrap_id_ref())
                    } else if op == Op::FDiv && self.is_half_float(part_rt) {
                        let (x, y) = (ops[0].unwrap_id_ref(), ops[1].unwrap_id_ref());
                        self.half_div(b, part_rt, x, y)
                    } else {
                        self.emit(b, op, part_rt, ops)
                    });
                }
                self.emit(b, Op::CompositeConstruct, t, ids(&parts))
            }
        };
        self.alias.insert(rid, r);
        Ok(true)
    }

    /// A dynamic component index as (part = idx / 4, lane = idx % 4), u32.
    fn split_index(&mut self, b: &mut Block, idx: Word, idx_v: Word) -> Res<(Word, Word)> {
        let u32t = self.out.t_u32();
        let i = match self.tys.get(self.ty_of(idx)) {
            Ty::Int(32) => idx_v,
            Ty::Int(_) => self.emit(b, Op::UConvert, u32t, ids(&[idx_v])),
            _ => return Err("non-integer vector index".into()),
        };
        let two = self.out.c_u32(2);
        let three = self.out.c_u32(3);
        let sel = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[i, two]));
        let lane = self.emit(b, Op::BitwiseAnd, u32t, ids(&[i, three]));
        Ok((sel, lane))
    }

    /// `as_T(x)` where T or x is a wide vector: through scalars of the
    /// narrower width (a wider scalar bitcasts to/from a small vector).
    fn wide_bitcast(&mut self, b: &mut Block, src: Word, rty: Word) -> Res<Word> {
        let st = self.ty_of(src);
        let elem = |l: &Self, t: Word| match l.tys.get(t) {
            Ty::Vector(e, n) => (*e, *n),
            _ => (t, 1),
        };
        let (se, _) = elem(self, st);
        let (de, _) = elem(self, rty);
        let (sw, dw) = (self.tys.size_of(se), self.tys.size_of(de));
        let sv = self.v(src);
        let ss = self.scalars_of(b, sv, st)?;
        let det = self.lower_ty(de)?;
        let set = self.lower_ty(se)?;
        let mut out = Vec::new();
        if sw == dw {
            for s in ss {
                out.push(self.emit(b, Op::Bitcast, det, ids(&[s])));
            }
        } else if sw == 8 && dw == 1 {
            // ulong/double → 8 chars, through two words.
            let u32t = self.out.t_u32();
            let v2 = self.out.t_vec(u32t, 2);
            let v4 = self.out.t_vec(det, 4);
            for s in ss {
                let w = self.emit(b, Op::Bitcast, v2, ids(&[s]));
                for h in 0..2 {
                    let x = self.emit(
                        b,
                        Op::CompositeExtract,
                        u32t,
                        vec![Operand::IdRef(w), Operand::LiteralBit32(h)],
                    );
                    let c = self.emit(b, Op::Bitcast, v4, ids(&[x]));
                    for j in 0..4 {
                        out.push(self.emit(
                            b,
                            Op::CompositeExtract,
                            det,
                            vec![Operand::IdRef(c), Operand::LiteralBit32(j)],
                        ));
                    }
                }
            }
        } else if sw == 1 && dw == 8 {
            let u32t = self.out.t_u32();
            let v2 = self.out.t_vec(u32t, 2);
            let v4 = self.out.t_vec(set, 4);
            for c in ss.chunks(8) {
                let lo = self.emit(b, Op::CompositeConstruct, v4, ids(&c[..4]));
                let hi = self.emit(b, Op::CompositeConstruct, v4, ids(&c[4..]));
                let lo = self.emit(b, Op::Bitcast, u32t, ids(&[lo]));
                let hi = self.emit(b, Op::Bitcast, u32t, ids(&[hi]));
                let w = self.emit(b, Op::CompositeConstruct, v2, ids(&[lo, hi]));
                out.push(self.emit(b, Op::Bitcast, det, ids(&[w])));
            }
        } else if sw > dw {
            let k = (sw / dw) as u32;
            let vt = self.out.t_vec(det, k);
            for s in ss {
                let v = self.emit(b, Op::Bitcast, vt, ids(&[s]));
                for j in 0..k {
                    out.push(self.emit(
                        b,
                        Op::CompositeExtract,
                        det,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(j)],
                    ));
                }
            }
        } else {
            let k = (dw / sw) as usize;
            let vt = self.out.t_vec(set, k as u32);
            for c in ss.chunks(k) {
                let v = self.emit(b, Op::CompositeConstruct, vt, ids(c));
                out.push(self.emit(b, Op::Bitcast, det, ids(&[v])));
            }
        }
        if matches!(self.tys.get(rty), Ty::Vector(..)) {
            self.make_vector(b, rty, &out)
        } else {
            Ok(out[0])
        }
    }
}
