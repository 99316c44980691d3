//! `legalize_int_widths`: integers of widths Vulkan does not have (`i4`,
//! `i24`, `i33`, ...) become the next of 8, 16, 32 or 64 bits, and bitcasts
//! between boolean vectors and integers become bit arithmetic.
//!
//! Why: LLVM's optimizer creates such integers from ordinary OpenCL C
//! (`bitcast <4 x i1> to i4` + `ctpop.i4` counting the true lanes of a
//! vector comparison, after clLinkProgram's -O2; `i33` closed forms of
//! loops; bitmaps of switch tables). llvm-spirv-15 translates them only
//! with SPV_INTEL_arbitrary_precision_integers (which the front end asks
//! for: `frontend::translate_bitcode`), and no Vulkan driver takes them;
//! nor does SPIR-V define OpBitcast on booleans.
//!
//! Algorithm. Each odd width N becomes W, the next native width. A value
//! of an odd type is kept *zero-extended*: its bits above N are zero.
//! 1. Words first (rspirv cannot parse constants of odd widths): every
//!    `OpTypeInt N` becomes `OpTypeInt W` (the literal word counts of
//!    constants and switch cases do not change: N ≤ 32 and W ≤ 32 take one
//!    word, 33 ≤ N < 64 and W = 64 two), constants of those types are
//!    masked to N bits, and the INTEL capability and extension are dropped.
//! 2. Per instruction with an odd result or operand type: results of
//!    operations that can carry into or set the upper bits (add, sub, mul,
//!    negate, not, shift left, narrowing and signed conversions) are masked
//!    with `2^N - 1`; operations that read the sign (signed compare, divide,
//!    remainder, arithmetic shift, signed conversions, s_min/s_max/s_abs/
//!    s_clamp/s_add_sat/s_sub_sat) get sign-extended operands
//!    (`x << (W-N) >> (W-N)`); clz subtracts `W - N`, ctz is capped at N,
//!    u_add_sat is capped at `2^N - 1`. Everything else (bitwise and/or/
//!    xor, unsigned compare/divide/remainder/shift right, popcount, u_min/
//!    u_max/u_clamp/u_sub_sat, selects, phis, composites, calls, and
//!    loads and stores through a private variable of the odd type, which
//!    is widened with it) is right on zero-extended values as it is.
//!    A load or store through any other private pointer (LLVM's SROA
//!    casts a byte pointer into a struct to `i48*` to move bytes 2..8)
//!    reads and writes memory laid out in bytes: its N / 8 bytes are
//!    accessed in native pieces at byte offsets (`split_access`), never
//!    as W bits, which would read or overwrite the bytes after them.
//! 3. `OpBitcast` from a vector of n booleans to an n-bit integer is the
//!    sum of `select(b[i], 1 << i, 0)`, and back is `(x >> i) & 1 != 0` per
//!    lane (any width, odd or not). A bitcast to its operand's own type
//!    (llvm-spirv's `freeze`, of booleans too: darktable's demosaic) is
//!    `OpCopyObject`. An odd scalar bitcast to or from a vector of
//!    native integers of the same total width (`bitcast i24 to <3 x i8>`,
//!    after SROA of a `uchar3` struct member) is shifts and conversions
//!    per lane, lane 0 lowest.
//! 4. The widened types duplicate native ones (`OpTypeInt 8` twice, then
//!    vectors and pointers of them): duplicates are merged, and the Int8 /
//!    Int16 / Int64 capabilities the new widths need are declared.
//!
//! Known gaps (a clear build error, never a silent miscompile): widths
//! over 64; odd integers in memory other than private memory (their
//! storage size would change); through a cast pointer, vectors and widths
//! that are not whole bytes; bitcasts between odd vectors and other
//! shapes; odd integers in atomics, in specialization constants, in
//! OpenCL.std functions other than those above, and in carry / extended
//! multiplication instructions.

use std::collections::{HashMap, HashSet};

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{MemoryAccess, Op, StorageClass, Word};

use super::module_edit::{fresh_id, global};
use crate::tools;

const CAPABILITY: u32 = 17;
const EXTENSION: u32 = 10;
const TYPE_INT: u32 = 21;
const TYPE_BOOL: u32 = 20;
const TYPE_VECTOR: u32 = 23;
const CONSTANT: u32 = 43;
const BITCAST: u32 = 124;
const ARBITRARY_PRECISION_INTEGERS: u32 = 5844;

/// Legalizes `words`; `Ok(None)` when the module has nothing to legalize
/// (the common case: no parse, no copy).
pub fn legalize_int_widths(words: &[u32]) -> Result<Option<Vec<u32>>, String> {
    let Some(widened) = widen_declarations(words)? else {
        return Ok(None);
    };
    let mut module = rspirv::dr::load_words(&widened.words)
        .map_err(|e| format!("cannot parse the SPIR-V module: {e}"))?;
    let mut pass = Legalize::new(&module, widened.odd);
    for f in 0..module.functions.len() {
        for b in 0..module.functions[f].blocks.len() {
            let insts = std::mem::take(&mut module.functions[f].blocks[b].instructions);
            let mut out = Vec::with_capacity(insts.len());
            for inst in insts {
                pass.rewrite(&mut module, inst, &mut out)?;
            }
            module.functions[f].blocks[b].instructions = out;
        }
    }
    merge_duplicate_types(&mut module);
    super::module_edit::declare_width_capabilities(&mut module);
    Ok(Some(module.assemble()))
}

struct Widened {
    words: Vec<u32>,
    /// Odd scalar type id → its width N (the declaration now says W).
    odd: HashMap<Word, u32>,
}

/// The native width an odd width is kept in.
fn native_width(n: u32) -> u32 {
    match n {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

fn is_native(n: u32) -> bool {
    matches!(n, 8 | 16 | 32 | 64)
}

/// Step 1, on words. `None` when there is no odd width and no bitcast
/// that might involve booleans.
fn widen_declarations(words: &[u32]) -> Result<Option<Widened>, String> {
    let insts: Vec<(usize, usize)> = tools::instructions(words)
        .map_while(Result::ok)
        .map(|(i, inst)| (i, inst.len()))
        .collect();
    let mut odd = HashMap::new();
    let (mut bool_vectors, mut bitcasts, mut to_bool) = (false, false, false);
    let mut bools = HashSet::new();
    for &(i, n) in &insts {
        match words[i] & 0xffff {
            TYPE_INT if n >= 4 && !is_native(words[i + 2]) => {
                if words[i + 2] > 64 {
                    return Err(format!(
                        "the optimizer produced a {}-bit integer, wider than any Vulkan integer",
                        words[i + 2]
                    ));
                }
                odd.insert(words[i + 1], words[i + 2]);
            }
            TYPE_BOOL if n >= 2 => {
                bools.insert(words[i + 1]);
            }
            TYPE_VECTOR if n >= 4 && bools.contains(&words[i + 2]) => {
                bool_vectors = true;
                bools.insert(words[i + 1]);
            }
            BITCAST => {
                bitcasts = true;
                to_bool |= n >= 4 && bools.contains(&words[i + 1]);
            }
            _ => {}
        }
    }
    if odd.is_empty() && !(bool_vectors && bitcasts) && !to_bool {
        return Ok(None);
    }
    let mut out = words[..5.min(words.len())].to_vec();
    let mut end = out.len();
    for &(i, n) in &insts {
        end = i + n;
        let inst = &words[i..i + n];
        match inst[0] & 0xffff {
            CAPABILITY if n == 2 && inst[1] == ARBITRARY_PRECISION_INTEGERS => continue,
            EXTENSION
                if tools::literal_string(&inst[1..])
                    == "SPV_INTEL_arbitrary_precision_integers" =>
            {
                continue
            }
            TYPE_INT if odd.contains_key(&inst[1]) => {
                out.extend_from_slice(&[inst[0], inst[1], native_width(inst[2]), inst[3]]);
                continue;
            }
            CONSTANT if n >= 4 => {
                if let Some(&bits) = odd.get(&inst[1]) {
                    out.extend_from_slice(&inst[..3]);
                    out.extend(mask_literal(&inst[3..], bits));
                    continue;
                }
            }
            _ => {}
        }
        out.extend_from_slice(inst);
    }
    out.extend_from_slice(&words[end..]);
    Ok(Some(Widened { words: out, odd }))
}

/// A constant's literal words, masked to `bits`.
fn mask_literal(words: &[u32], bits: u32) -> Vec<u32> {
    let value = words
        .iter()
        .take(2)
        .enumerate()
        .fold(0u64, |v, (k, &w)| v | u64::from(w) << (32 * k));
    let masked = value & low_mask(bits);
    if words.len() >= 2 {
        vec![masked as u32, (masked >> 32) as u32]
    } else {
        vec![masked as u32]
    }
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// What an id's type is, as far as this pass cares.
#[derive(Clone, Copy)]
enum Shape {
    /// An odd integer (scalar or vector): its width N, kept in W.
    Odd {
        bits: u32,
        wide: u32,
    },
    /// A vector of `lanes` booleans.
    BoolVector {
        lanes: u32,
    },
    Other,
}

struct Legalize {
    /// Type id → shape.
    shapes: HashMap<Word, Shape>,
    /// Value id → type id.
    type_of: HashMap<Word, Word>,
    /// Pointer type id → storage class.
    pointers: HashMap<Word, StorageClass>,
    /// Pointers that reach their memory through a variable of their own
    /// type (`OpVariable`, and access chains into one): an odd integer
    /// there is stored widened. Any other pointer (an `OpBitcast` of
    /// another pointer: LLVM's SROA loading bytes 2..8 of a struct as an
    /// `i48`) reads memory laid out in bytes, so its odd integers are
    /// accessed exactly, in native pieces (`split_access`).
    own_storage: HashSet<Word>,
    /// Scalar type id of each vector type, and the bool type.
    components: HashMap<Word, (Word, u32)>,
    ext_opencl: Option<Word>,
}

impl Legalize {
    fn new(module: &Module, odd: HashMap<Word, u32>) -> Legalize {
        let mut shapes = HashMap::new();
        let mut components = HashMap::new();
        let mut pointers = HashMap::new();
        let mut bool_id = None;
        for (&id, &bits) in &odd {
            shapes.insert(
                id,
                Shape::Odd {
                    bits,
                    wide: native_width(bits),
                },
            );
        }
        let mut type_of = HashMap::new();
        for i in &module.types_global_values {
            let Some(id) = i.result_id else { continue };
            match i.class.opcode {
                Op::TypeBool => bool_id = Some(id),
                Op::TypeVector => {
                    let (c, n) = (
                        i.operands[0].unwrap_id_ref(),
                        i.operands[1].unwrap_literal_bit32(),
                    );
                    components.insert(id, (c, n));
                    if let Some(Shape::Odd { bits, wide, .. }) = shapes.get(&c).copied() {
                        shapes.insert(id, Shape::Odd { bits, wide });
                    } else if Some(c) == bool_id {
                        shapes.insert(id, Shape::BoolVector { lanes: n });
                    }
                }
                Op::TypePointer => {
                    pointers.insert(id, i.operands[0].unwrap_storage_class());
                }
                _ => {}
            }
            if let Some(t) = i.result_type {
                type_of.insert(id, t);
            }
        }
        let mut own_storage = HashSet::new();
        for f in &module.functions {
            for p in &f.parameters {
                if let (Some(id), Some(t)) = (p.result_id, p.result_type) {
                    type_of.insert(id, t);
                }
            }
            for b in &f.blocks {
                for i in &b.instructions {
                    if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
                        type_of.insert(id, t);
                    }
                    let own = match i.class.opcode {
                        Op::Variable => true,
                        Op::AccessChain | Op::InBoundsAccessChain => {
                            own_storage.contains(&i.operands[0].unwrap_id_ref())
                        }
                        _ => false,
                    };
                    if own {
                        own_storage.extend(i.result_id);
                    }
                }
            }
        }
        let ext_opencl = module
            .ext_inst_imports
            .iter()
            .find(|i| i.operands.first().map(|o| o.unwrap_literal_string()) == Some("OpenCL.std"))
            .and_then(|i| i.result_id);
        Legalize {
            shapes,
            type_of,
            pointers,
            own_storage,
            components,
            ext_opencl,
        }
    }

    fn shape(&self, ty: Option<Word>) -> Shape {
        ty.and_then(|t| self.shapes.get(&t).copied())
            .unwrap_or(Shape::Other)
    }

    fn operand_shape(&self, o: &Operand) -> Shape {
        match o {
            Operand::IdRef(id) => self.shape(self.type_of.get(id).copied()),
            _ => Shape::Other,
        }
    }

    /// The bit width of an integer type (odd types: their N), if it is one.
    fn int_bits(&self, module: &Module, ty: Word) -> Option<u32> {
        if let Shape::Odd { bits, .. } = self.shape(Some(ty)) {
            return Some(bits);
        }
        let scalar = self.components.get(&ty).map_or(ty, |&(c, _)| c);
        module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(scalar) && i.class.opcode == Op::TypeInt)
            .map(|i| i.operands[0].unwrap_literal_bit32())
    }

    /// A constant of type `ty` (scalar or vector) with every lane `value`.
    fn constant(&self, module: &mut Module, ty: Word, value: u64) -> Word {
        if let Some(&(scalar, lanes)) = self.components.get(&ty) {
            let c = self.constant(module, scalar, value);
            return global(
                module,
                Op::ConstantComposite,
                Some(ty),
                vec![Operand::IdRef(c); lanes as usize],
            );
        }
        let wide = self.wide_bits(module, ty).unwrap_or(32);
        let literal = if wide == 64 {
            Operand::LiteralBit64(value)
        } else {
            Operand::LiteralBit32(value as u32)
        };
        global(module, Op::Constant, Some(ty), vec![literal])
    }

    fn emit(
        &mut self,
        out: &mut Vec<Instruction>,
        op: Op,
        ty: Word,
        id: Word,
        operands: Vec<Operand>,
    ) {
        self.type_of.insert(id, ty);
        out.push(Instruction::new(op, Some(ty), Some(id), operands));
    }

    /// `x & (2^bits - 1)` into `result`.
    fn mask_into(
        &mut self,
        module: &mut Module,
        out: &mut Vec<Instruction>,
        ty: Word,
        bits: u32,
        x: Word,
        result: Word,
    ) {
        let m = self.constant(module, ty, low_mask(bits));
        self.emit(
            out,
            Op::BitwiseAnd,
            ty,
            result,
            vec![Operand::IdRef(x), Operand::IdRef(m)],
        );
    }

    /// Sign-extends a zero-extended odd operand within its wide type.
    fn sign_extend(
        &mut self,
        module: &mut Module,
        out: &mut Vec<Instruction>,
        o: &Operand,
    ) -> Operand {
        let (Operand::IdRef(x), Shape::Odd { bits, wide, .. }) = (o, self.operand_shape(o)) else {
            return o.clone();
        };
        let ty = self.type_of[x];
        let s = self.constant(module, ty, u64::from(wide - bits));
        let (up, back) = (fresh_id(module), fresh_id(module));
        self.emit(
            out,
            Op::ShiftLeftLogical,
            ty,
            up,
            vec![o.clone(), Operand::IdRef(s)],
        );
        self.emit(
            out,
            Op::ShiftRightArithmetic,
            ty,
            back,
            vec![Operand::IdRef(up), Operand::IdRef(s)],
        );
        Operand::IdRef(back)
    }

    /// `inst` with its result in a fresh id, then masked into its result.
    fn then_mask(
        &mut self,
        module: &mut Module,
        out: &mut Vec<Instruction>,
        mut inst: Instruction,
        bits: u32,
    ) {
        let (ty, result) = (inst.result_type.unwrap(), inst.result_id.unwrap());
        let tmp = fresh_id(module);
        inst.result_id = Some(tmp);
        self.type_of.insert(tmp, ty);
        out.push(inst);
        self.mask_into(module, out, ty, bits, tmp, result);
    }

    fn rewrite(
        &mut self,
        module: &mut Module,
        mut inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), String> {
        let result = self.shape(inst.result_type);
        let odd_operand = inst
            .operands
            .iter()
            .any(|o| matches!(self.operand_shape(o), Shape::Odd { .. }));
        let odd_result = matches!(result, Shape::Odd { .. });
        let op = inst.class.opcode;
        if op == Op::Bitcast {
            return self.bitcast(module, inst, out);
        }
        if !odd_result && !odd_operand && op != Op::Switch {
            out.push(inst);
            return Ok(());
        }
        let bits = match result {
            Shape::Odd { bits, .. } => bits,
            _ => 0,
        };
        match op {
            Op::IAdd | Op::ISub | Op::IMul | Op::SNegate | Op::Not | Op::ShiftLeftLogical => {
                self.then_mask(module, out, inst, bits)
            }
            Op::ShiftRightArithmetic | Op::SDiv | Op::SRem | Op::SMod => {
                let n = if op == Op::ShiftRightArithmetic { 1 } else { 2 };
                for k in 0..n {
                    inst.operands[k] = self.sign_extend(module, out, &inst.operands[k]);
                }
                self.then_mask(module, out, inst, bits)
            }
            Op::SLessThan | Op::SLessThanEqual | Op::SGreaterThan | Op::SGreaterThanEqual => {
                for k in 0..2 {
                    inst.operands[k] = self.sign_extend(module, out, &inst.operands[k]);
                }
                out.push(inst);
            }
            Op::UConvert | Op::SConvert => self.convert(module, inst, out)?,
            Op::ConvertSToF => {
                inst.operands[0] = self.sign_extend(module, out, &inst.operands[0]);
                out.push(inst);
            }
            Op::ConvertFToU | Op::ConvertFToS => self.then_mask(module, out, inst, bits),
            Op::Switch => {
                if let Shape::Odd { bits, .. } = self.operand_shape(&inst.operands[0]) {
                    for o in inst.operands.iter_mut().skip(2).step_by(2) {
                        match o {
                            Operand::LiteralBit32(v) => *v &= low_mask(bits) as u32,
                            Operand::LiteralBit64(v) => *v &= low_mask(bits),
                            _ => {}
                        }
                    }
                }
                out.push(inst);
            }
            Op::ExtInst => self.ext_inst(module, inst, out, bits)?,
            Op::Load | Op::Store => {
                // Both take the pointer first.
                let class = match &inst.operands[0] {
                    Operand::IdRef(p) => self
                        .type_of
                        .get(p)
                        .and_then(|t| self.pointers.get(t))
                        .copied(),
                    _ => None,
                };
                if class != Some(StorageClass::Function) {
                    return Err(unsupported(
                        &inst,
                        "in memory other than a private variable",
                    ));
                }
                if self.own_storage.contains(&inst.operands[0].unwrap_id_ref()) {
                    out.push(inst);
                } else {
                    self.split_access(module, inst, out)?;
                }
            }
            Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::UDiv
            | Op::UMod
            | Op::ShiftRightLogical
            | Op::BitCount
            | Op::IEqual
            | Op::INotEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::ConvertUToF
            | Op::Select
            | Op::Phi
            | Op::CompositeConstruct
            | Op::CompositeExtract
            | Op::CompositeInsert
            | Op::VectorShuffle
            | Op::VectorExtractDynamic
            | Op::VectorInsertDynamic
            | Op::CopyObject
            | Op::Undef
            | Op::FunctionCall
            | Op::ReturnValue
            | Op::Variable
            | Op::Line
            | Op::NoLine => out.push(inst),
            _ => return Err(unsupported(&inst, "")),
        }
        Ok(())
    }

    /// A load or store of an odd integer through a pointer into byte-laid
    /// memory (`own_storage`): a `W`-bit access would read or write bytes
    /// past the `N` bits (the next struct's members, or past the end of
    /// the array), so the `N / 8` bytes are accessed in native pieces
    /// (4, 2, 1 bytes) at byte offsets, and the value is assembled from
    /// them (zero-extended, as every odd value is kept) or cut into them.
    fn split_access(
        &mut self,
        module: &mut Module,
        inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), String> {
        let load = inst.class.opcode == Op::Load;
        let ptr = inst.operands[0].unwrap_id_ref();
        let value = if load {
            None
        } else {
            Some(inst.operands[1].unwrap_id_ref())
        };
        let ty = match value {
            Some(v) => self.type_of[&v],
            None => inst.result_type.unwrap(),
        };
        let bits = match self.shape(Some(ty)) {
            Shape::Odd { bits, .. } if bits % 8 == 0 && !self.components.contains_key(&ty) => bits,
            _ => {
                return Err(unsupported(
                    &inst,
                    "through a cast pointer (only whole-byte scalars are split)",
                ))
            }
        };
        // The access's alignment (1 where it names none), and so each
        // piece's: the lowering takes an access without one as naturally
        // aligned.
        let mem = &inst.operands[if load { 1 } else { 2 }..];
        let align = match mem {
            [Operand::MemoryAccess(m), Operand::LiteralBit32(a), ..]
                if m.contains(MemoryAccess::ALIGNED) =>
            {
                *a
            }
            _ => 1,
        };
        let aligned = |off: u32, piece: u32| {
            let a = if off == 0 {
                align
            } else {
                align.min(1 << off.trailing_zeros())
            };
            vec![
                Operand::MemoryAccess(MemoryAccess::ALIGNED),
                Operand::LiteralBit32(a.min(piece)),
            ]
        };
        let byte = self.native_int(module, 8);
        let byte_ptr = global(
            module,
            Op::TypePointer,
            None,
            vec![
                Operand::StorageClass(StorageClass::Function),
                Operand::IdRef(byte),
            ],
        );
        let base = fresh_id(module);
        self.emit(out, Op::Bitcast, byte_ptr, base, vec![Operand::IdRef(ptr)]);
        let u32t = self.native_int(module, 32);
        let mut acc: Option<Word> = None;
        let mut off = 0;
        let total = bits / 8;
        while off < total {
            let piece = [4, 2, 1].into_iter().find(|p| off + p <= total).unwrap();
            let it = self.native_int(module, piece * 8);
            let pt = global(
                module,
                Op::TypePointer,
                None,
                vec![
                    Operand::StorageClass(StorageClass::Function),
                    Operand::IdRef(it),
                ],
            );
            let at = if off == 0 {
                base
            } else {
                let o = global(
                    module,
                    Op::Constant,
                    Some(u32t),
                    vec![Operand::LiteralBit32(off)],
                );
                let q = fresh_id(module);
                self.emit(
                    out,
                    Op::InBoundsPtrAccessChain,
                    byte_ptr,
                    q,
                    vec![Operand::IdRef(base), Operand::IdRef(o)],
                );
                q
            };
            let p = fresh_id(module);
            self.emit(out, Op::Bitcast, pt, p, vec![Operand::IdRef(at)]);
            let shift = self.constant(module, ty, u64::from(off * 8));
            if let Some(v) = value {
                let part = if off == 0 {
                    v
                } else {
                    let r = fresh_id(module);
                    self.emit(
                        out,
                        Op::ShiftRightLogical,
                        ty,
                        r,
                        vec![Operand::IdRef(v), Operand::IdRef(shift)],
                    );
                    r
                };
                let narrow = fresh_id(module);
                self.emit(out, Op::UConvert, it, narrow, vec![Operand::IdRef(part)]);
                let mut ops = vec![Operand::IdRef(p), Operand::IdRef(narrow)];
                ops.extend(aligned(off, piece));
                out.push(Instruction::new(Op::Store, None, None, ops));
            } else {
                let (narrow, wide) = (fresh_id(module), fresh_id(module));
                let mut ops = vec![Operand::IdRef(p)];
                ops.extend(aligned(off, piece));
                self.emit(out, Op::Load, it, narrow, ops);
                self.emit(out, Op::UConvert, ty, wide, vec![Operand::IdRef(narrow)]);
                let part = if off == 0 {
                    wide
                } else {
                    let r = fresh_id(module);
                    self.emit(
                        out,
                        Op::ShiftLeftLogical,
                        ty,
                        r,
                        vec![Operand::IdRef(wide), Operand::IdRef(shift)],
                    );
                    r
                };
                let last = off + piece == total;
                acc = Some(match acc {
                    None => part,
                    Some(a) => {
                        let r = if last {
                            inst.result_id.unwrap()
                        } else {
                            fresh_id(module)
                        };
                        self.emit(
                            out,
                            Op::BitwiseOr,
                            ty,
                            r,
                            vec![Operand::IdRef(a), Operand::IdRef(part)],
                        );
                        r
                    }
                });
            }
            off += piece;
        }
        Ok(())
    }

    /// A native (not widened) unsigned integer type of `bits` bits: the
    /// widened odd types have native widths too, and must not be taken
    /// for one.
    fn native_int(&mut self, module: &mut Module, bits: u32) -> Word {
        let found = module.types_global_values.iter().find_map(|i| {
            let id = i.result_id?;
            let native = i.class.opcode == Op::TypeInt
                && i.operands[0].unwrap_literal_bit32() == bits
                && i.operands[1].unwrap_literal_bit32() == 0
                && !self.shapes.contains_key(&id);
            native.then_some(id)
        });
        found.unwrap_or_else(|| {
            let id = fresh_id(module);
            module.types_global_values.push(Instruction::new(
                Op::TypeInt,
                None,
                Some(id),
                vec![Operand::LiteralBit32(bits), Operand::LiteralBit32(0)],
            ));
            id
        })
    }

    /// UConvert / SConvert with an odd source or result: converted between
    /// the wide types (a copy where they are the same), then masked where
    /// the result is odd and the value may have bits above its N (a signed
    /// conversion, or a narrowing one).
    fn convert(
        &mut self,
        module: &mut Module,
        mut inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), String> {
        let (ty, result) = (inst.result_type.unwrap(), inst.result_id.unwrap());
        let signed = inst.class.opcode == Op::SConvert;
        if signed {
            inst.operands[0] = self.sign_extend(module, out, &inst.operands[0]);
        }
        let Operand::IdRef(src) = inst.operands[0] else {
            return Err(unsupported(&inst, ""));
        };
        let src_ty = self.type_of[&src];
        let (from, to) = (self.wide_bits(module, src_ty), self.wide_bits(module, ty));
        let from_bits = self.int_bits(module, src_ty).unwrap_or(64);
        let mask = match self.shape(Some(ty)) {
            Shape::Odd { bits, .. } if signed || from_bits > bits => Some(bits),
            _ => None,
        };
        let value = if mask.is_some() {
            fresh_id(module)
        } else {
            result
        };
        if from.is_some() && from == to {
            self.emit(out, Op::CopyObject, ty, value, vec![Operand::IdRef(src)]);
        } else {
            inst.result_id = Some(value);
            self.type_of.insert(value, ty);
            out.push(inst);
        }
        if let Some(bits) = mask {
            self.mask_into(module, out, ty, bits, value, result);
        }
        Ok(())
    }

    /// The width an integer type (scalar or vector) has in the module now.
    fn wide_bits(&self, module: &Module, ty: Word) -> Option<u32> {
        match self.shape(Some(ty)) {
            Shape::Odd { wide, .. } => Some(wide),
            _ => self.int_bits(module, ty),
        }
    }

    fn ext_inst(
        &mut self,
        module: &mut Module,
        mut inst: Instruction,
        out: &mut Vec<Instruction>,
        bits: u32,
    ) -> Result<(), String> {
        let set = inst.operands[0].unwrap_id_ref();
        let number = match inst.operands[1] {
            Operand::LiteralExtInstInteger(n) => n,
            _ => return Err(unsupported(&inst, "")),
        };
        if Some(set) != self.ext_opencl {
            return Err(unsupported(&inst, ""));
        }
        let ty = inst.result_type.unwrap();
        match number {
            // u_max, u_min, u_clamp, popcount, u_abs, u_sub_sat, u_hadd.
            157 | 159 | 150 | 166 | 201 | 163 | 146 => out.push(inst),
            // s_abs, s_max, s_min, s_clamp, s_add_sat, s_sub_sat.
            141 | 156 | 158 | 149 | 143 | 162 => {
                for k in 2..inst.operands.len() {
                    inst.operands[k] = self.sign_extend(module, out, &inst.operands[k]);
                }
                if matches!(number, 143 | 162) {
                    // Exact in W bits; saturate to N bits.
                    let sum = fresh_id(module);
                    let result = inst.result_id.replace(sum).unwrap();
                    self.type_of.insert(sum, ty);
                    out.push(inst);
                    let lo = self.constant(
                        module,
                        ty,
                        (!0u64 << (bits - 1)) & low_mask(native_width(bits)),
                    );
                    let hi = self.constant(module, ty, low_mask(bits - 1));
                    let clamped = fresh_id(module);
                    let ext = Operand::IdRef(set);
                    self.emit(
                        out,
                        Op::ExtInst,
                        ty,
                        clamped,
                        vec![
                            ext,
                            Operand::LiteralExtInstInteger(149),
                            Operand::IdRef(sum),
                            Operand::IdRef(lo),
                            Operand::IdRef(hi),
                        ],
                    );
                    self.mask_into(module, out, ty, bits, clamped, result);
                } else {
                    self.then_mask(module, out, inst, bits);
                }
            }
            // u_add_sat: exact in W bits, capped at 2^N - 1.
            144 => {
                let sum = fresh_id(module);
                let result = inst.result_id.unwrap();
                let add =
                    Instruction::new(Op::IAdd, Some(ty), Some(sum), inst.operands[2..].to_vec());
                self.type_of.insert(sum, ty);
                out.push(add);
                let cap = self.constant(module, ty, low_mask(bits));
                self.emit(
                    out,
                    Op::ExtInst,
                    ty,
                    result,
                    vec![
                        Operand::IdRef(set),
                        Operand::LiteralExtInstInteger(159),
                        Operand::IdRef(sum),
                        Operand::IdRef(cap),
                    ],
                );
            }
            // clz: W - N leading zeros too many.
            151 => {
                let Shape::Odd { wide, .. } = self.shape(Some(ty)) else {
                    return Err(unsupported(&inst, ""));
                };
                let count = fresh_id(module);
                let result = inst.result_id.replace(count).unwrap();
                self.type_of.insert(count, ty);
                out.push(inst);
                let d = self.constant(module, ty, u64::from(wide - bits));
                self.emit(
                    out,
                    Op::ISub,
                    ty,
                    result,
                    vec![Operand::IdRef(count), Operand::IdRef(d)],
                );
            }
            // ctz: at most N (of zero).
            152 => {
                let count = fresh_id(module);
                let result = inst.result_id.replace(count).unwrap();
                self.type_of.insert(count, ty);
                out.push(inst);
                let n = self.constant(module, ty, u64::from(bits));
                self.emit(
                    out,
                    Op::ExtInst,
                    ty,
                    result,
                    vec![
                        Operand::IdRef(set),
                        Operand::LiteralExtInstInteger(159),
                        Operand::IdRef(count),
                        Operand::IdRef(n),
                    ],
                );
            }
            _ => return Err(unsupported(&inst, "")),
        }
        Ok(())
    }

    /// Step 3: bitcasts between boolean vectors and integers; any other
    /// bitcast of an odd type is refused.
    fn bitcast(
        &mut self,
        module: &mut Module,
        inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), String> {
        let ty = inst.result_type.unwrap();
        let result = inst.result_id.unwrap();
        let src = inst.operands[0].clone();
        if src.id_ref_any().and_then(|s| self.type_of.get(&s)) == Some(&ty) {
            // llvm-spirv writes LLVM's `freeze` as a bitcast to the same
            // type, booleans included (not numerical: invalid SPIR-V):
            // the value itself.
            self.emit(out, Op::CopyObject, ty, result, vec![src]);
            return Ok(());
        }
        match (self.operand_shape(&src), self.shape(Some(ty))) {
            (Shape::BoolVector { lanes }, _) => {
                let Some(n) = self
                    .int_bits(module, ty)
                    .filter(|_| !self.components.contains_key(&ty))
                else {
                    return Err(unsupported(&inst, "to a non-integer"));
                };
                if n != lanes {
                    return Err(unsupported(&inst, "of another size"));
                }
                let bool_ty = self.components[&self.type_of[&src.unwrap_id_ref()]].0;
                let zero = self.constant(module, ty, 0);
                let mut acc = zero;
                for lane in 0..lanes {
                    let (b, bit, sum) = (fresh_id(module), fresh_id(module), fresh_id(module));
                    let one = self.constant(module, ty, 1u64 << lane);
                    self.emit(
                        out,
                        Op::CompositeExtract,
                        bool_ty,
                        b,
                        vec![src.clone(), Operand::LiteralBit32(lane)],
                    );
                    self.emit(
                        out,
                        Op::Select,
                        ty,
                        bit,
                        vec![Operand::IdRef(b), Operand::IdRef(one), Operand::IdRef(zero)],
                    );
                    let last = lane + 1 == lanes;
                    let id = if last { result } else { sum };
                    self.emit(
                        out,
                        Op::BitwiseOr,
                        ty,
                        id,
                        vec![Operand::IdRef(acc), Operand::IdRef(bit)],
                    );
                    acc = id;
                }
                Ok(())
            }
            (_, Shape::BoolVector { lanes }) => {
                let src_ty = self.type_of[&src.unwrap_id_ref()];
                if self.components.contains_key(&src_ty)
                    || self.int_bits(module, src_ty) != Some(lanes)
                {
                    return Err(unsupported(&inst, "from another type"));
                }
                let bool_ty = self.components[&ty].0;
                let zero = self.constant(module, src_ty, 0);
                let one = self.constant(module, src_ty, 1);
                let mut lanes_out = Vec::new();
                for lane in 0..lanes {
                    let (sh, and, b) = (fresh_id(module), fresh_id(module), fresh_id(module));
                    let k = self.constant(module, src_ty, u64::from(lane));
                    self.emit(
                        out,
                        Op::ShiftRightLogical,
                        src_ty,
                        sh,
                        vec![src.clone(), Operand::IdRef(k)],
                    );
                    self.emit(
                        out,
                        Op::BitwiseAnd,
                        src_ty,
                        and,
                        vec![Operand::IdRef(sh), Operand::IdRef(one)],
                    );
                    self.emit(
                        out,
                        Op::INotEqual,
                        bool_ty,
                        b,
                        vec![Operand::IdRef(and), Operand::IdRef(zero)],
                    );
                    lanes_out.push(Operand::IdRef(b));
                }
                self.emit(out, Op::CompositeConstruct, ty, result, lanes_out);
                Ok(())
            }
            (Shape::Odd { bits, .. }, Shape::Other) => {
                let src_ty = self.type_of[&src.unwrap_id_ref()];
                let Some((lane_ty, lanes, lane_bits)) = self
                    .native_lanes(module, ty)
                    .filter(|&(_, l, m)| l * m == bits && !self.components.contains_key(&src_ty))
                else {
                    return Err(unsupported(&inst, "to another shape"));
                };
                // Lane i is bits i*M .. (i+1)*M of the zero-extended value.
                let mut parts = Vec::new();
                for lane in 0..lanes {
                    let (sh, part) = (fresh_id(module), fresh_id(module));
                    let k = self.constant(module, src_ty, u64::from(lane * lane_bits));
                    self.emit(
                        out,
                        Op::ShiftRightLogical,
                        src_ty,
                        sh,
                        vec![src.clone(), Operand::IdRef(k)],
                    );
                    self.emit(out, Op::UConvert, lane_ty, part, vec![Operand::IdRef(sh)]);
                    parts.push(Operand::IdRef(part));
                }
                self.emit(out, Op::CompositeConstruct, ty, result, parts);
                Ok(())
            }
            (Shape::Other, Shape::Odd { bits, .. }) => {
                let src_ty = self.type_of[&src.unwrap_id_ref()];
                let Some((lane_ty, lanes, lane_bits)) = self
                    .native_lanes(module, src_ty)
                    .filter(|&(_, l, m)| l * m == bits && !self.components.contains_key(&ty))
                else {
                    return Err(unsupported(&inst, "from another shape"));
                };
                // The lanes' bits side by side, lane 0 lowest: the bits
                // above N stay zero.
                let mut acc = self.constant(module, ty, 0);
                for lane in 0..lanes {
                    let (e, z, sh) = (fresh_id(module), fresh_id(module), fresh_id(module));
                    self.emit(
                        out,
                        Op::CompositeExtract,
                        lane_ty,
                        e,
                        vec![src.clone(), Operand::LiteralBit32(lane)],
                    );
                    self.emit(out, Op::UConvert, ty, z, vec![Operand::IdRef(e)]);
                    let k = self.constant(module, ty, u64::from(lane * lane_bits));
                    self.emit(
                        out,
                        Op::ShiftLeftLogical,
                        ty,
                        sh,
                        vec![Operand::IdRef(z), Operand::IdRef(k)],
                    );
                    let id = if lane + 1 == lanes {
                        result
                    } else {
                        fresh_id(module)
                    };
                    self.emit(
                        out,
                        Op::BitwiseOr,
                        ty,
                        id,
                        vec![Operand::IdRef(acc), Operand::IdRef(sh)],
                    );
                    acc = id;
                }
                Ok(())
            }
            (Shape::Odd { .. }, _) => Err(unsupported(&inst, "")),
            _ => {
                out.push(inst);
                Ok(())
            }
        }
    }

    /// A vector type of integers of a native width: its component type,
    /// lane count and component width.
    fn native_lanes(&self, module: &Module, ty: Word) -> Option<(Word, u32, u32)> {
        let &(lane_ty, lanes) = self.components.get(&ty)?;
        if matches!(self.shape(Some(lane_ty)), Shape::Odd { .. }) {
            return None;
        }
        let m = self.int_bits(module, lane_ty)?;
        matches!(m, 8 | 16 | 32 | 64).then_some((lane_ty, lanes, m))
    }
}

fn unsupported(inst: &Instruction, detail: &str) -> String {
    let sep = if detail.is_empty() { "" } else { " " };
    format!(
        "the optimizer produced an integer of a width Vulkan lacks in Op{:?}{sep}{detail}, which ferrocl cannot legalize",
        inst.class.opcode
    )
}

/// Step 4: merges type declarations made identical by the widening, in
/// declaration order (a vector or pointer of a merged type becomes a
/// duplicate in turn), and renames every use.
fn merge_duplicate_types(module: &mut Module) {
    let mut rename: HashMap<Word, Word> = HashMap::new();
    let mut seen: HashMap<(Op, Option<Word>, Vec<Operand>), Word> = HashMap::new();
    let sub = |o: &mut Operand, rename: &HashMap<Word, Word>| {
        if let Operand::IdRef(id) = o {
            if let Some(&n) = rename.get(id) {
                *id = n;
            }
        }
    };
    let mut kept = Vec::with_capacity(module.types_global_values.len());
    for mut inst in std::mem::take(&mut module.types_global_values) {
        for o in &mut inst.operands {
            sub(o, &rename);
        }
        if let Some(t) = inst.result_type.as_mut() {
            if let Some(&n) = rename.get(t) {
                *t = n;
            }
        }
        let mergeable = matches!(
            inst.class.opcode,
            Op::TypeInt | Op::TypeVector | Op::TypePointer | Op::TypeFunction | Op::TypeArray
        );
        if mergeable {
            let key = (inst.class.opcode, inst.result_type, inst.operands.clone());
            if let Some(&first) = seen.get(&key) {
                rename.insert(inst.result_id.unwrap(), first);
                continue;
            }
            seen.insert(key, inst.result_id.unwrap());
        }
        kept.push(inst);
    }
    module.types_global_values = kept;
    if rename.is_empty() {
        return;
    }
    for inst in module.all_inst_iter_mut() {
        for o in &mut inst.operands {
            sub(o, &rename);
        }
        if let Some(t) = inst.result_type.as_mut() {
            if let Some(&n) = rename.get(t) {
                *t = n;
            }
        }
    }
}
