//! Generators for buffer, image, sampler, memory-object and SVM entry
//! points (SAFETY as in `calls_core`; host extents a valid call may touch
//! stay inside the scratch: see `G::host_size`).

use std::ffi::c_void;
use std::ptr;

use opencl_sys::*;

use super::gen::{noop_mem, noop_svm, G};
use super::pool::{BUFFER_BYTES, IMAGE_SIDE};

const MEM_FLAGS: &[u64] = &[
    CL_MEM_READ_WRITE,
    CL_MEM_READ_ONLY,
    CL_MEM_WRITE_ONLY,
    CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
    CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
    CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
    CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
    CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY,
    CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY,
];

fn release_mem(g: &mut G, m: cl_mem) {
    if g.chance(20) {
        let code = unsafe { clSetMemObjectDestructorCallback(m, Some(noop_mem), ptr::null_mut()) };
        g.rec("clSetMemObjectDestructorCallback", code);
    }
    let code = unsafe { clReleaseMemObject(m) };
    g.rec("clReleaseMemObject", code);
}

/// A buffer size and host pointer: with a host pointer, at most 1 MiB or
/// more than any device allows.
fn size_and_host(g: &mut G, flags: u64) -> (usize, *mut c_void) {
    let host = if flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0 {
        g.chance(85)
    } else {
        g.chance(10)
    };
    // Host extents of a valid call stay within the 4 MiB scratch.
    let size = g.pick(&[0, 1, 64, 4096, 1 << 20, 1 << 50, usize::MAX]);
    (size, if host { g.host(false) } else { ptr::null_mut() })
}

pub fn create_buffer(g: &mut G) {
    let c = g.ctx();
    let flags = g.flags(MEM_FLAGS);
    let (size, host) = size_and_host(g, flags);
    let mut e = 0;
    let m = if g.chance(60) {
        unsafe { clCreateBuffer(c, flags, size, host, &mut e) }
    } else {
        let props: Vec<u64> = match g.below(4) {
            0 => Vec::new(),
            1 => vec![0],
            2 => vec![0x7777, 1, 0],
            _ => vec![0x5000, 1, 0],
        };
        let pp = if props.is_empty() {
            ptr::null()
        } else {
            props.as_ptr()
        };
        let m = unsafe { clCreateBufferWithProperties(c, pp, flags, size, host, &mut e) };
        if g.rec_obj("clCreateBufferWithProperties", e, m.cast()) {
            release_mem(g, m);
        }
        return;
    };
    if g.rec_obj("clCreateBuffer", e, m.cast()) {
        release_mem(g, m);
    }
}

pub fn create_sub_buffer(g: &mut G) {
    let b = g.mem();
    let flags = g.flags(&[
        0,
        CL_MEM_READ_WRITE,
        CL_MEM_READ_ONLY,
        CL_MEM_HOST_NO_ACCESS,
    ]);
    let region = cl_buffer_region {
        origin: g.pick(&[0, 0, 1, 64, 256, 4096, usize::MAX]),
        size: g.size(),
    };
    let t = g.pick(&[
        CL_BUFFER_CREATE_TYPE_REGION,
        CL_BUFFER_CREATE_TYPE_REGION,
        0x7777,
    ]);
    let info: *const c_void = if g.chance(10) {
        ptr::null()
    } else {
        (&region as *const cl_buffer_region).cast()
    };
    let mut e = 0;
    let m = unsafe { clCreateSubBuffer(b, flags, t, info, &mut e) };
    if g.rec_obj("clCreateSubBuffer", e, m.cast()) {
        release_mem(g, m);
    }
}

pub fn get_mem_object_info(g: &mut G) {
    let m = g.mem();
    let param = g.param(0x1100, 12);
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetMemObjectInfo(m, param, s, v, r) };
    g.rec("clGetMemObjectInfo", code);
}

pub fn set_mem_destructor_callback(g: &mut G) {
    // Pool objects would collect callbacks: bad handles, or a new buffer.
    let m = if g.chance(50) {
        let mut e = 0;
        let m = unsafe { clCreateBuffer(g.pool.context, 0, 64, ptr::null_mut(), &mut e) };
        if !g.rec_obj("clCreateBuffer", e, m.cast()) {
            return;
        }
        m
    } else {
        g.pick(&[
            ptr::null_mut(),
            g.pool.forged().cast(),
            g.pool.dead[1].cast(),
            g.pool.queue.cast(),
        ])
    };
    let f = if g.chance(80) {
        Some(noop_mem as _)
    } else {
        None
    };
    let code = unsafe { clSetMemObjectDestructorCallback(m, f, ptr::null_mut()) };
    g.rec("clSetMemObjectDestructorCallback", code);
    if !g.pool.dead.contains(&m.cast())
        && unsafe { clGetMemObjectInfo(m, CL_MEM_SIZE, 0, ptr::null_mut(), ptr::null_mut()) }
            == CL_SUCCESS
    {
        let code = unsafe { clReleaseMemObject(m) };
        g.rec("clReleaseMemObject", code);
    }
}

pub fn read_write_buffer(g: &mut G) {
    let q = g.queue();
    let b = g.mem();
    let blocking = g.pick(&[CL_TRUE, CL_FALSE]);
    let off = g.size();
    let size = g.pick(&[0, 1, 4, 1024, 4096, 4097, 1 << 40, usize::MAX]);
    let host = g.host(true);
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    if g.chance(50) {
        let code = unsafe { clEnqueueReadBuffer(q, b, blocking, off, size, host, n, l, ev) };
        g.rec("clEnqueueReadBuffer", code);
    } else {
        let code = unsafe { clEnqueueWriteBuffer(q, b, blocking, off, size, host, n, l, ev) };
        g.rec("clEnqueueWriteBuffer", code);
    }
    g.keep_event();
}

pub fn read_write_buffer_rect(g: &mut G) {
    let q = g.queue();
    let b = g.mem();
    let blocking = g.pick(&[CL_TRUE, CL_FALSE]);
    let bo = g.triple(&[0, 0, 1, 16, 4096, usize::MAX]);
    let ho = g.triple(&[0, 0, 1, 16]);
    let region = g.triple(&[0, 1, 1, 4, 16, 64, usize::MAX]);
    let brp = g.pick(&[0, 0, 16, 64, 4096, usize::MAX]);
    let bsp = g.pick(&[0, 0, 256, 1024, usize::MAX]);
    let hrp = g.pick(&[0, 0, 16, 64, 1024]);
    let hsp = g.pick(&[0, 0, 1024, 4096, 16384]);
    let host = g.host(true);
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let (bo, ho, region) = (bo.as_ptr(), ho.as_ptr(), region.as_ptr());
    if g.chance(50) {
        let code = unsafe {
            clEnqueueReadBufferRect(
                q, b, blocking, bo, ho, region, brp, bsp, hrp, hsp, host, n, l, ev,
            )
        };
        g.rec("clEnqueueReadBufferRect", code);
    } else {
        let code = unsafe {
            clEnqueueWriteBufferRect(
                q, b, blocking, bo, ho, region, brp, bsp, hrp, hsp, host, n, l, ev,
            )
        };
        g.rec("clEnqueueWriteBufferRect", code);
    }
    g.keep_event();
}

pub fn copy_buffer(g: &mut G) {
    let q = g.queue();
    let s = g.mem();
    let d = if g.chance(20) { s } else { g.mem() };
    let (so, dof) = (g.size(), g.size());
    let size = g.size();
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let code = unsafe { clEnqueueCopyBuffer(q, s, d, so, dof, size, n, l, ev) };
    g.rec("clEnqueueCopyBuffer", code);
    g.keep_event();
}

pub fn copy_buffer_rect(g: &mut G) {
    let q = g.queue();
    let s = g.mem();
    let d = if g.chance(20) { s } else { g.mem() };
    let so = g.triple(&[0, 0, 1, 16, 4096, usize::MAX]);
    let dof = g.triple(&[0, 0, 1, 16, 4096, usize::MAX]);
    let region = g.triple(&[0, 1, 1, 4, 16, 64, usize::MAX]);
    let p = [
        g.pick(&[0, 16, 64, usize::MAX]),
        g.pick(&[0, 256, 1024, usize::MAX]),
        g.pick(&[0, 16, 64, usize::MAX]),
        g.pick(&[0, 256, 1024, usize::MAX]),
    ];
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let code = unsafe {
        clEnqueueCopyBufferRect(
            q,
            s,
            d,
            so.as_ptr(),
            dof.as_ptr(),
            region.as_ptr(),
            p[0],
            p[1],
            p[2],
            p[3],
            n,
            l,
            ev,
        )
    };
    g.rec("clEnqueueCopyBufferRect", code);
    g.keep_event();
}

pub fn fill_buffer(g: &mut G) {
    let q = g.queue();
    let b = g.mem();
    let pattern = g.host(true);
    let ps = g.pick(&[0, 1, 2, 3, 4, 8, 16, 64, 128, 256]);
    let off = g.size();
    let size = g.size();
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let code = unsafe { clEnqueueFillBuffer(q, b, pattern, ps, off, size, n, l, ev) };
    g.rec("clEnqueueFillBuffer", code);
    g.keep_event();
}

const MAP_FLAGS: &[u64] = &[
    CL_MAP_READ,
    CL_MAP_WRITE,
    CL_MAP_READ | CL_MAP_WRITE,
    CL_MAP_WRITE_INVALIDATE_REGION,
    CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
];

fn unmap(g: &mut G, q: cl_command_queue, m: cl_mem, p: *mut c_void) {
    let code = unsafe { clEnqueueUnmapMemObject(q, m, p, 0, ptr::null(), ptr::null_mut()) };
    g.rec("clEnqueueUnmapMemObject", code);
}

pub fn map_buffer(g: &mut G) {
    let q = g.queue();
    let b = g.mem();
    let blocking = g.pick(&[CL_TRUE, CL_FALSE]);
    let flags = g.flags(MAP_FLAGS);
    let off = g.size();
    let size = g.size();
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let mut e = 0;
    let p = unsafe { clEnqueueMapBuffer(q, b, blocking, flags, off, size, n, l, ev, &mut e) };
    if g.rec_obj("clEnqueueMapBuffer", e, p) {
        unmap(g, q, b, p);
    }
    g.keep_event();
}

pub fn unmap_bad(g: &mut G) {
    let q = g.queue();
    let m = g.mem();
    let p = g.host(true);
    let (n, l) = g.wait_list();
    let code = unsafe { clEnqueueUnmapMemObject(q, m, p, n, l, ptr::null_mut()) };
    g.rec("clEnqueueUnmapMemObject", code);
}

pub fn migrate_mem_objects(g: &mut G) {
    let q = g.queue();
    let objs = [g.mem(), g.mem()];
    let k = g.pick(&[0u32, 1, 2]);
    let op = if g.chance(10) {
        ptr::null()
    } else {
        objs.as_ptr()
    };
    let flags = g.flags(&[
        0,
        CL_MIGRATE_MEM_OBJECT_HOST,
        CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
    ]);
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let code = unsafe { clEnqueueMigrateMemObjects(q, k, op, flags, n, l, ev) };
    g.rec("clEnqueueMigrateMemObjects", code);
    g.keep_event();
}

fn format(g: &mut G) -> cl_image_format {
    cl_image_format {
        image_channel_order: g.pick(&[CL_RGBA, CL_R, CL_RG, CL_BGRA, CL_DEPTH, 0x7777]),
        image_channel_data_type: g.pick(&[
            CL_UNORM_INT8,
            CL_FLOAT,
            CL_SIGNED_INT32,
            CL_HALF_FLOAT,
            CL_UNORM_SHORT_565,
            0x7777,
        ]),
    }
}

fn image_desc(g: &mut G, host: bool) -> cl_image_desc {
    // SAFETY: a plain C struct, zero is its default.
    let mut d: cl_image_desc = unsafe { std::mem::zeroed() };
    d.image_type = g.pick(&[
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE3D,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_BUFFER,
        0x7777,
    ]);
    let dims: &[usize] = if host {
        &[0, 1, 16, 1 << 40]
    } else {
        &[0, 1, 16, 64, 1 << 40, usize::MAX]
    };
    d.image_width = g.pick(dims);
    d.image_height = g.pick(dims);
    d.image_depth = g.pick(dims);
    d.image_array_size = g.pick(&[0, 1, 4, 1 << 40]);
    d.image_row_pitch = g.pick(&[0, 0, 0, 3, 64, 1024]);
    d.image_slice_pitch = g.pick(&[0, 0, 0, 5, 16384]);
    d.num_mip_levels = g.pick(&[0, 0, 0, 1]);
    d.num_samples = g.pick(&[0, 0, 0, 2]);
    if g.chance(15) {
        d.buffer = g.mem();
    }
    d
}

pub fn create_image(g: &mut G) {
    let c = g.ctx();
    let flags = g.flags(MEM_FLAGS);
    let host =
        flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0 && g.chance(85) || g.chance(5);
    let fmt = format(g);
    let desc = image_desc(g, host);
    let fp: *const cl_image_format = if g.chance(8) { ptr::null() } else { &fmt };
    let dp: *const cl_image_desc = if g.chance(8) { ptr::null() } else { &desc };
    let hp = if host { g.host(false) } else { ptr::null_mut() };
    let mut e = 0;
    let (name, m) = match g.below(5) {
        0 | 1 => ("clCreateImage", unsafe {
            clCreateImage(c, flags, fp, dp, hp, &mut e)
        }),
        2 => {
            let props: Vec<u64> = match g.below(3) {
                0 => Vec::new(),
                1 => vec![0],
                _ => vec![0x7777, 1, 0],
            };
            let pp = if props.is_empty() {
                ptr::null()
            } else {
                props.as_ptr()
            };
            ("clCreateImageWithProperties", unsafe {
                clCreateImageWithProperties(c, pp, flags, fp, dp, hp, &mut e)
            })
        }
        3 => ("clCreateImage2D", unsafe {
            clCreateImage2D(
                c,
                flags,
                fp.cast_mut(),
                desc.image_width,
                desc.image_height,
                desc.image_row_pitch,
                hp,
                &mut e,
            )
        }),
        _ => ("clCreateImage3D", unsafe {
            clCreateImage3D(
                c,
                flags,
                fp.cast_mut(),
                desc.image_width,
                desc.image_height,
                desc.image_depth,
                desc.image_row_pitch,
                desc.image_slice_pitch,
                hp,
                &mut e,
            )
        }),
    };
    if g.rec_obj(name, e, m.cast()) {
        release_mem(g, m);
    }
}

pub fn get_supported_image_formats(g: &mut G) {
    let c = g.ctx();
    let flags = g.flags(MEM_FLAGS);
    let t = g.pick(&[
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE3D,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_BUFFER,
        0x7777,
    ]);
    let n = g.pick(&[0u32, 1, 64]);
    let out = if g.chance(30) {
        ptr::null_mut()
    } else {
        g.host(false).cast()
    };
    let mut num = 0;
    let np: *mut cl_uint = if g.chance(30) {
        ptr::null_mut()
    } else {
        &mut num
    };
    let code = unsafe { clGetSupportedImageFormats(c, flags, t, n, out, np) };
    g.rec("clGetSupportedImageFormats", code);
}

pub fn get_image_info(g: &mut G) {
    let m = g.image();
    let param = g.param(0x1110, 12);
    let (s, v, r) = g.info_out();
    let code = unsafe { clGetImageInfo(m, param, s, v, r) };
    g.rec("clGetImageInfo", code);
}

fn img_origin(g: &mut G) -> [usize; 3] {
    g.triple(&[0, 0, 0, 1, 15, IMAGE_SIDE, usize::MAX])
}

fn img_region(g: &mut G) -> [usize; 3] {
    g.triple(&[0, 1, 1, 1, 4, IMAGE_SIDE, IMAGE_SIDE + 1, usize::MAX])
}

pub fn read_write_image(g: &mut G) {
    let q = g.queue();
    let m = g.image();
    let blocking = g.pick(&[CL_TRUE, CL_FALSE]);
    let o = img_origin(g);
    let r = img_region(g);
    let rp = g.pick(&[0, 0, 3, 64, 4096]);
    let sp = g.pick(&[0, 0, 5, 4096, 65536]);
    let host = g.host(true);
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    if g.chance(50) {
        let code = unsafe {
            clEnqueueReadImage(
                q,
                m,
                blocking,
                o.as_ptr(),
                r.as_ptr(),
                rp,
                sp,
                host,
                n,
                l,
                ev,
            )
        };
        g.rec("clEnqueueReadImage", code);
    } else {
        let code = unsafe {
            clEnqueueWriteImage(
                q,
                m,
                blocking,
                o.as_ptr(),
                r.as_ptr(),
                rp,
                sp,
                host,
                n,
                l,
                ev,
            )
        };
        g.rec("clEnqueueWriteImage", code);
    }
    g.keep_event();
}

pub fn copy_fill_image(g: &mut G) {
    let q = g.queue();
    let a = g.image();
    let b = if g.chance(50) { a } else { g.image() };
    let (o1, o2, r) = (img_origin(g), img_origin(g), img_region(g));
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    match g.below(4) {
        0 => {
            let code = unsafe {
                clEnqueueCopyImage(q, a, b, o1.as_ptr(), o2.as_ptr(), r.as_ptr(), n, l, ev)
            };
            g.rec("clEnqueueCopyImage", code);
        }
        1 => {
            let color = g.host(true);
            let code =
                unsafe { clEnqueueFillImage(q, a, color, o1.as_ptr(), r.as_ptr(), n, l, ev) };
            g.rec("clEnqueueFillImage", code);
        }
        2 => {
            let buf = g.mem();
            let off = g.size();
            let code = unsafe {
                clEnqueueCopyImageToBuffer(q, a, buf, o1.as_ptr(), r.as_ptr(), off, n, l, ev)
            };
            g.rec("clEnqueueCopyImageToBuffer", code);
        }
        _ => {
            let buf = g.mem();
            let off = g.size();
            let code = unsafe {
                clEnqueueCopyBufferToImage(q, buf, a, off, o1.as_ptr(), r.as_ptr(), n, l, ev)
            };
            g.rec("clEnqueueCopyBufferToImage", code);
        }
    }
    g.keep_event();
}

pub fn map_image(g: &mut G) {
    let q = g.queue();
    let m = g.image();
    let blocking = g.pick(&[CL_TRUE, CL_FALSE]);
    let flags = g.flags(MAP_FLAGS);
    let (o, r) = (img_origin(g), img_region(g));
    let mut rp = 0usize;
    let mut sp = 0usize;
    let rpp: *mut usize = if g.chance(10) {
        ptr::null_mut()
    } else {
        &mut rp
    };
    let spp: *mut usize = if g.chance(30) {
        ptr::null_mut()
    } else {
        &mut sp
    };
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let mut e = 0;
    let p = unsafe {
        clEnqueueMapImage(
            q,
            m,
            blocking,
            flags,
            o.as_ptr(),
            r.as_ptr(),
            rpp,
            spp,
            n,
            l,
            ev,
            &mut e,
        )
    };
    if g.rec_obj("clEnqueueMapImage", e, p) {
        unmap(g, q, m, p);
    }
    g.keep_event();
}

pub fn pipes(g: &mut G) {
    let c = g.ctx();
    if g.chance(50) {
        let mut e = 0;
        let flags = g.flags(&[0, CL_MEM_READ_WRITE, CL_MEM_HOST_NO_ACCESS]);
        let m = unsafe {
            clCreatePipe(
                c,
                flags,
                g.pick(&[0, 4, 1 << 30]),
                g.pick(&[0, 16]),
                ptr::null(),
                &mut e,
            )
        };
        if g.rec_obj("clCreatePipe", e, m.cast()) {
            release_mem(g, m);
        }
    } else {
        let m = g.mem();
        let (s, v, r) = g.info_out();
        let code = unsafe { clGetPipeInfo(m, g.param(0x1120, 4), s, v, r) };
        g.rec("clGetPipeInfo", code);
    }
}

fn sampler_call(g: &mut G) {
    let c = g.ctx();
    let mut e = 0;
    let (name, s) = if g.chance(50) {
        let norm = g.pick(&[CL_TRUE, CL_FALSE, 7]);
        let addr = g.pick(&[
            CL_ADDRESS_NONE,
            CL_ADDRESS_CLAMP_TO_EDGE,
            CL_ADDRESS_REPEAT,
            CL_ADDRESS_MIRRORED_REPEAT,
            0x7777,
        ]);
        let filter = g.pick(&[CL_FILTER_NEAREST, CL_FILTER_LINEAR, 0x7777]);
        ("clCreateSampler", unsafe {
            clCreateSampler(c, norm, addr, filter, &mut e)
        })
    } else {
        let props: Vec<u64> = match g.below(6) {
            0 => Vec::new(),
            1 => vec![
                CL_SAMPLER_NORMALIZED_COORDS as u64,
                0,
                CL_SAMPLER_ADDRESSING_MODE as u64,
                CL_ADDRESS_REPEAT as u64,
                0,
            ],
            2 => vec![CL_SAMPLER_FILTER_MODE as u64, 0x7777, 0],
            3 => vec![
                CL_SAMPLER_NORMALIZED_COORDS as u64,
                1,
                CL_SAMPLER_NORMALIZED_COORDS as u64,
                1,
                0,
            ],
            4 => vec![0x7777, 0, 0],
            _ => vec![CL_SAMPLER_NORMALIZED_COORDS as u64, 5, 0],
        };
        let pp = if props.is_empty() {
            ptr::null()
        } else {
            props.as_ptr()
        };
        ("clCreateSamplerWithProperties", unsafe {
            clCreateSamplerWithProperties(c, pp, &mut e)
        })
    };
    if g.rec_obj(name, e, s.cast()) {
        let code = unsafe { clReleaseSampler(s) };
        g.rec("clReleaseSampler", code);
    }
}

pub fn samplers(g: &mut G) {
    if g.chance(50) {
        sampler_call(g);
    } else {
        let s = g.sampler();
        let param = g.param(0x1150, 10);
        let (sz, v, r) = g.info_out();
        let code = unsafe { clGetSamplerInfo(s, param, sz, v, r) };
        g.rec("clGetSamplerInfo", code);
    }
}

const SVM_FLAGS: &[u64] = &[
    CL_MEM_READ_WRITE,
    CL_MEM_READ_ONLY,
    CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
    CL_MEM_READ_WRITE | CL_MEM_SVM_ATOMICS,
    CL_MEM_SVM_ATOMICS,
    CL_MEM_USE_HOST_PTR,
];

/// An SVM pointer for an argument: the pool's, NULL or the scratch.
fn svm_ptr(g: &mut G) -> *mut c_void {
    match g.below(10) {
        0 => ptr::null_mut(),
        1 => g.host(false),
        _ if g.pool.svm.is_null() => ptr::null_mut(),
        _ => g.pool.svm,
    }
}

pub fn svm_alloc_free(g: &mut G) {
    let c = g.ctx();
    let flags = g.flags(SVM_FLAGS);
    let size = g.pick(&[0, 4, 4096, 1 << 20, 1 << 50, usize::MAX]);
    let align = g.pick(&[0, 0, 4, 64, 3, 1 << 20]);
    let p = unsafe { clSVMAlloc(c, flags, size, align) };
    // No code: record NULL or not (both may be right; see spec.rs).
    g.rec("clSVMAlloc", if p.is_null() { -1 } else { 0 });
    if !p.is_null() {
        if g.chance(50) {
            unsafe { clSVMFree(c, p) };
            g.rec("clSVMFree", 0);
        } else {
            let list = [p as *const c_void];
            let f = if g.chance(50) {
                Some(noop_svm as _)
            } else {
                None
            };
            let q = if c == g.pool.context {
                g.pool.queue
            } else {
                g.pool.queue2
            };
            let code = unsafe {
                clEnqueueSVMFree(
                    q,
                    1,
                    list.as_ptr(),
                    f,
                    ptr::null_mut(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            };
            g.rec("clEnqueueSVMFree", code);
            if code != CL_SUCCESS {
                unsafe { clSVMFree(c, p) };
            }
        }
    } else {
        unsafe { clSVMFree(c, ptr::null_mut()) };
        g.rec("clSVMFree", 0);
    }
}

pub fn svm_enqueue(g: &mut G) {
    let q = g.queue();
    let (n, l) = g.wait_list();
    let ev = g.ev_out();
    let size = g.pick(&[0, 4, 64, BUFFER_BYTES]);
    match g.below(5) {
        0 => {
            let (d, s) = (svm_ptr(g), svm_ptr(g));
            let blocking = g.pick(&[CL_TRUE, CL_FALSE]);
            let code = unsafe { clEnqueueSVMMemcpy(q, blocking, d, s, size, n, l, ev) };
            g.rec("clEnqueueSVMMemcpy", code);
        }
        1 => {
            let p = svm_ptr(g);
            let pattern = g.host(true);
            let ps = g.pick(&[0, 1, 3, 4, 16, 128, 256]);
            let code = unsafe { clEnqueueSVMMemFill(q, p, pattern, ps, size, n, l, ev) };
            g.rec("clEnqueueSVMMemFill", code);
        }
        2 => {
            let p = svm_ptr(g);
            let flags = g.flags(MAP_FLAGS);
            let blocking = g.pick(&[CL_TRUE, CL_FALSE]);
            let code = unsafe { clEnqueueSVMMap(q, blocking, flags, p, size, n, l, ev) };
            g.rec("clEnqueueSVMMap", code);
            if code == CL_SUCCESS {
                let code = unsafe { clEnqueueSVMUnmap(q, p, 0, ptr::null(), ptr::null_mut()) };
                g.rec("clEnqueueSVMUnmap", code);
            }
        }
        3 => {
            let ptrs = [svm_ptr(g) as *const c_void, svm_ptr(g) as *const c_void];
            let sizes = [
                g.pick(&[0, 4, BUFFER_BYTES, BUFFER_BYTES + 1, usize::MAX]),
                0,
            ];
            let k = g.pick(&[0u32, 1, 2]);
            let pp = if g.chance(10) {
                ptr::null()
            } else {
                ptrs.as_ptr()
            };
            let sp = if g.chance(30) {
                ptr::null()
            } else {
                sizes.as_ptr()
            };
            let flags = g.flags(&[0, CL_MIGRATE_MEM_OBJECT_HOST]);
            let code = unsafe { clEnqueueSVMMigrateMem(q, k, pp, sp, flags, n, l, ev) };
            g.rec("clEnqueueSVMMigrateMem", code);
        }
        _ => {
            // Frees nothing live: an empty or NULL list, or NULL pointers.
            let list = [ptr::null::<c_void>(); 2];
            let k = g.pick(&[0u32, 1, 2]);
            let lp = if g.chance(50) {
                ptr::null()
            } else {
                list.as_ptr()
            };
            let code = unsafe { clEnqueueSVMFree(q, k, lp, None, ptr::null_mut(), n, l, ev) };
            g.rec("clEnqueueSVMFree", code);
        }
    }
    g.keep_event();
}
