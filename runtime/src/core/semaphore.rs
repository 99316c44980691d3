//! cl_semaphore_khr (cl_khr_semaphore, cl_khr_external_semaphore): a
//! binary semaphore of one device, backed by a binary VkSemaphore
//! (`crate::vk::external_semaphore`).
//!
//! **Queue integration.** clEnqueueWaitSemaphoresKHR and
//! clEnqueueSignalSemaphoresKHR become commands of the queue engine whose
//! semaphores ride on its vkQueueSubmit calls: a wait starts a submission
//! (its semaphores in `pWaitSemaphores`, at every stage, so nothing
//! enqueued after it starts before the signal), a signal ends one (its
//! semaphores in `pSignalSemaphores`: signalled once everything enqueued
//! before it is done). Both follow the queue's ordering like any command
//! (a barrier before them in an in-order queue) and complete their event
//! when their submission has executed.
//!
//! **Wait before signal.** Vulkan forbids submitting a wait on a binary
//! semaphore before the signal it consumes has been submitted; OpenCL
//! lets a wait be enqueued first (the signal may come from another queue
//! later). For a semaphore only ferrocl signals (neither imported nor
//! exportable) the k-th wait enqueued holds its queue's submitter until
//! the k-th signal has been submitted. A semaphore shared with another API
//! is signalled behind ferrocl's back: there the application orders a
//! wait after the other API's signal, as Vulkan requires of it too.
//!
//! **Payload.** CL_SEMAPHORE_PAYLOAD_KHR of a binary semaphore is 1 while a
//! signal has completed that no completed wait has consumed, else 0 (what
//! ferrocl's own commands did; an external signaller is not seen).
//!
//! Layer: events and queues (uses `super::queue`), beside memory objects.

use std::sync::Arc;

use opencl_sys::*;
use parking_lot::{Condvar, Mutex};

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::event::Event;
use super::object::{tag, Base, ClObject};
use super::queue::Queue;
use crate::vk::external_semaphore::{Semaphore as VkSemaphore, SemaphoreHandle};
use crate::vk::queue::{SemaphoreOps, WaitFn};

#[repr(C)]
pub struct Semaphore {
    base: Base,
    pub context: Arc<Context>,
    /// The one device the semaphore belongs to.
    pub device: Arc<Device>,
    /// The device list given by CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR (empty
    /// when not given).
    pub device_list: Vec<Arc<Device>>,
    /// The property list as given, with its terminating 0.
    pub properties: Vec<cl_semaphore_properties_khr>,
    /// CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR.
    pub export_types: Vec<SemaphoreHandle>,
    /// The handle type imported at creation, if any.
    pub imported: Option<SemaphoreHandle>,
    /// The Vulkan semaphore; commands hold it until their submission is done.
    pub raw: Arc<VkSemaphore>,
    state: Mutex<Counts>,
    signalled: Condvar,
}

/// Semaphore operations of ferrocl's own commands.
#[derive(Default)]
struct Counts {
    waits_enqueued: u64,
    signals_enqueued: u64,
    signals_submitted: u64,
    signals_done: u64,
    waits_done: u64,
    /// Numbers (1-based) of the signals that failed (their wait list did):
    /// the waits they would have released fail too.
    failed_signals: Vec<u64>,
}

impl ClObject for Semaphore {
    const TAG: u32 = tag(b"SEMA");
    const INVALID: cl_int = CL_INVALID_SEMAPHORE_KHR;
    fn base(&self) -> &Base {
        &self.base
    }
}

/// The semaphore signals of one queue: enqueued, and submitted to Vulkan.
/// clFlush waits until they are equal ([`PendingSignals::wait_submitted`]):
/// another API may then submit a wait for them, which Vulkan allows for a
/// binary semaphore only once its signal has been submitted.
#[derive(Default)]
pub struct PendingSignals {
    counts: Mutex<(u64, u64)>,
    cv: Condvar,
}

impl PendingSignals {
    fn enqueued(&self) {
        self.counts.lock().0 += 1;
    }

    fn submitted(&self) {
        self.counts.lock().1 += 1;
        self.cv.notify_all();
    }

    /// Blocks until every signal enqueued so far has been submitted.
    pub fn wait_submitted(&self) {
        let mut c = self.counts.lock();
        let target = c.0;
        while c.1 < target {
            self.cv.wait(&mut c);
        }
    }
}

/// The OpenCL handle type of a Vulkan one.
pub fn handle_type_cl(h: SemaphoreHandle) -> cl_external_semaphore_handle_type_khr {
    match h {
        SemaphoreHandle::OpaqueFd => CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
        SemaphoreHandle::SyncFd => CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
    }
}

/// The Vulkan handle type of an OpenCL one (`None`: not one ferrocl has).
pub fn handle_type_vk(h: cl_external_semaphore_handle_type_khr) -> Option<SemaphoreHandle> {
    match h {
        CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR => Some(SemaphoreHandle::OpaqueFd),
        CL_SEMAPHORE_HANDLE_SYNC_FD_KHR => Some(SemaphoreHandle::SyncFd),
        _ => None,
    }
}

/// What a semaphore creation asks for, checked by the API layer.
pub struct SemaphoreDesc {
    pub device: Arc<Device>,
    pub device_list: Vec<Arc<Device>>,
    pub properties: Vec<cl_semaphore_properties_khr>,
    pub export_types: Vec<SemaphoreHandle>,
    pub import: Option<(SemaphoreHandle, i32)>,
}

impl Semaphore {
    pub fn new(context: Arc<Context>, desc: SemaphoreDesc) -> CLResult<Arc<Semaphore>> {
        let vkdev = desc.device.vk()?;
        let raw = VkSemaphore::new(&vkdev, &desc.export_types)?;
        if let Some((handle, fd)) = desc.import {
            raw.import_fd(handle, fd)?;
        }
        Ok(Arc::new(Semaphore {
            base: Base::new(Self::TAG),
            context,
            device: desc.device,
            device_list: desc.device_list,
            properties: desc.properties,
            export_types: desc.export_types,
            imported: desc.import.map(|(h, _)| h),
            raw: Arc::new(raw),
            state: Mutex::new(Counts::default()),
            signalled: Condvar::new(),
        }))
    }

    /// Whether only ferrocl's commands signal and wait for it (see the
    /// module doc).
    fn tracked(&self) -> bool {
        self.imported.is_none() && self.export_types.is_empty()
    }

    /// CL_SEMAPHORE_PAYLOAD_KHR (see the module doc).
    pub fn payload(&self) -> cl_semaphore_payload_khr {
        let c = self.state.lock();
        (c.signals_done > c.waits_done) as cl_semaphore_payload_khr
    }

    /// clGetSemaphoreHandleForTypeKHR: a new fd for the payload. A sync
    /// fd carries the pending signal, which Vulkan requires to have been
    /// submitted: the export waits until every signal enqueued so far has
    /// reached vkQueueSubmit.
    pub fn export_fd(&self, handle: SemaphoreHandle) -> CLResult<i32> {
        if handle == SemaphoreHandle::SyncFd {
            let mut c = self.state.lock();
            while c.signals_submitted < c.signals_enqueued {
                self.signalled.wait(&mut c);
            }
        }
        self.raw.export_fd(handle)
    }

    /// clReImportSemaphoreSyncFdKHR: imports `fd` again (a temporary
    /// import, consumed by the next wait).
    pub fn reimport_sync_fd(&self, fd: i32) -> CLResult<()> {
        self.raw.import_fd(SemaphoreHandle::SyncFd, fd)
    }
}

/// clEnqueueWaitSemaphoresKHR: a command on `queue` that waits for every
/// semaphore of `semas` before anything enqueued after it runs.
pub fn enqueue_wait(
    queue: &Arc<Queue>,
    semas: Vec<Arc<Semaphore>>,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    // Tracked semaphores: the wait's turn among the waits of each, whose
    // matching signal must have been submitted first.
    let turns: Vec<(Arc<Semaphore>, u64)> = semas
        .iter()
        .filter(|s| s.tracked())
        .map(|s| {
            let mut c = s.state.lock();
            c.waits_enqueued += 1;
            (s.clone(), c.waits_enqueued)
        })
        .collect();
    let before = (!turns.is_empty()).then(|| {
        Box::new(move || {
            for (s, turn) in &turns {
                let mut c = s.state.lock();
                while c.signals_submitted < *turn {
                    s.signalled.wait(&mut c);
                }
                // The signal this wait consumes never reached the device:
                // waiting for it there would never end.
                if c.failed_signals.contains(turn) {
                    return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
                }
            }
            Ok(())
        }) as WaitFn
    });
    let ops = SemaphoreOps {
        wait: semas.iter().map(|s| s.raw.raw).collect(),
        signal: Vec::new(),
        submitted: None,
    };
    let done = semas.clone();
    let host = Box::new(move || {
        for s in &done {
            s.state.lock().waits_done += 1;
        }
    });
    queue.submit_semaphores(
        CL_COMMAND_SEMAPHORE_WAIT_KHR,
        wait_list,
        ops,
        before,
        host,
        Box::new(semas),
    )
}

/// clEnqueueSignalSemaphoresKHR: a command on `queue` that signals every
/// semaphore of `semas` once everything enqueued before it is done.
pub fn enqueue_signal(
    queue: &Arc<Queue>,
    semas: Vec<Arc<Semaphore>>,
    wait_list: Vec<Arc<Event>>,
) -> Arc<Event> {
    for s in &semas {
        s.state.lock().signals_enqueued += 1;
    }
    let pending = queue.pending_signals.clone();
    pending.enqueued();
    let submitted = semas.clone();
    let ops = SemaphoreOps {
        wait: Vec::new(),
        signal: semas.iter().map(|s| s.raw.raw).collect(),
        submitted: Some(Box::new(move |status: Result<(), cl_int>| {
            // A failed signal (its wait list failed) releases its wait all
            // the same, which then fails instead of holding the submitter.
            for s in &submitted {
                let mut c = s.state.lock();
                c.signals_submitted += 1;
                if status.is_err() {
                    let n = c.signals_submitted;
                    c.failed_signals.push(n);
                }
                s.signalled.notify_all();
            }
            pending.submitted();
        })),
    };
    let done = semas.clone();
    let host = Box::new(move || {
        for s in &done {
            s.state.lock().signals_done += 1;
        }
    });
    queue.submit_semaphores(
        CL_COMMAND_SEMAPHORE_SIGNAL_KHR,
        wait_list,
        ops,
        None,
        host,
        Box::new(semas),
    )
}

/// The semaphore handle types (OpenCL values) `device` imports (`import`)
/// or exports.
pub fn handle_types(device: &Device, import: bool) -> Vec<cl_external_semaphore_handle_type_khr> {
    [SemaphoreHandle::OpaqueFd, SemaphoreHandle::SyncFd]
        .into_iter()
        .filter(|h| {
            let s = h.support(&device.phys.external);
            if import {
                s.import
            } else {
                s.export
            }
        })
        .map(handle_type_cl)
        .collect()
}

/// The extensions of this file `device` reports: cl_khr_semaphore
/// (binary semaphores, every device), and cl_khr_external_semaphore with
/// each handle type the device imports or exports.
pub fn extensions(device: &Device) -> Vec<(&'static str, (u32, u32, u32))> {
    let mut e = vec![("cl_khr_semaphore", (1, 0, 0))];
    let mut types = handle_types(device, true);
    types.extend(handle_types(device, false));
    if types.is_empty() {
        return e;
    }
    e.push(("cl_khr_external_semaphore", (1, 0, 1)));
    if types.contains(&CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR) {
        e.push(("cl_khr_external_semaphore_opaque_fd", (1, 0, 0)));
    }
    if types.contains(&CL_SEMAPHORE_HANDLE_SYNC_FD_KHR) {
        e.push(("cl_khr_external_semaphore_sync_fd", (1, 0, 0)));
    }
    e
}
