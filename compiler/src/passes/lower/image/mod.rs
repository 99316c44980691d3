//! Images and samplers (`crate::abi`, "Images and samplers"): kernel
//! arguments become descriptor variables, OpenCL's image instructions
//! become Vulkan ones.
//!
//! # Algorithm
//!
//! * Every image/sampler value resolves to one kernel argument or literal
//!   sampler (`analyses::image_origins`; `passes::image_args` made that
//!   static). Image and sampler parameters of functions, the `Function`
//!   variables holding them (-O0), and OpSampledImage vanish: each use
//!   loads the argument's UniformConstant variable (set
//!   `Kernel::descriptor_set`, binding = the argument's position; literal
//!   sampler `i`: set 0, binding `i`).
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
//! * `finish_images` (`bindings`) decorates the variables once the kernel
//!   is lowered.
//!
//! This file holds the image state of one kernel (`Images`) and its types;
//! `scan`, `inst`, `sampler`, `mip`, `from_buffer` and `bindings` the
//! stages above.
//!
//! * 2D images that may be made from buffers (cl_khr_image2d_from_buffer):
//!   a texel-buffer twin binding and a branch on a specialization
//!   constant per access (`from_buffer`).
//! * Depth images (cl_khr_depth_images) are 2D images of a single-channel
//!   colour format (the runtime's CL_DEPTH): a scalar float texel in the
//!   kernel, component 0 of the Vulkan texel read, (d, 0, 0, 0) written.
//!
//! * Mipmapped images (cl_khr_mipmap_image): reads with a lod or
//!   gradients choose the level(s) in the shader and read them through
//!   the same filtering (`mip`); `get_image_num_mip_levels` is an
//!   implicit field. Writes with a lod (cl_khr_mipmap_image_writes) go
//!   through a switch to a storage image per level, each its own binding
//!   (`abi::IMAGE_LEVEL_BINDING_BASE`).
//!
//! Gaps: multi-sample images (cl_khr_gl_msaa_sharing) and an image or
//! sampler chosen at run time are reported as unsupported.

mod bindings;
mod from_buffer;
mod inst;
mod mip;
mod sampler;
mod scan;

use std::collections::{BTreeMap, HashMap};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, ImageOperands, Word};

use crate::abi::{AccessQualifier, ImageDescriptor, ImageDim};
use crate::passes::lower::context::Lower;

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
    /// A depth image (cl_khr_depth_images): its texel is a scalar float in
    /// the kernel, the first component of the Vulkan texel.
    pub depth: bool,
    /// A 2D image that may be made from a buffer
    /// (`DeviceCaps::image2d_from_buffer`, position below
    /// `abi::IMAGE_FROM_BUFFER_MAX_ARGS`): it also has a texel-buffer
    /// variable, chosen by SpecId `abi::IMAGE_FROM_BUFFER_SPEC_ID`.
    pub from_buffer: bool,
    /// How the kernel uses the texels (`None`: only queried).
    texel: Option<TexelUse>,
    var: Option<Word>,
    /// The texel-buffer variable of a `from_buffer` image, once used.
    buffer_var: Option<Word>,
    /// Written with a lod (cl_khr_mipmap_image_writes): levels 1 and up
    /// have bindings of their own (`abi::IMAGE_LEVEL_BINDING_BASE`).
    pub mip_writes: bool,
    /// The variables of those levels (level → variable), once used.
    level_vars: BTreeMap<u32, Word>,
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

    /// The descriptor of the texel-buffer binding of a `from_buffer`
    /// image: uniform for sampled images, storage otherwise.
    pub fn buffer_descriptor(&self) -> ImageDescriptor {
        if self.descriptor() == ImageDescriptor::Sampled {
            ImageDescriptor::UniformTexel
        } else {
            ImageDescriptor::StorageTexel
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
pub(crate) fn image_type_name(dim: ImageDim, depth: bool) -> &'static str {
    match dim {
        ImageDim::D2 if depth => "image2d_depth_t",
        ImageDim::D2Array if depth => "image2d_array_depth_t",
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
    /// Whether the kernel reads a mip level or queries the levels
    /// (cl_khr_mipmap_image, `mip`): its images and samplers then have
    /// more implicit fields.
    pub mips: bool,
    /// The SpecId `abi::IMAGE_FROM_BUFFER_SPEC_ID` constant, once used.
    from_buffer_mask: Option<Word>,
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

/// The image operands of an instruction from operand `k` on.
pub(super) fn image_operands(inst: &Instruction, k: usize) -> ImageOperands {
    match inst.operands.get(k) {
        Some(Operand::ImageOperands(o)) => *o,
        _ => ImageOperands::NONE,
    }
}

/// The image concern's view of the lowering: the shared context and the
/// kernel's image state (`scan`, `inst`, `sampler`, `bindings`).
pub(crate) struct LowerImages<'c, 'a> {
    pub cx: &'c mut Lower<'a>,
    pub images: &'c mut Images,
}

impl<'a> std::ops::Deref for LowerImages<'_, 'a> {
    type Target = Lower<'a>;
    fn deref(&self) -> &Lower<'a> {
        self.cx
    }
}

impl<'a> std::ops::DerefMut for LowerImages<'_, 'a> {
    fn deref_mut(&mut self) -> &mut Lower<'a> {
        self.cx
    }
}
