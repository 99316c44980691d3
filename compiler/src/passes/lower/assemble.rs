//! The last stage: the lowered functions and the definitions every concern
//! collected become one Vulkan module (`assemble`): capabilities from the
//! types and instructions used, the memory model (PhysicalStorageBuffer64
//! unless descriptor addressing needs no device address), the entry point
//! with its interface, LocalSize (flattened for sub-groups) and the float
//! controls; NoContraction on the arithmetic that must stay exact
//! (`decorate_exact_arithmetic`); the Vulkan memory model where an ordered
//! atomic asks for it (`vmm`).
//!
//! Gaps: none known; what the module cannot express was reported by the
//! stages before.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{self, Capability, Decoration, ExecutionMode, Op, StorageClass, Word};

use super::atomic::Atomics;
use super::context::{Lower, Res};
use super::image::ImageBindings;
use super::vmm;

impl Lower<'_> {
    /// Copies the defined/used ids into a complete module.
    pub(crate) fn assemble(
        &mut self,
        main: Word,
        name: &str,
        functions: Vec<dr::Function>,
        interface: &[Word],
        bindings: &ImageBindings,
        atomics: &Atomics,
    ) -> Res<dr::Module> {
        let mut m = dr::Module::new();
        // Names: keep those of values that still exist.
        let mut defined: HashSet<Word> = HashSet::new();
        for g in &self.out.globals {
            if let Some(id) = g.result_id {
                defined.insert(id);
            }
        }
        for f in &functions {
            for i in f.all_inst_iter() {
                if let Some(id) = i.result_id {
                    defined.insert(id);
                }
            }
        }
        for n in &self.ix.src.debug_names {
            if let Some(Operand::IdRef(t)) = n.operands.first() {
                if defined.contains(t) && !self.ix.globals.contains_key(t) {
                    m.debug_names.push(n.clone());
                }
            }
        }
        m.debug_names.append(&mut self.out.names);
        let physical = !self.desc.enabled
            || self.out.globals.iter().any(|g| {
                g.class.opcode == Op::TypePointer
                    && g.operands[0] == Operand::StorageClass(StorageClass::PhysicalStorageBuffer)
            });
        let mut caps: Vec<Capability> = vec![Capability::Shader];
        if physical {
            caps.push(Capability::PhysicalStorageBufferAddresses);
        }
        if self.desc.variable_pointers {
            caps.push(Capability::VariablePointersStorageBuffer);
        }
        for g in &self.out.globals {
            let lit = |k: usize| g.operands.get(k).map(|o| o.unwrap_literal_bit32());
            match g.class.opcode {
                Op::TypeInt => match lit(0) {
                    Some(8) => caps.push(Capability::Int8),
                    Some(16) => caps.push(Capability::Int16),
                    Some(64) => caps.push(Capability::Int64),
                    _ => {}
                },
                Op::TypeFloat => match lit(0) {
                    Some(16) => caps.push(Capability::Float16),
                    Some(64) => caps.push(Capability::Float64),
                    _ => {}
                },
                Op::TypePointer
                    if g.operands[0]
                        == Operand::StorageClass(StorageClass::PhysicalStorageBuffer)
                        || g.operands[0] == Operand::StorageClass(StorageClass::StorageBuffer) =>
                {
                    match self.out.scalar_width(g.operands[1].unwrap_id_ref()) {
                        Some(8) => caps.push(Capability::StorageBuffer8BitAccess),
                        Some(16) => caps.push(Capability::StorageBuffer16BitAccess),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        if atomics.uses_int64 {
            caps.push(Capability::Int64Atomics);
        }
        caps.extend(&atomics.float_caps);
        caps.extend(&self.subgroups.caps);
        caps.extend(&self.extras.caps);
        caps.extend(&bindings.caps);
        // Float controls (SPIR-V 1.4 core): the execution modes below, for
        // 32-bit floats and for 16/64 where the module has those types.
        let float_modes: Vec<(ExecutionMode, u32)> = [16, 32, 64]
            .into_iter()
            .filter(|&w| match w {
                16 => caps.contains(&Capability::Float16),
                64 => caps.contains(&Capability::Float64),
                _ => true,
            })
            .flat_map(|w| {
                let denorm =
                    self.caps.preserve_denorms.contains(w) || (w == 32 && self.caps.denorms32);
                let inf_nan = self.caps.preserve_inf_nan.contains(w);
                [
                    denorm.then_some((ExecutionMode::DenormPreserve, w)),
                    inf_nan.then_some((ExecutionMode::SignedZeroInfNanPreserve, w)),
                ]
            })
            .flatten()
            .collect();
        for (mode, _) in &float_modes {
            caps.push(match mode {
                ExecutionMode::DenormPreserve => Capability::DenormPreserve,
                _ => Capability::SignedZeroInfNanPreserve,
            });
        }
        caps.sort_by_key(|c| *c as u32);
        caps.dedup();
        m.capabilities = caps
            .iter()
            .map(|&c| Instruction::new(Op::Capability, None, None, vec![Operand::Capability(c)]))
            .collect();
        m.extensions = self
            .extras
            .extensions
            .iter()
            .map(|e| {
                Instruction::new(
                    Op::Extension,
                    None,
                    None,
                    vec![Operand::LiteralString(e.to_string())],
                )
            })
            .collect();
        // Native float atomics (`atomic::float`).
        for (ext, on) in [
            (
                "SPV_EXT_shader_atomic_float_add",
                caps.contains(&Capability::AtomicFloat32AddEXT)
                    || caps.contains(&Capability::AtomicFloat64AddEXT),
            ),
            (
                "SPV_EXT_shader_atomic_float_min_max",
                caps.contains(&Capability::AtomicFloat32MinMaxEXT)
                    || caps.contains(&Capability::AtomicFloat64MinMaxEXT),
            ),
        ] {
            if on {
                m.extensions.push(Instruction::new(
                    Op::Extension,
                    None,
                    None,
                    vec![Operand::LiteralString(ext.into())],
                ));
            }
        }
        if let Some(g) = self.out.glsl_import() {
            m.ext_inst_imports.push(Instruction::new(
                Op::ExtInstImport,
                None,
                Some(g),
                vec![Operand::LiteralString("GLSL.std.450".into())],
            ));
        }
        m.memory_model = Some(Instruction::new(
            Op::MemoryModel,
            None,
            None,
            vec![
                Operand::AddressingModel(if physical {
                    spirv::AddressingModel::PhysicalStorageBuffer64
                } else {
                    spirv::AddressingModel::Logical
                }),
                Operand::MemoryModel(spirv::MemoryModel::GLSL450),
            ],
        ));
        let mut ep = vec![
            Operand::ExecutionModel(spirv::ExecutionModel::GLCompute),
            Operand::IdRef(main),
            Operand::LiteralString(name.to_string()),
        ];
        ep.extend(interface.iter().map(|&i| Operand::IdRef(i)));
        m.entry_points
            .push(Instruction::new(Op::EntryPoint, None, None, ep));
        let ls = match self.work.reqd_size {
            Some(r) if self.work.flatten => [r[0] * r[1] * r[2], 1, 1],
            Some(r) => r,
            None => [1, 1, 1],
        };
        m.execution_modes.push(Instruction::new(
            Op::ExecutionMode,
            None,
            None,
            vec![
                Operand::IdRef(main),
                Operand::ExecutionMode(ExecutionMode::LocalSize),
                Operand::LiteralBit32(ls[0]),
                Operand::LiteralBit32(ls[1]),
                Operand::LiteralBit32(ls[2]),
            ],
        ));
        for (mode, width) in float_modes {
            m.execution_modes.push(Instruction::new(
                Op::ExecutionMode,
                None,
                None,
                vec![
                    Operand::IdRef(main),
                    Operand::ExecutionMode(mode),
                    Operand::LiteralBit32(width),
                ],
            ));
        }
        self.decorate_exact_arithmetic(&functions);
        m.annotations = std::mem::take(&mut self.out.annotations);
        m.types_global_values = std::mem::take(&mut self.out.globals);
        m.functions = functions;
        let mut header = dr::ModuleHeader::new(self.out.bound);
        header.set_version(1, 5);
        m.header = Some(header);
        if atomics.ordered && self.caps.vulkan_memory_model {
            vmm::apply(&mut m, true);
        }
        Ok(m)
    }

    /// Decorates NoContraction every double-precision add, subtract,
    /// multiply, divide, remainder and negation of `functions`, and the
    /// single-precision ones of the math library's functions (those named
    /// `ferrocl.*` or `*__ferrocl_*`: libclc's and ferrocl's own,
    /// `frontend::libclc`). OpenCL rounds each operation as written (OpenCL
    /// C §7.4: they are correctly rounded), but Vulkan compilers may
    /// otherwise rewrite undecorated arithmetic: Mesa's NIR applies its
    /// inexact-only algebraic rules (reassociation, `a + b - a` → `b`),
    /// NVIDIA's fuses multiplies and adds, either of which destroys the
    /// exact error terms of the compensated sums and split products that
    /// libclc's math is made of. The program's own single- and
    /// half-precision adds, subtracts, multiplies and negations are
    /// decorated too: OpenCL C contracts only within an expression under
    /// `FP_CONTRACT ON`, which clang writes as `llvm.fmuladd` and
    /// llvm-spirv-15 as OpenCL.std `mad` (lowered to a multiply and an add
    /// left undecorated, `Extras::contractable`); a plain multiply and add
    /// must stay two roundings (CTS contractions: NVIDIA fused
    /// `a * b + c` written under `FP_CONTRACT OFF`).
    fn decorate_exact_arithmetic(&mut self, functions: &[dr::Function]) {
        let mut doubles: HashSet<Word> = HashSet::new();
        let mut floats: HashSet<Word> = HashSet::new();
        for g in &self.out.globals {
            let Some(id) = g.result_id else { continue };
            match g.class.opcode {
                Op::TypeFloat => match g.operands.first() {
                    Some(&Operand::LiteralBit32(64)) => {
                        doubles.insert(id);
                    }
                    Some(&Operand::LiteralBit32(32 | 16)) => {
                        floats.insert(id);
                    }
                    _ => {}
                },
                Op::TypeVector => {
                    let e = g.operands.first().and_then(|o| o.id_ref_any());
                    if e.is_some_and(|e| doubles.contains(&e)) {
                        doubles.insert(id);
                    } else if e.is_some_and(|e| floats.contains(&e)) {
                        floats.insert(id);
                    }
                }
                _ => {}
            }
        }
        if doubles.is_empty() && floats.is_empty() {
            return;
        }
        let mut value_ty: HashMap<Word, Word> = HashMap::new();
        for inst in functions.iter().flat_map(|f| f.all_inst_iter()) {
            if let (Some(id), Some(t)) = (inst.result_id, inst.result_type) {
                value_ty.insert(id, t);
            }
        }
        let is_double = |id: Word| value_ty.get(&id).is_some_and(|t| doubles.contains(t));
        let mut exact: Vec<Word> = Vec::new();
        for f in functions {
            let library = f.def_id().is_some_and(|id| {
                let name = self.ix.name_of(id);
                name.starts_with("ferrocl.") || name.contains("__ferrocl_")
            });
            for inst in f.all_inst_iter() {
                let arithmetic = matches!(
                    inst.class.opcode,
                    Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod | Op::FNegate
                );
                // Conversions from a double too: NIR otherwise turns
                // (double)(long)x into trunc(x), which lavapipe gets wrong.
                let conversion = matches!(
                    inst.class.opcode,
                    Op::ConvertFToS | Op::ConvertFToU | Op::FConvert
                ) && inst
                    .operands
                    .first()
                    .and_then(|o| o.id_ref_any())
                    .is_some_and(is_double);
                let to_double = matches!(
                    inst.class.opcode,
                    Op::ConvertSToF | Op::ConvertUToF | Op::FConvert
                );
                let result_double = inst.result_type.is_some_and(|t| doubles.contains(&t));
                let result_float = inst.result_type.is_some_and(|t| floats.contains(&t));
                // The program's own single- and half-precision multiplies
                // and adds: only `mad`'s may be contracted.
                let program_float = result_float
                    && matches!(
                        inst.class.opcode,
                        Op::FAdd | Op::FSub | Op::FMul | Op::FNegate
                    )
                    && !inst
                        .result_id
                        .is_some_and(|id| self.extras.contractable.contains(&id));
                if (arithmetic || to_double) && result_double
                    || conversion
                    || library && arithmetic && result_float
                    || program_float
                {
                    exact.extend(inst.result_id);
                }
            }
        }
        for id in exact {
            self.out
                .decorate(id, vec![Operand::Decoration(Decoration::NoContraction)]);
        }
    }
}
