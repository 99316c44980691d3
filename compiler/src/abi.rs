//! The kernel ABI shared by the compiler and the runtime: what a compiled
//! kernel expects to be given at dispatch time, as reflected by the compiler.
//!
//! ## Physical addressing (the default where bufferDeviceAddress exists)
//!
//! A kernel is a Vulkan compute shader with one entry point and no
//! descriptor sets. Everything it receives travels in one push-constant
//! block of `Kernel::push_constant_size` bytes:
//!
//! * the **argument block**: every non-local argument at
//!   `KernelArg::offset` (`KernelArg::size` bytes, OpenCL C alignment).
//!   A global/constant pointer is stored as the 64-bit buffer device address
//!   of the byte it points at (0 for NULL). A POD argument is stored with
//!   its OpenCL C in-memory bytes. When the argument block does not fit in
//!   the device's push-constant budget, `Kernel::arg_buffer` is `Some`: the
//!   runtime places the argument block in a device buffer and writes that
//!   buffer's 64-bit device address at `ArgBuffer::address_offset` in the
//!   push constants instead (argument offsets are then relative to the
//!   buffer's start).
//! * the **implicit fields** (`Kernel::implicit`): one `u32` per field at
//!   the given push-constant byte offset. Only the fields the kernel reads
//!   are listed.
//!
//! A program with program-scope `__global` variables keeps them in one
//! device buffer per (program, device) (`GlobalVariables`); a kernel that
//! touches them reads the buffer's address from two implicit fields.
//!
//! ## Descriptor addressing (`Addressing::Descriptor`)
//!
//! For devices (or builds) without buffer device addresses. Every kernel
//! argument lives in descriptor set `Kernel::descriptor_set` (0, or 1 when
//! literal samplers occupy set 0), per the descriptor rules:
//!
//! * a global/constant pointer argument is a VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
//!   at `KernelArg::descriptor` (binding = argument position). The runtime
//!   binds the cl_mem's buffer with the cl_mem's offset and size (NULL: any
//!   buffer, and the argument's bit set in `ImplicitField::NullBufferArgs`).
//! * a POD argument is a storage buffer of its own (`DescriptorKind::Pod`,
//!   offset 0), or a uniform buffer (`PodUbo`, `DescriptorOptions::pod_ubo`),
//!   or, with `DescriptorOptions::cluster_pod_args`, all POD arguments share
//!   one buffer at the binding after the other arguments' bindings, each at
//!   `ArgDescriptor::offset` (OpenCL C layout; the non-POD arguments are
//!   numbered as if the POD ones were not there). The runtime writes the
//!   argument's bytes there. Uniform POD buffers are read as arrays of
//!   16-byte elements: their size must be a multiple of 16 bytes.
//! * images and samplers keep `ArgKind::Image::binding` / `Sampler::binding`.
//! * program-scope `__global` variables and large `__constant` tables: a
//!   storage buffer at `Kernel::global_variables_binding` (the program's
//!   `GlobalVariables` buffer); its relocations add
//!   `GLOBAL_VARIABLES_SLOT << 32` instead of a device address.
//! * the launch's printf buffer (a kernel that calls printf): a storage
//!   buffer at `Kernel::printf_binding`, after every other binding of the
//!   set; the runtime binds the whole buffer (its layout: `PrintfCall`).
//! * `__local` pointers, specialization constants and the implicit fields in
//!   push constants are as in physical addressing; the argument block is
//!   empty (`Kernel::push_constant_size` holds the implicit fields only).
//!
//! A global pointer *value* is `slot << 32 | byte offset` (u64): argument
//! `i`'s buffer is slot `i + 1`, the global-variable buffer slot
//! [`GLOBAL_VARIABLES_SLOT`], and NULL is 0 (no buffer has slot 0), so NULL
//! stays distinct from every valid pointer and pointer↔integer casts keep
//! the encoded value. Pointer arithmetic changes the offset only. An access
//! goes through a typed view of the slot's binding (one aliased variable
//! per accessed element type); when the compiler cannot tell which argument
//! a pointer comes from (a pointer loaded from memory, made from an
//! integer) it selects among the kernel's buffers by the slot at run time
//! (VariablePointersStorageBuffer: the device must enable
//! `variablePointersStorageBuffer`).
//!
//! The format is chosen per build: `DeviceCaps::addressing` is the
//! device's default (the runtime's `FERROCL_ADDRESSING`), which the build
//! options `-ferrocl-addressing=physical|descriptor`, `-pod-ubo` and
//! `-cluster-pod-kernel-args` override (`target_caps`; the latter two
//! imply descriptor). Every kernel records its format
//! (`Kernel::addressing`), and the runtime launches each by its own.
//! What the runtime binds per launch (runtime/src/core/kernel.rs): a
//! buffer argument's range is exactly its cl_mem (sub-buffer origins are
//! multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN, itself a multiple of
//! minStorageBufferOffsetAlignment; at most maxStorageBufferRange bytes);
//! a POD binding covers its bytes rounded up to whole u32 words (storage)
//! or 16-byte elements (uniform), all of a launch's POD bindings in one
//! staging buffer of the device's pool; a kernel whose bindings exceed
//! the device's per-stage limits fails its build (log).
//!
//! ## Images and samplers (descriptor sets)
//!
//! A kernel with image or sampler arguments also has one descriptor set,
//! `Kernel::descriptor_set`, with one binding per image/sampler argument
//! (binding = argument position, per the descriptor rules; the type is
//! given by `ArgKind::Image::descriptor` / `ArgKind::Sampler`). Literal
//! samplers (`const sampler_t s = CLK_...;` in the source) are
//! VK_DESCRIPTOR_TYPE_SAMPLER bindings `i` of descriptor set 0, one per
//! entry of `Kernel::literal_samplers` (the runtime bakes them into the set
//! layout as immutable samplers); the argument set is then set 1. Images
//! stay in VK_IMAGE_LAYOUT_GENERAL for their whole life.
//!
//! Specialization constants: SpecId 0,1,2 = the work-group size of this
//! dispatch (what `get_local_size` returns); SpecId 3,4,5 = the enqueued
//! local size (`get_enqueued_local_size`, equal to 0,1,2 except for the
//! trailing partial groups of a non-uniform NDRange, which the runtime runs
//! as separate dispatches). SpecId [`LOCAL_ARGS_SPEC_ID`] (kernels with
//! `__local` pointer arguments) = the bytes of the `__local` argument
//! region (below).
//!
//! ## `__local` memory
//!
//! A kernel's `__local` memory is one Workgroup array of `u32` words: its
//! own `__local` variables (and the lowering's scratch: work-group
//! collectives, 64-bit atomic locks) first, `Kernel::static_local_size`
//! bytes; then, from [`local_args_base`] (that size rounded up to 16), the
//! region of the `__local` pointer arguments. Each argument's part of it
//! starts at a multiple of `ArgKind::LocalPointer::align` (16, or the
//! pointee's alignment if larger) and is its clSetKernelArg size rounded
//! up to 16 bytes, in argument order ([`layout_local_args`]). The kernel
//! reads where its part starts (a `__local` pointer value: a byte offset
//! in the array) from the implicit field `ImplicitField::LocalArgOffset`,
//! written per launch; only the array's length is a specialization
//! constant: SpecId [`LOCAL_ARGS_SPEC_ID`] = the region's size in bytes (a
//! multiple of 16, at least the launch's [`LocalArgsLayout::size`]), so
//! the array has `(local_args_base + value) / 4` words. A pipeline made
//! with a larger value than a launch needs serves that launch too: the
//! runtime makes one with the device's largest region ahead of the first
//! launch (the *generic* pipeline) and, in the background, one sized for
//! the launch's arguments (runtime/src/core/local_args.rs).
//!
//! ## Loop status (drivers with a loop limiter)
//!
//! Where `DeviceCaps::loop_limiter` is set (lavapipe), a kernel with loops
//! has `Kernel::loop_status` set and one more storage buffer: set
//! [`LOOP_STATUS_SET`], binding [`LOOP_STATUS_BINDING`], a `u32` word (a
//! runtime array of them, word 0 used) that the kernel sets (1) when the
//! driver's loop limiter may have cut one of its loops
//! (`passes::loop_limit`). The runtime gives each queue one word, zeroed,
//! reads it after every launch and fails the launches that complete with
//! it set, skipping their dispatches (runtime/src/core/queue.rs `Poison`);
//! it binds it as a dynamic storage buffer (one device-wide set, the word
//! at its dynamic offset).
//!
//! Work-item ids: `get_group_id(d) = WorkgroupId.d + RegionGroupOffset[d]`
//! and `get_global_id(d) = get_group_id(d) * enqueued_local_size(d) +
//! LocalInvocationId.d + GlobalOffset[d]`, so the runtime can split an
//! NDRange into several dispatches (more groups than Vulkan allows, or the
//! partial last groups of a non-uniform NDRange).

/// How global/constant pointers are represented in the lowered kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Addressing {
    /// A pointer is a 64-bit buffer device address (PhysicalStorageBuffer64).
    Physical,
    /// A pointer is `slot << 32 | byte offset` into the argument's own
    /// storage-buffer binding (see the module doc).
    Descriptor,
}

/// Descriptor set of the loop-status word (module doc, "Loop status"):
/// after the argument sets (0 and 1).
pub const LOOP_STATUS_SET: u32 = 2;
/// Binding of the loop-status word in [`LOOP_STATUS_SET`].
pub const LOOP_STATUS_BINDING: u32 = 0;

/// SpecId of the size in bytes of the `__local` pointer arguments' region
/// of the Workgroup array (module doc, "`__local` memory").
pub const LOCAL_ARGS_SPEC_ID: u32 = 6;

/// SpecId of the mask of 2D image arguments backed by a buffer
/// (cl_khr_image2d_from_buffer, `DeviceCaps::image2d_from_buffer`): bit
/// `n` set when argument `n` (< 32) is a 2D image made from a buffer, read
/// and written through its texel-buffer binding
/// (`ArgKind::Image::buffer_binding`) at `y * ImageRowPitch + x`; 0 (the
/// default) for every VkImage. The branch on it folds away when the
/// pipeline is specialized.
pub const IMAGE_FROM_BUFFER_SPEC_ID: u32 = 7;

/// The texel-buffer binding of image argument `n` that may be a 2D image
/// made from a buffer: `IMAGE_BUFFER_BINDING_BASE + n`, in the image's
/// descriptor set (above every argument binding).
pub const IMAGE_BUFFER_BINDING_BASE: u32 = 1024;

/// Writes to a mip level (cl_khr_mipmap_image_writes): levels 1 to
/// `MIP_WRITE_LEVELS - 1` of image argument `n` that a kernel writes with a
/// lod are storage images of their own (views of one level each; Vulkan
/// takes no Lod on OpImageWrite) at bindings
/// `IMAGE_LEVEL_BINDING_BASE + n * MIP_WRITE_LEVELS + level`, in the
/// image's set; level 0 is the image's own binding.
pub const IMAGE_LEVEL_BINDING_BASE: u32 = 4096;
/// The levels a kernel can write (images of up to 16384 texels a side).
pub const MIP_WRITE_LEVELS: u32 = 15;

/// Image arguments at positions below this may be 2D images made from
/// buffers (one bit each of SpecId [`IMAGE_FROM_BUFFER_SPEC_ID`]).
pub const IMAGE_FROM_BUFFER_MAX_ARGS: u32 = 32;

/// Alignment of every `__local` pointer argument's part of the region,
/// and of the region's start.
pub const LOCAL_ARG_MIN_ALIGN: u32 = 16;

/// Byte offset of the `__local` pointer arguments' region in the
/// Workgroup array: after the kernel's own `__local` data, at a multiple
/// of [`LOCAL_ARG_MIN_ALIGN`].
pub fn local_args_base(static_local_size: u32) -> u32 {
    static_local_size.next_multiple_of(LOCAL_ARG_MIN_ALIGN)
}

/// Where a launch's `__local` pointer arguments go in the Workgroup array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalArgsLayout {
    /// Byte offset of each argument's part, in argument order.
    pub offsets: Vec<u32>,
    /// Bytes of the region the parts take, from [`local_args_base`]: the
    /// smallest value of SpecId [`LOCAL_ARGS_SPEC_ID`] that serves the
    /// launch. `None` when it does not fit in 32 bits.
    pub size: Option<u32>,
}

/// The layout of `__local` pointer arguments given as (alignment, size in
/// bytes) in argument order, after `static_local_size` bytes of the
/// kernel's own `__local` data: each part at the next multiple of its
/// alignment (at least [`LOCAL_ARG_MIN_ALIGN`]), sized up to a multiple
/// of 16 bytes.
pub fn layout_local_args(static_local_size: u32, args: &[(u32, u64)]) -> LocalArgsLayout {
    let base = u64::from(local_args_base(static_local_size));
    let mut end = base;
    let mut offsets = Vec::with_capacity(args.len());
    for &(align, size) in args {
        let align = u64::from(align.max(LOCAL_ARG_MIN_ALIGN));
        let start = end.next_multiple_of(align);
        offsets.push(u32::try_from(start).unwrap_or(u32::MAX));
        end = start + size.next_multiple_of(u64::from(LOCAL_ARG_MIN_ALIGN));
    }
    LocalArgsLayout {
        offsets,
        size: u32::try_from(end - base).ok(),
    }
}

/// Slot of the program's global-variable buffer in descriptor addressing
/// (a pointer into it is `GLOBAL_VARIABLES_SLOT << 32 | offset`).
pub const GLOBAL_VARIABLES_SLOT: u32 = 0xFFFF;

/// Options of the descriptor address format (`Addressing::Descriptor`);
/// ignored with physical addressing. Part of the build's cache key.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DescriptorOptions {
    /// `-pod-ubo`: POD arguments in uniform buffers rather than storage
    /// buffers.
    pub pod_ubo: bool,
    /// `-cluster-pod-kernel-args`: all POD arguments in one buffer.
    pub cluster_pod_args: bool,
    /// A sampler map (`-samplermap`): literal sampler values
    /// ([`sampler_bits`]); entry `i` is the sampler at set 0, binding `i`,
    /// and every kernel's arguments move to set 1. Each literal sampler of
    /// the source must be one of these.
    pub sampler_map: Vec<u32>,
}

/// What a descriptor-addressed argument is bound as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    /// A cl_mem: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER (descriptor map `buffer`).
    Buffer,
    /// POD bytes in a VK_DESCRIPTOR_TYPE_STORAGE_BUFFER (`pod`).
    Pod,
    /// POD bytes in a VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER (`pod_ubo`).
    PodUbo,
}

/// Where a descriptor-addressed buffer or POD argument is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArgDescriptor {
    pub set: u32,
    pub binding: u32,
    /// Byte offset of the argument's value in a POD buffer (0 unless POD
    /// arguments are clustered).
    pub offset: u32,
    pub kind: DescriptorKind,
}

/// The implicit values a kernel may read, each a `u32` in push constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImplicitField {
    /// `get_global_offset(d)`.
    GlobalOffset(u8),
    /// `get_global_size(d)` of the whole NDRange.
    GlobalSize(u8),
    /// `get_num_groups(d)` of the whole NDRange.
    NumGroups(u8),
    /// Group-id offset of this dispatch within the NDRange.
    RegionGroupOffset(u8),
    /// `get_work_dim()`.
    WorkDim,
    /// Word `n` (0: low, 1: high) of the device address of the program's
    /// global-variable buffer (`Program::global_variables`).
    GlobalVariables(u8),
    /// Word `n` (0: low, 1: high) of the device address of this launch's
    /// printf buffer (`PrintfCall`; physical addressing only).
    PrintfBuffer(u8),
    /// Word `n` of the NULL mask of buffer arguments (descriptor
    /// addressing): bit `i % 32` of word `i / 32` is set when argument `i`
    /// is a NULL buffer.
    NullBufferArgs(u8),
    /// The `CL_*` channel order (e.g. `CL_RGBA` = 0x10B5) of the image bound
    /// to argument `n`: `get_image_channel_order`, and the shader-side
    /// swizzle of storage-image and texel-buffer reads and writes (see
    /// [`ImageDescriptor`]).
    ImageChannelOrder(u16),
    /// The `CL_*` channel data type (e.g. `CL_UNORM_INT8` = 0x10D2) of the
    /// image bound to argument `n` (`get_image_channel_data_type`).
    ImageChannelDataType(u16),
    /// The OpenCL C literal encoding ([`sampler_bits`]) of the sampler bound
    /// to argument `n`: normalized coordinates, addressing and filter mode,
    /// which the shader needs to emulate OpenCL's addressing rules.
    SamplerValue(u16),
    /// The row pitch in texels of the 2D image made from a buffer bound to
    /// argument `n` (cl_khr_image2d_from_buffer; 0 for other images).
    ImageRowPitch(u16),
    /// The width of the 2D image made from a buffer bound to argument `n`
    /// (its size queries and sampler addressing; 0 for other images).
    ImageBufferWidth(u16),
    /// The height of that image (0 for other images).
    ImageBufferHeight(u16),
    /// The number of mip levels of the image bound to argument `n` (1 for
    /// images without mipmaps; cl_khr_mipmap_image):
    /// `get_image_num_mip_levels` and the level clamp of reads with a lod.
    ImageMipLevels(u16),
    /// The CL_SAMPLER_LOD_MIN_KHR (f32 bits) of the sampler bound to
    /// argument `n` (0.0 unless given; cl_khr_mipmap_image).
    SamplerLodMin(u16),
    /// Its CL_SAMPLER_LOD_MAX_KHR (f32 bits; MAXFLOAT unless given).
    SamplerLodMax(u16),
    /// Where the part of `__local` pointer argument `n` starts in the
    /// Workgroup array (its pointer value, a byte offset; module doc,
    /// "`__local` memory").
    LocalArgOffset(u16),
}

/// OpenCL C's `sampler_t` literal encoding (clang's opencl-c-base.h),
/// used for literal samplers and [`ImplicitField::SamplerValue`]:
/// `normalized | addressing | filter`.
pub mod sampler_bits {
    pub const NORMALIZED_COORDS_TRUE: u32 = 0x1;
    pub const ADDRESS_MASK: u32 = 0xE;
    pub const ADDRESS_NONE: u32 = 0x0;
    pub const ADDRESS_CLAMP_TO_EDGE: u32 = 0x2;
    pub const ADDRESS_CLAMP: u32 = 0x4;
    pub const ADDRESS_REPEAT: u32 = 0x6;
    pub const ADDRESS_MIRRORED_REPEAT: u32 = 0x8;
    pub const FILTER_MASK: u32 = 0x30;
    pub const FILTER_NEAREST: u32 = 0x10;
    pub const FILTER_LINEAR: u32 = 0x20;
    /// Not OpenCL C's: the CL_SAMPLER_MIP_FILTER_MODE_KHR of a sampler
    /// argument made with CL_FILTER_LINEAR (cl_khr_mipmap_image; literal
    /// samplers filter mip levels NEAREST).
    pub const MIP_FILTER_LINEAR: u32 = 0x40;
}

/// Geometry of an image argument (its OpenCL C type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    /// `image1d_t`: VkImageViewType 1D.
    D1,
    /// `image1d_buffer_t`: a texel buffer (VkBufferView of the buffer).
    D1Buffer,
    /// `image1d_array_t`: 1D_ARRAY.
    D1Array,
    /// `image2d_t`: 2D.
    D2,
    /// `image2d_array_t`: 2D_ARRAY.
    D2Array,
    /// `image3d_t`: 3D.
    D3,
}

/// The Vulkan descriptor an image argument is bound as (the descriptor
/// rules: read_only → sampled, write_only and read_write → storage).
///
/// Views: a `Sampled` view carries the format table's component mapping,
/// so the shader sees OpenCL's (R, G, B, A) for every channel order. A
/// `Storage` view has the identity mapping (Vulkan requires it), and a
/// texel buffer (`UniformTexel`, `StorageTexel`) has none (VkBufferView
/// has no component mapping); for channel orders whose memory order is
/// not the Vulkan format's (CL_BGRA on R8G8B8A8, CL_A, CL_INTENSITY,
/// CL_LUMINANCE, CL_RA, CL_ARGB, CL_ABGR) the shader applies the swizzle
/// itself from [`ImplicitField::ImageChannelOrder`], so texel buffers use
/// the same memory-order formats as storage images. Storage descriptors
/// use `Unknown` format in the shader (StorageImageRead/WriteWithoutFormat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDescriptor {
    /// VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE (read_only, not 1D-buffer).
    Sampled,
    /// VK_DESCRIPTOR_TYPE_STORAGE_IMAGE (write_only / read_write).
    Storage,
    /// VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER (read_only image1d_buffer_t).
    UniformTexel,
    /// VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER (write_only / read_write
    /// image1d_buffer_t).
    StorageTexel,
}

/// How the bytes of one printf argument are stored in a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintfArgKind {
    /// Integer (or bool) components, zero-extended to whole words.
    Int,
    /// Floating-point components (half, float or double bits).
    Float,
    /// A `__constant` string: one word, the byte offset of its first
    /// character in `Kernel::printf_strings`.
    String,
    /// A pointer (`%p`): two words.
    Pointer,
}

/// One argument of a printf call: `components` values (1 for scalars) of
/// `bytes` bytes each; each component occupies `bytes.div_ceil(4)` words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintfArg {
    pub kind: PrintfArgKind,
    pub bytes: u8,
    pub components: u8,
}

impl PrintfArg {
    /// Words of the record this argument occupies.
    pub fn words(&self) -> usize {
        match self.kind {
            PrintfArgKind::String => 1,
            PrintfArgKind::Pointer => 2,
            _ => (self.bytes as usize).div_ceil(4) * self.components as usize,
        }
    }
}

/// A printf call of a kernel (`Kernel::printf`).
///
/// printf buffer (the runtime allocates one per launch of a kernel with
/// printf calls and gives its address through `ImplicitField::PrintfBuffer`,
/// or, with descriptor addressing, binds it at `Kernel::printf_binding`):
/// `u32 used` (bytes of records, advanced atomically by each call), `u32
/// capacity` (written by the runtime), then the records from byte 8. A
/// record is the u32 index of its call in `Kernel::printf`, then its
/// arguments' words. A call whose record would end past `capacity` writes
/// it at `capacity` instead (the runtime leaves room for the largest
/// record there) and returns -1; the host formats the records that fit,
/// in buffer order, once the launch completes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintfCall {
    /// The format string, without its terminating NUL.
    pub format: String,
    pub args: Vec<PrintfArg>,
}

impl PrintfCall {
    /// Bytes of this call's record.
    pub fn record_size(&self) -> usize {
        4 * (1 + self.args.iter().map(PrintfArg::words).sum::<usize>())
    }
}

/// The program-scope `__global` variables of a program (OpenCL 2.0+),
/// shared by all its kernels, then its large `__constant` tables
/// (`passes::global_vars`): the runtime allocates one device buffer of
/// `size` bytes per (program, device), fills it with `init` and, at each
/// byte offset of `relocations`, adds the buffer's device address to the
/// u64 stored there (pointer initializers such as `global int *p = &x;`
/// hold the offset of `x` in the buffer). Kernels get the buffer's address
/// through `ImplicitField::GlobalVariables`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalVariables {
    /// Total size in bytes: CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE is
    /// `size - constant_size`.
    pub size: u64,
    /// The bytes at the end that hold `__constant` tables, not variables.
    pub constant_size: u64,
    /// Initial contents, `size` bytes.
    pub init: Vec<u8>,
    /// Byte offsets of the u64 pointers in `init` that are relative to the
    /// buffer's start.
    pub relocations: Vec<u32>,
}

/// Where the argument block lives when it does not fit in push constants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgBuffer {
    /// Push-constant byte offset of the buffer's 64-bit device address
    /// (physical addressing).
    pub address_offset: u32,
    /// Size of the buffer in bytes: the argument block, then `implicit`.
    pub size: u32,
    /// Implicit fields kept in the buffer rather than in push constants
    /// (byte offsets in the buffer): the image and sampler fields of a
    /// kernel with so many image/sampler arguments that their fields would
    /// crowd the push constants, and the `__local` arguments' offsets of a
    /// kernel with so many of them that they would not fit
    /// (`lower::args`).
    pub implicit: Vec<(ImplicitField, u32)>,
    /// Descriptor addressing: the buffer is a POD binding of the kernel's
    /// set (`DescriptorKind::Pod`, or `PodUbo` with `-pod-ubo`) holding
    /// only `implicit`; `address_offset` is unused. Arguments stay in
    /// their own bindings.
    pub descriptor: Option<ArgDescriptor>,
}

/// OpenCL address qualifier of a kernel argument (clGetKernelArgInfo).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressQualifier {
    Global,
    Constant,
    Local,
    Private,
}

/// OpenCL access qualifier of a kernel argument (images; `None` otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessQualifier {
    ReadOnly,
    WriteOnly,
    ReadWrite,
    None,
}

/// What the runtime must supply for an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `global T*` or `constant T*`: a cl_mem (or NULL), written as a
    /// 64-bit device address at `KernelArg::offset`.
    Buffer,
    /// `local T*`: clSetKernelArg gives a size and a NULL value; the
    /// argument's part of the Workgroup array starts at a multiple of
    /// `align` (16, or `T`'s alignment if larger) and its offset reaches
    /// the kernel in `ImplicitField::LocalArgOffset` (module doc,
    /// "`__local` memory").
    LocalPointer { align: u32 },
    /// Plain old data of `KernelArg::size` bytes, copied verbatim.
    Pod,
    /// `sampler_t`: a cl_sampler, bound as VK_DESCRIPTOR_TYPE_SAMPLER at
    /// `binding` of `Kernel::descriptor_set`. The runtime creates its
    /// VkSampler with normalized coordinates always, the cl_sampler's
    /// filter, address mode NONE/CLAMP_TO_EDGE → CLAMP_TO_EDGE, CLAMP →
    /// CLAMP_TO_BORDER (FLOAT_TRANSPARENT_BLACK; Vulkan's border replacement
    /// then gives (0,0,0,1) for formats without alpha, as OpenCL wants),
    /// REPEAT → REPEAT, MIRRORED_REPEAT → MIRRORED_REPEAT. Today's
    /// shaders emulate every mode (addressing, NEAREST and LINEAR
    /// filtering with OpImageFetch) from `ImplicitField::SamplerValue`
    /// and declare no sampler variable; the binding is kept so a shader
    /// may sample in hardware again.
    Sampler { binding: u32 },
    /// An image (cl_mem of an image type matching `dim`), bound as
    /// `descriptor` at `binding` of `Kernel::descriptor_set`. Occupies no
    /// bytes of the argument block (`KernelArg::size` is 0).
    Image {
        dim: ImageDim,
        descriptor: ImageDescriptor,
        binding: u32,
        /// A 2D image argument that may be made from a buffer
        /// (cl_khr_image2d_from_buffer): its texel-buffer binding in the
        /// same set, a uniform texel buffer for `Sampled`, a storage texel
        /// buffer for `Storage` (SpecId [`IMAGE_FROM_BUFFER_SPEC_ID`]
        /// says which binding the launch uses; the other one holds a
        /// placeholder).
        buffer_binding: Option<u32>,
        /// An image the kernel writes with a lod (cl_khr_mipmap_image_writes):
        /// the binding of its level 0, `IMAGE_LEVEL_BINDING_BASE + n *
        /// MIP_WRITE_LEVELS`; level `l` (1 to `MIP_WRITE_LEVELS - 1`) is a
        /// storage image at this binding + `l`.
        level_binding: Option<u32>,
    },
}

/// One kernel argument, as reflected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    pub name: String,
    /// The type as written, e.g. `float*`, `uint4`, `my_struct` (no qualifiers).
    pub type_name: String,
    pub address_qualifier: AddressQualifier,
    pub access_qualifier: AccessQualifier,
    /// CL_KERNEL_ARG_TYPE_* bits: const=1, restrict=2, volatile=4, pipe=8.
    pub type_qualifier: u64,
    pub kind: ArgKind,
    /// Byte offset in the argument block (meaningless for LocalPointer).
    pub offset: u32,
    /// Bytes the argument occupies in the argument block; for POD the exact
    /// `sizeof` the application must pass to clSetKernelArg.
    pub size: u32,
    /// Descriptor addressing: the binding of a buffer or POD argument
    /// (`None` otherwise; `offset` is then unused for buffers).
    pub descriptor: Option<ArgDescriptor>,
}
