//! Kernel pipelines made ahead of the first launch.
//!
//! Creating a compute pipeline is where a Vulkan driver compiles SPIR-V to
//! machine code (tens of milliseconds on NVIDIA), and the work-group size
//! and the `__local` argument sizes are specialization constants of it
//! (`ferrocl_compiler::abi`), so a pipeline exists per launch shape. Made
//! at the first launch, that compile is the first launch's latency.
//! Instead:
//!
//! - each program keeps, per device and kernel, one [`KernelSlot`]: the
//!   kernel's `KernelPipelines` (shader module, layouts and pipelines),
//!   shared by every cl_kernel of that name (clCreateKernel no longer
//!   makes a module of its own);
//! - a successful build or link queues jobs per kernel for a background
//!   thread (one per process), one per pipeline: make the kernel's
//!   `KernelPipelines` (the first job), then the pipelines of the work-group sizes its launches are likely to use
//!   (`launch::likely_local_sizes`: `reqd_work_group_size`, what a NULL
//!   local size picks, CL_KERNEL_WORK_GROUP_SIZE; for kernels with
//!   `__local` pointer arguments, which applications launch with a local
//!   size of their choosing, also 64 and 128 work-items, or 8×8). The
//!   pipelines of a kernel with `__local` pointer arguments also depend
//!   on the arguments' sizes, known at clSetKernelArg: the ones made
//!   ahead are its *generic* pipelines, whose Workgroup array has room
//!   for any sizes the device allows, and a launch that runs with one
//!   queues the pipeline of its own sizes here ([`make_later`];
//!   `super::local_args`). At most [`PIPELINES_PER_BUILD`] pipelines per
//!   build, the first kernels of the program first, queued ahead of older
//!   builds' jobs (the program built last is the likeliest to launch
//!   next: a program of 64 kernels built at start-up must not hold up
//!   one built later), at most [`MAX_QUEUED`] jobs in all (the oldest
//!   dropped); clBuildProgram does not wait for any of it;
//! - clCreateKernel moves the kernel's jobs to the front (those of an
//!   identical kernel of a later build too, which replaced them; queueing
//!   its pipelines if the build's budget left them out), and makes the
//!   `KernelPipelines` itself unless the worker has made it or is making
//!   it (then it waits for that one);
//! - a launch looks its pipeline up (`KernelPipelines::get`): made ahead,
//!   it is there; being made, the launch waits for that creation; not
//!   predicted, the launch creates it, as before. A background creation
//!   that failed leaves nothing behind, so the launch creates the pipeline
//!   itself and returns the error that creation gives, at the same call
//!   as before.
//!
//! One thread does all background work: Vulkan pipelines of a device are
//! created one at a time anyway (`vk::Device::pipeline_lock`), and the
//! machine's other cores stay with the application. That lock is also the
//! cost of this scheme: a launch whose pipeline was not predicted waits
//! for the background creation in progress on its device, if any (one
//! pipeline), before it creates its own; never for more, however long
//! the queue: the worker takes the lock with `Priority::Background`,
//! which waits while any application thread (a launch, clCreateKernel's
//! shader module) waits for it (`crate::vk::pipeline_lock`).
//!
//! Identical kernels of different programs (the same source built twice,
//! by two contexts or two instances of a library) share one
//! `KernelPipelines` per device (`shared`: made once, whoever comes
//! second waits for the first), and the second build's jobs replace the
//! first build's queued ones for the same kernel and pipeline
//! (`Job::what`) instead of queueing copies. Jobs hold only weak
//! references to what they work on: a program released before its job
//! runs costs nothing; one released while its pipeline is being created
//! is freed by the worker when that creation ends. When its queue runs
//! dry the worker writes each device's pipeline cache to disk
//! (`vk::device::save_all_pipeline_caches`). At process exit (a
//! `super::exit` hook)
//! queued jobs are dropped and the one running is waited for, so that no
//! pipeline is being compiled inside the driver while the process tears
//! the driver down; nothing calls Vulkan there.
//!
//! `FERROCL_PREWARM=0` turns background creation off: every pipeline is
//! then created at its first launch (measurements, debugging).
//!
//! Layer: programs (`super::program` holds the slots), below kernels
//! (`super::kernel` takes its pipelines from here).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use ash::vk;
use ferrocl_compiler::{self as compiler, ArgKind};
use opencl_sys::*;
use parking_lot::{Condvar, Mutex};

use super::device::Device;
use super::error::CLResult;
use super::launch::{self, DeviceLimits, GroupRules};
use super::local_args;
use crate::vk::dispatch::{arg_descriptor_type, descriptor_type};
use crate::vk::instance::SubgroupMode;
use crate::vk::pipeline::{describe, DescriptorLayout, KernelPipelines};
use crate::vk::pipeline_lock::Priority;

/// At most this many pipelines are queued at a build (clCreateKernel
/// queues its kernel's beyond that).
pub const PIPELINES_PER_BUILD: usize = 32;

/// At most this many jobs wait (an application that builds programs
/// faster than the worker gets through them; each job is one pipeline):
/// the oldest are dropped.
pub const MAX_QUEUED: usize = 1024;

/// Whether pipelines are made ahead of launches (`FERROCL_PREWARM=0`
/// turns it off). Read once per process.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("FERROCL_PREWARM").map_or(true, |v| v != "0"))
}

/// Writes a `FERROCL_LOG` line.
pub fn log(msg: impl FnOnce() -> String) {
    if super::platform::log_enabled() {
        eprintln!("ferrocl: {}", msg());
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
    let mut bindings: Vec<(u32, vk::DescriptorType)> = k
        .args
        .iter()
        .flat_map(|a| match a.kind {
            ArgKind::Sampler { binding } => vec![(binding, vk::DescriptorType::SAMPLER)],
            ArgKind::Image {
                descriptor,
                binding,
                buffer_binding,
                level_binding,
                ..
            } => {
                // A 2D image that may be made from a buffer: its texel
                // buffer too (`ferrocl_compiler::IMAGE_FROM_BUFFER_SPEC_ID`).
                let twin = if descriptor == compiler::ImageDescriptor::Sampled {
                    vk::DescriptorType::UNIFORM_TEXEL_BUFFER
                } else {
                    vk::DescriptorType::STORAGE_TEXEL_BUFFER
                };
                let mut v = vec![(binding, descriptor_type(descriptor))];
                v.extend(buffer_binding.map(|b| (b, twin)));
                // Levels written by the kernel (cl_khr_mipmap_image_writes).
                if let Some(base) = level_binding {
                    v.extend(
                        (1..compiler::MIP_WRITE_LEVELS)
                            .map(|l| (base + l, vk::DescriptorType::STORAGE_IMAGE)),
                    );
                }
                v
            }
            _ => Vec::new(),
        })
        .collect();
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

/// CL_KERNEL_WORK_GROUP_SIZE of kernel `k` on `d`, whose pipelines use
/// sub-group mode `subgroups`.
pub fn work_group_size(k: &compiler::Kernel, d: &Device, subgroups: Option<SubgroupMode>) -> usize {
    match k.reqd_work_group_size {
        Some(r) => (r[0] * r[1] * r[2]) as usize,
        None => {
            // A kernel using sub-groups runs as a one-dimensional Vulkan
            // work-group (maxComputeWorkGroupSize[0] bounds it), and a
            // required subgroup size bounds it too
            // (maxComputeWorkgroupSubgroups × size).
            let sg_limit = subgroups.map_or(usize::MAX, |m| {
                (m.max_invocations as usize).min(d.max_work_item_sizes()[0])
            });
            // SubgroupsPerWorkgroup N: at most N sub-groups' work-items.
            let n = k.compile_num_sub_groups as usize;
            let count_limit = match d.subgroup_mode() {
                Some(m) if n > 0 => n * m.size as usize,
                _ => usize::MAX,
            };
            d.max_work_group_size().min(sg_limit).min(count_limit)
        }
    }
}

/// The device limits a launch plan respects.
pub fn device_limits(dev: &Device) -> DeviceLimits {
    DeviceLimits {
        max_work_item_sizes: dev.max_work_item_sizes(),
        max_work_group_size: dev.max_work_group_size(),
        max_group_count: dev.max_group_count(),
    }
}

/// One kernel of one build on one device: its pipelines, made once.
pub struct KernelSlot {
    device: Arc<Device>,
    /// The build's executable (the kernel is `output.kernels[index]`).
    output: Arc<compiler::Program>,
    index: usize,
    pipelines: Mutex<Option<Arc<KernelPipelines>>>,
    /// The predicted pipelines were queued (by the build, or by
    /// clCreateKernel).
    predicted_queued: AtomicBool,
}

impl KernelSlot {
    pub fn info(&self) -> &compiler::Kernel {
        &self.output.kernels[self.index]
    }

    /// The kernel's pipelines object: the one made already (by the worker,
    /// an earlier clCreateKernel, or for an identical kernel of another
    /// program: `shared`), else made now, its shader module with the
    /// pipeline lock's `priority` (`Priority::Now` for clCreateKernel).
    /// Waits while another thread makes it. An error leaves nothing
    /// behind (the next call tries again).
    pub fn pipelines(&self, priority: Priority) -> CLResult<Arc<KernelPipelines>> {
        let mut slot = self.pipelines.lock();
        if let Some(p) = &*slot {
            return Ok(p.clone());
        }
        let k = self.info();
        let p = shared::get_or_make(shared::Key::new(&self.device, k), || {
            Ok(Arc::new(KernelPipelines::new(
                &self.device.vk()?,
                &k.spirv,
                &k.entry_point,
                k.push_constant_size,
                &descriptor_layout(&self.device, k)?,
                k.reqd_work_group_size,
                priority,
            )?))
        })?;
        *slot = Some(p.clone());
        Ok(p)
    }

    /// The pipelines object if it has been made.
    pub fn pipelines_if_made(&self) -> Option<Arc<KernelPipelines>> {
        self.pipelines.lock().clone()
    }

    /// The specializations of the likely launches (`launch::
    /// likely_local_sizes`, whole work-groups), most likely first; for a
    /// kernel with `__local` pointer arguments, their generic pipelines
    /// (`local_args::generic_region`), with the likely explicit local
    /// sizes (`launch::likely_explicit_local_sizes`) first.
    pub fn predicted_specs(&self, subgroups: Option<SubgroupMode>) -> Vec<Vec<(u32, u32)>> {
        let k = self.info();
        let rules = GroupRules {
            required: k.reqd_work_group_size,
            non_uniform: false,
            max_size: work_group_size(k, &self.device, subgroups),
            sub_groups: super::kernel::required_sub_groups(k, &self.device),
        };
        let limits = device_limits(&self.device);
        let dims = launch::used_dims(&k.implicit);
        let mut sizes = launch::likely_local_sizes(dims, &rules, &limits);
        let local_args = k
            .args
            .iter()
            .any(|a| matches!(a.kind, ArgKind::LocalPointer { .. }));
        let region = if local_args {
            // An application sizes `__local` arguments by the work-group
            // size it passes: the explicit sizes first.
            let mut explicit = launch::likely_explicit_local_sizes(dims, &rules, &limits);
            for l in sizes {
                if !explicit.contains(&l) {
                    explicit.push(l);
                }
            }
            sizes = explicit;
            let generic = local_args::generic_region(&self.device, k.static_local_size);
            local_args::region_spec(generic).to_vec()
        } else {
            Vec::new()
        };
        sizes
            .into_iter()
            .map(|l| launch::dispatch_spec(l, l, &region))
            .collect()
    }

    /// The background jobs: one per predicted pipeline, the first of
    /// which makes the pipelines object. One pipeline a job, so that
    /// clCreateKernel's promotion of another kernel waits for one
    /// pipeline of this one at most.
    fn jobs(self: &Arc<Self>) -> Vec<Job> {
        // Before the pipelines object exists the sub-group mode is not
        // known; it only lowers CL_KERNEL_WORK_GROUP_SIZE, which the count
        // does not depend on.
        let n = self.predicted_specs(None).len();
        let kernel = shared::Key::new(&self.device, self.info()).digest();
        (0..n)
            .map(|i| {
                let weak = Arc::downgrade(self);
                Job {
                    group: Arc::as_ptr(self) as usize,
                    what: Some((kernel, i)),
                    run: Box::new(move || {
                        let Some(slot) = weak.upgrade() else { return };
                        let kp = match slot.pipelines(Priority::Background) {
                            Ok(kp) => kp,
                            Err(e) => {
                                log(|| {
                                    format!(
                                        "kernel '{}': module not made ahead: error {e}",
                                        slot.info().name
                                    )
                                });
                                return;
                            }
                        };
                        let name = slot.info().name.clone();
                        let spec = slot.predicted_specs(kp.subgroup_mode()).into_iter().nth(i);
                        // The slot (and through it the program's
                        // executable) need not outlive a released program
                        // while the pipeline compiles.
                        drop(slot);
                        if let Some(spec) = spec {
                            make(&kp, &name, &spec, "ahead");
                        }
                    }),
                }
            })
            .collect()
    }
}

/// Creates `kp`'s pipeline of `spec` unless it exists or is being made,
/// logging it (`when`: "ahead", ...).
fn make(kp: &KernelPipelines, name: &str, spec: &[(u32, u32)], when: &str) {
    if closing() {
        return;
    }
    let t = Instant::now();
    let made = kp.prefetch(spec);
    if matches!(made, Ok(true)) {
        super::exit::watch_once(&PIPELINE_MADE);
    }
    match made {
        Ok(true) => log(|| {
            format!(
                "kernel '{name}': pipeline {} made {when} in {:.2} ms",
                describe(spec),
                t.elapsed().as_secs_f64() * 1e3
            )
        }),
        Ok(false) => {}
        // The launch that needs it creates it and reports the error.
        Err(e) => log(|| {
            format!(
                "kernel '{name}': pipeline {} not made {when}: error {e}",
                describe(spec)
            )
        }),
    }
}

/// Queues the creation of `kp`'s pipeline of `spec` at the front of the
/// background queue (a launch ran with a stand-in: `super::local_args`):
/// whether it was queued (not with `FERROCL_PREWARM=0`, nor at exit).
pub fn make_later(kp: &Arc<KernelPipelines>, spec: Vec<(u32, u32)>) -> bool {
    if !enabled() {
        return false;
    }
    let weak = Arc::downgrade(kp);
    let job = Job {
        group: Arc::as_ptr(kp) as usize,
        what: None,
        run: Box::new(move || {
            // A kernel released meanwhile needs nothing more.
            let Some(kp) = weak.upgrade() else { return };
            let name = kp.entry.to_string_lossy().into_owned();
            make(&kp, &name, &spec, "after a launch");
        }),
    };
    worker().submit(vec![job], true)
}

/// A program's [`KernelSlot`]s: per device and kernel name, of the
/// device's current executable.
#[derive(Default)]
pub struct ProgramPipelines {
    slots: Mutex<HashMap<(usize, String), Arc<KernelSlot>>>,
}

fn key(d: &Device) -> usize {
    d as *const Device as usize
}

impl ProgramPipelines {
    /// After a successful build (or link) of `output` for `d`: one slot per
    /// kernel, replacing the device's earlier ones, and their jobs queued
    /// (pipelines for the first [`PIPELINES_PER_BUILD`] predicted ones).
    pub fn built(&self, d: &Arc<Device>, output: &Arc<compiler::Program>) {
        let slots: Vec<Arc<KernelSlot>> = (0..output.kernels.len())
            .map(|index| {
                Arc::new(KernelSlot {
                    device: d.clone(),
                    output: output.clone(),
                    index,
                    pipelines: Mutex::new(None),
                    predicted_queued: AtomicBool::new(false),
                })
            })
            .collect();
        {
            let mut map = self.slots.lock();
            map.retain(|(dk, _), _| *dk != key(d));
            for s in &slots {
                map.insert((key(d), s.info().name.clone()), s.clone());
            }
        }
        if !enabled() {
            return;
        }
        let mut budget = PIPELINES_PER_BUILD;
        let mut queued = Vec::new();
        for s in &slots {
            let n = s.predicted_specs(None).len();
            if n > 0 && n <= budget {
                budget -= n;
                queued.push(s);
            }
        }
        // Ahead of older builds' jobs: the program built last is the one
        // most likely launched next (a program built once at start-up
        // with many kernels must not delay one built later).
        let jobs = queued.iter().flat_map(|s| s.jobs()).collect();
        if worker().submit(jobs, true) {
            for s in queued {
                s.predicted_queued.store(true, Ordering::Release);
            }
        }
    }

    /// Forgets `d`'s slots (its build is gone: recompiled, failed).
    pub fn forget(&self, d: &Device) {
        self.slots.lock().retain(|(dk, _), _| *dk != key(d));
    }

    /// The slot of kernel `name` of `output` on `d` (made when the build
    /// made none, e.g. one without a slot for this executable), its job
    /// moved to the front of the background queue: clCreateKernel.
    /// `None` when `output` has no such kernel.
    pub fn slot(
        &self,
        d: &Arc<Device>,
        output: &Arc<compiler::Program>,
        name: &str,
    ) -> Option<Arc<KernelSlot>> {
        let index = output.kernels.iter().position(|k| k.name == name)?;
        let slot = {
            let mut map = self.slots.lock();
            let k = (key(d), name.to_string());
            match map.get(&k) {
                Some(s) if Arc::ptr_eq(&s.output, output) => s.clone(),
                _ => {
                    let s = Arc::new(KernelSlot {
                        device: d.clone(),
                        output: output.clone(),
                        index,
                        pipelines: Mutex::new(None),
                        predicted_queued: AtomicBool::new(false),
                    });
                    map.insert(k, s.clone());
                    s
                }
            }
        };
        if enabled() {
            if slot.predicted_queued.swap(true, Ordering::AcqRel) {
                let kernel = shared::Key::new(d, slot.info()).digest();
                worker().promote(Arc::as_ptr(&slot) as usize, kernel);
            } else {
                let _ = worker().submit(slot.jobs(), true);
            }
        }
        Some(slot)
    }

    /// The slot of kernel `name` on `d`, if there is one (tests).
    pub fn find(&self, d: &Device, name: &str) -> Option<Arc<KernelSlot>> {
        self.slots.lock().get(&(key(d), name.to_string())).cloned()
    }
}

/// A unit of background work.
struct Job {
    /// Jobs of one kernel slot share this (the slot's address), so
    /// clCreateKernel can move them to the front.
    group: usize,
    /// What it makes: the kernel's identity (`shared::Key::digest`) and
    /// the index of the pipeline in its predictions. A build of the same
    /// kernels again (another program of the same source) queues the
    /// same work: its jobs replace the queued ones instead of adding
    /// copies (`Worker::submit`).
    what: Option<(u64, usize)>,
    run: Box<dyn FnOnce() + Send>,
}

#[derive(Default)]
struct WorkerState {
    jobs: VecDeque<Job>,
    /// A job is running.
    running: bool,
    /// The thread has been started.
    started: bool,
}

/// The background thread and its queue.
#[derive(Default)]
struct Worker {
    state: Mutex<WorkerState>,
    /// Jobs arrived, or closing.
    wake: Condvar,
    /// A job ended.
    idle: Condvar,
}

/// Set at process exit: no job starts any more, a running one stops
/// between pipelines.
static CLOSING: AtomicBool = AtomicBool::new(false);

fn closing() -> bool {
    CLOSING.load(Ordering::Acquire)
}

fn worker() -> &'static Worker {
    static W: OnceLock<Worker> = OnceLock::new();
    W.get_or_init(Worker::default)
}

/// Waits until no background job is queued or running (tests and
/// measurements).
pub fn wait_idle() {
    let w = worker();
    let mut st = w.state.lock();
    while !st.jobs.is_empty() || st.running {
        w.idle.wait(&mut st);
    }
}

/// Set once a pipeline was made: the exit handler is registered again
/// then (`super::exit::watch_once`), after the driver loaded its compiler.
pub(super) static PIPELINE_MADE: AtomicBool = AtomicBool::new(false);

/// At process exit (a `super::exit` hook, which runs before the driver's
/// teardown): drop the queued jobs, wait for the running one.
fn at_exit() {
    CLOSING.store(true, Ordering::Release);
    let w = worker();
    let dropped: Vec<Job> = {
        let mut st = w.state.lock();
        st.jobs.drain(..).collect()
    };
    // Jobs hold only weak references: dropping them frees nothing.
    drop(dropped);
    w.wake.notify_all();
    let mut st = w.state.lock();
    while st.running {
        w.idle.wait(&mut st);
    }
    // No Vulkan call here: at exit the driver may be tearing itself down
    // (a test binary died of SIGSEGV at exit on NVIDIA once while this
    // wrote the pipeline caches). The worker writes them whenever its
    // queue runs dry (`Worker::run`), kernels when they go.
}

impl Worker {
    /// Queues `jobs` at the back, or at the front (`front`, in order):
    /// whether they were queued.
    fn submit(&'static self, jobs: Vec<Job>, front: bool) -> bool {
        if jobs.is_empty() || closing() {
            return false;
        }
        let mut st = self.state.lock();
        if !st.started {
            let spawned = std::thread::Builder::new()
                .name("ferrocl-prewarm".into())
                .spawn(move || self.run());
            if spawned.is_err() {
                // Nothing is made ahead; launches create their pipelines.
                return false;
            }
            st.started = true;
            super::exit::on_exit(at_exit);
        }
        if front {
            // The same work queued by an earlier build of identical
            // kernels goes: these jobs do it, and their program is the
            // newer (the likelier to be alive and launched).
            let same: std::collections::HashSet<(u64, usize)> =
                jobs.iter().filter_map(|j| j.what).collect();
            if !same.is_empty() {
                st.jobs
                    .retain(|j| !j.what.is_some_and(|w| same.contains(&w)));
            }
            for j in jobs.into_iter().rev() {
                st.jobs.push_front(j);
            }
            // The oldest go (they hold weak references only: nothing is
            // freed; their kernels' pipelines are made at launch).
            st.jobs.truncate(MAX_QUEUED);
        } else if st.jobs.len() + jobs.len() <= MAX_QUEUED {
            st.jobs.extend(jobs);
        } else {
            return false;
        }
        self.wake.notify_one();
        true
    }

    /// Moves the queued jobs of `group`, and those of identical kernels
    /// (`kernel`, a `shared::Key::digest`: a later build of the same
    /// kernels replaced this slot's jobs with its own), to the front.
    fn promote(&self, group: usize, kernel: u64) {
        let mine = |j: &Job| j.group == group || j.what.is_some_and(|(k, _)| k == kernel);
        let mut st = self.state.lock();
        if !st.jobs.iter().any(mine) {
            return;
        }
        let (mine, rest): (VecDeque<Job>, VecDeque<Job>) = st.jobs.drain(..).partition(mine);
        st.jobs = mine;
        st.jobs.extend(rest);
    }

    fn run(&self) {
        loop {
            let job = {
                let mut st = self.state.lock();
                loop {
                    if closing() {
                        return;
                    }
                    if let Some(j) = st.jobs.pop_front() {
                        st.running = true;
                        break j;
                    }
                    self.wake.wait(&mut st);
                }
            };
            // A panic in a job (a driver bug, say) must not stop the
            // worker or leave `running` set: its pipelines are then made
            // at their launches.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job.run));
            let drained = self.state.lock().jobs.is_empty();
            if drained && !closing() {
                // The batch is done: what it compiled goes to disk now, for
                // the next run (applications often never release kernels).
                crate::vk::device::save_all_pipeline_caches();
            }
            let mut st = self.state.lock();
            st.running = false;
            self.idle.notify_all();
        }
    }
}

/// Pipelines objects shared by identical kernels of different programs
/// (the same source built again, in another context or by another
/// instance of a library): each pipeline is compiled once per device,
/// not once per program.
mod shared {
    use std::collections::HashMap;
    use std::sync::{Arc, Weak};

    use parking_lot::Mutex;

    use super::{Device, KernelPipelines};

    /// A kernel's identity on a device: its whole Vulkan module, entry
    /// point and launch interface (what `KernelPipelines::new` takes).
    #[derive(PartialEq, Eq, Hash)]
    pub struct Key {
        device: usize,
        spirv: Vec<u32>,
        entry: String,
        push_constant_size: u32,
        reqd: Option<[u32; 3]>,
    }

    impl Key {
        pub fn new(d: &Device, k: &ferrocl_compiler::Kernel) -> Key {
            Key {
                device: d as *const Device as usize,
                spirv: k.spirv.clone(),
                entry: k.entry_point.clone(),
                push_constant_size: k.push_constant_size,
                reqd: k.reqd_work_group_size,
            }
        }

        /// A 64-bit hash of the key, naming the kernel in background
        /// jobs (two kernels with one digest would only share a queue
        /// entry: one of them then gets its pipelines at its launch).
        pub fn digest(&self) -> u64 {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            self.hash(&mut h);
            h.finish()
        }
    }

    /// One kernel identity's pipelines object, made once: whoever comes
    /// first makes it under the entry's lock, the others wait for it
    /// there. The table holds it weakly: the programs' slots and the
    /// kernels own it, and the last of them to go frees it (with its
    /// pipelines).
    type Entry = Arc<Mutex<Weak<KernelPipelines>>>;

    fn table() -> &'static Mutex<HashMap<Key, Entry>> {
        static T: std::sync::OnceLock<Mutex<HashMap<Key, Entry>>> = std::sync::OnceLock::new();
        T.get_or_init(Default::default)
    }

    /// The live pipelines object of `key`: the one made (or being made:
    /// waited for) for an identical kernel, else `make`'s, recorded. An
    /// error records nothing.
    pub fn get_or_make(
        key: Key,
        make: impl FnOnce() -> super::CLResult<Arc<KernelPipelines>>,
    ) -> super::CLResult<Arc<KernelPipelines>> {
        let entry = {
            let mut t = table().lock();
            // Entries of freed objects go on the way. One only the table
            // holds is locked by nobody (entries are cloned under the
            // table's lock): checking it does not block.
            t.retain(|_, e| Arc::strong_count(e) > 1 || e.lock().strong_count() > 0);
            t.entry(key).or_default().clone()
        };
        let mut made = entry.lock();
        if let Some(p) = made.upgrade() {
            return Ok(p);
        }
        let p = make()?;
        *made = Arc::downgrade(&p);
        Ok(p)
    }
}

#[cfg(test)]
mod tests;
