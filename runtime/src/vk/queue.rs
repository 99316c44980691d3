//! The execution engine behind one cl_command_queue.
//!
//! Two threads per queue, no vkQueueWaitIdle, no unbounded busy waiting
//! on an application thread (a thread waiting for an event polls it for
//! at most `FERROCL_WAIT_POLL_US` on a GPU before it blocks:
//! `crate::core::event::Event::wait`):
//! * when the queue is idle (nothing waiting, recording or on the device)
//!   the application thread that enqueues a command records and submits it
//!   itself ([`QueueEngine::enqueue`]): a lone command costs no thread
//!   wake-up before it reaches the GPU;
//! * otherwise the **submitter** takes every command enqueued since it last woke,
//!   records them into one command buffer and submits it, signalling the
//!   queue's timeline semaphore with a new value. A full memory barrier goes
//!   before each command that must follow earlier work (every command of an
//!   in-order queue; in an out-of-order queue, those with a wait list and
//!   those after a barrier). Vulkan barriers reach back across submissions,
//!   so this also orders against earlier command buffers;
//! * the **completer** waits (a short poll of the counter, then
//!   vkWaitSemaphores, blocking) for each
//!   submission's value in order, then runs the commands' completion
//!   actions (copying read-back data to the application, setting event
//!   status) and recycles the command buffer and timestamp queries.
//!
//! A command that must wait for something outside this queue (a user event,
//! another queue's event) makes the submitter wait for it before recording
//! it, which keeps the ordering guarantees without blocking the
//! application (also in an out-of-order queue: later commands wait too).
//!
//! Progress reported to the command ([`Progress`]): `submitted` from the
//! submitter right after vkQueueSubmit; `running` from the completer when
//! the submission before this one has completed (the device is then on
//! this one); completion through the command's `done`.
//!
//! Profiling: a queue created with `profiling` brackets each command's
//! recorded work with two timestamp queries (a pair from a per-queue pool,
//! recycled on completion and reset there on the host where the device has
//! hostQueryReset, else by a command before each use), written at
//! BOTTOM_OF_PIPE: the first once all earlier work is done, the second once
//! the command's own work is. `done` gets them mapped onto the host clock.
//!
//! Each command buffer has a command pool of its own ([`Cb`]): the
//! completer resets it once its submission has completed, so recording a
//! command never waits for a reset.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model: the
//! engine of `crate::core::queue`, which sees commands only as record and
//! completion functions.

use crate::core::exit;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use ash::vk;
use opencl_sys::cl_int;
use parking_lot::{Condvar, Mutex};

use super::clock::{calibration, host_now_ns};
use super::device::Device;
use super::fault_injection;
use super::map_vk_err;
use crate::core::error::CLResult;

/// What a command records into the command buffer.
pub type RecordFn = Box<dyn FnOnce(&Recorder) -> CLResult<()> + Send>;
/// Start and end of a command's device work on the host clock
/// ([`host_now_ns`]); `None` without profiling or without device work.
pub type DeviceTimes = Option<[u64; 2]>;
/// Runs once the command has finished on the device (or failed): gets its
/// device times or the error code. Runs on the completer thread. Given an
/// error, it returns what the command's device work uses (memory objects,
/// staging): a failure seen before the device is done (a lost device, a
/// submission past the kernel timeout) must not free memory the device
/// may still access, so the engine keeps it until then.
pub type DoneFn = Box<dyn FnOnce(Result<DeviceTimes, cl_int>) -> Leftover + Send>;
/// What a failed command's device work may still use (see [`DoneFn`]).
pub type Leftover = Option<Box<dyn Send>>;
/// Blocks until the command's external dependencies are satisfied; returns
/// an error code when one of them failed. Also used, without blocking, to
/// check dependencies this queue already processed.
pub type WaitFn = Box<dyn FnOnce() -> Result<(), cl_int> + Send>;

/// How a command reports its progress before `done`.
pub trait Progress: Send + Sync {
    /// The command was handed to the device at `host_ns` (or, without
    /// device work, reached its turn then).
    fn submitted(&self, host_ns: u64);
    /// The device is executing the command's submission.
    fn running(&self);
    /// The command will complete with an error (its `done` follows in
    /// queue order); dependants in this queue can fail early.
    fn doomed(&self);
}

/// For internal commands nobody watches.
pub struct Untracked;

impl Progress for Untracked {
    fn submitted(&self, _: u64) {}
    fn running(&self) {}
    fn doomed(&self) {}
}

pub struct Command {
    /// External dependencies (blocks the submitter).
    pub wait: Option<WaitFn>,
    /// Dependencies already processed by this queue (never blocks).
    pub check: Option<WaitFn>,
    pub record: Option<RecordFn>,
    /// Must follow everything recorded before it (a full barrier first).
    pub after_previous: bool,
    /// Everything recorded after it must follow everything before it.
    pub before_next: bool,
    pub progress: Arc<dyn Progress>,
    pub done: DoneFn,
    /// Binary semaphores the command waits for or signals
    /// (cl_khr_semaphore): carried by the vkQueueSubmit of the submission
    /// that starts with it (waits) or ends with it (signals).
    pub semaphores: Option<SemaphoreOps>,
}

/// Called after the vkQueueSubmit carrying a command's semaphores.
type SemaphoreCallback = Box<dyn FnOnce(Result<(), cl_int>) + Send>;

/// What a semaphore command asks of its submission.
#[derive(Default)]
pub struct SemaphoreOps {
    /// Waited for before any work of this and later submissions.
    pub wait: Vec<vk::Semaphore>,
    /// Signalled once this and every earlier submission's work is done.
    pub signal: Vec<vk::Semaphore>,
    /// Runs right after the vkQueueSubmit carrying them succeeded (or was
    /// skipped because the command failed, with its error).
    pub submitted: Option<SemaphoreCallback>,
}

impl Command {
    fn waits_semaphores(&self) -> bool {
        self.semaphores.as_ref().is_some_and(|o| !o.wait.is_empty())
    }
}

/// Handed to a command's `record` function.
pub struct Recorder<'a> {
    pub device: &'a Device,
    pub cb: vk::CommandBuffer,
    /// What the recorded work uses that nothing else keeps alive (memory
    /// made while recording, e.g. migration staging); dropped once the
    /// command has completed. Empty (no allocation) for ordinary commands.
    held: std::cell::RefCell<Vec<Box<dyn Send>>>,
}

impl<'a> Recorder<'a> {
    /// A recorder for `cb`, recorded outside the queue engine (a command
    /// buffer's replayable recording, `super::recording`).
    pub(crate) fn new(device: &'a Device, cb: vk::CommandBuffer) -> Recorder<'a> {
        Recorder {
            device,
            cb,
            held: Default::default(),
        }
    }

    /// What [`Recorder::hold`] was given.
    pub(crate) fn take_held(&self) -> Vec<Box<dyn Send>> {
        self.held.take()
    }

    /// Executes recorded secondary command buffers (`super::recording`).
    pub fn execute(&self, cbs: &[vk::CommandBuffer]) {
        if cbs.is_empty() {
            return;
        }
        // SAFETY: cb is recording (a primary buffer); the secondaries are
        // executable and kept alive by the command until completion.
        unsafe { self.device.raw.cmd_execute_commands(self.cb, cbs) };
    }

    /// Keeps `x` alive until the command being recorded has completed.
    pub fn hold(&self, x: Box<dyn Send>) {
        self.held.borrow_mut().push(x);
    }

    /// A full compute/transfer memory barrier: everything before is visible
    /// to everything after.
    pub fn barrier(&self) {
        let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        let mb = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE,
            )];
        // SAFETY: cb is in the recording state on this thread.
        unsafe {
            self.device.raw.cmd_pipeline_barrier(
                self.cb,
                stages,
                stages,
                vk::DependencyFlags::empty(),
                &mb,
                &[],
                &[],
            )
        };
    }

    /// Makes device writes visible to the host (before a read-back).
    pub fn host_barrier(&self) {
        let mb = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: as above.
        unsafe {
            self.device.raw.cmd_pipeline_barrier(
                self.cb,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &mb,
                &[],
                &[],
            )
        };
    }

    /// Resets a timestamp query pair before it is written again.
    fn reset_queries(&self, q: QueryPair) {
        // SAFETY: cb is recording; the pair is not in use by any pending
        // submission (pairs return to the free list only on completion).
        unsafe {
            self.device
                .raw
                .cmd_reset_query_pool(self.cb, q.pool, q.first, 2)
        };
    }

    /// Writes a timestamp once all earlier commands are done.
    fn timestamp(&self, pool: vk::QueryPool, query: u32) {
        // SAFETY: cb is recording; the query was reset earlier in it.
        unsafe {
            self.device.raw.cmd_write_timestamp(
                self.cb,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                pool,
                query,
            )
        };
    }

    /// Several regions between the same two buffers.
    pub fn copy_regions(&self, src: vk::Buffer, dst: vk::Buffer, regions: &[vk::BufferCopy]) {
        if regions.is_empty() {
            return;
        }
        // SAFETY: both buffers are kept alive by the command until completion.
        unsafe { self.device.raw.cmd_copy_buffer(self.cb, src, dst, regions) };
    }

    /// Moves a fresh image (UNDEFINED) to GENERAL, where it stays; later
    /// commands are ordered after it.
    pub fn to_general(&self, image: vk::Image, layers: u32) {
        let ib = [vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::empty())
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE,
            )
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::GENERAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(super::image::color_range(layers))];
        // SAFETY: cb is recording; the image is kept alive by the command.
        unsafe {
            self.device.raw.cmd_pipeline_barrier(
                self.cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &ib,
            )
        };
    }

    /// Buffer → image (GENERAL layout) copies.
    pub fn copy_buffer_to_image(
        &self,
        src: vk::Buffer,
        dst: vk::Image,
        regions: &[vk::BufferImageCopy],
    ) {
        if regions.is_empty() {
            return;
        }
        // SAFETY: both objects are kept alive by the command until completion.
        unsafe {
            self.device.raw.cmd_copy_buffer_to_image(
                self.cb,
                src,
                dst,
                vk::ImageLayout::GENERAL,
                regions,
            )
        };
    }

    /// Image (GENERAL layout) → buffer copies.
    pub fn copy_image_to_buffer(
        &self,
        src: vk::Image,
        dst: vk::Buffer,
        regions: &[vk::BufferImageCopy],
    ) {
        if regions.is_empty() {
            return;
        }
        // SAFETY: as above.
        unsafe {
            self.device.raw.cmd_copy_image_to_buffer(
                self.cb,
                src,
                vk::ImageLayout::GENERAL,
                dst,
                regions,
            )
        };
    }

    /// Image → image copies (both in GENERAL layout).
    pub fn copy_image(&self, src: vk::Image, dst: vk::Image, regions: &[vk::ImageCopy]) {
        if regions.is_empty() {
            return;
        }
        // SAFETY: as above.
        unsafe {
            self.device.raw.cmd_copy_image(
                self.cb,
                src,
                vk::ImageLayout::GENERAL,
                dst,
                vk::ImageLayout::GENERAL,
                regions,
            )
        };
    }

    /// Fills `size` bytes (a multiple of 4) at `offset` (a multiple of 4)
    /// of `dst` with the 32-bit word `data`.
    pub fn fill_buffer(&self, dst: vk::Buffer, offset: u64, size: u64, data: u32) {
        if size == 0 {
            return;
        }
        // SAFETY: the buffer is kept alive by the command until completion.
        unsafe {
            self.device
                .raw
                .cmd_fill_buffer(self.cb, dst, offset, size, data)
        };
    }

    pub fn copy_buffer(
        &self,
        src: vk::Buffer,
        src_off: u64,
        dst: vk::Buffer,
        dst_off: u64,
        size: u64,
    ) {
        if size == 0 {
            return;
        }
        let r = [vk::BufferCopy {
            src_offset: src_off,
            dst_offset: dst_off,
            size,
        }];
        // SAFETY: both buffers are kept alive by the command until completion.
        unsafe { self.device.raw.cmd_copy_buffer(self.cb, src, dst, &r) };
    }
}

struct Inbox {
    commands: VecDeque<Command>,
    shutdown: bool,
    /// A thread (the submitter, or an application thread submitting
    /// directly) is recording: nobody else may start.
    busy: bool,
    /// When the last command was enqueued ([`host_now_ns`]).
    last_enqueue_ns: u64,
}

/// A queue is idle for direct submission when nothing was enqueued for this long.
const IDLE_GAP_NS: u64 = 20_000;

/// `FERROCL_DIRECT_SUBMIT=0` turns direct submission off (measurements).
fn direct_submit_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("FERROCL_DIRECT_SUBMIT").map_or(true, |v| v != "0"))
}

/// What the thread that records carries from one batch to the next.
struct SubmitState {
    next_value: u64,
    /// A barrier command was processed: the next recorded command gets a
    /// full barrier even if it does not ask for one.
    barrier_owed: bool,
}

/// A command of a submission, waiting for its completion.
struct Entry {
    done: DoneFn,
    /// [`Recorder::hold`]'s objects, dropped after `done`.
    held: Vec<Box<dyn Send>>,
    status: Result<(), cl_int>,
    progress: Arc<dyn Progress>,
    queries: Option<QueryPair>,
    /// A full barrier was recorded before the command: the device starts it
    /// only once the submission's earlier commands are done.
    follows: bool,
}

struct InFlight {
    value: u64,
    cb: Option<Cb>,
    entries: Vec<Entry>,
}

/// A command buffer in a command pool of its own. Host access to a pool
/// must be externally synchronized, also while one of its buffers is
/// recorded; with one buffer per pool, whoever holds the buffer owns the
/// pool: the recording thread while it records, the completer once the
/// submission has completed, which resets the pool (vkResetCommandPool)
/// off the submit path. (Resetting buffers of the one pool the submitter
/// was recording into, from the completer, raced inside NVIDIA's driver
/// and hung the queue after a few thousand commands.)
#[derive(Clone, Copy)]
struct Cb {
    pool: vk::CommandPool,
    cb: vk::CommandBuffer,
}

/// The queue's command buffers.
#[derive(Default)]
struct CbPool {
    /// Reset, ready to record.
    ready: Vec<Cb>,
    /// Every pool made, destroyed with the queue.
    all: Vec<vk::CommandPool>,
}

struct Pending {
    list: VecDeque<InFlight>,
    shutdown: bool,
}

/// Two consecutive timestamp queries of one pool.
#[derive(Clone, Copy)]
struct QueryPair {
    pool: vk::QueryPool,
    first: u32,
}

/// Timestamp query pools of a profiling queue: grown by [`QUERY_POOL_SIZE`]
/// queries whenever every pair is in flight, pairs recycled on completion.
#[derive(Default)]
struct Queries {
    pools: Vec<vk::QueryPool>,
    free: Vec<QueryPair>,
}

const QUERY_POOL_SIZE: u32 = 256;

struct Shared {
    device: Arc<Device>,
    timeline: vk::Semaphore,
    pool: Mutex<CbPool>,
    /// A profiling queue: device timestamps are mapped onto the host clock
    /// through the device's current calibration (`clock::calibration`).
    profiling: bool,
    queries: Mutex<Queries>,
    /// Timestamp queries are reset on the host (vkResetQueryPool, where
    /// the device has hostQueryReset) when their pair is recycled, instead
    /// of by a command before each use.
    host_query_reset: bool,
    inbox: Mutex<Inbox>,
    inbox_cv: Condvar,
    /// Owned by whichever thread holds `Inbox::busy`.
    submit_state: Mutex<SubmitState>,
    /// Submissions handed to the completer and not yet completed.
    in_flight: std::sync::atomic::AtomicUsize,
    pending: Mutex<Pending>,
    pending_cv: Condvar,
    /// The completer left submissions the device may still execute
    /// (`Stranded`) when the queue shut down: their command pools, query
    /// pools and the timeline semaphore are never destroyed.
    leaked: AtomicBool,
}

/// One queue's engine; dropping it drains the queue and joins the threads.
pub struct QueueEngine {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    _live: super::live::Live,
}

impl QueueEngine {
    /// `profiling`: measure each command's device work (see the module doc).
    pub fn new(device: &Arc<Device>, profiling: bool) -> CLResult<QueueEngine> {
        if profiling {
            // Measured now, so that the first command does not wait for it.
            calibration(device)?;
        }
        let mut ti = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let si = vk::SemaphoreCreateInfo::default().push_next(&mut ti);
        // SAFETY: valid device.
        let timeline = unsafe { device.raw.create_semaphore(&si, None) }.map_err(map_vk_err)?;
        let shared = Arc::new(Shared {
            device: device.clone(),
            timeline,
            pool: Mutex::new(CbPool::default()),
            host_query_reset: device.phys.features.host_query_reset,
            profiling,
            queries: Mutex::new(Queries::default()),
            inbox: Mutex::new(Inbox {
                commands: VecDeque::new(),
                shutdown: false,
                busy: false,
                last_enqueue_ns: 0,
            }),
            inbox_cv: Condvar::new(),
            submit_state: Mutex::new(SubmitState {
                next_value: 0,
                barrier_owed: false,
            }),
            in_flight: Default::default(),
            pending: Mutex::new(Pending {
                list: VecDeque::new(),
                shutdown: false,
            }),
            pending_cv: Condvar::new(),
            leaked: AtomicBool::new(false),
        });
        let s1 = shared.clone();
        let s2 = shared.clone();
        let t1 = std::thread::Builder::new()
            .name("ferrocl-submit".into())
            .spawn(move || submitter(s1))
            .map_err(|_| opencl_sys::CL_OUT_OF_HOST_MEMORY)?;
        let t2 = std::thread::Builder::new()
            .name("ferrocl-complete".into())
            .spawn(move || completer(s2))
            .map_err(|_| opencl_sys::CL_OUT_OF_HOST_MEMORY)?;
        Ok(QueueEngine {
            shared,
            threads: vec![t1, t2],
            _live: super::live::Live::new(super::live::Kind::QueueEngine),
        })
    }

    /// Whether the queue's device is lost (or treated as lost after the
    /// kernel timeout): every command fails.
    pub fn device_lost(&self) -> bool {
        self.shared.device.is_lost()
    }

    /// Hands `cmds` to the submitter thread together: nothing enqueued by
    /// another thread lands between them (the parts of one streamed
    /// transfer).
    pub fn enqueue_all(&self, cmds: Vec<Command>, queued: impl FnOnce()) {
        let s = &self.shared;
        let mut inbox = s.inbox.lock();
        inbox.last_enqueue_ns = host_now_ns();
        inbox.commands.extend(cmds);
        queued();
        s.inbox_cv.notify_all();
    }

    /// Hands `cmd` to the engine. When the queue is idle (nothing waiting,
    /// nothing recording, nothing on the device) and `cmd` waits for
    /// nothing outside the queue, the calling thread records and submits it
    /// itself: a lone command reaches the GPU without waking the submitter
    /// thread (launch latency). Otherwise the submitter takes it, batched
    /// with whatever else arrives meanwhile.
    pub fn enqueue(&self, cmd: Command) {
        self.enqueue_then(cmd, || {})
    }

    /// [`QueueEngine::enqueue`], calling `queued` once `cmd` has its place
    /// in the engine's order, before any later command can take one (under
    /// the inbox lock): what `core::queue::Queue` needs to know which of
    /// its commands is last in that order (clFinish waits for it).
    pub fn enqueue_then(&self, cmd: Command, queued: impl FnOnce()) {
        let s = &self.shared;
        let mut inbox = s.inbox.lock();
        // Idle also means no enqueue in the last IDLE_GAP: a stream of
        // enqueues goes to the submitter, which batches it into few
        // vkQueueSubmit calls (a submit costs ~20 µs on some drivers).
        let now = host_now_ns();
        let quiet = now.saturating_sub(inbox.last_enqueue_ns) > IDLE_GAP_NS;
        inbox.last_enqueue_ns = now;
        let direct = direct_submit_enabled()
            && quiet
            && cmd.wait.is_none()
            && inbox.commands.is_empty()
            && !inbox.busy
            && !inbox.shutdown
            && s.in_flight.load(Ordering::Acquire) == 0;
        if !direct {
            inbox.commands.push_back(cmd);
            queued();
            s.inbox_cv.notify_all();
            return;
        }
        // Commands enqueued while this one is processed here wait in the
        // inbox (`busy`): they come after it.
        inbox.busy = true;
        queued();
        drop(inbox);
        process_batch(s, &mut s.submit_state.lock(), vec![cmd]);
        let mut inbox = s.inbox.lock();
        inbox.busy = false;
        if !inbox.commands.is_empty() || inbox.shutdown {
            s.inbox_cv.notify_all();
        }
    }
}

impl Drop for QueueEngine {
    fn drop(&mut self) {
        self.shared.inbox.lock().shutdown = true;
        self.shared.inbox_cv.notify_all();
        // The last reference to a queue can be dropped by one of its own
        // completion actions, on the completer thread: never join ourselves.
        // The threads then finish the remaining work and exit on their own;
        // Vulkan objects go with the last `Arc<Shared>`.
        let me = std::thread::current().id();
        for t in self.threads.drain(..) {
            if t.thread().id() != me {
                let _ = t.join();
            }
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if *self.leaked.get_mut() {
            return;
        }
        let d = &self.device.raw;
        let pool = self.pool.get_mut();
        let queries = self.queries.lock();
        // SAFETY: both threads have exited (they hold Arcs to us) and every
        // submission completed.
        unsafe {
            for p in pool.all.drain(..) {
                d.destroy_command_pool(p, None);
            }
            d.destroy_semaphore(self.timeline, None);
            for p in &queries.pools {
                d.destroy_query_pool(*p, None);
            }
        }
    }
}

/// A command buffer ready to record (reset by the completer, or new).
fn alloc_cb(s: &Shared) -> CLResult<Cb> {
    if let Some(cb) = s.pool.lock().ready.pop() {
        return Ok(cb);
    }
    let pi = vk::CommandPoolCreateInfo::default().queue_family_index(s.device.queue_family);
    // SAFETY: valid device.
    let pool = unsafe { s.device.raw.create_command_pool(&pi, None) }.map_err(map_vk_err)?;
    s.pool.lock().all.push(pool);
    let ai = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the new pool is used by this thread only.
    let cb = unsafe { s.device.raw.allocate_command_buffers(&ai) }.map_err(map_vk_err)?[0];
    Ok(Cb { pool, cb })
}

/// Completer thread, once `cb`'s submission has completed: resets its
/// pool and makes it ready to record again.
fn recycle_cb(s: &Shared, cb: Cb) {
    // SAFETY: the submission using the buffer has completed and nobody
    // else holds the buffer, hence its pool.
    let reset = unsafe {
        s.device
            .raw
            .reset_command_pool(cb.pool, vk::CommandPoolResetFlags::empty())
    };
    // A pool that failed to reset is not used again (destroyed with the
    // queue).
    if reset.is_ok() {
        s.pool.lock().ready.push(cb);
    }
}

fn alloc_queries(s: &Shared) -> CLResult<QueryPair> {
    let mut q = s.queries.lock();
    if let Some(p) = q.free.pop() {
        return Ok(p);
    }
    let qi = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::TIMESTAMP)
        .query_count(QUERY_POOL_SIZE);
    // SAFETY: valid device.
    let pool = unsafe { s.device.raw.create_query_pool(&qi, None) }.map_err(map_vk_err)?;
    if s.host_query_reset {
        // SAFETY: a new pool, used by nothing.
        unsafe { s.device.raw.reset_query_pool(pool, 0, QUERY_POOL_SIZE) };
    }
    q.pools.push(pool);
    q.free.extend(
        (0..QUERY_POOL_SIZE)
            .step_by(2)
            .rev()
            .map(|first| QueryPair { pool, first }),
    );
    Ok(q.free.pop().expect("a fresh pool has free pairs"))
}

/// Whether a query pool was read ([`read_queries`]) / a submission made
/// ([`submit_cb`]) in this process: the exit handler is registered again
/// after the first of each.
static FIRST_QUERY_READ: AtomicBool = AtomicBool::new(false);
static FIRST_SUBMISSION: AtomicBool = AtomicBool::new(false);

/// Reads a completed pair.
fn read_queries(s: &Shared, pair: QueryPair) -> DeviceTimes {
    // The pair goes back to the free list (`free_queries`) after the
    // command's completion actions: its reset is no part of the latency.
    let mut ticks = [0u64; 2];
    // SAFETY: both queries were reset and written by a submission that
    // completed (its timeline value was reached), so their results are
    // available. No WAIT_BIT: a query that was never written (a bug, or a
    // driver's) must give no times rather than block the completer for
    // good (NVIDIA's driver waits forever there).
    let r = unsafe {
        s.device.raw.get_query_pool_results(
            pair.pool,
            pair.first,
            &mut ticks,
            vk::QueryResultFlags::TYPE_64,
        )
    };
    // The driver may set up more of itself, with its own exit handlers,
    // at the first submission and the first read of a query pool: ferrocl's
    // handler must come after them (`crate::core::exit`).
    exit::watch_once(&FIRST_QUERY_READ);
    if !s.profiling {
        return None;
    }
    let clock = calibration(&s.device).ok()?;
    r.ok()
        .map(|()| [clock.to_host(ticks[0]), clock.to_host(ticks[1])])
}

/// Returns a pair whose submission has completed (or failed) to the free
/// list, reset on the host where the device can.
fn free_queries(s: &Shared, pair: QueryPair) {
    if s.host_query_reset {
        // SAFETY: no pending command uses the pair (its submission is
        // over); vkResetQueryPool needs hostQueryReset, enabled where the
        // device has it.
        unsafe { s.device.raw.reset_query_pool(pair.pool, pair.first, 2) };
    }
    s.queries.lock().free.push(pair);
}

fn submitter(s: Arc<Shared>) {
    loop {
        let batch: Vec<Command> = {
            let mut inbox = s.inbox.lock();
            loop {
                if !inbox.busy && (!inbox.commands.is_empty() || inbox.shutdown) {
                    break;
                }
                s.inbox_cv.wait(&mut inbox);
            }
            if inbox.commands.is_empty() {
                // Shut down, nobody recording, nothing left.
                break;
            }
            inbox.busy = true;
            inbox.commands.drain(..).collect()
        };
        // Not after the process began to exit: the driver is being torn
        // down (`crate::core::exit`).
        let Some(busy) = exit::background_work() else {
            exit::park_forever()
        };
        process_batch(&s, &mut s.submit_state.lock(), batch);
        drop(busy);
        let mut inbox = s.inbox.lock();
        inbox.busy = false;
        s.inbox_cv.notify_all();
    }
    let mut p = s.pending.lock();
    p.shutdown = true;
    s.pending_cv.notify_one();
}

/// Records and submits `batch` in order; called with `Inbox::busy` held
/// (by the submitter thread or a directly submitting application thread).
fn process_batch(s: &Shared, st: &mut SubmitState, batch: Vec<Command>) {
    let mut cmds = batch.into_iter().peekable();
    while cmds.peek().is_some() {
        // One submission: commands up to (not including) the next one
        // that must wait for something outside this queue.
        let mut entries: Vec<Entry> = Vec::new();
        let mut cb = None;
        let mut recorded = false;
        // Semaphore operations of the submission: a command waiting for a
        // semaphore starts one, a command signalling one ends it.
        let mut sem_wait: Vec<vk::Semaphore> = Vec::new();
        let mut sem_signal: Vec<vk::Semaphore> = Vec::new();
        let mut sem_submitted: Vec<(SemaphoreCallback, usize)> = Vec::new();
        while let Some(mut cmd) =
            cmds.next_if(|c| (c.wait.is_none() && !c.waits_semaphores()) || entries.is_empty())
        {
            let sems = cmd.semaphores.take();
            let mut status = Ok(());
            if let Some(wait) = cmd.wait {
                status = wait();
            }
            if let (Ok(()), Some(check)) = (status, cmd.check) {
                status = check();
            }
            let mut queries = None;
            let mut held = Vec::new();
            let mut follows = false;
            if let (Ok(()), Some(record)) = (status, cmd.record) {
                if s.device.is_lost() {
                    status = Err(opencl_sys::CL_OUT_OF_RESOURCES);
                } else {
                    if cb.is_none() {
                        match begin_cb(s) {
                            Ok(c) => cb = Some(c),
                            Err(e) => status = Err(e),
                        }
                    }
                    if s.profiling && status.is_ok() {
                        match alloc_queries(s) {
                            Ok(q) => queries = Some(q),
                            Err(e) => status = Err(e),
                        }
                    }
                    if let (Some(c), Ok(())) = (cb, status) {
                        let r = Recorder {
                            device: &s.device,
                            cb: c.cb,
                            held: Default::default(),
                        };
                        if cmd.after_previous || st.barrier_owed {
                            r.barrier();
                            st.barrier_owed = false;
                            follows = true;
                        }
                        if let Some(q) = queries {
                            if !s.host_query_reset {
                                r.reset_queries(q);
                            }
                            r.timestamp(q.pool, q.first);
                        }
                        status = record(&r);
                        if let Some(q) = queries {
                            r.timestamp(q.pool, q.first + 1);
                        }
                        held = r.held.take();
                        recorded = true;
                    }
                }
            }
            st.barrier_owed |= cmd.before_next;
            if status.is_err() {
                cmd.progress.doomed();
            }
            let mut ends_submission = false;
            if let Some(ops) = sems {
                if let Some(f) = ops.submitted {
                    sem_submitted.push((f, entries.len()));
                }
                if status.is_ok() {
                    ends_submission = !ops.signal.is_empty();
                    sem_wait.extend(ops.wait);
                    sem_signal.extend(ops.signal);
                }
            }
            entries.push(Entry {
                done: cmd.done,
                held,
                status,
                progress: cmd.progress,
                queries,
                follows,
            });
            if ends_submission {
                break;
            }
        }
        // A batch with device work signals a new timeline value; one
        // without (markers, failed commands) completes once everything
        // submitted before it has, i.e. at the last value already used.
        // The host never signals: a host signal of a value above one
        // still pending on the device would break the timeline's
        // strictly increasing order.
        let submitted_at = host_now_ns();
        let has_semaphores = !sem_wait.is_empty() || !sem_signal.is_empty();
        let value = match (cb, recorded) {
            (c, r) if (c.is_some() && r) || has_semaphores => {
                let recorded_cb = if r { c.map(|c| c.cb) } else { None };
                if let (Some(c), false) = (c, r) {
                    // SAFETY: cb is recording and unused.
                    let _ = unsafe { s.device.raw.end_command_buffer(c.cb) };
                }
                st.next_value += 1;
                let sems = (&sem_wait[..], &sem_signal[..]);
                if let Err(e) = submit_cb(s, recorded_cb, sems, st.next_value) {
                    for e2 in entries.iter_mut() {
                        e2.status = e2.status.and(Err(e));
                        e2.progress.doomed();
                    }
                    st.next_value -= 1;
                }
                st.next_value
            }
            (c, _) => {
                if let Some(c) = c {
                    // SAFETY: cb is recording and unused.
                    let _ = unsafe { s.device.raw.end_command_buffer(c.cb) };
                }
                st.next_value
            }
        };
        for (f, i) in sem_submitted {
            f(entries[i].status);
        }
        for e in entries.iter().filter(|e| e.status.is_ok()) {
            e.progress.submitted(submitted_at);
        }
        s.in_flight.fetch_add(1, Ordering::AcqRel);
        let mut p = s.pending.lock();
        p.list.push_back(InFlight { value, cb, entries });
        s.pending_cv.notify_one();
    }
}

fn begin_cb(s: &Shared) -> CLResult<Cb> {
    let cb = alloc_cb(s)?;
    let bi =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: cb is in the initial state and owned by this thread.
    if let Err(e) = unsafe { s.device.raw.begin_command_buffer(cb.cb, &bi) } {
        recycle_cb(s, cb);
        return Err(map_vk_err(e));
    }
    Ok(cb)
}

/// Ends and submits `cb` (a submission without command buffers where
/// `None`: one that only waits for or signals semaphores), signalling the
/// timeline with `value`; `semaphores`: the binary semaphores it waits for
/// (before any of its work, at every stage) and signals.
fn submit_cb(
    s: &Shared,
    cb: Option<vk::CommandBuffer>,
    semaphores: (&[vk::Semaphore], &[vk::Semaphore]),
    value: u64,
) -> CLResult<()> {
    if let Some(cb) = cb {
        let r = Recorder {
            device: &s.device,
            cb,
            held: Default::default(),
        };
        r.host_barrier();
        // SAFETY: cb is recording.
        unsafe { s.device.raw.end_command_buffer(cb) }.map_err(|e| s.device.vk_err(e))?;
    }
    let (wait, signal) = semaphores;
    // The timeline, then the binary semaphores, which ignore their entry
    // of the signal values. Without semaphores (every launch) nothing is
    // allocated: empty vectors do not allocate.
    let timeline = [s.timeline];
    let timeline_value = [value];
    let (mut sems, mut values) = (Vec::new(), Vec::new());
    if !signal.is_empty() {
        sems = timeline.iter().chain(signal).copied().collect();
        values = std::iter::once(value)
            .chain(signal.iter().map(|_| 0))
            .collect();
    }
    let (sems, values) = if signal.is_empty() {
        (&timeline[..], &timeline_value[..])
    } else {
        (&sems[..], &values[..])
    };
    let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; wait.len()];
    let wait_values = vec![0u64; wait.len()];
    let mut ts = vk::TimelineSemaphoreSubmitInfo::default().signal_semaphore_values(values);
    if !wait.is_empty() {
        ts = ts.wait_semaphore_values(&wait_values);
    }
    let si = [vk::SubmitInfo::default()
        .command_buffers(cb.as_slice())
        .wait_semaphores(wait)
        .wait_dst_stage_mask(&stages)
        .signal_semaphores(sems)
        .push_next(&mut ts)];
    if fault_injection::submit_fails() {
        return Err(s.device.vk_err(vk::Result::ERROR_DEVICE_LOST));
    }
    let q = s.device.queue.lock();
    // SAFETY: the queue is externally synchronized by its mutex.
    let r = unsafe { s.device.raw.queue_submit(*q, &si, vk::Fence::null()) };
    drop(q);
    exit::watch_once(&FIRST_SUBMISSION);
    r.map_err(|e| s.device.vk_err(e))
}

/// How long the completer polls the timeline before it blocks in the
/// driver: a short command's completion is seen at once instead of after
/// the driver's wake-up (`FERROCL_SPIN_US`, default 50 µs; 0 disables).
/// Runs on the completer thread only, never on an application thread.
fn spin_limit() -> std::time::Duration {
    static US: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let us = *US.get_or_init(|| {
        std::env::var("FERROCL_SPIN_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(50)
    });
    std::time::Duration::from_micros(us)
}

/// Polls the timeline until it reaches `value` or [`spin_limit`] passes.
fn spin_until(s: &Shared, value: u64) {
    let limit = spin_limit();
    if limit.is_zero() {
        return;
    }
    let t0 = std::time::Instant::now();
    loop {
        // SAFETY: semaphore alive.
        match unsafe { s.device.raw.get_semaphore_counter_value(s.timeline) } {
            Ok(v) if v < value && t0.elapsed() < limit => std::hint::spin_loop(),
            _ => return,
        }
    }
}

/// Submissions whose commands were already failed (the device was lost or
/// a submission outran the kernel timeout) but which the device may still
/// execute: what they use is kept until their timeline value is reached,
/// and leaked if the queue shuts down first.
#[derive(Default)]
struct Stranded(VecDeque<StrandedSubmission>);

/// A submission's timeline value and what its commands use.
struct StrandedSubmission {
    value: u64,
    cb: Option<Cb>,
    held: Vec<Box<dyn Send>>,
    queries: Vec<QueryPair>,
}

impl Stranded {
    /// Frees what the submissions the device has finished used.
    fn reap(&mut self, s: &Shared) {
        // SAFETY: semaphore alive. A lost device executes nothing more.
        let reached =
            unsafe { s.device.raw.get_semaphore_counter_value(s.timeline) }.unwrap_or(u64::MAX);
        while self.0.front().is_some_and(|x| x.value <= reached) {
            let x = self.0.pop_front().expect("front exists");
            drop(x.held);
            for q in x.queries {
                free_queries(s, q);
            }
            if let Some(cb) = x.cb {
                recycle_cb(s, cb);
            }
        }
    }
}

/// The longest a submission may run before the device is treated as lost
/// and its commands fail with CL_OUT_OF_RESOURCES
/// (`FERROCL_KERNEL_TIMEOUT_MS`, default 600000 = 10 minutes; 0: no
/// limit). Counted from when the submission before it completed, i.e.
/// from when the device is on it.
fn kernel_timeout() -> Option<std::time::Duration> {
    static MS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let ms = *MS.get_or_init(|| {
        std::env::var("FERROCL_KERNEL_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(600_000)
    });
    (ms > 0).then(|| std::time::Duration::from_millis(ms))
}

/// The longest one driver wait of [`wait_for_value`]: between two, it
/// looks for a lost device and for the process's exit.
const WAIT_SLICE_NS: u64 = 250_000_000;

/// How a [`wait_for_value`] ended.
enum Waited {
    /// The timeline reached the value: the submission completed.
    Reached,
    /// The error to fail the submission's commands with (a lost device,
    /// a wait that outran [`kernel_timeout`]).
    Failed(cl_int),
    /// The process began to exit meanwhile (`crate::core::exit`): the
    /// caller must stop calling Vulkan.
    Exiting,
}

/// Waits until the timeline reaches `value`. A wait that outruns
/// [`kernel_timeout`] marks the device lost.
fn wait_for_value(s: &Shared, value: u64) -> Waited {
    if s.device.is_lost() {
        // SAFETY: semaphore alive.
        let reached = unsafe { s.device.raw.get_semaphore_counter_value(s.timeline) };
        return match reached {
            Ok(v) if v >= value => Waited::Reached,
            _ => Waited::Failed(opencl_sys::CL_OUT_OF_RESOURCES),
        };
    }
    let sems = [s.timeline];
    let values = [value];
    let wi = vk::SemaphoreWaitInfo::default()
        .semaphores(&sems)
        .values(&values);
    let deadline = kernel_timeout().map(|t| std::time::Instant::now() + t);
    spin_until(s, value);
    loop {
        let slice_ns = match deadline {
            Some(d) => {
                let left = d.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    s.device
                        .mark_lost("a submission ran longer than FERROCL_KERNEL_TIMEOUT_MS");
                    return Waited::Failed(opencl_sys::CL_OUT_OF_RESOURCES);
                }
                (left.as_nanos() as u64).min(WAIT_SLICE_NS)
            }
            None => WAIT_SLICE_NS,
        };
        // SAFETY: semaphore alive; blocking wait in the driver.
        match unsafe { s.device.raw.wait_semaphores(&wi, slice_ns) } {
            Ok(()) => return Waited::Reached,
            Err(vk::Result::TIMEOUT) => {
                if exit::exiting() {
                    return Waited::Exiting;
                }
                // Another queue found the device lost meanwhile.
                if s.device.is_lost() {
                    return wait_for_value(s, value);
                }
            }
            Err(e) => return Waited::Failed(s.device.vk_err(e)),
        }
    }
}

fn completer(s: Arc<Shared>) {
    let mut stranded = Stranded::default();
    loop {
        let item = {
            let mut p = s.pending.lock();
            while p.list.is_empty() && !p.shutdown {
                if stranded.0.is_empty() {
                    s.pending_cv.wait(&mut p);
                } else {
                    s.pending_cv
                        .wait_for(&mut p, std::time::Duration::from_millis(100));
                    let Some(_busy) = exit::background_work() else {
                        exit::park_forever()
                    };
                    stranded.reap(&s);
                }
            }
            match p.list.pop_front() {
                Some(i) => i,
                None => break,
            }
        };
        let Some(busy) = exit::background_work() else {
            exit::park_forever()
        };
        // Everything submitted before this item has completed: the device
        // is on its first commands now (or already done with them), up to
        // the first one recorded after a barrier; that one and those after
        // it wait for the commands before them, which the host does not see
        // end one by one: each becomes CL_RUNNING just before it completes
        // (a command is never seen running while one it follows still runs).
        let started = item
            .entries
            .iter()
            .skip(1)
            .position(|e| e.follows)
            .map_or(item.entries.len(), |p| p + 1);
        for e in item.entries[..started].iter().filter(|e| e.status.is_ok()) {
            e.progress.running();
        }
        let failed = match wait_for_value(&s, item.value) {
            Waited::Reached => None,
            Waited::Failed(e) => Some(e),
            Waited::Exiting => {
                // The process is exiting: nothing completes any more.
                drop(busy);
                exit::park_forever()
            }
        };
        // The device is done with the submission: from here on the queue
        // counts as idle for direct submission (`QueueEngine::enqueue`),
        // before the completion actions below wake an application thread
        // that may enqueue again at once.
        s.in_flight.fetch_sub(1, Ordering::AcqRel);
        // A failed wait: the device may still be executing the
        // submission, so what it uses stays until it is over.
        let strand = failed.is_some();
        let mut kept_held = Vec::new();
        let mut kept_queries = Vec::new();
        for e in item.entries {
            // Only a command that was submitted has timestamps: a failed
            // submission's queries were never written.
            let times = match (e.queries, failed, e.status) {
                (Some(q), None, Ok(())) => read_queries(&s, q),
                _ => None,
            };
            let st = match failed {
                Some(err) => e.status.and(Err(err)),
                None => e.status,
            };
            if st.is_ok() {
                e.progress.running();
            }
            let leftover = (e.done)(st.map(|()| times));
            if strand {
                kept_held.extend(leftover);
                kept_held.extend(e.held);
                kept_queries.extend(e.queries);
            } else {
                drop(e.held);
                if let Some(q) = e.queries {
                    free_queries(&s, q);
                }
            }
        }
        if strand {
            stranded.0.push_back(StrandedSubmission {
                value: item.value,
                cb: item.cb,
                held: kept_held,
                queries: kept_queries,
            });
            stranded.reap(&s);
        } else if let Some(cb) = item.cb {
            // Last, once the application has its completions: resetting
            // the pool is no part of the latency.
            recycle_cb(&s, cb);
        }
        drop(busy);
    }
    let Some(_busy) = exit::background_work() else {
        std::mem::forget(stranded);
        return;
    };
    stranded.reap(&s);
    if !stranded.0.is_empty() {
        // The device may still execute them: their memory, command and
        // query pools and the timeline semaphore live on.
        s.leaked.store(true, Ordering::Release);
        std::mem::forget(stranded);
    }
}
