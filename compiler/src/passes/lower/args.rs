//! The Vulkan entry point: kernel arguments from push constants (or from
//! the argument buffer), `__local` pointer arguments (their offsets are
//! implicit fields, the Workgroup array's length a specialization
//! constant: `abi`, "`__local` memory"), and the module's memory arrays
//! and push-constant block.
//!
//! Argument block layout: arguments in order, each at the next multiple of
//! its OpenCL C alignment (pointers 8 bytes, vec3 like vec4, structs with C
//! layout); the implicit fields follow, one u32 each, in order of first use.
//! When `align4(args) + 4 × implicit > max_push_constant_size`, the
//! push constants hold the argument buffer's u64 address at offset 0 and
//! the implicit fields from offset 8, and arguments are read from the
//! buffer. All reads are u32 words, assembled into the argument's type.
//! A kernel whose image and sampler fields would take more than half the
//! push-constant budget (many image/sampler arguments: OpenCL promises 128
//! read images, 64 written ones and 16 samplers) keeps those fields in the
//! argument buffer after the arguments (`ArgBuffer::implicit`), read with
//! the buffer's address; the buffer is then used whatever the arguments'
//! size.
//!
//! Gaps: kernel arguments that are private pointers (other than structs
//! passed by value), pointers to other storage classes and arguments of
//! other types are reported; so is a kernel whose implicit fields outgrow
//! the device's push constants.

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{Decoration, FunctionControl, MemoryAccess, Op, StorageClass, Word};

use super::context::{rep_width, Lower, Res};
use super::emit::{ids, Block};
use super::image::Images;
use crate::abi::{
    local_args_base, AccessQualifier, ArgBuffer, ArgDescriptor, ArgKind, DescriptorKind,
    ImplicitField, LOCAL_ARGS_SPEC_ID, LOCAL_ARG_MIN_ALIGN,
};
use crate::analyses::address_space::Space;
use crate::analyses::type_table::Ty;

/// Where one kernel argument went.
#[derive(Clone, Debug)]
pub struct ArgLayout {
    pub kind: ArgKind,
    pub offset: u32,
    pub size: u32,
    /// Storage class of a pointer argument (reflection fallback).
    pub storage_class: Option<StorageClass>,
    /// The type as the SPIR-V says (reflection fallback), e.g. `float*`.
    pub type_name: String,
    /// OpName of the parameter (reflection fallback).
    pub name: String,
    /// Access qualifier of an image (reflection fallback).
    pub access: AccessQualifier,
    /// Descriptor addressing: the binding of a buffer or POD argument.
    pub descriptor: Option<ArgDescriptor>,
}

pub struct ArgInfo {
    pub args: Vec<ArgLayout>,
    pub push_constant_size: u32,
    pub arg_buffer: Option<ArgBuffer>,
    pub implicit: Vec<(ImplicitField, u32)>,
}

/// Where argument words come from.
enum WordSource {
    PushConstants,
    /// A u64 address (value id) of the argument buffer.
    Buffer(Word),
    /// Descriptor addressing: a POD buffer variable (uniform or storage).
    Pod(Word, bool),
}

impl Lower<'_> {
    fn arg_word(&mut self, b: &mut Block, src: &WordSource, k: u32) -> Word {
        match *src {
            WordSource::PushConstants => {
                let c = self.out.c_u32(k);
                self.pc_word(b, c)
            }
            WordSource::Buffer(addr) => {
                let off = self.out.c_u64(k as u64 * 4);
                self.buffer_word(b, addr, off)
            }
            WordSource::Pod(var, ubo) => self.pod_word(b, var, ubo, k),
        }
    }

    /// Reads a value of input type `ty` at byte `off` of the argument block.
    fn read_arg(&mut self, b: &mut Block, src: &WordSource, ty: Word, off: u32) -> Res<Word> {
        let nt = self.lower_ty(ty)?;
        let u32t = self.out.t_u32();
        match self.tys.get(ty).clone() {
            Ty::Int(w) | Ty::Float(w) => {
                let x = match w {
                    32 => self.arg_word(b, src, off / 4),
                    64 => {
                        let lo = self.arg_word(b, src, off / 4);
                        let hi = self.arg_word(b, src, off / 4 + 1);
                        return Ok(self.words_to(b, &[lo, hi], nt));
                    }
                    _ => {
                        let word = self.arg_word(b, src, off / 4);
                        let sh = self.out.c_u32((off % 4) * 8);
                        let x = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[word, sh]));
                        let it = self.out.t_int(w);
                        self.emit(b, Op::UConvert, it, ids(&[x]))
                    }
                };
                let is_int = self.out.int_width(nt).is_some();
                Ok(if is_int && (w == 32 || nt == self.out.t_int(w)) {
                    x
                } else {
                    self.emit(b, Op::Bitcast, nt, ids(&[x]))
                })
            }
            Ty::Bool => {
                let u8t = self.out.t_int(8);
                let word = self.arg_word(b, src, off / 4);
                let sh = self.out.c_u32((off % 4) * 8);
                let x = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[word, sh]));
                let x = self.emit(b, Op::UConvert, u8t, ids(&[x]));
                let z = self.out.c_int(8, 0);
                Ok(self.emit(b, Op::INotEqual, nt, ids(&[x, z])))
            }
            Ty::Vector(e, n) if n > 4 => {
                let v4 = self.synth_vec4(e);
                let ps = 4 * self.tys.size_of(e) as u32;
                let mut parts = Vec::new();
                for i in 0..n.div_ceil(4) {
                    parts.push(self.read_arg(b, src, v4, off + i * ps)?);
                }
                Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
            }
            t @ (Ty::Vector(..) | Ty::Array(..)) => {
                let (e, n, _) = t.elements().unwrap_or((0, 0, false));
                let es = self.tys.size_of(e) as u32;
                let mut parts = Vec::new();
                for i in 0..n as u32 {
                    parts.push(self.read_arg(b, src, e, off + i * es)?);
                }
                Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
            }
            Ty::Struct(members, _) => {
                let (offs, _) = self.tys.struct_layout(ty);
                let mut parts = Vec::new();
                for (m, o) in members.iter().zip(offs) {
                    parts.push(self.read_arg(b, src, *m, off + o as u32)?);
                }
                Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
            }
            Ty::Pointer(sc, _) => {
                let u64t = self.out.t_u64();
                let lo = self.arg_word(b, src, off / 4);
                let hi = self.arg_word(b, src, off / 4 + 1);
                let v = self.words_to(b, &[lo, hi], u64t);
                Ok(if rep_width(sc) == 64 {
                    v
                } else {
                    self.emit(b, Op::UConvert, nt, ids(&[v]))
                })
            }
            _ => Err(format!(
                "kernel argument of type {} is not supported",
                self.tys.c_name(ty)
            )),
        }
    }

    /// Binding of argument `i` (its position, or, with clustered POD
    /// arguments, per `descriptor`).
    fn arg_binding(&self, i: usize) -> u32 {
        if self.desc.enabled {
            self.desc
                .arg_binding
                .get(i)
                .copied()
                .flatten()
                .unwrap_or(i as u32)
        } else {
            i as u32
        }
    }

    /// The descriptor set of the kernel's arguments.
    fn desc_set(&self, images: &Images) -> u32 {
        let map = !self.caps.descriptor.sampler_map.is_empty();
        if images.has_literal() || map {
            1
        } else {
            0
        }
    }

    fn spec_op(&mut self, op: Op, a: Word, c: Word) -> Word {
        let u32t = self.out.t_u32();
        let id = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::SpecConstantOp,
            Some(u32t),
            Some(id),
            vec![
                Operand::LiteralSpecConstantOpInteger(op),
                Operand::IdRef(a),
                Operand::IdRef(c),
            ],
        ));
        id
    }

    /// Builds the parameterless entry function `main` that reads every
    /// argument and calls the kernel's function `entry_fn`.
    /// Whether the kernel's image and sampler arguments have so many
    /// implicit fields (up to two words per image, one per sampler) that
    /// they would crowd the push constants: more than half the budget. Such
    /// a kernel keeps them in the argument buffer (`spilled_field`).
    pub(crate) fn meta_crowds_push_constants(&self) -> bool {
        4 * self.meta_words() > self.caps.max_push_constant_size / 2
    }

    /// The most implicit words the image and sampler arguments can have.
    fn meta_words(&self) -> u32 {
        self.pc.meta_words
    }

    /// An image/sampler implicit field (or, physical addressing only, a
    /// `__local` argument's offset) kept in the argument buffer: a u32
    /// loaded from the buffer's address (push-constant words 0 and 1) plus
    /// the field's offset, a constant `build_entry` defines. With
    /// descriptor addressing the fields have a POD buffer of their own
    /// (`Desc::spill_binding`), word k holding the k-th field used.
    pub(crate) fn spilled_field(&mut self, b: &mut Block, f: ImplicitField) -> Word {
        if self.desc.enabled {
            let k = match self.pc.spilled.iter().position(|(g, _)| *g == f) {
                Some(k) => k,
                None => {
                    self.pc.spilled.push((f, 0));
                    self.pc.spilled.len() - 1
                }
            };
            let bytes = 4 * self.meta_words();
            let (var, ubo) = self.pod_var(self.desc.spill_binding, bytes);
            return self.pod_word(b, var, ubo, k as u32);
        }
        let off = match self.pc.spilled.iter().find(|(g, _)| *g == f) {
            Some((_, c)) => *c,
            None => {
                let c = self.out.id();
                self.pc.spilled.push((f, c));
                c
            }
        };
        let base = self.arg_buffer_address(b);
        self.buffer_word(b, base, off)
    }

    /// The argument buffer's u64 device address (push-constant words 0, 1).
    fn arg_buffer_address(&mut self, b: &mut Block) -> Word {
        let lo = self.out.c_u32(0);
        let hi = self.out.c_u32(1);
        let lo = self.pc_word(b, lo);
        let hi = self.pc_word(b, hi);
        let u64t = self.out.t_u64();
        self.words_to(b, &[lo, hi], u64t)
    }

    /// The u32 at device address `addr` + `off` (both u64 ids).
    fn buffer_word(&mut self, b: &mut Block, addr: Word, off: Word) -> Word {
        let u64t = self.out.t_u64();
        let u32t = self.out.t_u32();
        let a = self.emit(b, Op::IAdd, u64t, ids(&[addr, off]));
        let pt = self.out.t_ptr(StorageClass::PhysicalStorageBuffer, u32t);
        let p = self.emit(b, Op::ConvertUToPtr, pt, ids(&[a]));
        self.emit(
            b,
            Op::Load,
            u32t,
            vec![
                Operand::IdRef(p),
                Operand::MemoryAccess(MemoryAccess::ALIGNED),
                Operand::LiteralBit32(4),
            ],
        )
    }

    /// `images`: the kernel's image and sampler arguments; `locks`: the
    /// lock table of 64-bit `__local` atomics, if any (`local64`).
    pub(crate) fn build_entry(
        &mut self,
        main: Word,
        entry_fn: Word,
        functions: &mut Vec<dr::Function>,
        images: &Images,
        locks: Option<u32>,
    ) -> Res<ArgInfo> {
        let f = self.ix.funcs[&entry_fn];
        let params: Vec<(Word, Word)> = f
            .parameters
            .iter()
            .map(|p| (p.result_id.unwrap_or(0), p.result_type.unwrap_or(0)))
            .collect();
        // Layout.
        let mut layouts = Vec::new();
        let mut cur: u64 = 0;
        // Descriptor addressing: bytes of the clustered POD arguments.
        let mut pod_cur: u64 = 0;
        for (i, &(pid, pty)) in params.iter().enumerate() {
            let name = self.ix.name_of(pid);
            let name = if name.starts_with('%') {
                String::new()
            } else {
                name
            };
            let mut type_name = self.tys.c_name(pty);
            let mut access = AccessQualifier::None;
            let (kind, size, align, sc) = match self.tys.get(pty).clone() {
                // Images and samplers: descriptors, no argument-block bytes.
                Ty::Opaque(Op::TypeImage) if images.args.contains_key(&(i as u32)) => {
                    let a = &images.args[&(i as u32)];
                    type_name = super::image::image_type_name(a.dim, a.depth).into();
                    access = a.access;
                    let kind = ArgKind::Image {
                        dim: a.dim,
                        descriptor: a.descriptor(),
                        binding: self.arg_binding(i),
                        buffer_binding: a
                            .from_buffer
                            .then_some(crate::abi::IMAGE_BUFFER_BINDING_BASE + i as u32),
                        level_binding: a.mip_writes.then_some(
                            crate::abi::IMAGE_LEVEL_BINDING_BASE
                                + i as u32 * crate::abi::MIP_WRITE_LEVELS,
                        ),
                    };
                    (kind, 0, 1, Some(StorageClass::CrossWorkgroup))
                }
                Ty::Opaque(Op::TypeSampler) if self.caps.images => {
                    type_name = "sampler_t".into();
                    (
                        ArgKind::Sampler {
                            binding: self.arg_binding(i),
                        },
                        0,
                        1,
                        None,
                    )
                }
                Ty::Pointer(StorageClass::Workgroup, pointee) => (
                    ArgKind::LocalPointer {
                        align: (self.tys.align_of(pointee) as u32).max(LOCAL_ARG_MIN_ALIGN),
                    },
                    0,
                    1,
                    Some(StorageClass::Workgroup),
                ),
                Ty::Pointer(
                    sc @ (StorageClass::CrossWorkgroup | StorageClass::UniformConstant),
                    _,
                ) => (ArgKind::Buffer, 8, 8, Some(sc)),
                Ty::Pointer(StorageClass::Function, pointee) => {
                    if !self.ix.has_decoration(pid, Decoration::FuncParamAttr) {
                        return Err("kernel argument that is a private pointer".into());
                    }
                    (
                        ArgKind::Pod,
                        self.tys.size_of(pointee),
                        self.tys.align_of(pointee),
                        None,
                    )
                }
                Ty::Pointer(sc, _) => {
                    return Err(format!(
                        "kernel argument pointer to {sc:?} is not supported"
                    ))
                }
                _ => {
                    self.lower_ty(pty)?;
                    (
                        ArgKind::Pod,
                        self.tys.size_of(pty),
                        self.tys.align_of(pty),
                        None,
                    )
                }
            };
            let mut descriptor = None;
            let offset = if self.desc.enabled {
                // Descriptor addressing: nothing in the argument block.
                let set = self.desc_set(images);
                match kind {
                    ArgKind::Buffer => {
                        descriptor = Some(ArgDescriptor {
                            set,
                            binding: self.arg_binding(i),
                            offset: 0,
                            kind: DescriptorKind::Buffer,
                        });
                        0
                    }
                    ArgKind::Pod => {
                        let (binding, off) = match self.desc.pod_cluster_binding {
                            Some(c) => {
                                let off = pod_cur.next_multiple_of(align);
                                pod_cur = off + size;
                                (c, off)
                            }
                            None => (self.arg_binding(i), 0),
                        };
                        descriptor = Some(ArgDescriptor {
                            set,
                            binding,
                            offset: off as u32,
                            kind: if self.caps.descriptor.pod_ubo {
                                DescriptorKind::PodUbo
                            } else {
                                DescriptorKind::Pod
                            },
                        });
                        off
                    }
                    _ => 0,
                }
            } else if size == 0 {
                0
            } else {
                cur.next_multiple_of(align)
            };
            if size > 0 && !self.desc.enabled {
                cur = offset + size;
            }
            layouts.push(ArgLayout {
                kind,
                offset: offset as u32,
                size: size as u32,
                storage_class: sc,
                type_name: match kind {
                    ArgKind::Pod if matches!(self.tys.get(pty), Ty::Pointer(..)) => "struct".into(),
                    _ => type_name,
                },
                name,
                access,
                descriptor,
            });
        }
        let args_size = cur.next_multiple_of(4) as u32;
        // The entry reads each `__local` argument's offset (an implicit
        // field, added below).
        let n_local = layouts
            .iter()
            .filter(|l| matches!(l.kind, ArgKind::LocalPointer { .. }))
            .count() as u32;
        let n_other = self.pc.implicit.len() as u32;
        let max_pc = self.caps.max_push_constant_size;
        // Offsets of so many `__local` arguments that they would overflow
        // the push constants even with the arguments in the buffer (the
        // CTS's kernel_arg_info: up to 128 arguments, 128 bytes on
        // lavapipe) are kept in the argument buffer too, as spilled
        // fields (physical addressing only).
        let spill_locals = !self.desc.enabled && 8 + 4 * (n_other + n_local) > max_pc;
        let n_impl = n_other + if spill_locals { 0 } else { n_local };
        let use_buffer =
            (!self.pc.spilled.is_empty() || spill_locals || args_size + 4 * n_impl > max_pc)
                && !self.desc.enabled;
        let impl_base = if use_buffer { 8 } else { args_size };

        // The entry function.
        let mut b = Block::default();
        let src = if use_buffer && args_size > 0 {
            WordSource::Buffer(self.arg_buffer_address(&mut b))
        } else {
            WordSource::PushConstants
        };
        let mut call_args = Vec::new();
        for (i, (layout, &(_, pty))) in layouts.iter().zip(&params).enumerate() {
            let src = match layout.descriptor {
                Some(d) if d.kind != DescriptorKind::Buffer => {
                    let bytes = if self.desc.pod_cluster_binding.is_some() {
                        pod_cur as u32
                    } else {
                        layout.size
                    };
                    let (var, ubo) = self.pod_var(d.binding, bytes);
                    WordSource::Pod(var, ubo)
                }
                _ => match &src {
                    WordSource::PushConstants => WordSource::PushConstants,
                    WordSource::Buffer(a) => WordSource::Buffer(*a),
                    WordSource::Pod(v, u) => WordSource::Pod(*v, *u),
                },
            };
            let v = match layout.kind {
                ArgKind::Buffer if self.desc.enabled => self.desc_buffer_arg(&mut b, i),
                // Its part of the Workgroup array: where the runtime laid
                // it out for this launch (`abi::layout_local_args`).
                ArgKind::LocalPointer { .. } => {
                    self.mem.uses_local = true;
                    let f = ImplicitField::LocalArgOffset(i as u16);
                    if spill_locals {
                        self.spilled_field(&mut b, f)
                    } else {
                        self.implicit_field(&mut b, f)
                    }
                }
                ArgKind::Pod => {
                    if let Ty::Pointer(_, pointee) = self.tys.get(pty).clone() {
                        // Struct by value: a copy in the private frame.
                        let align = self.tys.align_of(pointee).max(4);
                        let off = self.mem.private_size.next_multiple_of(align);
                        self.mem.private_size = off + self.tys.size_of(pointee);
                        self.mem.uses_private = true;
                        let val = self.read_arg(&mut b, &src, pointee, layout.offset)?;
                        let addr = self.out.c_u32(off as u32);
                        self.store_value(&mut b, Space::Private, addr, pointee, val, align)?;
                        addr
                    } else {
                        self.read_arg(&mut b, &src, pty, layout.offset)?
                    }
                }
                // Not passed: uses load their descriptor variable.
                ArgKind::Image { .. } | ArgKind::Sampler { .. } => continue,
                _ => self.read_arg(&mut b, &src, pty, layout.offset)?,
            };
            call_args.push(v);
        }
        if n_local > 0 {
            // The array's length in words: the kernel's own data, then the
            // argument region, whose size is a specialization constant.
            let region = self.spec_u32(LOCAL_ARGS_SPEC_ID, LOCAL_ARG_MIN_ALIGN);
            let two = self.out.c_u32(2);
            let region_words = self.spec_op(Op::ShiftRightLogical, region, two);
            let base_words = self
                .out
                .c_u32(local_args_base(self.mem.static_local_size as u32) / 4);
            self.mem.local_end = Some(self.spec_op(Op::IAdd, base_words, region_words));
        }
        self.local64_init_locks(&mut b, locks)?;
        let void = self.out.t_void();
        let mut call = vec![Operand::IdRef(entry_fn)];
        call.extend(call_args.iter().map(|&a| Operand::IdRef(a)));
        self.emit(&mut b, Op::FunctionCall, void, call);
        b.push(Op::Return, None, None, vec![]);

        let fnty = self.out.t_fn(void, &[]);
        let mut func = dr::Function::new();
        func.def = Some(Instruction::new(
            Op::Function,
            Some(void),
            Some(main),
            vec![
                Operand::FunctionControl(FunctionControl::NONE),
                Operand::IdRef(fnty),
            ],
        ));
        func.end = Some(Instruction::new(Op::FunctionEnd, None, None, vec![]));
        let mut blk = dr::Block::new();
        blk.label = Some(Instruction::new(
            Op::Label,
            None,
            Some(self.out.id()),
            vec![],
        ));
        blk.instructions = b.insts;
        func.blocks.push(blk);
        functions.push(func);

        // Implicit fields.
        let mut implicit = Vec::new();
        let fields = self.pc.implicit.clone();
        for (k, (field, c)) in fields.iter().enumerate() {
            let off = impl_base + 4 * k as u32;
            let u32t = self.out.t_u32();
            self.out.globals.push(Instruction::new(
                Op::Constant,
                Some(u32t),
                Some(*c),
                vec![Operand::LiteralBit32(off / 4)],
            ));
            implicit.push((*field, off));
        }
        // Spilled image/sampler (and `__local` offset) fields follow the
        // arguments in the buffer (descriptor addressing: alone in theirs).
        let mut spilled = Vec::new();
        let fields = self.pc.spilled.clone();
        let n_spilled = fields.len() as u32;
        if self.desc.enabled {
            spilled.extend(
                fields
                    .iter()
                    .enumerate()
                    .map(|(k, (f, _))| (*f, 4 * k as u32)),
            );
        }
        for (k, (field, c)) in fields.iter().enumerate().filter(|_| !self.desc.enabled) {
            let off = args_size + 4 * k as u32;
            let u64t = self.out.t_u64();
            self.out.globals.push(Instruction::new(
                Op::Constant,
                Some(u64t),
                Some(*c),
                vec![Operand::LiteralBit64(off as u64)],
            ));
            spilled.push((*field, off));
        }
        // Reading the arguments may have added fields (descriptor
        // addressing's NULL mask).
        let n_impl = self.pc.implicit.len() as u32;
        let push_constant_size = if self.pc.used {
            impl_base + 4 * n_impl
        } else {
            0
        };
        self.pc.size = push_constant_size;
        if (use_buffer || self.desc.enabled) && push_constant_size > max_pc {
            return Err(format!(
                "the kernel needs {push_constant_size} bytes of push constants; the device has {max_pc}"
            ));
        }
        Ok(ArgInfo {
            args: layouts,
            push_constant_size,
            arg_buffer: if self.desc.enabled {
                (n_spilled > 0).then(|| ArgBuffer {
                    address_offset: 0,
                    size: 4 * self.meta_words(),
                    implicit: spilled,
                    descriptor: Some(ArgDescriptor {
                        set: self.desc_set(images),
                        binding: self.desc.spill_binding,
                        offset: 0,
                        kind: if self.caps.descriptor.pod_ubo {
                            DescriptorKind::PodUbo
                        } else {
                            DescriptorKind::Pod
                        },
                    }),
                })
            } else {
                (use_buffer && args_size + n_spilled > 0).then_some(ArgBuffer {
                    address_offset: 0,
                    size: args_size + 4 * n_spilled,
                    implicit: spilled,
                    descriptor: None,
                })
            },
            implicit,
        })
    }

    /// Defines the push-constant block and memory arrays that the lowered
    /// code uses, and the WorkgroupSize constant; returns the entry
    /// point's interface.
    /// `fence_word`: the Workgroup word of `atomic`'s fences, if any.
    pub(crate) fn finish_globals(&mut self, fence_word: Option<Word>) -> Vec<Word> {
        let mut interface: Vec<Word> = self.work.vk_inputs.values().copied().collect();
        interface.sort();
        self.wg_size_composite();
        let u32t = self.out.t_u32();
        if self.pc.used {
            let bytes = self.pc.size;
            let n = self.out.c_u32(bytes.div_ceil(4).max(1));
            let arr = self.out.id();
            self.out.globals.push(Instruction::new(
                Op::TypeArray,
                None,
                Some(arr),
                ids(&[u32t, n]),
            ));
            self.out.decorate(
                arr,
                vec![
                    Operand::Decoration(Decoration::ArrayStride),
                    Operand::LiteralBit32(4),
                ],
            );
            let st = self.out.block_struct(arr);
            let pt = self.out.t_ptr(StorageClass::PushConstant, st);
            self.out.globals.push(Instruction::new(
                Op::Variable,
                Some(pt),
                Some(self.pc.var),
                vec![Operand::StorageClass(StorageClass::PushConstant)],
            ));
            interface.push(self.pc.var);
        }
        if self.mem.uses_local {
            let len = match self.mem.local_end {
                None => self
                    .out
                    .c_u32((self.mem.static_local_size.div_ceil(4)).max(1) as u32),
                Some(words) => words,
            };
            let var = self.mem.local_var;
            self.word_array_var(StorageClass::Workgroup, len, var);
            interface.push(var);
        }
        if let Some(var) = fence_word {
            let pt = self.out.t_ptr(StorageClass::Workgroup, u32t);
            self.out.globals.push(Instruction::new(
                Op::Variable,
                Some(pt),
                Some(var),
                vec![Operand::StorageClass(StorageClass::Workgroup)],
            ));
            interface.push(var);
        }
        interface.extend(&self.mem.own_globals);
        if self.mem.uses_private {
            let n = self
                .out
                .c_u32((self.mem.private_size.div_ceil(4)).max(1) as u32);
            let var = self.mem.private_var;
            self.word_array_var(StorageClass::Private, n, var);
            interface.push(var);
        }
        if self.mem.uses_const {
            let words: Vec<u32> = self
                .mem
                .const_data
                .chunks(4)
                .map(|c| {
                    let mut w = [0u8; 4];
                    w[..c.len()].copy_from_slice(c);
                    u32::from_le_bytes(w)
                })
                .collect();
            let words = if words.is_empty() { vec![0] } else { words };
            let n = self.out.c_u32(words.len() as u32);
            let arr = self.out.t_array(u32t, n);
            let parts: Vec<Word> = words.iter().map(|&w| self.out.c_u32(w)).collect();
            let init = self.out.c_composite(arr, &parts);
            let pt = self.out.t_ptr(StorageClass::Private, arr);
            self.out.globals.push(Instruction::new(
                Op::Variable,
                Some(pt),
                Some(self.mem.const_var),
                vec![
                    Operand::StorageClass(StorageClass::Private),
                    Operand::IdRef(init),
                ],
            ));
            interface.push(self.mem.const_var);
        }
        interface
    }

    /// Declares `var` as a `sc` array of `len` (a constant or spec-constant
    /// id) 32-bit words, with an array type of its own.
    fn word_array_var(&mut self, sc: StorageClass, len: Word, var: Word) {
        let u32t = self.out.t_u32();
        let arr = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::TypeArray,
            None,
            Some(arr),
            ids(&[u32t, len]),
        ));
        let pt = self.out.t_ptr(sc, arr);
        self.out.globals.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(var),
            vec![Operand::StorageClass(sc)],
        ));
    }
}
