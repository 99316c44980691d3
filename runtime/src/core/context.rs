//! cl_context: a set of devices and the properties it was created with.
//!
//! Layer: platform and devices (above `super::device`), below queues,
//! memory objects and programs.

use std::ffi::c_void;
use std::sync::Arc;

use opencl_sys::*;

use super::device::Device;
use super::object::{tag, Base, ClObject};

pub type ContextNotify =
    unsafe extern "C" fn(*const std::ffi::c_char, *const c_void, usize, *mut c_void);

#[repr(C)]
pub struct Context {
    base: Base,
    pub devices: Vec<Arc<Device>>,
    /// The property list as given (without the terminating 0).
    pub properties: Vec<cl_context_properties>,
    pub notify: Option<(ContextNotify, usize)>,
    pub destructors:
        parking_lot::Mutex<Vec<(unsafe extern "C" fn(cl_context, *mut c_void), usize)>>,
}

impl ClObject for Context {
    const TAG: u32 = tag(b"CTXT");
    const INVALID: cl_int = CL_INVALID_CONTEXT;
    fn base(&self) -> &Base {
        &self.base
    }
}

impl Context {
    pub fn new(
        devices: Vec<Arc<Device>>,
        properties: Vec<cl_context_properties>,
        notify: Option<(ContextNotify, usize)>,
    ) -> Arc<Context> {
        Arc::new(Context {
            base: Base::new(Self::TAG),
            devices,
            properties,
            notify,
            destructors: parking_lot::Mutex::new(Vec::new()),
        })
    }

    pub fn has_device(&self, d: &Device) -> bool {
        self.devices.iter().any(|x| std::ptr::eq(&**x, d))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let me = self as *mut Context as cl_context;
        for (f, data) in self.destructors.get_mut().drain(..).rev() {
            // SAFETY: the application registered this callback for this context.
            unsafe { f(me, data as *mut c_void) };
        }
    }
}
