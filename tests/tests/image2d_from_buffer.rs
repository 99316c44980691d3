//! cl_khr_image2d_from_buffer through the ICD loader: the alignment
//! queries, clCreateImage of a 2D image over a buffer with its spec errors,
//! clGetImageInfo(CL_IMAGE_BUFFER), and that the image *is* the buffer's
//! memory at its row pitch: bytes written to the buffer are read through
//! the image (host reads, kernel reads with and without a sampler, size
//! queries) and bytes written through the image (host writes, kernel
//! writes, read-write images) land in the buffer at the pitch, the
//! padding untouched. Every value is checked against a CPU reference.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::images::{desc, format};
use ferrocl_tests::info::{image_info, mem_info, query_value};
use ferrocl_tests::sys::*;
use ferrocl_tests::{
    assert_close, assert_same, device, device_string, device_value, Buffer, Cl, ClError, Image,
};

fn has_extension() -> bool {
    device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_image2d_from_buffer")
}

/// (CL_DEVICE_IMAGE_PITCH_ALIGNMENT, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT).
fn alignments() -> (usize, usize) {
    let p: cl_uint = device_value(device(), CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
    let b: cl_uint = device_value(device(), CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT);
    (p as usize, b as usize)
}

/// A row pitch in bytes of at least `width` texels of `element` bytes plus
/// `extra` texels, rounded up to the device's pitch alignment.
fn pitch_for(width: usize, extra: usize, element: usize) -> usize {
    let align = alignments().0.max(1);
    (width + extra).next_multiple_of(align) * element
}

/// clCreateImage of a 2D image over `buffer`.
fn image_over(
    cl: &Cl,
    flags: cl_mem_flags,
    fmt: (cl_channel_order, cl_channel_type),
    size: (usize, usize),
    pitch: usize,
    buffer: cl_mem,
) -> Result<Image, ClError> {
    let d = desc(
        CL_MEM_OBJECT_IMAGE2D,
        [size.0, size.1, 1, 1],
        (pitch, 0),
        buffer,
    );
    cl.context.try_image(flags, &format(fmt.0, fmt.1), &d)
}

#[test]
fn alignment_queries_match_the_extension() {
    let (pitch, base) = alignments();
    if has_extension() {
        assert!(pitch.is_power_of_two(), "pitch alignment {pitch}");
        assert!(base.is_power_of_two(), "base address alignment {base}");
    } else {
        assert_eq!((pitch, base), (0, 0));
    }
}

#[test]
fn creation_follows_the_spec() {
    if !has_extension() {
        return;
    }
    let cl = Cl::new();
    let (w, h) = (5usize, 3usize);
    let pitch = pitch_for(w, 3, 4);
    let buf = cl.buffer::<u8>(pitch * h);
    let rgba8 = (CL_RGBA, CL_UNORM_INT8);
    let img = image_over(&cl, 0, rgba8, (w, h), pitch, buf.raw()).expect("image over a buffer");
    let parent: cl_mem = query_value(image_info(img.raw(), CL_IMAGE_BUFFER)).unwrap();
    assert_eq!(parent, buf.raw(), "CL_IMAGE_BUFFER");
    let assoc: cl_mem = query_value(mem_info(img.raw(), CL_MEM_ASSOCIATED_MEMOBJECT)).unwrap();
    assert_eq!(assoc, buf.raw(), "CL_MEM_ASSOCIATED_MEMOBJECT");
    let row: usize = query_value(image_info(img.raw(), CL_IMAGE_ROW_PITCH)).unwrap();
    assert_eq!(row, pitch, "CL_IMAGE_ROW_PITCH");
    let (iw, ih): (usize, usize) = (
        query_value(image_info(img.raw(), CL_IMAGE_WIDTH)).unwrap(),
        query_value(image_info(img.raw(), CL_IMAGE_HEIGHT)).unwrap(),
    );
    assert_eq!((iw, ih), (w, h));
    // A zero pitch is width x element size.
    let tight = image_over(&cl, 0, rgba8, (4, h), 0, buf.raw()).expect("pitch 0");
    let row: usize = query_value(image_info(tight.raw(), CL_IMAGE_ROW_PITCH)).unwrap();
    assert_eq!(row, 16);

    let err = |r: Result<Image, ClError>| r.err().map(|e| e.0);
    // A pitch below width x element size, or not a multiple of the element
    // size: CL_INVALID_IMAGE_DESCRIPTOR.
    assert_eq!(
        err(image_over(&cl, 0, rgba8, (w, h), 4 * w - 4, buf.raw())),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    assert_eq!(
        err(image_over(&cl, 0, rgba8, (w, h), pitch + 2, buf.raw())),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    // "the image_row_pitch x image_height must be less than or equal to the
    // size of the buffer object".
    assert_eq!(
        err(image_over(&cl, 0, rgba8, (w, h + 1), pitch, buf.raw())),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    // Host-pointer flags are refused for an image made from a buffer.
    assert_eq!(
        err(image_over(
            &cl,
            CL_MEM_COPY_HOST_PTR,
            rgba8,
            (w, h),
            pitch,
            buf.raw()
        )),
        Some(CL_INVALID_VALUE)
    );
    // A read-only buffer cannot become a writable image.
    let ro = cl.buffer_with::<u8>(CL_MEM_READ_ONLY, &vec![0; pitch * h]);
    assert_eq!(
        err(image_over(
            &cl,
            CL_MEM_READ_WRITE,
            rgba8,
            (w, h),
            pitch,
            ro.raw()
        )),
        Some(CL_INVALID_VALUE)
    );
    // Images of other types take no buffer but 1D image buffers.
    let d = desc(
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        [w, h, 1, 2],
        (pitch, 0),
        buf.raw(),
    );
    assert_eq!(
        cl.context
            .try_image(0, &format(CL_RGBA, CL_UNORM_INT8), &d)
            .err()
            .map(|e| e.0),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
}

#[test]
fn base_address_alignment_is_checked_for_host_memory() {
    if !has_extension() {
        return;
    }
    let cl = Cl::new();
    let base = alignments().1;
    let (w, h) = (8usize, 2usize);
    let pitch = pitch_for(w, 0, 4);
    // Host memory aligned to the base address alignment of 4-byte texels,
    // then one texel past it.
    let align = base * 4;
    let mut host = vec![0u8; pitch * h + 2 * align];
    let start = host.as_ptr().align_offset(align);
    for (off, expect) in [
        (start, None),
        (start + 4, Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)),
    ] {
        let mut status = CL_SUCCESS;
        // SAFETY: `host` outlives the buffer (released before the end of
        // this iteration) and holds pitch x h bytes from `off`.
        let raw = unsafe {
            clCreateBuffer(
                cl.context.raw(),
                CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                pitch * h,
                host.as_mut_ptr().add(off).cast::<c_void>(),
                &mut status,
            )
        };
        assert_eq!(status, CL_SUCCESS);
        let buf = Buffer::<u8>::from_raw(raw, pitch * h);
        let r = image_over(&cl, 0, (CL_RGBA, CL_UNORM_INT8), (w, h), pitch, buf.raw());
        assert_eq!(r.err().map(|e| e.0), expect, "host offset {}", off - start);
    }
}

/// The bytes of a `w` x `h` image of `element`-byte texels at `pitch` in a
/// buffer of `pitch * h` bytes: texel bytes `f(x, y, byte)`, padding 0xEE.
fn pitched_bytes(
    (w, h): (usize, usize),
    element: usize,
    pitch: usize,
    f: impl Fn(usize, usize, usize) -> u8,
) -> Vec<u8> {
    let mut v = vec![0xEE; pitch * h];
    for y in 0..h {
        for x in 0..w {
            for k in 0..element {
                v[y * pitch + x * element + k] = f(x, y, k);
            }
        }
    }
    v
}

#[test]
fn host_reads_and_writes_share_the_buffer() {
    if !has_extension() {
        return;
    }
    let cl = Cl::new();
    let (w, h) = (7usize, 4usize);
    let pitch = pitch_for(w, 5, 4);
    let data = pitched_bytes((w, h), 4, pitch, |x, y, k| (x * 31 + y * 7 + k * 3) as u8);
    let buf = cl.buffer_from::<u8>(&data);
    let img = image_over(
        &cl,
        0,
        (CL_RGBA, CL_UNSIGNED_INT8),
        (w, h),
        pitch,
        buf.raw(),
    )
    .expect("image over a buffer");
    // Buffer → image: the whole image and a sub-region.
    let tight: Vec<u8> = (0..h)
        .flat_map(|y| data[y * pitch..y * pitch + 4 * w].to_vec())
        .collect();
    assert_same(
        "whole image",
        &cl.queue.read_image(&img, [0; 3], [w, h, 1], 4),
        &tight,
    );
    let sub: Vec<u8> = (1..3)
        .flat_map(|y| data[y * pitch + 2 * 4..y * pitch + 6 * 4].to_vec())
        .collect();
    assert_same(
        "region",
        &cl.queue.read_image(&img, [2, 1, 0], [4, 2, 1], 4),
        &sub,
    );
    // Image → buffer: a written region lands at the pitch, the rest stays.
    let patch: Vec<u8> = (0..3 * 2 * 4).map(|i| 200 + i as u8).collect();
    cl.queue.write_image(&img, [3, 2, 0], [3, 2, 1], &patch);
    let mut want = data.clone();
    for y in 0..2 {
        let o = (2 + y) * pitch + 3 * 4;
        want[o..o + 12].copy_from_slice(&patch[y * 12..y * 12 + 12]);
    }
    assert_same("buffer after the image write", &cl.queue.read(&buf), &want);
    // A copy into an ordinary image and back into the buffer-made one.
    let plain = cl.context.image(
        CL_MEM_READ_WRITE,
        &format(CL_RGBA, CL_UNSIGNED_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [w, h, 1, 1],
    );
    let region = [w, h, 1];
    let copy = |src: &Image, dst: &Image, so: [usize; 3], dor: [usize; 3], r: [usize; 3]| {
        // SAFETY: live images of one format; the regions lie inside both.
        let s = unsafe {
            clEnqueueCopyImage(
                cl.queue.raw(),
                src.raw(),
                dst.raw(),
                so.as_ptr(),
                dor.as_ptr(),
                r.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        assert_eq!(s, CL_SUCCESS, "clEnqueueCopyImage");
    };
    copy(&img, &plain, [0; 3], [0; 3], region);
    let tight_now: Vec<u8> = (0..h)
        .flat_map(|y| want[y * pitch..y * pitch + 4 * w].to_vec())
        .collect();
    assert_same(
        "copied out",
        &cl.queue.read_image(&plain, [0; 3], region, 4),
        &tight_now,
    );
    // Shift the plain image's first row into row 3 of the buffer's image.
    copy(&plain, &img, [0, 0, 0], [0, 3, 0], [w, 1, 1]);
    want.copy_within(0..4 * w, 3 * pitch);
    assert_same("buffer after the copy in", &cl.queue.read(&buf), &want);
}

const SOURCE: &str = r#"
kernel void read_all(read_only image2d_t src, sampler_t s, global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_image_width(src), h = get_image_height(src);
    out[3 * (y * w + x)] = read_imagef(src, (int2)(x, y));
    // One texel to the right and below, clamped to the edge by the sampler.
    out[3 * (y * w + x) + 1] = read_imagef(src, s, (float2)(x + 1.5f, y + 1.5f));
    out[3 * (y * w + x) + 2] = (float4)(w, h, get_image_dim(src).x, get_image_dim(src).y);
}

kernel void write_all(write_only image2d_t dst, global const uint4 *in) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imageui(dst, (int2)(x, y), in[y * get_image_width(dst) + x]);
}
"#;

const READ_WRITE_SOURCE: &str = r#"
kernel void bump(read_write image2d_t img) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagei(img, p, read_imagei(img, p) + (int4)(1, -2, 3, -4));
}
"#;

/// The float value of a CL_UNORM_INT8 byte.
fn unorm8(b: u8) -> f32 {
    b as f32 / 255.0
}

#[test]
fn kernels_read_images_made_from_buffers() {
    if !has_extension() {
        return;
    }
    let cl = Cl::new();
    let k = cl.kernel(SOURCE, "read_all");
    let sampler = cl
        .context
        .try_sampler(false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST)
        .expect("sampler");
    let (w, h) = (6usize, 3usize);
    // CL_BGRA: memory order B, G, R, A, read as (R, G, B, A).
    for order in [CL_RGBA, CL_BGRA] {
        let pitch = pitch_for(w, 2, 4);
        let data = pitched_bytes((w, h), 4, pitch, |x, y, k| (x * 40 + y * 9 + k * 50) as u8);
        let buf = cl.buffer_from::<u8>(&data);
        let img = image_over(
            &cl,
            CL_MEM_READ_ONLY,
            (order, CL_UNORM_INT8),
            (w, h),
            pitch,
            buf.raw(),
        )
        .expect("image over a buffer");
        // The same kernel on an ordinary image of the same texels: both
        // bindings of the argument are exercised in turn.
        let plain = cl.context.image(
            CL_MEM_READ_ONLY,
            &format(order, CL_UNORM_INT8),
            CL_MEM_OBJECT_IMAGE2D,
            [w, h, 1, 1],
        );
        let tight: Vec<u8> = (0..h)
            .flat_map(|y| data[y * pitch..y * pitch + 4 * w].to_vec())
            .collect();
        cl.queue.write_image(&plain, [0; 3], [w, h, 1], &tight);
        let texel = |x: usize, y: usize| -> [f32; 4] {
            let o = y * pitch + x * 4;
            let m = [data[o], data[o + 1], data[o + 2], data[o + 3]];
            let rgba = if order == CL_BGRA {
                [m[2], m[1], m[0], m[3]]
            } else {
                m
            };
            rgba.map(unorm8)
        };
        let mut want = Vec::new();
        for y in 0..h {
            for x in 0..w {
                want.extend(texel(x, y));
                want.extend(texel((x + 1).min(w - 1), (y + 1).min(h - 1)));
                want.extend([w as f32, h as f32, w as f32, h as f32]);
            }
        }
        for (what, image) in [("from a buffer", &img), ("ordinary", &plain)] {
            let out = cl.buffer::<[f32; 4]>(3 * w * h);
            k.arg(0, image).arg(1, &sampler).arg(2, &out);
            cl.queue.run(&k, &[w, h], None);
            let got: Vec<f32> = cl.queue.read(&out).into_iter().flatten().collect();
            assert_close(
                &format!("{what} image, order {order:#x}"),
                &got,
                &want,
                1e-6,
            );
        }
    }
}

#[test]
fn kernels_write_images_made_from_buffers() {
    if !has_extension() {
        return;
    }
    let cl = Cl::new();
    let (w, h) = (5usize, 4usize);
    let pitch = pitch_for(w, 3, 8);
    let data = pitched_bytes((w, h), 8, pitch, |_, _, _| 0xEE);
    let buf = cl.buffer_from::<u8>(&data);
    let img = image_over(
        &cl,
        CL_MEM_WRITE_ONLY,
        (CL_RGBA, CL_UNSIGNED_INT16),
        (w, h),
        pitch,
        buf.raw(),
    )
    .expect("image over a buffer");
    let values: Vec<[u32; 4]> = (0..w * h)
        .map(|i| {
            let i = i as u32;
            [i * 1000, 65535 - i, i * 7 + 1, 40000 + i]
        })
        .collect();
    let input = cl.buffer_from(&values);
    let k = cl.kernel(SOURCE, "write_all");
    k.arg(0, &img).arg(1, &input);
    cl.queue.run(&k, &[w, h], None);
    let want = pitched_bytes((w, h), 8, pitch, |x, y, k| {
        let c = values[y * w + x][k / 2] as u16;
        c.to_le_bytes()[k % 2]
    });
    assert_same(
        "buffer after the kernel's writes",
        &cl.queue.read(&buf),
        &want,
    );
}

#[test]
fn read_write_images_made_from_buffers() {
    if !has_extension() {
        return;
    }
    let cl = Cl::new();
    let supported = cl
        .context
        .image_formats(CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D)
        .iter()
        .any(|f| (f.image_channel_order, f.image_channel_data_type) == (CL_RGBA, CL_SIGNED_INT32));
    if !supported {
        return;
    }
    let (w, h) = (3usize, 5usize);
    let pitch = pitch_for(w, 1, 16);
    let ints = |x: usize, y: usize| -> [i32; 4] {
        let v = (y * w + x) as i32;
        [v, -v, v * 100, 7 - v]
    };
    let data = pitched_bytes((w, h), 16, pitch, |x, y, k| {
        ints(x, y)[k / 4].to_le_bytes()[k % 4]
    });
    let buf = cl.buffer_from::<u8>(&data);
    let img = image_over(
        &cl,
        CL_MEM_READ_WRITE,
        (CL_RGBA, CL_SIGNED_INT32),
        (w, h),
        pitch,
        buf.raw(),
    )
    .expect("image over a buffer");
    let program = cl
        .context
        .try_build(READ_WRITE_SOURCE, "-cl-std=CL3.0")
        .expect("read_write images build where a format is listed for them");
    let k = program.kernel("bump");
    k.arg(0, &img);
    cl.queue.run(&k, &[w, h], None);
    let want = pitched_bytes((w, h), 16, pitch, |x, y, k| {
        let v = ints(x, y);
        let bumped = [v[0] + 1, v[1] - 2, v[2] + 3, v[3] - 4];
        bumped[k / 4].to_le_bytes()[k % 4]
    });
    assert_same(
        "buffer after the read-write kernel",
        &cl.queue.read(&buf),
        &want,
    );
}
