//! Image entry points: format queries, creation, clGetImageInfo and the
//! image commands (read, write, copy, fill, copies to and from buffers,
//! map). Argument checks only; the work is in `ferrocl_runtime::core::image` and
//! `ferrocl_runtime::core::image_transfer`.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::event::Event;
use ferrocl_runtime::core::external_memory as external_memory_core;
use ferrocl_runtime::core::image::HostData;
use ferrocl_runtime::core::image_format;
use ferrocl_runtime::core::image_geometry::{check_region, regions_overlap, ImageDesc, Origin};
use ferrocl_runtime::core::image_support::ImageUse;
use ferrocl_runtime::core::image_transfer;
use ferrocl_runtime::core::memory::{Mapping, Mem};
use ferrocl_runtime::core::object::{get, handle_of, into_handle};
use ferrocl_runtime::core::queue::Queue;
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use super::enqueue::{finish_blocking, read3};
use super::external_memory::{self, ExternalProps};
use super::mem::{check_flags, mem_arc};
use super::queue::queue_arc;
use crate::entry::{code, object, return_event, wait_list_in};
use crate::info::{write, Info};

/// "CL_INVALID_VALUE if [...] image_type is not valid" and the image
/// type of a descriptor.
fn is_image_type(t: cl_mem_object_type) -> bool {
    image_support_types().contains(&t)
}

fn image_support_types() -> [cl_mem_object_type; 6] {
    ferrocl_runtime::core::image_support::IMAGE_TYPES
}

pub unsafe extern "C" fn clGetSupportedImageFormats(
    c: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    n: cl_uint,
    formats: *mut cl_image_format,
    num: *mut cl_uint,
) -> cl_int {
    code(|| {
        let ctx = ctx_arc(c)?;
        // "CL_INVALID_VALUE if flags or image_type are not valid, or if
        // num_entries is 0 and image_formats is not NULL."
        check_flags(flags)?;
        if !is_image_type(image_type) || (n == 0 && !formats.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        // "a union of image formats supported by all devices in the context"
        let use_ = ImageUse::from_flags(flags);
        let mut list: Vec<cl_image_format> = Vec::new();
        for d in &ctx.devices {
            for f in d.supported_image_formats(image_type, use_) {
                if !list.iter().any(|g| {
                    g.image_channel_order == f.image_channel_order
                        && g.image_channel_data_type == f.image_channel_data_type
                }) {
                    list.push(f);
                }
            }
        }
        if !formats.is_null() {
            for (i, f) in list.iter().take(n as usize).enumerate() {
                // SAFETY: the application provided n entries.
                unsafe { *formats.add(i) = *f };
            }
        }
        if !num.is_null() {
            // SAFETY: valid pointer from the application.
            unsafe { *num = list.len() as cl_uint };
        }
        Ok(())
    })
}

/// The checks and creation shared by every image creation entry point.
///
/// # Safety
/// `format` and `desc` must be NULL or valid; `host_ptr` must cover the
/// image with its pitches when given.
unsafe fn create_image(
    c: cl_context,
    props: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    // clCreateImage2D/3D report pitch errors as CL_INVALID_IMAGE_SIZE.
    pitch_error: cl_int,
) -> CLResult<cl_mem> {
    // SAFETY: forwarded.
    unsafe { create_image_with(c, props, None, flags, format, desc, host_ptr, pitch_error) }
}

/// cl_khr_mipmap_image's rules for a mipmapped image (`num_mip_levels` >
/// 1): "Mip-mapped images cannot be created for CL_MEM_OBJECT_IMAGE1D_BUFFER
/// images [...] or multi-sampled (i.e. msaa) images" (nor from a buffer),
/// and at most one level per halving of the largest dimension
/// (CL_INVALID_IMAGE_DESCRIPTOR). The extension's text also names depth
/// images, but its own built-ins read mipmapped `image2d_depth_t` and the
/// CTS (test_cl_read_write_images test_mipmaps) creates them: allowed
/// (ferrocl's depth images are colour images). "CL_MEM_USE_HOST_PTR or
/// CL_MEM_COPY_HOST_PTR cannot be specified [...] The host_ptr argument to
/// clCreateImage must be a NULL value" (CL_INVALID_HOST_PTR, the error of
/// a host pointer the image cannot take).
fn check_mipmapped(d: &cl_image_desc, flags: cl_mem_flags, host_ptr: *mut c_void) -> CLResult<()> {
    let ty = d.image_type;
    if ty == CL_MEM_OBJECT_IMAGE1D_BUFFER || !d.buffer.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let largest = match ty {
        CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => d.image_width.max(d.image_height),
        CL_MEM_OBJECT_IMAGE3D => d.image_width.max(d.image_height).max(d.image_depth),
        _ => d.image_width,
    };
    if d.num_mip_levels > largest.ilog2() + 1 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if !host_ptr.is_null() || flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0 {
        return Err(CL_INVALID_HOST_PTR);
    }
    Ok(())
}

/// [`create_image`], over imported memory where `external` gives a handle
/// (cl_khr_external_memory, `super::external_memory`).
#[allow(clippy::too_many_arguments)]
unsafe fn create_image_with(
    c: cl_context,
    props: Vec<cl_mem_properties>,
    external: Option<&ExternalProps>,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    pitch_error: cl_int,
) -> CLResult<cl_mem> {
    let ctx = ctx_arc(c)?;
    check_flags(flags)?;
    let import = match external {
        Some(e) => Some(external_memory::check_import(&ctx, e, flags, host_ptr)?),
        None => None,
    };
    // "CL_INVALID_OPERATION if there are no devices in context that
    // support images."
    if !ctx.devices.iter().any(|d| d.image_support()) {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in
    // image_format are not valid or if image_format is NULL."
    if format.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // SAFETY: non-null, from the application.
    let format = unsafe { *format };
    let element =
        image_format::element_size(format.image_channel_order, format.image_channel_data_type)
            .ok_or(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
    // "CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are
    // not valid or if image_desc is NULL."
    if desc.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // SAFETY: non-null, from the application.
    let d = unsafe { *desc };
    let ty = d.image_type;
    if !is_image_type(ty) || d.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // num_mip_levels: 0 without cl_khr_mipmap_image; with it 0 or 1 (one
    // level) or more for a mipmapped image (checked below).
    if d.num_mip_levels != 0 && !ctx.devices.iter().any(|dev| dev.mipmap_image()) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // mem_object: a buffer for a 1D image buffer, NULL or a buffer
    // (cl_khr_image2d_from_buffer) for a 2D image; NULL otherwise (images
    // from images are not offered).
    let buffer = if ty == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        if d.buffer.is_null() {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        let b = mem_arc(d.buffer).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
        if !b.is_buffer() || !Arc::ptr_eq(&b.context, &ctx) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        Some(b)
    } else if d.buffer.is_null() {
        None
    } else {
        let Ok(b) = mem_arc(d.buffer) else {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        };
        // OpenCL 3.0: "CL_INVALID_OPERATION if [...] the image is a 2D
        // image created from a buffer [or from another image] and no
        // device in context supports it" (images from images are not
        // offered).
        if ty != CL_MEM_OBJECT_IMAGE2D {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        if !b.is_buffer() || !ctx.devices.iter().any(|d| d.image2d_from_buffer()) {
            return Err(CL_INVALID_OPERATION);
        }
        if !Arc::ptr_eq(&b.context, &ctx) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        Some(b)
    };
    // "CL_INVALID_IMAGE_SIZE if the image dimensions specified in
    // image_desc are not valid or exceed the maximum image dimensions [...]
    // for all devices in context."
    let max = |f: &dyn Fn(&ferrocl_runtime::core::device::Device) -> usize| {
        ctx.devices.iter().map(|d| f(d)).max().unwrap_or(0)
    };
    let w2 = max(&|d| d.image2d_max_width());
    let h2 = max(&|d| d.image2d_max_height());
    let s3 = max(&|d| d.image3d_max_size());
    let arr = max(&|d| d.image_max_array_size());
    let buf = max(&|d| d.image_max_buffer_size());
    let within = |v: usize, m: usize| (1..=m).contains(&v);
    let size_ok = match ty {
        CL_MEM_OBJECT_IMAGE1D => within(d.image_width, w2),
        CL_MEM_OBJECT_IMAGE1D_BUFFER => within(d.image_width, buf),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => within(d.image_width, w2) && within(d.image_array_size, arr),
        CL_MEM_OBJECT_IMAGE2D => within(d.image_width, w2) && within(d.image_height, h2),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => {
            within(d.image_width, w2)
                && within(d.image_height, h2)
                && within(d.image_array_size, arr)
        }
        _ => within(d.image_width, s3) && within(d.image_height, s3) && within(d.image_depth, s3),
    };
    if !size_ok {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    if d.num_mip_levels > 1 {
        check_mipmapped(&d, flags, host_ptr)?;
    }
    let (height, depth, array_size) = match ty {
        CL_MEM_OBJECT_IMAGE2D => (d.image_height, 0, 0),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (d.image_height, 0, d.image_array_size),
        CL_MEM_OBJECT_IMAGE3D => (d.image_height, d.image_depth, 0),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (0, 0, d.image_array_size),
        _ => (0, 0, 0),
    };
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
    // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags."
    // An image made from a buffer takes no host pointer (its host-pointer
    // flags are refused below).
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if buffer.is_some() {
        if !host_ptr.is_null() {
            return Err(CL_INVALID_HOST_PTR);
        }
    } else if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    // Pitches: "must be 0 if host_ptr is NULL"; a non-zero row pitch is at
    // least width x element size and a multiple of the element size; a
    // non-zero slice pitch is at least row pitch x height (row pitch for
    // 1D arrays) and a multiple of the row pitch.
    let tight_row = d.image_width * element;
    let arrays_or_3d = matches!(
        ty,
        CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
    );
    // (A 1D image buffer takes a row pitch without host memory, as images
    // made from buffers do: its memory is the buffer's; its one row makes
    // the value harmless. The CTS passes one.)
    if host_ptr.is_null()
        && buffer.is_none()
        && (d.image_row_pitch != 0 || (arrays_or_3d && d.image_slice_pitch != 0))
    {
        return Err(pitch_error);
    }
    if d.image_row_pitch != 0 && (d.image_row_pitch < tight_row || d.image_row_pitch % element != 0)
    {
        return Err(pitch_error);
    }
    let row_pitch = if d.image_row_pitch == 0 {
        tight_row
    } else {
        d.image_row_pitch
    };
    let min_slice = match ty {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => row_pitch,
        CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => row_pitch * d.image_height,
        _ => 0,
    };
    let slice_pitch = if !arrays_or_3d {
        0
    } else if d.image_slice_pitch == 0 {
        min_slice
    } else if d.image_slice_pitch < min_slice || d.image_slice_pitch % row_pitch != 0 {
        return Err(pitch_error);
    } else {
        d.image_slice_pitch
    };
    // The flags of an image made from a buffer: access and host access
    // inherited when not given, host-pointer flags never given.
    let flags = match &buffer {
        Some(b) => {
            // "CL_INVALID_VALUE if an image is being created from another
            // memory object (buffer or image) under one of the following
            // circumstances: 1) mem_object was created with
            // CL_MEM_WRITE_ONLY and flags specifies CL_MEM_READ_WRITE or
            // CL_MEM_READ_ONLY, 2) mem_object was created with
            // CL_MEM_READ_ONLY and flags specifies CL_MEM_READ_WRITE or
            // CL_MEM_WRITE_ONLY, 3) flags specifies CL_MEM_USE_HOST_PTR or
            // CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR", and the
            // host-access rules.
            let pf = b.flags;
            if (pf & CL_MEM_WRITE_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
                || (pf & CL_MEM_READ_ONLY != 0
                    && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
                || flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0
                || (pf & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0)
                || (pf & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0)
                || (pf & CL_MEM_HOST_NO_ACCESS != 0
                    && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0)
            {
                return Err(CL_INVALID_VALUE);
            }
            let access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
            let host = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
            let mut f = flags;
            if f & access == 0 {
                f |= pf & access;
            }
            if f & host == 0 {
                f |= pf & host;
            }
            f | (pf & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))
        }
        None if flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) == 0 => {
            flags | CL_MEM_READ_WRITE
        }
        None => flags,
    };
    // "CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context
    // that support image_format" (for the kernel access the flags ask;
    // CL_MEM_KERNEL_READ_AND_WRITE "is only used by
    // clGetSupportedImageFormats" and asks nothing of an image).
    let use_ = ImageUse::from_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE);
    let from_buffer = buffer.is_some() && ty == CL_MEM_OBJECT_IMAGE2D;
    if !from_buffer
        && !ctx
            .devices
            .iter()
            .any(|dev| dev.supports_image_format(&format, ty, use_))
    {
        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    // Imported memory is an image's own: not one made from a buffer.
    if import.is_some() && buffer.is_some() {
        return Err(CL_INVALID_OPERATION);
    }
    if let (Some(b), CL_MEM_OBJECT_IMAGE2D) = (&buffer, ty) {
        return image2d_from_buffer(&ctx, b, flags, format, &d, row_pitch, element, props);
    }
    if let Some(b) = buffer {
        // "For a 1D image buffer created from a buffer object, the
        // image_width x size of element in bytes must be <= size of the
        // buffer object."
        if tight_row > b.size {
            return Err(CL_INVALID_IMAGE_SIZE);
        }
        return Ok(into_handle(Mem::new_image_buffer(
            &b,
            flags,
            format,
            d.image_width,
            row_pitch,
            props,
        )?));
    }
    let desc = ImageDesc {
        image_type: ty,
        width: d.image_width,
        height,
        depth,
        array_size,
        row_pitch,
        slice_pitch,
        num_mip_levels: d.num_mip_levels as usize,
    };
    if let Some((handle, fd)) = import {
        let m = external_memory_core::import_image(ctx, flags, format, desc, handle, fd, props)?;
        return Ok(into_handle(m));
    }
    let init = wants_ptr.then_some(HostData(host_ptr as *const u8));
    let keep_ptr = if flags & CL_MEM_USE_HOST_PTR != 0 {
        host_ptr as usize
    } else {
        0
    };
    // SAFETY: the application's host_ptr covers the image with its pitches.
    let m = unsafe { Mem::new_image(ctx, flags, format, desc, keep_ptr, init, props) }?;
    Ok(into_handle(m))
}

/// clCreateImage of a 2D image from buffer `b` (cl_khr_image2d_from_buffer)
/// once the common checks passed: `row_pitch` is the given or computed
/// pitch, a multiple of `element`.
#[allow(clippy::too_many_arguments)]
fn image2d_from_buffer(
    ctx: &Arc<ferrocl_runtime::core::context::Context>,
    b: &Arc<Mem>,
    flags: cl_mem_flags,
    format: cl_image_format,
    d: &cl_image_desc,
    row_pitch: usize,
    element: usize,
    props: Vec<cl_mem_properties>,
) -> CLResult<cl_mem> {
    let devices = || ctx.devices.iter().filter(|d| d.image2d_from_buffer());
    let pitch_align = devices()
        .map(|d| d.image_pitch_alignment())
        .max()
        .unwrap_or(1) as usize;
    let base_align = devices()
        .map(|d| d.image_base_address_alignment())
        .max()
        .unwrap_or(1) as usize;
    // "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D image is created from a
    // buffer and the row pitch and base address alignment does not follow
    // the rules described for creating a 2D image from a buffer": "the
    // pitch specified (or computed if pitch specified is 0) must be a
    // multiple of the maximum of the CL_DEVICE_IMAGE_PITCH_ALIGNMENT value
    // for all devices in the context [...] that support images", and the
    // buffer's memory (a USE_HOST_PTR buffer's host_ptr, a sub-buffer's
    // origin) aligned to the maximum CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT
    // (both in pixels).
    let base_bytes = base_align * element;
    if !row_pitch.is_multiple_of(pitch_align * element)
        || !b.offset.is_multiple_of(base_bytes)
        || (b.flags & CL_MEM_USE_HOST_PTR != 0 && !b.host_ptr.is_multiple_of(base_bytes))
    {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // "For a 2D image created from a buffer object, the image_row_pitch x
    // image_height must be less than or equal to the size of the buffer
    // object specified by mem_object."
    let bytes = row_pitch
        .checked_mul(d.image_height)
        .ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    if bytes > b.size {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // The texel-buffer view's texels within every device's limit
    // (CL_INVALID_IMAGE_SIZE: the image exceeds what the devices take).
    let texels = bytes / element;
    if !devices().any(|dev| texels <= dev.image_max_buffer_size()) {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    // "CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context
    // that support image_format" (as texel buffers, for the kernel access
    // the flags ask).
    let use_ = ImageUse::from_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE);
    if !devices().any(|dev| dev.supports_image2d_from_buffer_format(&format, use_)) {
        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    Ok(into_handle(Mem::new_image2d_from_buffer(
        b,
        flags,
        format,
        d.image_width,
        d.image_height,
        row_pitch,
        props,
    )?))
}

/// The property list of clCreateImageWithProperties as given (empty for
/// NULL): OpenCL 3.0 core defines no memory properties; those of
/// cl_khr_external_memory are read into the returned [`ExternalProps`].
///
/// # Safety
/// `props` must be NULL or a 0-terminated list.
pub(crate) unsafe fn mem_properties(
    props: *const cl_mem_properties,
) -> CLResult<(Vec<cl_mem_properties>, ExternalProps)> {
    let mut external = ExternalProps::default();
    if props.is_null() {
        return Ok((Vec::new(), external));
    }
    let mut list = Vec::new();
    let mut i = 0;
    // SAFETY: 0-terminated list from the application.
    while unsafe { *props.add(i) } != 0 {
        // SAFETY: `i` is a name inside the list.
        match unsafe { external_memory::read_property(props.add(i), &mut external) }? {
            Some(n) => {
                // SAFETY: the property's n entries were just read.
                list.extend_from_slice(unsafe { std::slice::from_raw_parts(props.add(i), n) });
                i += n;
            }
            // "CL_INVALID_PROPERTY if a property name in properties is not
            // a supported property name"
            None => return Err(CL_INVALID_PROPERTY),
        }
    }
    list.push(0);
    Ok((list, external))
}

pub unsafe extern "C" fn clCreateImage(
    c: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // SAFETY: pointers from the application.
        unsafe {
            create_image(
                c,
                Vec::new(),
                flags,
                format,
                desc,
                host_ptr,
                CL_INVALID_IMAGE_DESCRIPTOR,
            )
        }
    })
}

pub unsafe extern "C" fn clCreateImageWithProperties(
    c: cl_context,
    props: *const cl_mem_properties,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        ctx_arc(c)?;
        // SAFETY: pointers from the application.
        unsafe {
            let (list, external) = mem_properties(props)?;
            if external.handle.is_some() || external.devices.is_some() {
                return create_image_with(
                    c,
                    list,
                    Some(&external),
                    flags,
                    format,
                    desc,
                    host_ptr,
                    CL_INVALID_IMAGE_DESCRIPTOR,
                );
            }
            create_image(
                c,
                list,
                flags,
                format,
                desc,
                host_ptr,
                CL_INVALID_IMAGE_DESCRIPTOR,
            )
        }
    })
}

fn desc_of(
    ty: cl_mem_object_type,
    w: usize,
    h: usize,
    d: usize,
    row_pitch: usize,
    slice_pitch: usize,
) -> cl_image_desc {
    cl_image_desc {
        image_type: ty,
        image_width: w,
        image_height: h,
        image_depth: d,
        image_array_size: 0,
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCreateImage2D(
    c: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    w: usize,
    h: usize,
    row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        let d = desc_of(CL_MEM_OBJECT_IMAGE2D, w, h, 0, row_pitch, 0);
        // SAFETY: pointers from the application.
        unsafe {
            create_image(
                c,
                Vec::new(),
                flags,
                format,
                &d,
                host_ptr,
                CL_INVALID_IMAGE_SIZE,
            )
        }
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCreateImage3D(
    c: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    w: usize,
    h: usize,
    depth: usize,
    row_pitch: usize,
    slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // "CL_INVALID_IMAGE_SIZE if [...] image_depth <= 1"
        if depth <= 1 {
            ctx_arc(c)?;
            return Err(CL_INVALID_IMAGE_SIZE);
        }
        let d = desc_of(CL_MEM_OBJECT_IMAGE3D, w, h, depth, row_pitch, slice_pitch);
        // SAFETY: pointers from the application.
        unsafe {
            create_image(
                c,
                Vec::new(),
                flags,
                format,
                &d,
                host_ptr,
                CL_INVALID_IMAGE_SIZE,
            )
        }
    })
}

pub unsafe extern "C" fn clGetImageInfo(
    m: cl_mem,
    param: cl_image_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let mem = unsafe { get::<Mem>(m) }?;
        // "CL_INVALID_MEM_OBJECT if image is a not a valid image object."
        let img = mem.image()?;
        let d = &img.desc;
        let info = match param {
            CL_IMAGE_FORMAT => Ok(Info::raw(&[img.format])),
            CL_IMAGE_ELEMENT_SIZE => Ok(Info::usize(img.element_size())),
            CL_IMAGE_ROW_PITCH => Ok(Info::usize(d.row_pitch)),
            CL_IMAGE_SLICE_PITCH => Ok(Info::usize(d.slice_pitch)),
            CL_IMAGE_WIDTH => Ok(Info::usize(d.width)),
            CL_IMAGE_HEIGHT => Ok(Info::usize(d.height)),
            CL_IMAGE_DEPTH => Ok(Info::usize(d.depth)),
            CL_IMAGE_ARRAY_SIZE => Ok(Info::usize(d.array_size)),
            CL_IMAGE_BUFFER => Ok(Info::ptr(
                mem.parent
                    .as_ref()
                    .map(handle_of)
                    .unwrap_or(std::ptr::null_mut()),
            )),
            CL_IMAGE_NUM_MIP_LEVELS => Ok(Info::u32(d.num_mip_levels as u32)),
            CL_IMAGE_NUM_SAMPLES => Ok(Info::u32(0)),
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

// ---- Commands.

/// The checked queue, image and wait list of an image command.
type Prologue = (Arc<Queue>, Arc<Mem>, Vec<Arc<Event>>);

/// Checks an image argument against the queue: "CL_INVALID_MEM_OBJECT if
/// image is not a valid image object", "CL_INVALID_CONTEXT if the context
/// associated with command_queue and image are not the same",
/// "CL_INVALID_OPERATION if the device associated with command_queue does
/// not support images".
fn image_of(queue: &Queue, m: cl_mem) -> CLResult<Arc<Mem>> {
    let mem = mem_arc(m)?;
    mem.image()?;
    if !Arc::ptr_eq(&queue.context, &mem.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    if !queue.device.image_support() {
        return Err(CL_INVALID_OPERATION);
    }
    mem.ensure_on(queue.device_index)?;
    Ok(mem)
}

/// A buffer argument of an image↔buffer copy.
fn buffer_of(queue: &Queue, m: cl_mem) -> CLResult<Arc<Mem>> {
    let mem = mem_arc(m)?;
    // "CL_INVALID_MEM_OBJECT if [...] buffer is not a valid buffer object"
    if !mem.is_buffer() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    if !Arc::ptr_eq(&queue.context, &mem.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    mem.ensure_on(queue.device_index)?;
    Ok(mem)
}

/// The wait list, checked: "CL_INVALID_CONTEXT if the context associated
/// with command_queue and events in event_wait_list are not the same".
unsafe fn waits_of(queue: &Queue, n: cl_uint, list: *const cl_event) -> CLResult<Vec<Arc<Event>>> {
    // "CL_INVALID_CONTEXT if context associated with command_queue and
    // events in event_wait_list are not the same."
    // SAFETY: caller contract.
    let waits = unsafe { wait_list_in(n, list, &queue.context) }?;
    Ok(waits)
}

unsafe fn prologue(
    q: cl_command_queue,
    m: cl_mem,
    n: cl_uint,
    list: *const cl_event,
) -> CLResult<Prologue> {
    let queue = queue_arc(q)?;
    let mem = image_of(&queue, m)?;
    // SAFETY: caller contract.
    let waits = unsafe { waits_of(&queue, n, list) }?;
    Ok((queue, mem, waits))
}

/// The host pitches of a read or write: "row_pitch [...] must be greater
/// than or equal to the element size in bytes x width; if 0, calculated
/// as element size x width"; "slice_pitch [...] must be 0 if image is a
/// 1D or 2D image. Otherwise this value must be greater than or equal to
/// row_pitch x height; if 0, row_pitch x height" (row_pitch for the 1D
/// images of a 1D image array).
fn host_pitches(
    mem: &Mem,
    region: &[usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> CLResult<(usize, usize)> {
    let row = region[0] * mem.image()?.element_size();
    if row_pitch != 0 && row_pitch < row {
        return Err(CL_INVALID_VALUE);
    }
    let rp = if row_pitch == 0 { row } else { row_pitch };
    let min_slice = match mem.mem_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => rp,
        CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => rp * region[1],
        _ => {
            if slice_pitch != 0 {
                return Err(CL_INVALID_VALUE);
            }
            return Ok((rp, 0));
        }
    };
    if slice_pitch != 0 && slice_pitch < min_slice {
        return Err(CL_INVALID_VALUE);
    }
    Ok((
        rp,
        if slice_pitch == 0 {
            min_slice
        } else {
            slice_pitch
        },
    ))
}

/// An image origin from the application: three entries, and for a
/// mipmapped image (cl_khr_mipmap_image) the mip level in the coordinate
/// after the image's last one ("If image argument is a 2D image array or
/// a 3D image, origin[3] specifies the mip-level to use"); "If the mip
/// level specified is not a valid value, these functions return the error
/// CL_INVALID_MIP_LEVEL."
///
/// # Safety
/// `origin` must be NULL or point at 3 entries, 4 for a mipmapped 2D image
/// array or 3D image.
unsafe fn read_origin(mem: &Mem, origin: *const usize) -> CLResult<Origin> {
    // SAFETY: caller contract ("CL_INVALID_VALUE if origin is NULL").
    let mut pos = unsafe { read3(origin) }?;
    let desc = &mem.image()?.desc;
    if desc.num_mip_levels <= 1 {
        return Ok(pos.into());
    }
    let k = ImageDesc::level_coordinate(mem.mem_type);
    let level = if k < 3 {
        std::mem::take(&mut pos[k])
    } else {
        // SAFETY: caller contract (a fourth entry).
        unsafe { *origin.add(3) }
    };
    if level >= desc.levels() as usize {
        return Err(CL_INVALID_MIP_LEVEL);
    }
    Ok(Origin {
        pos,
        level: level as u32,
    })
}

/// Origin and region, read and checked against the image (its mip level).
///
/// # Safety
/// As for [`read_origin`]; `region` NULL or at 3 entries.
unsafe fn origin_region(
    mem: &Mem,
    origin: *const usize,
    region: *const usize,
) -> CLResult<(Origin, [usize; 3])> {
    // SAFETY: caller contract ("CL_INVALID_VALUE if origin or region is
    // NULL").
    let (o, r) = unsafe { (read_origin(mem, origin)?, read3(region)?) };
    check_region(&mem.image()?.desc, &o, &r)?;
    Ok((o, r))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueReadImage(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
        // SAFETY: as above.
        let (o, r) = unsafe { origin_region(&mem, origin, region) }?;
        let pitches = host_pitches(&mem, &r, row_pitch, slice_pitch)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if clEnqueueReadImage is called on image
        // which has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS."
        if mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
            return Err(CL_INVALID_OPERATION);
        }
        let e = image_transfer::enqueue_read_image(
            &queue,
            &mem,
            o,
            r,
            pitches,
            ptr as *mut u8,
            CL_COMMAND_READ_IMAGE,
            waits,
        )?;
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueWriteImage(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *const c_void,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
        // SAFETY: as above.
        let (o, r) = unsafe { origin_region(&mem, origin, region) }?;
        let pitches = host_pitches(&mem, &r, row_pitch, slice_pitch)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if clEnqueueWriteImage is called on image
        // which has been created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS."
        if mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
            return Err(CL_INVALID_OPERATION);
        }
        // SAFETY: the application's region is readable with these pitches.
        let e = unsafe {
            image_transfer::enqueue_write_image(
                &queue,
                &mem,
                o,
                r,
                pitches,
                ptr as *const u8,
                CL_COMMAND_WRITE_IMAGE,
                waits,
            )
        }?;
        finish_blocking(blocking, &e)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

fn same_format(a: &Mem, b: &Mem) -> CLResult<bool> {
    let (fa, fb) = (a.image()?.format, b.image()?.format);
    Ok(fa.image_channel_order == fb.image_channel_order
        && fa.image_channel_data_type == fb.image_channel_data_type)
}

/// An image copy's checked source, destination, their origins and the region.
type CopyArgs = (Arc<Mem>, Arc<Mem>, Origin, Origin, [usize; 3]);
/// An image↔buffer copy's checked source, destination, image origin and region.
type ImageBufferArgs = (Arc<Mem>, Arc<Mem>, Origin, [usize; 3]);
/// An image fill's checked image, texel (in the image's format), origin and region.
type FillArgs = (Arc<Mem>, Vec<u8>, Origin, [usize; 3]);

/// clEnqueueCopyImage's checks of its memory objects and regions on
/// `queue`'s device (also clCommandCopyImageKHR's).
///
/// # Safety
/// The origins and region must be NULL or point at 3 entries.
pub(crate) unsafe fn copy_image_args(
    queue: &Queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
) -> CLResult<CopyArgs> {
    let s = image_of(queue, src)?;
    let d = image_of(queue, dst)?;
    // "CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use
    // the same image format."
    if !same_format(&s, &d)? {
        return Err(CL_IMAGE_FORMAT_MISMATCH);
    }
    // SAFETY: three entries each per the spec (four with a mip level).
    let (so, dor) = unsafe { (read_origin(&s, src_origin)?, read_origin(&d, dst_origin)?) };
    // SAFETY: as above.
    let r = unsafe { read3(region) }?;
    check_region(&s.image()?.desc, &so, &r)?;
    check_region(&d.image()?.desc, &dor, &r)?;
    // "CL_MEM_COPY_OVERLAP if src_image and dst_image are the same
    // image object and the source and destination regions overlap" (in
    // one mip level).
    if Arc::ptr_eq(&s, &d) && so.level == dor.level && regions_overlap(&so.pos, &dor.pos, &r) {
        return Err(CL_MEM_COPY_OVERLAP);
    }
    Ok((s, d, so, dor, r))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueCopyImage(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        let queue = queue_arc(q)?;
        // SAFETY: pointers from the application.
        let (s, d, so, dor, r) =
            unsafe { copy_image_args(&queue, src, dst, src_origin, dst_origin, region) }?;
        // SAFETY: as above.
        let waits = unsafe { waits_of(&queue, n, list) }?;
        let e = image_transfer::enqueue_copy_image(&queue, &s, &d, so, dor, r, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

/// clEnqueueCopyImageToBuffer's checks on `queue`'s device (also
/// clCommandCopyImageToBufferKHR's).
///
/// # Safety
/// The origin and region must be NULL or point at 3 entries.
pub(crate) unsafe fn copy_image_to_buffer_args(
    queue: &Queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
) -> CLResult<ImageBufferArgs> {
    let s = image_of(queue, src)?;
    let d = buffer_of(queue, dst)?;
    // "CL_INVALID_MEM_OBJECT if src_image is a 1D image buffer object
    // created from dst_buffer."
    if s.parent.as_ref().is_some_and(|p| Arc::ptr_eq(p, &d)) {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    // SAFETY: caller contract.
    let (o, r) = unsafe { origin_region(&s, src_origin, region) }?;
    // "CL_INVALID_VALUE if the region specified by dst_offset and
    // dst_offset + dst_cb refer to a region outside dst_buffer."
    let bytes = r[0] * r[1] * r[2] * s.image()?.element_size();
    if dst_offset.checked_add(bytes).is_none_or(|end| end > d.size) {
        return Err(CL_INVALID_VALUE);
    }
    Ok((s, d, o, r))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        let queue = queue_arc(q)?;
        // SAFETY: pointers from the application.
        let (s, d, o, r) =
            unsafe { copy_image_to_buffer_args(&queue, src, dst, src_origin, region, dst_offset) }?;
        // SAFETY: as above.
        let waits = unsafe { waits_of(&queue, n, list) }?;
        let e =
            image_transfer::enqueue_copy_image_to_buffer(&queue, &s, &d, o, r, dst_offset, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

/// clEnqueueCopyBufferToImage's checks on `queue`'s device (also
/// clCommandCopyBufferToImageKHR's).
///
/// # Safety
/// The origin and region must be NULL or point at 3 entries.
pub(crate) unsafe fn copy_buffer_to_image_args(
    queue: &Queue,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
) -> CLResult<ImageBufferArgs> {
    let s = buffer_of(queue, src)?;
    let d = image_of(queue, dst)?;
    // "CL_INVALID_MEM_OBJECT if dst_image is a 1D image buffer object
    // created from src_buffer."
    if d.parent.as_ref().is_some_and(|p| Arc::ptr_eq(p, &s)) {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    // SAFETY: caller contract.
    let (o, r) = unsafe { origin_region(&d, dst_origin, region) }?;
    // "CL_INVALID_VALUE if the region specified by src_offset and
    // src_offset + src_cb refer to a region outside src_buffer."
    let bytes = r[0] * r[1] * r[2] * d.image()?.element_size();
    if src_offset.checked_add(bytes).is_none_or(|end| end > s.size) {
        return Err(CL_INVALID_VALUE);
    }
    Ok((s, d, o, r))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        let queue = queue_arc(q)?;
        // SAFETY: pointers from the application.
        let (s, d, o, r) =
            unsafe { copy_buffer_to_image_args(&queue, src, dst, src_offset, dst_origin, region) }?;
        // SAFETY: as above.
        let waits = unsafe { waits_of(&queue, n, list) }?;
        let e =
            image_transfer::enqueue_copy_buffer_to_image(&queue, &s, &d, src_offset, o, r, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

/// clEnqueueFillImage's checks on `queue`'s device (also
/// clCommandFillImageKHR's): the image, its region, and the fill colour
/// packed into one texel of its format.
///
/// # Safety
/// `color` must be NULL or point at 16 bytes; origin and region NULL or
/// at 3 entries.
pub(crate) unsafe fn fill_image_args(
    queue: &Queue,
    m: cl_mem,
    color: *const c_void,
    origin: *const usize,
    region: *const usize,
) -> CLResult<FillArgs> {
    let mem = image_of(queue, m)?;
    // "CL_INVALID_VALUE if fill_color is NULL."
    if color.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: caller contract.
    let (o, r) = unsafe { origin_region(&mem, origin, region) }?;
    let f = mem.image()?.format;
    // "The fill color is a single floating-point value if the channel
    // order is CL_DEPTH. Otherwise, the fill color is a four component
    // RGBA floating-point color value if the image channel data type is
    // not an unnormalized signed or unsigned integer type, [...]"
    let c = if f.image_channel_order == CL_DEPTH {
        // SAFETY: caller contract (the application passes one float).
        [unsafe { *(color as *const u32) }, 0, 0, 0]
    } else {
        // SAFETY: a four-component float, int or uint colour (16 bytes).
        unsafe { *(color as *const [u32; 4]) }
    };
    let texel = image_format::pack_texel(f.image_channel_order, f.image_channel_data_type, c)
        .ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    Ok((mem, texel.to_vec(), o, r))
}

pub unsafe extern "C" fn clEnqueueFillImage(
    q: cl_command_queue,
    m: cl_mem,
    color: *const c_void,
    origin: *const usize,
    region: *const usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    code(|| {
        let queue = queue_arc(q)?;
        // SAFETY: pointers from the application.
        let (mem, texel, o, r) = unsafe { fill_image_args(&queue, m, color, origin, region) }?;
        // SAFETY: as above.
        let waits = unsafe { waits_of(&queue, n, list) }?;
        let e = image_transfer::enqueue_fill_image(&queue, &mem, &texel, o, r, waits)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, e) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueMapImage(
    q: cl_command_queue,
    m: cl_mem,
    blocking: cl_bool,
    flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    row_pitch: *mut usize,
    slice_pitch: *mut usize,
    n: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        // SAFETY: pointers from the application.
        let (queue, mem, waits) = unsafe { prologue(q, m, n, list) }?;
        // SAFETY: as above.
        let (o, r) = unsafe { origin_region(&mem, origin, region) }?;
        let valid = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        // "CL_INVALID_VALUE if values specified in map_flags are not valid"
        if flags & !valid != 0
            || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if image_row_pitch is NULL", "[...] if image is
        // a 1D or 2D image array object and image_slice_pitch is NULL",
        // "[...] if image is a 3D and image_slice_pitch is NULL".
        let needs_slice = matches!(
            mem.mem_type,
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
        );
        if row_pitch.is_null() || (needs_slice && slice_pitch.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if image has been created with
        // CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is
        // set in map_flags" and "[...] with CL_MEM_HOST_READ_ONLY or
        // CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
        // CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags."
        if (mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0
            && flags & CL_MAP_READ != 0)
            || (mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0
                && flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0)
        {
            return Err(CL_INVALID_OPERATION);
        }
        let map = image_transfer::enqueue_map_image(&queue, &mem, flags, o, r, waits)?;
        mem.maps.lock().push(Mapping {
            ptr: map.ptr,
            offset: 0,
            size: 0,
            flags,
            memory: map.memory,
            image: Some(map.region),
            in_place: false,
        });
        mem.map_count
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        // SAFETY: non-null pointers from the application.
        unsafe {
            *row_pitch = map.region.row_pitch;
            if !slice_pitch.is_null() {
                // "For a 1D and 2D image, zero is returned"
                *slice_pitch = if needs_slice {
                    map.region.slice_pitch
                } else {
                    0
                };
            }
        }
        finish_blocking(blocking, &map.event)?;
        // SAFETY: pointer from the application.
        unsafe { return_event(event, map.event) };
        Ok(map.ptr as *mut c_void)
    })
}
