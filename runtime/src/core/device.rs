//! A CL device: one Vulkan physical device with what ferrocl needs. Every
//! value clGetDeviceInfo reports is derived here from the Vulkan
//! properties, limits and features (the ICD layer only formats them).
//!
//! Layer: platform and devices (above `crate::vk`), below contexts and every
//! object that belongs to a device.

use std::sync::{Arc, OnceLock};

use ash::vk;
use ferrocl_compiler::{Addressing, DeviceCaps};
use opencl_sys::*;

use super::error::CLResult;
use super::object::{tag, Base, ClObject};
use crate::vk::buffer::{Buffer, BufferKind};
use crate::vk::device::Device as VkDevice;
use crate::vk::instance::PhysicalDevice;
use crate::vk::loop_status::LoopStatus;
use crate::vk::queue::{Command, QueueEngine, Untracked};

#[repr(C)]
pub struct Device {
    base: Base,
    pub phys: Arc<PhysicalDevice>,
    pub is_default: bool,
    vk: OnceLock<CLResult<Arc<VkDevice>>>,
    /// A queue engine for the runtime's own transfers (initial buffer contents).
    internal: OnceLock<CLResult<QueueEngine>>,
    /// CL_DEVICE_IMAGE_SUPPORT, decided on first query (`image_support`).
    pub(super) image_support: OnceLock<bool>,
    /// The default address format of builds (`addressing`), decided once.
    addressing: OnceLock<Addressing>,
    /// The buffer bound for NULL buffer arguments of descriptor-addressed
    /// kernels (`null_buffer`).
    null_buffer: OnceLock<CLResult<Arc<Buffer>>>,
    /// The loop-status words of kernels built with
    /// `DeviceCaps::loop_limiter` (`loop_status`).
    loop_status: OnceLock<CLResult<Arc<LoopStatus>>>,
    /// `loop_limiter`, decided once.
    loop_limiter: OnceLock<bool>,
    /// CL_DEVICE_MAX_MEM_ALLOC_SIZE, decided once (`max_mem_alloc_size`).
    large_alloc: OnceLock<u64>,
    /// What the binding of a 2D image argument that a launch does not use
    /// holds (`super::image::image_placeholders`).
    pub(super) image_placeholders: OnceLock<CLResult<Arc<crate::vk::image::ImagePlaceholders>>>,
}

impl ClObject for Device {
    const TAG: u32 = tag(b"DEVI");
    const INVALID: cl_int = CL_INVALID_DEVICE;
    fn base(&self) -> &Base {
        &self.base
    }
}

/// A numeric version as cl_version (major 10 bits, minor 10, patch 12).
/// The SPIR-V versions clCreateProgramWithIL takes (CL_DEVICE_IL_VERSION,
/// CL_DEVICE_ILS_WITH_VERSION): OpenCL (Kernel) SPIR-V 1.0 to 1.4, as
/// `program::is_supported_spirv` checks.
pub const IL_VERSIONS: [(&str, (u32, u32, u32)); 5] = [
    ("SPIR-V", (1, 0, 0)),
    ("SPIR-V", (1, 1, 0)),
    ("SPIR-V", (1, 2, 0)),
    ("SPIR-V", (1, 3, 0)),
    ("SPIR-V", (1, 4, 0)),
];

/// SPIR-V's Capability enumerants GroupNonUniformShuffle and
/// GroupNonUniformShuffleRelative (CL_DEVICE_SPIRV_CAPABILITIES values).
const SPIRV_GROUP_NON_UNIFORM_SHUFFLE: u32 = 65;
const SPIRV_GROUP_NON_UNIFORM_SHUFFLE_RELATIVE: u32 = 66;

pub const fn cl_version(major: u32, minor: u32, patch: u32) -> u32 {
    (major << 22) | (minor << 12) | patch
}

impl Device {
    pub fn new(phys: Arc<PhysicalDevice>, is_default: bool) -> Device {
        Device {
            base: Base::new(Self::TAG),
            phys,
            is_default,
            vk: OnceLock::new(),
            internal: OnceLock::new(),
            image_support: OnceLock::new(),
            image_placeholders: OnceLock::new(),
            addressing: OnceLock::new(),
            null_buffer: OnceLock::new(),
            loop_status: OnceLock::new(),
            loop_limiter: OnceLock::new(),
            large_alloc: OnceLock::new(),
        }
    }

    /// The logical Vulkan device, created on first use.
    pub fn vk(&self) -> CLResult<Arc<VkDevice>> {
        self.vk
            .get_or_init(|| {
                let d = VkDevice::new(self.phys.clone());
                super::exit::watch();
                d
            })
            .clone()
    }

    /// Copies `data` into `dst` at `offset` and waits until it is there.
    pub fn upload_sync(&self, dst: &Arc<Buffer>, offset: u64, data: &[u8]) -> CLResult<()> {
        let vkdev = self.vk()?;
        let staging = Arc::new(vkdev.staging(data.len() as u64, BufferKind::Upload)?);
        let ptr = staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
        // SAFETY: the staging buffer is mapped, at least data.len() bytes, and unused.
        unsafe { super::hostcopy::copy(data.as_ptr(), ptr, data.len()) };
        let (src, dstb, len) = (staging.raw, dst.raw, data.len() as u64);
        let record = Box::new(move |r: &crate::vk::queue::Recorder| {
            r.copy_buffer(src, 0, dstb, offset, len);
            Ok(())
        });
        self.run_sync(record, Box::new((staging, dst.clone())))
    }

    /// Records `record` on the runtime's own queue and waits until the
    /// device has executed it (object creation: initial contents, image
    /// layouts); `hold` keeps what the device uses alive until then.
    pub fn run_sync(
        &self,
        record: crate::vk::queue::RecordFn,
        hold: Box<dyn Send>,
    ) -> CLResult<()> {
        let vkdev = self.vk()?;
        let engine = self
            .internal
            .get_or_init(|| QueueEngine::new(&vkdev, false))
            .as_ref()
            .map_err(|e| *e)?;
        let (tx, rx) = std::sync::mpsc::channel();
        engine.enqueue(Command {
            wait: None,
            check: None,
            after_previous: true,
            before_next: false,
            progress: Arc::new(Untracked),
            record: Some(record),
            done: Box::new(move |res| {
                let failed = res.is_err();
                let _ = tx.send(res.map(|_| ()));
                failed.then_some(hold)
            }),
            semaphores: None,
        });
        rx.recv().map_err(|_| CL_OUT_OF_RESOURCES)?
    }

    fn limits(&self) -> &vk::PhysicalDeviceLimits {
        &self.phys.properties.limits
    }

    /// CL_DEVICE_TYPE: one type, never CL_DEVICE_TYPE_DEFAULT ("the
    /// device type [...] must be a single device type; CL_DEVICE_TYPE_DEFAULT
    /// and CL_DEVICE_TYPE_ALL are only used to select devices", OpenCL 3.0.16+).
    pub fn device_type(&self) -> cl_device_type {
        if self.phys.is_cpu() {
            CL_DEVICE_TYPE_CPU
        } else {
            CL_DEVICE_TYPE_GPU
        }
    }

    /// Whether clGetDeviceIDs / clCreateContextFromType with `selector`
    /// (a combination of types, CL_DEVICE_TYPE_DEFAULT or CL_DEVICE_TYPE_ALL)
    /// selects this device.
    pub fn selected_by(&self, selector: cl_device_type) -> bool {
        selector == CL_DEVICE_TYPE_ALL
            || self.device_type() & selector != 0
            || (self.is_default && selector & CL_DEVICE_TYPE_DEFAULT != 0)
    }

    pub fn name(&self) -> String {
        self.phys.name()
    }

    /// CL_DEVICE_VENDOR: the implementation's name on every device, never
    /// the hardware vendor's. Applications take vendor-only paths on that
    /// string alone: darktable 4.2 compiles inline PTX (`asm volatile`,
    /// `-DNVIDIA_SM_20`) for any device whose vendor starts with "NVIDIA",
    /// which only NVIDIA's compiler builds, and then drops the device.
    /// The hardware stays visible in CL_DEVICE_NAME and
    /// CL_DEVICE_VENDOR_ID (README.md, "Vendor identity").
    pub fn vendor(&self) -> &'static str {
        "ferrocl"
    }

    pub fn vendor_id(&self) -> u32 {
        self.phys.properties.vendor_id
    }

    pub fn driver_version(&self) -> String {
        let v = self.phys.properties.driver_version;
        // The compiler's fingerprint: applications key their caches of
        // program binaries on this string (`ferrocl_compiler::COMPILER_ID`).
        format!(
            "{}+{} (Vulkan {}.{}.{}, {} {})",
            env!("CARGO_PKG_VERSION"),
            &ferrocl_compiler::COMPILER_ID[..8],
            vk::api_version_major(self.phys.properties.api_version),
            vk::api_version_minor(self.phys.properties.api_version),
            vk::api_version_patch(self.phys.properties.api_version),
            self.phys.driver_name,
            if self.phys.driver_info.is_empty() {
                format!("{v:#x}")
            } else {
                self.phys.driver_info.clone()
            }
        )
    }

    pub fn max_compute_units(&self) -> u32 {
        if let Some(n) = self.phys.sm_count {
            return n.max(1);
        }
        if self.phys.is_cpu() {
            return std::thread::available_parallelism()
                .map(|n| n.get() as u32)
                .unwrap_or(1);
        }
        1
    }

    pub fn max_work_item_sizes(&self) -> [usize; 3] {
        let s = self.limits().max_compute_work_group_size;
        [s[0] as usize, s[1] as usize, s[2] as usize]
    }

    pub fn max_work_group_size(&self) -> usize {
        self.limits().max_compute_work_group_invocations as usize
    }

    pub fn global_mem_size(&self) -> u64 {
        self.phys.device_local_heap_size()
    }

    /// The largest single allocation Vulkan promises, as CL reports it:
    /// maxMemoryAllocationSize within the share of memory below.
    fn promised_alloc_size(&self) -> u64 {
        let min_required = (1u64 << 30).min(self.global_mem_size() / 4).max(32 << 20);
        let vk_max = self
            .phys
            .max_memory_allocation_size
            .min(self.global_mem_size() / self.alloc_share());
        vk_max.max(min_required.min(self.global_mem_size()))
    }

    /// On a GPU, a quarter of global memory, as the GPU vendors' own
    /// drivers report it (and what applications size their buffers by).
    /// A CPU device's memory is the host's (CL_DEVICE_HOST_UNIFIED_MEMORY),
    /// and its Vulkan heap can be small (lavapipe: a nominal 2 GiB): a
    /// quarter of it is 512 MiB there, and applications halve a unified
    /// device's sizes (hashcat then keeps 256 MiB spare in one allocation,
    /// so it found no room at all). It gets all of it.
    fn alloc_share(&self) -> u64 {
        if self.phys.is_cpu() {
            1
        } else {
            4
        }
    }

    /// CL_DEVICE_MAX_MEM_ALLOC_SIZE: that share of global memory, within
    /// maxBufferSize (Vulkan 1.3 / VK_KHR_maintenance4). Beyond Vulkan's
    /// maxMemoryAllocationSize (4 GiB on NVIDIA) only where the driver
    /// accepts it: one allocation of that size is tried, once, on the
    /// first ask (`vk::Device::can_allocate_buffer`); otherwise what Vulkan
    /// promises ([`Device::promised_alloc_size`]).
    pub fn max_mem_alloc_size(&self) -> u64 {
        *self.large_alloc.get_or_init(|| {
            let promised = self.promised_alloc_size();
            let share = self.global_mem_size() / self.alloc_share();
            let want = self.phys.max_buffer_size.map_or(promised, |m| share.min(m));
            let accepted = want > promised && self.vk().is_ok_and(|v| v.can_allocate_buffer(want));
            if accepted {
                want
            } else {
                promised
            }
        })
    }

    /// Whether one buffer of `size` bytes is within
    /// CL_DEVICE_MAX_MEM_ALLOC_SIZE, without the allocation probe of
    /// [`Device::max_mem_alloc_size`] for sizes Vulkan promises anyway.
    pub fn accepts_alloc_size(&self, size: u64) -> bool {
        size <= self.promised_alloc_size() || size <= self.max_mem_alloc_size()
    }

    pub fn local_mem_size(&self) -> u64 {
        self.limits().max_compute_shared_memory_size as u64
    }

    pub fn max_parameter_size(&self) -> usize {
        // The argument block moves to a device buffer when it does not fit
        // in push constants, so the CL minimum (1024) always holds.
        1024
    }

    pub fn fp64(&self) -> bool {
        self.phys.features.shader_float64
    }

    /// cl_khr_fp16: half arithmetic where Vulkan has shaderFloat16 (the
    /// compiler's `DeviceCaps::fp16`; its math goes through the float
    /// functions, `frontend::libclc`'s "Half precision").
    pub fn fp16(&self) -> bool {
        self.phys.features.shader_float16
    }

    pub fn profiling_timer_resolution(&self) -> usize {
        (self.limits().timestamp_period.ceil() as usize).max(1)
    }

    pub fn subgroup_size(&self) -> u32 {
        self.phys.subgroup_size
    }

    /// OpenCL sub-groups (cl_khr_subgroups): `Some` where the Vulkan device
    /// can back them (`PhysicalDevice::subgroup_mode`).
    pub fn subgroup_mode(&self) -> Option<crate::vk::instance::SubgroupMode> {
        self.phys.subgroup_mode()
    }

    /// CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, which the
    /// `cl_khr_subgroups` extension requires (OpenCL 3.0's
    /// `__opencl_c_subgroups` feature does not). Vulkan promises no forward
    /// progress between subgroups; NVIDIA's GPUs give it: every warp of a
    /// work-group is resident and scheduled independently (CTS
    /// test_subgroups `ifp` checks it). lavapipe runs a work-group's
    /// subgroups one after the other between barriers: no.
    pub fn subgroup_forward_progress(&self) -> bool {
        const NVIDIA: u32 = 0x10DE;
        self.subgroup_mode().is_some() && self.vendor_id() == NVIDIA
    }

    /// The `cl_khr_subgroups` extension is reported.
    pub fn khr_subgroups(&self) -> bool {
        self.subgroup_forward_progress()
    }

    /// CL_DEVICE_MAX_NUM_SUB_GROUPS: sub-groups of the largest work-group a
    /// sub-group kernel may have; 0 without sub-groups.
    pub fn max_num_sub_groups(&self) -> u32 {
        self.subgroup_mode().map_or(0, |m| {
            // Sub-group kernels run one-dimensional Vulkan work-groups.
            let wg = (self.max_work_group_size() as u32)
                .min(m.max_invocations)
                .min(self.max_work_item_sizes()[0] as u32);
            wg.div_ceil(m.size)
        })
    }

    /// Device extensions with their versions: only what works end to end.
    pub fn extensions(&self) -> Vec<(&'static str, (u32, u32, u32))> {
        let mut e = vec![
            // 32-bit atomics on global and local memory: core since 1.1,
            // but a 1.1+ device still reports the extensions (CTS
            // min_max_device_version), and their atom_* spellings work.
            ("cl_khr_global_int32_base_atomics", (1, 0, 0)),
            ("cl_khr_global_int32_extended_atomics", (1, 0, 0)),
            ("cl_khr_local_int32_base_atomics", (1, 0, 0)),
            ("cl_khr_local_int32_extended_atomics", (1, 0, 0)),
            ("cl_khr_byte_addressable_store", (1, 0, 0)),
            ("cl_khr_icd", (2, 0, 0)),
            ("cl_khr_extended_versioning", (1, 0, 0)),
            ("cl_khr_device_uuid", (1, 0, 0)),
        ];
        if self.fp64() {
            e.push(("cl_khr_fp64", (1, 0, 0)));
        }
        if self.fp16() {
            e.push(("cl_khr_fp16", (1, 0, 0)));
        }
        // 64-bit atomics: Int64Atomics on __global memory, a work-group
        // lock emulation on __local memory (the compiler's
        // `lower::local64`); the compiler declares them under the same
        // condition (`DeviceCaps::int64_atomics`).
        if self.compiler_caps().int64_atomics {
            e.push(("cl_khr_int64_base_atomics", (1, 0, 0)));
            e.push(("cl_khr_int64_extended_atomics", (1, 0, 0)));
        }
        if self.phys.pci_bus.is_some() {
            e.push(("cl_khr_pci_bus_info", (1, 0, 0)));
        }
        if self.image_3d_writes() {
            e.push(("cl_khr_3d_image_writes", (1, 0, 0)));
        }
        if self.depth_images() {
            e.push(("cl_khr_depth_images", (1, 0, 0)));
        }
        if self.mipmap_image() {
            e.push(("cl_khr_mipmap_image", (1, 0, 0)));
        }
        if self.mipmap_image_writes() {
            e.push(("cl_khr_mipmap_image_writes", (1, 0, 0)));
        }
        if self.image2d_from_buffer() {
            e.push(("cl_khr_image2d_from_buffer", (1, 0, 0)));
        }
        if self.khr_subgroups() {
            e.push(("cl_khr_subgroups", (1, 0, 0)));
        }
        // The optional sub-group extensions need sub-groups only, not the
        // forward progress of cl_khr_subgroups; the compiler decides which
        // (from supportedOperations) so its macros match this list.
        e.extend(self.compiler_caps().subgroup_extensions());
        // OpenCL 3.1's core extensions that every device has: bit-field
        // instructions on every width (`passes::lower::bit_field`), integer
        // dot products (Vulkan's or exact emulation,
        // `passes::lower::dot_product`), expect/assume hints, the suggested
        // local size query and the SPIR-V queries.
        e.extend([
            ("cl_khr_extended_bit_ops", (1, 0, 0)),
            ("cl_khr_integer_dot_product", (2, 0, 0)),
            ("cl_khr_expect_assume", (1, 0, 0)),
            ("cl_khr_suggested_local_work_size", (1, 0, 0)),
            ("cl_khr_spirv_queries", (1, 0, 0)),
        ]);
        let (device, sub_group) = self.compiler_caps().kernel_clock_scopes();
        if device || sub_group {
            e.push(("cl_khr_kernel_clock", (1, 0, 0)));
        }
        // Floating-point atomics: natively where Vulkan has them, else
        // compare-exchange loops (the compiler's `lower::atomic::float`);
        // which types and operations: `fp_atomic_capabilities`.
        e.push(("cl_ext_float_atomics", (1, 0, 0)));
        // Raw device addresses of buffers: every device has Vulkan buffer
        // device addresses, and kernels built with physical addressing
        // (the default) take them as pointers (`super::device_address`).
        // 1.0.2 is the published API ferrocl follows (OpenCL-Headers'
        // CL_EXT_BUFFER_DEVICE_ADDRESS_EXTENSION_VERSION; earlier numbers
        // were PoCL's drafts with CL_MEM_DEVICE_PTR_EXT), and the version
        // CTS test_cl_ext_buffer_device_address requires.
        e.push(("cl_ext_buffer_device_address", (1, 0, 2)));
        // Intel USM (`super::usm`), where some allocation kind is had:
        // device allocations always are, so every device reports it.
        let usm = [
            CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
            CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
            CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
        ];
        if usm.iter().any(|&q| self.usm_capabilities(q) != 0) {
            e.push(("cl_intel_unified_shared_memory", (1, 0, 0)));
        }
        // Commands recorded once into Vulkan command buffers and replayed,
        // kernel commands updated by re-recording (`super::command_buffer`).
        e.push((
            "cl_khr_command_buffer",
            super::command_buffer::EXTENSION_VERSION,
        ));
        e.push((
            "cl_khr_command_buffer_mutable_dispatch",
            super::command_buffer::MUTABLE_DISPATCH_VERSION,
        ));
        // Commands of several queues (of any devices of a context) in one
        // command buffer, synchronized through the queues' events, and
        // remapping (`super::command_buffer`).
        e.push((
            "cl_khr_command_buffer_multi_device",
            super::command_buffer::MULTI_DEVICE_VERSION,
        ));
        // Interop: semaphores, and external memory and semaphores for the
        // handle types the Vulkan device has (`super::external_memory`,
        // `super::semaphore`).
        e.extend(super::external_memory::extensions(self));
        e.extend(super::semaphore::extensions(self));
        e
    }

    /// The USM capability query `query` (CL_DEVICE_*_MEM_CAPABILITIES_INTEL;
    /// `super::usm` has the reasons): device allocations are device-local
    /// storage with a device address, reached and updated atomically by
    /// kernels; host and single-device shared ones are SVM's shared memory,
    /// where the device has it, with concurrent (and concurrent atomic)
    /// access exactly where SVM atomics hold (`svm_atomics`: the host and
    /// a running kernel on one allocation, atomics included);
    /// cross-device shared and shared system allocations are never
    /// reported.
    pub fn usm_capabilities(
        &self,
        query: cl_device_info,
    ) -> cl_device_unified_shared_memory_capabilities_intel {
        let access =
            CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL;
        let concurrent = CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL
            | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;
        match query {
            CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL => access,
            CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL
            | CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL => {
                let svm = self.svm_capabilities();
                if svm & CL_DEVICE_SVM_ATOMICS != 0 {
                    access | concurrent
                } else if svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER != 0 {
                    access
                } else {
                    0
                }
            }
            _ => 0,
        }
    }

    /// CL_DEVICE_SVM_CAPABILITIES (`super::svm` has the design): coarse-
    /// and fine-grained buffer SVM where an allocation can have its host
    /// mapping at its device address (a probe allocation on first ask,
    /// `vk::Device::shared_memory_works`); the memory is always
    /// host-visible and host-coherent, and every command buffer ends with
    /// a host barrier, so the host reads and writes it in place between
    /// commands. SVM atomics only where [`Device::svm_atomics`] holds.
    /// Fine-grained system SVM never (malloc'd memory has no device
    /// address).
    pub fn svm_capabilities(&self) -> cl_device_svm_capabilities {
        if !self.vk().is_ok_and(|v| v.shared_memory_works()) {
            return 0;
        }
        let buffer = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
        if self.svm_atomics() {
            buffer | CL_DEVICE_SVM_ATOMICS
        } else {
            buffer
        }
    }

    /// Whether the host and a running kernel may update one SVM location
    /// atomically and see each other's updates while the kernel runs
    /// (CL_DEVICE_SVM_ATOMICS, USM concurrent access). Vulkan promises
    /// nothing of the kind, so it is reported only where it holds
    /// physically: a CPU device (lavapipe), whose kernels run on the
    /// host's own cores, in the process's memory, with the host's atomic
    /// instructions, and which has device-scope atomics
    /// (`DeviceCaps::device_scope_atomics`: all-SVM-devices scope is
    /// device scope). `tests/tests/svm_fine_grain.rs` proves it on
    /// lavapipe with a kernel and the host handing a flag to and fro
    /// while the kernel runs. A GPU's writes may sit in its caches, and
    /// its atomics on host memory across the bus are not host atomics.
    pub fn svm_atomics(&self) -> bool {
        self.phys.is_cpu() && self.compiler_caps().device_scope_atomics()
    }

    /// The OpenCL 3.1 requirements (API, OpenCL C and SPIR-V environment
    /// specifications, "Summary of Changes from OpenCL 3.0 to OpenCL 3.1")
    /// this device misses, by name; empty where it is a 3.1 device. Each is
    /// checked against what the device reports, so the version cannot
    /// claim more than the queries:
    /// - OpenCL C 3.1 (`DeviceCaps::opencl_c_3_1`): sub-groups with the
    ///   extended types, shuffles, relative shuffles and rotates;
    /// - the extensions 3.1 promoted to core, reported;
    /// - SPIR-V 1.0 to 1.4 (`IL_VERSIONS`; clCreateProgramWithIL checks the
    ///   same range, `program::is_supported_spirv`), taking modules that
    ///   declare SPV_KHR_bit_instructions, SPV_KHR_integer_dot_product and
    ///   SPV_KHR_subgroup_rotate (`ferrocl_compiler::spirv_extensions`),
    ///   with the sub-group shuffle capabilities of SPIR-V 1.3;
    /// - the 4x8-bit packed dot product (CL_DEVICE_INTEGER_DOT_PRODUCT_
    ///   CAPABILITIES), which ferrocl has on every device.
    ///
    /// What 3.1 asks of the platform rather than a device (zero-size
    /// `__local` arguments, clGetKernelSuggestedLocalWorkSize, printf's
    /// `z` and `t`) ferrocl does everywhere.
    pub fn opencl_3_1_missing(&self) -> Vec<&'static str> {
        let caps = self.compiler_caps();
        let mut missing = Vec::new();
        if self.max_num_sub_groups() == 0 {
            missing.push("sub-groups");
        }
        if !caps.opencl_c_3_1() {
            missing.push("OpenCL C 3.1");
        }
        let exts = self.extensions();
        for name in [
            "cl_khr_device_uuid",
            "cl_khr_extended_bit_ops",
            "cl_khr_integer_dot_product",
            "cl_khr_spirv_queries",
            "cl_khr_suggested_local_work_size",
        ]
        .into_iter()
        .chain(DeviceCaps::SUBGROUP_EXTENSIONS_3_1)
        {
            if !exts.iter().any(|(n, _)| *n == name) {
                missing.push(name);
            }
        }
        if !(0..=4).all(|minor| IL_VERSIONS.contains(&("SPIR-V", (1, minor, 0)))) {
            missing.push("SPIR-V 1.0 to 1.4");
        }
        let spirv_exts = ferrocl_compiler::spirv_extensions(&caps);
        for name in [
            "SPV_KHR_bit_instructions",
            "SPV_KHR_integer_dot_product",
            "SPV_KHR_subgroup_rotate",
        ] {
            if !spirv_exts.contains(&name) {
                missing.push(name);
            }
        }
        let spirv_caps = ferrocl_compiler::spirv_capability_values(&caps);
        for (cap, name) in [
            (
                SPIRV_GROUP_NON_UNIFORM_SHUFFLE,
                "SPIR-V GroupNonUniformShuffle",
            ),
            (
                SPIRV_GROUP_NON_UNIFORM_SHUFFLE_RELATIVE,
                "SPIR-V GroupNonUniformShuffleRelative",
            ),
        ] {
            if !spirv_caps.contains(&cap) {
                missing.push(name);
            }
        }
        missing
    }

    /// CL_DEVICE_NUMERIC_VERSION: OpenCL 3.1 where every 3.1 requirement
    /// holds (`opencl_3_1_missing`), else 3.0.
    pub fn opencl_version(&self) -> (u32, u32, u32) {
        if self.opencl_3_1_missing().is_empty() {
            (3, 1, 0)
        } else {
            (3, 0, 0)
        }
    }

    /// CL_DEVICE_OPENCL_C_ALL_VERSIONS: 1.0, 1.1, 1.2 and 3.0, and 3.1 on
    /// a 3.1 device (`-cl-std=CL3.1` builds where `DeviceCaps::
    /// opencl_c_3_1`, the same condition).
    pub fn opencl_c_versions(&self) -> Vec<(&'static str, (u32, u32, u32))> {
        let mut v = vec![
            ("OpenCL C", (1, 0, 0)),
            ("OpenCL C", (1, 1, 0)),
            ("OpenCL C", (1, 2, 0)),
            ("OpenCL C", (3, 0, 0)),
        ];
        if self.opencl_version() >= (3, 1, 0) {
            v.push(("OpenCL C", (3, 1, 0)));
        }
        v
    }

    /// CL_DEVICE_MAX_CLOCK_FREQUENCY in MHz (`clock_frequency`), read
    /// once; 0 where the system does not say.
    pub fn max_clock_frequency(&self) -> u32 {
        static CACHE: std::sync::Mutex<Vec<([u8; 16], u32)>> = std::sync::Mutex::new(Vec::new());
        let uuid = self.phys.device_uuid;
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, mhz)) = cache.iter().find(|(u, _)| *u == uuid) {
            return mhz;
        }
        let pci = self
            .phys
            .pci_bus
            .as_ref()
            .map(|p| [p.pci_domain, p.pci_bus, p.pci_device, p.pci_function]);
        let mhz = super::clock_frequency::max_clock_mhz(self.phys.is_cpu(), pci).unwrap_or(0);
        cache.push((uuid, mhz));
        mhz
    }

    /// CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR: the scopes of
    /// `DeviceCaps::kernel_clock_scopes` (Vulkan has no work-group clock).
    pub fn kernel_clock_capabilities(&self) -> u64 {
        let (device, sub_group) = self.compiler_caps().kernel_clock_scopes();
        let mut c = 0;
        if device {
            c |= CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR;
        }
        if sub_group {
            c |= CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR;
        }
        c
    }

    /// CL_DEVICE_{HALF,SINGLE,DOUBLE}_FP_ATOMIC_CAPABILITIES_EXT of floats
    /// of `width` bits (`DeviceCaps::fp_atomic_caps`).
    pub fn fp_atomic_capabilities(&self, width: u32) -> u64 {
        self.compiler_caps().fp_atomic_caps(width)
    }

    /// CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT
    /// (`DeviceCaps::work_group_collectives`).
    pub fn work_group_collectives(&self) -> bool {
        self.compiler_caps().work_group_collectives()
    }

    /// CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES: every order; work-item and
    /// work-group scope on every Vulkan device, device and all-devices
    /// scope where the Vulkan memory model is used
    /// (`vulkan_memory_model`) or on lavapipe (`rmw_ordering`) (the
    /// compiler's `lower::atomic` and `lower::vmm` have the mapping). seq_cst is implemented as acq_rel, which is all Vulkan
    /// has (what that leaves out: `lower::atomic`). All-devices scope is
    /// device scope: SVM contexts have one device (`super::svm`), and
    /// without SVM atomics nothing but this device's work-items may update
    /// shared memory while a kernel runs (fine-grained buffer SVM leaves
    /// concurrent updates of one location undefined), so they are all
    /// that can observe an atomic; with SVM atomics (`svm_atomics`, CPU
    /// devices) device-scope atomics are the host's own atomic
    /// instructions on the same memory, which the host observes as well
    /// (OpenCL 3.0 API §4.2 leaves SCOPE_ALL_DEVICES to devices that can
    /// honour it). The OpenCL C features follow
    /// (`opencl_c_features`), and ferrocl's compiler defines their macros
    /// for every device.
    pub fn atomic_memory_capabilities(&self) -> cl_device_atomic_capabilities {
        let work_group = CL_DEVICE_ATOMIC_ORDER_RELAXED
            | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
            | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
            | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM
            | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
        // Device scope: `DeviceCaps::device_scope_atomics` (GLSL450's plain
        // global loads may hit a non-coherent per-SM cache on NVIDIA).
        if self.compiler_caps().device_scope_atomics() {
            work_group | CL_DEVICE_ATOMIC_SCOPE_DEVICE | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES
        } else {
            work_group
        }
    }

    /// CL_DEVICE_ATOMIC_FENCE_CAPABILITIES: the same orders and scopes
    /// (`atomic_memory_capabilities`); fences become OpMemoryBarrier with
    /// the flags' storage classes.
    pub fn atomic_fence_capabilities(&self) -> cl_device_atomic_capabilities {
        self.atomic_memory_capabilities()
    }

    /// OpenCL C 3.0 optional features (__opencl_c_*) that are supported.
    pub fn opencl_c_features(&self) -> Vec<(&'static str, (u32, u32, u32))> {
        let mut f = vec![
            ("__opencl_c_int64", (3, 0, 0)),
            ("__opencl_c_program_scope_global_variables", (3, 0, 0)),
            // Tagged generic pointers (the compiler's `passes::lower::generic`).
            ("__opencl_c_generic_address_space", (3, 0, 0)),
        ];
        // The atomic features are those of the memory capabilities
        // (OpenCL 3.0 API, "OpenCL C features").
        let atomics = self.atomic_memory_capabilities();
        for (bit, name) in [
            (
                CL_DEVICE_ATOMIC_ORDER_ACQ_REL,
                "__opencl_c_atomic_order_acq_rel",
            ),
            (
                CL_DEVICE_ATOMIC_ORDER_SEQ_CST,
                "__opencl_c_atomic_order_seq_cst",
            ),
            (
                CL_DEVICE_ATOMIC_SCOPE_DEVICE,
                "__opencl_c_atomic_scope_device",
            ),
            (
                CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES,
                "__opencl_c_atomic_scope_all_devices",
            ),
        ] {
            if atomics & bit != 0 {
                f.push((name, (3, 0, 0)));
            }
        }
        if self.fp64() {
            f.push(("__opencl_c_fp64", (3, 0, 0)));
        }
        if self.subgroup_mode().is_some() {
            f.push(("__opencl_c_subgroups", (3, 0, 0)));
        }
        f.extend([
            ("__opencl_c_integer_dot_product_input_4x8bit", (3, 0, 0)),
            (
                "__opencl_c_integer_dot_product_input_4x8bit_packed",
                (3, 0, 0),
            ),
        ]);
        let (device, sub_group) = self.compiler_caps().kernel_clock_scopes();
        if device {
            f.push(("__opencl_c_kernel_clock_scope_device", (3, 0, 0)));
        }
        if sub_group {
            f.push(("__opencl_c_kernel_clock_scope_sub_group", (3, 0, 0)));
        }
        let caps = self.compiler_caps();
        if caps.work_group_collectives() {
            f.push(("__opencl_c_work_group_collective_functions", (3, 0, 0)));
        }
        // cl_ext_float_atomics' feature macros (`extensions`).
        for m in caps.fp_atomic_macros() {
            f.push((m, (1, 0, 0)));
        }
        if self.image_support() {
            f.push(("__opencl_c_images", (3, 0, 0)));
            if self.read_write_images() {
                f.push(("__opencl_c_read_write_images", (3, 0, 0)));
            }
            if self.image_3d_writes() {
                f.push(("__opencl_c_3d_image_writes", (3, 0, 0)));
            }
        }
        f
    }

    /// CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE: program-scope `__global`
    /// variables live in one storage buffer per program, so any variable
    /// that fits in one allocation works; 64 KiB (the spec's minimum) is
    /// what is promised.
    pub fn max_global_variable_size(&self) -> usize {
        64 * 1024
    }

    /// CL_DEVICE_SINGLE_FP_CONFIG. CL_FP_FMA: `fma` is correctly rounded
    /// (the device's where fused, else libclc's software one). CL_FP_DENORM
    /// where `denorms32`.
    pub fn single_fp_config(&self) -> cl_device_fp_config {
        let mut c = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_FMA;
        if self.denorms32() {
            c |= CL_FP_DENORM;
        }
        c
    }

    /// Single-precision denormals are kept (`DeviceCaps::denorms32`,
    /// CL_FP_DENORM; kernels then get DenormPreserve 32): never by default.
    /// The float math builtins are libclc-15's, written for devices that
    /// flush denormals: its software fma handles no denormal operands, and
    /// told that denormals are supported (`__clc_fp32_subnormals_supported`)
    /// its exp, exp2, erfc and fmod still return 0 for denormal results on
    /// lavapipe (which keeps denormals). OpenCL lets a device without
    /// CL_FP_DENORM flush them. `FERROCL_DENORMS32=1` reports them where
    /// the device can preserve them (shaderDenormPreserveFloat32), for
    /// experiments.
    pub fn denorms32(&self) -> bool {
        std::env::var("FERROCL_DENORMS32").as_deref() == Ok("1")
            && self.phys.shader_fp_denorm_preserve.contains(32)
    }

    pub fn double_fp_config(&self) -> cl_device_fp_config {
        if self.fp64() {
            CL_FP_FMA
                | CL_FP_ROUND_TO_NEAREST
                | CL_FP_ROUND_TO_ZERO
                | CL_FP_ROUND_TO_INF
                | CL_FP_INF_NAN
                | CL_FP_DENORM
        } else {
            0
        }
    }

    /// CL_DEVICE_HALF_FP_CONFIG: round to nearest, infinities and NaNs, and
    /// a correctly rounded fma (the compiler's half.cl); denormals may be
    /// flushed (Vulkan's 16-bit float controls are not asked for).
    pub fn half_fp_config(&self) -> cl_device_fp_config {
        if self.fp16() {
            CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN
        } else {
            0
        }
    }

    /// Minimum alignment of a buffer's base address, in bits.
    pub fn mem_base_addr_align_bits(&self) -> u32 {
        (self.phys.base_addr_align() as u32) * 8
    }

    pub fn global_mem_cacheline_size(&self) -> u32 {
        if self.phys.is_cpu() {
            64
        } else {
            128
        }
    }

    /// The address format of global pointers that builds use unless
    /// their options choose one (`-ferrocl-addressing=`, see
    /// `ferrocl_compiler::target_caps`): physical (buffer device
    /// addresses) by default, descriptor (`abi`: one storage-buffer
    /// binding per argument) with `FERROCL_ADDRESSING=descriptor`,
    /// `FERROCL_ROBUST=1` (`super::robust`) or on a
    /// device without bufferDeviceAddress (`FERROCL_ADDRESSING=physical`
    /// cannot change that). Read once per device.
    pub fn addressing(&self) -> Addressing {
        *self.addressing.get_or_init(|| {
            if !self.phys.features.buffer_device_address {
                return Addressing::Descriptor;
            }
            if super::robust::process_robust() {
                return Addressing::Descriptor;
            }
            match std::env::var("FERROCL_ADDRESSING").as_deref() {
                Ok("descriptor") => Addressing::Descriptor,
                _ => Addressing::Physical,
            }
        })
    }

    /// Whether kernels' accesses through descriptors are bounded (robust
    /// mode, `super::robust`): the device was created with
    /// robustBufferAccess2.
    pub fn robust_buffers(&self) -> bool {
        self.vk().is_ok_and(|v| v.robust_buffers)
    }

    /// A small device buffer, bound where a descriptor-addressed kernel
    /// gets a NULL buffer argument (its bit in
    /// `ImplicitField::NullBufferArgs` keeps the kernel from using it).
    pub fn null_buffer(&self) -> CLResult<Arc<Buffer>> {
        self.null_buffer
            .get_or_init(|| {
                let vkdev = self.vk()?;
                let size = self.phys.base_addr_align();
                Ok(Arc::new(Buffer::new(&vkdev, size, BufferKind::Storage)?))
            })
            .clone()
    }

    /// The device's loop-status words (`crate::vk::loop_status`), made on
    /// first use: every launch of a kernel with `Kernel::loop_status` takes
    /// one.
    pub fn loop_status(&self) -> CLResult<Arc<LoopStatus>> {
        self.loop_status
            .get_or_init(|| Ok(Arc::new(LoopStatus::new(&self.vk()?)?)))
            .clone()
    }

    /// Why executable `p` cannot run on this device, if it cannot: a
    /// descriptor-addressed kernel with more storage or uniform buffers
    /// than one pipeline may bind (the build fails with this log).
    pub fn descriptor_limits_error(&self, p: &ferrocl_compiler::Program) -> Option<String> {
        use ferrocl_compiler::DescriptorKind;
        let l = self.limits();
        for k in &p.kernels {
            if k.addressing != Addressing::Descriptor {
                continue;
            }
            let mut storage = std::collections::BTreeSet::new();
            let mut uniform = std::collections::BTreeSet::new();
            for d in k.args.iter().filter_map(|a| a.descriptor) {
                match d.kind {
                    DescriptorKind::Buffer | DescriptorKind::Pod => storage.insert(d.binding),
                    DescriptorKind::PodUbo => uniform.insert(d.binding),
                };
            }
            storage.extend(k.global_variables_binding);
            storage.extend(k.printf_binding);
            if let Some(d) = k.arg_buffer.as_ref().and_then(|b| b.descriptor) {
                match d.kind {
                    DescriptorKind::PodUbo => uniform.insert(d.binding),
                    _ => storage.insert(d.binding),
                };
            }
            let storage_max = l
                .max_per_stage_descriptor_storage_buffers
                .min(l.max_descriptor_set_storage_buffers);
            let uniform_max = l
                .max_per_stage_descriptor_uniform_buffers
                .min(l.max_descriptor_set_uniform_buffers);
            let hint = if k
                .args
                .iter()
                .any(|a| a.kind == ferrocl_compiler::ArgKind::Pod)
            {
                " (-cluster-pod-kernel-args puts all POD arguments in one buffer)"
            } else {
                ""
            };
            // The loop-status word is one more storage buffer.
            if storage.len() as u32 + u32::from(k.loop_status) > storage_max {
                return Some(format!(
                    "error: kernel '{}' needs {} storage buffers with descriptor addressing; \
                     the device binds at most {storage_max}{hint}\n",
                    k.name,
                    storage.len() + usize::from(k.loop_status)
                ));
            }
            if uniform.len() as u32 > uniform_max {
                return Some(format!(
                    "error: kernel '{}' needs {} uniform buffers with -pod-ubo; the device \
                     binds at most {uniform_max}{hint}\n",
                    k.name,
                    uniform.len()
                ));
            }
        }
        None
    }

    /// The capabilities of ferrocl's program binaries for this device
    /// (clGetProgramInfo(CL_PROGRAM_BINARIES), clCreateProgramWithBinary):
    /// `compiler_caps` without the address format options, which each
    /// kernel of an executable records itself (`Kernel::addressing`), so a
    /// binary stays valid whatever `FERROCL_ADDRESSING` says.
    pub fn binary_caps(&self) -> DeviceCaps {
        DeviceCaps {
            addressing: if self.phys.features.buffer_device_address {
                Addressing::Physical
            } else {
                Addressing::Descriptor
            },
            descriptor: Default::default(),
            ..self.compiler_caps()
        }
    }

    /// What the compiler needs to know about this device (with the default
    /// address format, `addressing`; build options may override it).
    pub fn compiler_caps(&self) -> DeviceCaps {
        DeviceCaps {
            addressing: self.addressing(),
            max_push_constant_size: self.limits().max_push_constants_size.min(256),
            fp64: self.fp64(),
            fp16: self.phys.features.shader_float16,
            int64_atomics: self.phys.features.shader_buffer_int64_atomics,
            subgroup_size: self.subgroup_mode().map_or(0, |m| m.size),
            khr_subgroups: self.khr_subgroups(),
            subgroup_ops: self.phys.subgroup_ops.as_raw(),
            spirv_version: (1, 5),
            images: self.image_support(),
            read_write_images: self.read_write_images(),
            depth_images: self.depth_images(),
            mipmap_image: self.mipmap_image(),
            mipmap_image_write_args: self.mipmap_image_write_args(),
            image2d_from_buffer_args: self.image2d_from_buffer_args(),
            fused_fma64: self.fused_fma64(),
            fused_fma32: self.fused_fma32(),
            denorms32: self.denorms32(),
            preserve_denorms: self.phys.shader_fp_denorm_preserve,
            preserve_inf_nan: self.phys.shader_fp_inf_nan_preserve,
            rmw_ordering: self.rmw_ordering(),
            vulkan_memory_model: self.vulkan_memory_model(),
            loop_limiter: self.loop_limiter(),
            soft_int64_division: self.soft_int64_division(),
            wide_narrow_arithmetic: self.wide_narrow_arithmetic(),
            soft_long_sign_extension: self.soft_long_sign_extension(),
            branch_loop_exits: self.branch_loop_exits(),
            split_bitcasts_to_16bit: self.split_bitcasts_to_16bit(),
            inline_functions: self.inline_functions(),
            spill_loop_live_outs: self.spill_loop_live_outs(),
            integer_bool_phis: self.integer_bool_phis(),
            branch_buffer_selects: self.branch_buffer_selects(),
            integer_dot_product: self.native_integer_dot_product(),
            device_clock: self.phys.features.shader_device_clock,
            subgroup_clock: self.phys.features.shader_subgroup_clock,
            max_num_sub_groups: self.max_num_sub_groups(),
            float_atomics: self.native_float_atomics(),
            descriptor: Default::default(),
        }
    }

    /// Integer dot products go to Vulkan as OpSDot/OpUDot/OpSUDot
    /// (`DeviceCaps::integer_dot_product`): the device has
    /// shaderIntegerDotProduct. `FERROCL_INTEGER_DOT_PRODUCT=0` makes the
    /// compiler compute them itself (its exact emulation, which devices
    /// without the feature get).
    pub fn native_integer_dot_product(&self) -> bool {
        std::env::var("FERROCL_INTEGER_DOT_PRODUCT").as_deref() != Ok("0")
            && self.phys.features.shader_integer_dot_product
    }

    /// CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR /
    /// _4x8BIT_PACKED_KHR: what Vulkan reports accelerated, where the
    /// instructions go to Vulkan (`native_integer_dot_product`); the
    /// emulation is never accelerated.
    pub fn dot_acceleration(&self, packed: bool) -> crate::vk::instance::DotAcceleration {
        if !self.native_integer_dot_product() {
            return Default::default();
        }
        if packed {
            self.phys.dot_acceleration_4x8bit_packed
        } else {
            self.phys.dot_acceleration_8bit
        }
    }
    /// `DeviceCaps::float_atomics`: the floating-point atomics on
    /// `__global` memory Vulkan has natively (VK_EXT_shader_atomic_float's
    /// shaderBufferFloat32/64AtomicAdd, _float2's
    /// shaderBufferFloat32/64AtomicMinMax, enabled on the VkDevice where
    /// present); the others are compare-exchange loops. The capabilities
    /// reported do not depend on it (`DeviceCaps::fp_atomic_caps`).
    /// `FERROCL_NATIVE_FLOAT_ATOMICS=0` uses the loops everywhere.
    pub fn native_float_atomics(&self) -> u32 {
        use ferrocl_compiler::{
            FLOAT_ATOMIC_ADD32, FLOAT_ATOMIC_ADD64, FLOAT_ATOMIC_MIN_MAX32, FLOAT_ATOMIC_MIN_MAX64,
        };
        if std::env::var("FERROCL_NATIVE_FLOAT_ATOMICS").as_deref() == Ok("0") {
            return 0;
        }
        let f = &self.phys.features;
        let int64 = f.shader_buffer_int64_atomics;
        [
            (f.shader_buffer_float32_atomic_add, FLOAT_ATOMIC_ADD32),
            (
                f.shader_buffer_float64_atomic_add && int64,
                FLOAT_ATOMIC_ADD64,
            ),
            (
                f.shader_buffer_float32_atomic_min_max,
                FLOAT_ATOMIC_MIN_MAX32,
            ),
            (
                f.shader_buffer_float64_atomic_min_max && int64,
                FLOAT_ATOMIC_MIN_MAX64,
            ),
        ]
        .iter()
        .filter(|(have, _)| *have)
        .map(|(_, bit)| bit)
        .sum()
    }

    /// Whether kernels with non-relaxed atomics or fences use the Vulkan
    /// memory model (`DeviceCaps::vulkan_memory_model`): the device has
    /// vulkanMemoryModel and vulkanMemoryModelDeviceScope (both enabled on
    /// the VkDevice). `FERROCL_VULKAN_MEMORY_MODEL=0` turns it off.
    pub fn vulkan_memory_model(&self) -> bool {
        let f = &self.phys.features;
        std::env::var("FERROCL_VULKAN_MEMORY_MODEL").as_deref() != Ok("0")
            && f.vulkan_memory_model
            && f.vulkan_memory_model_device_scope
    }

    /// Whether atomics and fences are ordered by read-modify-writes instead
    /// of memory semantics (`DeviceCaps::rmw_ordering`): lavapipe (Mesa
    /// 22.3's llvmpipe turns every memory barrier into a work-group
    /// execution barrier, and a compare-exchange loop with acquire/release
    /// semantics lost pushes of a lock-free stack, tests/atomics_orders.rs;
    /// its read-modify-writes are sequentially consistent LLVM atomics on
    /// the CPU, so they order memory without one). `FERROCL_RMW_ORDERING=0|1`
    /// overrides the table.
    pub fn rmw_ordering(&self) -> bool {
        env_switch("FERROCL_RMW_ORDERING")
            .unwrap_or(self.phys.driver_id == vk::DriverId::MESA_LLVMPIPE)
    }

    /// Whether the driver cuts long loops (`DeviceCaps::loop_limiter`):
    /// lavapipe, whose gallivm ends a loop once the shader has made 65535
    /// loop passes per SIMD batch of 8 work-items (all loops together,
    /// `ferrocl_compiler`'s `passes::loop_limit`). Its kernels with loops
    /// then report a cut loop, the launch fails with CL_OUT_OF_RESOURCES
    /// instead of returning what the shortened loop computed, and the
    /// queue's later commands fail until clFinish (`queue::Poison`).
    /// `FERROCL_LOOP_LIMITER=0|1` overrides the table (read once per
    /// device).
    pub fn loop_limiter(&self) -> bool {
        *self.loop_limiter.get_or_init(|| {
            env_switch("FERROCL_LOOP_LIMITER")
                .unwrap_or(self.phys.driver_id == vk::DriverId::MESA_LLVMPIPE)
        })
    }

    /// Whether 64-bit division is ferrocl's own loop where the operands do
    /// not fit in 32 bits (`DeviceCaps::soft_int64_division`): on NVIDIA's
    /// driver, whose own expansion corrupts comparisons near it (GPU fuzz
    /// sample, tests/int64_division.rs). `FERROCL_SOFT_INT64_DIVISION=0|1`
    /// overrides the table.
    pub fn soft_int64_division(&self) -> bool {
        env_switch("FERROCL_SOFT_INT64_DIVISION")
            .unwrap_or(self.phys.driver_id == vk::DriverId::NVIDIA_PROPRIETARY)
    }

    /// Whether 8- and 16-bit integer arithmetic is done in 32 bits
    /// (`DeviceCaps::wide_narrow_arithmetic`): on NVIDIA's driver, which
    /// loses the wrap-around of some narrow results (GPU fuzz sample,
    /// tests/narrow_integers.rs). `FERROCL_WIDE_NARROW_ARITHMETIC=0|1`
    /// overrides the table.
    pub fn wide_narrow_arithmetic(&self) -> bool {
        env_switch("FERROCL_WIDE_NARROW_ARITHMETIC")
            .unwrap_or(self.phys.driver_id == vk::DriverId::NVIDIA_PROPRIETARY)
    }

    /// Whether 32-to-64-bit sign extensions are computed by a zero
    /// extension and arithmetic (`DeviceCaps::soft_long_sign_extension`):
    /// on lavapipe, whose Mesa 22.3 folds a signed comparison of such a
    /// value, or of a value computed from it, with a constant as if it
    /// were a large positive number (`convert_long(-1) < 6` was false;
    /// corpus fuzz_sconvert_compare.cl). `FERROCL_SOFT_LONG_SIGN_EXTENSION=0|1`
    /// overrides the table.
    pub fn soft_long_sign_extension(&self) -> bool {
        env_switch("FERROCL_SOFT_LONG_SIGN_EXTENSION")
            .unwrap_or(self.phys.driver_id == vk::DriverId::MESA_LLVMPIPE)
    }

    /// Whether loop exits routed through the latch become branches to the
    /// loop's merge block (`DeviceCaps::branch_loop_exits`): on lavapipe,
    /// whose NIR (Mesa 22.3) ends such a loop after two passes when the
    /// exit path turns out dead during its optimization (lavapipe fuzz
    /// runs, tests/loop_exit_branches.rs). `FERROCL_BRANCH_LOOP_EXITS=0|1`
    /// overrides the table.
    pub fn branch_loop_exits(&self) -> bool {
        env_switch("FERROCL_BRANCH_LOOP_EXITS")
            .unwrap_or(self.phys.driver_id == vk::DriverId::MESA_LLVMPIPE)
    }

    /// Whether bitcasts of a 64-bit scalar to four 16-bit components go
    /// through two 32-bit halves (`DeviceCaps::split_bitcasts_to_16bit`):
    /// on lavapipe, whose NIR (Mesa 22.3) loses the top 16 bits when it
    /// folds the direct form of a constant (lavapipe fuzz run,
    /// tests/bitcast_to_16bit.rs). `FERROCL_SPLIT_BITCASTS_TO_16BIT=0|1`
    /// overrides the table.
    pub fn split_bitcasts_to_16bit(&self) -> bool {
        env_switch("FERROCL_SPLIT_BITCASTS_TO_16BIT")
            .unwrap_or(self.phys.driver_id == vk::DriverId::MESA_LLVMPIPE)
    }

    /// Whether values live out of loops go through Function variables
    /// (`DeviceCaps::spill_loop_live_outs`): on lavapipe, whose Mesa 22.3
    /// gives a work-item that left a loop early the value of the loop's
    /// last iteration (corpus fuzz_loop_exit_value.cl, fuzz seed 19 p53).
    /// `FERROCL_SPILL_LOOP_LIVE_OUTS=0|1` overrides the table.
    pub fn spill_loop_live_outs(&self) -> bool {
        env_switch("FERROCL_SPILL_LOOP_LIVE_OUTS")
            .unwrap_or(self.phys.driver_id == vk::DriverId::MESA_LLVMPIPE)
    }

    /// Whether boolean phis become phis of 32-bit integers
    /// (`DeviceCaps::integer_bool_phis`): on NVIDIA's driver, whose
    /// compiler crashed the process on modules with boolean phis in and
    /// around loops (tests/fuzz-open, session 23).
    /// `FERROCL_INTEGER_BOOL_PHIS=0|1` overrides the table.
    pub fn integer_bool_phis(&self) -> bool {
        env_switch("FERROCL_INTEGER_BOOL_PHIS")
            .unwrap_or(self.phys.driver_id == vk::DriverId::NVIDIA_PROPRIETARY)
    }

    /// Whether descriptor addressing avoids variable pointers
    /// (`DeviceCaps::branch_buffer_selects`): on NVIDIA's driver, whose
    /// compiler loses every Workgroup atomic in a module that declares
    /// VariablePointersStorageBuffer (GPU probes, session 25).
    /// `FERROCL_BRANCH_BUFFER_SELECTS=0|1` overrides the table.
    pub fn branch_buffer_selects(&self) -> bool {
        env_switch("FERROCL_BRANCH_BUFFER_SELECTS")
            .unwrap_or(self.phys.driver_id == vk::DriverId::NVIDIA_PROPRIETARY)
    }

    /// Whether the program's own functions are inlined into their callers
    /// (`DeviceCaps::inline_functions`): on NVIDIA's driver, which can make
    /// a kernel that never ends when functions are called from divergent
    /// paths (pyopencl's test_hankel_01_complex, through its own OpenCL
    /// too). `FERROCL_INLINE_FUNCTIONS=0|1` overrides the table.
    pub fn inline_functions(&self) -> bool {
        env_switch("FERROCL_INLINE_FUNCTIONS")
            .unwrap_or(self.phys.driver_id == vk::DriverId::NVIDIA_PROPRIETARY)
    }

    /// Whether the driver computes GLSL.std.450 `Fma` on doubles with one
    /// rounding (`DeviceCaps::fused_fma64`). Vulkan only promises the
    /// precision of a multiply and an add, so only a driver known to emit
    /// the GPU's fused double instruction says yes: NVIDIA's (DFMA; checked
    /// on the device by tests/double_math.rs `fma_is_fused`). lavapipe 22.3
    /// rounds the product first; other drivers get the exact software fma
    /// until measured. `FERROCL_FUSED_FMA64=0|1` overrides the table.
    pub fn fused_fma64(&self) -> bool {
        env_switch("FERROCL_FUSED_FMA64")
            .unwrap_or(self.phys.driver_id == vk::DriverId::NVIDIA_PROPRIETARY)
    }

    /// Whether the driver computes GLSL.std.450 `Fma` on floats with one
    /// rounding (`DeviceCaps::fused_fma32`), as OpenCL's `fma` must be.
    /// Same approach as `fused_fma64`: only a driver known to emit the
    /// GPU's fused instruction says yes: NVIDIA's (FFMA; checked on the
    /// device by tests/float_math.rs `fma_is_fused`). lavapipe 22.3 rounds
    /// the product first (measured); other drivers get libclc's software
    /// fma until measured. `FERROCL_FUSED_FMA32=0|1` overrides the table.
    pub fn fused_fma32(&self) -> bool {
        env_switch("FERROCL_FUSED_FMA32")
            .unwrap_or(self.phys.driver_id == vk::DriverId::NVIDIA_PROPRIETARY)
    }

    pub fn max_group_count(&self) -> [u32; 3] {
        self.limits().max_compute_work_group_count
    }
}

/// A `0|1` switch of the environment that overrides a per-driver table:
/// `Some(false)` for `0`, `Some(true)` for `1`, `None` otherwise.
fn env_switch(name: &str) -> Option<bool> {
    match std::env::var(name).as_deref() {
        Ok("0") => Some(false),
        Ok("1") => Some(true),
        _ => None,
    }
}
