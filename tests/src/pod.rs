//! Plain-old-data: values that can be copied to and from OpenCL byte for
//! byte (buffer contents, kernel arguments, info query results).

use opencl_sys::cl_name_version;

/// A type with no padding-dependent invariants, no pointers and for which
/// every bit pattern (in particular all zeroes) is a valid value.
///
/// # Safety
/// Implement only for types that satisfy the above; the harness reads
/// device bytes into them and zero-initialises them.
pub unsafe trait Pod: Copy + 'static {
    /// The all-zero value.
    fn zeroed() -> Self {
        // SAFETY: every bit pattern, all zeroes included, is a valid `Self`
        // (the trait's contract).
        unsafe { std::mem::zeroed() }
    }
}

macro_rules! pod {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive number: any bit pattern is a valid value.
        unsafe impl Pod for $t {}
    )* };
}
pod!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, usize, isize);

// SAFETY: an array of Pod values is Pod (no padding between elements).
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

// SAFETY: OpenCL handles (cl_platform_id, cl_device_id, ...) as query
// results: any bit pattern is a valid raw pointer, and the harness only
// compares them or passes them back to OpenCL.
unsafe impl Pod for *mut std::ffi::c_void {}

// SAFETY: #[repr(C)] { cl_version (u32), [u8; 64] }: integers only.
unsafe impl Pod for cl_name_version {}

/// A `Vec` of `len` zeroed values.
pub fn zeroed_vec<T: Pod>(len: usize) -> Vec<T> {
    vec![T::zeroed(); len]
}

/// The bytes of `values`, writable.
pub fn bytes_mut<T: Pod>(values: &mut [T]) -> &mut [u8] {
    let len = std::mem::size_of_val(values);
    // SAFETY: same memory and lifetime; u8 has no alignment requirement and
    // any bytes written leave valid `T`s (Pod).
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), len) }
}

// SAFETY: #[repr(C)] { u32, u32 }: integers only.
unsafe impl Pod for opencl_sys::cl_image_format {}
