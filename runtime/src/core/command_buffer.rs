//! cl_khr_command_buffer, cl_khr_command_buffer_mutable_dispatch and
//! cl_khr_command_buffer_multi_device: commands recorded once into Vulkan
//! command buffers and replayed.
//!
//! **Recording.** Each clCommand*KHR call resolves its command at once, as
//! the matching clEnqueue* would: a kernel command takes a snapshot of the
//! kernel's arguments and plans its launch (`super::prepared_launch`:
//! pipelines, argument set, push constants, POD and argument buffers), a
//! copy computes its regions, a fill expands its pattern (or uses
//! vkCmdFillBuffer for a 4-byte pattern). Errors reach the application
//! from the recording call. The command keeps its kernel, memory objects
//! and buffers alive for as long as the command buffer lives.
//!
//! **Finalize** records every command into a secondary VkCommandBuffer of
//! its own (`crate::vk::recording`, SIMULTANEOUS_USE), preceded by a full
//! barrier where the command must follow earlier ones: every command but
//! the first of its queue's on an in-order queue; on an out-of-order queue a command
//! with a sync-point wait list (a full barrier is a superset of the sync
//! points' order) and every barrier command.
//!
//! **Enqueue** is one queue command (`CL_COMMAND_COMMAND_BUFFER_KHR`,
//! through `Queue::submit_checked`, so wait lists, events, profiling and
//! in-order/out-of-order rules are the queue's) whose recording is a
//! single vkCmdExecuteCommands of the finalized buffers: nothing is
//! re-recorded. What each replay refreshes on the host: the completion
//! check of each kernel (the loop-status word on lavapipe,
//! `Launch::finish`); the timestamps of a profiling queue are the queue
//! engine's own pair around the command, per enqueue. Several enqueues
//! may be pending at once: the recordings are immutable and shared.
//!
//! **Mutable dispatch** (`CommandBuffer::update`): an update plans the new
//! launches of the commands it changes (arguments, global offset and size,
//! local size) and re-records only those commands' secondary buffers;
//! the set of recordings is replaced as a whole, so pending enqueues keep
//! executing the old one (simultaneous use).
//!
//! **Queue substitution.** An enqueue on another queue of the same
//! device executes the same recordings, whatever its properties (0.9.7's
//! compatibility rule): the order between commands was fixed at recording
//! by the recording queue, and profiling timestamps are the executing
//! queue's. Their kernels bind
//! the recording queue's loop-status word (lavapipe's loop limiter,
//! `crate::vk::loop_status`), so a loop cut during such an enqueue fails
//! it and poisons the recording queue, not the substitute.
//!
//! **Several queues** (cl_khr_command_buffer_multi_device). A command
//! buffer has one *lane* per creation queue; each command belongs to the
//! lane of the queue it was recorded to, and is planned and recorded for
//! that queue's device (each device its own VkDevice). Sync points number
//! the commands of all lanes together. The replay is cut into *segments*
//! (`settle`): maximal runs of consecutive commands of one lane. Each
//! segment is its own queue command on its lane's executing queue, one
//! vkCmdExecuteCommands, whose wait list is the events of the segments it
//! follows (its lane's previous segment, and every segment holding a
//! sync point one of its commands waits for; the application's wait list
//! for a segment that follows none). So a dependency between lanes is an
//! event between queues, waited for host-side by the later queue's
//! submitter (universal sync; no device lists another in
//! CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR), and memory objects follow
//! the residency rules of plain enqueues (`super::residency::resident`
//! around each segment: made current on the segment's device once its
//! waits are satisfied). With one lane there is one segment and the
//! enqueue is exactly the single-queue path above. With several, the
//! event returned is `super::joined_event`'s: no queue, complete when
//! every segment is. Commands of one lane are also ordered across its
//! segments (the previous-segment edge), also on an out-of-order queue,
//! which is stricter than needed but never wrong. A barrier command
//! orders its own lane. Remapping: `remap`.
//!
//! Image commands reuse the image transfers' copies
//! (`super::image_transfer::ReusableCopy`); a fill's texels are expanded
//! into staging once, at recording.
//!
//! Not supported, reported as such: kernels with printf (their record
//! buffer would be shared by pending replays; no
//! CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR, recording one fails
//! with CL_INVALID_OPERATION), SVM commands with a host pointer outside
//! every SVM allocation (a replay cannot copy at enqueue as
//! clEnqueueSVMMemcpy does; CL_INVALID_OPERATION), device-side sync
//! between queues (CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR is accepted
//! for a command buffer of one queue only). SVM memcpy and fill between SVM
//! allocations are buffer copies and fills of the allocations' memory
//! objects (`super::svm`). Known limit: an image↔buffer
//! copy at an offset Vulkan cannot copy at goes through one bounce buffer
//! made at recording, which two replays running concurrently on an
//! out-of-order queue (no event between them) would share.
//!
//! Layer: commands, on top of kernel launches (`super::prepared_launch`)
//! and memory objects.

mod remap;

use std::sync::Arc;

use ash::vk;
use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::error::CLResult;
use super::event::Event;
use super::image_transfer::ReusableCopy;
use super::joined_event::join;
use super::kernel::{ArgValue, IndirectPointers, IndirectUpdate, Kernel};
use super::memory::Mem;
use super::object::{tag, Base, ClObject};
use super::prepared_launch::{Launch, Range};
use super::queue::Queue;
use super::residency::resident;
use super::transfer::Rect;
use crate::vk::buffer::{BufferKind, Staging};
use crate::vk::queue::Recorder;
use crate::vk::recording::Recording;

pub use remap::Remapped;

/// cl_khr_command_buffer's version: the OpenCL-Headers'
/// CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION, whose API and states (no
/// pending state; FINALIZED from mutable dispatch) this module follows.
pub const EXTENSION_VERSION: (u32, u32, u32) = (0, 9, 8);

/// cl_khr_command_buffer_mutable_dispatch's version
/// (CL_KHR_COMMAND_BUFFER_MUTABLE_DISPATCH_EXTENSION_VERSION).
pub const MUTABLE_DISPATCH_VERSION: (u32, u32, u32) = (0, 9, 5);

/// cl_khr_command_buffer_multi_device's version
/// (CL_KHR_COMMAND_BUFFER_MULTI_DEVICE_EXTENSION_VERSION).
pub const MULTI_DEVICE_VERSION: (u32, u32, u32) = (0, 9, 1);

/// CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR: several enqueues of one
/// command buffer may be pending, and it may be updated meanwhile (the
/// recordings are immutable, an update replaces them); commands may be
/// recorded to several queues of the device (each queue's commands are
/// their own queue commands, see the module doc). No printf, no
/// device-side enqueue; out-of-order queues are reported through the
/// supported queue properties.
pub const CAPABILITIES: cl_device_command_buffer_capabilities_khr =
    CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR
        | CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR;

/// CL_PLATFORM_COMMAND_BUFFER_CAPABILITIES_KHR: sync points between the
/// commands of any queues (universal sync: the queues' events, host-side),
/// explicit and automatic remapping (`remap`). No device lists another in
/// CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR (nor itself): every
/// synchronization between two queues goes through the host.
pub const PLATFORM_CAPABILITIES: cl_platform_command_buffer_capabilities_khr =
    CL_COMMAND_BUFFER_PLATFORM_UNIVERSAL_SYNC_KHR
        | CL_COMMAND_BUFFER_PLATFORM_REMAP_QUEUES_KHR
        | CL_COMMAND_BUFFER_PLATFORM_AUTOMATIC_REMAP_KHR;

/// CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR: every
/// host-queue property (CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR
/// is 0).
pub const SUPPORTED_QUEUE_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

/// CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR: what an update can change
/// (each is a new launch plan, re-recorded): the NDRange, the arguments
/// (SVM and device pointers included) and the exec info (the
/// indirect pointers whose objects the launch keeps alive).
pub const MUTABLE_DISPATCH_CAPABILITIES: cl_mutable_dispatch_fields_khr =
    CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
        | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
        | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
        | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
        | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

/// cl_command_buffer_state_khr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Recording,
    /// Finalized, but a mutable kernel command still lacks arguments
    /// (cl_khr_command_buffer_mutable_dispatch's deferred arguments).
    Finalized,
    Executable,
}

impl State {
    pub fn raw(self) -> cl_command_buffer_state_khr {
        match self {
            State::Recording => CL_COMMAND_BUFFER_STATE_RECORDING_KHR,
            State::Finalized => CL_COMMAND_BUFFER_STATE_FINALIZED_KHR,
            State::Executable => CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR,
        }
    }
}

#[repr(C)]
pub struct CommandBuffer {
    base: Base,
    /// The queues given at creation, in order: a command's *lane* is the
    /// index of its queue here (always 0 with one queue).
    pub queues: Vec<Arc<Queue>>,
    /// The property list given at creation (empty for NULL).
    pub properties: Vec<cl_command_buffer_properties_khr>,
    pub flags: cl_command_buffer_flags_khr,
    inner: Mutex<Inner>,
}

impl ClObject for CommandBuffer {
    const TAG: u32 = tag(b"CMDB");
    const INVALID: cl_int = CL_INVALID_COMMAND_BUFFER_KHR;
    fn base(&self) -> &Base {
        &self.base
    }
}

struct Inner {
    state: State,
    steps: Vec<Step>,
    /// What an enqueue executes; made by finalize, replaced by updates.
    replay: Option<Arc<Replay>>,
}

/// One recorded command.
struct Step {
    /// Its queue's index in `CommandBuffer::queues`.
    lane: usize,
    /// Its sync-point wait list.
    waits: Vec<cl_sync_point_khr>,
    /// A full barrier goes first (see the module doc).
    barrier_before: bool,
    body: Body,
    /// Its secondary command buffer (after finalize).
    recording: Option<Arc<Recording>>,
}

enum Body {
    Kernel(Arc<MutableCommand>),
    Transfer(Transfer),
    Barrier,
}

/// A copy or fill's recording on one queue's device, and the staging it
/// reads (kept alive with it).
pub struct Made {
    record: Box<dyn Fn(&Recorder) + Send + Sync>,
    _staging: Option<Arc<Staging>>,
}

impl Made {
    fn new(record: Box<dyn Fn(&Recorder) + Send + Sync>, staging: Option<Arc<Staging>>) -> Made {
        Made {
            record,
            _staging: staging,
        }
    }
}

/// Makes a copy or fill for a queue: at recording, and again for the queue
/// a remap moves the command to (`remap`).
pub type MakeTransfer = Arc<dyn Fn(&Arc<Queue>) -> CLResult<Made> + Send + Sync>;

/// A copy or fill: its recording and what it keeps alive.
struct Transfer {
    make: MakeTransfer,
    made: Made,
    /// Its memory objects, `true` where written.
    uses: Vec<(Arc<Mem>, bool)>,
}

/// What one enqueue executes: shared by all pending enqueues.
struct Replay {
    segments: Vec<Segment>,
}

/// A run of consecutive commands of one lane: one queue command per
/// enqueue (see the module doc).
struct Segment {
    lane: usize,
    raws: Vec<vk::CommandBuffer>,
    _recordings: Vec<Arc<Recording>>,
    launches: Vec<Arc<Launch>>,
    /// Every memory object the commands use (residency in a context with
    /// several devices).
    uses: Vec<(Arc<Mem>, bool)>,
    /// The earlier segments it follows: the lane's previous one and those
    /// holding a sync point its commands wait for.
    after: Vec<usize>,
}

/// A kernel command: the handle clCommandNDRangeKernelKHR returns
/// (cl_mutable_command_khr), which mutable dispatch updates.
#[repr(C)]
pub struct MutableCommand {
    base: Base,
    /// The command buffer's handle (identity only; it owns this command).
    owner: usize,
    /// The queue it was recorded to (one of the command buffer's).
    pub queue: Arc<Queue>,
    pub kernel: Arc<Kernel>,
    /// The property list given at recording (empty for NULL).
    pub properties: Vec<cl_command_properties_khr>,
    /// CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR.
    pub updatable: cl_mutable_dispatch_fields_khr,
    dispatch: Mutex<Dispatch>,
}

impl ClObject for MutableCommand {
    const TAG: u32 = tag(b"MUTC");
    const INVALID: cl_int = CL_INVALID_MUTABLE_COMMAND_KHR;
    fn base(&self) -> &Base {
        &self.base
    }
}

/// A kernel command's current configuration.
#[derive(Clone)]
struct Dispatch {
    args: Vec<Option<ArgValue>>,
    /// clSetKernelExecInfo's pointers as at recording, or as updated.
    indirect: IndirectPointers,
    range: Range,
    /// `None` while an argument is missing (deferred arguments).
    launch: Option<Arc<Launch>>,
}

impl MutableCommand {
    /// Whether `cb` recorded this command.
    pub fn belongs_to(&self, cb: &CommandBuffer) -> bool {
        self.owner == cb as *const CommandBuffer as usize
    }

    /// The command buffer's handle.
    pub fn owner_handle(&self) -> usize {
        self.owner
    }

    /// The current NDRange.
    pub fn range(&self) -> Range {
        self.dispatch.lock().range
    }
}

/// One cl_mutable_dispatch_config_khr, checked by the ICD layer.
pub struct DispatchUpdate {
    pub command: Arc<MutableCommand>,
    pub args: Vec<(usize, ArgValue)>,
    /// The exec info settings given (clSetKernelExecInfo's), in order.
    pub indirect: Vec<IndirectUpdate>,
    pub offset: Option<[usize; 3]>,
    pub global: Option<[usize; 3]>,
    pub local: Option<[usize; 3]>,
}

/// Whether every work-group of `range` run with `local` is full.
fn uniform(range: &Range, local: [usize; 3]) -> bool {
    (0..range.work_dim as usize).all(|d| range.global[d].is_multiple_of(local[d]))
}

impl CommandBuffer {
    pub fn new(
        queues: Vec<Arc<Queue>>,
        properties: Vec<cl_command_buffer_properties_khr>,
        flags: cl_command_buffer_flags_khr,
    ) -> Arc<CommandBuffer> {
        debug_assert!(!queues.is_empty());
        Arc::new(CommandBuffer {
            base: Base::new(Self::TAG),
            queues,
            properties,
            flags,
            inner: Mutex::new(Inner {
                state: State::Recording,
                steps: Vec::new(),
                replay: None,
            }),
        })
    }

    /// The context of its queues.
    pub fn context(&self) -> &Arc<Context> {
        &self.queues[0].context
    }

    /// The queue of lane `lane`.
    pub fn queue(&self, lane: usize) -> &Arc<Queue> {
        &self.queues[lane]
    }

    pub fn state(&self) -> State {
        self.inner.lock().state
    }

    pub fn mutable(&self) -> bool {
        self.flags & CL_COMMAND_BUFFER_MUTABLE_KHR != 0
    }

    fn in_order(&self, lane: usize) -> bool {
        self.queues[lane].properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0
    }

    /// Checks a recording call's state and sync-point wait list, and
    /// appends its command to lane `lane`; returns its sync point.
    fn push(
        &self,
        lane: usize,
        waits: &[cl_sync_point_khr],
        body: Body,
    ) -> CLResult<cl_sync_point_khr> {
        let mut inner = self.inner.lock();
        // "CL_INVALID_OPERATION if command_buffer has been finalized."
        if inner.state != State::Recording {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if [...] any of the
        // sync-points specified by sync_point_wait_list is not valid": a
        // sync point is the 1-based index of an earlier command (of any
        // lane: universal sync).
        let n = inner.steps.len() as u32;
        if waits.iter().any(|&s| s == 0 || s > n) {
            return Err(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
        }
        let earlier = inner.steps.iter().any(|s| s.lane == lane);
        let barrier_before = match body {
            Body::Barrier => true,
            _ if self.in_order(lane) => earlier,
            _ => !waits.is_empty(),
        };
        inner.steps.push(Step {
            lane,
            waits: waits.to_vec(),
            barrier_before,
            body,
            recording: None,
        });
        Ok(n + 1)
    }

    /// clCommandBarrierWithWaitListKHR.
    pub fn barrier(&self, lane: usize, waits: &[cl_sync_point_khr]) -> CLResult<cl_sync_point_khr> {
        self.push(lane, waits, Body::Barrier)
    }

    /// clCommandNDRangeKernelKHR once the ICD layer checked the shapes.
    /// Arguments missing are an error unless `updatable` lets them be set
    /// by a later update (the command buffer then finalizes into
    /// [`State::Finalized`]).
    #[allow(clippy::too_many_arguments)]
    pub fn ndrange(
        self: &Arc<Self>,
        lane: usize,
        kernel: &Arc<Kernel>,
        range: Range,
        properties: Vec<cl_command_properties_khr>,
        updatable: cl_mutable_dispatch_fields_khr,
        waits: &[cl_sync_point_khr],
    ) -> CLResult<(cl_sync_point_khr, Arc<MutableCommand>)> {
        // Checked before anything is planned.
        if self.state() != State::Recording {
            return Err(CL_INVALID_OPERATION);
        }
        runnable(&self.queues[lane], kernel)?;
        let args = kernel.args.lock().clone();
        let complete = args.iter().all(Option::is_some);
        // "CL_INVALID_KERNEL_ARGS if the kernel argument values have not
        // been specified", unless they may come with an update.
        let deferrable = self.mutable() && updatable & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR != 0;
        if !complete && !deferrable {
            return Err(CL_INVALID_KERNEL_ARGS);
        }
        let dispatch = Dispatch {
            args,
            indirect: kernel.indirect.lock().clone(),
            range,
            launch: None,
        };
        let command = self.kernel_command(lane, kernel, properties, updatable, dispatch)?;
        let sp = self.push(lane, waits, Body::Kernel(command.clone()))?;
        Ok((sp, command))
    }

    /// A kernel command of lane `lane` with configuration `dispatch`, its
    /// launch planned on the lane's queue where its arguments are all set.
    fn kernel_command(
        self: &Arc<Self>,
        lane: usize,
        kernel: &Arc<Kernel>,
        properties: Vec<cl_command_properties_khr>,
        updatable: cl_mutable_dispatch_fields_khr,
        mut dispatch: Dispatch,
    ) -> CLResult<Arc<MutableCommand>> {
        let queue = &self.queues[lane];
        runnable(queue, kernel)?;
        dispatch.launch = if dispatch.args.iter().all(Option::is_some) {
            let values: Vec<ArgValue> = dispatch.args.iter().flatten().cloned().collect();
            Some(Arc::new(Launch::prepare(
                queue,
                kernel,
                &values,
                &dispatch.indirect,
                dispatch.range,
            )?))
        } else {
            None
        };
        Ok(Arc::new(MutableCommand {
            base: Base::new(MutableCommand::TAG),
            owner: Arc::as_ptr(self) as usize,
            queue: queue.clone(),
            kernel: kernel.clone(),
            properties,
            updatable,
            dispatch: Mutex::new(dispatch),
        }))
    }

    /// A copy or fill made by `make` for lane `lane`'s queue.
    fn transfer(
        &self,
        lane: usize,
        waits: &[cl_sync_point_khr],
        make: MakeTransfer,
        uses: Vec<(Arc<Mem>, bool)>,
    ) -> CLResult<cl_sync_point_khr> {
        if self.state() != State::Recording {
            return Err(CL_INVALID_OPERATION);
        }
        let made = make(&self.queues[lane])?;
        self.push(lane, waits, Body::Transfer(Transfer { make, made, uses }))
    }

    /// A command of no bytes (clCommandSVMMemcpyKHR or
    /// clCommandSVMMemFillKHR with size 0): ordered like any other, does
    /// nothing.
    pub fn nothing(&self, lane: usize, waits: &[cl_sync_point_khr]) -> CLResult<cl_sync_point_khr> {
        let make: MakeTransfer =
            Arc::new(|_: &Arc<Queue>| Ok(Made::new(Box::new(|_: &Recorder| {}), None)));
        self.transfer(lane, waits, make, Vec::new())
    }

    /// clCommandCopyBufferKHR once the ICD layer checked the ranges.
    #[allow(clippy::too_many_arguments)]
    pub fn copy(
        &self,
        lane: usize,
        src: &Arc<Mem>,
        dst: &Arc<Mem>,
        src_offset: usize,
        dst_offset: usize,
        size: usize,
        waits: &[cl_sync_point_khr],
    ) -> CLResult<cl_sync_point_khr> {
        let region = vk::BufferCopy {
            src_offset: (src.offset + src_offset) as u64,
            dst_offset: (dst.offset + dst_offset) as u64,
            size: size as u64,
        };
        let make = copy_regions(src, dst, vec![region]);
        let uses = vec![(src.clone(), false), (dst.clone(), true)];
        self.transfer(lane, waits, make, uses)
    }

    /// clCommandCopyBufferRectKHR once the ICD layer checked the rectangles.
    #[allow(clippy::too_many_arguments)]
    pub fn copy_rect(
        &self,
        lane: usize,
        src: &Arc<Mem>,
        dst: &Arc<Mem>,
        s: Rect,
        d: Rect,
        region: [usize; 3],
        waits: &[cl_sync_point_khr],
    ) -> CLResult<cl_sync_point_khr> {
        let copies: Vec<vk::BufferCopy> = (0..region[2])
            .flat_map(|z| (0..region[1]).map(move |y| (y, z)))
            .map(|(y, z)| vk::BufferCopy {
                src_offset: (src.offset + s.row_offset(y, z)) as u64,
                dst_offset: (dst.offset + d.row_offset(y, z)) as u64,
                size: region[0] as u64,
            })
            .collect();
        let make = copy_regions(src, dst, copies);
        let uses = vec![(src.clone(), false), (dst.clone(), true)];
        self.transfer(lane, waits, make, uses)
    }

    /// clCommandFillBufferKHR once the ICD layer checked the pattern and
    /// range: vkCmdFillBuffer where the pattern is one 32-bit word (or
    /// repeats in one) and the range is word-aligned, else a copy from
    /// staging memory holding the expanded pattern, made now.
    pub fn fill(
        &self,
        lane: usize,
        mem: &Arc<Mem>,
        pattern: &[u8],
        offset: usize,
        size: usize,
        waits: &[cl_sync_point_khr],
    ) -> CLResult<cl_sync_point_khr> {
        let at = (mem.offset + offset) as u64;
        let uses = vec![(mem.clone(), true)];
        let word: Option<u32> = match pattern.len() {
            1 => Some(u32::from_ne_bytes([pattern[0]; 4])),
            2 => Some(u32::from_ne_bytes([
                pattern[0], pattern[1], pattern[0], pattern[1],
            ])),
            4 => Some(u32::from_ne_bytes([
                pattern[0], pattern[1], pattern[2], pattern[3],
            ])),
            _ => None,
        };
        let m = mem.clone();
        if let Some(w) = word.filter(|_| at.is_multiple_of(4) && size.is_multiple_of(4)) {
            let make: MakeTransfer = Arc::new(move |q: &Arc<Queue>| {
                let dst = m.buffer_on(q.device_index)?.raw;
                let record = Box::new(move |r: &Recorder| r.fill_buffer(dst, at, size as u64, w));
                Ok(Made::new(record, None))
            });
            return self.transfer(lane, waits, make, uses);
        }
        let pattern = pattern.to_vec();
        let make: MakeTransfer = Arc::new(move |q: &Arc<Queue>| {
            let dst = m.buffer_on(q.device_index)?.raw;
            let vkdev = q.device.vk()?;
            let staging = Arc::new(vkdev.staging(size.max(1) as u64, BufferKind::Upload)?);
            let p = staging.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
            for chunk in (0..size).step_by(pattern.len()) {
                // SAFETY: mapped host-visible memory of at least `size`
                // bytes, used by nothing yet; size is a multiple of the
                // pattern size.
                unsafe {
                    std::ptr::copy_nonoverlapping(pattern.as_ptr(), p.add(chunk), pattern.len())
                };
            }
            let src = staging.raw;
            let record = Box::new(move |r: &Recorder| r.copy_buffer(src, 0, dst, at, size as u64));
            Ok(Made::new(record, Some(staging)))
        });
        self.transfer(lane, waits, make, uses)
    }

    /// An image command (clCommandCopyImageKHR, clCommandFillImageKHR,
    /// ...): `make` is `super::image_transfer`'s for a queue, once the ICD
    /// layer checked it; `uses`: its memory objects, `true` where written.
    pub fn image_command(
        &self,
        lane: usize,
        make: impl Fn(&Arc<Queue>) -> CLResult<ReusableCopy> + Send + Sync + 'static,
        uses: Vec<(Arc<Mem>, bool)>,
        waits: &[cl_sync_point_khr],
    ) -> CLResult<cl_sync_point_khr> {
        let make: MakeTransfer = Arc::new(move |q: &Arc<Queue>| {
            let copy = make(q)?;
            Ok(Made::new(
                Box::new(move |r: &Recorder| copy.record(r)),
                None,
            ))
        });
        self.transfer(lane, waits, make, uses)
    }

    /// clFinalizeCommandBufferKHR: records every command into its own
    /// secondary command buffer, on its lane's device.
    pub fn finalize(&self) -> CLResult<()> {
        let mut inner = self.inner.lock();
        // "CL_INVALID_OPERATION if command_buffer has already been finalized."
        if inner.state != State::Recording {
            return Err(CL_INVALID_OPERATION);
        }
        let mut recordings = Vec::with_capacity(inner.steps.len());
        for step in &inner.steps {
            let device = self.queues[step.lane].device.vk()?;
            recordings.push(record_step(&device, step)?);
        }
        for (step, r) in inner.steps.iter_mut().zip(recordings) {
            step.recording = r;
        }
        settle(&mut inner);
        Ok(())
    }

    /// clEnqueueCommandBufferKHR on `queues` (one per lane: the recording
    /// queues or compatible ones, checked by the ICD layer). With one lane
    /// the event is its queue's; with several, an event of no queue that
    /// completes when every lane's commands have (`super::joined_event`).
    pub fn enqueue(
        &self,
        queues: &[Arc<Queue>],
        wait_list: Vec<Arc<Event>>,
    ) -> CLResult<Arc<Event>> {
        let replay = {
            let inner = self.inner.lock();
            // "CL_INVALID_OPERATION if command_buffer has not been finalized"
            // (or, finalized with deferred arguments, is not executable).
            match (&inner.state, &inner.replay) {
                (State::Executable, Some(r)) => r.clone(),
                _ => return Err(CL_INVALID_OPERATION),
            }
        };
        let mut events: Vec<Arc<Event>> = Vec::with_capacity(replay.segments.len());
        for (i, seg) in replay.segments.iter().enumerate() {
            let waits = if seg.after.is_empty() {
                wait_list.clone()
            } else {
                seg.after.iter().map(|&j| events[j].clone()).collect()
            };
            events.push(enqueue_segment(&queues[seg.lane], &replay, i, waits));
        }
        if self.queues.len() == 1 {
            // One lane, one segment (`settle`).
            return events.pop().ok_or(CL_OUT_OF_RESOURCES);
        }
        let profiling = queues
            .iter()
            .any(|q| q.properties & CL_QUEUE_PROFILING_ENABLE != 0);
        Ok(join(
            self.context().clone(),
            profiling,
            CL_COMMAND_COMMAND_BUFFER_KHR,
            &events,
        ))
    }

    /// clUpdateMutableCommandsKHR once the ICD layer checked each
    /// configuration's fields: plans every changed command's new launch
    /// first (an error leaves every command as it was), then re-records
    /// those commands only and replaces the replay.
    pub fn update(&self, updates: Vec<DispatchUpdate>) -> CLResult<()> {
        let mut inner = self.inner.lock();
        // "CL_INVALID_OPERATION if command_buffer has not been finalized."
        if inner.state == State::Recording {
            return Err(CL_INVALID_OPERATION);
        }
        // The new configurations, in order (a command updated twice sees
        // its first update).
        let mut planned: Vec<(Arc<MutableCommand>, Dispatch)> = Vec::new();
        for u in updates {
            let mut d = match planned
                .iter()
                .rev()
                .find(|(c, _)| Arc::ptr_eq(c, &u.command))
            {
                Some((_, d)) => d.clone(),
                None => u.command.dispatch.lock().clone(),
            };
            let old_range = d.range;
            let old_local = d.launch.as_ref().map(|l| l.local_size());
            for (i, v) in u.args {
                d.args[i] = Some(v);
            }
            for i in u.indirect {
                i.apply(&mut d.indirect);
            }
            if let Some(o) = u.offset {
                d.range.offset = o;
            }
            if let Some(g) = u.global {
                d.range.global = g;
            }
            if let Some(l) = u.local {
                d.range.local = Some(l);
            }
            d.launch = if d.args.iter().all(Option::is_some) {
                let values: Vec<ArgValue> = d.args.iter().flatten().cloned().collect();
                let l = Launch::prepare(
                    &u.command.queue,
                    &u.command.kernel,
                    &values,
                    &d.indirect,
                    d.range,
                )?;
                // "CL_INVALID_OPERATION if the values of local_work_size
                // and/or global_work_size result in a change to work-group
                // uniformity."
                if let Some(ol) = old_local {
                    if uniform(&old_range, ol) != uniform(&d.range, l.local_size()) {
                        return Err(CL_INVALID_OPERATION);
                    }
                }
                Some(Arc::new(l))
            } else {
                None
            };
            planned.push((u.command, d));
        }
        // Record the changed commands (last configuration of each).
        let mut fresh: Vec<(usize, Option<Arc<Recording>>)> = Vec::new();
        for (i, (c, d)) in planned.iter().enumerate() {
            if planned[i + 1..].iter().any(|(c2, _)| Arc::ptr_eq(c, c2)) {
                continue;
            }
            let at = inner
                .steps
                .iter()
                .position(|s| matches!(&s.body, Body::Kernel(k) if Arc::ptr_eq(k, c)))
                .ok_or(CL_INVALID_MUTABLE_COMMAND_KHR)?;
            let barrier = inner.steps[at].barrier_before;
            let device = c.queue.device.vk()?;
            let rec = match &d.launch {
                Some(l) => Some(Arc::new(Recording::record(&device, |r| {
                    if barrier {
                        r.barrier();
                    }
                    l.record(r);
                    Ok(())
                })?)),
                None => None,
            };
            fresh.push((at, rec));
        }
        // Nothing can fail from here on.
        for (c, d) in planned {
            *c.dispatch.lock() = d;
        }
        for (at, rec) in fresh {
            inner.steps[at].recording = rec;
        }
        settle(&mut inner);
        Ok(())
    }
}

/// Whether `kernel` can be a command of `queue`: "CL_INVALID_PROGRAM_EXECUTABLE
/// if there is no successfully built program executable available for
/// device associated with command_queue", and "CL_INVALID_OPERATION if
/// the device associated with command_queue does not support
/// CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR and kernel contains a
/// printf call."
fn runnable(queue: &Queue, kernel: &Kernel) -> CLResult<()> {
    let dk = kernel
        .for_device(&queue.device)
        .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    if !dk.info.printf.is_empty() {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// A buffer copy of `regions` (offsets from the roots' storage) from `src`
/// to `dst`, for any queue.
fn copy_regions(src: &Arc<Mem>, dst: &Arc<Mem>, regions: Vec<vk::BufferCopy>) -> MakeTransfer {
    let (src, dst) = (src.clone(), dst.clone());
    Arc::new(move |q: &Arc<Queue>| {
        let di = q.device_index;
        let (a, b) = (src.buffer_on(di)?.raw, dst.buffer_on(di)?.raw);
        let regions = regions.clone();
        let record = Box::new(move |r: &Recorder| r.copy_regions(a, b, &regions));
        Ok(Made::new(record, None))
    })
}

/// Enqueues segment `i` of `replay` on `queue`: one queue command whose
/// recording is one vkCmdExecuteCommands of the segment's recordings.
fn enqueue_segment(
    queue: &Arc<Queue>,
    replay: &Arc<Replay>,
    i: usize,
    waits: Vec<Arc<Event>>,
) -> Arc<Event> {
    let r2 = replay.clone();
    let record = Box::new(move |r: &Recorder| {
        r.execute(&r2.segments[i].raws);
        Ok(())
    });
    let seg = &replay.segments[i];
    // Residency only matters with several devices (no allocation
    // otherwise).
    let record = if queue.context.devices.len() > 1 {
        let uses: Vec<(&Arc<Mem>, bool)> = seg.uses.iter().map(|(m, w)| (m, *w)).collect();
        resident(queue, &uses, record)
    } else {
        record
    };
    // Every kernel's completion check, in order; the first failure is the
    // event's status.
    let r3 = replay.clone();
    let host = Box::new(move || {
        let mut status = Ok(());
        for l in &r3.segments[i].launches {
            let r = l.finish();
            if status.is_ok() {
                status = r;
            }
        }
        status
    });
    queue.submit_checked(
        CL_COMMAND_COMMAND_BUFFER_KHR,
        waits,
        Some(record),
        Some(host),
    )
}

/// The secondary command buffer of `step` (`None` for a kernel command
/// still waiting for arguments).
fn record_step(
    device: &Arc<crate::vk::device::Device>,
    step: &Step,
) -> CLResult<Option<Arc<Recording>>> {
    let barrier = step.barrier_before;
    let rec = match &step.body {
        Body::Kernel(k) => {
            let Some(l) = k.dispatch.lock().launch.clone() else {
                return Ok(None);
            };
            Recording::record(device, |r| {
                if barrier {
                    r.barrier();
                }
                l.record(r);
                Ok(())
            })?
        }
        Body::Transfer(t) => Recording::record(device, |r| {
            if barrier {
                r.barrier();
            }
            (t.made.record)(r);
            Ok(())
        })?,
        Body::Barrier => Recording::record(device, |r| {
            r.barrier();
            Ok(())
        })?,
    };
    Ok(Some(Arc::new(rec)))
}

/// After finalize or an update: executable when every command has its
/// recording (the replay is rebuilt: its segments, see the module doc),
/// else finalized with deferred arguments.
fn settle(inner: &mut Inner) {
    let complete = inner.steps.iter().all(|s| s.recording.is_some());
    if !complete {
        inner.state = State::Finalized;
        inner.replay = None;
        return;
    }
    let mut segments: Vec<Segment> = Vec::new();
    // The segment of each step.
    let mut seg_of: Vec<usize> = Vec::with_capacity(inner.steps.len());
    for s in &inner.steps {
        if segments.last().is_none_or(|g| g.lane != s.lane) {
            let after: Vec<usize> = segments
                .iter()
                .rposition(|g| g.lane == s.lane)
                .into_iter()
                .collect();
            segments.push(Segment {
                lane: s.lane,
                raws: Vec::new(),
                _recordings: Vec::new(),
                launches: Vec::new(),
                uses: Vec::new(),
                after,
            });
        }
        let at = segments.len() - 1;
        let seg = &mut segments[at];
        for &w in &s.waits {
            let j = seg_of[w as usize - 1];
            if j != at && !seg.after.contains(&j) {
                seg.after.push(j);
            }
        }
        seg_of.push(at);
        let rec = s.recording.clone().expect("checked above");
        seg.raws.push(rec.raw);
        seg._recordings.push(rec);
        match &s.body {
            Body::Kernel(k) => {
                if let Some(l) = k.dispatch.lock().launch.clone() {
                    seg.uses
                        .extend(l.uses().into_iter().map(|(m, w)| (m.clone(), w)));
                    seg.launches.push(l);
                }
            }
            Body::Transfer(t) => seg.uses.extend(t.uses.iter().cloned()),
            Body::Barrier => {}
        }
    }
    // An empty command buffer still is one (empty) queue command.
    if segments.is_empty() {
        segments.push(Segment {
            lane: 0,
            raws: Vec::new(),
            _recordings: Vec::new(),
            launches: Vec::new(),
            uses: Vec::new(),
            after: Vec::new(),
        });
    }
    inner.state = State::Executable;
    inner.replay = Some(Arc::new(Replay { segments }));
}
