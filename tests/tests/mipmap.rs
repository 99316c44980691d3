//! cl_khr_mipmap_image through the ICD loader: mipmapped images of every
//! type (1D, 1D array, 2D, 2D array, 3D) created with `num_mip_levels`,
//! CL_IMAGE_NUM_MIP_LEVELS, host commands on one level (the level in the
//! origin's coordinate after the image's last: origin[1] of 1D images,
//! origin[2] of 1D arrays and 2D images, origin[3] of 2D arrays and 3D
//! images), kernels reading a level by lod (NEAREST and LINEAR mip
//! filtering, the sampler's lod range) and by gradients, and
//! `get_image_num_mip_levels`, and (cl_khr_mipmap_image_writes) kernels
//! writing every level; every value against a CPU reference of the level
//! data. Writes without a lod go to level 0.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::images::format;
use ferrocl_tests::info::{image_info, query_value, sampler_info};
use ferrocl_tests::sys::*;
use ferrocl_tests::{
    assert_close, check, cl_result, device, device_string, Cl, ClError, Image, Sampler,
};

fn has_mipmaps() -> bool {
    device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_mipmap_image")
}

/// Texels are CL_RGBA CL_FLOAT: exact in every transfer and read.
const ELEMENT: usize = 16;

/// One image type under test: its base size ([w, h, d, layers]) and levels.
#[derive(Clone, Copy, Debug)]
struct Shape {
    ty: cl_mem_object_type,
    size: [usize; 4],
    levels: usize,
}

const SHAPES: [Shape; 5] = [
    Shape {
        ty: CL_MEM_OBJECT_IMAGE1D,
        size: [9, 0, 0, 0],
        levels: 4,
    },
    Shape {
        ty: CL_MEM_OBJECT_IMAGE1D_ARRAY,
        size: [8, 0, 0, 3],
        levels: 3,
    },
    Shape {
        ty: CL_MEM_OBJECT_IMAGE2D,
        size: [8, 5, 0, 0],
        levels: 4,
    },
    Shape {
        ty: CL_MEM_OBJECT_IMAGE2D_ARRAY,
        size: [6, 4, 0, 2],
        levels: 3,
    },
    Shape {
        ty: CL_MEM_OBJECT_IMAGE3D,
        size: [8, 4, 4, 0],
        levels: 4,
    },
];

impl Shape {
    /// The (x, y, z) extent of level `l` in OpenCL's region order (layers
    /// in place of y or z for arrays; 1 where unused).
    fn extent(&self, l: usize) -> [usize; 3] {
        let h = |v: usize| (v >> l).max(1);
        let [w, ht, d, n] = self.size;
        match self.ty {
            CL_MEM_OBJECT_IMAGE1D => [h(w), 1, 1],
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [h(w), n, 1],
            CL_MEM_OBJECT_IMAGE2D => [h(w), h(ht), 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [h(w), h(ht), n],
            _ => [h(w), h(ht), h(d)],
        }
    }

    /// An origin of 4 entries with the level in the right coordinate.
    fn origin(&self, pos: [usize; 3], level: usize) -> [usize; 4] {
        let mut o = [pos[0], pos[1], pos[2], 0];
        let k = match self.ty {
            CL_MEM_OBJECT_IMAGE1D => 1,
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D => 2,
            _ => 3,
        };
        o[k] = level;
        o
    }

    fn desc(&self, levels: usize) -> cl_image_desc {
        cl_image_desc {
            image_type: self.ty,
            image_width: self.size[0],
            image_height: self.size[1],
            image_depth: self.size[2],
            image_array_size: self.size[3],
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: levels as cl_uint,
            num_samples: 0,
            buffer: ptr::null_mut(),
        }
    }
}

/// Texel `i` of level `l`: (l·1000 + i, then +0.25, +0.5, +0.75).
fn texel(l: usize, i: usize) -> [f32; 4] {
    let v = (l * 1000 + i) as f32;
    [v, v + 0.25, v + 0.5, v + 0.75]
}

/// Level `l` of `s`, tightly packed.
fn level_data(s: &Shape, l: usize) -> Vec<f32> {
    let e = s.extent(l);
    (0..e[0] * e[1] * e[2]).flat_map(|i| texel(l, i)).collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn try_mip_image(cl: &Cl, flags: cl_mem_flags, d: &cl_image_desc) -> Result<Image, ClError> {
    cl.context.try_image(flags, &format(CL_RGBA, CL_FLOAT), d)
}

/// Blocking clEnqueueWriteImage at a 4-entry origin.
fn try_write(
    cl: &Cl,
    img: &Image,
    origin: [usize; 4],
    region: [usize; 3],
    data: &[u8],
) -> Result<(), ClError> {
    // SAFETY: blocking write from `data`, which covers the region.
    cl_result(unsafe {
        clEnqueueWriteImage(
            cl.queue.raw(),
            img.raw(),
            CL_TRUE,
            origin.as_ptr(),
            region.as_ptr(),
            0,
            0,
            data.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    })
}

/// Blocking clEnqueueReadImage at a 4-entry origin.
fn try_read(
    cl: &Cl,
    img: &Image,
    origin: [usize; 4],
    region: [usize; 3],
) -> Result<Vec<u8>, ClError> {
    let mut out = vec![0u8; region.iter().product::<usize>() * ELEMENT];
    // SAFETY: blocking read into `out`, sized for the region.
    cl_result(unsafe {
        clEnqueueReadImage(
            cl.queue.raw(),
            img.raw(),
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
    })?;
    Ok(out)
}

/// A mipmapped image of `s` with every level written from `level_data`.
fn filled_image(cl: &Cl, flags: cl_mem_flags, s: &Shape) -> Image {
    let img = try_mip_image(cl, flags, &s.desc(s.levels))
        .unwrap_or_else(|e| panic!("clCreateImage({s:?}) failed: {e}"));
    for l in 0..s.levels {
        try_write(
            cl,
            &img,
            s.origin([0; 3], l),
            s.extent(l),
            &bytes(&level_data(s, l)),
        )
        .unwrap_or_else(|e| panic!("write of level {l} of {s:?}: {e}"));
    }
    img
}

#[test]
fn the_extension_and_the_level_count() {
    let cl = Cl::new();
    let s = SHAPES[2];
    if !has_mipmaps() {
        // "num_mip_levels [...] must be 0" without the extension.
        assert_eq!(
            try_mip_image(&cl, CL_MEM_READ_WRITE, &s.desc(2)).err(),
            Some(ClError(CL_INVALID_IMAGE_DESCRIPTOR))
        );
        return;
    }
    for (levels, want) in [(0, 0u32), (1, 1), (3, 3)] {
        let img = try_mip_image(&cl, CL_MEM_READ_WRITE, &s.desc(levels)).unwrap();
        assert_eq!(
            query_value::<cl_uint>(image_info(img.raw(), CL_IMAGE_NUM_MIP_LEVELS)).unwrap(),
            want
        );
        // The size queries report level 0.
        assert_eq!(
            query_value::<usize>(image_info(img.raw(), CL_IMAGE_WIDTH)).unwrap(),
            s.size[0]
        );
    }
}

#[test]
fn every_level_of_every_image_type_is_written_and_read() {
    if !has_mipmaps() {
        return;
    }
    let cl = Cl::new();
    for s in SHAPES {
        let img = filled_image(&cl, CL_MEM_READ_WRITE, &s);
        for l in 0..s.levels {
            let got = try_read(&cl, &img, s.origin([0; 3], l), s.extent(l)).unwrap();
            assert_eq!(floats(&got), level_data(&s, l), "level {l} of {s:?}");
        }
        // A one-texel region at the far corner of level 1.
        let e = s.extent(1);
        let at = [e[0] - 1, e[1] - 1, e[2] - 1];
        let got = try_read(&cl, &img, s.origin(at, 1), [1, 1, 1]).unwrap();
        let i = (at[2] * e[1] + at[1]) * e[0] + at[0];
        assert_eq!(floats(&got), texel(1, i), "corner of level 1 of {s:?}");
    }
}

#[test]
fn copies_fills_and_maps_of_a_level() {
    if !has_mipmaps() {
        return;
    }
    let cl = Cl::new();
    for s in [SHAPES[2], SHAPES[4]] {
        let src = filled_image(&cl, CL_MEM_READ_WRITE, &s);
        let dst = filled_image(&cl, CL_MEM_READ_WRITE, &s);
        // Level 1 of src → level 0 of dst at (1, 1, 0).
        let r = s.extent(1);
        let (so, dor) = (s.origin([0; 3], 1), s.origin([1, 1, 0], 0));
        // SAFETY: valid images; 4-entry origins.
        check(
            unsafe {
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
            },
            "clEnqueueCopyImage",
        );
        let e0 = s.extent(0);
        let got = floats(&try_read(&cl, &dst, s.origin([0; 3], 0), e0).unwrap());
        let mut want = level_data(&s, 0);
        for z in 0..r[2] {
            for y in 0..r[1] {
                for x in 0..r[0] {
                    let d = (z * e0[1] + y + 1) * e0[0] + x + 1;
                    let i = (z * r[1] + y) * r[0] + x;
                    want[4 * d..4 * d + 4].copy_from_slice(&texel(1, i));
                }
            }
        }
        assert_eq!(got, want, "level 1 copied into level 0 of {s:?}");

        // Level 2 → a buffer → level 1 of dst.
        let r2 = s.extent(2);
        let n = r2.iter().product::<usize>();
        let buf = cl.buffer::<f32>(4 * n);
        let o2 = s.origin([0; 3], 2);
        // SAFETY: valid objects; the buffer holds the region.
        check(
            unsafe {
                clEnqueueCopyImageToBuffer(
                    cl.queue.raw(),
                    src.raw(),
                    buf.raw(),
                    o2.as_ptr(),
                    r2.as_ptr(),
                    0,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueCopyImageToBuffer",
        );
        assert_eq!(
            cl.queue.read(&buf),
            level_data(&s, 2),
            "level 2 of {s:?} in a buffer"
        );
        let o1 = s.origin([0; 3], 1);
        // SAFETY: as above.
        check(
            unsafe {
                clEnqueueCopyBufferToImage(
                    cl.queue.raw(),
                    buf.raw(),
                    dst.raw(),
                    0,
                    o1.as_ptr(),
                    r2.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueCopyBufferToImage",
        );
        let got = floats(&try_read(&cl, &dst, o1, r2).unwrap());
        assert_eq!(
            got,
            level_data(&s, 2),
            "level 2 copied into level 1 of {s:?}"
        );

        // Fill all of level 3, then map it.
        let r3 = s.extent(3);
        let o3 = s.origin([0; 3], 3);
        let colour = [1.5f32, -2.0, 3.25, 0.5];
        // SAFETY: a 16-byte float colour.
        check(
            unsafe {
                clEnqueueFillImage(
                    cl.queue.raw(),
                    dst.raw(),
                    colour.as_ptr().cast(),
                    o3.as_ptr(),
                    r3.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueFillImage",
        );
        let (mut row, mut slice, mut err) = (0usize, 0usize, 0);
        // SAFETY: blocking map of the level's region.
        let p = unsafe {
            clEnqueueMapImage(
                cl.queue.raw(),
                dst.raw(),
                CL_TRUE,
                CL_MAP_READ,
                o3.as_ptr(),
                r3.as_ptr(),
                &mut row,
                &mut slice,
                0,
                ptr::null(),
                ptr::null_mut(),
                &mut err,
            )
        };
        check(err, "clEnqueueMapImage");
        let n3 = r3.iter().product::<usize>();
        // SAFETY: the map covers the region, rows `row` bytes apart, each
        // of these tiny levels one row.
        let mapped = unsafe { std::slice::from_raw_parts(p as *const f32, 4 * r3[0]) };
        assert_eq!(n3, r3[0], "level 3 of {s:?} is one row");
        let want: Vec<f32> = (0..n3).flat_map(|_| colour).collect();
        assert_eq!(mapped, &want[..], "mapped fill of level 3 of {s:?}");
        // SAFETY: the pointer came from the map above.
        check(
            unsafe {
                clEnqueueUnmapMemObject(
                    cl.queue.raw(),
                    dst.raw(),
                    p,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueUnmapMemObject",
        );
        cl.queue.finish();
    }
}

#[test]
fn invalid_levels_and_descriptors() {
    if !has_mipmaps() {
        return;
    }
    let cl = Cl::new();
    let s = SHAPES[2];
    // "CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR cannot be specified if a
    // mip-mapped image is created"; "host_ptr [...] must be a NULL value".
    let mut host = vec![0u8; 8 * 5 * ELEMENT];
    for flags in [CL_MEM_COPY_HOST_PTR, CL_MEM_USE_HOST_PTR] {
        // SAFETY: `host` covers level 0 (the call must fail anyway).
        let r = unsafe {
            cl.context.try_image_with_host(
                CL_MEM_READ_WRITE | flags,
                &format(CL_RGBA, CL_FLOAT),
                &s.desc(2),
                host.as_mut_ptr() as *mut c_void,
            )
        };
        assert_eq!(
            r.err(),
            Some(ClError(CL_INVALID_HOST_PTR)),
            "flags {flags:#x}"
        );
    }
    // More levels than halvings of the largest dimension (8: 4 levels).
    assert_eq!(
        try_mip_image(&cl, CL_MEM_READ_WRITE, &s.desc(5)).err(),
        Some(ClError(CL_INVALID_IMAGE_DESCRIPTOR))
    );
    // No mipmapped 1D image buffers.
    let buf = cl.buffer::<f32>(64);
    let d = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE1D_BUFFER,
        image_width: 16,
        num_mip_levels: 2,
        buffer: buf.raw(),
        ..s.desc(0)
    };
    assert_eq!(
        try_mip_image(&cl, CL_MEM_READ_WRITE, &d).err(),
        Some(ClError(CL_INVALID_IMAGE_DESCRIPTOR))
    );
    // "If the mip level specified is not a valid value, these functions
    // return the error CL_INVALID_MIP_LEVEL."
    for shape in [SHAPES[0], SHAPES[3], SHAPES[4]] {
        let img = filled_image(&cl, CL_MEM_READ_WRITE, &shape);
        let o = shape.origin([0; 3], shape.levels);
        assert_eq!(
            try_read(&cl, &img, o, [1, 1, 1]).err(),
            Some(ClError(CL_INVALID_MIP_LEVEL)),
            "{shape:?}"
        );
        assert_eq!(
            try_write(&cl, &img, o, [1, 1, 1], &[0; ELEMENT]).err(),
            Some(ClError(CL_INVALID_MIP_LEVEL)),
            "{shape:?}"
        );
        // A region past the level's size: CL_INVALID_VALUE.
        let e = shape.extent(1);
        assert_eq!(
            try_read(&cl, &img, shape.origin([0; 3], 1), [e[0] + 1, e[1], e[2]]).err(),
            Some(ClError(CL_INVALID_VALUE)),
            "{shape:?}"
        );
    }
}

/// A sampler argument with cl_khr_mipmap_image's properties.
fn mip_sampler(cl: &Cl, mip_filter: cl_filter_mode, lod: [f32; 2]) -> Sampler {
    let props: [cl_sampler_properties; 13] = [
        CL_SAMPLER_NORMALIZED_COORDS as _,
        CL_TRUE as _,
        CL_SAMPLER_ADDRESSING_MODE as _,
        CL_ADDRESS_CLAMP_TO_EDGE as _,
        CL_SAMPLER_FILTER_MODE as _,
        CL_FILTER_NEAREST as _,
        CL_SAMPLER_MIP_FILTER_MODE_KHR,
        mip_filter as _,
        CL_SAMPLER_LOD_MIN_KHR,
        lod[0].to_bits() as _,
        CL_SAMPLER_LOD_MAX_KHR,
        lod[1].to_bits() as _,
        0,
    ];
    let mut err = 0;
    // SAFETY: a 0-terminated property list.
    let raw = unsafe { clCreateSamplerWithProperties(cl.context.raw(), props.as_ptr(), &mut err) };
    check(err, "clCreateSamplerWithProperties");
    let s = Sampler::from_raw(raw);
    assert_eq!(
        query_value::<cl_uint>(sampler_info(s.raw(), CL_SAMPLER_MIP_FILTER_MODE)).unwrap(),
        mip_filter
    );
    assert_eq!(
        query_value::<f32>(sampler_info(s.raw(), CL_SAMPLER_LOD_MAX)).unwrap(),
        lod[1]
    );
    s
}

const READS: &str = r#"
const sampler_t lit = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

// One read per work-item: lods[i] at normalized coordinate c.
kernel void read1d(read_only image1d_t im, sampler_t s, global const float *lods,
                   global float4 *out, global int *n, float c) {
    int i = get_global_id(0);
    out[2 * i] = read_imagef(im, lit, c, lods[i]);
    out[2 * i + 1] = read_imagef(im, s, c, lods[i]);
    if (i == 0) { n[0] = get_image_num_mip_levels(im); n[1] = get_image_width(im); }
}
kernel void read1da(read_only image1d_array_t im, sampler_t s, global const float *lods,
                    global float4 *out, global int *n, float c) {
    int i = get_global_id(0);
    out[2 * i] = read_imagef(im, lit, (float2)(c, 2.0f), lods[i]);
    out[2 * i + 1] = read_imagef(im, s, (float2)(c, 2.0f), lods[i]);
    if (i == 0) { n[0] = get_image_num_mip_levels(im); n[1] = get_image_width(im); }
}
kernel void read2d(read_only image2d_t im, sampler_t s, global const float *lods,
                   global float4 *out, global int *n, float c) {
    int i = get_global_id(0);
    out[2 * i] = read_imagef(im, lit, (float2)(c, 1.0f - c), lods[i]);
    out[2 * i + 1] = read_imagef(im, s, (float2)(c, 1.0f - c), lods[i]);
    if (i == 0) { n[0] = get_image_num_mip_levels(im); n[1] = get_image_width(im); }
}
kernel void read2da(read_only image2d_array_t im, sampler_t s, global const float *lods,
                    global float4 *out, global int *n, float c) {
    int i = get_global_id(0);
    out[2 * i] = read_imagef(im, lit, (float4)(c, 1.0f - c, 1.0f, 0.0f), lods[i]);
    out[2 * i + 1] = read_imagef(im, s, (float4)(c, 1.0f - c, 1.0f, 0.0f), lods[i]);
    if (i == 0) { n[0] = get_image_num_mip_levels(im); n[1] = get_image_width(im); }
}
kernel void read3d(read_only image3d_t im, sampler_t s, global const float *lods,
                   global float4 *out, global int *n, float c) {
    int i = get_global_id(0);
    out[2 * i] = read_imagef(im, lit, (float4)(c, 1.0f - c, c, 0.0f), lods[i]);
    out[2 * i + 1] = read_imagef(im, s, (float4)(c, 1.0f - c, c, 0.0f), lods[i]);
    if (i == 0) { n[0] = get_image_num_mip_levels(im); n[1] = get_image_width(im); }
}
"#;

/// The texel a NEAREST read at normalized `coord` (x, y, z; the layer for
/// arrays in `layer`) finds in level `l` of `s`.
fn nearest_texel(s: &Shape, l: usize, coord: [f32; 3], layer: usize) -> [f32; 4] {
    let e = s.extent(l);
    let idx =
        |c: f32, n: usize| ((c * n as f32).floor() as isize).clamp(0, n as isize - 1) as usize;
    let (x, y, z) = match s.ty {
        CL_MEM_OBJECT_IMAGE1D => (idx(coord[0], e[0]), 0, 0),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (idx(coord[0], e[0]), layer, 0),
        CL_MEM_OBJECT_IMAGE2D => (idx(coord[0], e[0]), idx(coord[1], e[1]), 0),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (idx(coord[0], e[0]), idx(coord[1], e[1]), layer),
        _ => (
            idx(coord[0], e[0]),
            idx(coord[1], e[1]),
            idx(coord[2], e[2]),
        ),
    };
    texel(l, (z * e[1] + y) * e[0] + x)
}

/// `a·(1 - t) + b·t` per component.
fn mix(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [0, 1, 2, 3].map(|k| a[k] + (b[k] - a[k]) * t)
}

#[test]
fn kernels_read_levels_by_lod() {
    if !has_mipmaps() {
        return;
    }
    let cl = Cl::new();
    let prog = cl
        .context
        .try_build(READS, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let names = ["read1d", "read1da", "read2d", "read2da", "read3d"];
    // Lods: integers, beyond the last level, and the NEAREST rule's
    // rounding (0.375 → 0, 1.625 → 2, 1.5 → 1: level ceil(λ + 0.5) - 1);
    // binary fractions keep the LINEAR mixes exact.
    let lods = [0.0f32, 1.0, 2.0, 7.0, 0.375, 1.625, 1.5, -3.0];
    let nearest_level =
        |lod: f32, q: usize| -> usize { ((lod + 0.5).ceil() - 1.0).clamp(0.0, q as f32) as usize };
    let c = 0.3f32;
    for (s, name) in SHAPES.iter().zip(names) {
        let img = filled_image(&cl, CL_MEM_READ_ONLY, s);
        let q = s.levels - 1;
        let layer = match s.ty {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => 2,
            CL_MEM_OBJECT_IMAGE2D_ARRAY => 1,
            _ => 0,
        };
        let coord = [c, 1.0 - c, c];
        let k = prog.kernel(name);
        let lod_buf = cl.buffer_from(&lods);
        let n = cl.buffer::<i32>(2);
        // A sampler argument: LINEAR mip filter, lods within [0.5, 1.75].
        let lin = mip_sampler(&cl, CL_FILTER_LINEAR, [0.5, 1.75]);
        let out = cl.buffer::<[f32; 4]>(2 * lods.len());
        k.arg(0, &img)
            .arg(1, &lin)
            .arg(2, &lod_buf)
            .arg(3, &out)
            .arg(4, &n)
            .arg(5, &c);
        cl.queue.run(&k, &[lods.len()], None);
        let got = cl.queue.read(&out);
        let mut want = Vec::new();
        for &lod in &lods {
            want.push(nearest_texel(s, nearest_level(lod, q), coord, layer));
            // LINEAR: λ clamped to the sampler's [0.5, 1.75] and [0, q].
            let lam = lod.clamp(0.5, 1.75).clamp(0.0, q as f32);
            let d0 = lam.floor() as usize;
            let d1 = (d0 + 1).min(q);
            let t = lam - lam.floor();
            want.push(mix(
                nearest_texel(s, d0, coord, layer),
                nearest_texel(s, d1, coord, layer),
                t,
            ));
        }
        assert_close(
            &format!("lod reads of {s:?}"),
            &got.concat(),
            &want.concat(),
            0.0,
        );
        assert_eq!(
            cl.queue.read(&n),
            vec![s.levels as i32, s.size[0] as i32],
            "{s:?}"
        );

        // A NEAREST-mip sampler argument with lod range [1, 1]: level 1.
        let one = mip_sampler(&cl, CL_FILTER_NEAREST, [1.0, 1.0]);
        k.arg(1, &one);
        cl.queue.run(&k, &[lods.len()], None);
        let got = cl.queue.read(&out);
        for (i, g) in got.chunks(2).enumerate() {
            assert_eq!(
                g[1],
                nearest_texel(s, 1, coord, layer),
                "lod {} with range [1, 1] of {s:?}",
                lods[i]
            );
        }
    }
}

const GRADIENTS: &str = r#"
const sampler_t lit = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void grad2d(read_only image2d_t im, global const float4 *g, global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(im, lit, (float2)(0.3f, 0.7f), g[i].xy, g[i].zw);
}
kernel void grad1d(read_only image1d_t im, global const float4 *g, global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(im, lit, 0.3f, g[i].x, g[i].y);
}
"#;

#[test]
fn kernels_read_levels_by_gradients() {
    if !has_mipmaps() {
        return;
    }
    let cl = Cl::new();
    let prog = cl
        .context
        .try_build(GRADIENTS, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    // Gradients of 2^k texels of level 0 along one axis give λ = k.
    for (s, name) in [(SHAPES[2], "grad2d"), (SHAPES[0], "grad1d")] {
        let img = filled_image(&cl, CL_MEM_READ_ONLY, &s);
        let w = s.size[0] as f32;
        let h = s.size[1].max(1) as f32;
        let grads: Vec<[f32; 4]> = match s.ty {
            CL_MEM_OBJECT_IMAGE2D => vec![
                [1.0 / w, 0.0, 0.0, 0.5 / h],
                [2.0 / w, 0.0, 0.0, 1.0 / h],
                [0.0, 0.0, 0.0, 4.0 / h],
                [8.0 / w, 0.0, 0.0, 0.0],
            ],
            _ => vec![
                [1.0 / w, 0.5 / w, 0.0, 0.0],
                [0.0, 2.0 / w, 0.0, 0.0],
                [4.0 / w, 1.0 / w, 0.0, 0.0],
                [32.0 / w, 0.0, 0.0, 0.0],
            ],
        };
        let levels = [0usize, 1, 2, 3];
        let k = prog.kernel(name);
        let g = cl.buffer_from(&grads);
        let out = cl.buffer::<[f32; 4]>(grads.len());
        k.arg(0, &img).arg(1, &g).arg(2, &out);
        cl.queue.run(&k, &[grads.len()], None);
        let got = cl.queue.read(&out);
        let coord = [0.3, 0.7, 0.0];
        for (i, &l) in levels.iter().enumerate() {
            assert_eq!(
                got[i],
                nearest_texel(&s, l, coord, 0),
                "gradient {i} of {s:?}"
            );
        }
    }
}

fn has_mipmap_writes() -> bool {
    device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_mipmap_image_writes")
}

const WRITES: &str = r#"
// Texel i of level lod (i: the work-item's index in the level's extent):
// (lod·1000 + i, +0.25, +0.5, +0.75), as `texel` on the host.
float4 value(int lod) {
    int i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0)
            + get_global_id(0);
    float v = lod * 1000 + i;
    return (float4)(v, v + 0.25f, v + 0.5f, v + 0.75f);
}
kernel void w1d(write_only image1d_t im, int lod) {
    write_imagef(im, (int)get_global_id(0), lod, value(lod));
}
kernel void w1da(write_only image1d_array_t im, int lod) {
    write_imagef(im, (int2)(get_global_id(0), get_global_id(1)), lod, value(lod));
}
kernel void w2d(write_only image2d_t im, int lod) {
    write_imagef(im, (int2)(get_global_id(0), get_global_id(1)), lod, value(lod));
}
kernel void w2da(write_only image2d_array_t im, int lod) {
    write_imagef(im, (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0), lod,
                 value(lod));
}
#ifdef cl_khr_3d_image_writes
kernel void w3d(write_only image3d_t im, int lod) {
    write_imagef(im, (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0), lod,
                 value(lod));
}
#endif
"#;

const PUT: &str = r#"
kernel void put(write_only image2d_t im, global int *n) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(im, (int2)(x, y), (float4)(x, y, 7.0f, 8.0f));
    if (x == 0 && y == 0) n[0] = get_image_num_mip_levels(im);
}
"#;

#[test]
fn kernels_write_every_level_of_every_image_type() {
    if !has_mipmap_writes() {
        return;
    }
    let cl = Cl::new();
    let prog = cl
        .context
        .try_build(WRITES, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let writes_3d = device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_3d_image_writes");
    for (s, name) in SHAPES.iter().zip(["w1d", "w1da", "w2d", "w2da", "w3d"]) {
        if s.ty == CL_MEM_OBJECT_IMAGE3D && !writes_3d {
            continue;
        }
        let img = try_mip_image(&cl, CL_MEM_WRITE_ONLY, &s.desc(s.levels)).unwrap();
        let k = prog.kernel(name);
        // Every level, the last first, so that a write landing on another
        // level is overwritten by that level's own or seen.
        for l in (0..s.levels).rev() {
            k.arg(0, &img).arg(1, &(l as i32));
            cl.queue.run(&k, &s.extent(l), None);
        }
        for l in 0..s.levels {
            let got = try_read(&cl, &img, s.origin([0; 3], l), s.extent(l)).unwrap();
            assert_eq!(floats(&got), level_data(s, l), "level {l} of {s:?}");
        }
    }
}

#[test]
fn writes_without_a_lod_go_to_level_0() {
    if !has_mipmaps() {
        return;
    }
    let cl = Cl::new();
    let s = SHAPES[2];
    let img = filled_image(&cl, CL_MEM_READ_WRITE, &s);
    let k = cl
        .context
        .try_build(PUT, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel("put");
    let n = cl.buffer::<i32>(1);
    k.arg(0, &img).arg(1, &n);
    cl.queue.run(&k, &[s.size[0], s.size[1]], None);
    assert_eq!(cl.queue.read(&n), vec![s.levels as i32]);
    let got = floats(&try_read(&cl, &img, s.origin([0; 3], 0), s.extent(0)).unwrap());
    let mut want = Vec::new();
    for y in 0..s.size[1] {
        for x in 0..s.size[0] {
            want.extend([x as f32, y as f32, 7.0, 8.0]);
        }
    }
    assert_eq!(got, want, "level 0 written");
    let got = floats(&try_read(&cl, &img, s.origin([0; 3], 1), s.extent(1)).unwrap());
    assert_eq!(got, level_data(&s, 1), "level 1 untouched");
}

#[test]
fn the_extension_macros_follow_the_extension_list() {
    if !has_mipmaps() {
        return;
    }
    let cl = Cl::new();
    // OpenCL C 3.0: clang declares cl_khr_mipmap_image and its built-ins
    // from OpenCL C 2.0 on (the extension is written against 2.0).
    let writes = has_mipmap_writes();
    let macros = format!(
        "#if !defined(cl_khr_mipmap_image) || {}defined(cl_khr_mipmap_image_writes)\n\
         #error mipmap extension macros\n\
         #endif\n\
         kernel void k(global int *p) {{ p[0] = 1; }}",
        if writes { "!" } else { "" }
    );
    if let Err(e) = cl.context.try_build(&macros, "-cl-std=CL3.0") {
        panic!("{e}");
    }
    // Without cl_khr_mipmap_image_writes, write_image with a lod does not
    // compile.
    let with_lod = r#"
        kernel void k(write_only image2d_t im) {
            write_imagef(im, (int2)(0, 0), 1, (float4)(1.0f));
        }"#;
    assert_eq!(
        cl.context.try_build(with_lod, "-cl-std=CL3.0").is_ok(),
        writes,
        "write_imagef with a lod compiles exactly with cl_khr_mipmap_image_writes"
    );
}

#[test]
fn depth_images_may_be_mipmapped() {
    let depth = device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_depth_images");
    if !has_mipmaps() || !depth {
        return;
    }
    // The CTS (test_cl_read_write_images test_mipmaps) creates mipmapped
    // CL_DEPTH images, which cl_khr_mipmap_image's built-ins read.
    let cl = Cl::new();
    let s = Shape {
        ty: CL_MEM_OBJECT_IMAGE2D,
        size: [8, 6, 0, 0],
        levels: 3,
    };
    let img = cl
        .context
        .try_image(CL_MEM_READ_WRITE, &format(CL_DEPTH, CL_FLOAT), &s.desc(3))
        .unwrap_or_else(|e| panic!("mipmapped CL_DEPTH image: {e}"));
    let r = s.extent(1);
    let data: Vec<f32> = (0..r[0] * r[1]).map(|i| i as f32 * 0.5).collect();
    let o = s.origin([0; 3], 1);
    // SAFETY: blocking write of the level's region from `data`.
    check(
        unsafe {
            clEnqueueWriteImage(
                cl.queue.raw(),
                img.raw(),
                CL_TRUE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                data.as_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueWriteImage",
    );
    let mut out = vec![0f32; data.len()];
    // SAFETY: blocking read into `out`, sized for the region.
    check(
        unsafe {
            clEnqueueReadImage(
                cl.queue.raw(),
                img.raw(),
                CL_TRUE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueReadImage",
    );
    assert_eq!(out, data);
}

const MANY: &str = r#"
kernel void many(read_only image2d_t a, read_only image2d_t b, read_only image2d_t c,
                 read_only image2d_t d, read_only image2d_t e, read_only image2d_t f,
                 sampler_t s, global float4 *out, global int *n) {
    float2 p = (float2)(0.3f, 0.7f);
    out[0] = read_imagef(a, s, p, 0.0f);
    out[1] = read_imagef(b, s, p, 1.0f);
    out[2] = read_imagef(c, s, p, 2.0f);
    out[3] = read_imagef(d, s, p, 3.0f);
    out[4] = read_imagef(e, s, p, 0.5f);
    out[5] = read_imagef(f, s, p, 9.0f);
    n[0] = get_image_num_mip_levels(a) + 10 * get_image_num_mip_levels(f);
}
"#;

#[test]
fn many_mipmapped_arguments_spill_their_fields() {
    if !has_mipmaps() {
        return;
    }
    // Six images and a sampler with their level counts and lod ranges
    // crowd the push constants: the fields move to the argument buffer.
    let cl = Cl::new();
    let s = SHAPES[2];
    let img = filled_image(&cl, CL_MEM_READ_ONLY, &s);
    let k = cl
        .context
        .try_build(MANY, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel("many");
    let smp = mip_sampler(&cl, CL_FILTER_LINEAR, [0.0, 2.0]);
    let out = cl.buffer::<[f32; 4]>(6);
    let n = cl.buffer::<i32>(1);
    for i in 0..6 {
        k.arg(i, &img);
    }
    k.arg(6, &smp).arg(7, &out).arg(8, &n);
    cl.queue.run(&k, &[1], None);
    let coord = [0.3, 0.7, 0.0];
    let t = |l| nearest_texel(&s, l, coord, 0);
    let want = [t(0), t(1), t(2), t(2), mix(t(0), t(1), 0.5), t(2)];
    assert_eq!(cl.queue.read(&out), want.to_vec());
    assert_eq!(cl.queue.read(&n), vec![44]);
}

#[test]
fn a_kernel_writes_levels_of_as_many_images_as_the_device_binds() {
    if !has_mipmap_writes() {
        return;
    }
    // Each written level is a storage image of its own: two images per
    // kernel at least (lavapipe's budget), and nine are more than any
    // device is given (8 at most), a build error that says so.
    let cl = Cl::new();
    let src = |n: usize| {
        let params: Vec<String> = (0..n)
            .map(|i| format!("write_only image2d_t i{i}"))
            .collect();
        let body: String = (0..n)
            .map(|i| format!("write_imagef(i{i}, (int2)(0, 0), lod, (float4)({i}.0f));"))
            .collect();
        format!("kernel void k({}, int lod) {{ {body} }}", params.join(", "))
    };
    if let Err(e) = cl.context.try_build(&src(2), "-cl-std=CL3.0") {
        panic!("two images: {e}");
    }
    let err = cl
        .context
        .try_build(&src(9), "-cl-std=CL3.0")
        .err()
        .expect("nine images written at a level must not build");
    assert!(err.to_string().contains("at most"), "{err}");
}
