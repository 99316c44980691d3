//! cl_khr_depth_images through the ICD loader: the extension is reported
//! exactly when CL_DEPTH (CL_FLOAT, CL_UNORM_INT16) is listed for 2D images
//! and 2D image arrays; kernels read (`read_imagef` with integer and
//! sampled coordinates) and write (`write_imagef`) `image2d_depth_t` and
//! `image2d_array_depth_t`, compared with CPU references of the formats'
//! conversions; the host commands (write, read, fill with one float, copy)
//! move the exact bytes.

use std::ptr;

use ferrocl_tests::images::{desc, format};
use ferrocl_tests::info::{image_info, query_value};
use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_close, assert_same, check, device, device_string, Cl, Image};

fn has_depth_images() -> bool {
    device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_depth_images")
}

/// The two formats the extension requires.
const DEPTH_TYPES: [cl_channel_type; 2] = [CL_FLOAT, CL_UNORM_INT16];

/// The bytes of depth values `v` in `data_type` (CL_UNORM_INT16: round
/// to nearest of v * 65535, clamped; the spec's conversion rule).
fn depth_bytes(data_type: cl_channel_type, v: &[f32]) -> Vec<u8> {
    match data_type {
        CL_FLOAT => v.iter().flat_map(|f| f.to_le_bytes()).collect(),
        _ => v
            .iter()
            .flat_map(|f| ((f.clamp(0.0, 1.0) * 65535.0).round() as u16).to_le_bytes())
            .collect(),
    }
}

/// The depth values that `bytes` of `data_type` hold.
fn depth_values(data_type: cl_channel_type, bytes: &[u8]) -> Vec<f32> {
    match data_type {
        CL_FLOAT => bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        _ => bytes
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]) as f32 / 65535.0)
            .collect(),
    }
}

fn element_size(data_type: cl_channel_type) -> usize {
    if data_type == CL_FLOAT {
        4
    } else {
        2
    }
}

/// How far a kernel's write may land from the exact value: none for
/// CL_FLOAT, one step of CL_UNORM_INT16 (OpenCL allows the conversion to
/// round either way within 0.6 of a step).
fn write_tolerance(data_type: cl_channel_type) -> f32 {
    if data_type == CL_FLOAT {
        0.0
    } else {
        1.0 / 65535.0
    }
}

/// A depth image of `image_type` ([w, h, 1, layers]) holding `data`.
fn depth_image(
    cl: &Cl,
    flags: cl_mem_flags,
    data_type: cl_channel_type,
    image_type: cl_mem_object_type,
    size: [usize; 4],
    data: &[f32],
) -> Image {
    let fmt = format(CL_DEPTH, data_type);
    let img = cl.context.image(flags, &fmt, image_type, size);
    let layers = if image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY {
        size[3]
    } else {
        1
    };
    cl.queue.write_image(
        &img,
        [0; 3],
        [size[0], size[1], layers],
        &depth_bytes(data_type, data),
    );
    img
}

#[test]
fn the_extension_is_reported_with_its_formats() {
    let cl = Cl::new();
    let listed = |ty: cl_mem_object_type, flags: cl_mem_flags, t: cl_channel_type| {
        cl.context
            .image_formats(flags, ty)
            .iter()
            .any(|f| (f.image_channel_order, f.image_channel_data_type) == (CL_DEPTH, t))
    };
    let reported = has_depth_images();
    for ty in [CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY] {
        for flags in [CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY] {
            for t in DEPTH_TYPES {
                assert_eq!(
                    listed(ty, flags, t),
                    reported,
                    "CL_DEPTH {t:#x} for image type {ty:#x}, flags {flags:#x}"
                );
            }
        }
    }
    // "CL_DEPTH [...] can only be used" with 2D images and 2D image arrays.
    for ty in [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_IMAGE3D,
    ] {
        for t in DEPTH_TYPES {
            assert!(
                !listed(ty, CL_MEM_READ_ONLY, t),
                "CL_DEPTH listed for type {ty:#x}"
            );
        }
    }
}

const SOURCE: &str = r#"
const sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void scale(read_only image2d_depth_t src, write_only image2d_depth_t dst,
                  global float *reads, global int *info) {
    int x = get_global_id(0), y = get_global_id(1), w = get_image_width(src);
    float d = read_imagef(src, (int2)(x, y));
    // Sampled at the texel centre and one texel to the left (clamped to
    // the edge at x = 0).
    float s = read_imagef(src, nearest, (float2)(x - 0.5f, y + 0.5f));
    reads[2 * (y * w + x)] = d;
    reads[2 * (y * w + x) + 1] = s;
    write_imagef(dst, (int2)(x, y), d * 0.5f + 0.25f);
    if (x == 0 && y == 0) {
        info[0] = get_image_width(src);
        info[1] = get_image_height(src);
        info[2] = get_image_channel_order(src);
        info[3] = get_image_channel_data_type(src);
    }
}

kernel void layers(read_only image2d_array_depth_t src, write_only image2d_array_depth_t dst,
                   global int *info) {
    int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);
    int n = get_image_array_size(src);
    float d = read_imagef(src, (int4)(x, y, n - 1 - l, 0));
    write_imagef(dst, (int4)(x, y, l, 0), 1.0f - d);
    if (x == 0 && y == 0 && l == 0) {
        info[0] = n;
        info[1] = get_image_channel_order(dst);
    }
}
"#;

#[test]
fn kernels_read_and_write_depth_images() {
    if !has_depth_images() {
        return;
    }
    let cl = Cl::new();
    let (w, h) = (5usize, 3usize);
    let k = cl.kernel(SOURCE, "scale");
    for t in DEPTH_TYPES {
        let data: Vec<f32> = (0..w * h).map(|i| (i as f32 * 0.37) % 1.0).collect();
        // What the image holds after the conversion to its format.
        let stored = depth_values(t, &depth_bytes(t, &data));
        let src = depth_image(
            &cl,
            CL_MEM_READ_ONLY,
            t,
            CL_MEM_OBJECT_IMAGE2D,
            [w, h, 1, 1],
            &data,
        );
        let dst = cl.context.image(
            CL_MEM_WRITE_ONLY,
            &format(CL_DEPTH, t),
            CL_MEM_OBJECT_IMAGE2D,
            [w, h, 1, 1],
        );
        let reads = cl.buffer::<f32>(2 * w * h);
        let info = cl.buffer::<i32>(4);
        k.arg(0, &src).arg(1, &dst).arg(2, &reads).arg(3, &info);
        cl.queue.run(&k, &[w, h], None);
        let mut want = Vec::new();
        for y in 0..h {
            for x in 0..w {
                want.push(stored[y * w + x]);
                want.push(stored[y * w + x.saturating_sub(1)]);
            }
        }
        assert_close(
            &format!("reads of type {t:#x}"),
            &cl.queue.read(&reads),
            &want,
            0.0,
        );
        assert_eq!(
            cl.queue.read(&info),
            vec![w as i32, h as i32, CL_DEPTH as i32, t as i32],
            "queries of type {t:#x}"
        );
        let written: Vec<f32> = stored.iter().map(|d| d * 0.5 + 0.25).collect();
        let got = cl
            .queue
            .read_image(&dst, [0; 3], [w, h, 1], element_size(t));
        assert_close(
            &format!("written texels of type {t:#x}"),
            &depth_values(t, &got),
            &written,
            write_tolerance(t),
        );
    }
}

#[test]
fn kernels_read_and_write_depth_image_arrays() {
    if !has_depth_images() {
        return;
    }
    let cl = Cl::new();
    let (w, h, n) = (4usize, 2usize, 3usize);
    let k = cl.kernel(SOURCE, "layers");
    for t in DEPTH_TYPES {
        let data: Vec<f32> = (0..w * h * n).map(|i| i as f32 / 32.0).collect();
        let stored = depth_values(t, &depth_bytes(t, &data));
        let src = depth_image(
            &cl,
            CL_MEM_READ_ONLY,
            t,
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [w, h, 1, n],
            &data,
        );
        let dst = cl.context.image(
            CL_MEM_WRITE_ONLY,
            &format(CL_DEPTH, t),
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [w, h, 1, n],
        );
        let info = cl.buffer::<i32>(2);
        k.arg(0, &src).arg(1, &dst).arg(2, &info);
        cl.queue.run(&k, &[w, h, n], None);
        let layer = w * h;
        let want: Vec<f32> = (0..n)
            .flat_map(|l| stored[(n - 1 - l) * layer..(n - l) * layer].to_vec())
            .map(|d| 1.0 - d)
            .collect();
        let got = cl
            .queue
            .read_image(&dst, [0; 3], [w, h, n], element_size(t));
        assert_close(
            &format!("written layers of type {t:#x}"),
            &depth_values(t, &got),
            &want,
            write_tolerance(t),
        );
        assert_eq!(cl.queue.read(&info), vec![n as i32, CL_DEPTH as i32]);
    }
}

#[test]
fn host_commands_move_depth_texels() {
    if !has_depth_images() {
        return;
    }
    let cl = Cl::new();
    let (w, h) = (6usize, 4usize);
    for t in DEPTH_TYPES {
        let e = element_size(t);
        let data: Vec<f32> = (0..w * h).map(|i| i as f32 / 24.0).collect();
        let a = depth_image(
            &cl,
            CL_MEM_READ_WRITE,
            t,
            CL_MEM_OBJECT_IMAGE2D,
            [w, h, 1, 1],
            &data,
        );
        let mut want = depth_bytes(t, &data);
        assert_same(
            "read back",
            &cl.queue.read_image(&a, [0; 3], [w, h, 1], e),
            &want,
        );
        // clEnqueueFillImage: "a single floating point value if the
        // channel order is CL_DEPTH" (only 4 bytes are passed).
        let fill: f32 = 0.75;
        let (origin, region) = ([1usize, 1, 0], [3usize, 2, 1]);
        // SAFETY: `fill` is the one float the call reads for CL_DEPTH.
        let status = unsafe {
            clEnqueueFillImage(
                cl.queue.raw(),
                a.raw(),
                (&fill as *const f32).cast(),
                origin.as_ptr(),
                region.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(status, "clEnqueueFillImage");
        let texel = depth_bytes(t, &[fill]);
        for y in 1..3 {
            for x in 1..4 {
                let o = (y * w + x) * e;
                want[o..o + e].copy_from_slice(&texel);
            }
        }
        assert_same(
            "after the fill",
            &cl.queue.read_image(&a, [0; 3], [w, h, 1], e),
            &want,
        );
        // clEnqueueCopyImage of the whole image into another depth image.
        let b = cl.context.image(
            CL_MEM_READ_WRITE,
            &format(CL_DEPTH, t),
            CL_MEM_OBJECT_IMAGE2D,
            [w, h, 1, 1],
        );
        let region = [w, h, 1];
        // SAFETY: both images are live and of the same format and size.
        let status = unsafe {
            clEnqueueCopyImage(
                cl.queue.raw(),
                a.raw(),
                b.raw(),
                [0usize; 3].as_ptr(),
                [0usize; 3].as_ptr(),
                region.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(status, "clEnqueueCopyImage");
        assert_same(
            "copied",
            &cl.queue.read_image(&b, [0; 3], [w, h, 1], e),
            &want,
        );
        let fmt: cl_image_format =
            query_value(image_info(b.raw(), CL_IMAGE_FORMAT)).expect("CL_IMAGE_FORMAT");
        assert_eq!(
            (fmt.image_channel_order, fmt.image_channel_data_type),
            (CL_DEPTH, t)
        );
        let elem: usize =
            query_value(image_info(b.raw(), CL_IMAGE_ELEMENT_SIZE)).expect("element size");
        assert_eq!(elem, e);
    }
}

#[test]
fn depth_images_of_other_types_are_refused() {
    if !has_depth_images() {
        return;
    }
    let cl = Cl::new();
    let d = desc(CL_MEM_OBJECT_IMAGE3D, [4, 4, 4, 1], (0, 0), ptr::null_mut());
    let e = cl
        .context
        .try_image(CL_MEM_READ_ONLY, &format(CL_DEPTH, CL_FLOAT), &d)
        .err()
        .expect("a 3D CL_DEPTH image is refused");
    assert_eq!(e.0, CL_IMAGE_FORMAT_NOT_SUPPORTED, "{e}");
}
