//! Compute pipelines of one compiled kernel, cached per specialization
//! constants (work-group size, enqueued local size, __local argument sizes).

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use parking_lot::Mutex;

use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// The shader module and layout of one kernel, plus its pipelines.
pub struct KernelPipelines {
    pub device: Arc<Device>,
    pub module: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
    pub entry: std::ffi::CString,
    pub push_constant_size: u32,
    pipelines: Mutex<HashMap<Vec<(u32, u32)>, vk::Pipeline>>,
}

impl KernelPipelines {
    pub fn new(
        device: &Arc<Device>,
        spirv: &[u32],
        entry: &str,
        push_constant_size: u32,
    ) -> CLResult<Self> {
        let info = vk::ShaderModuleCreateInfo::default().code(spirv);
        // SAFETY: the compiler validated the module for the Vulkan environment.
        let module = unsafe { device.raw.create_shader_module(&info, None) }.map_err(map_vk_err)?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(push_constant_size.next_multiple_of(4))];
        let li = if push_constant_size > 0 {
            vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges)
        } else {
            vk::PipelineLayoutCreateInfo::default()
        };
        // SAFETY: valid device; no descriptor sets.
        let layout = match unsafe { device.raw.create_pipeline_layout(&li, None) } {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: module unused.
                unsafe { device.raw.destroy_shader_module(module, None) };
                return Err(map_vk_err(e));
            }
        };
        Ok(KernelPipelines {
            device: device.clone(),
            module,
            layout,
            entry: std::ffi::CString::new(entry).map_err(|_| opencl_sys::CL_INVALID_KERNEL)?,
            push_constant_size,
            pipelines: Mutex::new(HashMap::new()),
        })
    }

    /// The pipeline for these (SpecId, u32 value) pairs, created on first use.
    pub fn get(&self, spec: &[(u32, u32)]) -> CLResult<vk::Pipeline> {
        let mut map = self.pipelines.lock();
        if let Some(p) = map.get(spec) {
            return Ok(*p);
        }
        let entries: Vec<vk::SpecializationMapEntry> = spec
            .iter()
            .enumerate()
            .map(|(i, (id, _))| vk::SpecializationMapEntry {
                constant_id: *id,
                offset: (i * 4) as u32,
                size: 4,
            })
            .collect();
        let data: Vec<u8> = spec.iter().flat_map(|(_, v)| v.to_ne_bytes()).collect();
        let si = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(&data);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(&self.entry)
            .specialization_info(&si);
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.layout)];
        // SAFETY: all referenced objects are alive.
        let p = unsafe {
            self.device
                .raw
                .create_compute_pipelines(self.device.pipeline_cache, &info, None)
        }
        .map_err(|(_, e)| map_vk_err(e))?[0];
        map.insert(spec.to_vec(), p);
        Ok(p)
    }
}

impl Drop for KernelPipelines {
    fn drop(&mut self) {
        // The VkDevice lives as long as the process (the platform is never
        // released), so the on-disk pipeline cache is written when a kernel
        // that compiled pipelines goes away.
        if !self.pipelines.lock().is_empty() {
            self.device.save_pipeline_cache();
        }
        // SAFETY: programs/kernels (and enqueued commands, through Arcs) are
        // gone, so no pipeline is in use.
        unsafe {
            for (_, p) in self.pipelines.lock().drain() {
                self.device.raw.destroy_pipeline(p, None);
            }
            self.device.raw.destroy_pipeline_layout(self.layout, None);
            self.device.raw.destroy_shader_module(self.module, None);
        }
    }
}
