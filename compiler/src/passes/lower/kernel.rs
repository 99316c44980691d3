//! One kernel's lowering, stage by stage (`KernelLowering::run`):
//!
//! 1. `scan_images` (`image`): the image and sampler arguments and how
//!    each image is used;
//! 2. `lower_constants`, `reserve_null_offsets`, `classify_globals`, `assign_frames`
//!    (`variables`): the input's constants, where each variable lives;
//! 3. `prepare_descriptors` (`descriptor`): buffer slots and bindings with
//!    descriptor addressing;
//! 4. `lower_function` (`function`) on every function the kernel reaches;
//! 5. `build_entry` (`args`): the Vulkan entry point reading the
//!    arguments;
//! 6. `finish_globals` (`args`), `finish_images` (`image`) and `assemble`:
//!    the output module.
//!
//! Stages 1–3 only decide and declare; the output module exists as a whole
//! only after stage 6, so there is nothing to dump in between.
//!
//! `KernelLowering` holds the shared context (`Lower`, which it derefs to)
//! and the state that one concern owns: images (`image::Images`), atomics
//! (`atomic::Atomics`, `local64::Local64`) and printf (`printf::Printf`).
//! Each concern gets its own view (`LowerImages`, `LowerAtomics`,
//! `LowerPrintf`): the shared context plus its state only.
//!
//! Gaps: see the stages.

use std::ops::{Deref, DerefMut};

use rspirv::dr::{self, Operand};
use rspirv::spirv::{Capability, ExecutionMode};

use super::args::ArgLayout;
use super::atomic::{Atomics, Local64, LowerAtomics};
use super::context::{Lower, Res};
use super::image::{Images, LowerImages};
use super::printf::{LowerPrintf, Printf};
use crate::abi::{Addressing, ArgBuffer, ImplicitField, PrintfCall};

/// The result of lowering one kernel.
pub struct LoweredKernel {
    pub module: dr::Module,
    pub args: Vec<ArgLayout>,
    pub push_constant_size: u32,
    pub arg_buffer: Option<ArgBuffer>,
    pub implicit: Vec<(ImplicitField, u32)>,
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// `Kernel::compile_num_sub_groups`.
    pub compile_num_sub_groups: u32,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<String>,
    pub static_local_size: u32,
    pub private_size: u32,
    pub printf: Vec<PrintfCall>,
    pub printf_strings: Vec<u8>,
    /// Descriptor set of the image/sampler arguments (`Kernel::descriptor_set`).
    pub descriptor_set: Option<u32>,
    /// `Kernel::literal_samplers`.
    pub literal_samplers: Vec<u32>,
    pub addressing: Addressing,
    /// `Kernel::global_variables_binding`.
    pub global_variables_binding: Option<u32>,
    /// `Kernel::printf_binding`.
    pub printf_binding: Option<u32>,
}

/// One kernel's lowering: the shared context and the concern-owned state
/// (module docs).
pub(super) struct KernelLowering<'a> {
    pub cx: Lower<'a>,
    pub images: Images,
    pub atomics: Atomics,
    pub local64: Local64,
    pub printf: Printf,
}

impl<'a> Deref for KernelLowering<'a> {
    type Target = Lower<'a>;
    fn deref(&self) -> &Lower<'a> {
        &self.cx
    }
}

impl<'a> DerefMut for KernelLowering<'a> {
    fn deref_mut(&mut self) -> &mut Lower<'a> {
        &mut self.cx
    }
}

impl<'a> KernelLowering<'a> {
    pub fn new(cx: Lower<'a>) -> Self {
        KernelLowering {
            cx,
            images: Images::default(),
            atomics: Atomics::default(),
            local64: Local64::default(),
            printf: Printf::default(),
        }
    }

    /// The image concern's view.
    pub fn images(&mut self) -> LowerImages<'_, 'a> {
        LowerImages {
            cx: &mut self.cx,
            images: &mut self.images,
        }
    }

    /// The atomic concern's view.
    pub fn atomics(&mut self) -> LowerAtomics<'_, 'a> {
        LowerAtomics {
            cx: &mut self.cx,
            atomics: &mut self.atomics,
            local64: &mut self.local64,
        }
    }

    /// The printf concern's view.
    pub fn printf(&mut self) -> LowerPrintf<'_, 'a> {
        LowerPrintf {
            cx: &mut self.cx,
            printf: &mut self.printf,
        }
    }

    /// Lowers the kernel whose OpEntryPoint is `entry` (module docs).
    pub fn run(&mut self, entry: usize) -> Res<LoweredKernel> {
        let ep = &self.ix.src.entry_points[entry];
        let entry_fn = self.facts.entry_fn;
        let name = ep.operands[2].unwrap_literal_string().to_string();
        let mut hint = None;
        let mut vec_hint = None;
        for em in &self.ix.src.execution_modes {
            if em.operands[0] != Operand::IdRef(entry_fn) {
                continue;
            }
            let lits: Vec<u32> = em.operands[2..]
                .iter()
                .filter_map(|o| {
                    if let Operand::LiteralBit32(v) = o {
                        Some(*v)
                    } else {
                        None
                    }
                })
                .collect();
            match em.operands[1] {
                Operand::ExecutionMode(ExecutionMode::LocalSize) if lits.len() == 3 => {
                    self.work.reqd_size = Some([lits[0], lits[1], lits[2]])
                }
                Operand::ExecutionMode(ExecutionMode::LocalSizeHint) if lits.len() == 3 => {
                    hint = Some([lits[0], lits[1], lits[2]])
                }
                Operand::ExecutionMode(ExecutionMode::VecTypeHint) if !lits.is_empty() => {
                    vec_hint = Some(vec_type_hint_name(lits[0]))
                }
                _ => {}
            }
        }
        // SubgroupSize and SubgroupsPerWorkgroup(Id) (`subgroup_dispatch`).
        let sub_groups = self.dispatch_modes(entry_fn)?.sub_groups;
        let facts = self.facts;
        let order = &facts.order;
        if self.caps.subgroups() && self.uses_subgroups(order) {
            self.work.flatten = true;
            self.use_group_cap(Capability::GroupNonUniform);
        }
        self.images().scan_images(entry_fn, order)?;
        self.lower_constants();
        self.reserve_null_offsets(order);
        self.classify_globals(order)?;
        self.split_private_frame(order);
        self.assign_frames(order)?;
        self.prepare_descriptors(order, entry_fn)?;
        // Two words per image (channel order, data type), three more for a
        // 2D image that may be made from a buffer (row pitch, width,
        // height), one per sampler; with mip reads one more per image
        // (levels) and two per sampler (lod range).
        let mips = u32::from(self.images.mips);
        self.pc.meta_words = self
            .images
            .args
            .values()
            .map(|a| if a.from_buffer { 5 } else { 2 } + mips)
            .sum::<u32>()
            + (1 + 2 * mips) * self.images.sampler_arg_count() as u32;
        self.pc.spill_meta = self.meta_crowds_push_constants();

        // Lower every reachable function.
        let mut functions = Vec::new();
        for &f in order {
            let func = self.lower_function(self.ix.funcs[&f])?;
            functions.push(func);
        }
        self.line = None;
        let main = self.out.id();
        let locks = self.local64.locks;
        let arg_info = self
            .cx
            .build_entry(main, entry_fn, &mut functions, &self.images, locks)?;
        functions.append(&mut self.local64.functions);
        functions.append(&mut self.cx.helpers.functions);
        let mut interface = self.cx.finish_globals(self.atomics.fence_word);
        let bindings = self.images().finish_images();
        interface.extend(&bindings.interface);
        let module =
            self.cx
                .assemble(main, &name, functions, &interface, &bindings, &self.atomics)?;
        Ok(LoweredKernel {
            module,
            args: arg_info.args,
            push_constant_size: arg_info.push_constant_size,
            arg_buffer: arg_info.arg_buffer,
            implicit: arg_info.implicit,
            reqd_work_group_size: self.work.reqd_size,
            compile_num_sub_groups: sub_groups.unwrap_or(0),
            work_group_size_hint: hint,
            vec_type_hint: vec_hint,
            static_local_size: self.mem.static_local_size as u32,
            private_size: (self.mem.private_size + self.mem.own_size) as u32,
            printf_strings: if self.printf.calls.is_empty() {
                Vec::new()
            } else {
                self.mem.const_data.clone()
            },
            printf: std::mem::take(&mut self.printf.calls),
            descriptor_set: bindings.descriptor_set,
            literal_samplers: bindings.literal_samplers,
            addressing: self.caps.addressing,
            global_variables_binding: self.desc.globals_binding,
            printf_binding: self.desc.printf.map(|(_, b)| b),
        })
    }
}

/// `vec_type_hint` operand of OpExecutionMode VecTypeHint → `float4`.
fn vec_type_hint_name(v: u32) -> String {
    let base = match v & 0xffff {
        0 => "char",
        1 => "short",
        2 => "int",
        3 => "long",
        4 => "half",
        5 => "float",
        6 => "double",
        _ => "int",
    };
    let n = v >> 16;
    if n <= 1 {
        base.to_string()
    } else {
        format!("{base}{n}")
    }
}
