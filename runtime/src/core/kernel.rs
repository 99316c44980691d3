//! cl_kernel: one compiled kernel per device, its argument values, and the
//! NDRange launch (work-group size choice, splitting into Vulkan
//! dispatches, push constants; see `ferrocl_compiler::abi`).

use std::sync::{Arc, Weak};

use ash::vk;
use ferrocl_compiler::{self as compiler, ArgKind, DescriptorKind, ImageDescriptor, ImplicitField};
use opencl_sys::*;
use parking_lot::Mutex;

use super::device::Device;
use super::error::CLResult;
use super::event::Event;
use super::memory::{ImageStorage, Mem};
use super::object::{tag, Base, ClObject};
use super::program::Program;
use super::queue::Queue;
use super::residency::resident;
use super::sampler::Sampler;
use crate::vk::buffer::{Buffer, BufferKind};
use crate::vk::pipeline::{DescriptorLayout, KernelPipelines};

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
}

/// The Vulkan descriptor type of an image argument.
pub fn descriptor_type(d: ImageDescriptor) -> vk::DescriptorType {
    match d {
        ImageDescriptor::Sampled => vk::DescriptorType::SAMPLED_IMAGE,
        ImageDescriptor::Storage => vk::DescriptorType::STORAGE_IMAGE,
        ImageDescriptor::UniformTexel => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        ImageDescriptor::StorageTexel => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
    }
}

/// The Vulkan descriptor type of a descriptor-addressed buffer or POD
/// argument.
fn arg_descriptor_type(kind: DescriptorKind) -> vk::DescriptorType {
    match kind {
        DescriptorKind::Buffer | DescriptorKind::Pod => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorKind::PodUbo => vk::DescriptorType::UNIFORM_BUFFER,
    }
}

/// The descriptor sets of a kernel per the ABI: literal samplers (this
/// device's VkSamplers for their encodings) and one binding per
/// image/sampler argument; with descriptor addressing also one per buffer
/// argument, per POD binding (one per POD argument, or the clustered one)
/// and the global-variable buffer.
fn descriptor_layout(device: &Device, k: &compiler::Kernel) -> CLResult<DescriptorLayout> {
    let vkdev = device.vk()?;
    let literal_samplers = k
        .literal_samplers
        .iter()
        .map(|&bits| vkdev.sampler(bits))
        .collect::<CLResult<Vec<_>>>()?;
    let bindings: Vec<(u32, vk::DescriptorType)> = k
        .args
        .iter()
        .filter_map(|a| match a.kind {
            ArgKind::Sampler { binding } => Some((binding, vk::DescriptorType::SAMPLER)),
            ArgKind::Image {
                descriptor,
                binding,
                ..
            } => Some((binding, descriptor_type(descriptor))),
            _ => None,
        })
        .collect();
    let mut bindings = bindings;
    for d in k.args.iter().filter_map(|a| a.descriptor) {
        if Some(d.set) != k.descriptor_set {
            return Err(CL_INVALID_PROGRAM_EXECUTABLE);
        }
        // Clustered POD arguments share one binding.
        if !bindings.iter().any(|(b, _)| *b == d.binding) {
            bindings.push((d.binding, arg_descriptor_type(d.kind)));
        }
    }
    if let Some(b) = k.global_variables_binding {
        bindings.push((b, vk::DescriptorType::STORAGE_BUFFER));
    }
    // Descriptor addressing: the launch's printf buffer.
    if let Some(b) = k.printf_binding {
        bindings.push((b, vk::DescriptorType::STORAGE_BUFFER));
    }
    if let Some(d) = k.arg_buffer.as_ref().and_then(|b| b.descriptor) {
        bindings.push((d.binding, arg_descriptor_type(d.kind)));
    }
    let args = match k.descriptor_set {
        Some(set) => Some((set, bindings)),
        None if bindings.is_empty() => None,
        None => return Err(CL_INVALID_PROGRAM_EXECUTABLE),
    };
    Ok(DescriptorLayout {
        literal_samplers,
        args,
        loop_status: if k.loop_status {
            Some(device.loop_status()?)
        } else {
            None
        },
    })
}

/// A launch's argument set: back to its kernel when the launch is done
/// (completed, or dropped unrun after a failure).
struct ArgSet {
    pipelines: Arc<KernelPipelines>,
    set: crate::vk::descriptors::DescriptorSet,
}

impl Drop for ArgSet {
    fn drop(&mut self) {
        self.pipelines.return_arg_set(self.set);
    }
}

/// One descriptor of a launch's argument set.
enum Descriptor {
    Image(u32, vk::DescriptorType, vk::ImageView),
    Texel(u32, vk::DescriptorType, vk::BufferView),
    Sampler(u32, vk::Sampler),
    /// A storage or uniform buffer range (descriptor addressing).
    Buffer(u32, vk::DescriptorType, vk::DescriptorBufferInfo),
}

/// Writes `descriptors` into `set` (which no pending launch uses).
fn write_descriptors(
    device: &crate::vk::device::Device,
    set: vk::DescriptorSet,
    descriptors: &[Descriptor],
) {
    let images: Vec<[vk::DescriptorImageInfo; 1]> = descriptors
        .iter()
        .map(|d| {
            let (view, sampler) = match d {
                Descriptor::Image(_, _, v) => (*v, vk::Sampler::null()),
                Descriptor::Sampler(_, s) => (vk::ImageView::null(), *s),
                Descriptor::Texel(..) | Descriptor::Buffer(..) => {
                    (vk::ImageView::null(), vk::Sampler::null())
                }
            };
            [vk::DescriptorImageInfo {
                sampler,
                image_view: view,
                image_layout: vk::ImageLayout::GENERAL,
            }]
        })
        .collect();
    let texels: Vec<[vk::BufferView; 1]> = descriptors
        .iter()
        .map(|d| match d {
            Descriptor::Texel(_, _, v) => [*v],
            _ => [vk::BufferView::null()],
        })
        .collect();
    let buffers: Vec<[vk::DescriptorBufferInfo; 1]> = descriptors
        .iter()
        .map(|d| match d {
            Descriptor::Buffer(_, _, info) => [*info],
            _ => [vk::DescriptorBufferInfo::default()],
        })
        .collect();
    let writes: Vec<vk::WriteDescriptorSet> = descriptors
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let w = vk::WriteDescriptorSet::default().dst_set(set);
            match d {
                Descriptor::Image(b, ty, _) => w
                    .dst_binding(*b)
                    .descriptor_type(*ty)
                    .image_info(&images[i]),
                Descriptor::Sampler(b, _) => w
                    .dst_binding(*b)
                    .descriptor_type(vk::DescriptorType::SAMPLER)
                    .image_info(&images[i]),
                Descriptor::Texel(b, ty, _) => w
                    .dst_binding(*b)
                    .descriptor_type(*ty)
                    .texel_buffer_view(&texels[i]),
                Descriptor::Buffer(b, ty, _) => w
                    .dst_binding(*b)
                    .descriptor_type(*ty)
                    .buffer_info(&buffers[i]),
            }
        })
        .collect();
    // SAFETY: the set is not used by any pending command; the views and
    // samplers are alive (the launch holds their objects).
    unsafe { device.raw.update_descriptor_sets(&writes, &[]) };
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
}

impl ClObject for Kernel {
    const TAG: u32 = tag(b"KERN");
    const INVALID: cl_int = CL_INVALID_KERNEL;
    fn base(&self) -> &Base {
        &self.base
    }
}

/// Whether the build options allow non-uniform work-groups (OpenCL 2.0+).
fn allows_non_uniform(options: &str) -> bool {
    let mut std2 = false;
    for o in options.split_whitespace() {
        if let Some(v) = o.strip_prefix("-cl-std=") {
            std2 = matches!(v, "CL2.0" | "CL3.0" | "CLC++" | "CLC++1.0" | "CLC++2021");
        }
        if o == "-cl-uniform-work-group-size" {
            return false;
        }
    }
    std2
}

impl Kernel {
    pub fn new(program: &Arc<Program>, name: &str) -> CLResult<Arc<Kernel>> {
        let mut per_device = Vec::new();
        let mut found_any_build = false;
        for d in &program.devices {
            let b = program.build_info(d);
            let Some(out) = b.output else { continue };
            found_any_build = true;
            let Some(k) = out.kernels.iter().find(|k| k.name == name) else {
                return Err(CL_INVALID_KERNEL_NAME);
            };
            let vkdev = d.vk()?;
            let pipelines = KernelPipelines::new(
                &vkdev,
                &k.spirv,
                &k.entry_point,
                k.push_constant_size,
                &descriptor_layout(d, k)?,
                k.reqd_work_group_size,
            )?;
            let global_vars = program.global_vars.get(d, &out)?;
            per_device.push(Arc::new(DeviceKernel {
                device: d.clone(),
                info: k.clone(),
                pipelines: Arc::new(pipelines),
                non_uniform: allows_non_uniform(&b.options),
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
        })
    }

    /// The reflection (identical on every device).
    pub fn info(&self) -> &compiler::Kernel {
        &self.per_device[0].info
    }

    pub fn for_device(&self, d: &Device) -> Option<&Arc<DeviceKernel>> {
        self.per_device.iter().find(|k| std::ptr::eq(&*k.device, d))
    }

    /// clSetKernelArg after the ICD layer resolved a cl_mem value.
    pub fn set_arg(&self, index: usize, value: ArgValue) {
        self.args.lock()[index] = Some(value);
    }

    /// CL_KERNEL_WORK_GROUP_SIZE for a device.
    pub fn work_group_size(&self, d: &Device) -> usize {
        match self.info().reqd_work_group_size {
            Some(r) => (r[0] * r[1] * r[2]) as usize,
            None => {
                // A kernel using sub-groups runs as a one-dimensional Vulkan
                // work-group (maxComputeWorkGroupSize[0] bounds it), and a
                // required subgroup size bounds it too
                // (maxComputeWorkgroupSubgroups × size).
                let sg_limit = self
                    .for_device(d)
                    .and_then(|k| k.pipelines.subgroup_mode())
                    .map_or(usize::MAX, |m| {
                        (m.max_invocations as usize).min(d.max_work_item_sizes()[0])
                    });
                d.max_work_group_size().min(sg_limit)
            }
        }
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

/// Picks a work-group size that divides `global` (uniform groups).
pub fn choose_local_size(
    dev: &Device,
    work_dim: usize,
    global: &[usize; 3],
    limit: usize,
) -> [usize; 3] {
    let caps: [usize; 3] = match work_dim {
        1 => [256, 1, 1],
        2 => [16, 16, 1],
        _ => [8, 8, 4],
    };
    let max_items = dev.max_work_item_sizes();
    let mut budget = limit.min(dev.max_work_group_size()).max(1);
    let mut local = [1usize; 3];
    for d in 0..work_dim {
        let cap = caps[d].min(max_items[d]).min(budget).max(1);
        let best = (1..=cap)
            .rev()
            .find(|l| global[d].is_multiple_of(*l))
            .unwrap_or(1);
        local[d] = best;
        budget /= best;
    }
    local
}

/// One Vulkan dispatch of an NDRange.
struct Dispatch {
    group_offset: [u32; 3],
    group_count: [u32; 3],
    local: [u32; 3],
}

/// Splits an NDRange into dispatches: full groups in chunks Vulkan allows,
/// then the partial trailing group of each dimension (non-uniform NDRange).
fn split(global: &[usize; 3], local: &[usize; 3], max_groups: [u32; 3]) -> Vec<Dispatch> {
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

/// Writes the image/sampler fields an argument buffer keeps
/// (`ArgBuffer::implicit`) at their offsets in `dst`.
fn put_spilled_fields(dst: &mut [u8], ab: &compiler::ArgBuffer, args: &[ArgValue]) -> CLResult<()> {
    for &(field, off) in &ab.implicit {
        put(dst, off, &image_field(field, args)?.to_le_bytes());
    }
    Ok(())
}

/// The value of an image or sampler implicit field: the image argument's
/// channel order or data type, the sampler argument's OpenCL bits.
fn image_field(field: ImplicitField, args: &[ArgValue]) -> CLResult<u32> {
    match field {
        ImplicitField::ImageChannelOrder(n) | ImplicitField::ImageChannelDataType(n) => {
            let Some(ArgValue::Image(w)) = args.get(n as usize) else {
                return Err(CL_INVALID_KERNEL_ARGS);
            };
            let m = w.upgrade().ok_or(CL_INVALID_KERNEL_ARGS)?;
            let f = m.image()?.format;
            Ok(if matches!(field, ImplicitField::ImageChannelOrder(_)) {
                f.image_channel_order
            } else {
                f.image_channel_data_type
            })
        }
        ImplicitField::SamplerValue(n) => match args.get(n as usize) {
            Some(ArgValue::Sampler(smp)) => Ok(smp.bits()),
            _ => Err(CL_INVALID_KERNEL_ARGS),
        },
        _ => Err(CL_INVALID_KERNEL_ARGS),
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

/// A launch's POD argument bytes by binding (descriptor addressing): one
/// buffer per POD argument, or one shared by the clustered ones.
#[derive(Default)]
struct PodBuffers {
    /// (binding, kind, bytes).
    bindings: Vec<(u32, DescriptorKind, Vec<u8>)>,
}

impl PodBuffers {
    fn add(&mut self, d: compiler::ArgDescriptor, bytes: &[u8]) {
        let i = match self.bindings.iter().position(|(b, _, _)| *b == d.binding) {
            Some(i) => i,
            None => {
                self.bindings.push((d.binding, d.kind, Vec::new()));
                self.bindings.len() - 1
            }
        };
        let data = &mut self.bindings[i].2;
        let end = d.offset as usize + bytes.len();
        if data.len() < end {
            data.resize(end, 0);
        }
        data[d.offset as usize..end].copy_from_slice(bytes);
    }

    /// Copies every binding's bytes into one slice of the device's upload
    /// arena (each at the device's descriptor offset alignment, sized as the
    /// kernel declares it: whole words, or 16-byte elements for uniform
    /// buffers) and adds their descriptors.
    fn upload(
        &self,
        dev: &Device,
        descriptors: &mut Vec<Descriptor>,
    ) -> CLResult<Arc<crate::vk::buffer::Staging>> {
        let limits = &dev.phys.properties.limits;
        let align = limits
            .min_storage_buffer_offset_alignment
            .max(limits.min_uniform_buffer_offset_alignment)
            .max(16);
        let mut layout = Vec::with_capacity(self.bindings.len());
        let mut total = 0u64;
        for (_, kind, data) in &self.bindings {
            let unit = if *kind == DescriptorKind::PodUbo {
                16
            } else {
                4
            };
            let size = (data.len() as u64).div_ceil(unit).max(1) * unit;
            total = total.next_multiple_of(align);
            layout.push((total, size));
            total += size;
        }
        let (b, base) = dev.vk()?.upload_slice(total, align)?;
        let layout = layout.into_iter().map(|(o, size)| (base + o, size));
        let p = b.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
        for ((binding, kind, data), (offset, size)) in self.bindings.iter().zip(layout) {
            // SAFETY: [offset, offset + size) lies in this launch's slice of
            // the mapped buffer, which no command uses yet.
            unsafe {
                std::ptr::write_bytes(p.add(offset as usize), 0, size as usize);
                std::ptr::copy_nonoverlapping(data.as_ptr(), p.add(offset as usize), data.len());
            }
            descriptors.push(Descriptor::Buffer(
                *binding,
                arg_descriptor_type(*kind),
                vk::DescriptorBufferInfo {
                    buffer: b.raw,
                    offset,
                    range: size,
                },
            ));
        }
        Ok(b)
    }
}

fn put(bytes: &mut [u8], offset: u32, src: &[u8]) {
    let o = offset as usize;
    bytes[o..o + src.len()].copy_from_slice(src);
}

/// clEnqueueNDRangeKernel once the ICD layer has checked the arguments'
/// shapes: `global`, `offset` and `local` have 3 entries (1 past work_dim).
pub fn enqueue_ndrange(
    queue: &Arc<Queue>,
    kernel: &Arc<Kernel>,
    work_dim: u32,
    offset: [usize; 3],
    global: [usize; 3],
    local: Option<[usize; 3]>,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let dk = kernel
        .for_device(&queue.device)
        .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?
        .clone();
    let info = &dk.info;
    let dev = &queue.device;
    let args: Vec<ArgValue> = kernel
        .args
        .lock()
        .iter()
        .cloned()
        .collect::<Option<Vec<_>>>()
        .ok_or(CL_INVALID_KERNEL_ARGS)?;
    let wd = work_dim as usize;

    // Work-group size.
    let local = match local {
        Some(l) => {
            let max_items = dev.max_work_item_sizes();
            if (0..wd).any(|d| l[d] == 0 || l[d] > max_items[d]) {
                return Err(CL_INVALID_WORK_ITEM_SIZE);
            }
            if let Some(r) = info.reqd_work_group_size {
                if (0..3).any(|d| r[d] as usize != l[d]) {
                    return Err(CL_INVALID_WORK_GROUP_SIZE);
                }
            }
            if l[0] * l[1] * l[2] > kernel.work_group_size(dev) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            if !dk.non_uniform && (0..wd).any(|d| !global[d].is_multiple_of(l[d])) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            l
        }
        None => match info.reqd_work_group_size {
            Some(r) => {
                let r = [r[0] as usize, r[1] as usize, r[2] as usize];
                if !dk.non_uniform && (0..wd).any(|d| !global[d].is_multiple_of(r[d])) {
                    return Err(CL_INVALID_WORK_GROUP_SIZE);
                }
                r
            }
            None => choose_local_size(dev, wd, &global, kernel.work_group_size(dev)),
        },
    };
    let local_bytes = kernel.local_mem_size();
    if local_bytes > dev.local_mem_size() {
        return Err(CL_OUT_OF_RESOURCES);
    }

    // Push constants and the argument block.
    let mut push = vec![0u8; (info.push_constant_size as usize).next_multiple_of(4)];
    let block_size = info
        .arg_buffer
        .as_ref()
        .filter(|b| b.descriptor.is_none())
        .map(|b| b.size as usize)
        .unwrap_or(push.len());
    let mut block = vec![0u8; block_size];
    let mut keep: Vec<Arc<Mem>> = Vec::new();
    // In a multi-device context: which of `keep` the kernel may write.
    let multi = queue.context.devices.len() > 1;
    let mut writes: Vec<bool> = Vec::new();
    let di = queue.device_index;
    let mut samplers: Vec<Arc<Sampler>> = Vec::new();
    let mut descriptors: Vec<Descriptor> = Vec::new();
    let mut spec: Vec<(u32, u32)> = Vec::new();
    let mut pods = PodBuffers::default();
    for (a, v) in info.args.iter().zip(&args) {
        match (a.kind, v) {
            (
                ArgKind::Image {
                    descriptor,
                    binding,
                    ..
                },
                ArgValue::Image(w),
            ) => {
                // An image released since clSetKernelArg is no valid argument.
                let m = w.upgrade().ok_or(CL_INVALID_KERNEL_ARGS)?;
                let img = m.image_on(di)?;
                let ty = descriptor_type(descriptor);
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
                descriptors.push(d);
                if multi {
                    writes.push(
                        a.access_qualifier != compiler::AccessQualifier::ReadOnly
                            && m.flags & CL_MEM_READ_ONLY == 0,
                    );
                }
                keep.push(m);
            }
            (ArgKind::Sampler { binding }, ArgValue::Sampler(smp)) => {
                descriptors.push(Descriptor::Sampler(binding, smp.vk_sampler(dev)?));
                samplers.push(smp.clone());
            }
            (ArgKind::Buffer, ArgValue::Buffer(m)) => {
                // A buffer released since clSetKernelArg is no valid argument.
                let m = match m {
                    Some(w) => Some(w.upgrade().ok_or(CL_INVALID_KERNEL_ARGS)?),
                    None => None,
                };
                match a.descriptor {
                    // Descriptor addressing: the cl_mem's range of its
                    // storage on this device, or the device's dummy buffer
                    // for NULL (the NULL mask tells the kernel).
                    Some(d) => descriptors.push(buffer_descriptor(dev, di, d, m.as_deref())?),
                    None => {
                        let addr = match &m {
                            Some(m) => m.device_address_on(di)?,
                            None => 0,
                        };
                        put(&mut block, a.offset, &addr.to_le_bytes());
                    }
                }
                if let Some(m) = m {
                    // Written unless the argument is __constant or const,
                    // or the buffer is CL_MEM_READ_ONLY.
                    if multi {
                        writes.push(
                            a.address_qualifier != compiler::AddressQualifier::Constant
                                && a.type_qualifier & u64::from(CL_KERNEL_ARG_TYPE_CONST) == 0
                                && m.flags & CL_MEM_READ_ONLY == 0,
                        );
                    }
                    keep.push(m);
                }
            }
            (ArgKind::Pod, ArgValue::Pod(bytes)) => match a.descriptor {
                Some(d) => pods.add(d, bytes),
                None => put(&mut block, a.offset, bytes),
            },
            (ArgKind::LocalPointer { spec_id }, ArgValue::Local(n)) => {
                spec.push((spec_id, *n as u32))
            }
            _ => return Err(CL_INVALID_KERNEL_ARGS),
        }
    }
    // Descriptor addressing: the POD buffers (one slice of the device's
    // upload arena, the spilled image/sampler fields' included) and the
    // program's global variables.
    if let Some(ab) = &info.arg_buffer {
        if let Some(d) = ab.descriptor {
            let mut fields = vec![0u8; ab.size as usize];
            put_spilled_fields(&mut fields, ab, &args)?;
            pods.add(d, &fields);
        }
    }
    let pod_buffer = if pods.bindings.is_empty() {
        None
    } else {
        Some(pods.upload(dev, &mut descriptors)?)
    };
    if let Some(b) = info.global_variables_binding {
        let g = dk
            .global_vars
            .as_ref()
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        descriptors.push(Descriptor::Buffer(
            b,
            vk::DescriptorType::STORAGE_BUFFER,
            vk::DescriptorBufferInfo {
                buffer: g.raw,
                offset: 0,
                range: g.size,
            },
        ));
    }
    // printf: a buffer for this launch's records, formatted at completion.
    let printf_buffer = if info.printf.is_empty() {
        None
    } else {
        let size = super::printf::buffer_size(&info.printf);
        let b = Arc::new(dev.vk()?.staging(size, BufferKind::Readback)?);
        let p = b.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
        let header = super::printf::header();
        // SAFETY: mapped host-visible buffer of at least 8 bytes, not yet in use.
        unsafe { std::ptr::copy_nonoverlapping(header.as_ptr(), p, header.len()) };
        Some(b)
    };
    // Descriptor addressing: the printf buffer is a binding, whole range.
    if let (Some(binding), Some(b)) = (info.printf_binding, &printf_buffer) {
        descriptors.push(Descriptor::Buffer(
            binding,
            vk::DescriptorType::STORAGE_BUFFER,
            vk::DescriptorBufferInfo {
                buffer: b.raw,
                offset: 0,
                range: b.size,
            },
        ));
    }
    let arg_buffer = match &info.arg_buffer {
        Some(ab) if ab.descriptor.is_none() => {
            // Image/sampler fields kept in the buffer (many such arguments).
            put_spilled_fields(&mut block, ab, &args)?;
            let b = Arc::new(dev.vk()?.staging(ab.size as u64, BufferKind::Upload)?);
            let p = b.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
            // SAFETY: mapped host-visible buffer of ab.size bytes, not yet in use.
            unsafe { std::ptr::copy_nonoverlapping(block.as_ptr(), p, block.len()) };
            put(&mut push, ab.address_offset, &b.address.to_le_bytes());
            Some(b)
        }
        _ => {
            push[..block.len()].copy_from_slice(&block);
            None
        }
    };

    // A zero-sized NDRange (OpenCL 2.1+) does no work but is a command.
    if global[..wd].contains(&0) {
        return Ok(queue.submit(CL_COMMAND_NDRANGE_KERNEL, wait_list, None, None));
    }

    let num_groups: [usize; 3] = std::array::from_fn(|d| global[d].div_ceil(local[d]));
    let mut region_offsets = Vec::new();
    for (field, off) in &info.implicit {
        let v = match *field {
            ImplicitField::GlobalOffset(d) => offset[d as usize] as u32,
            ImplicitField::GlobalSize(d) => global[d as usize] as u32,
            ImplicitField::NumGroups(d) => num_groups[d as usize] as u32,
            ImplicitField::WorkDim => work_dim,
            ImplicitField::RegionGroupOffset(d) => {
                region_offsets.push((d as usize, *off));
                0
            }
            ImplicitField::GlobalVariables(w) => {
                let addr = dk.global_vars.as_ref().map_or(0, |b| b.address);
                (addr >> (32 * u32::from(w))) as u32
            }
            ImplicitField::PrintfBuffer(w) => {
                let addr = printf_buffer.as_ref().map_or(0, |b| b.address);
                (addr >> (32 * u32::from(w))) as u32
            }
            ImplicitField::ImageChannelOrder(_)
            | ImplicitField::ImageChannelDataType(_)
            | ImplicitField::SamplerValue(_) => image_field(*field, &args)?,
            ImplicitField::NullBufferArgs(w) => {
                let base = 32 * w as usize;
                (0..32)
                    .filter(|k| matches!(args.get(base + k), Some(ArgValue::Buffer(None))))
                    .fold(0u32, |m, k| m | 1 << k)
            }
        };
        put(&mut push, *off, &v.to_le_bytes());
    }

    let dispatches = split(&global, &local, dev.max_group_count());
    let pipelines = dk.pipelines.clone();
    let layout = pipelines.layout;
    // Create the pipelines now (on the application's thread) so errors
    // reach the caller and the submitter does not stall on compilation.
    let mut plan = Vec::with_capacity(dispatches.len());
    for d in &dispatches {
        let mut s = vec![
            (0, d.local[0]),
            (1, d.local[1]),
            (2, d.local[2]),
            (3, local[0] as u32),
            (4, local[1] as u32),
            (5, local[2] as u32),
        ];
        s.extend_from_slice(&spec);
        let p = pipelines.get(&s)?;
        let mut pc = push.clone();
        for (dim, off) in &region_offsets {
            put(&mut pc, *off, &d.group_offset[*dim].to_le_bytes());
        }
        plan.push((p, pc, d.group_count));
    }
    // The argument set: taken and written last, once nothing can fail.
    let arg_set = if pipelines.has_arg_set() {
        let set = pipelines.take_arg_set()?;
        write_descriptors(&pipelines.device, set.raw, &descriptors);
        Some(ArgSet {
            pipelines: pipelines.clone(),
            set,
        })
    } else {
        None
    };
    // On a driver that cuts long loops, the queue's loop-status word: a
    // kernel with loops sets it when a loop may have lost passes
    // (`Kernel::loop_status`), and a launch's dispatches run only while it
    // is 0 (conditional rendering, where the device has it; `queue::Poison`).
    let status_word = if dev.loop_limiter() || info.loop_status {
        Some(queue.loop_status()?)
    } else {
        None
    };
    let poison = queue.poison.clone();
    let pl = pipelines.clone();
    let bound_set = arg_set.as_ref().map(|s| s.set.raw);
    let bound_status = status_word
        .as_ref()
        .filter(|_| info.loop_status)
        .map(|w| (w.set(), w.offset()));
    let skip_word = status_word.as_ref().map(|w| (w.buffer(), w.offset()));
    let uses: Vec<(&Arc<Mem>, bool)> = keep.iter().zip(writes).collect();
    let record = Box::new(move |r: &crate::vk::queue::Recorder| {
        let raw = &r.device.raw;
        pl.bind_sets(r, bound_set, bound_status);
        let skip = skip_word.zip(r.device.conditional_rendering.as_ref());
        if let Some(((buffer, offset), cr)) = skip {
            // After a cut loop (an earlier launch set the word) the
            // dispatches do nothing.
            let mb = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::HOST_WRITE)
                .dst_access_mask(vk::AccessFlags::CONDITIONAL_RENDERING_READ_EXT)];
            let begin = vk::ConditionalRenderingBeginInfoEXT::default()
                .buffer(buffer)
                .offset(u64::from(offset))
                .flags(vk::ConditionalRenderingFlagsEXT::INVERTED);
            // SAFETY: cb is recording; the word's buffer lives as long as
            // the device's loop-status words.
            unsafe {
                raw.cmd_pipeline_barrier(
                    r.cb,
                    vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::HOST,
                    vk::PipelineStageFlags::CONDITIONAL_RENDERING_EXT,
                    vk::DependencyFlags::empty(),
                    &mb,
                    &[],
                    &[],
                );
                (cr.fp().cmd_begin_conditional_rendering_ext)(r.cb, &begin);
            }
        }
        for (p, pc, groups) in &plan {
            // SAFETY: pipeline, layout and every buffer the push constants
            // point at are kept alive by this closure until completion.
            unsafe {
                raw.cmd_bind_pipeline(r.cb, ash::vk::PipelineBindPoint::COMPUTE, *p);
                if !pc.is_empty() {
                    raw.cmd_push_constants(r.cb, layout, ash::vk::ShaderStageFlags::COMPUTE, 0, pc);
                }
                raw.cmd_dispatch(r.cb, groups[0], groups[1], groups[2]);
            }
        }
        if let Some((_, cr)) = skip {
            // SAFETY: cb is recording, inside the conditional block above.
            unsafe { (cr.fp().cmd_end_conditional_rendering_ext)(r.cb) };
        }
        Ok(())
    });
    let record = resident(queue, &uses, record);
    drop(uses);
    // Everything the device reads stays alive until the command completes.
    // printf output reaches stdout before the event completes.
    let hold = Box::new(move || {
        // Set by this launch (the first to see it) or by an earlier one,
        // whose failure this launch shares (it did nothing).
        let failed = status_word.as_ref().is_some_and(|w| w.read() != 0);
        let cause = failed && poison.set();
        if cause {
            loop_cut_log(&dk.info.name);
        }
        if let Some(b) = &printf_buffer {
            if let Some(p) = b.mapped() {
                // SAFETY: the launch is complete (host barrier at the end of
                // its submission); the mapping is `b.size` bytes.
                let data = unsafe { std::slice::from_raw_parts(p, b.size as usize) };
                let text =
                    super::printf::format_buffer(&dk.info.printf, &dk.info.printf_strings, data);
                super::printf::print(&text);
            }
        }
        drop((
            keep,
            samplers,
            arg_set,
            arg_buffer,
            pod_buffer,
            pipelines,
            printf_buffer,
            dk,
            status_word,
        ));
        match (failed, cause) {
            (true, true) => Err(CL_OUT_OF_RESOURCES),
            (true, false) => Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
            _ => Ok(()),
        }
    });
    Ok(queue.submit_checked(
        CL_COMMAND_NDRANGE_KERNEL,
        wait_list,
        Some(record),
        Some(hold),
    ))
}

/// The line a launch whose loop the driver may have cut writes to stderr
/// (always: the launch fails, and the application may not look at why).
fn loop_cut_log(kernel: &str) {
    eprintln!(
        "ferrocl: kernel '{kernel}': the driver's loop limit (lavapipe: 65535 loop passes per \
         8 work-items, all loops together) may have cut a loop; the launch fails with \
         CL_OUT_OF_RESOURCES, and the queue's later commands fail until clFinish \
         (FERROCL_LOOP_LIMITER in README)"
    );
}
