//! Images and samplers from the host: device queries, supported formats,
//! creation of every image type, clGetImageInfo, reads and writes with
//! pitches for every format, copies (image↔image, image↔buffer at any
//! offset), fills checked byte for byte against a host reference, maps,
//! samplers, and the spec's error codes. (Kernel-side image access is
//! tested with the compiler's image support.)

// OpenCL's constant names (CL_sRGBA) as written.
#![allow(non_upper_case_globals)]
// clCreateImage2D/3D and clCreateSampler are part of what is tested.
#![allow(deprecated)]

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::images::{desc, format};
use ferrocl_tests::info::{image_info, mem_info, query, query_value, sampler_info};
use ferrocl_tests::sys::*;
use ferrocl_tests::{
    assert_same, check, device, device_string, device_value, expect_error, testing_pocl, Cl,
    ClError, Image,
};

const TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// [`expect_error`] for a check PoCL does not make (it accepts the call,
/// or answers another error first): checked on every other platform.
#[track_caller]
fn expect_error_except_pocl(status: cl_int, expected: cl_int, what: &str) {
    if !testing_pocl() {
        expect_error(status, expected, what);
    }
}

/// Deterministic pseudo-random bytes.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

/// Bytes per element, computed here from the spec's format table.
fn element_size(f: &cl_image_format) -> usize {
    let channels = match f.image_channel_order {
        CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => 1,
        CL_RG | CL_RA | CL_Rx => 2,
        CL_RGB | CL_RGx | CL_sRGB => 3,
        _ => 4,
    };
    match f.image_channel_data_type {
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
        CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2 => 4,
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => channels,
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4 * channels,
        _ => 2 * channels,
    }
}

fn name(f: &cl_image_format) -> String {
    format!(
        "order {:#x} type {:#x}",
        f.image_channel_order, f.image_channel_data_type
    )
}

fn contains(list: &[cl_image_format], f: &cl_image_format) -> bool {
    list.iter().any(|g| {
        g.image_channel_order == f.image_channel_order
            && g.image_channel_data_type == f.image_channel_data_type
    })
}

/// (width, height, depth, array size) of a small image of each type.
fn small_size(t: cl_mem_object_type) -> [usize; 4] {
    match t {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => [37, 0, 0, 0],
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [19, 0, 0, 5],
        CL_MEM_OBJECT_IMAGE2D => [13, 7, 0, 0],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => [9, 5, 0, 3],
        _ => [7, 5, 4, 0],
    }
}

/// The OpenCL (x, y, z) extent of an image of `size`.
fn extent(t: cl_mem_object_type, size: [usize; 4]) -> [usize; 3] {
    match t {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [size[0], size[3], 1],
        CL_MEM_OBJECT_IMAGE2D => [size[0], size[1], 1],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => [size[0], size[1], size[3]],
        CL_MEM_OBJECT_IMAGE3D => [size[0], size[1], size[2]],
        _ => [size[0], 1, 1],
    }
}

/// Byte offset of element (x, y, z) of a host block with these pitches
/// (y steps by the slice pitch in 1D image arrays).
fn host_at(
    t: cl_mem_object_type,
    e: usize,
    pitches: (usize, usize),
    x: usize,
    y: usize,
    z: usize,
) -> usize {
    let line = if t == CL_MEM_OBJECT_IMAGE1D_ARRAY {
        pitches.1
    } else {
        pitches.0
    };
    z * pitches.1 + y * line + x * e
}

/// Creates an image of `size` (a 1D image buffer over a fresh buffer).
fn make_image(
    cl: &Cl,
    flags: cl_mem_flags,
    f: &cl_image_format,
    t: cl_mem_object_type,
    size: [usize; 4],
) -> (Image, Option<ferrocl_tests::Buffer<u8>>) {
    if t == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        let buf = cl.buffer::<u8>(size[0] * element_size(f));
        let d = desc(t, size, (0, 0), buf.raw());
        let img = cl
            .try_image(flags, f, &d)
            .unwrap_or_else(|e| panic!("1D image buffer {}: {e}", name(f)));
        (img, Some(buf))
    } else {
        (cl.image(flags, f, t, size), None)
    }
}

#[test]
fn device_reports_images_and_their_limits() {
    let d = device();
    assert_eq!(device_value::<cl_bool>(d, CL_DEVICE_IMAGE_SUPPORT), CL_TRUE);
    assert!(device_value::<cl_uint>(d, CL_DEVICE_MAX_READ_IMAGE_ARGS) >= 128);
    assert!(device_value::<cl_uint>(d, CL_DEVICE_MAX_WRITE_IMAGE_ARGS) >= 64);
    assert!(device_value::<cl_uint>(d, CL_DEVICE_MAX_SAMPLERS) >= 16);
    assert!(device_value::<usize>(d, CL_DEVICE_IMAGE2D_MAX_WIDTH) >= 16384);
    assert!(device_value::<usize>(d, CL_DEVICE_IMAGE2D_MAX_HEIGHT) >= 16384);
    for p in [
        CL_DEVICE_IMAGE3D_MAX_WIDTH,
        CL_DEVICE_IMAGE3D_MAX_HEIGHT,
        CL_DEVICE_IMAGE3D_MAX_DEPTH,
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE,
    ] {
        assert!(device_value::<usize>(d, p) >= 2048, "{p:#x}");
    }
    assert!(device_value::<usize>(d, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE) >= 65536);
    // Read-write images: 64 or more when offered, 0 otherwise; the OpenCL
    // C features follow the same answers.
    let rw = device_value::<cl_uint>(d, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
    assert!(
        rw == 0 || rw >= 64,
        "CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS {rw}"
    );
    let features: Vec<cl_name_version> = query(ferrocl_tests::info::device_info(
        d,
        CL_DEVICE_OPENCL_C_FEATURES,
    ))
    .unwrap();
    let has = |n: &str| {
        features.iter().any(|f| {
            let end = f.name.iter().position(|&c| c == 0).unwrap_or(f.name.len());
            f.name[..end] == *n.as_bytes()
        })
    };
    assert!(has("__opencl_c_images"));
    assert_eq!(has("__opencl_c_read_write_images"), rw > 0);
    let ext = device_string(d, CL_DEVICE_EXTENSIONS);
    assert_eq!(
        has("__opencl_c_3d_image_writes"),
        ext.split(' ').any(|e| e == "cl_khr_3d_image_writes")
    );
}

#[test]
fn supported_formats_include_the_minimum_lists() {
    let cl = Cl::new();
    let min_rw_either: Vec<cl_image_format> = [
        CL_UNORM_INT8,
        CL_UNORM_INT16,
        CL_SIGNED_INT8,
        CL_SIGNED_INT16,
        CL_SIGNED_INT32,
        CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32,
        CL_HALF_FLOAT,
        CL_FLOAT,
    ]
    .iter()
    .map(|&t| format(CL_RGBA, t))
    .chain([format(CL_BGRA, CL_UNORM_INT8)])
    .collect();
    for t in TYPES {
        let read = cl.image_formats(CL_MEM_READ_ONLY, t);
        let write = cl.image_formats(CL_MEM_WRITE_ONLY, t);
        let both = cl.image_formats(CL_MEM_READ_WRITE, t);
        for f in &min_rw_either {
            assert!(contains(&read, f), "type {t:#x}: {} not readable", name(f));
            assert!(contains(&write, f), "type {t:#x}: {} not writable", name(f));
            assert!(
                contains(&both, f),
                "type {t:#x}: {} not in READ_WRITE",
                name(f)
            );
        }
        // READ_WRITE lists what both read_only and write_only take.
        for f in &both {
            assert!(contains(&read, f) && contains(&write, f), "{}", name(f));
        }
        // No duplicates, and every entry has a valid element size.
        for (i, f) in read.iter().enumerate() {
            assert!(!contains(&read[..i], f), "duplicate {}", name(f));
        }
    }
    let rw_args = device_value::<cl_uint>(device(), CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
    let krw = cl.image_formats(CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D);
    if rw_args > 0 {
        for o in [CL_R, CL_RGBA] {
            for t in [
                CL_UNORM_INT8,
                CL_SIGNED_INT32,
                CL_UNSIGNED_INT8,
                CL_HALF_FLOAT,
                CL_FLOAT,
            ] {
                assert!(contains(&krw, &format(o, t)), "{}", name(&format(o, t)));
            }
        }
    } else if !testing_pocl() {
        assert!(
            krw.is_empty(),
            "read-write formats without read-write images"
        );
    }
}

#[test]
fn supported_formats_errors() {
    let cl = Cl::new();
    let mut n = 0;
    let mut one = [format(0, 0)];
    // SAFETY: valid context; the pointers are live.
    unsafe {
        expect_error(
            clGetSupportedImageFormats(
                cl.raw(),
                CL_MEM_READ_ONLY,
                CL_MEM_OBJECT_BUFFER,
                0,
                ptr::null_mut(),
                &mut n,
            ),
            CL_INVALID_VALUE,
            "a buffer type",
        );
        expect_error(
            clGetSupportedImageFormats(
                cl.raw(),
                CL_MEM_READ_ONLY,
                CL_MEM_OBJECT_IMAGE2D,
                0,
                one.as_mut_ptr(),
                &mut n,
            ),
            CL_INVALID_VALUE,
            "num_entries 0 with a list",
        );
        expect_error_except_pocl(
            clGetSupportedImageFormats(
                cl.raw(),
                CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                CL_MEM_OBJECT_IMAGE2D,
                0,
                ptr::null_mut(),
                &mut n,
            ),
            CL_INVALID_VALUE,
            "conflicting flags",
        );
        expect_error(
            clGetSupportedImageFormats(
                ptr::null_mut(),
                CL_MEM_READ_ONLY,
                CL_MEM_OBJECT_IMAGE2D,
                0,
                ptr::null_mut(),
                &mut n,
            ),
            CL_INVALID_CONTEXT,
            "no context",
        );
        // A short list gets the first entries.
        check(
            clGetSupportedImageFormats(
                cl.raw(),
                CL_MEM_READ_ONLY,
                CL_MEM_OBJECT_IMAGE2D,
                1,
                one.as_mut_ptr(),
                &mut n,
            ),
            "clGetSupportedImageFormats(1)",
        );
    }
    assert!(n > 1);
    assert!(element_size(&one[0]) > 0);
}

#[test]
fn create_every_image_type_and_query_it() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNSIGNED_INT16);
    for t in TYPES {
        let size = small_size(t);
        let (img, buf) = make_image(&cl, CL_MEM_READ_WRITE, &f, t, size);
        let m = img.raw();
        let get = |p| query_value::<usize>(image_info(m, p)).unwrap();
        let fmt: cl_image_format = query_value(image_info(m, CL_IMAGE_FORMAT)).unwrap();
        assert_eq!(
            (fmt.image_channel_order, fmt.image_channel_data_type),
            (CL_RGBA, CL_UNSIGNED_INT16)
        );
        assert_eq!(get(CL_IMAGE_ELEMENT_SIZE), 8);
        assert_eq!(get(CL_IMAGE_WIDTH), size[0]);
        assert_eq!(get(CL_IMAGE_HEIGHT), size[1], "type {t:#x}");
        assert_eq!(get(CL_IMAGE_DEPTH), size[2], "type {t:#x}");
        assert_eq!(get(CL_IMAGE_ARRAY_SIZE), size[3], "type {t:#x}");
        let row = size[0] * 8;
        assert_eq!(get(CL_IMAGE_ROW_PITCH), row);
        let slice = match t {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => row,
            CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => row * size[1],
            _ => 0,
        };
        assert_eq!(get(CL_IMAGE_SLICE_PITCH), slice, "type {t:#x}");
        assert_eq!(
            query_value::<cl_uint>(image_info(m, CL_IMAGE_NUM_MIP_LEVELS)).unwrap(),
            0
        );
        assert_eq!(
            query_value::<cl_uint>(image_info(m, CL_IMAGE_NUM_SAMPLES)).unwrap(),
            0
        );
        let assoc: *mut c_void = query_value(image_info(m, CL_IMAGE_BUFFER)).unwrap();
        assert_eq!(assoc, buf.as_ref().map_or(ptr::null_mut(), |b| b.raw()));
        // clGetMemObjectInfo of an image.
        assert_eq!(
            query_value::<cl_mem_object_type>(mem_info(m, CL_MEM_TYPE)).unwrap(),
            t
        );
        assert_eq!(
            query_value::<cl_mem_flags>(mem_info(m, CL_MEM_FLAGS)).unwrap(),
            CL_MEM_READ_WRITE
        );
        let assoc: *mut c_void = query_value(mem_info(m, CL_MEM_ASSOCIATED_MEMOBJECT)).unwrap();
        assert_eq!(assoc, buf.as_ref().map_or(ptr::null_mut(), |b| b.raw()));
        let e = extent(t, size);
        assert!(query_value::<usize>(mem_info(m, CL_MEM_SIZE)).unwrap() >= e[0] * e[1] * e[2] * 8);
        assert_eq!(query_value::<usize>(mem_info(m, CL_MEM_OFFSET)).unwrap(), 0);
        assert_eq!(
            query_value::<cl_uint>(mem_info(m, CL_MEM_MAP_COUNT)).unwrap(),
            0
        );
        assert_eq!(
            query_value::<cl_uint>(mem_info(m, CL_MEM_REFERENCE_COUNT)).unwrap(),
            1
        );
    }
    // clGetImageInfo of a buffer; an unknown parameter.
    let buf = cl.buffer::<u8>(64);
    let mut v = 0usize;
    // SAFETY: valid handles, a live out value.
    unsafe {
        expect_error_except_pocl(
            clGetImageInfo(
                buf.raw(),
                CL_IMAGE_WIDTH,
                8,
                (&mut v as *mut usize).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "clGetImageInfo of a buffer",
        );
    }
    let img = cl.image(CL_MEM_READ_ONLY, &f, CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0]);
    expect_error(
        image_info(img.raw(), CL_MEM_SIZE).call(8, Some(&mut [0u8; 8]), None),
        CL_INVALID_VALUE,
        "clGetImageInfo(CL_MEM_SIZE)",
    );
}

#[test]
fn the_1_1_entry_points_create_2d_and_3d_images() {
    let cl = Cl::new();
    // opencl-sys declares these format pointers mutable; nothing writes them.
    let mut f = format(CL_RGBA, CL_UNORM_INT8);
    let data = bytes(6 * 3 * 2 * 4, 9);
    let mut status = 0;
    // SAFETY: the host block holds the 3D image with its pitches; COPY_HOST_PTR only reads it.
    let img3 = Image::from_raw(unsafe {
        clCreateImage3D(
            cl.raw(),
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
            &mut f,
            6,
            3,
            2,
            0,
            0,
            data.as_ptr() as *mut c_void,
            &mut status,
        )
    });
    check(status, "clCreateImage3D");
    assert_same(
        "3D contents",
        &cl.queue.read_image(&img3, [0; 3], [6, 3, 2], 4),
        &data,
    );
    // SAFETY: no host memory.
    let img2 = Image::from_raw(unsafe {
        clCreateImage2D(
            cl.raw(),
            CL_MEM_READ_WRITE,
            &mut f,
            6,
            3,
            0,
            ptr::null_mut(),
            &mut status,
        )
    });
    check(status, "clCreateImage2D");
    assert_eq!(
        query_value::<usize>(image_info(img2.raw(), CL_IMAGE_HEIGHT)).unwrap(),
        3
    );
    // SAFETY: as above; the calls fail before using anything.
    unsafe {
        let p = clCreateImage3D(
            cl.raw(),
            CL_MEM_READ_WRITE,
            &mut f,
            6,
            3,
            1,
            0,
            0,
            ptr::null_mut(),
            &mut status,
        );
        assert!(p.is_null() || testing_pocl());
        expect_error_except_pocl(
            status,
            CL_INVALID_IMAGE_SIZE,
            "clCreateImage3D with depth 1",
        );
        let p = clCreateImage2D(
            cl.raw(),
            CL_MEM_READ_WRITE,
            &mut f,
            0,
            3,
            0,
            ptr::null_mut(),
            &mut status,
        );
        assert!(p.is_null() || testing_pocl());
        expect_error_except_pocl(
            status,
            CL_INVALID_IMAGE_SIZE,
            "clCreateImage2D with width 0",
        );
        let p = clCreateImage2D(
            cl.raw(),
            CL_MEM_READ_WRITE,
            &mut f,
            6,
            3,
            24,
            ptr::null_mut(),
            &mut status,
        );
        assert!(p.is_null() || testing_pocl());
        expect_error_except_pocl(
            status,
            CL_INVALID_IMAGE_SIZE,
            "a row pitch without host memory",
        );
    }
}

#[test]
fn image_creation_errors() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNORM_INT8);
    let d2 = desc(CL_MEM_OBJECT_IMAGE2D, [8, 8, 0, 0], (0, 0), ptr::null_mut());
    let err = |r: Result<Image, ClError>| r.err().map(|e| e.0).unwrap_or(CL_SUCCESS);
    let mut status = 0;
    // SAFETY: NULL format / descriptor are what is tested.
    unsafe {
        assert!(clCreateImage(
            cl.raw(),
            CL_MEM_READ_WRITE,
            ptr::null(),
            &d2,
            ptr::null_mut(),
            &mut status
        )
        .is_null());
        expect_error(status, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "NULL format");
        assert!(clCreateImage(
            cl.raw(),
            CL_MEM_READ_WRITE,
            &f,
            ptr::null(),
            ptr::null_mut(),
            &mut status
        )
        .is_null());
        expect_error(status, CL_INVALID_IMAGE_DESCRIPTOR, "NULL descriptor");
        assert!(clCreateImage(
            ptr::null_mut(),
            CL_MEM_READ_WRITE,
            &f,
            &d2,
            ptr::null_mut(),
            &mut status
        )
        .is_null());
        expect_error(status, CL_INVALID_CONTEXT, "no context");
    }
    let none = ptr::null_mut();
    expect_error_except_pocl(
        err(cl.try_image(CL_MEM_READ_WRITE, &format(CL_RGB, CL_UNORM_INT8), &d2)),
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
        "RGB with 8-bit channels",
    );
    expect_error_except_pocl(
        err(cl.try_image(CL_MEM_READ_WRITE, &format(CL_RGBA, 0x1234), &d2)),
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
        "an unknown data type",
    );
    expect_error_except_pocl(
        err(cl.try_image(CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, &f, &d2)),
        CL_INVALID_VALUE,
        "conflicting flags",
    );
    let bad_type = desc(CL_MEM_OBJECT_BUFFER, [8, 8, 0, 0], (0, 0), none);
    expect_error_except_pocl(
        err(cl.try_image(CL_MEM_READ_WRITE, &f, &bad_type)),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "a buffer type",
    );
    let max_w = device_value::<usize>(device(), CL_DEVICE_IMAGE2D_MAX_WIDTH);
    for (t, size) in [
        (CL_MEM_OBJECT_IMAGE2D, [0, 8, 0, 0]),
        (CL_MEM_OBJECT_IMAGE2D, [8, 0, 0, 0]),
        (CL_MEM_OBJECT_IMAGE2D, [max_w + 1, 1, 0, 0]),
        (CL_MEM_OBJECT_IMAGE1D, [0, 0, 0, 0]),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, [8, 0, 0, 0]),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [8, 8, 0, 0]),
        (CL_MEM_OBJECT_IMAGE3D, [8, 8, 0, 0]),
    ] {
        let d = desc(t, size, (0, 0), none);
        expect_error_except_pocl(
            err(cl.try_image(CL_MEM_READ_WRITE, &f, &d)),
            CL_INVALID_IMAGE_SIZE,
            &format!("type {t:#x} size {size:?}"),
        );
    }
    // Host memory and its flags.
    let mut host = vec![0u8; 8 * 8 * 4];
    let hp = host.as_mut_ptr().cast::<c_void>();
    expect_error(
        // SAFETY: `host` holds the image.
        err(unsafe { cl.try_image_with_host(CL_MEM_READ_WRITE, &f, &d2, hp) }),
        CL_INVALID_HOST_PTR,
        "host_ptr without a host flag",
    );
    expect_error(
        err(cl.try_image(CL_MEM_USE_HOST_PTR, &f, &d2)),
        CL_INVALID_HOST_PTR,
        "USE_HOST_PTR without host_ptr",
    );
    expect_error(
        err(cl.try_image(CL_MEM_COPY_HOST_PTR, &f, &d2)),
        CL_INVALID_HOST_PTR,
        "COPY_HOST_PTR without host_ptr",
    );
    // Pitches: not with NULL host memory, and at least width x element size.
    if !testing_pocl() {
        let pitched = desc(CL_MEM_OBJECT_IMAGE2D, [8, 8, 0, 0], (64, 0), none);
        expect_error(
            err(cl.try_image(CL_MEM_READ_WRITE, &f, &pitched)),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "row pitch without host memory",
        );
        let short = desc(CL_MEM_OBJECT_IMAGE2D, [8, 8, 0, 0], (16, 0), none);
        expect_error_except_pocl(
            // SAFETY: as above.
            err(unsafe { cl.try_image_with_host(CL_MEM_COPY_HOST_PTR, &f, &short, hp) }),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "row pitch below the row",
        );
        let odd = desc(CL_MEM_OBJECT_IMAGE2D, [4, 8, 0, 0], (18, 0), none);
        expect_error(
            // SAFETY: as above.
            err(unsafe { cl.try_image_with_host(CL_MEM_COPY_HOST_PTR, &f, &odd, hp) }),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "row pitch not a multiple of the element",
        );
        // (Mip levels: tests/mipmap.rs, with cl_khr_mipmap_image.)
        let msaa = cl_image_desc {
            num_samples: 2,
            ..d2
        };
        expect_error(
            err(cl.try_image(CL_MEM_READ_WRITE, &f, &msaa)),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "samples",
        );
    }
    // A 1D image buffer: larger than its buffer; over an image.
    let buf = cl.buffer::<u8>(64);
    let d = desc(
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        [17, 0, 0, 0],
        (0, 0),
        buf.raw(),
    );
    expect_error_except_pocl(
        err(cl.try_image(CL_MEM_READ_WRITE, &f, &d)),
        CL_INVALID_IMAGE_SIZE,
        "1D image buffer past its buffer",
    );
    let d = desc(
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        [16, 0, 0, 0],
        (0, 0),
        buf.raw(),
    );
    expect_error_except_pocl(
        err(cl.try_image(CL_MEM_USE_HOST_PTR, &f, &d)),
        CL_INVALID_VALUE,
        "1D image buffer with a host flag",
    );
    // 2D images from buffers are not offered (CL_DEVICE_IMAGE_PITCH_ALIGNMENT
    // is 0): "CL_INVALID_OPERATION" (OpenCL 3.0 optional feature).
    let pitch_align: cl_uint =
        ferrocl_tests::device_value(cl.device(), CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
    if pitch_align == 0 {
        let d = desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0], (0, 0), buf.raw());
        expect_error(
            err(cl.try_image(CL_MEM_READ_WRITE, &f, &d)),
            CL_INVALID_OPERATION,
            "2D image from a buffer without cl_khr_image2d_from_buffer",
        );
    }
    let img = cl.image(CL_MEM_READ_WRITE, &f, CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0]);
    if !testing_pocl() {
        let d = desc(
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
            [16, 0, 0, 0],
            (0, 0),
            img.raw(),
        );
        expect_error(
            err(cl.try_image(CL_MEM_READ_WRITE, &f, &d)),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "1D image buffer over an image",
        );
    }
    // A format that can only be read: not for READ_WRITE.
    let read = cl.image_formats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
    let both = cl.image_formats(CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D);
    if let Some(ro) = read.iter().find(|g| !contains(&both, g)) {
        expect_error(
            err(cl.try_image(CL_MEM_READ_WRITE, ro, &d2)),
            CL_IMAGE_FORMAT_NOT_SUPPORTED,
            &name(ro),
        );
        assert!(
            cl.try_image(CL_MEM_READ_ONLY, ro, &d2).is_ok(),
            "{}",
            name(ro)
        );
    }
}

/// Writes random bytes into a sub-region with padded pitches, reads the
/// whole image and the sub-region back (differently pitched) and compares
/// against the host model.
fn round_trip(
    cl: &Cl,
    flags: cl_mem_flags,
    f: &cl_image_format,
    t: cl_mem_object_type,
    size: [usize; 4],
    seed: u32,
) {
    let e = element_size(f);
    let (img, _buf) = make_image(cl, flags, f, t, size);
    let ext = extent(t, size);
    // Whole image first (tight), so the model knows every byte.
    let mut model = bytes(ext[0] * ext[1] * ext[2] * e, seed);
    cl.queue.write_image(&img, [0; 3], ext, &model);
    // A sub-region with padded host pitches.
    let origin = [ext[0] / 3, ext[1] / 2, ext[2] / 2];
    let region = [ext[0] - origin[0], ext[1] - origin[1], ext[2] - origin[2]];
    let row = region[0] * e + 3 * e;
    let arrays = matches!(
        t,
        CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
    );
    // A 1D array's slice pitch is the stride of its 1D images ("the size
    // in bytes of [...] each image of a 1D or 2D image array"); PoCL steps
    // by the row pitch instead, so it gets one where both agree.
    let slice = if !arrays {
        0
    } else if t == CL_MEM_OBJECT_IMAGE1D_ARRAY {
        if testing_pocl() {
            row
        } else {
            row + e
        }
    } else {
        row * region[1] + 2 * row
    };
    let host_len = host_at(t, e, (row, slice), 0, region[1] - 1, region[2] - 1) + row;
    let src = bytes(host_len, seed + 1);
    cl.queue
        .try_write_image(&img, origin, region, (row, slice), &src)
        .unwrap_or_else(|err| panic!("write {} type {t:#x}: {err}", name(f)));
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                let h = host_at(t, e, (row, slice), x, y, z);
                let i = (((origin[2] + z) * ext[1] + origin[1] + y) * ext[0] + origin[0] + x) * e;
                model[i..i + e].copy_from_slice(&src[h..h + e]);
            }
        }
    }
    let what = format!("{} type {t:#x}", name(f));
    assert_same(&what, &cl.queue.read_image(&img, [0; 3], ext, e), &model);
    // Read the sub-region back with other pitches.
    let row2 = region[0] * e + e;
    let slice2 = if !arrays {
        0
    } else if t == CL_MEM_OBJECT_IMAGE1D_ARRAY {
        if testing_pocl() {
            row2
        } else {
            row2 * 2
        }
    } else {
        row2 * region[1] + e
    };
    let mut back =
        vec![0xA5u8; host_at(t, e, (row2, slice2), 0, region[1] - 1, region[2] - 1) + row2];
    cl.queue
        .try_read_image(&img, origin, region, (row2, slice2), &mut back)
        .unwrap_or_else(|err| panic!("read {what}: {err}"));
    for z in 0..region[2] {
        for y in 0..region[1] {
            let h = host_at(t, e, (row2, slice2), 0, y, z);
            let s = host_at(t, e, (row, slice), 0, y, z);
            assert_same(
                &format!("{what} line ({y},{z})"),
                &back[h..h + region[0] * e],
                &src[s..s + region[0] * e],
            );
            // Padding untouched.
            assert!(
                back[h + region[0] * e..(h + row2).min(back.len())]
                    .iter()
                    .all(|&b| b == 0xA5),
                "{what}: padding written"
            );
        }
    }
}

#[test]
fn round_trip_every_2d_format_with_pitches() {
    let cl = Cl::new();
    let t = CL_MEM_OBJECT_IMAGE2D;
    let mut all = cl.image_formats(CL_MEM_READ_ONLY, t);
    for f in cl.image_formats(CL_MEM_WRITE_ONLY, t) {
        if !contains(&all, &f) {
            all.push(f);
        }
    }
    let read = cl.image_formats(CL_MEM_READ_ONLY, t);
    for (i, f) in all.iter().enumerate() {
        let flags = if contains(&read, f) {
            CL_MEM_READ_ONLY
        } else {
            CL_MEM_WRITE_ONLY
        };
        round_trip(&cl, flags, f, t, [11, 6, 0, 0], i as u32);
    }
}

#[test]
fn round_trip_other_image_types_with_pitches() {
    let cl = Cl::new();
    let formats = [
        format(CL_RGBA, CL_UNORM_INT8),
        format(CL_R, CL_UNSIGNED_INT8),
        format(CL_RG, CL_HALF_FLOAT),
        format(CL_RGBA, CL_FLOAT),
        format(CL_BGRA, CL_UNORM_INT8),
    ];
    for t in TYPES {
        let list = cl.image_formats(CL_MEM_READ_WRITE, t);
        for (i, f) in formats.iter().enumerate() {
            if contains(&list, f) {
                round_trip(&cl, CL_MEM_READ_WRITE, f, t, small_size(t), 100 + i as u32);
            }
        }
    }
}

#[test]
fn host_memory_images_start_with_the_host_data() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNSIGNED_INT8);
    let (w, h, d) = (5usize, 4usize, 3usize);
    let (row, slice) = (w * 4 + 8, (w * 4 + 8) * (h + 1));
    let mut host = bytes(slice * d, 77);
    let dd = desc(
        CL_MEM_OBJECT_IMAGE3D,
        [w, h, d, 0],
        (row, slice),
        ptr::null_mut(),
    );
    let want: Vec<u8> = (0..d)
        .flat_map(|z| (0..h).map(move |y| (z, y)))
        .flat_map(|(z, y)| host[z * slice + y * row..z * slice + y * row + w * 4].to_vec())
        .collect();
    for flags in [CL_MEM_COPY_HOST_PTR, CL_MEM_USE_HOST_PTR] {
        // SAFETY: `host` holds the image with its pitches and outlives it.
        let img = unsafe {
            cl.try_image_with_host(CL_MEM_READ_WRITE | flags, &f, &dd, host.as_mut_ptr().cast())
        }
        .unwrap();
        assert_same(
            "initial contents",
            &cl.queue.read_image(&img, [0; 3], [w, h, d], 4),
            &want,
        );
        assert_eq!(
            query_value::<usize>(image_info(img.raw(), CL_IMAGE_ROW_PITCH)).unwrap(),
            row
        );
        assert_eq!(
            query_value::<usize>(image_info(img.raw(), CL_IMAGE_SLICE_PITCH)).unwrap(),
            slice
        );
        let hp: *mut c_void = query_value(mem_info(img.raw(), CL_MEM_HOST_PTR)).unwrap();
        let expect = if flags == CL_MEM_USE_HOST_PTR {
            host.as_mut_ptr().cast()
        } else {
            ptr::null_mut()
        };
        assert_eq!(hp, expect);
    }
}

#[test]
fn copy_image_subregions_between_types() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNSIGNED_INT16);
    let e = 8;
    let sizes = [
        (CL_MEM_OBJECT_IMAGE1D, [20, 0, 0, 0]),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, [20, 0, 0, 6]),
        (CL_MEM_OBJECT_IMAGE2D, [20, 6, 0, 0]),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [20, 6, 0, 4]),
        (CL_MEM_OBJECT_IMAGE3D, [20, 6, 4, 0]),
        (CL_MEM_OBJECT_IMAGE1D_BUFFER, [20, 0, 0, 0]),
    ];
    let make = |i: usize| {
        let (t, size) = sizes[i];
        let (img, buf) = make_image(&cl, CL_MEM_READ_WRITE, &f, t, size);
        let ext = extent(t, size);
        let data = bytes(ext[0] * ext[1] * ext[2] * e, 300 + i as u32);
        cl.queue.write_image(&img, [0; 3], ext, &data);
        (t, ext, img, buf, data)
    };
    let idx = |ext: [usize; 3], p: [usize; 3]| ((p[2] * ext[1] + p[1]) * ext[0] + p[0]) * e;
    for s in 0..sizes.len() {
        for d in 0..sizes.len() {
            // PoCL copies no 1D image buffers (CL_INVALID_MEM_OBJECT).
            let buffer_image = |i: usize| sizes[i].0 == CL_MEM_OBJECT_IMAGE1D_BUFFER;
            if testing_pocl() && (buffer_image(s) || buffer_image(d)) {
                continue;
            }
            let (st, se, simg, _sb, sdata) = make(s);
            let (dt, de, dimg, _db, mut model) = make(d);
            // The largest region both sides hold, at an offset on each side.
            let region: [usize; 3] = std::array::from_fn(|k| {
                se[k]
                    .min(de[k])
                    .saturating_sub(if se[k].min(de[k]) > 2 { 2 } else { 0 })
                    .max(1)
            });
            let so: [usize; 3] = std::array::from_fn(|k| (se[k] - region[k]).min(1));
            let dor: [usize; 3] = std::array::from_fn(|k| de[k] - region[k]);
            // SAFETY: valid objects; three entries each.
            check(
                unsafe {
                    clEnqueueCopyImage(
                        cl.queue.raw(),
                        simg.raw(),
                        dimg.raw(),
                        so.as_ptr(),
                        dor.as_ptr(),
                        region.as_ptr(),
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                    )
                },
                &format!("clEnqueueCopyImage {st:#x} -> {dt:#x}"),
            );
            for z in 0..region[2] {
                for y in 0..region[1] {
                    for x in 0..region[0] {
                        let a = idx(se, [so[0] + x, so[1] + y, so[2] + z]);
                        let b = idx(de, [dor[0] + x, dor[1] + y, dor[2] + z]);
                        model[b..b + e].copy_from_slice(&sdata[a..a + e]);
                    }
                }
            }
            assert_same(
                &format!("copy {st:#x} -> {dt:#x} region {region:?}"),
                &cl.queue.read_image(&dimg, [0; 3], de, e),
                &model,
            );
        }
    }
}

#[test]
fn copy_image_errors() {
    let cl = Cl::new();
    let a = cl.image(
        CL_MEM_READ_WRITE,
        &format(CL_RGBA, CL_UNORM_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [8, 8, 0, 0],
    );
    let b = cl.image(
        CL_MEM_READ_WRITE,
        &format(CL_RGBA, CL_SIGNED_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [8, 8, 0, 0],
    );
    let c = cl.image(
        CL_MEM_READ_WRITE,
        &format(CL_RGBA, CL_UNORM_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [8, 8, 0, 0],
    );
    let buf = cl.buffer::<u8>(256);
    let copy = |s: cl_mem, d: cl_mem, so: [usize; 3], dor: [usize; 3], r: [usize; 3]| {
        // SAFETY: three entries each; handles as given.
        unsafe {
            clEnqueueCopyImage(
                cl.queue.raw(),
                s,
                d,
                so.as_ptr(),
                dor.as_ptr(),
                r.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    };
    expect_error(
        copy(a.raw(), b.raw(), [0; 3], [0; 3], [4, 4, 1]),
        CL_IMAGE_FORMAT_MISMATCH,
        "different formats",
    );
    expect_error(
        copy(a.raw(), a.raw(), [0; 3], [2, 2, 0], [4, 4, 1]),
        CL_MEM_COPY_OVERLAP,
        "overlapping regions of one image",
    );
    check(
        copy(a.raw(), a.raw(), [0; 3], [4, 4, 0], [4, 4, 1]),
        "disjoint regions of one image",
    );
    expect_error_except_pocl(
        copy(a.raw(), c.raw(), [0; 3], [5, 0, 0], [4, 4, 1]),
        CL_INVALID_VALUE,
        "past the destination",
    );
    expect_error(
        copy(a.raw(), a.raw(), [0; 3], [4, 0, 1], [4, 4, 1]),
        CL_INVALID_VALUE,
        "a 2D image's origin[2]",
    );
    expect_error(
        copy(a.raw(), a.raw(), [0; 3], [4, 0, 0], [4, 4, 0]),
        CL_INVALID_VALUE,
        "a zero region",
    );
    expect_error(
        copy(buf.raw(), a.raw(), [0; 3], [0; 3], [4, 4, 1]),
        CL_INVALID_MEM_OBJECT,
        "a buffer as the source",
    );
}

/// OpenCL's write conversion of one colour into a texel, computed here
/// independently of the implementation: normalized → round to nearest
/// even and saturate; integers saturate; half rounds to nearest even.
fn reference_texel(f: &cl_image_format, c: [u32; 4]) -> Vec<u8> {
    let fl = |i: usize| f32::from_bits(c[i]);
    let rte = |v: f32, lo: f32, hi: f32| {
        if v.is_nan() {
            0.0
        } else {
            v.round_ties_even().clamp(lo, hi)
        }
    };
    let unorm = |v: f32, max: f32| rte(v * max, 0.0, max) as u32;
    let order: &[usize] = match f.image_channel_order {
        CL_R | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => &[0],
        CL_A => &[3],
        CL_RG => &[0, 1],
        CL_RA => &[0, 3],
        CL_BGRA | CL_sBGRA => &[2, 1, 0, 3],
        CL_ARGB => &[3, 0, 1, 2],
        CL_ABGR => &[3, 2, 1, 0],
        _ => &[0, 1, 2, 3],
    };
    let half = |v: f32| -> u16 {
        // Via f64 bits for clarity: exact rounding of the 24-bit mantissa.
        let b = v.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        let a = v.abs();
        if a.is_nan() {
            return sign | 0x7e00;
        }
        if a >= 65520.0 {
            return sign | 0x7c00;
        }
        if a < f32::powi(2.0, -14) {
            return sign | (a * f32::powi(2.0, 24)).round_ties_even() as u16;
        }
        let exp = a.log2().floor() as i32;
        let m = a / f32::powi(2.0, exp) * 1024.0; // in [1024, 2048)
        let m = m.round_ties_even() as u32;
        let (exp, m) = if m == 2048 { (exp + 1, 1024) } else { (exp, m) };
        sign | (((exp + 15) as u16) << 10) | (m - 1024) as u16
    };
    let srgb = |v: f32| {
        let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
        let s = if v <= 0.0031308 {
            v * 12.92
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        };
        unorm(s, 255.0) as u8
    };
    let mut out = Vec::new();
    match f.image_channel_data_type {
        CL_UNORM_SHORT_565 => out.extend_from_slice(
            &((unorm(fl(0), 31.0) << 11 | unorm(fl(1), 63.0) << 5 | unorm(fl(2), 31.0)) as u16)
                .to_le_bytes(),
        ),
        CL_UNORM_SHORT_555 => out.extend_from_slice(
            &((unorm(fl(0), 31.0) << 10 | unorm(fl(1), 31.0) << 5 | unorm(fl(2), 31.0)) as u16)
                .to_le_bytes(),
        ),
        CL_UNORM_INT_101010 => out.extend_from_slice(
            &(unorm(fl(0), 1023.0) << 20 | unorm(fl(1), 1023.0) << 10 | unorm(fl(2), 1023.0))
                .to_le_bytes(),
        ),
        t => {
            for &i in order {
                match t {
                    CL_UNORM_INT8
                        if matches!(f.image_channel_order, CL_sRGBA | CL_sBGRA) && i != 3 =>
                    {
                        out.push(srgb(fl(i)))
                    }
                    CL_UNORM_INT8 => out.push(unorm(fl(i), 255.0) as u8),
                    CL_UNORM_INT16 => {
                        out.extend_from_slice(&(unorm(fl(i), 65535.0) as u16).to_le_bytes())
                    }
                    CL_SNORM_INT8 => out.push(rte(fl(i) * 127.0, -128.0, 127.0) as i8 as u8),
                    CL_SNORM_INT16 => out.extend_from_slice(
                        &(rte(fl(i) * 32767.0, -32768.0, 32767.0) as i16).to_le_bytes(),
                    ),
                    CL_HALF_FLOAT => out.extend_from_slice(&half(fl(i)).to_le_bytes()),
                    CL_FLOAT => out.extend_from_slice(&c[i].to_le_bytes()),
                    CL_SIGNED_INT8 => out.push((c[i] as i32).clamp(-128, 127) as i8 as u8),
                    CL_SIGNED_INT16 => out.extend_from_slice(
                        &((c[i] as i32).clamp(-32768, 32767) as i16).to_le_bytes(),
                    ),
                    CL_SIGNED_INT32 | CL_UNSIGNED_INT32 => {
                        out.extend_from_slice(&c[i].to_le_bytes())
                    }
                    CL_UNSIGNED_INT8 => out.push(c[i].min(255) as u8),
                    CL_UNSIGNED_INT16 => {
                        out.extend_from_slice(&(c[i].min(65535) as u16).to_le_bytes())
                    }
                    _ => panic!("no reference for {}", name(f)),
                }
            }
        }
    }
    out
}

#[test]
fn fill_every_format_exactly() {
    let cl = Cl::new();
    let t = CL_MEM_OBJECT_IMAGE2D;
    let read = cl.image_formats(CL_MEM_READ_ONLY, t);
    let mut all = read.clone();
    for f in cl.image_formats(CL_MEM_WRITE_ONLY, t) {
        if !contains(&all, &f) {
            all.push(f);
        }
    }
    // Colours that exercise rounding ties, saturation and NaN.
    let floats = [
        [0.5f32, 0.25, 1.0 / 3.0, 0.75],
        [-0.5, 2.0, 0.001, 0.999],
        [f32::NAN, 1.5 / 255.0, 2.5 / 255.0, -1.0],
        [1.0 + f32::powi(2.0, -11), 65520.0, -1.0e-8, 0.1],
    ];
    let ints: [[i32; 4]; 2] = [[-300, 127, 70000, -1], [5, -40000, i32::MIN, i32::MAX]];
    let uints: [[u32; 4]; 2] = [[300, 7, 70000, u32::MAX], [0, 255, 65535, 1]];
    for f in &all {
        let e = element_size(f);
        let colours: Vec<[u32; 4]> = match f.image_channel_data_type {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => {
                ints.iter().map(|c| c.map(|v| v as u32)).collect()
            }
            CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => uints.to_vec(),
            _ => floats.iter().map(|c| c.map(f32::to_bits)).collect(),
        };
        let flags = if contains(&read, f) {
            CL_MEM_READ_ONLY
        } else {
            CL_MEM_WRITE_ONLY
        };
        let (w, h) = (9usize, 5usize);
        let img = cl.image(flags, f, t, [w, h, 0, 0]);
        let mut model = bytes(w * h * e, 5);
        cl.queue.write_image(&img, [0; 3], [w, h, 1], &model);
        for (i, c) in colours.iter().enumerate() {
            let origin = [i, 1, 0];
            let region = [w - i - 1, h - 2, 1];
            // SAFETY: a four-component colour; valid objects.
            check(
                unsafe {
                    clEnqueueFillImage(
                        cl.queue.raw(),
                        img.raw(),
                        c.as_ptr().cast(),
                        origin.as_ptr(),
                        region.as_ptr(),
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                    )
                },
                "clEnqueueFillImage",
            );
            let texel = reference_texel(f, *c);
            assert_eq!(texel.len(), e, "{}", name(f));
            // PoCL truncates normalized conversions (an error of up to 1,
            // beyond the 0.6 OpenCL C allows): exact checks only elsewhere.
            let integer = matches!(
                f.image_channel_data_type,
                CL_SIGNED_INT8
                    | CL_SIGNED_INT16
                    | CL_SIGNED_INT32
                    | CL_UNSIGNED_INT8
                    | CL_UNSIGNED_INT16
                    | CL_UNSIGNED_INT32
                    | CL_FLOAT
            );
            if testing_pocl() && !integer {
                continue;
            }
            for y in 0..region[1] {
                for x in 0..region[0] {
                    let k = ((origin[1] + y) * w + origin[0] + x) * e;
                    model[k..k + e].copy_from_slice(&texel);
                }
            }
            let got = cl.queue.read_image(&img, [0; 3], [w, h, 1], e);
            assert_same(&format!("fill {} colour {i}", name(f)), &got, &model);
        }
    }
}

#[test]
fn fill_errors() {
    let cl = Cl::new();
    let img = cl.image(
        CL_MEM_READ_WRITE,
        &format(CL_RGBA, CL_FLOAT),
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
    );
    let c = [0f32; 4];
    let fill = |color: *const c_void, o: [usize; 3], r: [usize; 3]| {
        // SAFETY: valid objects; three entries each.
        unsafe {
            clEnqueueFillImage(
                cl.queue.raw(),
                img.raw(),
                color,
                o.as_ptr(),
                r.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    };
    expect_error(
        fill(ptr::null(), [0; 3], [4, 4, 1]),
        CL_INVALID_VALUE,
        "NULL colour",
    );
    expect_error(
        fill(c.as_ptr().cast(), [1, 0, 0], [4, 4, 1]),
        CL_INVALID_VALUE,
        "out of bounds",
    );
    expect_error(
        fill(c.as_ptr().cast(), [0; 3], [4, 4, 2]),
        CL_INVALID_VALUE,
        "2D with depth 2",
    );
}

#[test]
fn image_buffer_copies_at_unaligned_offsets() {
    let cl = Cl::new();
    for (fi, f) in [
        format(CL_R, CL_UNSIGNED_INT8),
        format(CL_RG, CL_UNSIGNED_INT8),
        format(CL_RGBA, CL_UNSIGNED_INT16),
        format(CL_RGBA, CL_FLOAT),
    ]
    .iter()
    .enumerate()
    {
        let e = element_size(f);
        for t in [
            CL_MEM_OBJECT_IMAGE2D,
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
        ] {
            // PoCL crashes copying 1D image buffers.
            if testing_pocl() && t == CL_MEM_OBJECT_IMAGE1D_BUFFER {
                continue;
            }
            if !contains(&cl.image_formats(CL_MEM_READ_WRITE, t), f) {
                continue;
            }
            let size = small_size(t);
            let ext = extent(t, size);
            let (img, _b) = make_image(&cl, CL_MEM_READ_WRITE, f, t, size);
            let data = bytes(ext[0] * ext[1] * ext[2] * e, 400 + fi as u32);
            cl.queue.write_image(&img, [0; 3], ext, &data);
            let origin = [1, ext[1] / 2, ext[2] / 2];
            let region = [ext[0] - 1, ext[1] - origin[1], ext[2] - origin[2]];
            let n = region[0] * region[1] * region[2] * e;
            for offset in [0usize, 1, 3, 6, 13] {
                let what = format!("{} type {t:#x} offset {offset}", name(f));
                // Image → buffer.
                let buf = cl.buffer_from(&vec![0xEEu8; n + 32]);
                // SAFETY: valid objects; three entries each.
                check(
                    unsafe {
                        clEnqueueCopyImageToBuffer(
                            cl.queue.raw(),
                            img.raw(),
                            buf.raw(),
                            origin.as_ptr(),
                            region.as_ptr(),
                            offset,
                            0,
                            ptr::null(),
                            ptr::null_mut(),
                        )
                    },
                    &what,
                );
                let mut want = vec![0xEEu8; n + 32];
                let mut k = offset;
                for z in 0..region[2] {
                    for y in 0..region[1] {
                        let s =
                            (((origin[2] + z) * ext[1] + origin[1] + y) * ext[0] + origin[0]) * e;
                        want[k..k + region[0] * e].copy_from_slice(&data[s..s + region[0] * e]);
                        k += region[0] * e;
                    }
                }
                assert_same(&what, &cl.queue.read(&buf), &want);
                // Buffer → image, from a different offset, into a fresh image.
                let (img2, _b2) = make_image(&cl, CL_MEM_READ_WRITE, f, t, size);
                let zero = vec![0u8; ext[0] * ext[1] * ext[2] * e];
                cl.queue.write_image(&img2, [0; 3], ext, &zero);
                let src = cl.buffer_from(&bytes(n + 32, 7));
                let srcd = cl.queue.read(&src);
                // SAFETY: as above.
                check(
                    unsafe {
                        clEnqueueCopyBufferToImage(
                            cl.queue.raw(),
                            src.raw(),
                            img2.raw(),
                            offset,
                            origin.as_ptr(),
                            region.as_ptr(),
                            0,
                            ptr::null(),
                            ptr::null_mut(),
                        )
                    },
                    &what,
                );
                let mut model = zero.clone();
                let mut k = offset;
                for z in 0..region[2] {
                    for y in 0..region[1] {
                        let d =
                            (((origin[2] + z) * ext[1] + origin[1] + y) * ext[0] + origin[0]) * e;
                        model[d..d + region[0] * e].copy_from_slice(&srcd[k..k + region[0] * e]);
                        k += region[0] * e;
                    }
                }
                assert_same(&what, &cl.queue.read_image(&img2, [0; 3], ext, e), &model);
            }
        }
    }
}

#[test]
fn image_buffer_copy_errors() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNORM_INT8);
    let img = cl.image(CL_MEM_READ_WRITE, &f, CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0]);
    let buf = cl.buffer::<u8>(64);
    let o = [0usize; 3];
    let r = [4usize, 4, 1];
    // SAFETY: valid queue; three entries each; handles as tested.
    unsafe {
        let q = cl.queue.raw();
        expect_error(
            clEnqueueCopyImageToBuffer(
                q,
                img.raw(),
                buf.raw(),
                o.as_ptr(),
                r.as_ptr(),
                1,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "past the buffer",
        );
        expect_error(
            clEnqueueCopyBufferToImage(
                q,
                buf.raw(),
                img.raw(),
                1,
                o.as_ptr(),
                r.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "past the buffer",
        );
        expect_error(
            clEnqueueCopyImageToBuffer(
                q,
                buf.raw(),
                buf.raw(),
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "a buffer as the image",
        );
        expect_error(
            clEnqueueCopyBufferToImage(
                q,
                img.raw(),
                img.raw(),
                0,
                o.as_ptr(),
                r.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "an image as the buffer",
        );
        let d = desc(
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
            [16, 0, 0, 0],
            (0, 0),
            buf.raw(),
        );
        let ib = cl.try_image(CL_MEM_READ_WRITE, &f, &d).unwrap();
        let r1 = [16usize, 1, 1];
        expect_error_except_pocl(
            clEnqueueCopyImageToBuffer(
                q,
                ib.raw(),
                buf.raw(),
                o.as_ptr(),
                r1.as_ptr(),
                0,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "a 1D image buffer into its own buffer",
        );
    }
}

#[test]
fn map_image_regions_with_pitches() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNSIGNED_INT8);
    let e = 4;
    for t in TYPES {
        // PoCL maps 1D image buffers with a row pitch of 0.
        if testing_pocl() && t == CL_MEM_OBJECT_IMAGE1D_BUFFER {
            continue;
        }
        let size = small_size(t);
        let ext = extent(t, size);
        let (img, _b) = make_image(&cl, CL_MEM_READ_WRITE, &f, t, size);
        let data = bytes(ext[0] * ext[1] * ext[2] * e, 500);
        cl.queue.write_image(&img, [0; 3], ext, &data);
        let origin = [1, ext[1] / 2, ext[2] / 2];
        let region = [ext[0] - 2, ext[1] - origin[1], ext[2] - origin[2]];
        let (mut row, mut slice) = (0usize, 0usize);
        let mut status = 0;
        // SAFETY: valid objects; three entries each; live out values.
        let p = unsafe {
            clEnqueueMapImage(
                cl.queue.raw(),
                img.raw(),
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE,
                origin.as_ptr(),
                region.as_ptr(),
                &mut row,
                &mut slice,
                0,
                ptr::null(),
                ptr::null_mut(),
                &mut status,
            )
        };
        check(status, &format!("clEnqueueMapImage type {t:#x}"));
        assert!(row >= region[0] * e, "type {t:#x}: row pitch {row}");
        let arrays = matches!(
            t,
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
        );
        if arrays {
            assert!(
                slice
                    >= if t == CL_MEM_OBJECT_IMAGE1D_ARRAY {
                        row
                    } else {
                        row * region[1]
                    },
                "type {t:#x}"
            );
        } else {
            assert_eq!(slice, 0, "type {t:#x}");
        }
        assert_eq!(
            query_value::<cl_uint>(mem_info(img.raw(), CL_MEM_MAP_COUNT)).unwrap(),
            1
        );
        let mut model = data.clone();
        for z in 0..region[2] {
            for y in 0..region[1] {
                let h = host_at(t, e, (row, slice), 0, y, z);
                let i = (((origin[2] + z) * ext[1] + origin[1] + y) * ext[0] + origin[0]) * e;
                // SAFETY: the mapping covers the region with these pitches.
                let line =
                    unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>().add(h), region[0] * e) };
                assert_same(
                    &format!("mapped line ({y},{z}) type {t:#x}"),
                    line,
                    &data[i..i + region[0] * e],
                );
                for (k, b) in line.iter_mut().enumerate() {
                    *b = b.wrapping_add(k as u8 + 1);
                }
                model[i..i + region[0] * e].copy_from_slice(line);
            }
        }
        // SAFETY: the pointer came from the map above.
        check(
            unsafe {
                clEnqueueUnmapMemObject(
                    cl.queue.raw(),
                    img.raw(),
                    p,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "unmap",
        );
        assert_same(
            &format!("after unmap type {t:#x}"),
            &cl.queue.read_image(&img, [0; 3], ext, e),
            &model,
        );
        assert_eq!(
            query_value::<cl_uint>(mem_info(img.raw(), CL_MEM_MAP_COUNT)).unwrap(),
            0
        );
    }
}

#[test]
fn map_image_errors_and_host_memory_maps() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNSIGNED_INT8);
    let (w, h) = (6usize, 4usize);
    let row = w * 4 + 12;
    let mut host = bytes(row * h, 600);
    let d = desc(
        CL_MEM_OBJECT_IMAGE2D,
        [w, h, 0, 0],
        (row, 0),
        ptr::null_mut(),
    );
    // SAFETY: `host` holds the image with its pitches and outlives it.
    let img = unsafe {
        cl.try_image_with_host(
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            &f,
            &d,
            host.as_mut_ptr().cast(),
        )
    }
    .unwrap();
    let (mut rp, mut sp) = (0usize, 7usize);
    let mut status = 0;
    let origin = [1usize, 1, 0];
    let region = [3usize, 2, 1];
    // SAFETY: valid objects and live out values.
    let p = unsafe {
        clEnqueueMapImage(
            cl.queue.raw(),
            img.raw(),
            CL_TRUE,
            CL_MAP_READ,
            origin.as_ptr(),
            region.as_ptr(),
            &mut rp,
            &mut sp,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut status,
        )
    };
    check(status, "clEnqueueMapImage(USE_HOST_PTR)");
    // "The pointer value returned [...] will be derived from the host_ptr."
    assert_eq!(p as usize, host.as_ptr() as usize + row + 4);
    assert_eq!((rp, sp), (row, 0));
    // SAFETY: from the map above.
    check(
        unsafe {
            clEnqueueUnmapMemObject(
                cl.queue.raw(),
                img.raw(),
                p,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "unmap",
    );
    // Errors.
    let map =
        |flags: cl_map_flags, o: [usize; 3], r: [usize; 3], rp: *mut usize, sp: *mut usize| {
            let mut status = 0;
            // SAFETY: three entries each; pointers as tested.
            let p = unsafe {
                clEnqueueMapImage(
                    cl.queue.raw(),
                    img.raw(),
                    CL_TRUE,
                    flags,
                    o.as_ptr(),
                    r.as_ptr(),
                    rp,
                    sp,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    &mut status,
                )
            };
            assert!(p.is_null() || status == CL_SUCCESS);
            status
        };
    expect_error(
        map(CL_MAP_READ, [0; 3], [w, h, 1], ptr::null_mut(), &mut sp),
        CL_INVALID_VALUE,
        "NULL image_row_pitch",
    );
    expect_error(
        map(CL_MAP_READ, [1, 0, 0], [w, h, 1], &mut rp, &mut sp),
        CL_INVALID_VALUE,
        "out of bounds",
    );
    expect_error_except_pocl(
        map(
            CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
            [0; 3],
            [w, h, 1],
            &mut rp,
            &mut sp,
        ),
        CL_INVALID_VALUE,
        "conflicting map flags",
    );
    let a3 = cl.image(
        CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY,
        &f,
        CL_MEM_OBJECT_IMAGE3D,
        [4, 4, 2, 0],
    );
    let r3 = [4usize, 4, 2];
    let mut status = 0;
    // SAFETY: valid objects; NULL slice pitch is what is tested.
    unsafe {
        let p = clEnqueueMapImage(
            cl.queue.raw(),
            a3.raw(),
            CL_TRUE,
            CL_MAP_WRITE,
            [0usize; 3].as_ptr(),
            r3.as_ptr(),
            &mut rp,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut status,
        );
        assert!(p.is_null());
        expect_error(
            status,
            CL_INVALID_VALUE,
            "NULL image_slice_pitch of a 3D image",
        );
        let p = clEnqueueMapImage(
            cl.queue.raw(),
            a3.raw(),
            CL_TRUE,
            CL_MAP_READ,
            [0usize; 3].as_ptr(),
            r3.as_ptr(),
            &mut rp,
            &mut sp,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut status,
        );
        assert!(p.is_null());
        expect_error(
            status,
            CL_INVALID_OPERATION,
            "CL_MAP_READ of a HOST_WRITE_ONLY image",
        );
    }
}

#[test]
fn image1d_buffer_shares_its_buffer() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNSIGNED_INT8);
    let data = bytes(256, 700);
    let buf = cl.buffer_from(&data);
    let d = desc(
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        [60, 0, 0, 0],
        (0, 0),
        buf.raw(),
    );
    let img = cl.try_image(0, &f, &d).unwrap();
    // Access flags are inherited from the buffer.
    assert_eq!(
        query_value::<cl_mem_flags>(mem_info(img.raw(), CL_MEM_FLAGS)).unwrap() & CL_MEM_READ_WRITE,
        CL_MEM_READ_WRITE
    );
    assert_same(
        "image over the buffer",
        &cl.queue.read_image(&img, [0; 3], [60, 1, 1], 4),
        &data[..240],
    );
    let patch = bytes(5 * 4, 701);
    cl.queue.write_image(&img, [10, 0, 0], [5, 1, 1], &patch);
    let mut want = data.clone();
    want[40..60].copy_from_slice(&patch);
    assert_same("buffer after an image write", &cl.queue.read(&buf), &want);
    // A row pitch is taken (the CTS passes one): one row, reported back.
    let d = desc(
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        [60, 0, 0, 0],
        (256, 0),
        buf.raw(),
    );
    let pitched = cl.try_image(CL_MEM_READ_ONLY, &f, &d).unwrap();
    assert_eq!(
        query_value::<usize>(image_info(pitched.raw(), CL_IMAGE_ROW_PITCH)).unwrap(),
        256
    );
    assert_same(
        "pitched image over the buffer",
        &cl.queue.read_image(&pitched, [0; 3], [60, 1, 1], 4),
        &want[..240],
    );
    drop(pitched);
    // The buffer keeps working while the image exists, and outlives it.
    drop(img);
    assert_same(
        "buffer after the image is gone",
        &cl.queue.read(&buf),
        &want,
    );
}

#[test]
fn read_write_errors() {
    let cl = Cl::new();
    let f = format(CL_RGBA, CL_UNORM_INT8);
    let img = cl.image(CL_MEM_READ_WRITE, &f, CL_MEM_OBJECT_IMAGE2D, [8, 4, 0, 0]);
    let mut out = vec![0u8; 8 * 4 * 4 * 4];
    let q = &cl.queue;
    let e = |r: Result<(), ClError>| r.err().map(|e| e.0).unwrap_or(CL_SUCCESS);
    expect_error_except_pocl(
        e(q.try_read_image(&img, [0; 3], [8, 4, 1], (0, 128), &mut out)),
        CL_INVALID_VALUE,
        "slice pitch of a 2D image",
    );
    expect_error_except_pocl(
        e(q.try_read_image(&img, [0; 3], [8, 4, 1], (31, 0), &mut out)),
        CL_INVALID_VALUE,
        "row pitch below the row",
    );
    expect_error(
        e(q.try_read_image(&img, [0, 1, 0], [8, 4, 1], (0, 0), &mut out)),
        CL_INVALID_VALUE,
        "past the bottom",
    );
    expect_error(
        e(q.try_write_image(&img, [0; 3], [8, 4, 0], (0, 0), &out)),
        CL_INVALID_VALUE,
        "zero region",
    );
    let o = [0usize; 3];
    let r = [8usize, 4, 1];
    // SAFETY: valid objects; NULL pointers are what is tested.
    unsafe {
        expect_error(
            clEnqueueReadImage(
                q.raw(),
                img.raw(),
                CL_TRUE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                ptr::null_mut(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "NULL ptr",
        );
        expect_error(
            clEnqueueReadImage(
                q.raw(),
                img.raw(),
                CL_TRUE,
                ptr::null(),
                r.as_ptr(),
                0,
                0,
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "NULL origin",
        );
        expect_error(
            clEnqueueWriteImage(
                q.raw(),
                img.raw(),
                CL_TRUE,
                o.as_ptr(),
                ptr::null(),
                0,
                0,
                out.as_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "NULL region",
        );
    }
    // Host access flags.
    let no_access = cl.image(
        CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
        &f,
        CL_MEM_OBJECT_IMAGE2D,
        [8, 4, 0, 0],
    );
    expect_error(
        e(q.try_read_image(&no_access, [0; 3], [8, 4, 1], (0, 0), &mut out)),
        CL_INVALID_OPERATION,
        "read of HOST_NO_ACCESS",
    );
    let read_only = cl.image(
        CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY,
        &f,
        CL_MEM_OBJECT_IMAGE2D,
        [8, 4, 0, 0],
    );
    expect_error(
        e(q.try_write_image(&read_only, [0; 3], [8, 4, 1], (0, 0), &out)),
        CL_INVALID_OPERATION,
        "write of HOST_READ_ONLY",
    );
    // 1D array: the slice pitch is the stride between the 1D images.
    let arr = cl.image(
        CL_MEM_READ_WRITE,
        &f,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        [8, 0, 0, 4],
    );
    expect_error_except_pocl(
        e(q.try_read_image(&arr, [0; 3], [8, 4, 1], (32, 16), &mut out)),
        CL_INVALID_VALUE,
        "1D array slice pitch below its row",
    );
    check(
        e(q.try_read_image(&arr, [0; 3], [8, 4, 1], (32, 48), &mut out)),
        "1D array with a slice pitch",
    );
}

#[test]
fn images_are_not_buffers() {
    let cl = Cl::new();
    let img = cl.image(
        CL_MEM_READ_WRITE,
        &format(CL_RGBA, CL_UNORM_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
    );
    let buf = cl.buffer::<u8>(64);
    let mut out = [0u8; 64];
    let q = cl.queue.raw();
    // SAFETY: valid objects and sizes; the image handle is what is tested.
    unsafe {
        expect_error_except_pocl(
            clEnqueueReadBuffer(
                q,
                img.raw(),
                CL_TRUE,
                0,
                16,
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "clEnqueueReadBuffer of an image",
        );
        expect_error_except_pocl(
            clEnqueueCopyBuffer(
                q,
                buf.raw(),
                img.raw(),
                0,
                0,
                16,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "clEnqueueCopyBuffer into an image",
        );
        let region = cl_buffer_region {
            origin: 0,
            size: 16,
        };
        let mut status = 0;
        let sub = clCreateSubBuffer(
            img.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut status,
        );
        assert!(sub.is_null() || testing_pocl());
        expect_error_except_pocl(
            status,
            CL_INVALID_MEM_OBJECT,
            "clCreateSubBuffer of an image",
        );
        let o = [0usize; 3];
        let r = [4usize, 4, 1];
        expect_error_except_pocl(
            clEnqueueReadImage(
                q,
                buf.raw(),
                CL_TRUE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "clEnqueueReadImage of a buffer",
        );
    }
    // A pointer kernel argument takes buffers only.
    let k = cl.kernel("kernel void k(global int *p) { p[0] = 1; }", "k");
    let raw = img.raw();
    // SAFETY: a cl_mem-sized value pointing at an image handle.
    let status = unsafe {
        clSetKernelArg(
            k.raw(),
            0,
            std::mem::size_of::<cl_mem>(),
            (&raw as *const cl_mem).cast(),
        )
    };
    if !testing_pocl() {
        expect_error(
            status,
            CL_INVALID_MEM_OBJECT,
            "an image for a pointer argument",
        );
    }
}

#[test]
fn non_blocking_image_commands_with_events_and_profiling() {
    let cl = Cl::new();
    let mut status = 0;
    let props = [
        CL_QUEUE_PROPERTIES as cl_queue_properties,
        CL_QUEUE_PROFILING_ENABLE as cl_queue_properties,
        0,
    ];
    // SAFETY: valid context and device; a 0-terminated property list.
    let q = unsafe {
        clCreateCommandQueueWithProperties(cl.raw(), cl.device(), props.as_ptr(), &mut status)
    };
    check(status, "clCreateCommandQueueWithProperties");
    let f = format(CL_RGBA, CL_FLOAT);
    let img = cl.image(CL_MEM_READ_WRITE, &f, CL_MEM_OBJECT_IMAGE2D, [32, 16, 0, 0]);
    let data = bytes(32 * 16 * 16, 800);
    let mut back = vec![0u8; data.len()];
    let (o, r) = ([0usize; 3], [32usize, 16, 1]);
    let mut user_status = 0;
    // SAFETY: valid context.
    let gate = unsafe { clCreateUserEvent(cl.raw(), &mut user_status) };
    check(user_status, "clCreateUserEvent");
    let mut ev_write: cl_event = ptr::null_mut();
    let mut ev_read: cl_event = ptr::null_mut();
    // SAFETY: the host blocks stay alive and untouched until the events complete.
    unsafe {
        check(
            clEnqueueWriteImage(
                q,
                img.raw(),
                CL_FALSE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                data.as_ptr().cast(),
                1,
                &gate,
                &mut ev_write,
            ),
            "write",
        );
        check(
            clEnqueueReadImage(
                q,
                img.raw(),
                CL_FALSE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                back.as_mut_ptr().cast(),
                1,
                &ev_write,
                &mut ev_read,
            ),
            "read",
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut st: cl_int = 0;
        check(
            clGetEventInfo(
                ev_read,
                CL_EVENT_COMMAND_EXECUTION_STATUS,
                4,
                (&mut st as *mut cl_int).cast(),
                ptr::null_mut(),
            ),
            "status",
        );
        assert!(st > CL_COMPLETE, "the read ran before its wait list");
        check(
            clSetUserEventStatus(gate, CL_COMPLETE),
            "clSetUserEventStatus",
        );
        check(clWaitForEvents(1, &ev_read), "clWaitForEvents");
        let mut ct: cl_command_type = 0;
        check(
            clGetEventInfo(
                ev_read,
                CL_EVENT_COMMAND_TYPE,
                4,
                (&mut ct as *mut cl_command_type).cast(),
                ptr::null_mut(),
            ),
            "type",
        );
        assert_eq!(ct, CL_COMMAND_READ_IMAGE);
        let (mut start, mut end) = (0u64, 0u64);
        check(
            clGetEventProfilingInfo(
                ev_read,
                CL_PROFILING_COMMAND_START,
                8,
                (&mut start as *mut u64).cast(),
                ptr::null_mut(),
            ),
            "start",
        );
        check(
            clGetEventProfilingInfo(
                ev_read,
                CL_PROFILING_COMMAND_END,
                8,
                (&mut end as *mut u64).cast(),
                ptr::null_mut(),
            ),
            "end",
        );
        assert!(start > 0 && end >= start);
        clReleaseEvent(ev_write);
        clReleaseEvent(ev_read);
        clReleaseEvent(gate);
        clReleaseCommandQueue(q);
    }
    assert_same("non-blocking round trip", &back, &data);
}

#[test]
fn samplers_create_and_query() {
    let cl = Cl::new();
    let s = cl
        .try_sampler(false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR)
        .unwrap_or_else(|e| panic!("{e}"));
    let raw = s.raw();
    assert_eq!(
        query_value::<cl_bool>(sampler_info(raw, CL_SAMPLER_NORMALIZED_COORDS)).unwrap(),
        CL_FALSE
    );
    assert_eq!(
        query_value::<cl_addressing_mode>(sampler_info(raw, CL_SAMPLER_ADDRESSING_MODE)).unwrap(),
        CL_ADDRESS_CLAMP_TO_EDGE
    );
    assert_eq!(
        query_value::<cl_filter_mode>(sampler_info(raw, CL_SAMPLER_FILTER_MODE)).unwrap(),
        CL_FILTER_LINEAR
    );
    let ctx: *mut c_void = query_value(sampler_info(raw, CL_SAMPLER_CONTEXT)).unwrap();
    assert_eq!(ctx, cl.raw());
    assert_eq!(
        query::<u8>(sampler_info(raw, CL_SAMPLER_PROPERTIES))
            .unwrap()
            .len(),
        0
    );
    assert_eq!(
        query_value::<cl_uint>(sampler_info(raw, CL_SAMPLER_REFERENCE_COUNT)).unwrap(),
        1
    );
    // SAFETY: valid sampler.
    check(unsafe { clRetainSampler(raw) }, "clRetainSampler");
    assert_eq!(
        query_value::<cl_uint>(sampler_info(raw, CL_SAMPLER_REFERENCE_COUNT)).unwrap(),
        2
    );
    // SAFETY: the reference taken above.
    check(unsafe { clReleaseSampler(raw) }, "clReleaseSampler");
    // With properties: returned as given; defaults for what is left out.
    let props: [cl_sampler_properties; 5] = [
        CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
        CL_FILTER_LINEAR as cl_sampler_properties,
        CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties,
        CL_FALSE as cl_sampler_properties,
        0,
    ];
    let mut status = 0;
    // SAFETY: a 0-terminated property list.
    let s2 = ferrocl_tests::Sampler::from_raw(unsafe {
        clCreateSamplerWithProperties(cl.raw(), props.as_ptr(), &mut status)
    });
    check(status, "clCreateSamplerWithProperties");
    assert_eq!(
        query::<cl_sampler_properties>(sampler_info(s2.raw(), CL_SAMPLER_PROPERTIES)).unwrap(),
        props
    );
    assert_eq!(
        query_value::<cl_addressing_mode>(sampler_info(s2.raw(), CL_SAMPLER_ADDRESSING_MODE))
            .unwrap(),
        CL_ADDRESS_CLAMP
    );
    assert_eq!(
        query_value::<cl_bool>(sampler_info(s2.raw(), CL_SAMPLER_NORMALIZED_COORDS)).unwrap(),
        CL_FALSE
    );
    // Every mode combination is accepted.
    for a in [
        CL_ADDRESS_NONE,
        CL_ADDRESS_CLAMP_TO_EDGE,
        CL_ADDRESS_CLAMP,
        CL_ADDRESS_REPEAT,
        CL_ADDRESS_MIRRORED_REPEAT,
    ] {
        for fm in [CL_FILTER_NEAREST, CL_FILTER_LINEAR] {
            assert!(cl.try_sampler(true, a, fm).is_ok());
        }
    }
    // NULL properties: every default (PoCL refuses NULL here).
    if testing_pocl() {
        return;
    }
    // SAFETY: NULL properties: every default.
    let s3 = ferrocl_tests::Sampler::from_raw(unsafe {
        clCreateSamplerWithProperties(cl.raw(), ptr::null(), &mut status)
    });
    check(status, "clCreateSamplerWithProperties(NULL)");
    assert_eq!(
        query_value::<cl_bool>(sampler_info(s3.raw(), CL_SAMPLER_NORMALIZED_COORDS)).unwrap(),
        CL_TRUE
    );
    assert_eq!(
        query_value::<cl_filter_mode>(sampler_info(s3.raw(), CL_SAMPLER_FILTER_MODE)).unwrap(),
        CL_FILTER_NEAREST
    );
    assert_eq!(
        query::<u8>(sampler_info(s3.raw(), CL_SAMPLER_PROPERTIES))
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn sampler_errors() {
    let cl = Cl::new();
    let code =
        |r: Result<ferrocl_tests::Sampler, ClError>| r.err().map(|e| e.0).unwrap_or(CL_SUCCESS);
    expect_error_except_pocl(
        code(cl.try_sampler(true, 0x1234, CL_FILTER_NEAREST)),
        CL_INVALID_VALUE,
        "bad addressing mode",
    );
    expect_error_except_pocl(
        code(cl.try_sampler(true, CL_ADDRESS_CLAMP, 0x1234)),
        CL_INVALID_VALUE,
        "bad filter mode",
    );
    let mut status = 0;
    let bad: [cl_sampler_properties; 3] = [0x4321, 1, 0];
    let dup: [cl_sampler_properties; 5] = [
        CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
        CL_FILTER_LINEAR as cl_sampler_properties,
        CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
        CL_FILTER_NEAREST as cl_sampler_properties,
        0,
    ];
    // SAFETY: 0-terminated property lists; invalid handles are what is tested.
    unsafe {
        assert!(clCreateSamplerWithProperties(cl.raw(), bad.as_ptr(), &mut status).is_null());
        expect_error(status, CL_INVALID_VALUE, "unknown sampler property");
        assert!(clCreateSamplerWithProperties(cl.raw(), dup.as_ptr(), &mut status).is_null());
        expect_error(status, CL_INVALID_VALUE, "repeated sampler property");
        assert!(clCreateSampler(
            ptr::null_mut(),
            CL_TRUE,
            CL_ADDRESS_CLAMP,
            CL_FILTER_NEAREST,
            &mut status
        )
        .is_null());
        expect_error(status, CL_INVALID_CONTEXT, "no context");
        expect_error(
            clRetainSampler(ptr::null_mut()),
            CL_INVALID_SAMPLER,
            "clRetainSampler(NULL)",
        );
        expect_error(
            clReleaseSampler(ptr::null_mut()),
            CL_INVALID_SAMPLER,
            "clReleaseSampler(NULL)",
        );
        let mut v = 0u32;
        expect_error(
            clGetSamplerInfo(
                ptr::null_mut(),
                CL_SAMPLER_FILTER_MODE,
                4,
                (&mut v as *mut u32).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_SAMPLER,
            "clGetSamplerInfo(NULL)",
        );
    }
    let s = cl
        .try_sampler(true, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST)
        .unwrap();
    expect_error(
        sampler_info(s.raw(), 0x9999).call(0, None, Some(&mut 0)),
        CL_INVALID_VALUE,
        "unknown sampler query",
    );
    expect_error(
        sampler_info(s.raw(), CL_SAMPLER_FILTER_MODE).call(2, Some(&mut [0u8; 2]), None),
        CL_INVALID_VALUE,
        "short value",
    );
}

const KERNELS: &str = r#"
kernel void fetch2d(read_only image2d_t img, sampler_t s, global float4 *out, global int *info) {
    int i = get_global_id(0);
    out[i] = read_imagef(img, s, (int2)(i, 0));
    if (i == 0) {
        info[0] = get_image_channel_order(img);
        info[1] = get_image_channel_data_type(img);
    }
}

kernel void fetch1d_buffer(read_only image1d_buffer_t img, global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(img, i);
}

kernel void copy_u(read_only image2d_t src, sampler_t s, global uint4 *out, int w) {
    int x = get_global_id(0), y = get_global_id(1);
    out[y * w + x] = read_imageui(src, s, (int2)(x, y));
}

kernel void fill_u(write_only image2d_t dst, uint4 v) {
    write_imageui(dst, (int2)(get_global_id(0), get_global_id(1)), v);
}
"#;

/// A cl_mem (image) or cl_sampler kernel argument from a raw handle.
struct Handle<T>(T);

impl<T: Copy + 'static> ferrocl_tests::KernelArg for Handle<T> {
    fn arg_size(&self) -> usize {
        std::mem::size_of::<T>()
    }
    fn arg_value(&self) -> *const c_void {
        (&self.0 as *const T).cast()
    }
}

#[test]
fn set_kernel_arg_checks_images_and_samplers() {
    // (PoCL checks neither the image type nor the access: the errors are
    // checked elsewhere.)
    let cl = Cl::new();
    let k = cl.kernel(KERNELS, "fetch2d");
    let f = format(CL_RGBA, CL_UNORM_INT8);
    let img = cl.image(CL_MEM_READ_ONLY, &f, CL_MEM_OBJECT_IMAGE2D, [4, 1, 0, 0]);
    let wo = cl.image(CL_MEM_WRITE_ONLY, &f, CL_MEM_OBJECT_IMAGE2D, [4, 1, 0, 0]);
    let img3 = cl.image(CL_MEM_READ_ONLY, &f, CL_MEM_OBJECT_IMAGE3D, [4, 2, 2, 0]);
    let buf = cl.buffer::<u8>(64);
    let s = cl
        .try_sampler(false, CL_ADDRESS_NONE, CL_FILTER_NEAREST)
        .unwrap();
    let code = |r: Result<(), ClError>| r.err().map(|e| e.0).unwrap_or(CL_SUCCESS);
    check(code(k.try_arg(0, &Handle(img.raw()))), "a 2D image");
    check(code(k.try_arg(1, &Handle(s.raw()))), "a sampler");
    expect_error_except_pocl(
        code(k.try_arg(0, &Handle(img3.raw()))),
        CL_INVALID_MEM_OBJECT,
        "a 3D image for image2d_t",
    );
    expect_error_except_pocl(
        code(k.try_arg(0, &Handle(buf.raw()))),
        CL_INVALID_MEM_OBJECT,
        "a buffer for image2d_t",
    );
    expect_error_except_pocl(
        code(k.try_arg(0, &Handle(ptr::null_mut::<c_void>()))),
        CL_INVALID_MEM_OBJECT,
        "NULL for image2d_t",
    );
    expect_error_except_pocl(
        code(k.try_arg(0, &Handle(wo.raw()))),
        CL_INVALID_ARG_VALUE,
        "a WRITE_ONLY image for read_only",
    );
    expect_error_except_pocl(
        code(k.try_arg(0, &Handle(0u32))),
        CL_INVALID_ARG_SIZE,
        "4 bytes for an image",
    );
    expect_error_except_pocl(
        code(k.try_arg(1, &Handle(img.raw()))),
        CL_INVALID_SAMPLER,
        "an image for sampler_t",
    );
    expect_error_except_pocl(
        code(k.try_arg(1, &Handle(ptr::null_mut::<c_void>()))),
        CL_INVALID_SAMPLER,
        "NULL for sampler_t",
    );
    expect_error_except_pocl(
        code(k.try_arg(1, &Handle(0u32))),
        CL_INVALID_ARG_SIZE,
        "4 bytes for a sampler",
    );
    // SAFETY: a NULL arg_value is what is tested.
    unsafe {
        expect_error_except_pocl(
            clSetKernelArg(k.raw(), 0, std::mem::size_of::<cl_mem>(), ptr::null()),
            CL_INVALID_MEM_OBJECT,
            "NULL arg_value for an image",
        );
        expect_error_except_pocl(
            clSetKernelArg(k.raw(), 1, std::mem::size_of::<cl_sampler>(), ptr::null()),
            CL_INVALID_SAMPLER,
            "NULL arg_value for a sampler",
        );
    }
    // write_only arguments refuse READ_ONLY images; 1D image buffers only.
    let fill = cl.kernel(KERNELS, "fill_u");
    let ui = format(CL_RGBA, CL_UNSIGNED_INT8);
    let ro = cl.image(CL_MEM_READ_ONLY, &ui, CL_MEM_OBJECT_IMAGE2D, [4, 1, 0, 0]);
    expect_error_except_pocl(
        code(fill.try_arg(0, &Handle(ro.raw()))),
        CL_INVALID_ARG_VALUE,
        "a READ_ONLY image for write_only",
    );
    let tb = cl.kernel(KERNELS, "fetch1d_buffer");
    let one_d = cl.image(CL_MEM_READ_ONLY, &f, CL_MEM_OBJECT_IMAGE1D, [4, 0, 0, 0]);
    expect_error_except_pocl(
        code(tb.try_arg(0, &Handle(one_d.raw()))),
        CL_INVALID_MEM_OBJECT,
        "a 1D image for image1d_buffer_t",
    );
}

/// (order, memory bytes of one texel, what read_imagef returns ×255).
fn order_cases() -> Vec<(cl_channel_order, Vec<u8>, [f32; 4])> {
    vec![
        (CL_RGBA, vec![10, 20, 30, 40], [10.0, 20.0, 30.0, 40.0]),
        (CL_BGRA, vec![30, 20, 10, 40], [10.0, 20.0, 30.0, 40.0]),
        (CL_ARGB, vec![40, 10, 20, 30], [10.0, 20.0, 30.0, 40.0]),
        (CL_ABGR, vec![40, 30, 20, 10], [10.0, 20.0, 30.0, 40.0]),
        (CL_R, vec![10], [10.0, 0.0, 0.0, 255.0]),
        (CL_A, vec![40], [0.0, 0.0, 0.0, 40.0]),
        (CL_RG, vec![10, 20], [10.0, 20.0, 0.0, 255.0]),
        (CL_RA, vec![10, 40], [10.0, 0.0, 0.0, 40.0]),
        (CL_INTENSITY, vec![50], [50.0, 50.0, 50.0, 50.0]),
        (CL_LUMINANCE, vec![50], [50.0, 50.0, 50.0, 255.0]),
    ]
}

#[test]
fn kernels_read_every_channel_order_as_rgba() {
    let cl = Cl::new();
    let k2 = cl.kernel(KERNELS, "fetch2d");
    let kb = cl.kernel(KERNELS, "fetch1d_buffer");
    let s = cl
        .try_sampler(false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST)
        .unwrap();
    let read2d = cl.image_formats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
    let read_tb = cl.image_formats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE1D_BUFFER);
    let mut tested = 0;
    for (order, texel, want) in order_cases() {
        let f = format(order, CL_UNORM_INT8);
        let want: Vec<f32> = want.iter().map(|v| v / 255.0).collect();
        let data: Vec<u8> = texel.repeat(4);
        if contains(&read2d, &f) {
            let img = cl.image(CL_MEM_READ_ONLY, &f, CL_MEM_OBJECT_IMAGE2D, [4, 1, 0, 0]);
            cl.queue.write_image(&img, [0; 3], [4, 1, 1], &data);
            let out = cl.buffer::<[f32; 4]>(4);
            let info = cl.buffer::<i32>(2);
            k2.arg(0, &Handle(img.raw()))
                .arg(1, &Handle(s.raw()))
                .arg(2, &out)
                .arg(3, &info);
            cl.queue.run(&k2, &[4], None);
            for (i, v) in cl.queue.read(&out).iter().enumerate() {
                ferrocl_tests::assert_close(
                    &format!("2D order {order:#x} texel {i}"),
                    v,
                    &want,
                    1e-6,
                );
            }
            assert_eq!(cl.queue.read(&info), [order as i32, CL_UNORM_INT8 as i32]);
            tested += 1;
        }
        if contains(&read_tb, &f) {
            let buf = cl.buffer_from(&data);
            let d = desc(
                CL_MEM_OBJECT_IMAGE1D_BUFFER,
                [4, 0, 0, 0],
                (0, 0),
                buf.raw(),
            );
            let img = cl.try_image(CL_MEM_READ_ONLY, &f, &d).unwrap();
            let out = cl.buffer::<[f32; 4]>(4);
            kb.arg(0, &Handle(img.raw())).arg(1, &out);
            cl.queue.run(&kb, &[4], None);
            for (i, v) in cl.queue.read(&out).iter().enumerate() {
                ferrocl_tests::assert_close(
                    &format!("1D buffer order {order:#x} texel {i}"),
                    v,
                    &want,
                    1e-6,
                );
            }
        }
    }
    assert!(tested >= 2, "RGBA and BGRA at least");
}

#[test]
fn launches_in_flight_keep_their_own_images_and_samplers() {
    let cl = Cl::new();
    let k = cl.kernel(KERNELS, "copy_u");
    let f = format(CL_RGBA, CL_UNSIGNED_INT32);
    let (w, h) = (8usize, 4usize);
    let modes = [CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP];
    let samplers: Vec<_> = modes
        .iter()
        .map(|&a| cl.try_sampler(false, a, CL_FILTER_NEAREST).unwrap())
        .collect();
    let n = 24;
    let mut images = Vec::new();
    let mut outs = Vec::new();
    let mut wants = Vec::new();
    for i in 0..n {
        let data: Vec<u32> = (0..w * h * 4).map(|j| (i * 1000 + j) as u32).collect();
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let img = cl.image(CL_MEM_READ_ONLY, &f, CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0]);
        cl.queue.write_image(&img, [0; 3], [w, h, 1], &bytes);
        images.push(img);
        outs.push(cl.buffer::<u32>(w * h * 4));
        wants.push(data);
    }
    // Every launch is enqueued before any is waited for: each keeps the
    // images and sampler it was given, whatever the kernel's arguments
    // become afterwards.
    for i in 0..n {
        k.arg(0, &Handle(images[i].raw()))
            .arg(1, &Handle(samplers[i % samplers.len()].raw()))
            .arg(2, &outs[i])
            .arg(3, &(w as i32));
        cl.queue.try_enqueue(&k, None, &[w, h], None).unwrap();
    }
    cl.queue.finish();
    for i in 0..n {
        assert_same(&format!("launch {i}"), &cl.queue.read(&outs[i]), &wants[i]);
    }
    // The same kernel again and again on one image (sets recycled).
    for round in 0..8u32 {
        let fill = cl.kernel(KERNELS, "fill_u");
        let dst = cl.image(CL_MEM_WRITE_ONLY, &f, CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0]);
        fill.arg(0, &Handle(dst.raw()))
            .arg(1, &[round, 2 * round, 3, 4]);
        cl.queue.run(&fill, &[w, h], None);
        let got = cl.queue.read_image(&dst, [0; 3], [w, h, 1], 16);
        let want: Vec<u8> = [round, 2 * round, 3, 4]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>()
            .repeat(w * h);
        assert_same(&format!("fill round {round}"), &got, &want);
    }
}
