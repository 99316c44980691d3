//! Image and sampler kernels end to end (issue 5): sampled reads with
//! literal and argument samplers (NEAREST addressing modes against a CPU
//! reference of the OpenCL spec's formulas, LINEAR, the CLAMP border
//! colour), storage writes in the channel order's memory layout,
//! read_write images, queries, texel buffers, images through functions.
//!
//! Written with the compiler side; run since the runtime backs images
//! (image objects, samplers, descriptor sets).

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_close, assert_same, check, testing_pocl, Cl, KernelArg};

/// An image memory object that releases itself.
struct Image {
    raw: cl_mem,
}

/// (image type, width, height, depth, array size).
type Shape = (cl_mem_object_type, usize, usize, usize, usize);

impl Image {
    fn new(
        cl: &Cl,
        flags: cl_mem_flags,
        format: (cl_channel_order, cl_channel_type),
        shape: Shape,
        host: Option<&[u8]>,
    ) -> Self {
        Self::with_buffer(cl, flags, format, shape, host, ptr::null_mut())
    }

    fn with_buffer(
        cl: &Cl,
        flags: cl_mem_flags,
        format: (cl_channel_order, cl_channel_type),
        shape: Shape,
        host: Option<&[u8]>,
        buffer: cl_mem,
    ) -> Self {
        let fmt = cl_image_format {
            image_channel_order: format.0,
            image_channel_data_type: format.1,
        };
        let desc = cl_image_desc {
            image_type: shape.0,
            image_width: shape.1,
            image_height: shape.2,
            image_depth: shape.3,
            image_array_size: shape.4,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer,
        };
        let (flags, host_ptr) = match host {
            Some(h) => (flags | CL_MEM_COPY_HOST_PTR, h.as_ptr() as *mut c_void),
            None => (flags, ptr::null_mut()),
        };
        let mut err = 0;
        // SAFETY: the format and descriptor are valid for the call; a host
        // pointer covers the whole image (CL_MEM_COPY_HOST_PTR copies it).
        let raw =
            unsafe { clCreateImage(cl.context.raw(), flags, &fmt, &desc, host_ptr, &mut err) };
        check(err, "clCreateImage");
        Image { raw }
    }

    /// clEnqueueReadImage of the region `[w, h, d]` (blocking).
    fn read(&self, cl: &Cl, region: [usize; 3], bytes: usize) -> Vec<u8> {
        let mut out = vec![0u8; bytes];
        let origin = [0usize; 3];
        // SAFETY: `out` holds the whole region at tight pitches.
        let status = unsafe {
            clEnqueueReadImage(
                cl.queue.raw(),
                self.raw,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(status, "clEnqueueReadImage");
        out
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: `raw` is a live memory object owned by this wrapper.
        unsafe { clReleaseMemObject(self.raw) };
    }
}

impl KernelArg for Image {
    fn arg_size(&self) -> usize {
        size_of::<cl_mem>()
    }
    fn arg_value(&self) -> *const c_void {
        (&self.raw as *const cl_mem).cast()
    }
}

/// A sampler object that releases itself.
struct Sampler {
    raw: cl_sampler,
}

impl Sampler {
    fn new(cl: &Cl, normalized: bool, addressing: cl_uint, filter: cl_uint) -> Self {
        let props: [cl_sampler_properties; 7] = [
            CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties,
            normalized as cl_sampler_properties,
            CL_SAMPLER_ADDRESSING_MODE as cl_sampler_properties,
            addressing as cl_sampler_properties,
            CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
            filter as cl_sampler_properties,
            0,
        ];
        let mut err = 0;
        // SAFETY: `props` is a zero-terminated property list.
        let raw =
            unsafe { clCreateSamplerWithProperties(cl.context.raw(), props.as_ptr(), &mut err) };
        check(err, "clCreateSamplerWithProperties");
        Sampler { raw }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        // SAFETY: `raw` is a live sampler owned by this wrapper.
        unsafe { clReleaseSampler(self.raw) };
    }
}

impl KernelArg for Sampler {
    fn arg_size(&self) -> usize {
        size_of::<cl_sampler>()
    }
    fn arg_value(&self) -> *const c_void {
        (&self.raw as *const cl_sampler).cast()
    }
}

/// Whether the device supports `format` for images of `ty` with `flags`.
fn supported(
    cl: &Cl,
    flags: cl_mem_flags,
    ty: cl_mem_object_type,
    format: (cl_channel_order, cl_channel_type),
) -> bool {
    let mut n: cl_uint = 0;
    // SAFETY: a count query with no output array.
    let status = unsafe {
        clGetSupportedImageFormats(cl.context.raw(), flags, ty, 0, ptr::null_mut(), &mut n)
    };
    check(status, "clGetSupportedImageFormats");
    let mut formats = vec![
        cl_image_format {
            image_channel_order: 0,
            image_channel_data_type: 0,
        };
        n as usize
    ];
    // SAFETY: `formats` has room for `n` entries.
    let status = unsafe {
        clGetSupportedImageFormats(
            cl.context.raw(),
            flags,
            ty,
            n,
            formats.as_mut_ptr(),
            ptr::null_mut(),
        )
    };
    check(status, "clGetSupportedImageFormats");
    formats
        .iter()
        .any(|f| (f.image_channel_order, f.image_channel_data_type) == format)
}

fn floats_to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn bytes_to_floats(v: &[u8]) -> Vec<f32> {
    v.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

const SOURCE: &str = r#"
const sampler_t nearest_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void copy_nearest(read_only image2d_t src, global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1), w = get_image_width(src);
    out[2 * (y * w + x)] = read_imagef(src, nearest_edge, (int2)(x, y));
    out[2 * (y * w + x) + 1] = read_imagef(src, nearest_edge, (float2)(x + 0.5f, y + 0.5f));
}

kernel void border(read_only image2d_t src, global float4 *out) {
    const sampler_t clamp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    out[0] = read_imagef(src, clamp, (int2)(-1, 0));
    out[1] = read_imagef(src, clamp, (float2)(get_image_width(src) + 0.5f, 0.5f));
    out[2] = read_imagef(src, clamp, (int2)(0, 0));
}

kernel void sample_1d(read_only image1d_t src, sampler_t s, global const float *coords,
                      global float *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(src, s, coords[i]).x;
}

kernel void sample_2d(read_only image2d_t src, sampler_t s, global const float2 *coords,
                      global float *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(src, s, coords[i]).x;
}

kernel void write_colour(write_only image2d_t dst, float4 colour) {
    write_imagef(dst, (int2)(get_global_id(0), get_global_id(1)), colour);
}

kernel void texel_buffer(read_only image1d_buffer_t in, write_only image1d_buffer_t out) {
    int i = get_global_id(0);
    write_imageui(out, i, read_imageui(in, i) * 2u + (uint4)(0, 1, 2, 3));
}

kernel void queries(read_only image2d_array_t a, write_only image3d_t b, global int *out) {
    int2 d = get_image_dim(a);
    int4 e = get_image_dim(b);
    out[0] = get_image_width(a);
    out[1] = get_image_height(a);
    out[2] = get_image_array_size(a);
    out[3] = get_image_channel_order(a);
    out[4] = get_image_channel_data_type(a);
    out[5] = d.x * 100 + d.y;
    out[6] = e.x * 10000 + e.y * 100 + e.z;
    out[7] = get_image_depth(b);
    out[8] = get_image_channel_order(b);
    out[9] = get_image_channel_data_type(b);
}

float4 fetch(read_only image2d_t im, sampler_t s, int2 p) { return read_imagef(im, s, p); }
void store(write_only image2d_t im, int2 p, float4 v) { write_imagef(im, p, v); }

kernel void through_functions(read_only image2d_t a, read_only image2d_t b, write_only image2d_t o) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    store(o, p, fetch(a, nearest_edge, p) + 2 * fetch(b, nearest_edge, p));
}
"#;

const READ_WRITE_SOURCE: &str = r#"
kernel void increment(read_write image2d_t img) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    int4 v = read_imagei(img, p);
    write_imagei(img, p, v + (int4)(1, -2, 3, -4));
}
"#;

#[test]
fn nearest_reads_of_unorm8_with_a_literal_sampler() {
    let cl = Cl::new();
    let (w, h) = (4usize, 3usize);
    let bytes: Vec<u8> = (0..w * h * 4).map(|i| (i * 37 % 256) as u8).collect();
    let img = Image::new(
        &cl,
        CL_MEM_READ_ONLY,
        (CL_RGBA, CL_UNORM_INT8),
        (CL_MEM_OBJECT_IMAGE2D, w, h, 1, 1),
        Some(&bytes),
    );
    let out = cl.buffer::<[f32; 4]>(2 * w * h);
    let k = cl.kernel(SOURCE, "copy_nearest");
    k.arg(0, &img).arg(1, &out);
    cl.queue.run(&k, &[w, h], None);
    let got: Vec<f32> = cl.queue.read(&out).into_iter().flatten().collect();
    let want: Vec<f32> = bytes
        .chunks(4)
        .flat_map(|px| {
            let v: Vec<f32> = px.iter().map(|&b| b as f32 / 255.0).collect();
            [v.clone(), v].concat()
        })
        .collect();
    assert_close("texels", &got, &want, 1e-6);
}

#[test]
fn clamp_border_colour_depends_on_the_channel_order() {
    let cl = Cl::new();
    let k = cl.kernel(SOURCE, "border");
    // (0,0,0,1) for CL_R and CL_RG (OpenCL C, "Determining the border
    // color"; PoCL 5 returns (0,0,0,0) for them).
    let orders: &[(cl_channel_order, usize, f32)] = if testing_pocl() {
        &[(CL_RGBA, 4, 0.0)]
    } else {
        &[
            (CL_R, 1, 1.0),
            (CL_RGBA, 4, 0.0),
            (CL_RG, 2, 1.0),
            (CL_RGx, 2, 0.0),
        ]
    };
    for &(order, channels, alpha) in orders {
        if !supported(
            &cl,
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_IMAGE2D,
            (order, CL_FLOAT),
        ) {
            continue;
        }
        let data: Vec<f32> = (0..2 * channels).map(|i| 0.25 + i as f32).collect();
        let img = Image::new(
            &cl,
            CL_MEM_READ_ONLY,
            (order, CL_FLOAT),
            (CL_MEM_OBJECT_IMAGE2D, 2, 1, 1, 1),
            Some(&floats_to_bytes(&data)),
        );
        let out = cl.buffer::<[f32; 4]>(3);
        k.arg(0, &img).arg(1, &out);
        cl.queue.run(&k, &[1], None);
        let got = cl.queue.read(&out);
        assert_eq!(got[0], [0.0, 0.0, 0.0, alpha], "order {order:#x}, x = -1");
        assert_eq!(got[1], [0.0, 0.0, 0.0, alpha], "order {order:#x}, x = w");
        assert_eq!(got[2][0], 0.25, "order {order:#x}, inside");
    }
}

/// OpenCL's NEAREST texel index for normalized coordinate `s` on an image
/// of `w` texels (OpenCL 3.0, "Image Addressing and Filtering"); None for
/// the border colour.
fn nearest_index(addressing: cl_uint, s: f32, w: usize) -> Option<usize> {
    let wf = w as f32;
    let i = match addressing {
        CL_ADDRESS_REPEAT => {
            let u = (s - s.floor()) * wf;
            let i = u.floor() as i64;
            if i > w as i64 - 1 {
                i - w as i64
            } else {
                i
            }
        }
        CL_ADDRESS_MIRRORED_REPEAT => {
            let s2 = 2.0 * (0.5 * s).round_ties_even();
            let u = (s - s2).abs() * wf;
            (u.floor() as i64).min(w as i64 - 1)
        }
        CL_ADDRESS_CLAMP => {
            let i = (s * wf).floor() as i64;
            if i < 0 || i >= w as i64 {
                return None;
            }
            i
        }
        _ => ((s * wf).floor() as i64).clamp(0, w as i64 - 1),
    };
    Some(i as usize)
}

#[test]
fn nearest_addressing_modes_follow_the_spec() {
    let cl = Cl::new();
    let w = 5usize;
    let texels: Vec<f32> = (0..w).map(|i| 10.0 + i as f32).collect();
    let img = Image::new(
        &cl,
        CL_MEM_READ_ONLY,
        (CL_R, CL_FLOAT),
        (CL_MEM_OBJECT_IMAGE1D, w, 1, 1, 1),
        Some(&floats_to_bytes(&texels)),
    );
    // Includes texel edges (k / w) and values just beside them.
    let coords: Vec<f32> = (-30..=30)
        .flat_map(|k| {
            let s = k as f32 / w as f32 * 0.5;
            [s, s + 1e-4, s - 1e-4]
        })
        .collect();
    let cbuf = cl.buffer_from(&coords);
    let out = cl.buffer::<f32>(coords.len());
    let k = cl.kernel(SOURCE, "sample_1d");
    for addressing in [
        CL_ADDRESS_REPEAT,
        CL_ADDRESS_MIRRORED_REPEAT,
        CL_ADDRESS_CLAMP_TO_EDGE,
        CL_ADDRESS_CLAMP,
    ] {
        let s = Sampler::new(&cl, true, addressing, CL_FILTER_NEAREST);
        k.arg(0, &img).arg(1, &s).arg(2, &cbuf).arg(3, &out);
        cl.queue.run(&k, &[coords.len()], None);
        let want: Vec<f32> = coords
            .iter()
            .map(|&c| nearest_index(addressing, c, w).map_or(0.0, |i| texels[i]))
            .collect();
        assert_same(
            &format!("addressing {addressing:#x}"),
            &cl.queue.read(&out),
            &want,
        );
    }
    // Unnormalized coordinates.
    let coords: Vec<f32> = vec![-1.5, -0.1, 0.0, 0.99, 1.0, 4.5, 4.99, 5.0, 7.0];
    let cbuf = cl.buffer_from(&coords);
    let out = cl.buffer::<f32>(coords.len());
    let s = Sampler::new(&cl, false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST);
    k.arg(0, &img).arg(1, &s).arg(2, &cbuf).arg(3, &out);
    cl.queue.run(&k, &[coords.len()], None);
    let want: Vec<f32> = coords
        .iter()
        .map(|&c| texels[(c.floor() as i64).clamp(0, w as i64 - 1) as usize])
        .collect();
    assert_same("unnormalized", &cl.queue.read(&out), &want);
}

#[test]
fn linear_filtering_interpolates() {
    let cl = Cl::new();
    // 2x2: rows [0, 1] and [2, 3].
    let img = Image::new(
        &cl,
        CL_MEM_READ_ONLY,
        (CL_R, CL_FLOAT),
        (CL_MEM_OBJECT_IMAGE2D, 2, 2, 1, 1),
        Some(&floats_to_bytes(&[0.0, 1.0, 2.0, 3.0])),
    );
    let k = cl.kernel(SOURCE, "sample_2d");
    let coords = [
        [0.5f32, 0.5],
        [1.0, 0.5],
        [1.0, 1.0],
        [1.5, 1.5],
        [0.75, 1.25],
    ];
    let cbuf = cl.buffer_from(&coords);
    let out = cl.buffer::<f32>(coords.len());
    let want = [0.0, 0.5, 1.5, 3.0, 0.25 + 2.0 * 0.75];
    for normalized in [false, true] {
        let s = Sampler::new(&cl, normalized, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR);
        let c: Vec<[f32; 2]> = coords
            .iter()
            .map(|&[x, y]| {
                if normalized {
                    [x / 2.0, y / 2.0]
                } else {
                    [x, y]
                }
            })
            .collect();
        cl.queue.write(&cbuf, 0, &c);
        k.arg(0, &img).arg(1, &s).arg(2, &cbuf).arg(3, &out);
        cl.queue.run(&k, &[coords.len()], None);
        // Vulkan filters with at least 8 bits of sub-texel precision.
        assert_close(
            &format!("normalized {normalized}"),
            &cl.queue.read(&out),
            &want,
            1.0 / 128.0,
        );
    }
}

#[test]
fn storage_writes_keep_the_channel_order_in_memory() {
    let cl = Cl::new();
    let k = cl.kernel(SOURCE, "write_colour");
    let colour = [1.0f32, 0.0, 128.0 / 255.0, 64.0 / 255.0];
    for (order, want) in [
        (CL_RGBA, [255u8, 0, 128, 64]),
        (CL_BGRA, [128, 0, 255, 64]),
        (CL_ARGB, [64, 255, 0, 128]),
        (CL_ABGR, [64, 128, 0, 255]),
    ] {
        let format = (order, CL_UNORM_INT8);
        if !supported(&cl, CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D, format) {
            assert!(order != CL_RGBA && order != CL_BGRA, "required format");
            continue;
        }
        let img = Image::new(
            &cl,
            CL_MEM_WRITE_ONLY,
            format,
            (CL_MEM_OBJECT_IMAGE2D, 2, 2, 1, 1),
            None,
        );
        k.arg(0, &img).arg(1, &colour);
        cl.queue.run(&k, &[2, 2], None);
        let got = img.read(&cl, [2, 2, 1], 16);
        assert_same(&format!("order {order:#x}"), &got, &want.repeat(4));
    }
}

#[test]
fn read_write_images_update_in_place() {
    let cl = Cl::new();
    let data: Vec<i32> = (0..2 * 3 * 4).map(|i| i * 7 - 40).collect();
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let img = Image::new(
        &cl,
        CL_MEM_READ_WRITE,
        (CL_RGBA, CL_SIGNED_INT32),
        (CL_MEM_OBJECT_IMAGE2D, 2, 3, 1, 1),
        Some(&bytes),
    );
    // Devices without read-write images (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS
    // 0: formatless storage reads, which lavapipe lacks) refuse the kernel.
    let rw =
        ferrocl_tests::device_value::<cl_uint>(cl.device(), CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
    let built = cl.try_build(READ_WRITE_SOURCE, "-cl-std=CL3.0");
    if rw == 0 {
        let e = built
            .err()
            .expect("a read_write image kernel built without read-write images");
        assert_eq!(e.status.0, CL_BUILD_PROGRAM_FAILURE);
        return;
    }
    let p = built.unwrap();
    let k = p.kernel("increment");
    k.arg(0, &img);
    cl.queue.run(&k, &[2, 3], None);
    let got: Vec<i32> = img
        .read(&cl, [2, 3, 1], bytes.len())
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<i32> = data
        .iter()
        .enumerate()
        .map(|(i, v)| v + [1, -2, 3, -4][i % 4])
        .collect();
    assert_same("texels", &got, &want);
}

#[test]
fn queries_report_the_image() {
    let cl = Cl::new();
    let a = Image::new(
        &cl,
        CL_MEM_READ_ONLY,
        (CL_BGRA, CL_UNORM_INT8),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, 3, 2, 1, 4),
        None,
    );
    let b = Image::new(
        &cl,
        CL_MEM_WRITE_ONLY,
        (CL_R, CL_FLOAT),
        (CL_MEM_OBJECT_IMAGE3D, 5, 6, 7, 1),
        None,
    );
    let out = cl.buffer::<i32>(10);
    let k = cl.kernel(SOURCE, "queries");
    k.arg(0, &a).arg(1, &b).arg(2, &out);
    cl.queue.run(&k, &[1], None);
    let want = [
        3,
        2,
        4,
        CL_BGRA as i32,
        CL_UNORM_INT8 as i32,
        302,
        50607,
        7,
        CL_R as i32,
        CL_FLOAT as i32,
    ];
    assert_same("queries", &cl.queue.read(&out), &want);
}

#[test]
fn texel_buffers_read_and_write() {
    let cl = Cl::new();
    let n = 16usize;
    let data: Vec<u32> = (0..4 * n as u32).collect();
    let src = cl.buffer_from(&data);
    let dst = cl.buffer::<u32>(4 * n);
    let shape = (CL_MEM_OBJECT_IMAGE1D_BUFFER, n, 1, 1, 1);
    let fmt = (CL_RGBA, CL_UNSIGNED_INT32);
    let a = Image::with_buffer(&cl, CL_MEM_READ_ONLY, fmt, shape, None, src.raw());
    let b = Image::with_buffer(&cl, CL_MEM_WRITE_ONLY, fmt, shape, None, dst.raw());
    let k = cl.kernel(SOURCE, "texel_buffer");
    k.arg(0, &a).arg(1, &b);
    cl.queue.run(&k, &[n], None);
    let want: Vec<u32> = data
        .iter()
        .enumerate()
        .map(|(i, v)| v * 2 + (i % 4) as u32)
        .collect();
    assert_same("texels", &cl.queue.read(&dst), &want);
}

#[test]
fn images_through_functions_at_every_optimization_level() {
    let cl = Cl::new();
    let (w, h) = (3usize, 2usize);
    let fa: Vec<f32> = (0..w * h * 4).map(|i| i as f32).collect();
    let fb: Vec<f32> = (0..w * h * 4).map(|i| 100.0 + i as f32).collect();
    let fmt = (CL_RGBA, CL_FLOAT);
    let shape = (CL_MEM_OBJECT_IMAGE2D, w, h, 1, 1);
    let a = Image::new(
        &cl,
        CL_MEM_READ_ONLY,
        fmt,
        shape,
        Some(&floats_to_bytes(&fa)),
    );
    let b = Image::new(
        &cl,
        CL_MEM_READ_ONLY,
        fmt,
        shape,
        Some(&floats_to_bytes(&fb)),
    );
    let want: Vec<f32> = fa.iter().zip(&fb).map(|(x, y)| x + 2.0 * y).collect();
    for options in ["", "-cl-opt-disable"] {
        let o = Image::new(&cl, CL_MEM_WRITE_ONLY, fmt, shape, None);
        let p = cl.try_build(SOURCE, options).unwrap();
        let k = p.kernel("through_functions");
        k.arg(0, &a).arg(1, &b).arg(2, &o);
        cl.queue.run(&k, &[w, h], None);
        let got = bytes_to_floats(&o.read(&cl, [w, h, 1], w * h * 16));
        assert_same(&format!("options '{options}'"), &got, &want);
    }
}

/// Images chosen at run time (`passes::split_image_choices`): a `switch`
/// whose cases read different images, which LLVM sinks into one read of a
/// phi of the images (darktable's `rawprepare_1f_gainmap`), and a pick of
/// two of four images per work-item passed on to a helper that another
/// kernel calls with a plain argument (darktable's `laplacian_assemble`).
/// Both failed to build: "an image or sampler chosen at run time".
const CHOSEN_AT_RUN_TIME: &str = r#"
constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

float texel(read_only image2d_t img, int2 p) { return read_imagef(img, nearest, p).x; }

kernel void by_case(read_only image2d_t a, read_only image2d_t b, read_only image2d_t c,
                    read_only image2d_t d, global float *out, int w)
{
    const int x = get_global_id(0), y = get_global_id(1);
    float v = (float)(x + y);
    switch ((x + 2 * y) & 3) {
    case 0: v *= read_imagef(a, nearest, (int2)(x, y)).x; break;
    case 1: v *= read_imagef(b, nearest, (int2)(x, y)).x; break;
    case 2: v *= read_imagef(c, nearest, (int2)(x, y)).x; break;
    case 3: v *= read_imagef(d, nearest, (int2)(x, y)).x; break;
    }
    out[y * w + x] = v;
}

kernel void by_level(read_only image2d_t a, read_only image2d_t b, read_only image2d_t c,
                     read_only image2d_t d, global const int *level, global float *out, int w)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int2 p = (int2)(x, y);
    float v;
    switch (level[y * w + x]) {
    case 0: v = texel(a, p) - texel(b, p); break;
    case 1: v = texel(b, p) - texel(c, p); break;
    case 2: v = texel(c, p) - texel(d, p); break;
    default: v = texel(d, p) - texel(a, p); break;
    }
    out[y * w + x] = v;
}

kernel void plain(read_only image2d_t a, global float *out, int w)
{
    const int x = get_global_id(0), y = get_global_id(1);
    out[y * w + x] = texel(a, (int2)(x, y));
}
"#;

#[test]
fn images_chosen_at_run_time() {
    let cl = Cl::new();
    let (w, h) = (16usize, 8usize);
    let fmt = (CL_RGBA, CL_FLOAT);
    let shape = (CL_MEM_OBJECT_IMAGE2D, w, h, 1, 1);
    let texels: Vec<Vec<f32>> = (0..4)
        .map(|k| {
            (0..w * h * 4)
                .map(|i| (k * 1000 + i / 4) as f32 + 0.25 * (i % 4) as f32)
                .collect()
        })
        .collect();
    let images: Vec<Image> = texels
        .iter()
        .map(|t| Image::new(&cl, CL_MEM_READ_ONLY, fmt, shape, Some(&floats_to_bytes(t))))
        .collect();
    let red = |k: usize, x: usize, y: usize| texels[k][4 * (y * w + x)];
    let level: Vec<i32> = (0..w * h).map(|i| ((i * 7 + i / 5) % 5) as i32).collect();
    let p = build(&cl, CHOSEN_AT_RUN_TIME, "");
    let w_arg = w as i32;

    let out = cl.buffer::<f32>(w * h);
    let k = p.kernel("by_case");
    for (i, img) in images.iter().enumerate() {
        k.arg(i as u32, img);
    }
    k.arg(4, &out).arg(5, &w_arg);
    cl.queue.run(&k, &[w, h], None);
    let want: Vec<f32> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            (x + y) as f32 * red((x + 2 * y) & 3, x, y)
        })
        .collect();
    assert_same("by_case", &cl.queue.read(&out), &want);

    let levels = cl.buffer_from(&level);
    let k = p.kernel("by_level");
    for (i, img) in images.iter().enumerate() {
        k.arg(i as u32, img);
    }
    k.arg(4, &levels).arg(5, &out).arg(6, &w_arg);
    cl.queue.run(&k, &[w, h], None);
    let want: Vec<f32> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let l = level[i].min(3) as usize;
            red(l, x, y) - red((l + 1) % 4, x, y)
        })
        .collect();
    assert!(level.contains(&4), "the default case is taken");
    assert_same("by_level", &cl.queue.read(&out), &want);

    let k = p.kernel("plain");
    k.arg(0, &images[2]).arg(1, &out).arg(2, &w_arg);
    cl.queue.run(&k, &[w, h], None);
    let want: Vec<f32> = (0..w * h).map(|i| red(2, i % w, i / w)).collect();
    assert_same("plain", &cl.queue.read(&out), &want);
}

/// The spec's minimum argument counts (CL_DEVICE_MAX_READ_IMAGE_ARGS 128,
/// CL_DEVICE_MAX_SAMPLERS 16) in one kernel: their implicit fields (channel
/// order and type, sampler bits) do not fit in push constants and live in
/// the argument buffer. Every image is read inside and outside (CLAMP:
/// the border colour depends on its channel order), and every sampler's
/// addressing mode decides what a read at x = -1 returns.
#[test]
fn as_many_image_and_sampler_arguments_as_the_spec_promises() {
    let cl = Cl::new();
    let n_images = 128usize;
    let max_read: cl_uint = ferrocl_tests::device_value(cl.device(), CL_DEVICE_MAX_READ_IMAGE_ARGS);
    let max_samplers: cl_uint = ferrocl_tests::device_value(cl.device(), CL_DEVICE_MAX_SAMPLERS);
    assert!(
        max_read >= 128 && max_samplers >= 16,
        "{max_read} {max_samplers}"
    );
    let params: Vec<String> = (0..n_images)
        .map(|i| format!("read_only image2d_t i{i}"))
        .collect();
    let reads: String = (0..n_images)
        .map(|i| {
            format!(
                "in += read_imagef(i{i}, s, (int2)(0, 0)).x; \
                 out_ += read_imagef(i{i}, s, (int2)(-1, 0)).w; \
                 ord += get_image_channel_order(i{i}) == CLK_RGBA;\n"
            )
        })
        .collect();
    let source = format!(
        "constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
         kernel void many(global float* r, {}) {{
             float in = 0.0f, out_ = 0.0f; int ord = 0;
             {reads}
             r[0] = in; r[1] = out_; r[2] = (float)ord;
         }}",
        params.join(", ")
    );
    // Image i holds i + 1; even ones are CL_RGBA (border alpha 0), odd
    // ones CL_R (border alpha 1).
    let images: Vec<Image> = (0..n_images)
        .map(|i| {
            let (order, texel) = if i % 2 == 0 {
                (CL_RGBA, vec![i as f32 + 1.0, 0.0, 0.0, 1.0])
            } else {
                (CL_R, vec![i as f32 + 1.0])
            };
            Image::new(
                &cl,
                CL_MEM_READ_ONLY,
                (order, CL_FLOAT),
                (CL_MEM_OBJECT_IMAGE2D, 1, 1, 1, 1),
                Some(&floats_to_bytes(&texel)),
            )
        })
        .collect();
    let r = cl.buffer::<f32>(3);
    let sum = (n_images * (n_images + 1) / 2) as f32;
    for &options in addressings() {
        let k = build(&cl, &source, options).kernel("many");
        k.arg(0, &r);
        for (i, img) in images.iter().enumerate() {
            k.arg(i as u32 + 1, img);
        }
        cl.queue.run(&k, &[1], None);
        assert_same(
            &format!("texels, border alphas, RGBA count ({options})"),
            &cl.queue.read(&r),
            &[sum, (n_images / 2) as f32, (n_images / 2) as f32],
        );
    }

    // 16 sampler arguments: CLAMP_TO_EDGE reads texel 0 (5.0) at x = -1,
    // CLAMP reads the border (0 for CL_R's red).
    let params: Vec<String> = (0..16).map(|i| format!("sampler_t s{i}")).collect();
    let reads: String = (0..16)
        .map(|i| {
            format!(
                "v += read_imagef(img, s{i}, (int2)(-1, 0)).x * {};\n",
                1u32 << i
            )
        })
        .collect();
    let source = format!(
        "kernel void samplers(global float* r, read_only image2d_t img, {}) {{
             float v = 0.0f;
             {reads}
             r[0] = v;
         }}",
        params.join(", ")
    );
    let img = Image::new(
        &cl,
        CL_MEM_READ_ONLY,
        (CL_R, CL_FLOAT),
        (CL_MEM_OBJECT_IMAGE2D, 2, 1, 1, 1),
        Some(&floats_to_bytes(&[5.0, 7.0])),
    );
    let edge: Vec<bool> = (0..16).map(|i| (i * 7) % 3 == 0).collect();
    let samplers: Vec<Sampler> = edge
        .iter()
        .map(|&e| {
            let mode = if e {
                CL_ADDRESS_CLAMP_TO_EDGE
            } else {
                CL_ADDRESS_CLAMP
            };
            Sampler::new(&cl, false, mode, CL_FILTER_NEAREST)
        })
        .collect();
    let r = cl.buffer::<f32>(1);
    let want: f32 = edge
        .iter()
        .enumerate()
        .filter(|(_, &e)| e)
        .map(|(i, _)| 5.0 * (1u32 << i) as f32)
        .sum();
    for &options in addressings() {
        let k = build(&cl, &source, options).kernel("samplers");
        k.arg(0, &r).arg(1, &img);
        for (i, s) in samplers.iter().enumerate() {
            k.arg(i as u32 + 2, s);
        }
        cl.queue.run(&k, &[1], None);
        assert_same(
            &format!("sampler-selected texels ({options})"),
            &cl.queue.read(&r),
            &[want],
        );
    }
}

/// ferrocl's address formats, with each way descriptor addressing binds
/// POD data (the spilled image and sampler fields are such a buffer
/// there); other implementations get no options.
fn addressings() -> &'static [&'static str] {
    if testing_pocl() {
        return &[""];
    }
    &[
        "-ferrocl-addressing=physical",
        "-ferrocl-addressing=descriptor",
        "-ferrocl-addressing=descriptor -pod-ubo",
        "-ferrocl-addressing=descriptor -cluster-pod-kernel-args",
    ]
}

#[track_caller]
fn build(cl: &Cl, source: &str, options: &str) -> ferrocl_tests::Program {
    cl.try_build(source, options)
        .unwrap_or_else(|e| panic!("{options}: {e}"))
}
