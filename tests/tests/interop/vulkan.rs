//! The Vulkan side of the interop tests: an application's own Vulkan
//! instance and device (ash) on the physical device whose deviceUUID is
//! the OpenCL device's CL_DEVICE_UUID_KHR, with exportable memory,
//! transfers, queue-family ownership transfers and exported or imported
//! semaphores. Everything it creates is destroyed when it is dropped.

use ash::vk;

/// The external semaphore handle types the tests exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemHandle {
    OpaqueFd,
    SyncFd,
}

impl SemHandle {
    pub fn vk(self) -> vk::ExternalSemaphoreHandleTypeFlags {
        match self {
            SemHandle::OpaqueFd => vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD,
            SemHandle::SyncFd => vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD,
        }
    }
}

/// The usage of the shared buffer: a storage buffer written and read by
/// transfers.
const BUFFER_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

pub struct Vk {
    _entry: ash::Entry,
    instance: ash::Instance,
    phys: vk::PhysicalDevice,
    pub device: ash::Device,
    queue: vk::Queue,
    pub family: u32,
    pool: vk::CommandPool,
    memory: vk::PhysicalDeviceMemoryProperties,
    mem_fd: ash::khr::external_memory_fd::Device,
    sem_fd: Option<ash::khr::external_semaphore_fd::Device>,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    images: Vec<(vk::Image, vk::DeviceMemory)>,
    semaphores: Vec<vk::Semaphore>,
    fences: Vec<vk::Fence>,
}

fn has_ext(exts: &[vk::ExtensionProperties], name: &std::ffi::CStr) -> bool {
    exts.iter()
        .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
}

impl Vk {
    /// A device on the physical device with `uuid`, or why there is none
    /// (no Vulkan loader, no such device, no VK_KHR_external_memory_fd).
    pub fn new(uuid: [u8; 16]) -> Result<Vk, String> {
        // SAFETY: loads the system Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("no Vulkan loader: {e}"))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: valid create info.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(|e| format!("vkCreateInstance: {e}"))?;
        // SAFETY: valid instance.
        let physes = unsafe { instance.enumerate_physical_devices() }.unwrap_or_default();
        let phys = physes.into_iter().find(|&p| {
            let mut id = vk::PhysicalDeviceIDProperties::default();
            let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
            // SAFETY: p belongs to the instance.
            unsafe { instance.get_physical_device_properties2(p, &mut props) };
            id.device_uuid == uuid
        });
        let Some(phys) = phys else {
            // SAFETY: nothing created from it.
            unsafe { instance.destroy_instance(None) };
            return Err("no Vulkan physical device has the CL device's UUID".into());
        };
        // SAFETY: phys belongs to the instance.
        let exts =
            unsafe { instance.enumerate_device_extension_properties(phys) }.unwrap_or_default();
        if !has_ext(&exts, c"VK_KHR_external_memory_fd") {
            // SAFETY: nothing created from it.
            unsafe { instance.destroy_instance(None) };
            return Err("the Vulkan device has no VK_KHR_external_memory_fd".into());
        }
        let sem_fd = has_ext(&exts, c"VK_KHR_external_semaphore_fd");
        // SAFETY: phys belongs to the instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(phys) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .expect("a compute queue family") as u32;
        let prio = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let mut names = vec![c"VK_KHR_external_memory_fd".as_ptr()];
        if sem_fd {
            names.push(c"VK_KHR_external_semaphore_fd".as_ptr());
        }
        let dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&names);
        // SAFETY: valid create info; the extensions are present.
        let device = unsafe { instance.create_device(phys, &dinfo, None) }
            .map_err(|e| format!("vkCreateDevice: {e}"))?;
        // SAFETY: the queue was requested.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pinfo = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device.
        let pool = unsafe { device.create_command_pool(&pinfo, None) }.expect("command pool");
        // SAFETY: phys belongs to the instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(phys) };
        let mem_fd = ash::khr::external_memory_fd::Device::new(&instance, &device);
        let sem_fd =
            sem_fd.then(|| ash::khr::external_semaphore_fd::Device::new(&instance, &device));
        Ok(Vk {
            _entry: entry,
            instance,
            phys,
            device,
            queue,
            family,
            pool,
            memory,
            mem_fd,
            sem_fd,
            buffers: Vec::new(),
            images: Vec::new(),
            semaphores: Vec::new(),
            fences: Vec::new(),
        })
    }

    /// Whether the device imports and exports binary semaphores as `h`
    /// (vkGetPhysicalDeviceExternalSemaphoreProperties).
    pub fn semaphore_support(&self, h: SemHandle) -> (bool, bool) {
        if self.sem_fd.is_none() {
            return (false, false);
        }
        let info = vk::PhysicalDeviceExternalSemaphoreInfo::default().handle_type(h.vk());
        let mut out = vk::ExternalSemaphoreProperties::default();
        // SAFETY: plain query.
        unsafe {
            self.instance
                .get_physical_device_external_semaphore_properties(self.phys, &info, &mut out)
        };
        let f = out.external_semaphore_features;
        (
            f.contains(vk::ExternalSemaphoreFeatureFlags::IMPORTABLE),
            f.contains(vk::ExternalSemaphoreFeatureFlags::EXPORTABLE),
        )
    }

    /// The external-memory features of opaque-fd buffers like
    /// [`Vk::exportable_buffer`]'s.
    fn opaque_fd_features(&self) -> vk::ExternalMemoryFeatureFlags {
        let info = vk::PhysicalDeviceExternalBufferInfo::default()
            .usage(BUFFER_USAGE)
            .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let mut out = vk::ExternalBufferProperties::default();
        // SAFETY: plain query.
        unsafe {
            self.instance
                .get_physical_device_external_buffer_properties(self.phys, &info, &mut out)
        };
        out.external_memory_properties.external_memory_features
    }

    /// Whether buffer memory is exportable and importable as an opaque fd.
    pub fn opaque_fd_buffers(&self) -> bool {
        self.opaque_fd_features().contains(
            vk::ExternalMemoryFeatureFlags::IMPORTABLE | vk::ExternalMemoryFeatureFlags::EXPORTABLE,
        )
    }

    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> u32 {
        (0..self.memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .expect("a memory type")
    }

    /// A buffer of `size` bytes in device-local memory exportable as an
    /// opaque fd (the memory is allocated for it alone).
    pub fn exportable_buffer(&mut self, size: u64) -> (vk::Buffer, vk::DeviceMemory) {
        let ty = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
        let mut ext = vk::ExternalMemoryBufferCreateInfo::default().handle_types(ty);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(BUFFER_USAGE)
            .push_next(&mut ext);
        // SAFETY: valid create info.
        let buf = unsafe { self.device.create_buffer(&info, None) }.expect("vkCreateBuffer");
        // SAFETY: buf is ours.
        let req = unsafe { self.device.get_buffer_memory_requirements(buf) };
        let mut export = vk::ExportMemoryAllocateInfo::default().handle_types(ty);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(buf);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(
                self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL),
            )
            .push_next(&mut export);
        // The memory of a handle type that needs it is a dedicated allocation.
        if self
            .opaque_fd_features()
            .contains(vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY)
        {
            alloc = alloc.push_next(&mut dedicated);
        }
        // SAFETY: valid allocate info.
        let mem = unsafe { self.device.allocate_memory(&alloc, None) }.expect("vkAllocateMemory");
        // SAFETY: fresh memory meeting the requirements.
        unsafe { self.device.bind_buffer_memory(buf, mem, 0) }.expect("vkBindBufferMemory");
        self.buffers.push((buf, mem));
        (buf, mem)
    }

    /// Whether 2D images of `format` and `usage` (OPTIMAL tiling) can be
    /// exported and imported as opaque fds, and whether they need a
    /// dedicated allocation.
    pub fn opaque_fd_images(&self, format: vk::Format, usage: vk::ImageUsageFlags) -> Option<bool> {
        let mut ext_info = vk::PhysicalDeviceExternalImageFormatInfo::default()
            .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let info = vk::PhysicalDeviceImageFormatInfo2::default()
            .format(format)
            .ty(vk::ImageType::TYPE_2D)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .push_next(&mut ext_info);
        let mut ext_props = vk::ExternalImageFormatProperties::default();
        let mut props = vk::ImageFormatProperties2::default().push_next(&mut ext_props);
        // SAFETY: plain query.
        unsafe {
            self.instance
                .get_physical_device_image_format_properties2(self.phys, &info, &mut props)
        }
        .ok()?;
        let f = ext_props
            .external_memory_properties
            .external_memory_features;
        f.contains(
            vk::ExternalMemoryFeatureFlags::IMPORTABLE | vk::ExternalMemoryFeatureFlags::EXPORTABLE,
        )
        .then_some(f.contains(vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY))
    }

    /// A 2D image of `format`, `w` x `h`, `usage`, OPTIMAL tiling, one mip
    /// level, in device-local memory exportable as an opaque fd
    /// (`dedicated`: the memory is a dedicated allocation).
    pub fn exportable_image(
        &mut self,
        format: vk::Format,
        (w, h): (u32, u32),
        usage: vk::ImageUsageFlags,
        dedicated: bool,
    ) -> (vk::Image, vk::DeviceMemory) {
        let ty = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
        let mut ext = vk::ExternalMemoryImageCreateInfo::default().handle_types(ty);
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .push_next(&mut ext);
        // SAFETY: valid create info.
        let image = unsafe { self.device.create_image(&info, None) }.expect("vkCreateImage");
        // SAFETY: image is ours.
        let req = unsafe { self.device.get_image_memory_requirements(image) };
        let mut export = vk::ExportMemoryAllocateInfo::default().handle_types(ty);
        let mut dedicated_info = vk::MemoryDedicatedAllocateInfo::default().image(image);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(
                self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL),
            )
            .push_next(&mut export);
        if dedicated {
            alloc = alloc.push_next(&mut dedicated_info);
        }
        // SAFETY: valid allocate info.
        let mem = unsafe { self.device.allocate_memory(&alloc, None) }.expect("vkAllocateMemory");
        // SAFETY: fresh memory meeting the requirements.
        unsafe { self.device.bind_image_memory(image, mem, 0) }.expect("vkBindImageMemory");
        self.images.push((image, mem));
        (image, mem)
    }

    /// A host-visible, host-coherent buffer of `size` bytes and its mapping.
    pub fn host_buffer(&mut self, size: u64) -> (vk::Buffer, *mut u8) {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info.
        let buf = unsafe { self.device.create_buffer(&info, None) }.expect("vkCreateBuffer");
        // SAFETY: buf is ours.
        let req = unsafe { self.device.get_buffer_memory_requirements(buf) };
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(self.memory_type(
                req.memory_type_bits,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            ));
        // SAFETY: valid allocate info.
        let mem = unsafe { self.device.allocate_memory(&alloc, None) }.expect("vkAllocateMemory");
        // SAFETY: fresh memory meeting the requirements; host-visible.
        let ptr = unsafe {
            self.device.bind_buffer_memory(buf, mem, 0).expect("bind");
            self.device
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .expect("vkMapMemory")
        };
        self.buffers.push((buf, mem));
        (buf, ptr.cast())
    }

    /// A new opaque fd of `mem` (the caller owns it).
    pub fn memory_fd(&self, mem: vk::DeviceMemory) -> i32 {
        let info = vk::MemoryGetFdInfoKHR::default()
            .memory(mem)
            .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        // SAFETY: exportable memory.
        unsafe { self.mem_fd.get_memory_fd(&info) }.expect("vkGetMemoryFdKHR")
    }

    /// A binary semaphore exportable as `h`.
    pub fn exportable_semaphore(&mut self, h: SemHandle) -> vk::Semaphore {
        let mut ex = vk::ExportSemaphoreCreateInfo::default().handle_types(h.vk());
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut ex);
        // SAFETY: valid create info.
        let s = unsafe { self.device.create_semaphore(&info, None) }.expect("vkCreateSemaphore");
        self.semaphores.push(s);
        s
    }

    /// A new fd for `s`'s payload (after its signal was submitted for a
    /// sync fd).
    pub fn semaphore_fd(&self, s: vk::Semaphore, h: SemHandle) -> i32 {
        let info = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(s)
            .handle_type(h.vk());
        let fns = self.sem_fd.as_ref().expect("VK_KHR_external_semaphore_fd");
        // SAFETY: exportable semaphore.
        unsafe { fns.get_semaphore_fd(&info) }.expect("vkGetSemaphoreFdKHR")
    }

    /// A binary semaphore whose payload is `fd`'s (Vulkan takes `fd`).
    pub fn imported_semaphore(&mut self, h: SemHandle, fd: i32) -> vk::Semaphore {
        let info = vk::SemaphoreCreateInfo::default();
        // SAFETY: valid create info.
        let s = unsafe { self.device.create_semaphore(&info, None) }.expect("vkCreateSemaphore");
        self.semaphores.push(s);
        let flags = match h {
            SemHandle::OpaqueFd => vk::SemaphoreImportFlags::empty(),
            SemHandle::SyncFd => vk::SemaphoreImportFlags::TEMPORARY,
        };
        let imp = vk::ImportSemaphoreFdInfoKHR::default()
            .semaphore(s)
            .flags(flags)
            .handle_type(h.vk())
            .fd(fd);
        let fns = self.sem_fd.as_ref().expect("VK_KHR_external_semaphore_fd");
        // SAFETY: a fresh semaphore and an fd of the right type.
        unsafe { fns.import_semaphore_fd(&imp) }.expect("vkImportSemaphoreFdKHR");
        s
    }

    /// Records `record` into a new command buffer and submits it, waiting
    /// for `wait` and signalling `signal`; returns the fence it signals.
    pub fn submit(
        &mut self,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
        wait: &[vk::Semaphore],
        signal: &[vk::Semaphore],
    ) -> vk::Fence {
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool, used by this thread only.
        let cb = unsafe { self.device.allocate_command_buffers(&ai) }.expect("cb")[0];
        let bi = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: a fresh command buffer.
        unsafe { self.device.begin_command_buffer(cb, &bi) }.expect("begin");
        record(&self.device, cb);
        // SAFETY: recording.
        unsafe { self.device.end_command_buffer(cb) }.expect("end");
        // SAFETY: valid device.
        let fence = unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .expect("fence");
        self.fences.push(fence);
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; wait.len()];
        let cbs = [cb];
        let si = [vk::SubmitInfo::default()
            .command_buffers(&cbs)
            .wait_semaphores(wait)
            .wait_dst_stage_mask(&stages)
            .signal_semaphores(signal)];
        // SAFETY: everything referenced lives until the fence is waited.
        unsafe { self.device.queue_submit(self.queue, &si, fence) }.expect("vkQueueSubmit");
        fence
    }

    /// Waits for `fence` (at most 20 s).
    pub fn wait(&self, fence: vk::Fence) {
        // SAFETY: a fence of this device.
        unsafe { self.device.wait_for_fences(&[fence], true, 20_000_000_000) }
            .expect("vkWaitForFences");
    }

    pub fn wait_idle(&self) {
        // SAFETY: valid queue.
        unsafe { self.device.queue_wait_idle(self.queue) }.expect("vkQueueWaitIdle");
    }
}

impl Drop for Vk {
    fn drop(&mut self) {
        // SAFETY: the device is idle once vkDeviceWaitIdle returns; every
        // object was created here.
        unsafe {
            let _ = self.device.device_wait_idle();
            for f in self.fences.drain(..) {
                self.device.destroy_fence(f, None);
            }
            for s in self.semaphores.drain(..) {
                self.device.destroy_semaphore(s, None);
            }
            for (i, m) in self.images.drain(..) {
                self.device.destroy_image(i, None);
                self.device.free_memory(m, None);
            }
            for (b, m) in self.buffers.drain(..) {
                self.device.destroy_buffer(b, None);
                self.device.free_memory(m, None);
            }
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Records the queue-family ownership transfer of `buf` from `family` to
/// VK_QUEUE_FAMILY_EXTERNAL (after transfer writes), or back (before
/// transfer reads).
pub fn ownership(
    device: &ash::Device,
    family: u32,
    cb: vk::CommandBuffer,
    buf: vk::Buffer,
    to_external: bool,
) {
    let (src, dst, sa, da) = if to_external {
        (
            family,
            vk::QUEUE_FAMILY_EXTERNAL,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::empty(),
        )
    } else {
        (
            vk::QUEUE_FAMILY_EXTERNAL,
            family,
            vk::AccessFlags::empty(),
            vk::AccessFlags::TRANSFER_READ,
        )
    };
    let b = [vk::BufferMemoryBarrier::default()
        .src_access_mask(sa)
        .dst_access_mask(da)
        .src_queue_family_index(src)
        .dst_queue_family_index(dst)
        .buffer(buf)
        .size(vk::WHOLE_SIZE)];
    // SAFETY: cb is recording.
    unsafe {
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &[],
            &b,
            &[],
        )
    };
}

/// Records an image memory barrier on the whole single-layer color image:
/// a layout transition and/or a queue-family ownership transfer.
#[allow(clippy::too_many_arguments)]
pub fn image_barrier(
    device: &ash::Device,
    cb: vk::CommandBuffer,
    image: vk::Image,
    (old, new): (vk::ImageLayout, vk::ImageLayout),
    (src_family, dst_family): (u32, u32),
    (src_access, dst_access): (vk::AccessFlags, vk::AccessFlags),
) {
    let b = [vk::ImageMemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(src_family)
        .dst_queue_family_index(dst_family)
        .image(image)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        })];
    // SAFETY: cb is recording.
    unsafe {
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &b,
        )
    };
}
