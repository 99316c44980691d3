//! The execution engine behind one cl_command_queue.
//!
//! Two threads per queue, no busy waiting and no vkQueueWaitIdle:
//! * the **submitter** takes every command enqueued since it last woke,
//!   records them into one command buffer (a full memory barrier before
//!   each, which gives in-order semantics also across submissions) and
//!   submits it, signalling the queue's timeline semaphore with a new value;
//! * the **completer** waits (vkWaitSemaphores, blocking) for each
//!   submission's value in order, then runs the commands' completion
//!   actions (copying read-back data to the application, setting event
//!   status) and recycles the command buffer.
//!
//! A command that must wait for something outside this queue (a user event,
//! another queue's event) makes the submitter wait for it before recording
//! it, which keeps the in-order guarantee without blocking the application.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use ash::vk;
use opencl_sys::cl_int;
use parking_lot::{Condvar, Mutex};

use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// What a command records into the command buffer.
pub type RecordFn = Box<dyn FnOnce(&Recorder) -> CLResult<()> + Send>;
/// Runs once the command has finished on the device (or failed): gets
/// `Ok(())` or the error code. Runs on the completer thread.
pub type DoneFn = Box<dyn FnOnce(Result<(), cl_int>) + Send>;
/// Blocks until the command's external dependencies are satisfied; returns
/// an error code when one of them failed.
pub type WaitFn = Box<dyn FnOnce() -> Result<(), cl_int> + Send>;

pub struct Command {
    pub wait: Option<WaitFn>,
    pub record: Option<RecordFn>,
    pub done: DoneFn,
}

/// Handed to a command's `record` function.
pub struct Recorder<'a> {
    pub device: &'a Device,
    pub cb: vk::CommandBuffer,
}

impl Recorder<'_> {
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

    /// Several regions between the same two buffers.
    pub fn copy_regions(&self, src: vk::Buffer, dst: vk::Buffer, regions: &[vk::BufferCopy]) {
        if regions.is_empty() {
            return;
        }
        // SAFETY: both buffers are kept alive by the command until completion.
        unsafe { self.device.raw.cmd_copy_buffer(self.cb, src, dst, regions) };
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
}

struct InFlight {
    value: u64,
    cb: Option<vk::CommandBuffer>,
    done: Vec<(DoneFn, Result<(), cl_int>)>,
}

struct Pending {
    list: VecDeque<InFlight>,
    shutdown: bool,
}

struct Shared {
    device: Arc<Device>,
    timeline: vk::Semaphore,
    pool: Mutex<(vk::CommandPool, Vec<vk::CommandBuffer>)>,
    inbox: Mutex<Inbox>,
    inbox_cv: Condvar,
    pending: Mutex<Pending>,
    pending_cv: Condvar,
    lost: AtomicBool,
}

/// One queue's engine; dropping it drains the queue and joins the threads.
pub struct QueueEngine {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl QueueEngine {
    pub fn new(device: &Arc<Device>) -> CLResult<QueueEngine> {
        let mut ti = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let si = vk::SemaphoreCreateInfo::default().push_next(&mut ti);
        // SAFETY: valid device.
        let timeline = unsafe { device.raw.create_semaphore(&si, None) }.map_err(map_vk_err)?;
        let pi = vk::CommandPoolCreateInfo::default()
            .queue_family_index(device.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device.
        let pool = unsafe { device.raw.create_command_pool(&pi, None) }.map_err(map_vk_err)?;
        let shared = Arc::new(Shared {
            device: device.clone(),
            timeline,
            pool: Mutex::new((pool, Vec::new())),
            inbox: Mutex::new(Inbox {
                commands: VecDeque::new(),
                shutdown: false,
            }),
            inbox_cv: Condvar::new(),
            pending: Mutex::new(Pending {
                list: VecDeque::new(),
                shutdown: false,
            }),
            pending_cv: Condvar::new(),
            lost: AtomicBool::new(false),
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
        })
    }

    pub fn enqueue(&self, cmd: Command) {
        let mut inbox = self.shared.inbox.lock();
        inbox.commands.push_back(cmd);
        self.shared.inbox_cv.notify_one();
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
        let d = &self.device.raw;
        let pool = self.pool.lock();
        // SAFETY: both threads have exited (they hold Arcs to us) and every
        // submission completed.
        unsafe {
            d.destroy_command_pool(pool.0, None);
            d.destroy_semaphore(self.timeline, None);
        }
    }
}

fn alloc_cb(s: &Shared) -> CLResult<vk::CommandBuffer> {
    let mut pool = s.pool.lock();
    if let Some(cb) = pool.1.pop() {
        return Ok(cb);
    }
    let ai = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool.0)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the pool is externally synchronized by the mutex we hold.
    Ok(unsafe { s.device.raw.allocate_command_buffers(&ai) }.map_err(map_vk_err)?[0])
}

fn recycle_cb(s: &Shared, cb: vk::CommandBuffer) {
    let mut pool = s.pool.lock();
    // SAFETY: the submission using cb completed; pool locked.
    if unsafe {
        s.device
            .raw
            .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
    }
    .is_ok()
    {
        pool.1.push(cb);
    }
}

fn submitter(s: Arc<Shared>) {
    let mut next_value = 0u64;
    loop {
        let batch: Vec<Command> = {
            let mut inbox = s.inbox.lock();
            while inbox.commands.is_empty() && !inbox.shutdown {
                s.inbox_cv.wait(&mut inbox);
            }
            if inbox.commands.is_empty() && inbox.shutdown {
                break;
            }
            inbox.commands.drain(..).collect()
        };
        let mut cmds = batch.into_iter().peekable();
        while cmds.peek().is_some() {
            // One submission: commands up to (not including) the next one
            // that must wait for something outside this queue.
            let mut done = Vec::new();
            let mut cb = None;
            let mut recorded = false;
            while let Some(cmd) = cmds.next_if(|c| c.wait.is_none() || done.is_empty()) {
                let mut status = Ok(());
                if let Some(wait) = cmd.wait {
                    // Flush what we have first so earlier commands are not held up.
                    status = wait();
                }
                if let (Ok(()), Some(record)) = (status, cmd.record) {
                    if s.lost.load(Ordering::Relaxed) {
                        status = Err(opencl_sys::CL_OUT_OF_RESOURCES);
                    } else {
                        if cb.is_none() {
                            match begin_cb(&s) {
                                Ok(c) => cb = Some(c),
                                Err(e) => status = Err(e),
                            }
                        }
                        if let Some(c) = cb {
                            let r = Recorder {
                                device: &s.device,
                                cb: c,
                            };
                            r.barrier();
                            status = record(&r);
                            recorded = true;
                        }
                    }
                }
                done.push((cmd.done, status));
            }
            // A batch with device work signals a new timeline value; one
            // without (markers, failed commands) completes once everything
            // submitted before it has, i.e. at the last value already used.
            // The host never signals: a host signal of a value above one
            // still pending on the device would break the timeline's
            // strictly increasing order.
            let value = match (cb, recorded) {
                (Some(c), true) => {
                    next_value += 1;
                    if let Err(e) = submit_cb(&s, c, next_value) {
                        s.lost.store(true, Ordering::Relaxed);
                        for d in done.iter_mut() {
                            d.1 = d.1.and(Err(e));
                        }
                        next_value -= 1;
                    }
                    next_value
                }
                (c, _) => {
                    if let Some(c) = c {
                        // SAFETY: cb is recording and unused.
                        let _ = unsafe { s.device.raw.end_command_buffer(c) };
                    }
                    next_value
                }
            };
            let mut p = s.pending.lock();
            p.list.push_back(InFlight { value, cb, done });
            s.pending_cv.notify_one();
        }
    }
    let mut p = s.pending.lock();
    p.shutdown = true;
    s.pending_cv.notify_one();
}

fn begin_cb(s: &Shared) -> CLResult<vk::CommandBuffer> {
    let cb = alloc_cb(s)?;
    let bi =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: cb is in the initial state and owned by this thread.
    unsafe { s.device.raw.begin_command_buffer(cb, &bi) }.map_err(map_vk_err)?;
    Ok(cb)
}

fn submit_cb(s: &Shared, cb: vk::CommandBuffer, value: u64) -> CLResult<()> {
    let r = Recorder {
        device: &s.device,
        cb,
    };
    r.host_barrier();
    // SAFETY: cb is recording.
    unsafe { s.device.raw.end_command_buffer(cb) }.map_err(map_vk_err)?;
    let values = [value];
    let sems = [s.timeline];
    let cbs = [cb];
    let mut ts = vk::TimelineSemaphoreSubmitInfo::default().signal_semaphore_values(&values);
    let si = [vk::SubmitInfo::default()
        .command_buffers(&cbs)
        .signal_semaphores(&sems)
        .push_next(&mut ts)];
    let q = s.device.queue.lock();
    // SAFETY: the queue is externally synchronized by its mutex.
    unsafe { s.device.raw.queue_submit(*q, &si, vk::Fence::null()) }.map_err(map_vk_err)
}

fn completer(s: Arc<Shared>) {
    loop {
        let item = {
            let mut p = s.pending.lock();
            while p.list.is_empty() && !p.shutdown {
                s.pending_cv.wait(&mut p);
            }
            match p.list.pop_front() {
                Some(i) => i,
                None => break,
            }
        };
        let sems = [s.timeline];
        let values = [item.value];
        let wi = vk::SemaphoreWaitInfo::default()
            .semaphores(&sems)
            .values(&values);
        let mut failed = None;
        loop {
            // SAFETY: semaphore alive; blocking wait in the driver.
            match unsafe { s.device.raw.wait_semaphores(&wi, 1_000_000_000) } {
                Ok(()) => break,
                Err(vk::Result::TIMEOUT) => continue,
                Err(e) => {
                    s.lost.store(true, Ordering::Relaxed);
                    failed = Some(map_vk_err(e));
                    break;
                }
            }
        }
        if let Some(cb) = item.cb {
            recycle_cb(&s, cb);
        }
        for (done, status) in item.done {
            let st = match failed {
                Some(e) => status.and(Err(e)),
                None => status,
            };
            done(st);
        }
    }
}
