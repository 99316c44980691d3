//! The one writer behind every clGet*Info: the param_value_size /
//! param_value / param_value_size_ret protocol, and the byte encodings of
//! the value kinds (scalars, NUL-terminated strings, arrays, name-version
//! lists).

use std::ffi::c_void;

use ferrocl_runtime::CLResult;
use opencl_sys::*;

/// A value's bytes, as clGet*Info returns them.
pub struct Info(pub Vec<u8>);

impl Info {
    pub fn raw<T: Copy>(v: &[T]) -> Info {
        let n = std::mem::size_of_val(v);
        let mut b = vec![0u8; n];
        // SAFETY: T is Copy plain data; we copy exactly its bytes.
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, b.as_mut_ptr(), n) };
        Info(b)
    }
    pub fn u32(v: u32) -> Info {
        Info::raw(&[v])
    }
    pub fn i32(v: i32) -> Info {
        Info::raw(&[v])
    }
    pub fn u64(v: u64) -> Info {
        Info::raw(&[v])
    }
    pub fn usize(v: usize) -> Info {
        Info::raw(&[v])
    }
    pub fn bool(v: bool) -> Info {
        Info::u32(if v { CL_TRUE } else { CL_FALSE })
    }
    pub fn ptr<T>(p: *mut T) -> Info {
        Info::raw(&[p as usize])
    }
    pub fn str(s: &str) -> Info {
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        Info(b)
    }
    /// cl_name_version array.
    pub fn name_versions(list: &[(&str, u32)]) -> Info {
        let mut b = Vec::with_capacity(list.len() * 68);
        for (name, ver) in list {
            b.extend_from_slice(&ver.to_ne_bytes());
            let mut n = [0u8; CL_NAME_VERSION_MAX_NAME_SIZE];
            let len = name.len().min(n.len() - 1);
            n[..len].copy_from_slice(&name.as_bytes()[..len]);
            b.extend_from_slice(&n);
        }
        Info(b)
    }
}

/// "CL_INVALID_VALUE if [...] size in bytes specified by param_value_size is
/// < size of return type [...] and param_value is not a NULL value."
///
/// # Safety
/// `value` must be NULL or valid for `size` bytes; `size_ret` NULL or valid.
pub unsafe fn write(
    info: CLResult<Info>,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> CLResult<()> {
    let Info(bytes) = info?;
    if !value.is_null() {
        if size < bytes.len() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: caller contract; size checked.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), value as *mut u8, bytes.len()) };
    }
    if !size_ret.is_null() {
        // SAFETY: caller contract.
        unsafe { *size_ret = bytes.len() };
    }
    Ok(())
}
