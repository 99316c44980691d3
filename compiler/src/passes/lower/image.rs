//! Images and samplers (`crate::abi`, "Images and samplers"): kernel
//! arguments become descriptor variables, OpenCL's image instructions
//! become Vulkan ones.
//!
//! # Algorithm
//!
//! * Every image/sampler value resolves to one kernel argument or literal
//!   sampler (`analyses::image_origins`; `passes::image_args` made that static). Image and sampler
//!   parameters of functions, the `Function` variables holding them (-O0),
//!   and OpSampledImage vanish: each use loads the argument's
//!   UniformConstant variable (set `Kernel::descriptor_set`, binding = the
//!   argument's position; literal sampler `i`: set 0, binding `i`).
//! * `scan_images` runs first: an image's Vulkan type depends on how the
//!   kernel uses it — float texels for `read_imagef/h` / `write_imagef/h`,
//!   signed ints for `_i`, unsigned for `_ui` (llvm-spirv's SignExtend /
//!   ZeroExtend operands; an integer access without either, from SPIR-V
//!   before 1.4, counts as signed unless another access says unsigned).
//!   read_only images are sampled images (uniform texel buffers for
//!   `image1d_buffer_t`), write_only / read_write ones storage images
//!   (storage texel buffers) of `Unknown` format.
//! * Samplerless reads: OpImageFetch on sampled images and uniform texel
//!   buffers, OpImageRead on storage ones. Writes: OpImageWrite.
//! * Storage views have the identity component mapping and texel buffers
//!   none, so their reads and writes permute components by the image's
//!   channel order (`ImplicitField::ImageChannelOrder`, `storage_swizzle`);
//!   sampled views swizzle themselves.
//! * Queries: OpImageQuerySizeLod (Lod 0) on sampled images, OpImageQuerySize
//!   on storage images and texel buffers; channel order / data type from
//!   the implicit fields.
//! * Reads with a sampler: `sampler`.
//! * `half` texels are read and written as float and converted.
//!
//! Gaps: depth, multi-sample and mipmapped images (cl_khr_depth_images,
//! cl_khr_gl_msaa_sharing, cl_khr_mipmap_image) and an image or sampler
//! chosen at run time are reported as unsupported.

use std::collections::{BTreeMap, HashMap};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Capability, Decoration, Dim, ImageOperands, Op, StorageClass, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};
use crate::analyses::image_origins::Origin;
use crate::analyses::type_table::Ty;
use crate::{sampler_bits, AccessQualifier, ImageDescriptor, ImageDim, ImplicitField};

/// How an image argument's texels look in the shader (its Vulkan
/// sampled type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Texel {
    Float,
    Int,
    Uint,
}

/// What one access says about an image's texel type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TexelUse {
    Float,
    Int,
    Uint,
    /// Integer texels, signedness unknown (no Sign/ZeroExtend operand).
    AnyInt,
}

/// An image argument of the kernel.
pub(crate) struct ImageArg {
    pub dim: ImageDim,
    pub access: AccessQualifier,
    /// How the kernel uses the texels (`None`: only queried).
    texel: Option<TexelUse>,
    var: Option<Word>,
}

impl ImageArg {
    pub fn descriptor(&self) -> ImageDescriptor {
        match (self.access, self.dim) {
            (AccessQualifier::ReadOnly, ImageDim::D1Buffer) => ImageDescriptor::UniformTexel,
            (AccessQualifier::ReadOnly, _) => ImageDescriptor::Sampled,
            (_, ImageDim::D1Buffer) => ImageDescriptor::StorageTexel,
            _ => ImageDescriptor::Storage,
        }
    }

    pub fn texel(&self) -> Texel {
        match self.texel {
            Some(TexelUse::Float) | None => Texel::Float,
            Some(TexelUse::Uint) => Texel::Uint,
            Some(TexelUse::Int | TexelUse::AnyInt) => Texel::Int,
        }
    }

    fn is_storage(&self) -> bool {
        matches!(
            self.descriptor(),
            ImageDescriptor::Storage | ImageDescriptor::StorageTexel
        )
    }

    /// Whether the view has no component mapping (storage images, texel
    /// buffers): the shader swizzles by the channel order.
    fn swizzles(&self) -> bool {
        self.descriptor() != ImageDescriptor::Sampled
    }
}

/// Spatial coordinates of an image dimension (without the array layer).
pub(crate) fn spatial_dims(dim: ImageDim) -> u32 {
    match dim {
        ImageDim::D1 | ImageDim::D1Buffer | ImageDim::D1Array => 1,
        ImageDim::D2 | ImageDim::D2Array => 2,
        ImageDim::D3 => 3,
    }
}

/// Whether the image has an array layer coordinate.
pub(crate) fn arrayed(dim: ImageDim) -> bool {
    matches!(dim, ImageDim::D1Array | ImageDim::D2Array)
}

/// The OpenCL C type name of an image argument.
pub(crate) fn image_type_name(dim: ImageDim) -> &'static str {
    match dim {
        ImageDim::D1 => "image1d_t",
        ImageDim::D1Buffer => "image1d_buffer_t",
        ImageDim::D1Array => "image1d_array_t",
        ImageDim::D2 => "image2d_t",
        ImageDim::D2Array => "image2d_array_t",
        ImageDim::D3 => "image3d_t",
    }
}

/// Where a sampler comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SamplerSrc {
    /// Kernel argument `n`.
    Arg(u32),
    /// A literal sampler (`sampler_bits` encoding).
    Literal(u32),
}

/// The images and samplers of the kernel being lowered.
#[derive(Default)]
pub(crate) struct Images {
    /// Image/sampler parameters of the kernel's entry function → position.
    params: HashMap<Word, u32>,
    /// OpSampledImage results → (image, sampler) values.
    pub sampled: HashMap<Word, (Word, Word)>,
    pub args: BTreeMap<u32, ImageArg>,
    /// Sampler arguments (position → variable, once used).
    sampler_args: BTreeMap<u32, Option<Word>>,
    /// Literal samplers used: (bits, variable); binding = index.
    literal: Vec<(u32, Word)>,
    caps: Vec<Capability>,
}

impl Images {
    /// Number of sampler arguments of the kernel.
    pub fn sampler_arg_count(&self) -> usize {
        self.sampler_args.len()
    }

    /// Whether the kernel uses literal samplers (their set 0 moves the
    /// arguments' set to 1).
    pub fn has_literal(&self) -> bool {
        !self.literal.is_empty()
    }
}

/// Descriptor bindings of a lowered kernel (`Lower::finish_images`).
pub(crate) struct ImageBindings {
    pub descriptor_set: Option<u32>,
    pub literal_samplers: Vec<u32>,
    pub interface: Vec<Word>,
    pub caps: Vec<Capability>,
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

/// The image operands of an instruction from operand `k` on.
fn image_operands(inst: &Instruction, k: usize) -> ImageOperands {
    match inst.operands.get(k) {
        Some(Operand::ImageOperands(o)) => *o,
        _ => ImageOperands::NONE,
    }
}

/// `CL_*` channel orders (OpenCL 3.0 cl.h).
mod order {
    pub const R: u32 = 0x10B0;
    pub const A: u32 = 0x10B1;
    pub const RA: u32 = 0x10B3;
    pub const BGRA: u32 = 0x10B6;
    pub const ARGB: u32 = 0x10B7;
    pub const INTENSITY: u32 = 0x10B8;
    pub const LUMINANCE: u32 = 0x10B9;
    pub const ABGR: u32 = 0x10C3;
    /// Bit `order - R` is set for the orders whose CLK_ADDRESS_CLAMP
    /// border colour is (0,0,0,0) (OpenCL C, "Determining the border
    /// color"): CL_A, CL_RA, CL_RGBA, CL_BGRA, CL_ARGB, CL_INTENSITY,
    /// CL_Rx, CL_RGx, CL_RGBx, CL_sRGBx, CL_sRGBA, CL_sBGRA, CL_ABGR. The
    /// others (CL_R, CL_RG, CL_RGB, CL_LUMINANCE, CL_sRGB) give (0,0,0,1).
    pub const TRANSPARENT_BORDER: u32 = (1 << 1)
        | (1 << 3)
        | (1 << 5)
        | (1 << 6)
        | (1 << 7)
        | (1 << 8)
        | (1 << 0xA)
        | (1 << 0xB)
        | (1 << 0xC)
        | (1 << 0x10)
        | (1 << 0x11)
        | (1 << 0x12)
        | (1 << 0x13);
}
/// First `CL_*` channel data type (CL_SNORM_INT8).
const CL_SNORM_INT8: u32 = 0x10D0;

/// A component permutation, 2 bits per result component (component `k`
/// takes source component `(p >> 2k) & 3`).
const fn perm(a: u32, b: u32, c: u32, d: u32) -> u32 {
    a | (b << 2) | (c << 4) | (d << 6)
}
const IDENTITY: u32 = perm(0, 1, 2, 3);

/// Storage-image and texel-buffer writes: OpenCL (r,g,b,a) → the stored
/// components of the format the runtime backs each channel order with
/// (memory order = the CL order).
const WRITE_SWIZZLES: [(u32, u32); 5] = [
    (order::BGRA, perm(2, 1, 0, 3)),
    (order::ARGB, perm(3, 0, 1, 2)),
    (order::ABGR, perm(3, 2, 1, 0)),
    (order::A, perm(3, 1, 2, 3)),
    (order::RA, perm(0, 3, 2, 1)),
];
/// Storage-image and texel-buffer reads: stored components (a single-channel format reads
/// as (x,0,0,1), two channels as (x,y,0,1)) → OpenCL (r,g,b,a).
const READ_SWIZZLES: [(u32, u32); 7] = [
    (order::BGRA, perm(2, 1, 0, 3)),
    (order::ARGB, perm(1, 2, 3, 0)),
    (order::ABGR, perm(3, 2, 1, 0)),
    (order::A, perm(1, 1, 2, 0)),
    (order::INTENSITY, perm(0, 0, 0, 0)),
    (order::LUMINANCE, perm(0, 0, 0, 3)),
    (order::RA, perm(0, 2, 2, 1)),
];

impl Lower<'_> {
    pub(crate) fn is_opaque(&self, ty: Word) -> bool {
        matches!(
            self.tys.get(ty),
            Ty::Opaque(Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage)
        )
    }

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
            | Op::ImageQueryFormat => true,
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

    /// (dimension, access) of an OpTypeImage of the input.
    fn image_type(&self, ty: Word) -> Res<(ImageDim, AccessQualifier)> {
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
        if lit(2) == 1 {
            return Err("depth images (cl_khr_depth_images) are not supported".into());
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
        let access = match g.operands.get(7) {
            Some(Operand::AccessQualifier(spirv::AccessQualifier::WriteOnly)) => {
                AccessQualifier::WriteOnly
            }
            Some(Operand::AccessQualifier(spirv::AccessQualifier::ReadWrite)) => {
                AccessQualifier::ReadWrite
            }
            _ => AccessQualifier::ReadOnly,
        };
        Ok((dim, access))
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
                    let (dim, access) = self.image_type(pty).inspect_err(|_| {
                        self.line = first_line;
                    })?;
                    self.images.args.insert(
                        i as u32,
                        ImageArg {
                            dim,
                            access,
                            texel: None,
                            var: None,
                        },
                    );
                    image_type_name(dim)
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
                (img, inst.result_type.unwrap_or(0), image_operands(inst, 2))
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
            Ty::Vector(e, _) => match self.tys.get(*e) {
                Ty::Float(_) => TexelUse::Float,
                _ if ext.contains(ImageOperands::SIGN_EXTEND) => TexelUse::Int,
                _ if ext.contains(ImageOperands::ZERO_EXTEND) => TexelUse::Uint,
                _ => TexelUse::AnyInt,
            },
            _ => return Err("an image texel that is not a 4-component vector".into()),
        };
        let arg = self.image_arg(image)?;
        let name = self.arg_name(arg);
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

    fn arg_name(&self, arg: u32) -> String {
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

    fn add_cap(&mut self, c: Capability) {
        if !self.images.caps.contains(&c) {
            self.images.caps.push(c);
        }
    }

    /// The output's `int` (signed, for SINT formats) scalar type.
    fn t_i32_signed(&mut self) -> Word {
        self.out.cached(
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(1)],
        )
    }

    /// The Vulkan sampled type of an image argument's texels.
    pub(crate) fn texel_scalar(&mut self, texel: Texel) -> Word {
        match texel {
            Texel::Float => self.out.t_float(32),
            Texel::Int => self.t_i32_signed(),
            Texel::Uint => self.out.t_u32(),
        }
    }

    pub(crate) fn texel_vec4(&mut self, texel: Texel) -> Word {
        let s = self.texel_scalar(texel);
        self.out.t_vec(s, 4)
    }

    /// The Vulkan OpTypeImage of image argument `arg`.
    pub(crate) fn image_vk_type(&mut self, arg: u32) -> Word {
        let a = &self.images.args[&arg];
        let (dim, texel, storage) = (a.dim, a.texel(), a.is_storage());
        let st = self.texel_scalar(texel);
        let vk_dim = match dim {
            ImageDim::D1 | ImageDim::D1Array => Dim::Dim1D,
            ImageDim::D1Buffer => Dim::DimBuffer,
            ImageDim::D2 | ImageDim::D2Array => Dim::Dim2D,
            ImageDim::D3 => Dim::Dim3D,
        };
        match (vk_dim, storage) {
            (Dim::Dim1D, false) => self.add_cap(Capability::Sampled1D),
            (Dim::Dim1D, true) => self.add_cap(Capability::Image1D),
            (Dim::DimBuffer, false) => self.add_cap(Capability::SampledBuffer),
            (Dim::DimBuffer, true) => self.add_cap(Capability::ImageBuffer),
            _ => {}
        }
        self.out.cached(
            Op::TypeImage,
            None,
            vec![
                Operand::IdRef(st),
                Operand::Dim(vk_dim),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(arrayed(dim) as u32),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(if storage { 2 } else { 1 }),
                Operand::ImageFormat(spirv::ImageFormat::Unknown),
            ],
        )
    }

    fn uniform_constant_var(&mut self, ty: Word) -> Word {
        let pt = self.out.t_ptr(StorageClass::UniformConstant, ty);
        let var = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(var),
            vec![Operand::StorageClass(StorageClass::UniformConstant)],
        ));
        var
    }

    /// Loads image argument `arg` from its variable: (image, its type).
    pub(crate) fn load_image(&mut self, b: &mut Block, arg: u32) -> (Word, Word) {
        let ty = self.image_vk_type(arg);
        let var = match self.images.args[&arg].var {
            Some(v) => v,
            None => {
                let v = self.uniform_constant_var(ty);
                let a = self.images.args.get_mut(&arg).expect("image argument");
                a.var = Some(v);
                // read_write: writes become visible to the work-group's
                // other work-items at a barrier with CLK_IMAGE_MEM_FENCE
                // (GLSL450's model wants Coherent for that).
                let decoration = match a.access {
                    AccessQualifier::WriteOnly => Some(Decoration::NonReadable),
                    AccessQualifier::ReadWrite => Some(Decoration::Coherent),
                    _ => None,
                };
                if let Some(d) = decoration {
                    self.out.decorate(v, vec![Operand::Decoration(d)]);
                }
                v
            }
        };
        (self.emit(b, Op::Load, ty, ids(&[var])), ty)
    }

    /// Lowers an image/sampler instruction (`is_image_inst`).
    pub(crate) fn lower_image_inst(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let id_op = |k: usize| {
            inst.operands
                .get(k)
                .and_then(|o| o.id_ref_any())
                .unwrap_or(0)
        };
        let rid = inst.result_id.unwrap_or(0);
        match inst.class.opcode {
            // Resolved statically (`image_args`): nothing to emit.
            Op::Load | Op::Store | Op::CopyObject | Op::Variable => {}
            Op::Phi | Op::Select => {
                return Err(
                    "an image or sampler chosen at run time (?: or a phi) is not supported".into(),
                )
            }
            Op::Undef => {}
            Op::SampledImage => {
                self.images.sampled.insert(rid, (id_op(0), id_op(1)));
            }
            Op::ImageSampleExplicitLod => {
                let v = self.lower_sample(b, inst)?;
                self.alias.insert(rid, v);
            }
            Op::ImageRead => {
                let arg = self.image_arg(id_op(0))?;
                let coord = self.image_coord(b, arg, id_op(1))?;
                let texel = self.images.args[&arg].texel();
                let v = self.read_texel(b, arg, coord)?;
                let v = self.texel_to_cl(b, v, texel, inst.result_type.unwrap_or(0))?;
                self.alias.insert(rid, v);
            }
            Op::ImageWrite => {
                let arg = self.image_arg(id_op(0))?;
                if !self.images.args[&arg].is_storage() {
                    return Err(format!(
                        "write to read_only image argument '{}'",
                        self.arg_name(arg)
                    ));
                }
                let coord = self.image_coord(b, arg, id_op(1))?;
                let texel = self.images.args[&arg].texel();
                let v = self.texel_from_cl(b, id_op(2), texel);
                let v = self.storage_swizzle(b, arg, v, texel, &WRITE_SWIZZLES);
                let (img, _) = self.load_image(b, arg);
                self.add_cap(Capability::StorageImageWriteWithoutFormat);
                b.push(Op::ImageWrite, None, None, ids(&[img, coord, v]));
            }
            Op::ImageQuerySizeLod | Op::ImageQuerySize => {
                let arg = self.image_arg(id_op(0))?;
                let (img, _) = self.load_image(b, arg);
                let size = self.image_size(b, arg, img);
                let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let (n, e) = (self.out.vec_len(rt), self.out.elem(rt));
                let w = self.out.int_width(e).unwrap_or(32);
                let mut parts = Vec::new();
                for k in 0..n as usize {
                    let c = match size.get(k) {
                        Some(&c) => c,
                        None => self.out.c_u32(0),
                    };
                    parts.push(if w == 32 {
                        c
                    } else {
                        self.emit(b, Op::UConvert, e, ids(&[c]))
                    });
                }
                let v = if n == 1 {
                    parts[0]
                } else {
                    self.emit(b, Op::CompositeConstruct, rt, ids(&parts))
                };
                self.alias.insert(rid, v);
            }
            Op::ImageQueryOrder | Op::ImageQueryFormat => {
                // The input adds the CL_* base to the SPIR-V enumerant.
                let arg = self.image_arg(id_op(0))?;
                let (field, base) = if inst.class.opcode == Op::ImageQueryOrder {
                    (ImplicitField::ImageChannelOrder(arg as u16), order::R)
                } else {
                    (
                        ImplicitField::ImageChannelDataType(arg as u16),
                        CL_SNORM_INT8,
                    )
                };
                let x = self.implicit_field(b, field);
                let u32t = self.out.t_u32();
                let c = self.out.c_u32(base);
                let v = self.emit(b, Op::ISub, u32t, ids(&[x, c]));
                let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
                let v = if rt == u32t {
                    v
                } else {
                    self.emit(b, Op::UConvert, rt, ids(&[v]))
                };
                self.alias.insert(rid, v);
            }
            op => return Err(format!("image instruction Op{op:?} is not supported")),
        }
        Ok(())
    }

    /// The size of image `arg` (loaded as `img`): one u32 per spatial
    /// dimension, then the number of layers of an array.
    pub(crate) fn image_size(&mut self, b: &mut Block, arg: u32, img: Word) -> Vec<Word> {
        let a = &self.images.args[&arg];
        let n = spatial_dims(a.dim) + arrayed(a.dim) as u32;
        let lod = a.descriptor() == ImageDescriptor::Sampled;
        self.add_cap(Capability::ImageQuery);
        let u32t = self.out.t_u32();
        let qt = if n == 1 {
            u32t
        } else {
            self.out.t_vec(u32t, n)
        };
        let q = if lod {
            let zero = self.out.c_u32(0);
            self.emit(b, Op::ImageQuerySizeLod, qt, ids(&[img, zero]))
        } else {
            self.emit(b, Op::ImageQuerySize, qt, ids(&[img]))
        };
        if n == 1 {
            return vec![q];
        }
        (0..n)
            .map(|k| {
                self.emit(
                    b,
                    Op::CompositeExtract,
                    u32t,
                    vec![Operand::IdRef(q), Operand::LiteralBit32(k)],
                )
            })
            .collect()
    }

    /// The integer coordinate operand `coord` of an image access, cut to
    /// the components image `arg` takes.
    fn image_coord(&mut self, b: &mut Block, arg: u32, coord: Word) -> Res<Word> {
        let dim = self.images.args[&arg].dim;
        let n = spatial_dims(dim) + arrayed(dim) as u32;
        let ty = self.lower_ty(self.ty_of(coord))?;
        let v = self.v(coord);
        Ok(self.take_components(b, v, ty, n))
    }

    /// The first `n` components of `v` (of output type `ty`): a scalar
    /// for `n` = 1.
    pub(crate) fn take_components(&mut self, b: &mut Block, v: Word, ty: Word, n: u32) -> Word {
        let len = self.out.vec_len(ty);
        if len == n {
            return v;
        }
        let e = self.out.elem(ty);
        if n == 1 {
            return self.emit(
                b,
                Op::CompositeExtract,
                e,
                vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
            );
        }
        let t = self.out.t_vec(e, n);
        let mut ops = vec![Operand::IdRef(v), Operand::IdRef(v)];
        ops.extend((0..n).map(Operand::LiteralBit32));
        self.emit(b, Op::VectorShuffle, t, ops)
    }

    /// A samplerless read of image `arg` at integer coordinates `coord`:
    /// a 4-vector of its texel type, in OpenCL's component order.
    pub(crate) fn read_texel(&mut self, b: &mut Block, arg: u32, coord: Word) -> Res<Word> {
        let a = &self.images.args[&arg];
        let (desc, texel) = (a.descriptor(), a.texel());
        if a.access == AccessQualifier::WriteOnly {
            return Err(format!(
                "read from write_only image argument '{}'",
                self.arg_name(arg)
            ));
        }
        let v4 = self.texel_vec4(texel);
        let (img, _) = self.load_image(b, arg);
        Ok(match desc {
            ImageDescriptor::Sampled => {
                let zero = self.out.c_u32(0);
                self.emit(
                    b,
                    Op::ImageFetch,
                    v4,
                    vec![
                        Operand::IdRef(img),
                        Operand::IdRef(coord),
                        Operand::ImageOperands(ImageOperands::LOD),
                        Operand::IdRef(zero),
                    ],
                )
            }
            ImageDescriptor::UniformTexel => {
                let v = self.emit(b, Op::ImageFetch, v4, ids(&[img, coord]));
                self.storage_swizzle(b, arg, v, texel, &READ_SWIZZLES)
            }
            ImageDescriptor::Storage | ImageDescriptor::StorageTexel => {
                self.add_cap(Capability::StorageImageReadWithoutFormat);
                let v = self.emit(b, Op::ImageRead, v4, ids(&[img, coord]));
                self.storage_swizzle(b, arg, v, texel, &READ_SWIZZLES)
            }
        })
    }

    /// A texel of the shader's type (`texel_vec4`) → the input's result
    /// type `rt` (float4, half4, int4/uint4 as unsigned).
    pub(crate) fn texel_to_cl(
        &mut self,
        b: &mut Block,
        v: Word,
        texel: Texel,
        rt: Word,
    ) -> Res<Word> {
        let rt = self.lower_ty(rt)?;
        Ok(match texel {
            Texel::Float if self.out.scalar_width(rt) == Some(16) => {
                let v4 = self.texel_vec4(texel);
                self.narrow_to_half(b, v, v4, rt, None)
            }
            Texel::Int => self.emit(b, Op::Bitcast, rt, ids(&[v])),
            _ => v,
        })
    }

    /// The input's texel value `x` (float4, half4, int4/uint4) → the
    /// shader's texel type.
    fn texel_from_cl(&mut self, b: &mut Block, x: Word, texel: Texel) -> Word {
        let v4 = self.texel_vec4(texel);
        let half = matches!(self.tys.get(self.ty_of(x)),
            Ty::Vector(e, _) if *self.tys.get(*e) == Ty::Float(16));
        let v = self.v(x);
        match texel {
            Texel::Float if half => self.emit(b, Op::FConvert, v4, ids(&[v])),
            Texel::Int => self.emit(b, Op::Bitcast, v4, ids(&[v])),
            _ => v,
        }
    }

    /// Permutes the components of texel `v` of a storage image or texel
    /// buffer by its channel order (`swizzles`: order → permutation; others
    /// keep the identity). No code for sampled images, whose views swizzle.
    fn storage_swizzle(
        &mut self,
        b: &mut Block,
        arg: u32,
        v: Word,
        texel: Texel,
        swizzles: &[(u32, u32)],
    ) -> Word {
        if !self.images.args[&arg].swizzles() {
            return v;
        }
        let order = self.implicit_field(b, ImplicitField::ImageChannelOrder(arg as u16));
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let mut p = self.out.c_u32(IDENTITY);
        for &(o, q) in swizzles {
            let oc = self.out.c_u32(o);
            let qc = self.out.c_u32(q);
            let is = self.emit(b, Op::IEqual, bt, ids(&[order, oc]));
            p = self.emit(b, Op::Select, u32t, ids(&[is, qc, p]));
        }
        let st = self.texel_scalar(texel);
        let three = self.out.c_u32(3);
        let mut parts = Vec::new();
        for k in 0..4 {
            let idx = if k == 0 {
                p
            } else {
                let sh = self.out.c_u32(2 * k);
                self.emit(b, Op::ShiftRightLogical, u32t, ids(&[p, sh]))
            };
            let idx = self.emit(b, Op::BitwiseAnd, u32t, ids(&[idx, three]));
            parts.push(self.emit(b, Op::VectorExtractDynamic, st, ids(&[v, idx])));
        }
        let v4 = self.texel_vec4(texel);
        self.emit(b, Op::CompositeConstruct, v4, ids(&parts))
    }

    /// OpenCL's border colour for CLK_ADDRESS_CLAMP of image `arg`:
    /// (0,0,0,0) or (0,0,0,1) by its channel order
    /// (`order::TRANSPARENT_BORDER`).
    pub(crate) fn border_color(&mut self, b: &mut Block, arg: u32, texel: Texel) -> Word {
        let order = self.implicit_field(b, ImplicitField::ImageChannelOrder(arg as u16));
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let base = self.out.c_u32(order::R);
        let rel = self.emit(b, Op::ISub, u32t, ids(&[order, base]));
        let c31 = self.out.c_u32(31);
        let sh = self.emit(b, Op::BitwiseAnd, u32t, ids(&[rel, c31]));
        let mask = self.out.c_u32(order::TRANSPARENT_BORDER);
        let m = self.emit(b, Op::ShiftRightLogical, u32t, ids(&[mask, sh]));
        let one = self.out.c_u32(1);
        let bit = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, one]));
        let zero_u = self.out.c_u32(0);
        let transparent = self.emit(b, Op::INotEqual, bt, ids(&[bit, zero_u]));
        let st = self.texel_scalar(texel);
        let (zero, one) = match texel {
            Texel::Float => (self.out.c_float(32, 0.0), self.out.c_float(32, 1.0)),
            Texel::Uint => (self.out.c_u32(0), self.out.c_u32(1)),
            Texel::Int => (
                self.out
                    .cached(Op::Constant, Some(st), vec![Operand::LiteralBit32(0)]),
                self.out
                    .cached(Op::Constant, Some(st), vec![Operand::LiteralBit32(1)]),
            ),
        };
        let alpha = self.emit(b, Op::Select, st, ids(&[transparent, zero, one]));
        let v4 = self.texel_vec4(texel);
        self.emit(
            b,
            Op::CompositeConstruct,
            v4,
            ids(&[zero, zero, zero, alpha]),
        )
    }

    /// Declares the descriptor bindings once the kernel is lowered: image
    /// and sampler arguments at (`descriptor_set`, position), literal
    /// samplers at (0, index).
    pub(crate) fn finish_images(&mut self) -> ImageBindings {
        let sampler_map = self.desc.enabled && !self.caps.descriptor.sampler_map.is_empty();
        let has_args = !self.images.args.is_empty()
            || !self.images.sampler_args.is_empty()
            || self.desc_has_bindings();
        let set = if self.images.literal.is_empty() && !sampler_map {
            0
        } else {
            1
        };
        // Descriptor addressing: arguments' own bindings (clustered POD
        // arguments renumber the others).
        let binding_of = |l: &Self, i: u32| -> u32 {
            if l.desc.enabled {
                l.desc
                    .arg_binding
                    .get(i as usize)
                    .copied()
                    .flatten()
                    .unwrap_or(i)
            } else {
                i
            }
        };
        let arg_bindings: Vec<(Word, u32)> = self
            .images
            .args
            .iter()
            .filter_map(|(&i, a)| a.var.map(|v| (v, binding_of(self, i))))
            .chain(
                self.images
                    .sampler_args
                    .iter()
                    .filter_map(|(&i, v)| v.map(|v| (v, binding_of(self, i)))),
            )
            .collect();
        let mut desc_vars = self.finish_descriptors(set);
        let mut interface = Vec::new();
        let mut bind = |out: &mut super::emit::Out, var: Word, set: u32, binding: u32| {
            out.decorate(
                var,
                vec![
                    Operand::Decoration(Decoration::DescriptorSet),
                    Operand::LiteralBit32(set),
                ],
            );
            out.decorate(
                var,
                vec![
                    Operand::Decoration(Decoration::Binding),
                    Operand::LiteralBit32(binding),
                ],
            );
            interface.push(var);
        };
        for (v, binding) in arg_bindings {
            bind(&mut self.out, v, set, binding);
        }
        for (k, &(bits, v)) in self.images.literal.iter().enumerate() {
            let binding = if sampler_map {
                let map = &self.caps.descriptor.sampler_map;
                map.iter().position(|&m| m == bits).unwrap_or(k) as u32
            } else {
                k as u32
            };
            bind(&mut self.out, v, 0, binding);
        }
        interface.append(&mut desc_vars);
        ImageBindings {
            descriptor_set: has_args.then_some(set),
            literal_samplers: if sampler_map {
                self.caps.descriptor.sampler_map.clone()
            } else {
                self.images.literal.iter().map(|&(b, _)| b).collect()
            },
            interface,
            caps: self.images.caps.clone(),
        }
    }
}
