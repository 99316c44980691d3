//! Binary VkSemaphores behind cl_semaphore_khr objects, exportable and
//! importable as file descriptors where the device has
//! VK_KHR_external_semaphore_fd (`super::external` says for which handle
//! types).
//!
//! Import semantics follow Vulkan's: an opaque fd is imported permanently
//! (the payload is shared with the exporter from then on); a sync fd is
//! imported temporarily (Vulkan allows nothing else for it): the next wait
//! consumes it and the semaphore then returns to its own payload. An
//! export of a sync fd has copy transference: the fd carries the pending
//! signal and the semaphore is unsignalled.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model.

use std::os::fd::{BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::sync::Arc;

use ash::vk;
use opencl_sys::*;

use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// The external handle types ferrocl exports and imports semaphores as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemaphoreHandle {
    OpaqueFd,
    SyncFd,
}

impl SemaphoreHandle {
    fn vk(self) -> vk::ExternalSemaphoreHandleTypeFlags {
        match self {
            SemaphoreHandle::OpaqueFd => vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD,
            SemaphoreHandle::SyncFd => vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD,
        }
    }

    /// What the device can do with this handle type.
    pub fn support(self, caps: &super::external::ExternalCaps) -> super::external::HandleSupport {
        match self {
            SemaphoreHandle::OpaqueFd => caps.semaphore_opaque_fd,
            SemaphoreHandle::SyncFd => caps.semaphore_sync_fd,
        }
    }
}

pub struct Semaphore {
    pub device: Arc<Device>,
    pub raw: vk::Semaphore,
}

impl Semaphore {
    /// A binary semaphore, exportable as each of `export`.
    pub fn new(device: &Arc<Device>, export: &[SemaphoreHandle]) -> CLResult<Semaphore> {
        let types = export
            .iter()
            .fold(vk::ExternalSemaphoreHandleTypeFlags::empty(), |a, h| {
                a | h.vk()
            });
        let mut ex = vk::ExportSemaphoreCreateInfo::default().handle_types(types);
        let mut info = vk::SemaphoreCreateInfo::default();
        if !export.is_empty() {
            if device.semaphore_fd.is_none() {
                return Err(CL_INVALID_VALUE);
            }
            info = info.push_next(&mut ex);
        }
        // SAFETY: valid device; the chain lives until the call returns.
        let raw = unsafe { device.raw.create_semaphore(&info, None) }.map_err(map_vk_err)?;
        Ok(Semaphore {
            device: device.clone(),
            raw,
        })
    }

    /// Imports the payload of `fd` (a duplicate: the application keeps its
    /// fd), permanently for an opaque fd, temporarily for a sync fd.
    pub fn import_fd(&self, handle: SemaphoreHandle, fd: RawFd) -> CLResult<()> {
        let fns = self.device.semaphore_fd.as_ref().ok_or(CL_INVALID_VALUE)?;
        if fd < 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: an fd the application owns and keeps open for this call.
        let dup = unsafe { BorrowedFd::borrow_raw(fd) }
            .try_clone_to_owned()
            .map_err(|_| CL_OUT_OF_HOST_MEMORY)?
            .into_raw_fd();
        let flags = match handle {
            SemaphoreHandle::OpaqueFd => vk::SemaphoreImportFlags::empty(),
            SemaphoreHandle::SyncFd => vk::SemaphoreImportFlags::TEMPORARY,
        };
        let info = vk::ImportSemaphoreFdInfoKHR::default()
            .semaphore(self.raw)
            .flags(flags)
            .handle_type(handle.vk())
            .fd(dup);
        // SAFETY: the extension is enabled; the semaphore is not in use by
        // a pending operation (the caller's contract); Vulkan owns `dup`
        // once the import succeeds.
        unsafe { fns.import_semaphore_fd(&info) }.map_err(|e| {
            // SAFETY: the import failed: `dup` is still ours.
            drop(unsafe { OwnedFd::from_raw_fd(dup) });
            match e {
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE => CL_INVALID_VALUE,
                e => map_vk_err(e),
            }
        })
    }

    /// A new fd for this semaphore's payload (the caller owns it).
    pub fn export_fd(&self, handle: SemaphoreHandle) -> CLResult<RawFd> {
        let fns = self.device.semaphore_fd.as_ref().ok_or(CL_INVALID_VALUE)?;
        let info = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(self.raw)
            .handle_type(handle.vk());
        // SAFETY: the extension is enabled and the semaphore was created
        // exportable as `handle` (checked by the caller).
        unsafe { fns.get_semaphore_fd(&info) }.map_err(map_vk_err)
    }
}

impl Drop for Semaphore {
    fn drop(&mut self) {
        // SAFETY: every command using the semaphore holds it until its
        // submission completed.
        unsafe { self.device.raw.destroy_semaphore(self.raw, None) };
    }
}
