//! Compute pipelines of one compiled kernel, cached per specialization
//! constants (work-group size, enqueued local size, __local argument sizes),
//! and the descriptor sets of its image/sampler arguments (see
//! `ferrocl_compiler::abi`: literal samplers as immutable samplers of set 0,
//! arguments in one set with one binding each; with descriptor addressing
//! the buffer and POD arguments too).
//!
//! A kernel with `Kernel::loop_status` also binds the device's loop-status
//! set at `LOOP_STATUS_SET` (`loop_status`), with the launch's dynamic
//! offset; set indices below it that the kernel does not use get empty
//! layouts.
//!
//! Kernels that use sub-groups (their module declares GroupNonUniform) get
//! the subgroup size the device reports (`PhysicalDevice::subgroup_mode`):
//! `requiredSubgroupSize` where the device has several sizes, and
//! REQUIRE_FULL_SUBGROUPS where the local linear size (the x of their
//! one-dimensional Vulkan work-group, see the compiler's
//! `passes::lower::subgroup`) is a multiple of it, so that every sub-group
//! but the last of a work-group is full.
//!
//! A pipeline is created once per specialization, by whoever needs it
//! first: the background worker that makes the likely ones ahead of the
//! first launch (`crate::core::prewarm`, through [`KernelPipelines::prefetch`])
//! or a launch ([`KernelPipelines::get`]); a launch that finds its
//! pipeline being created waits for that creation. Creations take the
//! device's pipeline lock (`super::pipeline_lock`): a launch's (and the
//! shader module of clCreateKernel) with `Priority::Now`, the worker's
//! with `Priority::Background`, which marks its slot `Creating` only once
//! it holds the lock, so that a launch waits for a background creation
//! only while it is really compiling, never while it is queued. A launch of a kernel
//! with `__local` pointer arguments may run with either of two pipelines
//! ([`KernelPipelines::get_either`]): the one sized for its arguments, or
//! the generic one sized for the device's largest (`crate::core::local_args`).
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model (each
//! program holds one per kernel and device, shared by its cl_kernels).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use ash::vk;
use parking_lot::{Condvar, Mutex};

use super::descriptors::DescriptorSet;
use super::device::Device;
use super::instance::SubgroupMode;
use super::map_vk_err;
use super::pipeline_lock::{PipelineGuard, Priority};
use crate::core::error::CLResult;

/// The descriptor sets a kernel uses.
#[derive(Clone, Debug, Default)]
pub struct DescriptorLayout {
    /// Set 0's immutable samplers (literal samplers), binding `i` each.
    pub literal_samplers: Vec<vk::Sampler>,
    /// The argument set: its index and its (binding, type) pairs.
    pub args: Option<(u32, Vec<(u32, vk::DescriptorType)>)>,
    /// The device's loop-status words, for a kernel with
    /// `Kernel::loop_status` (set `LOOP_STATUS_SET`).
    pub loop_status: Option<Arc<super::loop_status::LoopStatus>>,
}

/// Which of a launch's two pipelines ran ([`KernelPipelines::get_either`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The pipeline of the launch's own specialization.
    Exact,
    /// The stand-in that serves it until that one is made.
    Generic,
}

/// One specialization's pipeline, or its creation under way on another
/// thread (the background worker of `crate::core::prewarm`, or another
/// launch): whoever needs it then waits for that creation instead of
/// compiling the same pipeline a second time.
enum Slot {
    Creating,
    Ready(vk::Pipeline),
}

/// The shader module and layout of one kernel, plus its pipelines.
pub struct KernelPipelines {
    pub device: Arc<Device>,
    pub module: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
    pub entry: std::ffi::CString,
    pub push_constant_size: u32,
    /// Pipelines by specialization, and those being created.
    pipelines: Mutex<HashMap<Vec<(u32, u32)>, Slot>>,
    /// Notified whenever a creation ends (a pipeline is ready, or a
    /// creation failed and its slot is free again).
    created: Condvar,
    /// How many pipelines this object has created (tests, FERROCL_LOG).
    creations: AtomicU32,
    /// How many of them a launch created ([`Self::get`]; tests).
    launch_creations: AtomicU32,
    /// How many background creations (and modules) the device's
    /// pipeline lock had granted before the last creation a launch made
    /// (tests: whether the worker's queue went first).
    last_launch_after: AtomicU64,
    /// Dispatches that ran with their exact and with the generic pipeline
    /// ([`Self::get_either`]; tests).
    variants: [AtomicU32; 2],
    /// Specializations queued for creation in the background after a
    /// launch needed them ([`Self::request`]).
    requested: Mutex<HashSet<Vec<(u32, u32)>>>,
    /// How pipelines are created when the kernel uses sub-groups.
    subgroups: Option<SubgroupMode>,
    /// `reqd_work_group_size` (else the local size is SpecId 0, 1, 2).
    reqd: Option<[u32; 3]>,
    /// One layout per set index up to the highest the kernel uses.
    set_layouts: Vec<vk::DescriptorSetLayout>,
    /// Set 0 with the literal samplers (written once, bound every launch).
    literal_set: Option<DescriptorSet>,
    /// The argument set's index and the largest count of one descriptor
    /// type in it.
    arg_set: Option<(u32, u32)>,
    /// Argument sets no launch is using, ready to be rewritten.
    free_sets: Mutex<Vec<DescriptorSet>>,
    /// Whose layout sits at `LOOP_STATUS_SET` (not ours to destroy).
    loop_status: Option<Arc<super::loop_status::LoopStatus>>,
    _live: super::live::Live,
}

impl KernelPipelines {
    pub fn new(
        device: &Arc<Device>,
        spirv: &[u32],
        entry: &str,
        push_constant_size: u32,
        descriptors: &DescriptorLayout,
        reqd_work_group_size: Option<[u32; 3]>,
        priority: Priority,
    ) -> CLResult<Self> {
        let entry = std::ffi::CString::new(entry).map_err(|_| opencl_sys::CL_INVALID_KERNEL)?;
        let optimized = super::spirv_opt::optimize(spirv);
        let spirv = optimized.as_deref().unwrap_or(spirv);
        let info = vk::ShaderModuleCreateInfo::default().code(spirv);
        let t = std::time::Instant::now();
        let module = {
            let _one_at_a_time = device.pipeline_lock.lock(priority);
            let waited = t.elapsed();
            if priority == Priority::Now && log_enabled() {
                // clCreateKernel: what it waited for the background.
                eprintln!(
                    "ferrocl: kernel '{}': shader module after {:.2} ms waiting for the creation \
                     in progress",
                    entry.to_string_lossy(),
                    waited.as_secs_f64() * 1e3
                );
            }
            // SAFETY: the compiler validated the module for the Vulkan
            // environment.
            unsafe { device.raw.create_shader_module(&info, None) }.map_err(map_vk_err)?
        };
        // From here on, `Drop` releases whatever was created.
        let mut kp = KernelPipelines {
            device: device.clone(),
            module,
            layout: vk::PipelineLayout::null(),
            entry,
            push_constant_size,
            pipelines: Mutex::new(HashMap::new()),
            created: Condvar::new(),
            creations: AtomicU32::new(0),
            launch_creations: AtomicU32::new(0),
            last_launch_after: AtomicU64::new(0),
            variants: [AtomicU32::new(0), AtomicU32::new(0)],
            requested: Mutex::new(HashSet::new()),
            subgroups: if uses_subgroups(spirv) {
                device.phys.subgroup_mode()
            } else {
                None
            },
            reqd: reqd_work_group_size,
            set_layouts: Vec::new(),
            literal_set: None,
            arg_set: None,
            free_sets: Mutex::new(Vec::new()),
            loop_status: descriptors.loop_status.clone(),
            _live: super::live::Live::new(super::live::Kind::KernelPipelines),
        };
        let literal = !descriptors.literal_samplers.is_empty();
        let status_set = ferrocl_compiler::LOOP_STATUS_SET;
        let sets = match &descriptors.args {
            Some((set, _)) => *set as usize + 1,
            None => 0,
        }
        .max(literal as usize)
        .max(match &kp.loop_status {
            Some(_) => status_set as usize + 1,
            None => 0,
        });
        for set in 0..sets as u32 {
            if let (Some(s), true) = (&kp.loop_status, set == status_set) {
                if descriptors.args.as_ref().is_some_and(|(a, _)| *a == set) {
                    return Err(opencl_sys::CL_INVALID_PROGRAM_EXECUTABLE);
                }
                kp.set_layouts.push(s.layout);
                continue;
            }
            let mut bindings: Vec<vk::DescriptorSetLayoutBinding> = Vec::new();
            if set == 0 && literal {
                bindings.extend(
                    descriptors
                        .literal_samplers
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            vk::DescriptorSetLayoutBinding::default()
                                .binding(i as u32)
                                .descriptor_type(vk::DescriptorType::SAMPLER)
                                .descriptor_count(1)
                                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                                .immutable_samplers(std::slice::from_ref(s))
                        }),
                );
            }
            if let Some((s, args)) = &descriptors.args {
                if *s == set {
                    if !bindings.is_empty() {
                        // The ABI puts the arguments in set 1 when there
                        // are literal samplers.
                        return Err(opencl_sys::CL_INVALID_PROGRAM_EXECUTABLE);
                    }
                    bindings.extend(args.iter().map(|(b, ty)| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(*b)
                            .descriptor_type(*ty)
                            .descriptor_count(1)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    }));
                    let largest = super::descriptors::TYPES
                        .iter()
                        .map(|t| args.iter().filter(|(_, ty)| ty == t).count() as u32)
                        .max()
                        .unwrap_or(0);
                    kp.arg_set = Some((set, largest));
                }
            }
            let li = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            // SAFETY: valid device; immutable samplers live as long as the device.
            let l = unsafe { device.raw.create_descriptor_set_layout(&li, None) }
                .map_err(map_vk_err)?;
            kp.set_layouts.push(l);
        }
        if literal {
            kp.literal_set = Some(device.allocate_descriptor_set(
                kp.set_layouts[0],
                descriptors.literal_samplers.len() as u32,
            )?);
        }
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(push_constant_size.next_multiple_of(4))];
        let mut li = vk::PipelineLayoutCreateInfo::default().set_layouts(&kp.set_layouts);
        if push_constant_size > 0 {
            li = li.push_constant_ranges(&ranges);
        }
        // SAFETY: valid device and set layouts.
        kp.layout = unsafe { device.raw.create_pipeline_layout(&li, None) }.map_err(map_vk_err)?;
        Ok(kp)
    }

    /// The subgroup mode of this kernel's pipelines: `Some` when the kernel
    /// uses sub-groups on a device that has them.
    pub fn subgroup_mode(&self) -> Option<SubgroupMode> {
        self.subgroups
    }

    /// Whether launches need an argument set ([`Self::take_arg_set`]).
    pub fn has_arg_set(&self) -> bool {
        self.arg_set.is_some()
    }

    /// An argument set no pending launch uses (recycled or new).
    pub fn take_arg_set(&self) -> CLResult<DescriptorSet> {
        let (set, largest) = self.arg_set.ok_or(opencl_sys::CL_INVALID_KERNEL)?;
        if let Some(s) = self.free_sets.lock().pop() {
            return Ok(s);
        }
        self.device
            .allocate_descriptor_set(self.set_layouts[set as usize], largest)
    }

    /// Gives back a set once the launch that used it has completed.
    pub fn return_arg_set(&self, s: DescriptorSet) {
        self.free_sets.lock().push(s);
    }

    /// Binds the literal-sampler set, `args` (the argument set) and
    /// `status` (the loop-status set and the launch's dynamic offset in it).
    pub fn bind_sets(
        &self,
        r: &super::queue::Recorder,
        args: Option<vk::DescriptorSet>,
        status: Option<(vk::DescriptorSet, u32)>,
    ) {
        let bind = |index: u32, set: vk::DescriptorSet, offsets: &[u32]| {
            // SAFETY: cb is recording; layout and set are alive until the
            // launch completes (the launch holds this object).
            unsafe {
                r.device.raw.cmd_bind_descriptor_sets(
                    r.cb,
                    vk::PipelineBindPoint::COMPUTE,
                    self.layout,
                    index,
                    &[set],
                    offsets,
                )
            }
        };
        if let Some(l) = &self.literal_set {
            bind(0, l.raw, &[]);
        }
        if let (Some((index, _)), Some(set)) = (self.arg_set, args) {
            bind(index, set, &[]);
        }
        if let (Some(_), Some((set, offset))) = (&self.loop_status, status) {
            bind(ferrocl_compiler::LOOP_STATUS_SET, set, &[offset]);
        }
    }

    /// Whether launches bind a loop-status word (`bind_sets`).
    pub fn has_loop_status(&self) -> bool {
        self.loop_status.is_some()
    }

    /// The pipeline for these (SpecId, u32 value) pairs, created on first
    /// use. When another thread is creating it (a background creation
    /// ahead of the first launch), waits for that one; when that creation
    /// failed, creates it here, so the caller gets the error the creation
    /// gives (the same as if nothing had been made ahead).
    pub fn get(&self, spec: &[(u32, u32)]) -> CLResult<vk::Pipeline> {
        let mut map = self.pipelines.lock();
        loop {
            match map.get(spec) {
                Some(Slot::Ready(p)) => return Ok(*p),
                Some(Slot::Creating) => self.created.wait(&mut map),
                None => break,
            }
        }
        map.insert(spec.to_vec(), Slot::Creating);
        drop(map);
        let t = std::time::Instant::now();
        // Ahead of the background worker's queue: after the creation in
        // progress, if any.
        let one_at_a_time = self.device.pipeline_lock.lock(Priority::Now);
        let waited = t.elapsed();
        self.last_launch_after
            .store(one_at_a_time.background_before(), Ordering::Release);
        let r = self.create_into_slot(spec, one_at_a_time);
        if r.is_ok() {
            self.launch_creations.fetch_add(1, Ordering::AcqRel);
        }
        if log_enabled() && r.is_ok() {
            eprintln!(
                "ferrocl: kernel '{}': pipeline {} created at its launch in {:.2} ms \
                 ({:.2} ms of it waiting for the creation in progress)",
                self.entry.to_string_lossy(),
                describe(spec),
                t.elapsed().as_secs_f64() * 1e3,
                waited.as_secs_f64() * 1e3
            );
        }
        r
    }

    /// The pipeline of a launch that runs with `exact`'s pipeline or, in
    /// its stead, `generic`'s (a kernel with `__local` pointer arguments:
    /// the one with the device's largest region serves every launch): the
    /// exact one when it is made; else the generic one when it is made or
    /// being made (waiting for that creation); else the exact one, created
    /// now unless another thread is creating it (then waited for). Which
    /// one it is comes with it: after `Generic`, the caller has the exact
    /// one made in the background.
    pub fn get_either(
        &self,
        exact: &[(u32, u32)],
        generic: &[(u32, u32)],
    ) -> CLResult<(vk::Pipeline, Variant)> {
        let map = self.pipelines.lock();
        let variant = match (map.get(exact), map.get(generic)) {
            (Some(Slot::Ready(p)), _) => return Ok((*p, self.ran(Variant::Exact))),
            (_, Some(Slot::Ready(p))) => return Ok((*p, self.ran(Variant::Generic))),
            (_, Some(Slot::Creating)) => Variant::Generic,
            _ => Variant::Exact,
        };
        drop(map);
        let spec = match variant {
            Variant::Exact => exact,
            Variant::Generic => generic,
        };
        Ok((self.get(spec)?, self.ran(variant)))
    }

    fn ran(&self, v: Variant) -> Variant {
        self.variants[v as usize].fetch_add(1, Ordering::AcqRel);
        v
    }

    /// How many dispatches of [`Self::get_either`] got their exact and
    /// their generic pipeline so far (tests).
    pub fn variant_counts(&self) -> (u32, u32) {
        (
            self.variants[Variant::Exact as usize].load(Ordering::Acquire),
            self.variants[Variant::Generic as usize].load(Ordering::Acquire),
        )
    }

    /// Whether `spec` should be queued for creation in the background:
    /// true the first time it is asked for (and again after
    /// [`Self::unrequest`]), unless it is made or being made.
    pub fn request(&self, spec: &[(u32, u32)]) -> bool {
        if self.pipelines.lock().contains_key(spec) {
            return false;
        }
        self.requested.lock().insert(spec.to_vec())
    }

    /// Forgets a [`Self::request`] whose creation could not be queued.
    pub fn unrequest(&self, spec: &[(u32, u32)]) {
        self.requested.lock().remove(spec);
    }

    /// Creates the pipeline of `spec` unless it exists or is being
    /// created: `Ok(true)` when this call created it. For creation ahead
    /// of the first launch: it waits for the pipeline lock behind every
    /// thread that needs it now (`Priority::Background`), and only then
    /// marks the pipeline as being created, so a launch never waits for
    /// a creation that has not started.
    pub fn prefetch(&self, spec: &[(u32, u32)]) -> CLResult<bool> {
        if self.pipelines.lock().contains_key(spec) {
            return Ok(false);
        }
        let one_at_a_time = self.device.pipeline_lock.lock(Priority::Background);
        let mut map = self.pipelines.lock();
        if map.contains_key(spec) {
            // A launch made it (or is making it) meanwhile.
            return Ok(false);
        }
        map.insert(spec.to_vec(), Slot::Creating);
        drop(map);
        self.create_into_slot(spec, one_at_a_time).map(|_| true)
    }

    /// Whether the pipeline of `spec` exists (created, not in creation).
    pub fn is_ready(&self, spec: &[(u32, u32)]) -> bool {
        matches!(self.pipelines.lock().get(spec), Some(Slot::Ready(_)))
    }

    /// How many pipelines this object has created so far.
    pub fn creations(&self) -> u32 {
        self.creations.load(Ordering::Acquire)
    }

    /// How many of them were created by a launch, on its thread
    /// ([`Self::get`] finding neither the pipeline nor its creation).
    pub fn launch_creations(&self) -> u32 {
        self.launch_creations.load(Ordering::Acquire)
    }

    /// How many background grants of the device's pipeline lock came
    /// before the last of those creations
    /// (`PipelineGuard::background_before`; tests).
    pub fn last_launch_after(&self) -> u64 {
        self.last_launch_after.load(Ordering::Acquire)
    }

    /// Creates the pipeline of `spec`, whose slot this thread marked
    /// `Creating`, under the pipeline lock it holds, and fills the slot
    /// (or frees it on failure).
    fn create_into_slot(
        &self,
        spec: &[(u32, u32)],
        one_at_a_time: PipelineGuard<'_>,
    ) -> CLResult<vk::Pipeline> {
        // The slot must not stay `Creating` if creation panics: waiters
        // would wait forever.
        struct Unmark<'a>(&'a KernelPipelines, &'a [(u32, u32)], bool);
        impl Drop for Unmark<'_> {
            fn drop(&mut self) {
                if self.2 {
                    self.0.pipelines.lock().remove(self.1);
                    self.0.created.notify_all();
                }
            }
        }
        let mut guard = Unmark(self, spec, true);
        let r = self.create(spec, one_at_a_time);
        guard.2 = false;
        let mut map = self.pipelines.lock();
        match r {
            Ok(p) => {
                map.insert(spec.to_vec(), Slot::Ready(p));
                self.creations.fetch_add(1, Ordering::AcqRel);
            }
            Err(_) => {
                map.remove(spec);
            }
        }
        drop(map);
        self.created.notify_all();
        r
    }

    /// vkCreateComputePipelines for these (SpecId, u32 value) pairs,
    /// under `one_at_a_time` (released when it returns).
    fn create(
        &self,
        spec: &[(u32, u32)],
        one_at_a_time: PipelineGuard<'_>,
    ) -> CLResult<vk::Pipeline> {
        #[cfg(test)]
        if test_failures::take(&self.entry) {
            return Err(opencl_sys::CL_OUT_OF_RESOURCES);
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
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(&self.entry)
            .specialization_info(&si);
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(0);
        if let Some(m) = self.subgroups {
            // The Vulkan work-group of a sub-group kernel is
            // one-dimensional: x is the local linear size.
            let local = self.reqd.unwrap_or_else(|| {
                let get = |i: u32| spec.iter().find(|(id, _)| *id == i).map_or(1, |(_, v)| *v);
                [get(0), get(1), get(2)]
            });
            let local_x = local[0] * local[1] * local[2];
            if m.full_subgroups && local_x.is_multiple_of(m.size) {
                stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
            }
            if m.required_size {
                required = required.required_subgroup_size(m.size);
                stage = stage.push_next(&mut required);
            }
        }
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.layout)];
        // SAFETY: all referenced objects are alive.
        let p = unsafe {
            self.device
                .raw
                .create_compute_pipelines(self.device.pipeline_cache, &info, None)
        }
        .map_err(|(_, e)| {
            // Always said: the launch (or a later one, for a creation ahead
            // of it) fails with the mapped error, and only this line tells
            // that the driver refused the kernel.
            eprintln!(
                "ferrocl: kernel '{}': the driver failed to create pipeline {}: {e:?}",
                self.entry.to_string_lossy(),
                describe(spec)
            );
            map_vk_err(e)
        })?[0];
        drop(one_at_a_time);
        self.device.pipeline_created();
        Ok(p)
    }
}

/// Whether a Vulkan module declares the GroupNonUniform capability (the
/// compiler's sub-group lowering does; OpCapability instructions come
/// first).
pub fn uses_subgroups(spirv: &[u32]) -> bool {
    const OP_CAPABILITY: u32 = 17;
    const GROUP_NON_UNIFORM: u32 = 61;
    let mut i = 5;
    while i < spirv.len() {
        let word = spirv[i];
        let (len, op) = ((word >> 16) as usize, word & 0xffff);
        if op != OP_CAPABILITY || len < 2 || i + 1 >= spirv.len() {
            return false;
        }
        if spirv[i + 1] == GROUP_NON_UNIFORM {
            return true;
        }
        i += len;
    }
    false
}

impl Drop for KernelPipelines {
    fn drop(&mut self) {
        // The VkDevice lives as long as the process (the platform is never
        // released), so the on-disk pipeline cache is written when a kernel
        // that compiled pipelines goes away.
        if self.creations() > 0 {
            self.device.save_pipeline_cache();
        }
        // No launch uses the sets any more: back to their pools, before
        // their layouts go.
        let mut sets: Vec<DescriptorSet> = self.free_sets.get_mut().drain(..).collect();
        sets.extend(self.literal_set.take());
        self.device.free_descriptor_sets(&sets);
        let _one_at_a_time = self.device.pipeline_lock.lock(Priority::Now);
        // SAFETY: programs/kernels (and enqueued commands, through Arcs) are
        // gone, so no pipeline is in use.
        unsafe {
            // No slot is `Creating`: a creator holds this object.
            for (_, slot) in self.pipelines.get_mut().drain() {
                if let Slot::Ready(p) = slot {
                    self.device.raw.destroy_pipeline(p, None);
                }
            }
            if self.layout != vk::PipelineLayout::null() {
                self.device.raw.destroy_pipeline_layout(self.layout, None);
            }
            let shared = self.loop_status.as_ref().map(|s| s.layout);
            for l in self.set_layouts.drain(..) {
                if Some(l) != shared {
                    self.device.raw.destroy_descriptor_set_layout(l, None);
                }
            }
            self.device.raw.destroy_shader_module(self.module, None);
        }
    }
}

/// A specialization for `FERROCL_LOG`: its work-group size, and the
/// region of the `__local` arguments where it has one.
pub fn describe(spec: &[(u32, u32)]) -> String {
    let get = |i: u32| spec.iter().find(|(id, _)| *id == i).map(|(_, v)| *v);
    let size = [0, 1, 2].map(|i| get(i).unwrap_or(1));
    match get(ferrocl_compiler::LOCAL_ARGS_SPEC_ID) {
        Some(r) => format!("{size:?} (__local arguments' region {r} bytes)"),
        None => format!("{size:?}"),
    }
}

/// `FERROCL_LOG` is set (read once).
fn log_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("FERROCL_LOG").is_some())
}

/// Failures injected into pipeline creation by unit tests.
#[cfg(test)]
pub mod test_failures {
    use parking_lot::Mutex;
    use std::collections::HashMap;
    use std::ffi::{CStr, CString};

    static PLANNED: Mutex<Option<HashMap<CString, u32>>> = parking_lot::const_mutex(None);

    /// The next `n` pipeline creations of kernels with entry point
    /// `entry` fail (CL_OUT_OF_RESOURCES).
    pub fn fail_next(entry: &str, n: u32) {
        let name = CString::new(entry).expect("no NUL");
        PLANNED
            .lock()
            .get_or_insert_with(HashMap::new)
            .insert(name, n);
    }

    pub(super) fn take(entry: &CStr) -> bool {
        let mut p = PLANNED.lock();
        match p.as_mut().and_then(|m| m.get_mut(entry)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}
