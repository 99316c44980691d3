//! Program-scope `__global` variables (OpenCL 2.0+, including `static`
//! variables declared inside functions) and large program-scope
//! `__constant` tables: `prepare_global_variables`.
//!
//! # Algorithm
//!
//! Every CrossWorkgroup OpVariable of the module gets a byte offset in one
//! buffer shared by all kernels of the program (the runtime allocates it
//! per device, see `abi::GlobalVariables`): in module order, each at the
//! next multiple of its type's OpenCL C alignment. Variables no kernel uses
//! keep their place, so every kernel sees the same layout.
//!
//! After them come the UniformConstant variables of [`LARGE_CONSTANT`]
//! bytes or more (lookup tables, such as libclc's for double-precision
//! math): read through the buffer's address like `__global` data, they are
//! not copied into every work-item's private memory, where the lowering
//! keeps smaller `__constant` data (`lower`: an initialized Private array).
//! Byte arrays stay there too: printf's `%s` reads its strings from that
//! data, on the host. `GlobalVariables::constant_size` counts these bytes.
//!
//! Initializers are serialized with the OpenCL C memory layout
//! (`Constants::serialize`). A pointer constant in an initializer (`&x`,
//! or an OpSpecConstantOp access chain / cast of one, as llvm-spirv writes
//! `&a[1]`) becomes the pointee's offset in the buffer plus a relocation
//! the runtime resolves by adding the buffer's device address. Variables
//! without an initializer are zero (program-scope variables are
//! zero-initialized).
//!
//! Neither rspirv (for some operand counts) nor spirt (at all) can read
//! OpSpecConstantOp, and spirt renumbers ids. So this runs first, on the
//! words: it takes every OpSpecConstantOp out of the module, computes the
//! layout, drops the variables' initializers (and the constants built from
//! a constant expression) and marks each variable with
//! `UserSemantic "ferrocl.global_offset=<offset>"`; `global_offsets` reads
//! the offsets back after spirt.
//!
//! # Gaps
//!
//! A pointer to program-scope `__constant` data cannot be stored in an
//! initializer (that data lives in each kernel's module, not at an
//! address), and constant expressions used by code rather than by
//! initializers are not supported: both are build errors.

use std::collections::{HashMap, HashSet};

use rspirv::binary::Assemble;
use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::abi::GlobalVariables;
use crate::analyses::type_table::{Ty, TypeTable};

const MARK: &str = "ferrocl.global_offset=";

/// UniformConstant variables of at least this many bytes live in the
/// program's buffer (module doc).
pub const LARGE_CONSTANT: u64 = 256;

/// An OpSpecConstantOp of the input: its result type, opcode and the ids
/// it names.
#[derive(Clone, Debug)]
pub struct SpecOp {
    pub ty: Word,
    pub op: u32,
    pub args: Vec<Word>,
}

/// Splits the OpSpecConstantOp instructions (opcode 52) out of `words`.
fn take_spec_ops(words: &[u32]) -> (Vec<u32>, HashMap<Word, SpecOp>) {
    const SPEC_CONSTANT_OP: u32 = 52;
    let mut ops = HashMap::new();
    let out = crate::tools::rewrite_instructions(words, |inst, out| {
        if inst[0] & 0xffff == SPEC_CONSTANT_OP && inst.len() >= 4 {
            ops.insert(
                inst[2],
                SpecOp {
                    ty: inst[1],
                    op: inst[3],
                    args: inst[4..].to_vec(),
                },
            );
        } else {
            out.extend_from_slice(inst);
        }
    });
    (out, ops)
}

/// The input's constants, for evaluating initializers.
pub struct Constants<'a> {
    pub globals: &'a HashMap<Word, &'a Instruction>,
    pub tys: &'a TypeTable,
    pub spec_ops: &'a HashMap<Word, SpecOp>,
}

impl Constants<'_> {
    /// A constant pointer expression: the variable it points into and the
    /// byte offset from the variable's start (OpVariable, and access
    /// chains and casts of one).
    pub fn pointer(&self, id: Word) -> Option<(Word, i64)> {
        if let Some(g) = self.globals.get(&id) {
            return (g.class.opcode == Op::Variable).then_some((id, 0));
        }
        let s = self.spec_ops.get(&id)?;
        let op = Op::from_u32(s.op)?;
        match op {
            Op::Bitcast
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::ConvertPtrToU
            | Op::ConvertUToPtr => self.pointer(*s.args.first()?),
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => {
                let (&base, rest) = s.args.split_first()?;
                let (var, mut off) = self.pointer(base)?;
                let base_ty = match self.globals.get(&base) {
                    Some(g) => g.result_type?,
                    None => self.spec_ops.get(&base)?.ty,
                };
                let Ty::Pointer(_, pointee) = self.tys.get(base_ty).clone() else {
                    return None;
                };
                let ptr_chain = matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
                off += self.tys.const_chain_offset(pointee, ptr_chain, rest)?;
                Some((var, off))
            }
            _ => None,
        }
    }

    /// Writes the bytes of constant `id` at `off` of `bytes` with the
    /// OpenCL C layout. A pointer to a variable is written as
    /// `resolve(variable) + offset` and its byte position reported to
    /// `reloc`; `resolve` returning None (the variable has no address
    /// there) is an error.
    pub fn serialize(
        &self,
        id: Word,
        bytes: &mut [u8],
        off: usize,
        resolve: &dyn Fn(Word) -> Option<u64>,
        reloc: &mut dyn FnMut(usize),
    ) -> Result<(), String> {
        let (op, ty) = match (self.globals.get(&id), self.spec_ops.get(&id)) {
            (Some(g), _) => (g.class.opcode, g.result_type.unwrap_or(0)),
            (None, Some(s)) => (Op::SpecConstantOp, s.ty),
            (None, None) => return Err("non-constant initializer".into()),
        };
        let size = self.tys.size_of(ty) as usize;
        if off + size > bytes.len() {
            return Err("initializer larger than its variable".into());
        }
        match op {
            Op::Constant => {
                let v = match self.globals[&id].operands[0] {
                    Operand::LiteralBit32(v) => v as u64,
                    Operand::LiteralBit64(v) => v,
                    _ => 0,
                };
                bytes[off..off + size].copy_from_slice(&v.to_le_bytes()[..size.min(8)]);
            }
            Op::ConstantTrue => bytes[off] = 1,
            Op::ConstantFalse | Op::ConstantNull | Op::Undef => {}
            Op::ConstantComposite => {
                let parts: Vec<Word> = self.globals[&id]
                    .operands
                    .iter()
                    .filter_map(|o| o.id_ref_any())
                    .collect();
                match self.tys.get(ty).clone() {
                    Ty::Struct(..) => {
                        let (offs, _) = self.tys.struct_layout(ty);
                        for (p, o) in parts.iter().zip(offs) {
                            self.serialize(*p, bytes, off + o as usize, resolve, reloc)?;
                        }
                    }
                    Ty::Array(e, _) | Ty::Vector(e, _) => {
                        let s = self.tys.size_of(e) as usize;
                        for (i, p) in parts.iter().enumerate() {
                            self.serialize(*p, bytes, off + i * s, resolve, reloc)?;
                        }
                    }
                    _ => return Err("unsupported constant initializer".into()),
                }
            }
            Op::Variable | Op::SpecConstantOp => {
                let (var, delta) = self
                    .pointer(id)
                    .ok_or("a constant expression that is not the address of a variable")?;
                let class = self
                    .globals
                    .get(&var)
                    .and_then(|v| match v.operands.first() {
                        Some(Operand::StorageClass(sc)) => Some(*sc),
                        _ => None,
                    });
                let base = resolve(var).ok_or(match class {
                    Some(StorageClass::UniformConstant) => {
                        "the address of a program-scope __constant variable is not supported here"
                    }
                    _ => "the address of a variable that has no address here",
                })?;
                if size != 8 {
                    return Err("an address stored in fewer than 64 bits".into());
                }
                let v = (base as i64).wrapping_add(delta) as u64;
                bytes[off..off + 8].copy_from_slice(&v.to_le_bytes());
                reloc(off);
            }
            op => return Err(format!("constant initializer {op:?} is not supported")),
        }
        Ok(())
    }
}

/// Before the structurizer: lays out the program-scope `__global`
/// variables of the Kernel module `words` (see the module doc). Returns
/// the module without OpSpecConstantOp and without the variables'
/// initializers, each variable marked with its offset, and the buffer's
/// contents.
pub fn prepare_global_variables(words: &[u32]) -> Result<(Vec<u32>, GlobalVariables), String> {
    let (words, spec_ops) = take_spec_ops(words);
    let mut module =
        dr::load_words(&words).map_err(|e| format!("cannot parse the SPIR-V module: {e}"))?;
    let tys = TypeTable::from_module(&module);
    let globals: HashMap<Word, &Instruction> = module
        .types_global_values
        .iter()
        .filter_map(|g| g.result_id.map(|id| (id, g)))
        .collect();
    let consts = Constants {
        globals: &globals,
        tys: &tys,
        spec_ops: &spec_ops,
    };

    // Layout: the variables, then the large constants.
    let mut offsets: Vec<(Word, u64, Word, Option<Word>)> = Vec::new();
    let mut end = 0u64;
    let mut variables_end = 0u64;
    for constants in [false, true] {
        for g in &module.types_global_values {
            let Some(pointee) = buffer_pointee(&tys, g, constants) else {
                continue;
            };
            let off = end.next_multiple_of(tys.align_of(pointee).max(1));
            end = off + tys.size_of(pointee);
            let init = g.operands.get(1).and_then(|o| o.id_ref_any());
            offsets.push((g.result_id.unwrap_or(0), off, pointee, init));
        }
        if !constants {
            variables_end = end;
        }
    }
    let by_var: HashMap<Word, u64> = offsets.iter().map(|&(v, o, _, _)| (v, o)).collect();
    let mut init = vec![0u8; end as usize];
    let mut relocations = Vec::new();
    for &(var, off, pointee, initializer) in &offsets {
        let Some(c) = initializer else { continue };
        let (at, size) = (off as usize, tys.size_of(pointee) as usize);
        consts
            .serialize(
                c,
                &mut init[at..at + size],
                0,
                &|v| by_var.get(&v).copied(),
                &mut |o| relocations.push((at + o) as u32),
            )
            .map_err(|e| format!("initializer of '{}': {e}", name_of(&module, var)))?;
    }
    let vars = GlobalVariables {
        size: end,
        init,
        relocations,
        constant_size: end - variables_end,
    };

    // Constants built from a constant expression or from the address of a
    // variable (what initializers were made of) go too.
    let mut dropped: HashSet<Word> = spec_ops.keys().copied().collect();
    let mut seeds: HashSet<Word> = dropped.iter().chain(by_var.keys()).copied().collect();
    loop {
        let before = dropped.len();
        for g in &module.types_global_values {
            if g.class.opcode != Op::Variable && uses_any(g, &seeds) {
                dropped.extend(g.result_id);
                seeds.extend(g.result_id);
            }
        }
        if dropped.len() == before {
            break;
        }
    }
    for f in &module.functions {
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            if uses_any(i, &dropped) {
                return Err(format!(
                    "a constant address expression used by code (Op{:?}) is not supported",
                    i.class.opcode
                ));
            }
        }
    }
    module
        .types_global_values
        .retain(|g| !g.result_id.is_some_and(|id| dropped.contains(&id)));
    for g in &mut module.types_global_values {
        if g.result_id.is_some_and(|id| by_var.contains_key(&id)) {
            g.operands.truncate(1);
        }
    }
    if let Some(v) = module
        .types_global_values
        .iter()
        .find(|g| uses_any(g, &dropped))
    {
        return Err(format!(
            "the initializer of '{}' is a constant expression that is not supported",
            name_of(&module, v.result_id.unwrap_or(0))
        ));
    }
    module.debug_names.retain(|n| !uses_any(n, &dropped));
    module.annotations.retain(|a| !uses_any(a, &dropped));
    for &(var, off, _, _) in &offsets {
        module.annotations.push(Instruction::new(
            Op::DecorateString,
            None,
            None,
            vec![
                Operand::IdRef(var),
                Operand::Decoration(Decoration::UserSemantic),
                Operand::LiteralString(format!("{MARK}{off}")),
            ],
        ));
    }
    Ok((module.assemble(), vars))
}

fn uses_any(i: &Instruction, ids: &HashSet<Word>) -> bool {
    i.operands
        .iter()
        .filter_map(|o| o.id_ref_any())
        .any(|x| ids.contains(&x))
}

/// After the structurizer: the offset of each marked variable
/// (`prepare_global_variables`) by its id in `module`.
pub fn global_offsets(module: &dr::Module) -> HashMap<Word, u64> {
    module
        .annotations
        .iter()
        .filter_map(|a| match a.operands.as_slice() {
            [Operand::IdRef(var), Operand::Decoration(Decoration::UserSemantic), Operand::LiteralString(s)] => {
                Some((*var, s.strip_prefix(MARK)?.parse().ok()?))
            }
            _ => None,
        })
        .collect()
}

/// The pointee type of a program-scope OpVariable that lives in the
/// program's buffer: a CrossWorkgroup one (`constants` false) or a large
/// initialized UniformConstant one that is not a byte array (`constants`
/// true; module doc).
fn buffer_pointee(tys: &TypeTable, g: &Instruction, constants: bool) -> Option<Word> {
    if g.class.opcode != Op::Variable {
        return None;
    }
    let Ty::Pointer(_, pointee) = tys.get(g.result_type?) else {
        return None;
    };
    let class = if constants {
        StorageClass::UniformConstant
    } else {
        StorageClass::CrossWorkgroup
    };
    if g.operands.first() != Some(&Operand::StorageClass(class)) {
        return None;
    }
    if constants {
        let bytes = matches!(tys.get(*pointee), Ty::Array(e, _) if tys.get(*e) == &Ty::Int(8));
        let initialized = g.operands.len() > 1;
        if bytes || !initialized || tys.size_of(*pointee) < LARGE_CONSTANT {
            return None;
        }
    }
    Some(*pointee)
}

/// OpName of `id`, for messages.
fn name_of(module: &dr::Module, id: Word) -> String {
    module
        .debug_names
        .iter()
        .find_map(|n| match (n.operands.first(), n.operands.get(1)) {
            (Some(Operand::IdRef(t)), Some(Operand::LiteralString(s))) if *t == id => {
                Some(s.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| format!("%{id}"))
}
