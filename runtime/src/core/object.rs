//! The base every OpenCL object starts with, and handle conversion.
//!
//! A handle (cl_context, cl_mem, ...) is a pointer to a `#[repr(C)]` object
//! whose first field is [`Base`]: the cl_khr_icd dispatch table pointer
//! first, then a type tag and the OpenCL reference count. Objects live in
//! `Arc`s: the handle owns one strong reference for as long as the OpenCL
//! reference count is non-zero; enqueued commands and child objects hold
//! their own `Arc`s, so an object stays alive while work uses it.
//!
//! Layer: foundation, below every OpenCL object type.

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Arc;

use opencl_sys::cl_int;

use super::error::CLResult;

static DISPATCH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// Set once by the ICD layer before any object is created.
pub fn set_dispatch(table: *const c_void) {
    DISPATCH.store(table as *mut c_void, Ordering::Release);
}

#[repr(C)]
pub struct Base {
    dispatch: *const c_void,
    tag: u32,
    refcount: AtomicU32,
}

// SAFETY: the dispatch pointer is a 'static read-only table.
unsafe impl Send for Base {}
// SAFETY: as above; the count is atomic.
unsafe impl Sync for Base {}

impl Base {
    pub fn new(tag: u32) -> Base {
        Base {
            dispatch: DISPATCH.load(Ordering::Acquire),
            tag,
            refcount: AtomicU32::new(1),
        }
    }

    pub fn refcount(&self) -> u32 {
        self.refcount.load(Ordering::Acquire)
    }
}

/// An OpenCL object type. `#[repr(C)]` with `Base` as its first field.
pub trait ClObject: Send + Sync + Sized + 'static {
    const TAG: u32;
    /// The error for an invalid handle of this type (CL_INVALID_CONTEXT, ...).
    const INVALID: cl_int;
    fn base(&self) -> &Base;
}

/// Makes a new handle out of a fresh object (OpenCL refcount 1).
pub fn into_handle<T: ClObject>(obj: Arc<T>) -> *mut c_void {
    Arc::into_raw(obj) as *mut c_void
}

/// The handle of an object that already has one (no count change).
pub fn handle_of<T: ClObject>(obj: &Arc<T>) -> *mut c_void {
    Arc::as_ptr(obj) as *mut c_void
}

fn check<T: ClObject>(h: *const c_void) -> CLResult<*const T> {
    if h.is_null() {
        return Err(T::INVALID);
    }
    let b = h as *const Base;
    // SAFETY: a non-null handle given to an entry point must point at an
    // object of some ICD; every ICD object begins with the dispatch pointer,
    // and ours continue with the tag.
    let ok = unsafe { (*b).dispatch == DISPATCH.load(Ordering::Relaxed) && (*b).tag == T::TAG };
    if !ok {
        return Err(T::INVALID);
    }
    // SAFETY: tag checked; a released object (count 0) is invalid.
    if unsafe { (*b).refcount.load(Ordering::Acquire) } == 0 {
        return Err(T::INVALID);
    }
    Ok(h as *const T)
}

/// Borrows the object behind a handle, checking it.
///
/// # Safety
/// `h` must be null or point at a live OpenCL object.
pub unsafe fn get<'a, T: ClObject>(h: *const c_void) -> CLResult<&'a T> {
    // SAFETY: checked above; the caller keeps the object alive.
    check::<T>(h).map(|p| unsafe { &*p })
}

/// A new `Arc` to the object behind a handle, checking it.
///
/// # Safety
/// As for [`get`].
pub unsafe fn get_arc<T: ClObject>(h: *const c_void) -> CLResult<Arc<T>> {
    let p = check::<T>(h)?;
    // SAFETY: p came from Arc::into_raw and the handle's reference is alive.
    unsafe {
        Arc::increment_strong_count(p);
        Ok(Arc::from_raw(p))
    }
}

/// clRetain*.
///
/// # Safety
/// As for [`get`].
pub unsafe fn retain<T: ClObject>(h: *const c_void) -> CLResult<()> {
    // SAFETY: forwarded contract.
    let o = unsafe { get::<T>(h) }?;
    o.base().refcount.fetch_add(1, Ordering::AcqRel);
    Ok(())
}

/// clRelease*: drops the handle's `Arc` when the count reaches zero.
///
/// # Safety
/// As for [`get`].
pub unsafe fn release<T: ClObject>(h: *const c_void) -> CLResult<()> {
    // SAFETY: forwarded contract.
    let o = unsafe { get::<T>(h) }?;
    let prev = o
        .base()
        .refcount
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |c| c.checked_sub(1))
        .map_err(|_| T::INVALID)?;
    // At process exit the object is kept: freeing it may call into a
    // Vulkan driver already torn down (`super::exit`).
    if prev == 1 && !super::exit::exiting() {
        // SAFETY: the handle's own strong reference, taken by into_handle.
        drop(unsafe { Arc::from_raw(h as *const T) });
    }
    Ok(())
}

/// Four-character tags.
pub const fn tag(s: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*s)
}
