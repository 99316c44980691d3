//! Building the output module: id allocation, hash-consed types and
//! constants, and instruction emission into the current block.
//!
//! Gaps: none (a builder).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

/// The output module's global section and id allocator.
pub struct Out {
    pub bound: Word,
    /// Types, constants and global variables, in definition order.
    pub globals: Vec<Instruction>,
    pub annotations: Vec<Instruction>,
    pub names: Vec<Instruction>,
    cache: HashMap<(Op, Option<Word>, Vec<Operand>), Word>,
    /// Index in `globals` of each cached instruction.
    index: HashMap<Word, usize>,
    /// Explicitly laid-out arrays (`t_array_stride`) by (element, length,
    /// stride).
    strided: HashMap<(Word, u32, u32), Word>,
    glsl: Option<Word>,
}

impl Out {
    pub fn new(bound: Word) -> Self {
        Out {
            bound,
            globals: Vec::new(),
            annotations: Vec::new(),
            names: Vec::new(),
            cache: HashMap::new(),
            index: HashMap::new(),
            strided: HashMap::new(),
            glsl: None,
        }
    }

    pub fn id(&mut self) -> Word {
        let id = self.bound;
        self.bound += 1;
        id
    }

    /// A global instruction (type or constant), emitted once per distinct
    /// (opcode, type, operands).
    pub fn cached(&mut self, op: Op, result_type: Option<Word>, operands: Vec<Operand>) -> Word {
        let key = (op, result_type, operands);
        if let Some(&id) = self.cache.get(&key) {
            return id;
        }
        let id = self.id();
        self.index.insert(id, self.globals.len());
        self.globals
            .push(Instruction::new(op, result_type, Some(id), key.2.clone()));
        self.cache.insert(key, id);
        id
    }

    /// The defining instruction of a cached type or constant.
    pub fn def(&self, id: Word) -> Option<&Instruction> {
        self.index.get(&id).map(|&i| &self.globals[i])
    }

    /// The value of `id` if it is a cached 32-bit integer constant.
    pub fn const_u32(&self, id: Word) -> Option<u32> {
        let d = self.def(id)?;
        match (d.class.opcode, d.operands.as_slice()) {
            (Op::Constant, [Operand::LiteralBit32(v)])
                if self.int_width(d.result_type?) == Some(32) =>
            {
                Some(*v)
            }
            _ => None,
        }
    }

    /// Width of an integer type, or of a vector's integer elements.
    pub fn int_width(&self, ty: Word) -> Option<u32> {
        let d = self.def(ty)?;
        match d.class.opcode {
            Op::TypeInt => Some(d.operands[0].unwrap_literal_bit32()),
            Op::TypeVector => self.int_width(d.operands[0].unwrap_id_ref()),
            _ => None,
        }
    }

    /// Width of a scalar type or of a vector's elements (int or float).
    pub fn scalar_width(&self, ty: Word) -> Option<u32> {
        let d = self.def(ty)?;
        match d.class.opcode {
            Op::TypeInt | Op::TypeFloat => Some(d.operands[0].unwrap_literal_bit32()),
            Op::TypeVector => self.scalar_width(d.operands[0].unwrap_id_ref()),
            _ => None,
        }
    }

    /// Component count of a vector type (1 for scalars).
    pub fn vec_len(&self, ty: Word) -> u32 {
        match self.def(ty) {
            Some(d) if d.class.opcode == Op::TypeVector => d.operands[1].unwrap_literal_bit32(),
            _ => 1,
        }
    }

    /// Element type of a vector type (the type itself for scalars).
    pub fn elem(&self, ty: Word) -> Word {
        match self.def(ty) {
            Some(d) if d.class.opcode == Op::TypeVector => d.operands[0].unwrap_id_ref(),
            _ => ty,
        }
    }

    pub fn is_float(&self, ty: Word) -> bool {
        self.def(self.elem(ty))
            .is_some_and(|d| d.class.opcode == Op::TypeFloat)
    }

    pub fn glsl(&mut self) -> Word {
        if let Some(id) = self.glsl {
            return id;
        }
        let id = self.id();
        self.glsl = Some(id);
        id
    }

    pub fn glsl_import(&self) -> Option<Word> {
        self.glsl
    }

    pub fn t_void(&mut self) -> Word {
        self.cached(Op::TypeVoid, None, vec![])
    }
    pub fn t_bool(&mut self) -> Word {
        self.cached(Op::TypeBool, None, vec![])
    }
    pub fn t_int(&mut self, width: u32) -> Word {
        self.cached(
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(width), Operand::LiteralBit32(0)],
        )
    }
    pub fn t_float(&mut self, width: u32) -> Word {
        self.cached(Op::TypeFloat, None, vec![Operand::LiteralBit32(width)])
    }
    pub fn t_u32(&mut self) -> Word {
        self.t_int(32)
    }
    pub fn t_u64(&mut self) -> Word {
        self.t_int(64)
    }
    pub fn t_vec(&mut self, elem: Word, n: u32) -> Word {
        self.cached(
            Op::TypeVector,
            None,
            vec![Operand::IdRef(elem), Operand::LiteralBit32(n)],
        )
    }
    pub fn t_ptr(&mut self, sc: StorageClass, pointee: Word) -> Word {
        self.cached(
            Op::TypePointer,
            None,
            vec![Operand::StorageClass(sc), Operand::IdRef(pointee)],
        )
    }
    pub fn t_array(&mut self, elem: Word, len: Word) -> Word {
        self.cached(
            Op::TypeArray,
            None,
            vec![Operand::IdRef(elem), Operand::IdRef(len)],
        )
    }
    /// An array of `n` `elem`s decorated ArrayStride `stride`, for
    /// accesses through PhysicalStorageBuffer pointers (apart from the
    /// undecorated array of the same shape that values have).
    pub fn t_array_stride(&mut self, elem: Word, n: u32, stride: u32) -> Word {
        if let Some(&t) = self.strided.get(&(elem, n, stride)) {
            return t;
        }
        let len = self.c_u32(n);
        let t = self.id();
        self.globals.push(Instruction::new(
            Op::TypeArray,
            None,
            Some(t),
            vec![Operand::IdRef(elem), Operand::IdRef(len)],
        ));
        self.decorate(
            t,
            vec![
                Operand::Decoration(Decoration::ArrayStride),
                Operand::LiteralBit32(stride),
            ],
        );
        self.strided.insert((elem, n, stride), t);
        t
    }
    pub fn t_struct(&mut self, members: &[Word]) -> Word {
        self.cached(
            Op::TypeStruct,
            None,
            members.iter().map(|&m| Operand::IdRef(m)).collect(),
        )
    }
    pub fn t_fn(&mut self, ret: Word, params: &[Word]) -> Word {
        let mut ops = vec![Operand::IdRef(ret)];
        ops.extend(params.iter().map(|&p| Operand::IdRef(p)));
        self.cached(Op::TypeFunction, None, ops)
    }

    pub fn c_u32(&mut self, v: u32) -> Word {
        let t = self.t_u32();
        self.cached(Op::Constant, Some(t), vec![Operand::LiteralBit32(v)])
    }
    pub fn c_u64(&mut self, v: u64) -> Word {
        let t = self.t_u64();
        self.cached(Op::Constant, Some(t), vec![Operand::LiteralBit64(v)])
    }
    /// An integer constant of `width` bits (8..64).
    pub fn c_int(&mut self, width: u32, v: u64) -> Word {
        let t = self.t_int(width);
        let lit = if width > 32 {
            Operand::LiteralBit64(v)
        } else {
            Operand::LiteralBit32((v & (u32::MAX as u64 >> (32 - width))) as u32)
        };
        self.cached(Op::Constant, Some(t), vec![lit])
    }
    /// A float constant of `width` bits from an f64 value.
    pub fn c_float(&mut self, width: u32, v: f64) -> Word {
        let t = self.t_float(width);
        let lit = match width {
            64 => Operand::LiteralBit64(v.to_bits()),
            32 => Operand::LiteralBit32((v as f32).to_bits()),
            _ => Operand::LiteralBit32(f32_to_f16_bits(v as f32) as u32),
        };
        self.cached(Op::Constant, Some(t), vec![lit])
    }
    pub fn c_composite(&mut self, ty: Word, parts: &[Word]) -> Word {
        self.cached(
            Op::ConstantComposite,
            Some(ty),
            parts.iter().map(|&p| Operand::IdRef(p)).collect(),
        )
    }

    pub fn decorate(&mut self, target: Word, operands: Vec<Operand>) {
        let mut ops = vec![Operand::IdRef(target)];
        ops.extend(operands);
        self.annotations
            .push(Instruction::new(Op::Decorate, None, None, ops));
    }

    /// A Block-decorated struct whose one member, at offset 0, is `member`
    /// (the type of a push-constant block or of a buffer binding).
    pub fn block_struct(&mut self, member: Word) -> Word {
        let st = self.id();
        self.globals.push(Instruction::new(
            Op::TypeStruct,
            None,
            Some(st),
            vec![Operand::IdRef(member)],
        ));
        self.decorate(st, vec![Operand::Decoration(Decoration::Block)]);
        self.annotations.push(Instruction::new(
            Op::MemberDecorate,
            None,
            None,
            vec![
                Operand::IdRef(st),
                Operand::LiteralBit32(0),
                Operand::Decoration(Decoration::Offset),
                Operand::LiteralBit32(0),
            ],
        ));
        st
    }
}

fn f32_to_f16_bits(f: f32) -> u16 {
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        sign | 0x7c00
    } else if e <= 0 {
        if e < -10 {
            sign
        } else {
            let m = (man | 0x80_0000) >> (1 - e + 13);
            sign | m as u16
        }
    } else {
        sign | ((e as u16) << 10) | (man >> 13) as u16
    }
}

/// Instructions of the block being emitted.
#[derive(Default)]
pub struct Block {
    pub insts: Vec<Instruction>,
}

impl Block {
    pub fn push(
        &mut self,
        op: Op,
        result_type: Option<Word>,
        result_id: Option<Word>,
        operands: Vec<Operand>,
    ) {
        self.insts
            .push(Instruction::new(op, result_type, result_id, operands));
    }
}

/// Operand helpers.
pub fn ids(v: &[Word]) -> Vec<Operand> {
    v.iter().map(|&i| Operand::IdRef(i)).collect()
}
