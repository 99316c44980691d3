//! Launch planning for clEnqueueNDRangeKernel: pure functions from plain
//! data (the kernel's reflection, the NDRange, device limits, argument
//! values already resolved to bytes and addresses) to the launch's plan:
//! the work-group size, the Vulkan dispatches it splits into, and the
//! bytes of its push constants, argument buffer and POD buffers (see
//! `ferrocl_compiler::abi`).
//!
//! Layer: a leaf below the object model: no Vulkan types, no locks, no
//! object handles. `super::kernel` resolves the kernel's arguments and
//! calls these functions; `crate::vk::dispatch` records the plan.

use ferrocl_compiler::{self as compiler, ArgKind, DescriptorKind, ImplicitField};
use opencl_sys::*;

use super::error::CLResult;

/// What launch planning reads of a kernel's reflection
/// (`ferrocl_compiler::Kernel`).
#[derive(Clone, Copy, Debug)]
pub struct KernelAbi<'a> {
    /// Size in bytes of the push-constant block.
    pub push_constant_size: u32,
    pub args: &'a [compiler::KernelArg],
    /// `Some` when the argument block lives in a device buffer.
    pub arg_buffer: Option<&'a compiler::ArgBuffer>,
    /// Implicit fields and their push-constant byte offsets.
    pub implicit: &'a [(ImplicitField, u32)],
    /// Bytes of the kernel's own `__local` data, before the `__local`
    /// pointer arguments' region.
    pub static_local_size: u32,
}

impl<'a> KernelAbi<'a> {
    pub fn of(k: &'a compiler::Kernel) -> KernelAbi<'a> {
        KernelAbi {
            push_constant_size: k.push_constant_size,
            args: &k.args,
            arg_buffer: k.arg_buffer.as_ref(),
            implicit: &k.implicit,
            static_local_size: k.static_local_size,
        }
    }
}

/// The device limits a launch respects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// CL_DEVICE_MAX_WORK_ITEM_SIZES (maxComputeWorkGroupSize).
    pub max_work_item_sizes: [usize; 3],
    /// CL_DEVICE_MAX_WORK_GROUP_SIZE (maxComputeWorkGroupInvocations).
    pub max_work_group_size: usize,
    /// maxComputeWorkGroupCount: groups one dispatch may have.
    pub max_group_count: [u32; 3],
}

/// What a kernel allows of its work-groups on one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupRules {
    /// `__attribute__((reqd_work_group_size(x, y, z)))`.
    pub required: Option<[u32; 3]>,
    /// Non-uniform work-groups allowed ([`allows_non_uniform`]).
    pub non_uniform: bool,
    /// CL_KERNEL_WORK_GROUP_SIZE on the device.
    pub max_size: usize,
    /// (N, S): the kernel requires N sub-groups of S work-items per
    /// work-group (SPIR-V SubgroupsPerWorkgroup, CL_KERNEL_COMPILE_NUM_SUB_GROUPS),
    /// so a work-group has ((N - 1) S, N S] work-items.
    pub sub_groups: Option<(usize, usize)>,
}

/// The NDRange of one launch; unused dimensions (past `work_dim`) have
/// global size 1, local size 1 and offset 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdRange {
    pub work_dim: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: [usize; 3],
}

impl NdRange {
    /// A zero-sized NDRange (OpenCL 2.1+): a command that does no work.
    pub fn is_empty(&self) -> bool {
        self.global[..self.work_dim as usize].contains(&0)
    }

    /// `get_num_groups`: groups per dimension, a partial one included.
    pub fn num_groups(&self) -> [usize; 3] {
        std::array::from_fn(|d| self.global[d].div_ceil(self.local[d]))
    }
}

/// Whether a program built with `options` allows non-uniform
/// work-groups: "Unless a kernel comes from a source that disallows it,
/// e.g. OpenCL C 1.x or using -cl-uniform-work-group-size" (OpenCL 3.0
/// API §3.2.1): OpenCL C 2.0 and later (3.1 included: the CTS builds with
/// the device's -cl-std=CL3.1) and SPIR-V (`from_il`), unless
/// -cl-uniform-work-group-size.
pub fn allows_non_uniform(options: &str, from_il: bool) -> bool {
    let mut std2 = from_il;
    for o in options.split_whitespace() {
        if let Some(v) = o.strip_prefix("-cl-std=") {
            std2 = matches!(
                v,
                "CL2.0" | "CL3.0" | "CL3.1" | "CLC++" | "CLC++1.0" | "CLC++2021"
            );
        }
        if o == "-cl-uniform-work-group-size" {
            return false;
        }
    }
    std2
}

/// Picks a work-group size that divides `global` (uniform groups) for a
/// NULL local size: per dimension the largest divisor of the global size
/// up to 256 (1D), 16×16 (2D) or 8×8×4 (3D), within the device's item
/// sizes and `limit` work-items in all.
pub fn choose_local_size(
    work_dim: usize,
    global: &[usize; 3],
    limit: usize,
    limits: &DeviceLimits,
) -> [usize; 3] {
    let caps: [usize; 3] = match work_dim {
        1 => [256, 1, 1],
        2 => [16, 16, 1],
        _ => [8, 8, 4],
    };
    let max_items = limits.max_work_item_sizes;
    let mut budget = limit.min(limits.max_work_group_size).max(1);
    let mut local = [1usize; 3];
    for d in 0..work_dim {
        let cap = caps[d].min(max_items[d]).min(budget).max(1);
        // A global size within the cap is its own largest divisor (a
        // lone work-item launch would otherwise try every size).
        let best = if (1..=cap).contains(&global[d]) {
            global[d]
        } else {
            (1..=cap)
                .rev()
                .find(|l| global[d].is_multiple_of(*l))
                .unwrap_or(1)
        };
        local[d] = best;
        budget /= best;
    }
    local
}

/// The launch's work-group size: `local` as given (checked against the
/// device and the kernel), or for a NULL local size the required one or
/// [`choose_local_size`]'s.
pub fn local_size(
    work_dim: usize,
    global: &[usize; 3],
    local: Option<[usize; 3]>,
    rules: &GroupRules,
    limits: &DeviceLimits,
) -> CLResult<[usize; 3]> {
    let wd = work_dim;
    match local {
        Some(l) => {
            let max_items = limits.max_work_item_sizes;
            if (0..wd).any(|d| l[d] == 0 || l[d] > max_items[d]) {
                return Err(CL_INVALID_WORK_ITEM_SIZE);
            }
            if let Some(r) = rules.required {
                if (0..3).any(|d| r[d] as usize != l[d]) {
                    return Err(CL_INVALID_WORK_GROUP_SIZE);
                }
            }
            if l[0] * l[1] * l[2] > rules.max_size {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            // "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified
            // and is not consistent with the required number of sub-groups
            // for kernel in the program source."
            if let Some((n, s)) = rules.sub_groups {
                if (l[0] * l[1] * l[2]).div_ceil(s) != n {
                    return Err(CL_INVALID_WORK_GROUP_SIZE);
                }
            }
            if !rules.non_uniform && (0..wd).any(|d| !global[d].is_multiple_of(l[d])) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            Ok(l)
        }
        None => match rules.required {
            Some(r) => {
                let r = [r[0] as usize, r[1] as usize, r[2] as usize];
                if !rules.non_uniform && (0..wd).any(|d| !global[d].is_multiple_of(r[d])) {
                    return Err(CL_INVALID_WORK_GROUP_SIZE);
                }
                Ok(r)
            }
            None => match rules.sub_groups {
                Some((n, s)) => sub_group_local_size(global, n, s, rules),
                None => Ok(choose_local_size(wd, global, rules.max_size, limits)),
            },
        },
    }
}

/// A NULL local size for a kernel requiring `n` sub-groups of `s`
/// work-items: one dimension of the largest size with `n` sub-groups that
/// divides the global size (n × s where groups may be non-uniform).
fn sub_group_local_size(
    global: &[usize; 3],
    n: usize,
    s: usize,
    rules: &GroupRules,
) -> CLResult<[usize; 3]> {
    let most = (n * s).min(rules.max_size);
    let fewest = (n - 1) * s + 1;
    let size = if rules.non_uniform {
        Some(most).filter(|&m| m >= fewest)
    } else {
        (fewest..=most).rev().find(|l| global[0].is_multiple_of(*l))
    };
    size.map(|l| [l, 1, 1]).ok_or(CL_INVALID_WORK_GROUP_SIZE)
}

/// One Vulkan dispatch of an NDRange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Group id of its first group in the NDRange (`RegionGroupOffset`).
    pub group_offset: [u32; 3],
    pub group_count: [u32; 3],
    /// Its work-group size (smaller than the enqueued one in a partial
    /// trailing group).
    pub local: [u32; 3],
}

/// Splits an NDRange into dispatches: full groups in chunks Vulkan allows
/// (at most `max_groups` per dimension), then the partial trailing group
/// of each dimension (non-uniform NDRange).
pub fn split(global: &[usize; 3], local: &[usize; 3], max_groups: [u32; 3]) -> Vec<Dispatch> {
    // Per dimension: list of (group offset, group count, local size).
    let mut segs: Vec<Vec<(u32, u32, u32)>> = Vec::new();
    for d in 0..3 {
        let mut v = Vec::new();
        let full = (global[d] / local[d]) as u64;
        let mut start = 0u64;
        while start < full {
            let n = (full - start).min(max_groups[d] as u64);
            v.push((start as u32, n as u32, local[d] as u32));
            start += n;
        }
        let rem = global[d] % local[d];
        if rem != 0 {
            v.push((full as u32, 1, rem as u32));
        }
        segs.push(v);
    }
    let mut out = Vec::new();
    for x in &segs[0] {
        for y in &segs[1] {
            for z in &segs[2] {
                out.push(Dispatch {
                    group_offset: [x.0, y.0, z.0],
                    group_count: [x.1, y.1, z.1],
                    local: [x.2, y.2, z.2],
                });
            }
        }
    }
    out
}

/// A kernel argument's value as the layout needs it, resolved by the
/// object model from what clSetKernelArg set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgData<'a> {
    /// A global/constant buffer: `None` for NULL, else the device address
    /// of its first byte on the launch's device (physical addressing; any
    /// value for a buffer bound as a descriptor).
    Buffer(Option<u64>),
    /// POD bytes as given.
    Pod(&'a [u8]),
    /// A `__local` pointer: its size in bytes.
    Local(usize),
    /// An image: its `CL_*` channel order and data type; for a 2D image
    /// made from a buffer its (row pitch in texels, width, height).
    Image {
        channel_order: u32,
        channel_data_type: u32,
        buffer_shape: Option<[u32; 3]>,
        /// Its mip levels (1 without mipmaps).
        mip_levels: u32,
    },
    /// A sampler: its OpenCL C literal encoding (`sampler_bits`, with
    /// `MIP_FILTER_LINEAR`) and its lod range (CL_SAMPLER_LOD_MIN_KHR,
    /// CL_SAMPLER_LOD_MAX_KHR as f32 bits).
    Sampler(u32, [u32; 2]),
}

/// The lod range of a sampler without one: [0, MAXFLOAT] (f32 bits).
pub const NO_LOD_RANGE: [u32; 2] = [0, 0x7f7f_ffff];

/// One POD binding's bytes (descriptor addressing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodBinding {
    pub binding: u32,
    pub kind: DescriptorKind,
    pub bytes: Vec<u8>,
}

/// The argument bytes of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgLayout {
    /// The push constants (`push_constant_size` rounded up to whole
    /// words): the argument block where it fits there; the implicit
    /// fields are written later ([`write_implicit`]).
    pub push: Vec<u8>,
    /// Physical addressing with an argument buffer: its bytes (the
    /// spilled image/sampler fields included), which the caller uploads,
    /// writing the buffer's address with [`ArgLayout::set_arg_buffer_address`].
    pub arg_buffer: Option<Vec<u8>>,
    /// Descriptor addressing: the POD bindings' bytes, in binding order of
    /// first use (the spilled image/sampler fields' binding last).
    pub pods: Vec<PodBinding>,
    /// A kernel with `__local` pointer arguments: the bytes of the
    /// Workgroup array's region they need (`LocalArgsLayout::size`; `None`
    /// beyond 32 bits); `None` inside for kernels without them.
    pub local_region: Option<Option<u32>>,
}

impl ArgLayout {
    /// Writes the argument buffer's device address into the push constants.
    pub fn set_arg_buffer_address(&mut self, k: &KernelAbi, address: u64) {
        if let Some(ab) = k.arg_buffer {
            put(&mut self.push, ab.address_offset, &address.to_le_bytes());
        }
    }
}

/// Adds `bytes` at `d.offset` of the POD binding `d` (made on first use).
fn add_pod(pods: &mut Vec<PodBinding>, d: compiler::ArgDescriptor, bytes: &[u8]) {
    let i = match pods.iter().position(|p| p.binding == d.binding) {
        Some(i) => i,
        None => {
            pods.push(PodBinding {
                binding: d.binding,
                kind: d.kind,
                bytes: Vec::new(),
            });
            pods.len() - 1
        }
    };
    let data = &mut pods[i].bytes;
    let end = d.offset as usize + bytes.len();
    if data.len() < end {
        data.resize(end, 0);
    }
    data[d.offset as usize..end].copy_from_slice(bytes);
}

fn put(bytes: &mut [u8], offset: u32, src: &[u8]) {
    let o = offset as usize;
    bytes[o..o + src.len()].copy_from_slice(src);
}

/// The value of an image or sampler implicit field: the image argument's
/// channel order or data type, the sampler argument's OpenCL bits.
fn image_field(field: ImplicitField, args: &[ArgData]) -> CLResult<u32> {
    match field {
        ImplicitField::ImageChannelOrder(n)
        | ImplicitField::ImageChannelDataType(n)
        | ImplicitField::ImageRowPitch(n)
        | ImplicitField::ImageBufferWidth(n)
        | ImplicitField::ImageBufferHeight(n)
        | ImplicitField::ImageMipLevels(n) => {
            let Some(ArgData::Image {
                channel_order,
                channel_data_type,
                buffer_shape,
                mip_levels,
            }) = args.get(n as usize)
            else {
                return Err(CL_INVALID_KERNEL_ARGS);
            };
            let shape = buffer_shape.unwrap_or([0; 3]);
            Ok(match field {
                ImplicitField::ImageChannelOrder(_) => *channel_order,
                ImplicitField::ImageChannelDataType(_) => *channel_data_type,
                ImplicitField::ImageRowPitch(_) => shape[0],
                ImplicitField::ImageBufferWidth(_) => shape[1],
                ImplicitField::ImageMipLevels(_) => *mip_levels,
                _ => shape[2],
            })
        }
        ImplicitField::SamplerValue(n) => match args.get(n as usize) {
            Some(ArgData::Sampler(bits, _)) => Ok(*bits),
            _ => Err(CL_INVALID_KERNEL_ARGS),
        },
        ImplicitField::SamplerLodMin(n) | ImplicitField::SamplerLodMax(n) => {
            match args.get(n as usize) {
                Some(ArgData::Sampler(_, lod)) => {
                    Ok(lod[usize::from(matches!(field, ImplicitField::SamplerLodMax(_)))])
                }
                _ => Err(CL_INVALID_KERNEL_ARGS),
            }
        }
        _ => Err(CL_INVALID_KERNEL_ARGS),
    }
}

/// Writes the fields an argument buffer keeps (`ArgBuffer::implicit`:
/// image/sampler fields, `__local` argument offsets) at their offsets in
/// `dst`.
fn put_spilled_fields(
    dst: &mut [u8],
    k: &KernelAbi,
    ab: &compiler::ArgBuffer,
    args: &[ArgData],
) -> CLResult<()> {
    let local = local_args_layout(k, args).map(|(offsets, _)| offsets);
    for &(field, off) in &ab.implicit {
        let v = match field {
            ImplicitField::LocalArgOffset(n) => local
                .as_ref()
                .and_then(|o| o.get(n as usize).copied().flatten())
                .ok_or(CL_INVALID_KERNEL_ARGS)?,
            _ => image_field(field, args)?,
        };
        put(dst, off, &v.to_le_bytes());
    }
    Ok(())
}

/// Where the `__local` pointer arguments of a launch go in the kernel's
/// Workgroup array (`ferrocl_compiler::layout_local_args`): per argument,
/// its offset (`None` for other arguments), and the region's size.
/// `None` for a kernel without `__local` pointer arguments.
pub fn local_args_layout(
    k: &KernelAbi,
    args: &[ArgData],
) -> Option<(Vec<Option<u32>>, Option<u32>)> {
    let parts: Vec<(usize, u32, u64)> = k
        .args
        .iter()
        .zip(args)
        .enumerate()
        .filter_map(|(i, (a, v))| match (a.kind, v) {
            (ArgKind::LocalPointer { align }, ArgData::Local(n)) => Some((i, align, *n as u64)),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    let sizes: Vec<(u32, u64)> = parts.iter().map(|&(_, a, n)| (a, n)).collect();
    let layout = compiler::layout_local_args(k.static_local_size, &sizes);
    let mut offsets = vec![None; args.len()];
    for (&(i, _, _), &o) in parts.iter().zip(&layout.offsets) {
        offsets[i] = Some(o);
    }
    Some((offsets, layout.size))
}

/// Lays out `args` (one per kernel argument, in order) per the kernel's
/// ABI: buffer addresses and POD bytes in the argument block (push
/// constants or argument buffer) or in POD bindings, and the size of the
/// `__local` pointer arguments' region. CL_INVALID_KERNEL_ARGS when a
/// value does not match its argument's kind.
pub fn layout_args(k: &KernelAbi, args: &[ArgData]) -> CLResult<ArgLayout> {
    if args.len() != k.args.len() {
        return Err(CL_INVALID_KERNEL_ARGS);
    }
    let mut push = vec![0u8; (k.push_constant_size as usize).next_multiple_of(4)];
    let block_size = k
        .arg_buffer
        .filter(|b| b.descriptor.is_none())
        .map(|b| b.size as usize)
        .unwrap_or(push.len());
    let mut block = vec![0u8; block_size];
    let mut pods = Vec::new();
    for (a, v) in k.args.iter().zip(args) {
        match (a.kind, v) {
            (ArgKind::Image { .. }, ArgData::Image { .. })
            | (ArgKind::Sampler { .. }, ArgData::Sampler(..)) => {}
            (ArgKind::Buffer, ArgData::Buffer(address)) => {
                if a.descriptor.is_none() {
                    put(&mut block, a.offset, &address.unwrap_or(0).to_le_bytes());
                }
            }
            (ArgKind::Pod, ArgData::Pod(bytes)) => match a.descriptor {
                Some(d) => add_pod(&mut pods, d, bytes),
                None => put(&mut block, a.offset, bytes),
            },
            (ArgKind::LocalPointer { .. }, ArgData::Local(_)) => {}
            _ => return Err(CL_INVALID_KERNEL_ARGS),
        }
    }
    // Descriptor addressing: the spilled image/sampler fields go into a
    // POD binding of their own.
    if let Some(ab) = k.arg_buffer {
        if let Some(d) = ab.descriptor {
            let mut fields = vec![0u8; ab.size as usize];
            put_spilled_fields(&mut fields, k, ab, args)?;
            add_pod(&mut pods, d, &fields);
        }
    }
    let arg_buffer = match k.arg_buffer {
        Some(ab) if ab.descriptor.is_none() => {
            // Fields kept in the buffer (many image/sampler or `__local`
            // arguments).
            put_spilled_fields(&mut block, k, ab, args)?;
            Some(block)
        }
        _ => {
            push[..block.len()].copy_from_slice(&block);
            None
        }
    };
    Ok(ArgLayout {
        push,
        arg_buffer,
        pods,
        local_region: local_args_layout(k, args).map(|(_, size)| size),
    })
}

/// Where each POD binding goes in one upload of `total` bytes: (offset,
/// size) per binding, each at a multiple of `align`, sized as the kernel
/// declares it (whole words, or 16-byte elements for uniform buffers; at
/// least one). Returns the layout and `total`.
pub fn pod_layout(pods: &[PodBinding], align: u64) -> (Vec<(u64, u64)>, u64) {
    let mut layout = Vec::with_capacity(pods.len());
    let mut total = 0u64;
    for p in pods {
        let unit = if p.kind == DescriptorKind::PodUbo {
            16
        } else {
            4
        };
        let size = (p.bytes.len() as u64).div_ceil(unit).max(1) * unit;
        total = total.next_multiple_of(align);
        layout.push((total, size));
        total += size;
    }
    (layout, total)
}

/// Device addresses the implicit fields may carry (0 where absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchAddresses {
    /// The program's global-variable buffer.
    pub global_vars: u64,
    /// This launch's printf buffer.
    pub printf: u64,
}

/// Writes the kernel's implicit fields (`Kernel::implicit`) into `push`,
/// except the per-dispatch `RegionGroupOffset`s, returned as (dimension,
/// byte offset) for [`plan_dispatches`].
pub fn write_implicit(
    k: &KernelAbi,
    range: &NdRange,
    addresses: &LaunchAddresses,
    args: &[ArgData],
    push: &mut [u8],
) -> CLResult<Vec<(usize, u32)>> {
    let num_groups = range.num_groups();
    let local = local_args_layout(k, args).map(|(offsets, _)| offsets);
    let mut region_offsets = Vec::new();
    for (field, off) in k.implicit {
        let v = match *field {
            ImplicitField::GlobalOffset(d) => range.offset[d as usize] as u32,
            ImplicitField::GlobalSize(d) => range.global[d as usize] as u32,
            ImplicitField::NumGroups(d) => num_groups[d as usize] as u32,
            ImplicitField::WorkDim => range.work_dim,
            ImplicitField::RegionGroupOffset(d) => {
                region_offsets.push((d as usize, *off));
                0
            }
            ImplicitField::GlobalVariables(w) => {
                (addresses.global_vars >> (32 * u32::from(w))) as u32
            }
            ImplicitField::PrintfBuffer(w) => (addresses.printf >> (32 * u32::from(w))) as u32,
            ImplicitField::ImageChannelOrder(_)
            | ImplicitField::ImageChannelDataType(_)
            | ImplicitField::ImageRowPitch(_)
            | ImplicitField::ImageBufferWidth(_)
            | ImplicitField::ImageBufferHeight(_)
            | ImplicitField::SamplerValue(_)
            | ImplicitField::ImageMipLevels(_)
            | ImplicitField::SamplerLodMin(_)
            | ImplicitField::SamplerLodMax(_) => image_field(*field, args)?,
            ImplicitField::NullBufferArgs(w) => {
                let base = 32 * w as usize;
                (0..32)
                    .filter(|k| matches!(args.get(base + k), Some(ArgData::Buffer(None))))
                    .fold(0u32, |m, k| m | 1 << k)
            }
            ImplicitField::LocalArgOffset(n) => local
                .as_ref()
                .and_then(|o| o.get(n as usize).copied().flatten())
                .ok_or(CL_INVALID_KERNEL_ARGS)?,
        };
        put(push, *off, &v.to_le_bytes());
    }
    Ok(region_offsets)
}

/// One dispatch as recorded: the pipeline's specialization, its push
/// constants and its group counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchPlan {
    /// (SpecId, value): this dispatch's work-group size (0–2), the
    /// enqueued one (3–5), then the size of the `__local` arguments'
    /// region (`LOCAL_ARGS_SPEC_ID`) for kernels with such arguments.
    pub spec: Vec<(u32, u32)>,
    pub push: Vec<u8>,
    pub group_count: [u32; 3],
}

/// The dispatches of `range` ([`split`] by `max_groups`), each with its
/// specialization constants and `push` with its `RegionGroupOffset`s
/// (`region_offsets` from [`write_implicit`]).
pub fn plan_dispatches(
    range: &NdRange,
    max_groups: [u32; 3],
    push: &[u8],
    region_offsets: &[(usize, u32)],
    local_spec: &[(u32, u32)],
) -> Vec<DispatchPlan> {
    let local = range.local.map(|l| l as u32);
    split(&range.global, &range.local, max_groups)
        .iter()
        .map(|d| {
            let spec = dispatch_spec(d.local, local, local_spec);
            let mut pc = push.to_vec();
            for (dim, off) in region_offsets {
                put(&mut pc, *off, &d.group_offset[*dim].to_le_bytes());
            }
            DispatchPlan {
                spec,
                push: pc,
                group_count: d.group_count,
            }
        })
        .collect()
}

/// The specialization of a dispatch whose work-groups are `local` in a
/// launch of enqueued local size `enqueued` (equal but in a partial
/// trailing group): SpecId 0–2 and 3–5, then `local_spec` (the
/// `__local` arguments' region, `LOCAL_ARGS_SPEC_ID`).
pub fn dispatch_spec(
    local: [u32; 3],
    enqueued: [u32; 3],
    local_spec: &[(u32, u32)],
) -> Vec<(u32, u32)> {
    let mut spec = Vec::with_capacity(6 + local_spec.len());
    spec.extend([
        (0, local[0]),
        (1, local[1]),
        (2, local[2]),
        (3, enqueued[0]),
        (4, enqueued[1]),
        (5, enqueued[2]),
    ]);
    spec.extend_from_slice(local_spec);
    spec
}

/// How many dimensions a kernel indexes by its work-item functions: 1 +
/// the highest dimension of `get_global_id`, `get_group_id`,
/// `get_global_size`, `get_num_groups` or `get_global_offset` it uses (its
/// implicit fields), 1 when it uses none of them.
pub fn used_dims(implicit: &[(ImplicitField, u32)]) -> usize {
    implicit
        .iter()
        .filter_map(|(f, _)| match *f {
            ImplicitField::GlobalOffset(d)
            | ImplicitField::GlobalSize(d)
            | ImplicitField::NumGroups(d)
            | ImplicitField::RegionGroupOffset(d) => Some(d as usize + 1),
            _ => None,
        })
        .max()
        .unwrap_or(1)
        .clamp(1, 3)
}

/// The work-group sizes a kernel's launches are likely to use, most
/// likely first (at most two), for creating their pipelines ahead of the
/// first launch: its `reqd_work_group_size` when it has one, N × S
/// work-items for a kernel requiring N sub-groups of S; else, in the
/// `dims` dimensions it indexes ([`used_dims`]), what a NULL local size
/// picks for global sizes that are multiples of every power of two
/// ([`choose_local_size`]: 256, 16×16 or 8×8×4 within the limits), and in
/// one dimension also CL_KERNEL_WORK_GROUP_SIZE (`rules.max_size`), which
/// applications often pass as the local size.
pub fn likely_local_sizes(dims: usize, rules: &GroupRules, limits: &DeviceLimits) -> Vec<[u32; 3]> {
    if let Some(r) = rules.required {
        return vec![r];
    }
    // A required sub-group count: what a NULL local size picks for a
    // global size it divides ([`local_size`]).
    if let Some((n, s)) = rules.sub_groups {
        return vec![[(n * s).min(rules.max_size) as u32, 1, 1]];
    }
    let dims = dims.clamp(1, 3);
    let mut global = [1usize; 3];
    for g in global.iter_mut().take(dims) {
        *g = 1 << 16;
    }
    let null = choose_local_size(dims, &global, rules.max_size, limits).map(|l| l as u32);
    let mut sizes = vec![null];
    if dims == 1 {
        let max = rules
            .max_size
            .min(limits.max_work_group_size)
            .min(limits.max_work_item_sizes[0])
            .max(1) as u32;
        let whole = [max, 1, 1];
        if whole != null {
            sizes.push(whole);
        }
    }
    sizes
}

/// The local sizes applications often pass explicitly, beyond
/// [`likely_local_sizes`], to a kernel that sizes `__local` buffers by
/// its work-group: 64 and 128 work-items in one dimension, 8×8 in two;
/// those within `rules.max_size` and the device's limits. None for a
/// kernel with `reqd_work_group_size` or a required sub-group count, nor
/// in three dimensions.
pub fn likely_explicit_local_sizes(
    dims: usize,
    rules: &GroupRules,
    limits: &DeviceLimits,
) -> Vec<[u32; 3]> {
    if rules.required.is_some() || rules.sub_groups.is_some() {
        return Vec::new();
    }
    let candidates: &[[u32; 3]] = match dims {
        1 => &[[64, 1, 1], [128, 1, 1]],
        2 => &[[8, 8, 1]],
        _ => &[],
    };
    let max = rules.max_size.min(limits.max_work_group_size);
    candidates
        .iter()
        .copied()
        .filter(|l| {
            (l[0] * l[1] * l[2]) as usize <= max
                && l.iter()
                    .zip(limits.max_work_item_sizes)
                    .all(|(&n, m)| n as usize <= m)
        })
        .collect()
}

#[cfg(test)]
mod tests;
