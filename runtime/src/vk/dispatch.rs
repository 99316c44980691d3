//! Recording of an NDRange launch: the argument set's descriptors, the
//! upload of POD bindings, and the bind / push-constant / dispatch
//! commands of a planned launch (`crate::core::launch`), skipped by
//! conditional rendering after a cut loop.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model: it takes
//! the launch plan and Vulkan handles, never an OpenCL object.

use std::sync::Arc;

use ash::vk;
use ferrocl_compiler::{DescriptorKind, ImageDescriptor};
use opencl_sys::CL_OUT_OF_RESOURCES;

use super::buffer::Staging;
use super::descriptors::DescriptorSet;
use super::device::Device;
use super::pipeline::KernelPipelines;
use super::queue::Recorder;
use crate::core::error::CLResult;
use crate::core::launch::{pod_layout, DispatchPlan, PodBinding};

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
pub fn arg_descriptor_type(kind: DescriptorKind) -> vk::DescriptorType {
    match kind {
        DescriptorKind::Buffer | DescriptorKind::Pod => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorKind::PodUbo => vk::DescriptorType::UNIFORM_BUFFER,
    }
}

/// One descriptor of a launch's argument set.
pub enum Descriptor {
    Image(u32, vk::DescriptorType, vk::ImageView),
    Texel(u32, vk::DescriptorType, vk::BufferView),
    Sampler(u32, vk::Sampler),
    /// A storage or uniform buffer range (descriptor addressing).
    Buffer(u32, vk::DescriptorType, vk::DescriptorBufferInfo),
}

/// Writes `descriptors` into `set` (which no pending launch uses).
fn write_descriptors(device: &Device, set: vk::DescriptorSet, descriptors: &[Descriptor]) {
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

/// A launch's argument set: back to its kernel's pipelines when the
/// launch is done (completed, or dropped unrun after a failure).
pub struct ArgSet {
    pipelines: Arc<KernelPipelines>,
    set: DescriptorSet,
}

impl ArgSet {
    /// Takes an argument set of `pipelines` no pending launch uses and
    /// writes `descriptors` into it.
    pub fn write(pipelines: &Arc<KernelPipelines>, descriptors: &[Descriptor]) -> CLResult<ArgSet> {
        let set = pipelines.take_arg_set()?;
        write_descriptors(&pipelines.device, set.raw, descriptors);
        Ok(ArgSet {
            pipelines: pipelines.clone(),
            set,
        })
    }

    pub fn raw(&self) -> vk::DescriptorSet {
        self.set.raw
    }
}

impl Drop for ArgSet {
    fn drop(&mut self) {
        self.pipelines.return_arg_set(self.set);
    }
}

/// Copies the POD bindings' bytes into one slice of `device`'s upload
/// arena (laid out by [`pod_layout`] at the device's descriptor offset
/// alignment, the padding zeroed) and adds their descriptors. The slice's
/// buffer must live until the launch completes.
pub fn upload_pods(
    device: &Arc<Device>,
    pods: &[PodBinding],
    descriptors: &mut Vec<Descriptor>,
) -> CLResult<Arc<Staging>> {
    let limits = &device.phys.properties.limits;
    let align = limits
        .min_storage_buffer_offset_alignment
        .max(limits.min_uniform_buffer_offset_alignment)
        .max(16);
    let (layout, total) = pod_layout(pods, align);
    let (b, base) = device.upload_slice(total, align)?;
    let p = b.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    for (pod, (o, size)) in pods.iter().zip(layout) {
        let offset = base + o;
        // SAFETY: [offset, offset + size) lies in this launch's slice of
        // the mapped buffer, which no command uses yet; the bytes fit in
        // `size` (pod_layout rounds up).
        unsafe {
            std::ptr::write_bytes(p.add(offset as usize), 0, size as usize);
            std::ptr::copy_nonoverlapping(
                pod.bytes.as_ptr(),
                p.add(offset as usize),
                pod.bytes.len(),
            );
        }
        descriptors.push(Descriptor::Buffer(
            pod.binding,
            arg_descriptor_type(pod.kind),
            vk::DescriptorBufferInfo {
                buffer: b.raw,
                offset,
                range: size,
            },
        ));
    }
    Ok(b)
}

/// The commands of one launch: its dispatches with their pipelines, the
/// sets to bind, and the loop-status word that skips them.
pub struct DispatchCommand {
    pipelines: Arc<KernelPipelines>,
    /// (pipeline, push constants, group counts) per dispatch.
    dispatches: Vec<(vk::Pipeline, Vec<u8>, [u32; 3])>,
    /// The argument set.
    arg_set: Option<vk::DescriptorSet>,
    /// The loop-status set and the word's dynamic offset in it (kernels
    /// that write the word).
    loop_status: Option<(vk::DescriptorSet, u32)>,
    /// The loop-status word's buffer and offset: the dispatches run only
    /// while it is 0 (where the device has conditional rendering).
    skip_word: Option<(vk::Buffer, u32)>,
}

impl DispatchCommand {
    /// The launch of `plans` with `pipelines`, each plan's pipeline given
    /// by `pipeline` for its specialization (looked up: made ahead of the
    /// launch, or waited for while being made; or created now), on the
    /// application's thread, so errors reach the caller and the submitter
    /// does not stall on compilation. It binds no set until [`Self::bind`].
    pub fn new(
        pipelines: &Arc<KernelPipelines>,
        plans: Vec<DispatchPlan>,
        mut pipeline: impl FnMut(&[(u32, u32)]) -> CLResult<vk::Pipeline>,
    ) -> CLResult<DispatchCommand> {
        let dispatches = plans
            .into_iter()
            .map(|p| Ok((pipeline(&p.spec)?, p.push, p.group_count)))
            .collect::<CLResult<Vec<_>>>()?;
        Ok(DispatchCommand {
            pipelines: pipelines.clone(),
            dispatches,
            arg_set: None,
            loop_status: None,
            skip_word: None,
        })
    }

    /// Sets what the launch binds: its argument set, the loop-status set
    /// and the word's dynamic offset there (kernels that write the word),
    /// and the word's buffer and offset that skips the dispatches.
    pub fn bind(
        &mut self,
        arg_set: Option<vk::DescriptorSet>,
        loop_status: Option<(vk::DescriptorSet, u32)>,
        skip_word: Option<(vk::Buffer, u32)>,
    ) {
        self.arg_set = arg_set;
        self.loop_status = loop_status;
        self.skip_word = skip_word;
    }

    /// Records the launch into `r`.
    pub fn record(&self, r: &Recorder) {
        let raw = &r.device.raw;
        let layout = self.pipelines.layout;
        self.pipelines.bind_sets(r, self.arg_set, self.loop_status);
        let skip = self.skip_word.zip(r.device.conditional_rendering.as_ref());
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
        for (p, pc, groups) in &self.dispatches {
            // SAFETY: pipeline, layout and every buffer the push constants
            // point at are kept alive by the launch until completion.
            unsafe {
                raw.cmd_bind_pipeline(r.cb, vk::PipelineBindPoint::COMPUTE, *p);
                if !pc.is_empty() {
                    raw.cmd_push_constants(r.cb, layout, vk::ShaderStageFlags::COMPUTE, 0, pc);
                }
                raw.cmd_dispatch(r.cb, groups[0], groups[1], groups[2]);
            }
        }
        if let Some((_, cr)) = skip {
            // SAFETY: cb is recording, inside the conditional block above.
            unsafe { (cr.fp().cmd_end_conditional_rendering_ext)(r.cb) };
        }
    }
}
