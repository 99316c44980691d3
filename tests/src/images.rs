//! Images and samplers for the tests: owned handles released on drop, and
//! the calls the image tests make (format lists, blocking reads and writes
//! with pitches). The `try_*` forms return the status for error tests.

use std::ffi::c_void;
use std::ptr;

use opencl_sys::*;

use crate::error::{check, cl_result, ClError};
use crate::objects::{Context, Queue};

/// An image memory object.
pub struct Image {
    raw: cl_mem,
}

impl Image {
    pub fn raw(&self) -> cl_mem {
        self.raw
    }

    /// Takes ownership of a handle (one reference).
    pub fn from_raw(raw: cl_mem) -> Image {
        Image { raw }
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: our reference, released once.
        let status = unsafe { clReleaseMemObject(self.raw) };
        if !std::thread::panicking() {
            check(status, "clReleaseMemObject(image)");
        }
    }
}

/// A sampler object.
pub struct Sampler {
    raw: cl_sampler,
}

impl Sampler {
    pub fn raw(&self) -> cl_sampler {
        self.raw
    }

    pub fn from_raw(raw: cl_sampler) -> Sampler {
        Sampler { raw }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        // SAFETY: our reference, released once.
        let status = unsafe { clReleaseSampler(self.raw) };
        if !std::thread::panicking() {
            check(status, "clReleaseSampler");
        }
    }
}

// SAFETY: handles to objects the implementation synchronizes (see objects.rs).
unsafe impl Send for Image {}
unsafe impl Sync for Image {}
unsafe impl Send for Sampler {}
unsafe impl Sync for Sampler {}

/// A cl_image_format.
pub fn format(order: cl_channel_order, data_type: cl_channel_type) -> cl_image_format {
    cl_image_format {
        image_channel_order: order,
        image_channel_data_type: data_type,
    }
}

/// A cl_image_desc of `image_type` with (width, height, depth, array size)
/// and pitches; `buffer` for 1D image buffers.
pub fn desc(
    image_type: cl_mem_object_type,
    size: [usize; 4],
    pitches: (usize, usize),
    buffer: cl_mem,
) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: size[0],
        image_height: size[1],
        image_depth: size[2],
        image_array_size: size[3],
        image_row_pitch: pitches.0,
        image_slice_pitch: pitches.1,
        num_mip_levels: 0,
        num_samples: 0,
        buffer,
    }
}

impl Context {
    /// clGetSupportedImageFormats for `flags` and `image_type`.
    pub fn image_formats(
        &self,
        flags: cl_mem_flags,
        image_type: cl_mem_object_type,
    ) -> Vec<cl_image_format> {
        let mut n: cl_uint = 0;
        // SAFETY: count only.
        let status = unsafe {
            clGetSupportedImageFormats(self.raw(), flags, image_type, 0, ptr::null_mut(), &mut n)
        };
        check(status, "clGetSupportedImageFormats(count)");
        let mut list = vec![format(0, 0); n as usize];
        if n > 0 {
            // SAFETY: `list` holds n entries.
            let status = unsafe {
                clGetSupportedImageFormats(
                    self.raw(),
                    flags,
                    image_type,
                    n,
                    list.as_mut_ptr(),
                    ptr::null_mut(),
                )
            };
            check(status, "clGetSupportedImageFormats");
        }
        list
    }

    /// clCreateImage with no host memory; the status on failure.
    pub fn try_image(
        &self,
        flags: cl_mem_flags,
        fmt: &cl_image_format,
        d: &cl_image_desc,
    ) -> Result<Image, ClError> {
        // SAFETY: no host memory.
        unsafe { self.try_image_with_host(flags, fmt, d, ptr::null_mut()) }
    }

    /// clCreateImage with host memory; the status on failure.
    ///
    /// # Safety
    /// `host` must cover the image with the descriptor's pitches, and stay
    /// valid as long as the image for CL_MEM_USE_HOST_PTR.
    pub unsafe fn try_image_with_host(
        &self,
        flags: cl_mem_flags,
        fmt: &cl_image_format,
        d: &cl_image_desc,
        host: *mut c_void,
    ) -> Result<Image, ClError> {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context, format and descriptor; host per the caller.
        let raw = unsafe { clCreateImage(self.raw(), flags, fmt, d, host, &mut status) };
        cl_result(status)?;
        Ok(Image { raw })
    }

    /// clCreateImage with no host memory; panics on failure.
    #[track_caller]
    pub fn image(
        &self,
        flags: cl_mem_flags,
        fmt: &cl_image_format,
        image_type: cl_mem_object_type,
        size: [usize; 4],
    ) -> Image {
        let d = desc(image_type, size, (0, 0), ptr::null_mut());
        self.try_image(flags, fmt, &d)
            .unwrap_or_else(|e| panic!("clCreateImage({size:?}) failed: {e}"))
    }

    /// clCreateSampler; the status on failure.
    pub fn try_sampler(
        &self,
        normalized: bool,
        addressing: cl_addressing_mode,
        filter: cl_filter_mode,
    ) -> Result<Sampler, ClError> {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context.
        #[allow(deprecated)] // the 1.x entry point is what the tests use
        let raw = unsafe {
            clCreateSampler(
                self.raw(),
                normalized as cl_bool,
                addressing,
                filter,
                &mut status,
            )
        };
        cl_result(status)?;
        Ok(Sampler { raw })
    }
}

impl Queue {
    /// Blocking clEnqueueReadImage into `out`; the status on failure.
    pub fn try_read_image(
        &self,
        image: &Image,
        origin: [usize; 3],
        region: [usize; 3],
        pitches: (usize, usize),
        out: &mut [u8],
    ) -> Result<(), ClError> {
        // SAFETY: blocking read into `out`, which the caller sized for the
        // region with these pitches.
        cl_result(unsafe {
            clEnqueueReadImage(
                self.raw(),
                image.raw,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                pitches.0,
                pitches.1,
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        })
    }

    /// Blocking clEnqueueWriteImage from `data`; the status on failure.
    pub fn try_write_image(
        &self,
        image: &Image,
        origin: [usize; 3],
        region: [usize; 3],
        pitches: (usize, usize),
        data: &[u8],
    ) -> Result<(), ClError> {
        // SAFETY: blocking write from `data`, sized by the caller.
        cl_result(unsafe {
            clEnqueueWriteImage(
                self.raw(),
                image.raw,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                pitches.0,
                pitches.1,
                data.as_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        })
    }

    /// Blocking read of a region, tightly packed; panics on failure.
    #[track_caller]
    pub fn read_image(
        &self,
        image: &Image,
        origin: [usize; 3],
        region: [usize; 3],
        element: usize,
    ) -> Vec<u8> {
        let mut out = vec![0u8; region[0] * region[1] * region[2] * element];
        if let Err(e) = self.try_read_image(image, origin, region, (0, 0), &mut out) {
            panic!("clEnqueueReadImage({origin:?}, {region:?}) failed: {e}");
        }
        out
    }

    /// Blocking write of a tightly packed region; panics on failure.
    #[track_caller]
    pub fn write_image(&self, image: &Image, origin: [usize; 3], region: [usize; 3], data: &[u8]) {
        if let Err(e) = self.try_write_image(image, origin, region, (0, 0), data) {
            panic!("clEnqueueWriteImage({origin:?}, {region:?}) failed: {e}");
        }
    }
}

impl crate::objects::KernelArg for Image {
    fn arg_size(&self) -> usize {
        size_of::<cl_mem>()
    }
    fn arg_value(&self) -> *const c_void {
        (&self.raw as *const cl_mem).cast()
    }
}

impl crate::objects::KernelArg for Sampler {
    fn arg_size(&self) -> usize {
        size_of::<cl_sampler>()
    }
    fn arg_value(&self) -> *const c_void {
        (&self.raw as *const cl_sampler).cast()
    }
}
