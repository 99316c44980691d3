//! Before any function is lowered (`scan_images`): the kernel's image and
//! sampler arguments, and how each image is used — its texel kind (float,
//! signed or unsigned int, from the read/write builtins) and whether it is
//! read, written or both — which decide its Vulkan type (`super` module
//! docs). Also resolves image and sampler values to their argument or
//! literal sampler (`image_arg`, `sampler_src`, from
//! `analyses::image_origins`).
//!
//! Depth images (`image2d_depth_t`, `image2d_array_depth_t`; where
//! `DeviceCaps::depth_images`) are ordinary 2D images whose texel is a
//! scalar float in the kernel.
//!
//! Gaps: multi-sample images, sampled-image kernel arguments, images of
//! other dimensions and texels that are neither 4-component vectors nor a
//! depth image's float are reported.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Dim, ImageOperands, Op, Word};

use super::{image_operands, image_type_name, ImageArg, LowerImages, SamplerSrc, TexelUse};
use crate::abi::{sampler_bits, AccessQualifier, ImageDim};
use crate::analyses::image_origins::Origin;
use crate::analyses::type_table::Ty;
use crate::passes::lower::context::{Lower, Res};

impl Lower<'_> {
    /// Whether `inst` is an image/sampler instruction for `lower_image_inst`.
    pub(crate) fn is_image_inst(&self, inst: &Instruction) -> bool {
        let id_ty = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .map_or(0, |v| self.ty_of(v))
        };
        match inst.class.opcode {
            Op::SampledImage
            | Op::ImageSampleExplicitLod
            | Op::ImageRead
            | Op::ImageWrite
            | Op::ImageQuerySizeLod
            | Op::ImageQuerySize
            | Op::ImageQueryOrder
            | Op::ImageQueryFormat
            | Op::ImageQueryLevels => true,
            Op::Load | Op::CopyObject | Op::Phi | Op::Select | Op::Undef => {
                self.is_opaque(inst.result_type.unwrap_or(0))
            }
            Op::Store => self.is_opaque(id_ty(1)),
            Op::Variable => matches!(
                self.tys.get(inst.result_type.unwrap_or(0)),
                Ty::Pointer(_, p) if self.is_opaque(*p)
            ),
            _ => false,
        }
    }
}

impl LowerImages<'_, '_> {
    /// (dimension, access, depth) of an OpTypeImage of the input.
    fn image_type(&self, ty: Word) -> Res<(ImageDim, AccessQualifier, bool)> {
        let g = self
            .ix
            .globals
            .get(&ty)
            .filter(|g| g.class.opcode == Op::TypeImage)
            .ok_or("an image of unknown type")?;
        let lit = |k: usize| match g.operands.get(k) {
            Some(Operand::LiteralBit32(v)) => *v,
            _ => 0,
        };
        let depth = lit(2) == 1;
        if depth && !self.caps.depth_images {
            return Err(
                "depth images (cl_khr_depth_images) are not supported by the device".into(),
            );
        }
        if lit(4) == 1 {
            return Err("multi-sample images (cl_khr_gl_msaa_sharing) are not supported".into());
        }
        let arrayed = lit(3) == 1;
        let dim = match (g.operands.get(1), arrayed) {
            (Some(Operand::Dim(Dim::Dim1D)), false) => ImageDim::D1,
            (Some(Operand::Dim(Dim::Dim1D)), true) => ImageDim::D1Array,
            (Some(Operand::Dim(Dim::DimBuffer)), false) => ImageDim::D1Buffer,
            (Some(Operand::Dim(Dim::Dim2D)), false) => ImageDim::D2,
            (Some(Operand::Dim(Dim::Dim2D)), true) => ImageDim::D2Array,
            (Some(Operand::Dim(Dim::Dim3D)), false) => ImageDim::D3,
            (d, _) => return Err(format!("images of dimension {d:?} are not supported")),
        };
        if depth && !matches!(dim, ImageDim::D2 | ImageDim::D2Array) {
            return Err(format!(
                "depth images of dimension {dim:?} are not supported"
            ));
        }
        let access = match g.operands.get(7) {
            Some(Operand::AccessQualifier(spirv::AccessQualifier::WriteOnly)) => {
                AccessQualifier::WriteOnly
            }
            Some(Operand::AccessQualifier(spirv::AccessQualifier::ReadWrite)) => {
                AccessQualifier::ReadWrite
            }
            _ => AccessQualifier::ReadOnly,
        };
        Ok((dim, access, depth))
    }

    /// The OpenCL builtin an image instruction comes from (messages).
    fn image_builtin_name(&self, inst: &Instruction) -> String {
        let suffix = |ty: Word, ext: ImageOperands| match self.tys.get(ty) {
            Ty::Vector(e, _) => match self.tys.get(*e) {
                Ty::Float(16) => "h",
                Ty::Float(_) => "f",
                _ if ext.contains(ImageOperands::ZERO_EXTEND) => "ui",
                _ => "i",
            },
            _ => "f",
        };
        let rt = inst.result_type.unwrap_or(0);
        match inst.class.opcode {
            Op::ImageSampleExplicitLod => {
                format!(
                    "read_image{} with a sampler",
                    suffix(rt, image_operands(inst, 2))
                )
            }
            Op::SampledImage => "read_image with a sampler".into(),
            Op::ImageRead => format!("read_image{}", suffix(rt, image_operands(inst, 2))),
            Op::ImageWrite => {
                let t = inst
                    .operands
                    .get(2)
                    .and_then(|o| o.id_ref_any())
                    .unwrap_or(0);
                format!(
                    "write_image{}",
                    suffix(self.ty_of(t), image_operands(inst, 3))
                )
            }
            Op::ImageQuerySizeLod | Op::ImageQuerySize => {
                "get_image_width/height/depth/array_size/dim".into()
            }
            Op::ImageQueryOrder => "get_image_channel_order".into(),
            Op::ImageQueryLevels => "get_image_num_mip_levels".into(),
            Op::ImageQueryFormat => "get_image_channel_data_type".into(),
            _ => "an image or sampler".into(),
        }
    }

    /// Finds the kernel's image and sampler arguments and how each image is
    /// used (see the module doc); reports images when the device has none.
    pub(crate) fn scan_images(&mut self, entry_fn: Word, order: &[Word]) -> Res<()> {
        let params: Vec<(Word, Word)> = self.ix.funcs[&entry_fn]
            .parameters
            .iter()
            .map(|p| (p.result_id.unwrap_or(0), p.result_type.unwrap_or(0)))
            .collect();
        let first_line = order.iter().find_map(|f| {
            self.ix.funcs[f]
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .find_map(|i| match (i.class.opcode, i.operands.get(1)) {
                    (Op::Line, Some(Operand::LiteralBit32(l))) => Some(*l),
                    _ => None,
                })
        });
        for (i, &(pid, pty)) in params.iter().enumerate() {
            let what = match self.tys.get(pty) {
                Ty::Opaque(Op::TypeImage) => {
                    let (dim, access, depth) = self.image_type(pty).inspect_err(|_| {
                        self.line = first_line;
                    })?;
                    self.images.args.insert(
                        i as u32,
                        ImageArg {
                            dim,
                            access,
                            depth,
                            from_buffer: dim == ImageDim::D2
                                && (i as u32) < crate::abi::IMAGE_FROM_BUFFER_MAX_ARGS,
                            texel: None,
                            var: None,
                            buffer_var: None,
                            mip_writes: false,
                            level_vars: Default::default(),
                        },
                    );
                    image_type_name(dim, depth)
                }
                Ty::Opaque(Op::TypeSampler) => {
                    self.images.sampler_args.insert(i as u32, None);
                    "sampler_t"
                }
                Ty::Opaque(Op::TypeSampledImage) => {
                    self.line = first_line;
                    return Err("a sampled-image kernel argument is not supported".into());
                }
                _ => continue,
            };
            self.images.params.insert(pid, i as u32);
            if !self.caps.images {
                self.line = first_line;
                return Err(format!(
                    "images are not supported by the device ({what} argument '{}')",
                    self.ix.name_of(pid)
                ));
            }
        }
        // Texel-buffer twins (`from_buffer`) only where the kernel's image
        // arguments and their twins fit the device's budget.
        if self.images.args.len() as u32 > self.caps.image2d_from_buffer_args {
            for a in self.images.args.values_mut() {
                a.from_buffer = false;
            }
        }
        for &f in order {
            let func = self.ix.funcs[&f];
            for inst in func.blocks.iter().flat_map(|b| &b.instructions) {
                if inst.class.opcode == Op::Line {
                    if let Some(Operand::LiteralBit32(l)) = inst.operands.get(1) {
                        self.line = Some(*l);
                    }
                    continue;
                }
                if !self.is_image_inst(inst) {
                    continue;
                }
                if !self.caps.images {
                    return Err(format!(
                        "images are not supported by the device ({})",
                        self.image_builtin_name(inst)
                    ));
                }
                self.scan_image_use(inst)?;
            }
        }
        self.line = None;
        Ok(())
    }

    /// Records what `inst` says about its image's texel type.
    fn scan_image_use(&mut self, inst: &Instruction) -> Res<()> {
        let id_op = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let (image, ty, ext) = match inst.class.opcode {
            Op::ImageSampleExplicitLod => {
                let si = id_op(0);
                let img = match self.ix.defs.get(&si) {
                    Some(d) if d.class.opcode == Op::SampledImage => {
                        d.operands[0].id_ref_any().unwrap_or(0)
                    }
                    _ => return Err("a sampled image that is not made by OpSampledImage".into()),
                };
                let ops = image_operands(inst, 2);
                if ops.contains(ImageOperands::GRAD)
                    || (ops.contains(ImageOperands::LOD) && !self.is_zero_constant(id_op(3)))
                {
                    self.images.mips = true;
                }
                (img, inst.result_type.unwrap_or(0), ops)
            }
            Op::ImageQueryLevels => {
                self.images.mips = true;
                return Ok(());
            }
            Op::ImageWrite
                if image_operands(inst, 3).contains(ImageOperands::LOD)
                    && self.caps.mipmap_image_write_args == 0 =>
            {
                return Err(
                    "write_image to a mip level (cl_khr_mipmap_image_writes) is not supported by \
                     the device"
                        .into(),
                )
            }
            Op::ImageRead => (
                id_op(0),
                inst.result_type.unwrap_or(0),
                image_operands(inst, 2),
            ),
            Op::ImageWrite => (id_op(0), self.ty_of(id_op(2)), image_operands(inst, 3)),
            Op::Phi | Op::Select => {
                return Err(
                    "an image or sampler chosen at run time (?: or a phi) is not supported".into(),
                )
            }
            Op::Undef => return Err("an undefined image or sampler".into()),
            _ => return Ok(()),
        };
        let used = match self.tys.get(ty) {
            // Depth images: read_imagef returns, write_imagef takes, a float.
            Ty::Float(32) => TexelUse::Float,
            Ty::Vector(e, _) => match self.tys.get(*e) {
                Ty::Float(_) => TexelUse::Float,
                _ if ext.contains(ImageOperands::SIGN_EXTEND) => TexelUse::Int,
                _ if ext.contains(ImageOperands::ZERO_EXTEND) => TexelUse::Uint,
                _ => TexelUse::AnyInt,
            },
            _ => {
                return Err(
                    "an image texel that is neither a 4-component vector nor a depth float".into(),
                )
            }
        };
        let arg = self.image_arg(image)?;
        let name = self.arg_name(arg);
        let level_write = inst.class.opcode == Op::ImageWrite
            && ext.contains(ImageOperands::LOD)
            && !self.is_zero_constant(id_op(4));
        if level_write {
            self.images.mips = true;
            if let Some(a) = self.images.args.get_mut(&arg) {
                a.mip_writes = true;
            }
            let n = self.images.args.values().filter(|a| a.mip_writes).count() as u32;
            let most = self.caps.mipmap_image_write_args;
            if n > most {
                return Err(format!(
                    "the kernel writes mip levels of {n} images; the device takes at most {most} \
                     (cl_khr_mipmap_image_writes: each level is a storage image of its own)"
                ));
            }
        }
        let a = self
            .images
            .args
            .get_mut(&arg)
            .ok_or("not an image argument")?;
        a.texel = Some(match (a.texel, used) {
            (None, u) => u,
            (Some(t), u) if t == u => t,
            (Some(TexelUse::AnyInt), u @ (TexelUse::Int | TexelUse::Uint))
            | (Some(u @ (TexelUse::Int | TexelUse::Uint)), TexelUse::AnyInt) => u,
            (Some(t), u) => {
                let kind = |t: TexelUse| match t {
                    TexelUse::Float => "float (read_imagef/h, write_imagef/h)",
                    TexelUse::Int | TexelUse::AnyInt => "int (read_imagei, write_imagei)",
                    TexelUse::Uint => "uint (read_imageui, write_imageui)",
                };
                return Err(format!(
                    "image argument '{name}' is accessed both as {} and as {}",
                    kind(t),
                    kind(u)
                ));
            }
        });
        Ok(())
    }

    pub(crate) fn arg_name(&self, arg: u32) -> String {
        self.images
            .params
            .iter()
            .find(|(_, &i)| i == arg)
            .map_or_else(|| format!("#{arg}"), |(&p, _)| self.ix.name_of(p))
    }

    /// The kernel argument an image value stands for.
    pub(crate) fn image_arg(&self, v: Word) -> Res<u32> {
        match self.facts.origins.get(&v) {
            Some(Origin::Root(r)) => match self.images.params.get(r) {
                Some(&i) if self.images.args.contains_key(&i) => Ok(i),
                _ => Err("an image that is not a kernel argument".into()),
            },
            Some(Origin::Mixed) => {
                Err("an image chosen at run time (?:, or different images through one variable) is not supported".into())
            }
            None => Err("cannot tell which kernel argument an image is".into()),
        }
    }

    /// The kernel argument or literal sampler a sampler value stands for.
    pub(crate) fn sampler_src(&self, v: Word) -> Res<SamplerSrc> {
        match self.facts.origins.get(&v) {
            Some(Origin::Root(r)) => {
                if let Some(&i) = self.images.params.get(r) {
                    if self.images.sampler_args.contains_key(&i) {
                        return Ok(SamplerSrc::Arg(i));
                    }
                }
                match self.ix.globals.get(r) {
                    Some(g) if g.class.opcode == Op::ConstantSampler => {
                        let bits = literal_sampler_bits(g);
                        let map = &self.caps.descriptor.sampler_map;
                        if self.desc.enabled && !map.is_empty() && !map.contains(&bits) {
                            return Err(format!(
                                "literal sampler {bits:#x} is not in the sampler map"
                            ));
                        }
                        Ok(SamplerSrc::Literal(bits))
                    }
                    _ => Err("a sampler that is neither a kernel argument nor a literal".into()),
                }
            }
            Some(Origin::Mixed) => {
                Err("a sampler chosen at run time (?:, or different samplers through one variable) is not supported".into())
            }
            None => Err("cannot tell which sampler is used".into()),
        }
    }
}

/// `OpConstantSampler` operands → `sampler_bits`.
fn literal_sampler_bits(inst: &Instruction) -> u32 {
    use spirv::{SamplerAddressingMode as A, SamplerFilterMode as F};
    let mut bits = 0;
    if let Some(Operand::SamplerAddressingMode(a)) = inst.operands.first() {
        bits |= match a {
            A::None => sampler_bits::ADDRESS_NONE,
            A::ClampToEdge => sampler_bits::ADDRESS_CLAMP_TO_EDGE,
            A::Clamp => sampler_bits::ADDRESS_CLAMP,
            A::Repeat => sampler_bits::ADDRESS_REPEAT,
            A::RepeatMirrored => sampler_bits::ADDRESS_MIRRORED_REPEAT,
        };
    }
    if let Some(Operand::LiteralBit32(1)) = inst.operands.get(1) {
        bits |= sampler_bits::NORMALIZED_COORDS_TRUE;
    }
    bits |= match inst.operands.get(2) {
        Some(Operand::SamplerFilterMode(F::Linear)) => sampler_bits::FILTER_LINEAR,
        _ => sampler_bits::FILTER_NEAREST,
    };
    bits
}
