//! Memory objects of contexts with several devices.
//!
//! Each ferrocl device is its own VkDevice, so device memory is not shared
//! between the devices of a context. A memory object of a multi-device
//! context therefore has storage on every device that uses it: device 0
//! (the context's first) eagerly, at creation, in the object's own fields
//! (`Mem::storage`, `Mem::image`); any other device on its first use, in
//! a [`Replica`] made when a command using the object is enqueued on that
//! device's queue. The root object (a buffer, or an image backed by a
//! VkImage) records which devices hold the current contents; sub-buffers
//! and 1D image buffers share their root's storage and that record.
//!
//! **When contents move.** The queues record each command on their
//! submitter thread once its wait list is satisfied (`vk::queue`). A
//! command that uses memory objects wraps its record function with
//! [`resident`], which, right before the command's own
//! recording, calls [`Mem::make_current`] for each object: if this device
//! does not hold the current contents, they are copied from a device that
//! does (its storage → host-visible staging on the source device, waited
//! for; host copy into upload staging of this device; staging → storage
//! recorded in this command's command buffer ahead of the command, with
//! barriers around it). This is the point where the command executes in
//! queue order, after its events: an application orders the use of one
//! object on two queues with events or clFinish, as OpenCL requires, and
//! every write the command depends on is then complete on its device.
//! After a command that may write the object only this device is current;
//! after a read-only use both are. Contents never written (no
//! COPY_HOST_PTR / USE_HOST_PTR data) are undefined: no copy until some
//! device writes them.
//!
//! A single-device context has no residency record at all: no migration,
//! no lock, no allocation on its enqueue path ([`resident`] returns
//! the record function unchanged).
//!
//! Known limits: a migration stages the whole object at once (two staging
//! buffers of its size) and always goes through the host, also where
//! storage happens to be host-visible; the copy out of the source device
//! blocks the destination queue's submitter thread until it is done.
//!
//! Layer: residency, above memory objects and images (it makes replicas
//! with `super::image` and owns the migration of buffers and images) and
//! above queues ([`resident`] wraps a command's record function); below
//! the transfers and kernel launches, which reach an object's storage on
//! their queue's device through [`Mem::buffer_on`] / [`Mem::image_on`].

use std::sync::Arc;

use opencl_sys::*;

use super::device::Device;
use super::error::CLResult;
use super::image_geometry::{buffer_image_copy, tight_size};
use super::memory::{ImagePart, Mem, Replica};
use super::queue::Queue;
use crate::vk::buffer::{Buffer, BufferKind};
use crate::vk::queue::{RecordFn, Recorder};

/// `record`, preceded (in a context with several devices) by making each
/// of `uses` current on `queue`'s device when the command is recorded,
/// i.e. once its wait list is satisfied (see the module doc); `true` marks
/// a use that may write the object. In a single-device context `record`
/// itself: no allocation, no lock.
pub fn resident(queue: &Queue, uses: &[(&Arc<Mem>, bool)], record: RecordFn) -> RecordFn {
    if queue.context.devices.len() == 1 || !uses.iter().any(|(m, _)| m.migrates()) {
        return record;
    }
    let dev = queue.device_index;
    let list: Vec<(Arc<Mem>, bool)> = uses.iter().map(|(m, w)| ((*m).clone(), *w)).collect();
    Box::new(move |r: &Recorder| {
        for (m, write) in &list {
            m.make_current(dev, *write, r)?;
        }
        record(r)
    })
}

impl Mem {
    /// The object whose storage this one uses (itself for buffers and
    /// images, the parent chain's top for sub-buffers and 1D image buffers).
    pub fn root(&self) -> &Mem {
        let mut m = self;
        while let Some(p) = &m.parent {
            m = p;
        }
        m
    }

    /// This object's storage on context device `dev` (see the module doc):
    /// its own fields for device 0 or a single-device context, otherwise
    /// the replica, made now on first use.
    fn replica(&self, dev: usize) -> CLResult<Option<&Replica>> {
        let Some(res) = self.residency.as_deref() else {
            return Ok(None);
        };
        if dev == 0 {
            return Ok(None);
        }
        let slot = res.replicas.get(dev).ok_or(CL_INVALID_DEVICE)?;
        match slot.get_or_init(|| self.make_replica(dev)) {
            Ok(r) => Ok(Some(r)),
            Err(e) => Err(*e),
        }
    }

    fn make_replica(&self, dev: usize) -> CLResult<Replica> {
        let device = self.context.devices.get(dev).ok_or(CL_INVALID_DEVICE)?;
        match (&self.parent, &self.image) {
            // A sub-buffer: its parent's storage there.
            (Some(p), None) => Ok(Replica {
                storage: p.storage_on(dev)?.cloned(),
                image: None,
            }),
            // A 1D image buffer: views of its buffer's storage there.
            (Some(p), Some(img)) => {
                let storage = p.storage_on(dev)?.cloned().ok_or(CL_INVALID_MEM_OBJECT)?;
                let part = img.texel_replica(&storage, self.offset)?;
                Ok(Replica {
                    storage: Some(storage),
                    image: Some(part),
                })
            }
            // An image backed by a VkImage.
            (None, Some(img)) => Ok(Replica {
                storage: None,
                image: Some(img.image_replica(device)?),
            }),
            (None, None) => {
                let vkdev = device.vk()?;
                let b = Buffer::new(&vkdev, self.size as u64, BufferKind::Storage)?;
                Ok(Replica {
                    storage: Some(Arc::new(b)),
                    image: None,
                })
            }
        }
    }

    /// The buffer memory of this object on context device `dev` (`None`
    /// for an image backed by a VkImage).
    pub fn storage_on(&self, dev: usize) -> CLResult<Option<&Arc<Buffer>>> {
        Ok(match self.replica(dev)? {
            Some(r) => r.storage.as_ref(),
            None => self.storage.as_ref(),
        })
    }

    /// [`Mem::storage_on`], "CL_INVALID_MEM_OBJECT if [...] is not a valid
    /// buffer object" for an image backed by a VkImage.
    pub fn buffer_on(&self, dev: usize) -> CLResult<&Arc<Buffer>> {
        self.storage_on(dev)?.ok_or(CL_INVALID_MEM_OBJECT)
    }

    /// The image part on context device `dev`.
    pub fn image_on(&self, dev: usize) -> CLResult<&ImagePart> {
        match self.replica(dev)? {
            Some(r) => r.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT),
            None => self.image(),
        }
    }

    /// Device address of byte 0 of this buffer on context device `dev`.
    pub fn device_address_on(&self, dev: usize) -> CLResult<u64> {
        Ok(self.buffer_on(dev)?.address + self.offset as u64)
    }

    /// Makes sure the object has storage on context device `dev` (made
    /// now if this is its first use there): a command enqueued on that
    /// device's queue fails here, at enqueue time, when it cannot get it.
    pub fn ensure_on(&self, dev: usize) -> CLResult<()> {
        self.replica(dev).map(|_| ())
    }

    /// Whether this object's storage is shared by several devices' records
    /// (a multi-device context).
    pub fn migrates(&self) -> bool {
        self.residency.is_some()
    }

    /// Makes device `dev` hold the current contents of this object's root,
    /// copying them from a device that holds them if needed (see the
    /// module doc), recorded ahead of the command `r` records; `write`:
    /// the command may write the object, so afterwards only `dev` holds
    /// the current contents.
    pub fn make_current(&self, dev: usize, write: bool, r: &Recorder) -> CLResult<()> {
        let root = self.root();
        let Some(res) = root.residency.as_deref() else {
            return Ok(());
        };
        let bit = 1u64 << dev;
        // Held across the copy: a second device wanting the same object
        // waits for this migration instead of starting its own.
        let mut valid = res.valid.lock();
        if *valid != 0 && *valid & bit == 0 {
            let src = valid.trailing_zeros() as usize;
            root.migrate(src, dev, r)?;
            *valid |= bit;
        }
        if write {
            *valid = bit;
        }
        Ok(())
    }

    /// clEnqueueMigrateMemObjects with CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED:
    /// device `dev` holds the (now undefined) contents, nothing is copied.
    pub fn discard_to(&self, dev: usize) {
        if let Some(res) = self.root().residency.as_deref() {
            *res.valid.lock() = 1u64 << dev;
        }
    }

    /// Copies the whole root object from device `src` to device `dst`:
    /// src storage → readback staging on `src` (waited for), host copy into
    /// upload staging of `dst`, staging → dst storage recorded into `r`.
    fn migrate(&self, src: usize, dst: usize, r: &Recorder) -> CLResult<()> {
        let src_dev = self.context.devices.get(src).ok_or(CL_INVALID_DEVICE)?;
        if self.image.is_some() {
            return migrate_image(self, src_dev, src, dst, r);
        }
        let from = self.buffer_on(src)?.clone();
        let to = self.buffer_on(dst)?.clone();
        let size = self.size as u64;
        let down = Arc::new(from.device.staging(size, BufferKind::Readback)?);
        let (fraw, draw) = (from.raw, down.raw);
        src_dev.run_sync(
            Box::new(move |rs: &Recorder| {
                rs.copy_buffer(fraw, 0, draw, 0, size);
                Ok(())
            }),
            Box::new((from, down.clone())),
        )?;
        let up = to.device.staging(size, BufferKind::Upload)?;
        let (Some(s), Some(d)) = (down.mapped(), up.mapped()) else {
            return Err(CL_OUT_OF_RESOURCES);
        };
        // SAFETY: both staging buffers are mapped, at least `size` bytes,
        // ours alone; the device finished writing `down` (run_sync waited).
        unsafe { super::hostcopy::copy(s, d, size as usize) };
        // Earlier work on this device may still use the old contents.
        r.barrier();
        r.copy_buffer(up.raw, 0, to.raw, 0, size);
        r.barrier();
        r.hold(Box::new((up, to)));
        Ok(())
    }
}

/// Copies the whole image `mem` (a root backed by VkImages) from context
/// device `src` (`src_dev`) to device `dst`: image → readback staging on
/// `src`, waited for; host copy into upload staging of `dst`; staging →
/// image recorded into `r` (see `super::residency`).
fn migrate_image(
    mem: &Mem,
    src_dev: &Device,
    src: usize,
    dst: usize,
    r: &Recorder,
) -> CLResult<()> {
    let (from, to) = (mem.image_on(src)?, mem.image_on(dst)?);
    let (Some(fi), Some(ti)) = (from.vk_image(), to.vk_image()) else {
        return Err(CL_INVALID_MEM_OBJECT);
    };
    // Every mip level, one after the other in staging (at offsets Vulkan
    // copies at: multiples of 16 bytes).
    let mut copies = Vec::new();
    let mut size = 0u64;
    for level in 0..from.desc.levels() {
        let region = from.desc.level_extent(level);
        let at = super::image_geometry::Origin { pos: [0; 3], level };
        copies.push(buffer_image_copy(mem.mem_type, size, at, region));
        size = (size + tight_size(&region, from.element_size()) as u64).next_multiple_of(16);
    }
    let down = Arc::new(fi.device.staging(size, BufferKind::Readback)?);
    let (fraw, draw) = (fi.raw, down.raw);
    let copies2 = copies.clone();
    src_dev.run_sync(
        Box::new(move |rs: &Recorder| {
            rs.copy_image_to_buffer(fraw, draw, &copies2);
            Ok(())
        }),
        Box::new(down.clone()),
    )?;
    let up = ti.device.staging(size, BufferKind::Upload)?;
    let (Some(s), Some(d)) = (down.mapped(), up.mapped()) else {
        return Err(CL_OUT_OF_RESOURCES);
    };
    // SAFETY: both staging buffers are mapped, at least `size` bytes, ours
    // alone; the device finished writing `down` (run_sync waited).
    unsafe { super::hostcopy::copy(s, d, size as usize) };
    r.barrier();
    r.copy_buffer_to_image(up.raw, ti.raw, &copies);
    r.barrier();
    r.hold(Box::new(up));
    Ok(())
}
