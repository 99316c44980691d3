//! Which memory object a raw device address points into.
//!
//! Kernels built with physical addressing (`compiler::Addressing::Physical`,
//! the default) see every global pointer as a Vulkan buffer device address,
//! so an application that knows the address of a buffer can hand it to a
//! kernel as a plain value: cl_ext_buffer_device_address
//! (`clSetKernelArgDevicePointerEXT`, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT)
//! and SVM (`clSetKernelArgSVMPointer`, CL_KERNEL_EXEC_INFO_SVM_PTRS, and
//! pointers stored inside SVM memory, `super::svm`). The kernel then needs
//! nothing from the runtime to reach the memory; what the runtime must do
//! is keep the object alive until the launch completes and, in a
//! multi-device context, make its contents current on the launch's device
//! (`super::residency`). This registry is how a launch finds the object
//! behind an address: every buffer created with
//! CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, every SVM allocation and every USM
//! allocation (`super::usm`) registers the address range of its storage
//! on each device of its context.
//!
//! Ranges are keyed by the Vulkan device as well as the address: two GPUs
//! may hand out the same virtual addresses. An entry holds its object
//! weakly (a released buffer's entry is dead and found by nobody) or, for
//! SVM and USM allocations, strongly: the allocation lives until clSVMFree
//! or clMemFreeINTEL, which takes it out ([`unregister`]). Dead entries are dropped when a new
//! range overlaps them (the driver reused the addresses).
//!
//! Layer: residency (it asks each object for its storage on every device of
//! its context), below the commands that look addresses up (kernel launches,
//! SVM transfers).

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use super::error::CLResult;
use super::memory::Mem;

/// How an entry holds its object.
enum Held {
    /// A cl_mem the application releases: found while it lives.
    Weak(Weak<Mem>),
    /// An SVM allocation, alive until clSVMFree.
    Strong(Arc<Mem>),
}

struct Entry {
    end: u64,
    held: Held,
}

impl Entry {
    fn mem(&self) -> Option<Arc<Mem>> {
        match &self.held {
            Held::Weak(w) => w.upgrade(),
            Held::Strong(m) => Some(m.clone()),
        }
    }
}

/// (Vulkan device identity, start address) → range and object.
type Ranges = BTreeMap<(usize, u64), Entry>;

static RANGES: Mutex<Ranges> = Mutex::new(BTreeMap::new());

/// The identity of the Vulkan device of context device `dev` of `mem`.
fn device_key(mem: &Mem, dev: usize) -> CLResult<usize> {
    Ok(Arc::as_ptr(&mem.context.devices[dev].vk()?) as usize)
}

/// Registers the storage of `mem` on every device of its context (made
/// now where it did not exist yet, so that each address is fixed from
/// here on); `strong`: the registry keeps `mem` alive until
/// [`unregister`] (SVM allocations).
pub fn register(mem: &Arc<Mem>, strong: bool) -> CLResult<()> {
    let mut ranges = Vec::with_capacity(mem.context.devices.len());
    for dev in 0..mem.context.devices.len() {
        let start = mem.device_address_on(dev)?;
        ranges.push((device_key(mem, dev)?, start, start + mem.size as u64));
    }
    let mut map = RANGES.lock();
    for (key, start, end) in ranges {
        drop_overlapping(&mut map, key, start, end);
        let held = if strong {
            Held::Strong(mem.clone())
        } else {
            Held::Weak(Arc::downgrade(mem))
        };
        map.insert((key, start), Entry { end, held });
    }
    Ok(())
}

/// Removes the entries of `mem` (clSVMFree); returns whether it had any.
pub fn unregister(mem: &Mem) -> bool {
    let mut map = RANGES.lock();
    let before = map.len();
    map.retain(|_, e| match &e.held {
        Held::Weak(w) => !std::ptr::eq(w.as_ptr(), mem),
        Held::Strong(m) => !std::ptr::eq(Arc::as_ptr(m), mem),
    });
    map.len() != before
}

/// Drops the dead entries of `key` that overlap `[start, end)`: their
/// objects are gone and the driver handed the addresses out again. (A
/// live one stays: a buffer made over an SVM allocation shares its range.)
fn drop_overlapping(map: &mut Ranges, key: usize, start: u64, end: u64) {
    let doomed: Vec<(usize, u64)> = map
        .range((key, 0)..(key, end))
        .filter(|(_, e)| e.end > start && e.mem().is_none())
        .map(|(k, _)| *k)
        .collect();
    for k in doomed {
        map.remove(&k);
    }
}

/// The live registered object of Vulkan device `key` whose range holds
/// `address`, with the offset of `address` in it.
fn find(key: usize, address: u64) -> Option<(Arc<Mem>, u64)> {
    let map = RANGES.lock();
    // The nearest starts first; a dead entry nested in a live one (not
    // yet dropped) does not hide it.
    map.range((key, 0)..=(key, address))
        .rev()
        .take(16)
        .filter(|(_, e)| address < e.end)
        .find_map(|(&(_, start), e)| e.mem().map(|m| (m, address - start)))
}

/// The registered object of `context` whose storage on context device
/// `dev` holds `address`, and the offset of `address` in it. `None` for
/// an address in no registered object of that context (an application
/// may pass any pointer; the kernel then reaches what it reaches).
pub fn lookup(
    context: &Arc<super::context::Context>,
    dev: usize,
    address: u64,
) -> Option<(Arc<Mem>, u64)> {
    let key = Arc::as_ptr(&context.devices.get(dev)?.vk().ok()?) as usize;
    find(key, address).filter(|(m, _)| Arc::ptr_eq(&m.context, context))
}

/// [`lookup`] on every device of `context`: the object and the device
/// whose address `address` is (CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT names
/// addresses without saying on which device).
pub fn lookup_any(
    context: &Arc<super::context::Context>,
    address: u64,
) -> Option<(Arc<Mem>, usize)> {
    (0..context.devices.len()).find_map(|dev| lookup(context, dev, address).map(|(m, _)| (m, dev)))
}
