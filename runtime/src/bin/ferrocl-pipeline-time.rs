//! How long the Vulkan driver takes to compile a kernel: times
//! vkCreateComputePipelines (no pipeline cache) for Vulkan SPIR-V modules
//! as ferrocl's compiler writes them (`FERROCL_DUMP`'s last file of a
//! kernel, or `ferrocl-cc -o`), at the work-group sizes given.
//!
//! ```text
//! ferrocl-pipeline-time [--device N] [--local 64,256] kernel.spv...
//! ```
//!
//! Each module must use physical addressing without images (no descriptor
//! sets: push constants only, the driver's maximum up to 256 bytes). The
//! device enables every feature it has, so any capability the module
//! declares is available. Prints `<file> local=<n> <ms> ms` per pipeline.

use std::ffi::CStr;
use std::time::Instant;

use ash::vk;

fn main() {
    if let Err(e) = run() {
        eprintln!("ferrocl-pipeline-time: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut device_index = None;
    let mut locals = vec![64u32];
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--device" => {
                device_index = Some(
                    args.next()
                        .and_then(|v| v.parse::<usize>().ok())
                        .ok_or("--device N")?,
                )
            }
            "--local" => {
                locals = args
                    .next()
                    .ok_or("--local N,M")?
                    .split(',')
                    .map(|v| v.parse().map_err(|_| format!("bad size {v}")))
                    .collect::<Result<_, _>>()?
            }
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        return Err(
            "usage: ferrocl-pipeline-time [--device N] [--local 64,256] kernel.spv...".into(),
        );
    }
    // SAFETY: plain Vulkan setup and teardown on one thread; every handle
    // is destroyed before its parent.
    unsafe {
        let entry = ash::Entry::load().map_err(|e| format!("no Vulkan loader: {e}"))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .map_err(|e| format!("vkCreateInstance: {e}"))?;
        let physical = instance
            .enumerate_physical_devices()
            .map_err(|e| format!("{e}"))?;
        let index = device_index.unwrap_or_else(|| {
            physical
                .iter()
                .position(|&p| {
                    instance.get_physical_device_properties(p).device_type
                        != vk::PhysicalDeviceType::CPU
                })
                .unwrap_or(0)
        });
        let phys = *physical.get(index).ok_or("no such device")?;
        let props = instance.get_physical_device_properties(phys);
        let name = CStr::from_ptr(props.device_name.as_ptr()).to_string_lossy();
        println!("device {name}");
        let family = instance
            .get_physical_device_queue_family_properties(phys)
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue")? as u32;
        // Every feature the device has.
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        instance.get_physical_device_features2(phys, &mut f2);
        let base = f2.features;
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .features(base)
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let device = instance
            .create_device(
                phys,
                &vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .push_next(&mut f2),
                None,
            )
            .map_err(|e| format!("vkCreateDevice: {e}"))?;
        eprintln!("device created");
        let push = props.limits.max_push_constants_size.min(256);
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(push)];
        let layout = device
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges),
                None,
            )
            .map_err(|e| format!("vkCreatePipelineLayout: {e}"))?;
        for file in &files {
            let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
            let words = ash::util::read_spv(&mut std::io::Cursor::new(bytes))
                .map_err(|e| format!("{file}: {e}"))?;
            let module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
                .map_err(|e| format!("{file}: vkCreateShaderModule: {e}"))?;
            let entry_name = entry_point(&words).ok_or(format!("{file}: no entry point"))?;
            for &local in &locals {
                // SpecIds 0–2: the work-group size; 3–5: the enqueued one.
                let values = [local, 1, 1, local, 1, 1];
                let map: Vec<vk::SpecializationMapEntry> = (0..6)
                    .map(|i| vk::SpecializationMapEntry {
                        constant_id: i,
                        offset: i * 4,
                        size: 4,
                    })
                    .collect();
                let data: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
                let spec = vk::SpecializationInfo::default()
                    .map_entries(&map)
                    .data(&data);
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(module)
                    .name(&entry_name)
                    .specialization_info(&spec);
                let info = vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(layout);
                eprintln!("{file} local={local}: compiling");
                let t = Instant::now();
                let made =
                    device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                match made {
                    Ok(p) => {
                        println!("{file} local={local} {ms:.1} ms");
                        device.destroy_pipeline(p[0], None);
                    }
                    Err((_, e)) => println!("{file} local={local} failed: {e} ({ms:.1} ms)"),
                }
            }
            device.destroy_shader_module(module, None);
        }
        device.destroy_pipeline_layout(layout, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
    Ok(())
}

/// The name of the module's first OpEntryPoint.
fn entry_point(words: &[u32]) -> Option<std::ffi::CString> {
    let mut i = 5;
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if count == 0 {
            return None;
        }
        // OpEntryPoint: model, function id, then the name.
        if op == 15 {
            let bytes: Vec<u8> = words[i + 3..i + count]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            return std::ffi::CString::new(bytes).ok();
        }
        i += count;
    }
    None
}
