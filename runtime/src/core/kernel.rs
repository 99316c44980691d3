//! cl_kernel: one compiled kernel per device, its argument values, and
//! the object-model side of an NDRange launch: resolving the arguments'
//! objects on the queue's device (descriptors, device addresses, what the
//! launch keeps alive and may write) and small upload buffers. The launch
//! itself is planned, recorded and enqueued by `super::prepared_launch`.
//!
//! Layer: kernel launches, on top of the object model (queues, memory
//! objects, programs, samplers).

use std::sync::{Arc, Weak};

use ash::vk;
use ferrocl_compiler::{self as compiler, ArgKind, ImageDescriptor};
use opencl_sys::*;
use parking_lot::Mutex;

use super::device::Device;
use super::error::CLResult;
use super::launch::{self, ArgData, DeviceLimits, GroupRules};
use super::memory::{ImageStorage, Mem};
use super::object::{tag, Base, ClObject};
use super::prewarm::{self, device_limits};
use super::program::Program;
use super::queue::Queue;
use super::sampler::Sampler;
use crate::vk::buffer::{Buffer, BufferKind};
use crate::vk::dispatch::{arg_descriptor_type, descriptor_type, Descriptor};
use crate::vk::pipeline::KernelPipelines;

#[derive(Clone)]
pub enum ArgValue {
    /// A kernel argument does not keep its buffer alive: "the memory object
    /// is deleted" once its last reference is released, whether or not a
    /// kernel's argument still names it (enqueued commands hold their own).
    Buffer(Option<Weak<Mem>>),
    Local(usize),
    Pod(Vec<u8>),
    /// An image (of the argument's type), not kept alive (as buffers).
    Image(Weak<Mem>),
    Sampler(Arc<Sampler>),
    /// A raw device address for a global pointer argument
    /// (clSetKernelArgDevicePointerEXT, clSetKernelArgSVMPointer; 0 is
    /// NULL), passed to the kernel as it is. The launch keeps the
    /// registered object it points into alive (`super::device_address`).
    Address(u64),
}

pub struct DeviceKernel {
    pub device: Arc<Device>,
    pub info: compiler::Kernel,
    pub pipelines: Arc<KernelPipelines>,
    /// -cl-std=CL2.0 or later without -cl-uniform-work-group-size.
    pub non_uniform: bool,
    /// The program's global-variable buffer on this device, if it has one.
    pub global_vars: Option<Arc<Buffer>>,
}

#[repr(C)]
pub struct Kernel {
    base: Base,
    pub program: Arc<Program>,
    pub name: String,
    pub per_device: Vec<Arc<DeviceKernel>>,
    pub args: Mutex<Vec<Option<ArgValue>>>,
    /// Addresses the kernel reaches other than through its arguments
    /// (CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, CL_KERNEL_EXEC_INFO_SVM_PTRS,
    /// the USM lists and indirect-access switches):
    /// a launch keeps their objects alive and, in a multi-device context,
    /// current on its device.
    pub indirect: Mutex<IndirectPointers>,
}

/// The lists and switches of clSetKernelExecInfo; each call replaces its
/// list or sets its switch.
#[derive(Clone, Default)]
pub struct IndirectPointers {
    pub device_ptrs: Vec<u64>,
    pub svm_ptrs: Vec<u64>,
    /// CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL.
    pub usm_ptrs: Vec<u64>,
    /// CL_KERNEL_EXEC_INFO_INDIRECT_{HOST,DEVICE,SHARED}_ACCESS_INTEL: the
    /// `super::usm::Kind::bit`s of the kinds the kernel may reach through
    /// any pointer (a launch keeps every such allocation alive).
    pub usm_kinds: u8,
}

/// One clSetKernelExecInfo setting, checked (also the exec info of a
/// mutable-dispatch update).
#[derive(Clone, Debug)]
pub enum IndirectUpdate {
    SvmPtrs(Vec<u64>),
    DevicePtrs(Vec<u64>),
    UsmPtrs(Vec<u64>),
    /// The kinds of `bits` may (`true`) or may not be reached indirectly.
    UsmKinds {
        bits: u8,
        on: bool,
    },
}

impl IndirectUpdate {
    pub fn apply(self, to: &mut IndirectPointers) {
        match self {
            IndirectUpdate::SvmPtrs(p) => to.svm_ptrs = p,
            IndirectUpdate::DevicePtrs(p) => to.device_ptrs = p,
            IndirectUpdate::UsmPtrs(p) => to.usm_ptrs = p,
            IndirectUpdate::UsmKinds { bits, on: true } => to.usm_kinds |= bits,
            IndirectUpdate::UsmKinds { bits, on: false } => to.usm_kinds &= !bits,
        }
    }
}

impl ClObject for Kernel {
    const TAG: u32 = tag(b"KERN");
    const INVALID: cl_int = CL_INVALID_KERNEL;
    fn base(&self) -> &Base {
        &self.base
    }
}

impl Kernel {
    pub fn new(program: &Arc<Program>, name: &str) -> CLResult<Arc<Kernel>> {
        let mut per_device = Vec::new();
        let mut found_any_build = false;
        for d in &program.devices {
            let b = program.build_info(d);
            let Some(out) = b.output else { continue };
            found_any_build = true;
            let Some(slot) = program.pipelines.slot(d, &out, name) else {
                return Err(CL_INVALID_KERNEL_NAME);
            };
            let pipelines = slot.pipelines(crate::vk::pipeline_lock::Priority::Now)?;
            let global_vars = program.global_vars.get(d, &out)?;
            per_device.push(Arc::new(DeviceKernel {
                device: d.clone(),
                info: slot.info().clone(),
                pipelines,
                non_uniform: launch::allows_non_uniform(
                    &b.options,
                    matches!(program.source, super::program::Source::Il(_)),
                ),
                global_vars,
            }));
        }
        if !found_any_build {
            return Err(CL_INVALID_PROGRAM_EXECUTABLE);
        }
        let nargs = per_device[0].info.args.len();
        program
            .kernel_count
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(Arc::new(Kernel {
            base: Base::new(Self::TAG),
            program: program.clone(),
            name: name.to_string(),
            per_device,
            args: Mutex::new(vec![None; nargs]),
            indirect: Mutex::new(IndirectPointers::default()),
        }))
    }

    /// clCloneKernel.
    pub fn clone_kernel(&self) -> Arc<Kernel> {
        self.program
            .kernel_count
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Arc::new(Kernel {
            base: Base::new(Self::TAG),
            program: self.program.clone(),
            name: self.name.clone(),
            per_device: self.per_device.clone(),
            args: Mutex::new(self.args.lock().clone()),
            indirect: Mutex::new(self.indirect.lock().clone()),
        })
    }

    /// The reflection (identical on every device).
    pub fn info(&self) -> &compiler::Kernel {
        &self.per_device[0].info
    }

    pub fn for_device(&self, d: &Device) -> Option<&Arc<DeviceKernel>> {
        self.per_device.iter().find(|k| std::ptr::eq(&*k.device, d))
    }

    /// Whether every build of this kernel takes raw device addresses for
    /// its global pointers (physical addressing): descriptor-addressed
    /// kernels see a pointer as `slot << 32 | offset` and cannot.
    pub fn takes_device_addresses(&self) -> bool {
        self.per_device
            .iter()
            .all(|k| k.info.addressing == compiler::Addressing::Physical)
    }

    /// clSetKernelArg after the ICD layer resolved a cl_mem value.
    pub fn set_arg(&self, index: usize, value: ArgValue) {
        self.args.lock()[index] = Some(value);
    }

    /// CL_KERNEL_WORK_GROUP_SIZE for a device.
    pub fn work_group_size(&self, d: &Device) -> usize {
        let subgroups = self.for_device(d).and_then(|k| k.pipelines.subgroup_mode());
        prewarm::work_group_size(self.info(), d, subgroups)
    }

    /// CL_KERNEL_LOCAL_MEM_SIZE: static __local plus the __local arguments set so far.
    pub fn local_mem_size(&self) -> u64 {
        let args = self.args.lock();
        let dynamic: usize = args
            .iter()
            .map(|a| match a {
                Some(ArgValue::Local(n)) => n.next_multiple_of(4),
                _ => 0,
            })
            .sum();
        self.info().static_local_size as u64 + dynamic as u64
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program
            .kernel_count
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// The descriptor of buffer argument `m` (NULL: `None`) at `d` on context
/// device `di` (descriptor addressing).
fn buffer_descriptor(
    dev: &Device,
    di: usize,
    d: compiler::ArgDescriptor,
    m: Option<&Mem>,
) -> CLResult<Descriptor> {
    let info = match m {
        Some(m) => {
            let b = m.buffer_on(di)?;
            let offset = m.offset as u64;
            // "CL_MISALIGNED_SUB_BUFFER_OFFSET if a sub-buffer object is
            // specified as the value for an argument that is a buffer object
            // and the offset specified when the sub-buffer object is created
            // is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN value for
            // device associated with queue": the storage-buffer offset
            // alignment is part of it.
            if !offset.is_multiple_of(dev.phys.base_addr_align()) {
                return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
            }
            // A binding reaches at most maxStorageBufferRange bytes.
            let range = m.size as u64;
            if range > u64::from(dev.phys.properties.limits.max_storage_buffer_range) {
                return Err(CL_OUT_OF_RESOURCES);
            }
            vk::DescriptorBufferInfo {
                buffer: b.raw,
                offset,
                range,
            }
        }
        None => {
            let b = dev.null_buffer()?;
            vk::DescriptorBufferInfo {
                buffer: b.raw,
                offset: 0,
                range: b.size,
            }
        }
    };
    Ok(Descriptor::Buffer(
        d.binding,
        arg_descriptor_type(d.kind),
        info,
    ))
}

/// A launch's arguments resolved on its queue's device.
pub(super) struct ResolvedArgs<'a> {
    /// What the launch plan needs of each argument, in order.
    pub(super) data: Vec<ArgData<'a>>,
    /// The argument set's image, sampler and (descriptor addressing)
    /// buffer descriptors.
    pub(super) descriptors: Vec<Descriptor>,
    /// The memory objects the launch uses, kept alive until it completes.
    pub(super) keep: Vec<Arc<Mem>>,
    /// In a multi-device context: which of `keep` the kernel may write
    /// (empty otherwise).
    pub(super) writes: Vec<bool>,
    pub(super) samplers: Vec<Arc<Sampler>>,
    /// Bit `n`: argument `n` is a 2D image made from a buffer (SpecId
    /// `IMAGE_FROM_BUFFER_SPEC_ID`).
    pub(super) from_buffer_mask: u32,
}

/// Resolves the argument values `args` of kernel `dk` on `queue`'s device:
/// a memory object released since clSetKernelArg is no valid argument
/// (CL_INVALID_KERNEL_ARGS), nor is a value of another kind than its
/// argument's.
pub(super) fn resolve_args<'a>(
    queue: &Queue,
    dk: &DeviceKernel,
    args: &'a [ArgValue],
) -> CLResult<ResolvedArgs<'a>> {
    let dev = &queue.device;
    let di = queue.device_index;
    let multi = queue.context.devices.len() > 1;
    let mut r = ResolvedArgs {
        data: Vec::with_capacity(args.len()),
        descriptors: Vec::new(),
        keep: Vec::new(),
        writes: Vec::new(),
        samplers: Vec::new(),
        from_buffer_mask: 0,
    };
    for (i, (a, v)) in dk.info.args.iter().zip(args).enumerate() {
        let data = match (a.kind, v) {
            (
                ArgKind::Image {
                    descriptor,
                    binding,
                    buffer_binding,
                    level_binding,
                    ..
                },
                ArgValue::Image(w),
            ) => {
                // An image released since clSetKernelArg is no valid argument.
                let m = w.upgrade().ok_or(CL_INVALID_KERNEL_ARGS)?;
                let img = m.image_on(di)?;
                let ty = descriptor_type(descriptor);
                let from_buffer = matches!(img.storage, ImageStorage::TexelBuffer { .. })
                    && img.desc.image_type == CL_MEM_OBJECT_IMAGE2D;
                let buffer_shape = from_buffer.then(|| {
                    [
                        (img.desc.row_pitch / img.element_size()) as u32,
                        img.desc.width as u32,
                        img.desc.height as u32,
                    ]
                });
                if let Some(tb) = buffer_binding {
                    // A 2D image argument that may be made from a buffer:
                    // the binding the launch does not use gets a
                    // placeholder (`image_placeholders`).
                    let p = super::image::image_placeholders(dev)?;
                    let twin = match descriptor {
                        ImageDescriptor::Sampled => ImageDescriptor::UniformTexel,
                        _ => ImageDescriptor::StorageTexel,
                    };
                    let twin_ty = descriptor_type(twin);
                    if from_buffer {
                        let view = match (&img.storage, twin) {
                            (
                                ImageStorage::TexelBuffer { read: Some(v), .. },
                                ImageDescriptor::UniformTexel,
                            )
                            | (
                                ImageStorage::TexelBuffer {
                                    storage: Some(v), ..
                                },
                                ImageDescriptor::StorageTexel,
                            ) => v.raw,
                            _ => return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED),
                        };
                        r.descriptors.push(Descriptor::Texel(tb, twin_ty, view));
                        let placeholder = if descriptor == ImageDescriptor::Sampled {
                            p.image.sampled_view
                        } else {
                            p.image.storage_view
                        };
                        r.descriptors
                            .push(Descriptor::Image(binding, ty, placeholder));
                        r.from_buffer_mask |= 1 << i;
                    } else {
                        r.descriptors
                            .push(Descriptor::Texel(tb, twin_ty, p.texels.raw));
                    }
                }
                // An image the kernel writes at a mip level: level l's
                // storage view at its binding + l; levels the image lacks
                // (writes there are undefined) get its level 0 (a buffer's
                // image: the placeholder).
                if let Some(base) = level_binding {
                    let level0 = match &img.storage {
                        ImageStorage::Image(i) => i.storage_view,
                        ImageStorage::TexelBuffer { .. } => {
                            super::image::image_placeholders(dev)?.image.storage_view
                        }
                    };
                    for l in 1..compiler::MIP_WRITE_LEVELS {
                        let view = match &img.storage {
                            ImageStorage::Image(i) => i.level_view(l).unwrap_or(level0),
                            ImageStorage::TexelBuffer { .. } => level0,
                        };
                        r.descriptors.push(Descriptor::Image(
                            base + l,
                            vk::DescriptorType::STORAGE_IMAGE,
                            view,
                        ));
                    }
                }
                // A 2D image made from a buffer with a texel-buffer
                // binding has both descriptors already.
                if !(from_buffer && buffer_binding.is_some()) {
                    // "CL_IMAGE_FORMAT_NOT_SUPPORTED if an image object is
                    // specified as an argument value and the image format is
                    // not supported by device associated with queue" (for this
                    // access: no view of that kind).
                    let d = match (&img.storage, descriptor) {
                        (ImageStorage::Image(i), ImageDescriptor::Sampled) => {
                            Descriptor::Image(binding, ty, i.sampled_view)
                        }
                        (ImageStorage::Image(i), ImageDescriptor::Storage) => {
                            Descriptor::Image(binding, ty, i.storage_view)
                        }
                        (
                            ImageStorage::TexelBuffer { read: Some(v), .. },
                            ImageDescriptor::UniformTexel,
                        )
                        | (
                            ImageStorage::TexelBuffer {
                                storage: Some(v), ..
                            },
                            ImageDescriptor::StorageTexel,
                        ) => Descriptor::Texel(binding, ty, v.raw),
                        _ => return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED),
                    };
                    if matches!(d, Descriptor::Image(_, _, v) if v == vk::ImageView::null()) {
                        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
                    }
                    r.descriptors.push(d);
                }
                let data = ArgData::Image {
                    channel_order: img.format.image_channel_order,
                    channel_data_type: img.format.image_channel_data_type,
                    buffer_shape,
                    mip_levels: img.desc.levels(),
                };
                if multi {
                    r.writes.push(
                        a.access_qualifier != compiler::AccessQualifier::ReadOnly
                            && m.flags & CL_MEM_READ_ONLY == 0,
                    );
                }
                r.keep.push(m);
                data
            }
            (ArgKind::Sampler { binding }, ArgValue::Sampler(smp)) => {
                r.descriptors
                    .push(Descriptor::Sampler(binding, smp.vk_sampler(dev)?));
                r.samplers.push(smp.clone());
                ArgData::Sampler(smp.bits(), smp.lod_range())
            }
            (ArgKind::Buffer, ArgValue::Buffer(m)) => {
                // A buffer released since clSetKernelArg is no valid argument.
                let m = match m {
                    Some(w) => Some(w.upgrade().ok_or(CL_INVALID_KERNEL_ARGS)?),
                    None => None,
                };
                let address = match a.descriptor {
                    // Descriptor addressing: the cl_mem's range of its
                    // storage on this device, or the device's dummy buffer
                    // for NULL (the NULL mask tells the kernel).
                    Some(d) => {
                        r.descriptors
                            .push(buffer_descriptor(dev, di, d, m.as_deref())?);
                        0
                    }
                    None => match &m {
                        Some(m) => m.device_address_on(di)?,
                        None => 0,
                    },
                };
                let data = ArgData::Buffer(m.as_ref().map(|_| address));
                if let Some(m) = m {
                    // Written unless the argument is __constant or const,
                    // or the buffer is CL_MEM_READ_ONLY.
                    if multi {
                        r.writes.push(
                            a.address_qualifier != compiler::AddressQualifier::Constant
                                && a.type_qualifier & u64::from(CL_KERNEL_ARG_TYPE_CONST) == 0
                                && m.flags & CL_MEM_READ_ONLY == 0,
                        );
                    }
                    r.keep.push(m);
                }
                data
            }
            (ArgKind::Buffer, ArgValue::Address(address)) => {
                // Only physical addressing takes raw addresses (the ICD
                // refuses them for other kernels; this is a second build
                // of the program made since).
                if a.descriptor.is_some() {
                    return Err(CL_INVALID_KERNEL_ARGS);
                }
                if let Some((m, _)) = super::device_address::lookup(&queue.context, di, *address) {
                    if multi {
                        r.writes.push(m.flags & CL_MEM_READ_ONLY == 0);
                    }
                    r.keep.push(m);
                }
                ArgData::Buffer((*address != 0).then_some(*address))
            }
            (ArgKind::Pod, ArgValue::Pod(bytes)) => ArgData::Pod(bytes),
            (ArgKind::LocalPointer { .. }, ArgValue::Local(n)) => ArgData::Local(*n),
            _ => return Err(CL_INVALID_KERNEL_ARGS),
        };
        r.data.push(data);
    }
    Ok(r)
}

/// The registered objects behind a kernel's indirect pointers
/// (clSetKernelExecInfo), added to what a launch keeps alive (and, in a
/// multi-device context, makes current for writing: the kernel may write
/// through them). An address in no registered object adds nothing.
pub(super) fn resolve_indirect(
    queue: &Queue,
    indirect: &IndirectPointers,
    r: &mut ResolvedArgs<'_>,
) {
    let multi = queue.context.devices.len() > 1;
    let listed = indirect
        .device_ptrs
        .iter()
        .chain(&indirect.svm_ptrs)
        .chain(&indirect.usm_ptrs);
    for &address in listed {
        if let Some((m, _)) =
            super::device_address::lookup(&queue.context, queue.device_index, address)
        {
            if multi {
                r.writes.push(m.flags & CL_MEM_READ_ONLY == 0);
            }
            r.keep.push(m);
        }
    }
    if indirect.usm_kinds != 0 {
        // USM contexts have one device: nothing to make current.
        r.keep
            .extend(super::usm::all_of_kinds(&queue.context, indirect.usm_kinds));
    }
}

/// A mapped host-visible buffer of `bytes.len()` bytes holding `bytes`.
pub(super) fn upload(dev: &Device, bytes: &[u8]) -> CLResult<Arc<crate::vk::buffer::Staging>> {
    let b = Arc::new(dev.vk()?.staging(bytes.len() as u64, BufferKind::Upload)?);
    let p = b.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    // SAFETY: mapped host-visible buffer of bytes.len() bytes, not yet in use.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    Ok(b)
}

/// The work-group rules and device limits a launch of `kernel` on `dev`
/// picks or checks its local size by (`launch::local_size`).
pub(super) fn group_rules(
    kernel: &Kernel,
    dk: &DeviceKernel,
    dev: &Device,
) -> (GroupRules, DeviceLimits) {
    let rules = GroupRules {
        required: dk.info.reqd_work_group_size,
        non_uniform: dk.non_uniform,
        max_size: kernel.work_group_size(dev),
        sub_groups: required_sub_groups(&dk.info, dev),
    };
    (rules, device_limits(dev))
}

/// (N, S) of a kernel requiring N sub-groups of the device's S work-items
/// per work-group (`GroupRules::sub_groups`).
pub(super) fn required_sub_groups(k: &compiler::Kernel, dev: &Device) -> Option<(usize, usize)> {
    let s = dev.subgroup_mode()?.size as usize;
    (k.compile_num_sub_groups > 0).then_some((k.compile_num_sub_groups as usize, s))
}

/// clGetKernelSuggestedLocalWorkSizeKHR once the ICD layer has checked the
/// arguments' shapes: the local size a launch on `queue` with a NULL
/// local size would use (`launch::local_size`, so `choose_local_size` or
/// `reqd_work_group_size`). CL_INVALID_PROGRAM_EXECUTABLE without a build
/// for the queue's device, CL_INVALID_KERNEL_ARGS while an argument is not
/// set, as clEnqueueNDRangeKernel.
pub fn suggested_local_size(
    queue: &Queue,
    kernel: &Kernel,
    work_dim: u32,
    global: [usize; 3],
) -> CLResult<[usize; 3]> {
    let dev = &queue.device;
    let dk = kernel
        .for_device(dev)
        .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    if kernel.args.lock().iter().any(Option::is_none) {
        return Err(CL_INVALID_KERNEL_ARGS);
    }
    let (rules, limits) = group_rules(kernel, dk, dev);
    launch::local_size(work_dim as usize, &global, None, &rules, &limits)
}

/// The line a launch whose loop the driver may have cut writes to stderr
/// (always: the launch fails, and the application may not look at why).
pub(super) fn loop_cut_log(kernel: &str) {
    eprintln!(
        "ferrocl: kernel '{kernel}': the driver's loop limit (lavapipe: 65535 loop passes per \
         8 work-items, all loops together) may have cut a loop; the launch fails with \
         CL_OUT_OF_RESOURCES, and the queue's later commands fail until clFinish \
         (FERROCL_LOOP_LIMITER in README)"
    );
}
