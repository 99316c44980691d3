//! The input module's types and constants, and the OpenCL C memory layout
//! of every type (sizes, alignments, struct member offsets).

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

/// A type of the input (Kernel) module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Void,
    Bool,
    /// Width in bits (signedness is irrelevant in OpenCL SPIR-V).
    Int(u32),
    Float(u32),
    Vector(Word, u32),
    Array(Word, u64),
    RuntimeArray(Word),
    /// Members, and whether the struct is `CPacked`.
    Struct(Vec<Word>, bool),
    Pointer(StorageClass, Word),
    Function(Word, Vec<Word>),
    /// Images, samplers, events, ...: named by their opcode.
    Opaque(Op),
}

impl Ty {
    /// Element type, count and whether it is a vector, for arrays/vectors.
    pub fn elements(&self) -> Option<(Word, u64, bool)> {
        match self {
            Ty::Array(e, n) => Some((*e, *n, false)),
            Ty::Vector(e, n) => Some((*e, *n as u64, true)),
            _ => None,
        }
    }
}

/// Types, integer constants and decorations of the input module.
#[derive(Clone, Default)]
pub struct TypeTable {
    pub types: HashMap<Word, Ty>,
    /// Values of scalar integer constants (zero-extended), for array lengths
    /// and access-chain indices.
    pub int_consts: HashMap<Word, (u64, u32)>,
    packed: HashSet<Word>,
}

impl TypeTable {
    pub fn from_module(m: &dr::Module) -> Self {
        let mut t = TypeTable::default();
        for a in &m.annotations {
            if a.class.opcode == Op::Decorate {
                if let (Some(Operand::IdRef(id)), Some(Operand::Decoration(Decoration::CPacked))) =
                    (a.operands.first(), a.operands.get(1))
                {
                    t.packed.insert(*id);
                }
            }
        }
        for i in &m.types_global_values {
            let Some(id) = i.result_id else { continue };
            let ids = |k: usize| {
                i.operands[k..]
                    .iter()
                    .filter_map(|o| o.id_ref_any())
                    .collect::<Vec<_>>()
            };
            let lit = |k: usize| match i.operands.get(k) {
                Some(Operand::LiteralBit32(v)) => *v,
                _ => 0,
            };
            let ty = match i.class.opcode {
                Op::TypeVoid => Ty::Void,
                Op::TypeBool => Ty::Bool,
                Op::TypeInt => Ty::Int(lit(0)),
                Op::TypeFloat => Ty::Float(lit(0)),
                Op::TypeVector => Ty::Vector(ids(0)[0], lit(1)),
                Op::TypeArray => {
                    let len = ids(0)[1];
                    Ty::Array(ids(0)[0], t.int_consts.get(&len).map_or(0, |c| c.0))
                }
                Op::TypeRuntimeArray => Ty::RuntimeArray(ids(0)[0]),
                Op::TypeStruct => Ty::Struct(ids(0), t.packed.contains(&id)),
                Op::TypePointer => match (&i.operands[0], &i.operands[1]) {
                    (Operand::StorageClass(sc), Operand::IdRef(p)) => Ty::Pointer(*sc, *p),
                    _ => Ty::Opaque(Op::TypePointer),
                },
                Op::TypeFunction => {
                    let v = ids(0);
                    Ty::Function(v[0], v[1..].to_vec())
                }
                Op::TypeForwardPointer => continue,
                // Events only order async copies, which are synchronous
                // here (`async_copy`): a plain `uint`.
                Op::TypeEvent => Ty::Int(32),
                op if format!("{op:?}").starts_with("Type") => Ty::Opaque(op),
                Op::Constant => {
                    if let Some(Ty::Int(w)) = i.result_type.and_then(|rt| t.types.get(&rt)) {
                        let v = match i.operands.first() {
                            Some(Operand::LiteralBit32(v)) => *v as u64,
                            Some(Operand::LiteralBit64(v)) => *v,
                            _ => continue,
                        };
                        t.int_consts.insert(id, (v, *w));
                    }
                    continue;
                }
                Op::ConstantNull => {
                    if let Some(Ty::Int(w)) = i.result_type.and_then(|rt| t.types.get(&rt)) {
                        t.int_consts.insert(id, (0, *w));
                    }
                    continue;
                }
                _ => continue,
            };
            t.types.insert(id, ty);
        }
        t
    }

    pub fn get(&self, id: Word) -> &Ty {
        self.types.get(&id).unwrap_or(&Ty::Opaque(Op::Nop))
    }

    /// The constant integer value of `id` sign-extended to i64, if constant.
    pub fn const_index(&self, id: Word) -> Option<i64> {
        let &(v, w) = self.int_consts.get(&id)?;
        Some(if w >= 64 {
            v as i64
        } else {
            ((v << (64 - w)) as i64) >> (64 - w)
        })
    }

    /// `sizeof` in OpenCL C (spir64): vec3 occupies a vec4, pointers 8 bytes.
    pub fn size_of(&self, id: Word) -> u64 {
        match self.get(id) {
            Ty::Bool => 1,
            Ty::Int(w) | Ty::Float(w) => (*w as u64).div_ceil(8),
            Ty::Vector(e, n) => self.size_of(*e) * if *n == 3 { 4 } else { *n as u64 },
            Ty::Array(e, n) => self.size_of(*e) * n,
            Ty::Struct(..) => {
                let (_, end) = self.struct_layout(id);
                end.next_multiple_of(self.align_of(id))
            }
            Ty::Pointer(..) => 8,
            _ => 0,
        }
    }

    /// `alignof` in OpenCL C: vectors are aligned to their size.
    pub fn align_of(&self, id: Word) -> u64 {
        match self.get(id) {
            Ty::Vector(..) => self.size_of(id),
            Ty::Array(e, _) | Ty::RuntimeArray(e) => self.align_of(*e),
            Ty::Struct(m, packed) => {
                if *packed {
                    1
                } else {
                    m.iter().map(|&m| self.align_of(m)).max().unwrap_or(1)
                }
            }
            _ => self.size_of(id).max(1),
        }
    }

    /// Member offsets of a struct (C layout; `CPacked` means no padding) and
    /// the end of its last member.
    pub fn struct_layout(&self, id: Word) -> (Vec<u64>, u64) {
        let Ty::Struct(members, packed) = self.get(id) else {
            return (vec![], 0);
        };
        let mut off: u64 = 0;
        let mut offsets = Vec::with_capacity(members.len());
        for &m in members {
            if !packed {
                off = off.next_multiple_of(self.align_of(m));
            }
            offsets.push(off);
            off += self.size_of(m);
        }
        (offsets, off)
    }

    /// The constant byte offset an access chain adds to a pointer to
    /// `pointee`: `indices` are its index operands, the first one stepping
    /// over whole `pointee`s when `ptr_chain` (OpPtrAccessChain). None when
    /// an index is not a constant or walks into a non-composite type.
    pub fn const_chain_offset(
        &self,
        pointee: Word,
        ptr_chain: bool,
        indices: &[Word],
    ) -> Option<i64> {
        let mut cur = pointee;
        let mut rest = indices;
        let mut off = 0i64;
        if ptr_chain {
            let (&first, r) = rest.split_first()?;
            off += self.const_index(first)? * self.size_of(cur) as i64;
            rest = r;
        }
        for &idx in rest {
            let i = self.const_index(idx)?;
            match self.get(cur).clone() {
                Ty::Struct(members, _) => {
                    off += self.member_offset(cur, i as usize) as i64;
                    cur = *members.get(i as usize)?;
                }
                Ty::Array(e, _) | Ty::Vector(e, _) => {
                    off += i * self.size_of(e) as i64;
                    cur = e;
                }
                _ => return None,
            }
        }
        Some(off)
    }

    pub fn member_offset(&self, id: Word, index: usize) -> u64 {
        self.struct_layout(id).0.get(index).copied().unwrap_or(0)
    }

    /// A short OpenCL C spelling of a type, for messages and reflection
    /// when clang's metadata is absent (`float4`, `uint*`, `struct`).
    pub fn c_name(&self, id: Word) -> String {
        match self.get(id) {
            Ty::Void => "void".into(),
            Ty::Bool => "bool".into(),
            Ty::Int(8) => "uchar".into(),
            Ty::Int(16) => "ushort".into(),
            Ty::Int(32) => "uint".into(),
            Ty::Int(64) => "ulong".into(),
            Ty::Int(w) => format!("i{w}"),
            Ty::Float(16) => "half".into(),
            Ty::Float(32) => "float".into(),
            Ty::Float(64) => "double".into(),
            Ty::Float(w) => format!("f{w}"),
            Ty::Vector(e, n) => format!("{}{n}", self.c_name(*e)),
            Ty::Array(e, n) => format!("{}[{n}]", self.c_name(*e)),
            Ty::RuntimeArray(e) => format!("{}[]", self.c_name(*e)),
            Ty::Struct(..) => "struct".into(),
            Ty::Pointer(_, p) => format!("{}*", self.c_name(*p)),
            Ty::Function(..) => "function".into(),
            Ty::Opaque(op) => format!("{op:?}"),
        }
    }
}

/// Largest power of two dividing both `align` and `offset` (the alignment
/// known for `base + offset` when `base` is `align`-aligned).
pub fn align_at(align: u64, offset: u64) -> u64 {
    if offset == 0 {
        align.max(1)
    } else {
        align.max(1).min(1 << offset.trailing_zeros())
    }
}
