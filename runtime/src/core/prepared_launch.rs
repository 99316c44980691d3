//! One NDRange launch of a kernel, resolved and planned on a queue's
//! device, ready to be recorded: its dispatches with their pipelines, its
//! argument set and buffers (push constants, argument block, POD
//! bindings, printf records), and what it keeps alive. Made once per
//! clEnqueueNDRangeKernel (`super::kernel::enqueue_ndrange`, recorded once)
//! and once per clCommandNDRangeKernelKHR or mutable-dispatch update
//! (`super::command_buffer`, recorded into a reusable command buffer and
//! replayed): [`Launch::record`] can be called any number of times, and
//! [`Launch::finish`] after each execution.
//!
//! Layer: commands (kernel launches), on top of the object model: the
//! arguments are resolved by `super::kernel`, the plan comes from the pure
//! functions of `super::launch`, the recording from `crate::vk::dispatch`.

use std::sync::Arc;

use ash::vk;
use ferrocl_compiler as compiler;
use opencl_sys::*;

use super::error::CLResult;
use super::event::Event;
use super::kernel::{
    group_rules, loop_cut_log, resolve_args, resolve_indirect, upload, ArgValue, DeviceKernel,
    IndirectPointers, Kernel, ResolvedArgs,
};
use super::launch::{self, KernelAbi, LaunchAddresses, NdRange};
use super::local_args;
use super::memory::Mem;
use super::queue::{Poison, Queue};
use super::residency::resident;
use super::sampler::Sampler;
use crate::vk::buffer::{BufferKind, Staging};
use crate::vk::dispatch::{upload_pods, ArgSet, Descriptor, DispatchCommand};
use crate::vk::loop_status::StatusWord;
use crate::vk::pipeline::KernelPipelines;
use crate::vk::queue::Recorder;

/// The NDRange of a launch as the application gave it: `offset` and
/// `global` have 3 entries (1 past `work_dim`), `local` `None` for a NULL
/// local size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub work_dim: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: Option<[usize; 3]>,
}

/// A launch ready to record (see the module doc).
pub struct Launch {
    /// `None` for a zero-sized NDRange: a command without work.
    command: Option<DispatchCommand>,
    /// The work-group size it runs with.
    local: [usize; 3],
    dk: Arc<DeviceKernel>,
    keep: Vec<Arc<Mem>>,
    /// In a multi-device context: which of `keep` the kernel may write.
    writes: Vec<bool>,
    _samplers: Vec<Arc<Sampler>>,
    _arg_set: Option<ArgSet>,
    _arg_buffer: Option<Arc<Staging>>,
    _pod_buffer: Option<Arc<Staging>>,
    _pipelines: Arc<KernelPipelines>,
    printf_buffer: Option<Arc<Staging>>,
    status_word: Option<Arc<StatusWord>>,
    poison: Arc<Poison>,
}

impl Launch {
    /// Resolves `args` (one value per argument of `kernel`) and the
    /// objects behind `indirect` (clSetKernelExecInfo's pointers) on
    /// `queue`'s device and plans the launch of `range`, with
    /// clEnqueueNDRangeKernel's errors (work-group size, resources, the
    /// arguments' objects).
    pub fn prepare(
        queue: &Arc<Queue>,
        kernel: &Kernel,
        args: &[ArgValue],
        indirect: &IndirectPointers,
        range: Range,
    ) -> CLResult<Launch> {
        let Range {
            work_dim,
            offset,
            global,
            local,
        } = range;
        let dk = kernel
            .for_device(&queue.device)
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?
            .clone();
        let info = &dk.info;
        let dev = &queue.device;

        // Work-group size.
        let (rules, limits) = group_rules(kernel, &dk, dev);
        let local = launch::local_size(work_dim as usize, &global, local, &rules, &limits)?;
        let local_bytes = info.static_local_size as u64
            + args
                .iter()
                .map(|a| match a {
                    ArgValue::Local(n) => n.next_multiple_of(4) as u64,
                    _ => 0,
                })
                .sum::<u64>();
        if local_bytes > dev.local_mem_size() {
            return Err(CL_OUT_OF_RESOURCES);
        }

        // The arguments on this device, and their bytes: push constants,
        // the argument block, POD bindings.
        // Objects reached through clSetKernelExecInfo's pointers (a
        // command buffer keeps them from its recording on).
        let mut resolved = resolve_args(queue, &dk, args)?;
        resolve_indirect(queue, indirect, &mut resolved);
        let ResolvedArgs {
            data,
            mut descriptors,
            keep,
            writes,
            samplers,
            from_buffer_mask,
        } = resolved;
        let abi = KernelAbi::of(info);
        let mut layout = launch::layout_args(&abi, &data)?;
        // `__local` pointer arguments: the region of the Workgroup array
        // they take, laid out with their alignments, must fit in the
        // device's shared memory too.
        let local_region = match layout.local_region {
            Some(Some(r))
                if u64::from(compiler::local_args_base(info.static_local_size)) + u64::from(r)
                    <= dev.local_mem_size() =>
            {
                Some(r)
            }
            Some(_) => return Err(CL_OUT_OF_RESOURCES),
            None => None,
        };
        // Descriptor addressing: the POD buffers (one slice of the device's
        // upload arena, the spilled image/sampler fields' included) and the
        // program's global variables.
        let pod_buffer = if layout.pods.is_empty() {
            None
        } else {
            Some(upload_pods(&dev.vk()?, &layout.pods, &mut descriptors)?)
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
        // Physical addressing, an argument block too large for push
        // constants: a buffer, whose address the push constants carry.
        let arg_buffer = match layout.arg_buffer.take() {
            Some(block) => {
                let b = upload(dev, &block)?;
                layout.set_arg_buffer_address(&abi, b.address);
                Some(b)
            }
            None => None,
        };
        let pipelines = dk.pipelines.clone();
        let mut launch = Launch {
            command: None,
            local,
            dk: dk.clone(),
            keep,
            writes,
            _samplers: samplers,
            _arg_set: None,
            _arg_buffer: arg_buffer,
            _pod_buffer: pod_buffer,
            _pipelines: pipelines.clone(),
            printf_buffer,
            status_word: None,
            poison: queue.poison.clone(),
        };

        // A zero-sized NDRange (OpenCL 2.1+) does no work but is a command.
        let range = NdRange {
            work_dim,
            offset,
            global,
            local,
        };
        if range.is_empty() {
            return Ok(launch);
        }

        let addresses = LaunchAddresses {
            global_vars: dk.global_vars.as_ref().map_or(0, |b| b.address),
            printf: launch.printf_buffer.as_ref().map_or(0, |b| b.address),
        };
        let mut push = layout.push;
        let region_offsets = launch::write_implicit(&abi, &range, &addresses, &data, &mut push)?;
        // The exact pipeline's region, and the generic one's that stands
        // in for it until it is made (`local_args`).
        let generic = local_region.map(|_| local_args::generic_region(dev, info.static_local_size));
        let region = local_region
            .zip(generic)
            .map(|(r, g)| local_args::region_spec(local_args::exact_region(r, g)));
        // 2D images made from buffers: their bits of SpecId
        // IMAGE_FROM_BUFFER_SPEC_ID (absent, 0, for none).
        let mut extra_spec: Vec<(u32, u32)> = region.map_or(Vec::new(), |r| r.to_vec());
        if from_buffer_mask != 0 {
            extra_spec.push((compiler::IMAGE_FROM_BUFFER_SPEC_ID, from_buffer_mask));
        }
        let plans = launch::plan_dispatches(
            &range,
            limits.max_group_count,
            &push,
            &region_offsets,
            &extra_spec,
        );
        let mut command = DispatchCommand::new(&pipelines, plans, |spec| match generic {
            Some(g) => local_args::pipeline(&pipelines, spec, g),
            None => pipelines.get(spec),
        })?;
        super::exit::watch_once(&super::prewarm::PIPELINE_MADE);
        // The argument set: taken and written last, once nothing can fail.
        let arg_set = if pipelines.has_arg_set() {
            Some(ArgSet::write(&pipelines, &descriptors)?)
        } else {
            None
        };
        // On a driver that cuts long loops, the queue's loop-status word: a
        // kernel with loops sets it when a loop may have lost passes
        // (`Kernel::loop_status`), and a launch's dispatches run only while
        // it is 0 (conditional rendering, where the device has it;
        // `queue::Poison`).
        let status_word = if dev.loop_limiter() || info.loop_status {
            Some(queue.loop_status()?)
        } else {
            None
        };
        command.bind(
            arg_set.as_ref().map(ArgSet::raw),
            status_word
                .as_ref()
                .filter(|_| info.loop_status)
                .map(|w| (w.set(), w.offset())),
            status_word.as_ref().map(|w| (w.buffer(), w.offset())),
        );
        launch.command = Some(command);
        launch._arg_set = arg_set;
        launch.status_word = status_word;
        Ok(launch)
    }

    /// A zero-sized NDRange: nothing to record.
    pub fn is_empty(&self) -> bool {
        self.command.is_none()
    }

    /// The work-group size the launch runs with.
    pub fn local_size(&self) -> [usize; 3] {
        self.local
    }

    /// Whether the kernel calls printf.
    pub fn has_printf(&self) -> bool {
        self.printf_buffer.is_some()
    }

    /// The memory objects the launch uses, `true` where it may write them
    /// (for `super::residency::resident`).
    pub fn uses(&self) -> Vec<(&Arc<Mem>, bool)> {
        let multi = !self.writes.is_empty();
        self.keep
            .iter()
            .enumerate()
            .map(|(i, m)| (m, multi && self.writes[i]))
            .collect()
    }

    /// Records the launch's commands into `r`.
    pub fn record(&self, r: &Recorder) {
        if let Some(c) = &self.command {
            c.record(r);
        }
    }

    /// After an execution of the launch has completed: prints its printf
    /// output, and fails with CL_OUT_OF_RESOURCES when the driver may have
    /// cut one of its loops (this launch was the first to see it: the
    /// queue is poisoned) or with
    /// CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when an earlier
    /// launch's cut loop made it do nothing.
    pub fn finish(&self) -> CLResult<()> {
        let failed = self.status_word.as_ref().is_some_and(|w| w.read() != 0);
        let cause = failed && self.poison.set();
        if cause {
            loop_cut_log(&self.dk.info.name);
        }
        if let Some(b) = &self.printf_buffer {
            if let Some(p) = b.mapped() {
                // SAFETY: the launch is complete (host barrier at the end of
                // its submission); the mapping is `b.size` bytes.
                let data = unsafe { std::slice::from_raw_parts(p, b.size as usize) };
                let text = super::printf::format_buffer(
                    &self.dk.info.printf,
                    &self.dk.info.printf_strings,
                    data,
                );
                super::printf::print(&text);
            }
        }
        match (failed, cause) {
            (true, true) => Err(CL_OUT_OF_RESOURCES),
            (true, false) => Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
            _ => Ok(()),
        }
    }
}

/// clEnqueueNDRangeKernel once the ICD layer has checked the arguments'
/// shapes: `global`, `offset` and `local` have 3 entries (1 past work_dim).
/// The kernel's arguments are taken now; the launch ([`Launch`])
/// is recorded when its turn comes and checked once it completes.
pub fn enqueue_ndrange(
    queue: &Arc<Queue>,
    kernel: &Arc<Kernel>,
    work_dim: u32,
    offset: [usize; 3],
    global: [usize; 3],
    local: Option<[usize; 3]>,
    wait_list: Vec<Arc<Event>>,
) -> CLResult<Arc<Event>> {
    let args: Vec<ArgValue> = kernel
        .args
        .lock()
        .iter()
        .cloned()
        .collect::<Option<Vec<_>>>()
        .ok_or(CL_INVALID_KERNEL_ARGS)?;
    let range = Range {
        work_dim,
        offset,
        global,
        local,
    };
    let indirect = kernel.indirect.lock().clone();
    let launch = Launch::prepare(queue, kernel, &args, &indirect, range)?;
    // A zero-sized NDRange (OpenCL 2.1+) does no work but is a command.
    if launch.is_empty() {
        return Ok(queue.submit(CL_COMMAND_NDRANGE_KERNEL, wait_list, None, None));
    }
    let launch = Arc::new(launch);
    let l2 = launch.clone();
    let record = Box::new(move |r: &Recorder| {
        l2.record(r);
        Ok(())
    });
    let record = resident(queue, &launch.uses(), record);
    // Everything the device reads stays alive until the command completes;
    // printf output reaches stdout before the event completes.
    let hold = Box::new(move || launch.finish());
    Ok(queue.submit_checked(
        CL_COMMAND_NDRANGE_KERNEL,
        wait_list,
        Some(record),
        Some(hold),
    ))
}
