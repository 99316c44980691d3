//! cl_mem objects. A buffer's storage is a device-local Vulkan buffer
//! (DESIGN §3); a sub-buffer shares its parent's storage at an offset. An
//! image is the same object with an image part ([`ImagePart`]): a VkImage,
//! or for a 1D image buffer the storage of its buffer (made by
//! `super::image`).
//!
//! **CL_MEM_USE_HOST_PTR.** Where the context's first device can import
//! host memory (VK_EXT_external_memory_host) and the application's pointer
//! is aligned to its minImportedHostPointerAlignment (and to
//! CL_DEVICE_MEM_BASE_ADDR_ALIGN), the buffer's storage on that device *is*
//! the application's memory ([`Buffer::import_host`]): kernels and
//! transfers read and write it in place, a map returns `host_ptr + offset`
//! with no copy, an unmap copies nothing, and nothing is copied at
//! creation. Host writes made before an enqueue are visible to the
//! command (vkQueueSubmit is a host→device memory dependency for the
//! host-coherent memory type chosen) and device writes are visible to the
//! host once the command completes (every command buffer ends with a
//! device→host barrier). Otherwise (unaligned pointer, no extension, the
//! driver refuses the import, or `FERROCL_NO_HOST_IMPORT=1`) the storage is
//! device memory: the contents are copied in at creation, into the
//! application's memory by a map, and back by an unmap that wrote. Sub-buffers
//! share their parent's storage either way. The imported memory is freed
//! when the object is released, before its destructor callbacks run.
//!
//! The storage in these fields is on the context's first device. In a
//! context with several devices an object also has storage on each other
//! device that uses it, and its contents migrate between them
//! ([`super::residency`]); commands reach the storage of their queue's
//! device through [`Mem::buffer_on`] / [`Mem::image_on`].
//!
//! Layer: memory objects, above events and queues (nothing here enqueues)
//! and below residency (`super::residency`, which owns the behaviour of the
//! per-device record [`Residency`] defined here) and the transfers. The
//! small types the layers above share live here: [`ImagePart`],
//! [`MapMemory`], [`Mapping`].

use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::error::CLResult;
use super::image_format::FormatInfo;
use super::image_geometry::{ImageDesc, MappedRegion};
use super::object::{tag, Base, ClObject};
use crate::vk::buffer::{Buffer, BufferKind, Staging};
use crate::vk::image::{BufferView, Image};

pub type MemDestructor = unsafe extern "C" fn(cl_mem, *mut c_void);

#[repr(C)]
pub struct Mem {
    base: Base,
    pub context: Arc<Context>,
    pub mem_type: cl_mem_object_type,
    pub flags: cl_mem_flags,
    pub size: usize,
    /// The application's pointer for CL_MEM_USE_HOST_PTR (0 otherwise).
    pub host_ptr: usize,
    pub parent: Option<Arc<Mem>>,
    /// Offset in `storage` (sub-buffers, 1D image buffers).
    pub offset: usize,
    /// The buffer memory (buffers and 1D image buffers; `None` for images
    /// backed by a VkImage).
    pub storage: Option<Arc<Buffer>>,
    /// Set for images.
    pub image: Option<ImagePart>,
    /// CL_MEM_ALLOC_HOST_PTR: host-visible memory as large as the buffer,
    /// allocated and touched at creation; maps point into it (root buffers
    /// only; a sub-buffer uses its parent's, see [`Mem::mirror`]).
    host_mirror: Option<Arc<Buffer>>,
    pub properties: Vec<cl_mem_properties>,
    /// CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT (cl_ext_buffer_device_address):
    /// the storage's device address on each device is fixed for the
    /// object's lifetime and reported by CL_MEM_DEVICE_ADDRESS_EXT;
    /// sub-buffers inherit it (their address is the parent's plus their
    /// origin). The storage is registered in `super::device_address`.
    pub device_address: bool,
    /// An SVM allocation (`super::svm`): its storage is mapped on the host
    /// at its device address. Never handed to the application as a cl_mem.
    pub svm_allocation: bool,
    /// A buffer created with CL_MEM_USE_HOST_PTR over SVM memory
    /// (CL_MEM_USES_SVM_POINTER): the SVM allocation whose storage it
    /// shares, at `offset`.
    pub svm_backing: Option<Arc<Mem>>,
    pub map_count: std::sync::atomic::AtomicU32,
    destructors: Mutex<Vec<(MemDestructor, usize)>>,
    /// Live clEnqueueMapBuffer mappings.
    pub maps: Mutex<Vec<Mapping>>,
    /// Multi-device contexts only: storage on the other devices and which
    /// devices hold the current contents (see `super::residency`).
    pub(super) residency: Option<Box<Residency>>,
}

/// One mapped region: the host memory the application sees.
pub struct Mapping {
    pub ptr: usize,
    pub offset: usize,
    pub size: usize,
    pub flags: cl_map_flags,
    /// Host-visible memory the pointer lies in (None when the pointer is
    /// inside the USE_HOST_PTR memory). The map's read lands in it by DMA
    /// and the unmap's write leaves from it: no extra host copy.
    pub memory: Option<Arc<MapMemory>>,
    /// For an image backed by a VkImage: the mapped region and the layout
    /// of the mapped memory (`offset`/`size` are then unused).
    pub image: Option<MappedRegion>,
    /// The pointer is in the buffer's own storage (imported USE_HOST_PTR
    /// memory, mapped on the device that holds it): nothing to copy back.
    pub in_place: bool,
}

/// Where the image's texels live.
pub enum ImageStorage {
    Image(Image),
    /// A 1D image buffer: the buffer's storage (`Mem::storage` at
    /// `Mem::offset`) with views for the kernels (`None` where the format
    /// has no such texel-buffer support).
    TexelBuffer {
        read: Option<BufferView>,
        storage: Option<BufferView>,
    },
}

pub struct ImagePart {
    pub format: cl_image_format,
    pub info: FormatInfo,
    pub desc: ImageDesc,
    pub storage: ImageStorage,
}

impl ImagePart {
    pub fn element_size(&self) -> usize {
        self.info.element_size
    }

    /// The VkImage (`None` for a 1D image buffer).
    pub fn vk_image(&self) -> Option<&Image> {
        match &self.storage {
            ImageStorage::Image(i) => Some(i),
            ImageStorage::TexelBuffer { .. } => None,
        }
    }
}

/// The host-visible memory a map points into: the buffer's persistent
/// mirror (CL_MEM_ALLOC_HOST_PTR) or staging memory taken for this map
/// (`super::transfer::map_memory`).
pub struct MapMemory {
    /// The Vulkan device the memory belongs to.
    pub device: Arc<crate::vk::device::Device>,
    raw: ash::vk::Buffer,
    /// Byte offset of the mapped region in `raw`.
    offset: u64,
    /// Host address of the mapped region.
    pub ptr: usize,
    _keep: Arc<dyn Send + Sync>,
}

impl MapMemory {
    /// Map memory in staging taken for this map.
    pub fn staging(staging: Arc<Staging>) -> CLResult<MapMemory> {
        Ok(MapMemory {
            device: staging.device.clone(),
            raw: staging.raw,
            offset: 0,
            ptr: staging.mapped().ok_or(CL_OUT_OF_RESOURCES)? as usize,
            _keep: staging,
        })
    }

    /// Map memory at byte `offset` of `raw` (host address `ptr`), a
    /// buffer of `device` that `keep` keeps alive.
    pub fn in_buffer(
        device: Arc<crate::vk::device::Device>,
        raw: ash::vk::Buffer,
        offset: u64,
        ptr: usize,
        keep: Arc<dyn Send + Sync>,
    ) -> MapMemory {
        MapMemory {
            device,
            raw,
            offset,
            ptr,
            _keep: keep,
        }
    }

    /// The Vulkan buffer and byte offset of the mapped region.
    pub fn side(&self) -> (ash::vk::Buffer, u64) {
        (self.raw, self.offset)
    }
}

/// The most devices a context with migrating memory objects may have
/// (validity is one bit per device).
pub const MAX_DEVICES: usize = 64;

/// A memory object's storage on one device other than the context's first.
pub struct Replica {
    /// Buffer memory (buffers, sub-buffers, 1D image buffers).
    pub storage: Option<Arc<Buffer>>,
    /// The image part on this device (images).
    pub image: Option<ImagePart>,
}

/// Per-device storage and validity of one memory object of a
/// multi-device context: the record; what uses it (making replicas,
/// migrating contents) is `super::residency`.
pub struct Residency {
    /// Index i: the storage on context device i, made on first use
    /// (index 0 is unused: device 0's storage is the object's own).
    pub(super) replicas: Box<[OnceLock<CLResult<Replica>>]>,
    /// Bit i: device i holds the current contents; 0: the contents are
    /// undefined (never written). Used at the root object only.
    pub(super) valid: Mutex<u64>,
}

impl Residency {
    /// The record of a new object of a context with `devices` devices
    /// (`None` for one device); `initialized`: device 0 holds defined
    /// contents (host data was copied in).
    pub fn new(devices: usize, initialized: bool) -> CLResult<Option<Box<Residency>>> {
        if devices <= 1 {
            return Ok(None);
        }
        if devices > MAX_DEVICES {
            return Err(CL_OUT_OF_RESOURCES);
        }
        Ok(Some(Box::new(Residency {
            replicas: (0..devices).map(|_| OnceLock::new()).collect(),
            valid: Mutex::new(u64::from(initialized)),
        })))
    }
}

/// `FERROCL_NO_HOST_IMPORT=1`: CL_MEM_USE_HOST_PTR buffers always get
/// device storage and copies (the fallback path), never imported memory.
fn host_import_enabled() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    !*OFF.get_or_init(|| std::env::var_os("FERROCL_NO_HOST_IMPORT").is_some_and(|v| v != "0"))
}

/// Whether a buffer's property list (name, value pairs, then 0) sets
/// CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT to CL_TRUE. (CL_MEM_DEVICE_HANDLE_LIST_KHR's
/// value is a list of devices up to a 0: skipped.)
fn has_device_address_property(properties: &[cl_mem_properties]) -> bool {
    let mut i = 0;
    while i + 1 < properties.len() && properties[i] != 0 {
        let (name, value) = (properties[i], properties[i + 1]);
        if name == CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT && value == cl_mem_properties::from(CL_TRUE) {
            return true;
        }
        i += 2;
        if name == CL_MEM_DEVICE_HANDLE_LIST_KHR {
            while i <= properties.len() && properties[i - 1] != CL_MEM_DEVICE_HANDLE_LIST_END_KHR {
                i += 1;
            }
        }
    }
    false
}

impl ClObject for Mem {
    const TAG: u32 = tag(b"MEMO");
    const INVALID: cl_int = CL_INVALID_MEM_OBJECT;
    fn base(&self) -> &Base {
        &self.base
    }
}

impl Mem {
    /// A new buffer on the context's device, initialised from `init` when given.
    pub fn new_buffer(
        context: Arc<Context>,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: usize,
        init: Option<&[u8]>,
        properties: Vec<cl_mem_properties>,
    ) -> CLResult<Arc<Mem>> {
        let device = context.devices[0].clone();
        let vkdev = device.vk()?;
        let residency = Residency::new(context.devices.len(), init.is_some())?;
        let imported = if flags & CL_MEM_USE_HOST_PTR != 0 && host_import_enabled() {
            // SAFETY: CL_MEM_USE_HOST_PTR: the application keeps `size`
            // bytes at host_ptr valid until the object is released, and
            // `Drop` frees the storage before the destructor callbacks.
            unsafe { Buffer::import_host(&vkdev, host_ptr as *mut u8, size as u64) }
        } else {
            None
        };
        let storage = match imported {
            // The storage already holds the contents: it is that memory.
            Some(b) => Arc::new(b),
            None => {
                let storage = Arc::new(Buffer::new(&vkdev, size as u64, BufferKind::Storage)?);
                if let Some(data) = init {
                    device.upload_sync(&storage, 0, data)?;
                }
                storage
            }
        };
        let host_mirror = if flags & CL_MEM_ALLOC_HOST_PTR != 0 {
            let m = Buffer::new(&vkdev, size as u64, BufferKind::Readback)?;
            if let Some(p) = m.mapped() {
                // SAFETY: fresh mapped memory of `size` bytes, ours alone:
                // fault its pages in now rather than in the first map.
                unsafe { std::ptr::write_bytes(p, 0, size) };
            }
            Some(Arc::new(m))
        } else {
            None
        };
        Ok(Arc::new(Mem {
            base: Base::new(Self::TAG),
            context,
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr,
            parent: None,
            offset: 0,
            storage: Some(storage),
            image: None,
            host_mirror,
            device_address: has_device_address_property(&properties),
            svm_allocation: false,
            svm_backing: None,
            properties,
            map_count: Default::default(),
            destructors: Mutex::new(Vec::new()),
            maps: Mutex::new(Vec::new()),
            residency,
        }))
    }

    /// A buffer over memory another API exported (`super::external_memory`):
    /// `storage` is that memory, imported on the context's first device.
    pub fn new_external_buffer(
        context: Arc<Context>,
        flags: cl_mem_flags,
        size: usize,
        storage: Buffer,
        properties: Vec<cl_mem_properties>,
    ) -> CLResult<Arc<Mem>> {
        // Its contents are the other API's: valid on the first device.
        let residency = Residency::new(context.devices.len(), true)?;
        Ok(Arc::new(Mem {
            base: Base::new(Self::TAG),
            context,
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr: 0,
            parent: None,
            offset: 0,
            storage: Some(Arc::new(storage)),
            image: None,
            host_mirror: None,
            device_address: has_device_address_property(&properties),
            svm_allocation: false,
            svm_backing: None,
            properties,
            map_count: Default::default(),
            destructors: Mutex::new(Vec::new()),
            maps: Mutex::new(Vec::new()),
            residency,
        }))
    }

    /// An image (see `super::image`): `storage`/`offset`/`parent` are the
    /// buffer's for a 1D image buffer, `None`/0/`None` otherwise;
    /// `initialized`: host data was copied into it.
    #[allow(clippy::too_many_arguments)]
    pub fn new_image_object(
        context: Arc<Context>,
        mem_type: cl_mem_object_type,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: usize,
        parent: Option<Arc<Mem>>,
        storage: Option<Arc<Buffer>>,
        image: ImagePart,
        properties: Vec<cl_mem_properties>,
        initialized: bool,
    ) -> CLResult<Arc<Mem>> {
        let residency = Residency::new(context.devices.len(), initialized)?;
        Ok(Arc::new(Mem {
            base: Base::new(Self::TAG),
            context,
            mem_type,
            flags,
            size,
            host_ptr,
            offset: parent.as_ref().map_or(0, |p| p.offset),
            parent,
            storage,
            image: Some(image),
            host_mirror: None,
            properties,
            device_address: false,
            svm_allocation: false,
            svm_backing: None,
            map_count: Default::default(),
            destructors: Mutex::new(Vec::new()),
            maps: Mutex::new(Vec::new()),
            residency,
        }))
    }

    pub fn new_sub_buffer(
        parent: &Arc<Mem>,
        flags: cl_mem_flags,
        origin: usize,
        size: usize,
    ) -> CLResult<Arc<Mem>> {
        let residency = Residency::new(parent.context.devices.len(), false)?;
        Ok(Arc::new(Mem {
            base: Base::new(Self::TAG),
            context: parent.context.clone(),
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr: if parent.host_ptr != 0 {
                parent.host_ptr + origin
            } else {
                0
            },
            parent: Some(parent.clone()),
            offset: parent.offset + origin,
            storage: parent.storage.clone(),
            image: None,
            host_mirror: None,
            properties: Vec::new(),
            device_address: parent.device_address,
            svm_allocation: false,
            svm_backing: parent.svm_backing.clone(),
            map_count: Default::default(),
            destructors: Mutex::new(Vec::new()),
            maps: Mutex::new(Vec::new()),
            residency,
        }))
    }

    /// An SVM allocation of `size` bytes on the context's only device,
    /// whose storage `storage` is mapped at its device address
    /// (`super::svm`).
    pub fn new_svm(
        context: Arc<Context>,
        flags: cl_mem_flags,
        size: usize,
        storage: Arc<Buffer>,
    ) -> Arc<Mem> {
        Self::over_shared_memory(context, flags, size, storage, true)
    }

    /// A host or shared USM allocation (`super::usm`): the storage of an
    /// SVM allocation, but no SVM allocation (the clSVM* calls ignore it).
    pub fn new_usm_shared(context: Arc<Context>, size: usize, storage: Arc<Buffer>) -> Arc<Mem> {
        Self::over_shared_memory(context, CL_MEM_READ_WRITE, size, storage, false)
    }

    fn over_shared_memory(
        context: Arc<Context>,
        flags: cl_mem_flags,
        size: usize,
        storage: Arc<Buffer>,
        svm_allocation: bool,
    ) -> Arc<Mem> {
        Arc::new(Mem {
            base: Base::new(Self::TAG),
            context,
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr: storage.address as usize,
            parent: None,
            offset: 0,
            storage: Some(storage),
            image: None,
            host_mirror: None,
            properties: Vec::new(),
            device_address: false,
            svm_allocation,
            svm_backing: None,
            map_count: Default::default(),
            destructors: Mutex::new(Vec::new()),
            maps: Mutex::new(Vec::new()),
            residency: None,
        })
    }

    /// A CL_MEM_USE_HOST_PTR buffer over `size` bytes at `offset` of the SVM
    /// allocation `svm`: it shares that storage, so kernels, transfers and
    /// maps reach the SVM memory itself (CL_MEM_USES_SVM_POINTER).
    pub fn new_over_svm(
        svm: &Arc<Mem>,
        flags: cl_mem_flags,
        offset: usize,
        size: usize,
        properties: Vec<cl_mem_properties>,
    ) -> Arc<Mem> {
        Arc::new(Mem {
            base: Base::new(Self::TAG),
            context: svm.context.clone(),
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr: svm.host_ptr + offset,
            parent: None,
            offset,
            storage: svm.storage.clone(),
            image: None,
            host_mirror: None,
            device_address: has_device_address_property(&properties),
            properties,
            svm_allocation: false,
            svm_backing: Some(svm.clone()),
            map_count: Default::default(),
            destructors: Mutex::new(Vec::new()),
            maps: Mutex::new(Vec::new()),
            residency: None,
        })
    }

    /// The ALLOC_HOST_PTR mirror of this buffer's storage (a sub-buffer's
    /// is its root's; byte `self.offset` of it mirrors byte 0 of this one).
    pub fn mirror(&self) -> Option<Arc<Buffer>> {
        match &self.parent {
            Some(p) => p.mirror(),
            None => self.host_mirror.clone(),
        }
    }

    /// Whether this is a buffer (or sub-buffer), not an image.
    pub fn is_buffer(&self) -> bool {
        self.mem_type == CL_MEM_OBJECT_BUFFER
    }

    /// The buffer memory behind this object ("CL_INVALID_MEM_OBJECT if
    /// [...] is not a valid buffer object" for an image backed by a VkImage).
    pub fn buffer(&self) -> CLResult<&Arc<Buffer>> {
        self.storage.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
    }

    /// The image part ("CL_INVALID_MEM_OBJECT if image is not a valid
    /// image object").
    pub fn image(&self) -> CLResult<&ImagePart> {
        self.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
    }

    /// Whether this object's storage on context device `dev` is the
    /// application's USE_HOST_PTR memory itself (imported; device 0 only).
    pub fn in_place_on(&self, dev: usize) -> bool {
        dev == 0 && self.storage.as_ref().is_some_and(|b| b.is_host_memory())
    }

    /// Whether two memory objects share buffer storage.
    pub fn shares_storage(&self, other: &Mem) -> bool {
        match (&self.storage, &other.storage) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    pub fn add_destructor(&self, f: MemDestructor, data: usize) {
        self.destructors.lock().push((f, data));
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        let me = self as *mut Mem as cl_mem;
        // Imported USE_HOST_PTR memory is freed before the callbacks run:
        // the application may free its memory in them. Every command using
        // the object held it until completion, so the device is done with
        // it; sub-buffers and image buffers hold their parent.
        drop(self.storage.take());
        for (f, data) in self.destructors.get_mut().drain(..).rev() {
            // SAFETY: registered by the application for this object.
            unsafe { f(me, data as *mut c_void) };
        }
    }
}
