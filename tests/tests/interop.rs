//! Vulkan interop through the ICD loader (cl_khr_external_memory_opaque_fd,
//! cl_khr_semaphore, cl_khr_external_semaphore_opaque_fd / _sync_fd): a
//! real Vulkan program (`interop/vulkan.rs`, its own instance and device
//! on the physical device with the CL device's UUID) allocates exportable
//! memory and fills it with a transfer, ferrocl imports it and a kernel
//! transforms it in place, then Vulkan copies it out: values against a
//! CPU reference. The two APIs synchronize by waiting on the host, or
//! with semaphores in both directions (Vulkan-exported, CL-imported; and
//! CL-exported, Vulkan-imported) for each semaphore handle type the
//! device has: a handle type it lacks skips its test with the reason
//! printed. Also: what the device reports against what Vulkan says it
//! can do, cl_khr_semaphore between two CL queues (a wait enqueued before
//! its signal), and exact error codes.

#[path = "interop/vulkan.rs"]
mod vulkan;

use std::ffi::c_void;
use std::os::fd::{FromRawFd, OwnedFd};
use std::ptr;

use ash::vk;
use ferrocl_tests::info::{device_info, platform_info, query, query_value};
use ferrocl_tests::sys::*;
use ferrocl_tests::{device, device_string, expect_error, platform, testing_pocl, Cl, Kernel};
use vulkan::{image_barrier, ownership, SemHandle, Vk};

/// Elements of the shared buffer.
const N: usize = 4096;
const BYTES: u64 = (N * 4) as u64;

const TRANSFORM: &str = r#"
kernel void transform(global uint* d) {
    size_t i = get_global_id(0);
    d[i] = d[i] * 3u + (uint)i;
}
"#;

/// What Vulkan writes, and what the kernel makes of it.
fn written(i: usize) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761) ^ 0x5a5a
}
fn transformed(i: usize) -> u32 {
    written(i).wrapping_mul(3).wrapping_add(i as u32)
}

/// The entry point `$name`, which the platform must have.
macro_rules! ext_fn_some {
    ($name:literal, $t:ty) => {
        ferrocl_tests::ext_fn!($name, $t).expect($name)
    };
}

/// The interop entry points.
struct Ext {
    create_sema: unsafe extern "C" fn(
        cl_context,
        *const cl_semaphore_properties_khr,
        *mut cl_int,
    ) -> cl_semaphore_khr,
    wait: unsafe extern "C" fn(
        cl_command_queue,
        cl_uint,
        *const cl_semaphore_khr,
        *const cl_semaphore_payload_khr,
        cl_uint,
        *const cl_event,
        *mut cl_event,
    ) -> cl_int,
    signal: unsafe extern "C" fn(
        cl_command_queue,
        cl_uint,
        *const cl_semaphore_khr,
        *const cl_semaphore_payload_khr,
        cl_uint,
        *const cl_event,
        *mut cl_event,
    ) -> cl_int,
    sema_info: unsafe extern "C" fn(
        cl_semaphore_khr,
        cl_semaphore_info_khr,
        usize,
        *mut c_void,
        *mut usize,
    ) -> cl_int,
    retain_sema: unsafe extern "C" fn(cl_semaphore_khr) -> cl_int,
    release_sema: unsafe extern "C" fn(cl_semaphore_khr) -> cl_int,
}

impl Ext {
    fn memory() -> (
        clEnqueueAcquireExternalMemObjectsKHR_t,
        clEnqueueReleaseExternalMemObjectsKHR_t,
    ) {
        (
            Some(ext_fn_some!(
                "clEnqueueAcquireExternalMemObjectsKHR",
                clEnqueueAcquireExternalMemObjectsKHR_t
            )),
            Some(ext_fn_some!(
                "clEnqueueReleaseExternalMemObjectsKHR",
                clEnqueueReleaseExternalMemObjectsKHR_t
            )),
        )
    }

    fn load() -> Ext {
        Ext {
            create_sema: ext_fn_some!(
                "clCreateSemaphoreWithPropertiesKHR",
                clCreateSemaphoreWithPropertiesKHR_t
            ),
            wait: ext_fn_some!("clEnqueueWaitSemaphoresKHR", clEnqueueWaitSemaphoresKHR_t),
            signal: ext_fn_some!(
                "clEnqueueSignalSemaphoresKHR",
                clEnqueueSignalSemaphoresKHR_t
            ),
            sema_info: ext_fn_some!("clGetSemaphoreInfoKHR", clGetSemaphoreInfoKHR_t),
            retain_sema: ext_fn_some!("clRetainSemaphoreKHR", clRetainSemaphoreKHR_t),
            release_sema: ext_fn_some!("clReleaseSemaphoreKHR", clReleaseSemaphoreKHR_t),
        }
    }

    fn try_semaphore(
        &self,
        ctx: cl_context,
        props: &[cl_semaphore_properties_khr],
    ) -> Result<cl_semaphore_khr, cl_int> {
        let mut status = CL_SUCCESS;
        let p = if props.is_empty() {
            ptr::null()
        } else {
            props.as_ptr()
        };
        // SAFETY: a 0-terminated list or NULL.
        let s = unsafe { (self.create_sema)(ctx, p, &mut status) };
        if status == CL_SUCCESS {
            assert!(!s.is_null());
            Ok(s)
        } else {
            assert!(s.is_null(), "a failed create returns NULL");
            Err(status)
        }
    }

    fn semaphore(
        &self,
        ctx: cl_context,
        props: &[cl_semaphore_properties_khr],
    ) -> cl_semaphore_khr {
        self.try_semaphore(ctx, props)
            .unwrap_or_else(|e| panic!("clCreateSemaphoreWithPropertiesKHR: {e}"))
    }

    fn enqueue_wait(&self, q: cl_command_queue, s: cl_semaphore_khr) {
        // SAFETY: one valid semaphore.
        let r = unsafe { (self.wait)(q, 1, &s, ptr::null(), 0, ptr::null(), ptr::null_mut()) };
        assert_eq!(r, CL_SUCCESS, "clEnqueueWaitSemaphoresKHR");
    }

    fn enqueue_signal(&self, q: cl_command_queue, s: cl_semaphore_khr) {
        // SAFETY: one valid semaphore.
        let r = unsafe { (self.signal)(q, 1, &s, ptr::null(), 0, ptr::null(), ptr::null_mut()) };
        assert_eq!(r, CL_SUCCESS, "clEnqueueSignalSemaphoresKHR");
    }

    fn release_semaphore(&self, s: cl_semaphore_khr) {
        // SAFETY: a semaphore of ours.
        assert_eq!(unsafe { (self.release_sema)(s) }, CL_SUCCESS);
    }

    fn info_u64(&self, s: cl_semaphore_khr, param: cl_semaphore_info_khr) -> Vec<u64> {
        let mut size = 0;
        // SAFETY: size query.
        let r = unsafe { (self.sema_info)(s, param, 0, ptr::null_mut(), &mut size) };
        assert_eq!(r, CL_SUCCESS, "clGetSemaphoreInfoKHR({param:#x}) size");
        let mut v = vec![0u8; size];
        // SAFETY: `size` bytes.
        let r = unsafe { (self.sema_info)(s, param, size, v.as_mut_ptr().cast(), ptr::null_mut()) };
        assert_eq!(r, CL_SUCCESS, "clGetSemaphoreInfoKHR({param:#x})");
        match size {
            4 => vec![u64::from(u32::from_ne_bytes(v[..4].try_into().unwrap()))],
            _ => v
                .chunks_exact(8)
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
                .collect(),
        }
    }
}

fn has_extension(name: &str) -> bool {
    device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == name)
}

fn device_uuid() -> [u8; 16] {
    query_value::<[u8; 16]>(device_info(device(), CL_DEVICE_UUID_KHR)).expect("CL_DEVICE_UUID_KHR")
}

/// The Vulkan program, or `None` (and why, printed) on a platform this
/// test does not cover.
fn vulkan_side() -> Option<Vk> {
    if testing_pocl() {
        eprintln!("skipped: PoCL reports no Vulkan interop");
        return None;
    }
    Some(Vk::new(device_uuid()).unwrap_or_else(|e| panic!("Vulkan side: {e}")))
}

fn cl_handle(h: SemHandle) -> cl_external_semaphore_handle_type_khr {
    match h {
        SemHandle::OpaqueFd => CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
        SemHandle::SyncFd => CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
    }
}

fn sem_extension(h: SemHandle) -> &'static str {
    match h {
        SemHandle::OpaqueFd => "cl_khr_external_semaphore_opaque_fd",
        SemHandle::SyncFd => "cl_khr_external_semaphore_sync_fd",
    }
}

/// A buffer over Vulkan memory `fd` (closed here: ferrocl keeps its own).
fn import_buffer(cl: &Cl, fd: i32, size: usize) -> Result<cl_mem, cl_int> {
    let dev = cl.device();
    let props = [
        cl_mem_properties::from(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR),
        fd as cl_mem_properties,
        CL_MEM_DEVICE_HANDLE_LIST_KHR,
        dev as cl_mem_properties,
        CL_MEM_DEVICE_HANDLE_LIST_END_KHR,
        0,
    ];
    let mut status = CL_SUCCESS;
    // SAFETY: a 0-terminated list.
    let m = unsafe {
        clCreateBufferWithProperties(
            cl.context.raw(),
            props.as_ptr(),
            CL_MEM_READ_WRITE,
            size,
            ptr::null_mut(),
            &mut status,
        )
    };
    if status == CL_SUCCESS {
        Ok(m)
    } else {
        Err(status)
    }
}

/// How the two APIs wait for each other.
#[derive(Clone, Copy, Debug)]
enum Sync {
    /// vkWaitForFences / clFinish on the host.
    Host,
    /// Semaphores exported by one API and imported by the other, both ways.
    Semaphores(SemHandle),
}

/// Vulkan writes, ferrocl transforms in place, Vulkan reads back.
fn round_trip(sync: Sync) {
    let Some(mut vk) = vulkan_side() else {
        return;
    };
    if !vk.opaque_fd_buffers() {
        assert!(!has_extension("cl_khr_external_memory_opaque_fd"));
        eprintln!("skipped: the Vulkan device imports no opaque-fd buffer memory");
        return;
    }
    let cl = Cl::new();
    let q = cl.queue.raw();
    let (acquire, release) = Ext::memory();
    let (acquire, release) = (acquire.unwrap(), release.unwrap());
    let ext = Ext::load();

    // Vulkan: exportable memory, filled by a transfer, handed to the
    // external side (ownership release), then signalling `ready`.
    let (buf, mem) = vk.exportable_buffer(BYTES);
    let data: Vec<u32> = (0..N).map(written).collect();
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let handle = match sync {
        Sync::Host => None,
        Sync::Semaphores(h) => Some(h),
    };
    let ready = handle.map(|h| vk.exportable_semaphore(h));
    let family = vk.family;
    let signal: Vec<vk::Semaphore> = ready.into_iter().collect();
    let written_fence = vk.submit(
        |d, cb| {
            // SAFETY: cb is recording; 16 KiB, a multiple of 4.
            unsafe { d.cmd_update_buffer(cb, buf, 0, &bytes) };
            ownership(d, family, cb, buf, true);
        },
        &[],
        &signal,
    );

    // ferrocl: the memory as a buffer.
    let mem_fd = vk.memory_fd(mem);
    let cl_buf = import_buffer(&cl, mem_fd, BYTES as usize).expect("import of the opaque fd");
    // SAFETY: our fd; ferrocl imported a duplicate.
    drop(unsafe { OwnedFd::from_raw_fd(mem_fd) });

    // Vulkan → CL: wait for the transfer.
    let mut cl_semas = Vec::new();
    match (handle, ready) {
        (Some(h), Some(ready)) => {
            let fd = vk.semaphore_fd(ready, h);
            let s = ext.semaphore(
                cl.context.raw(),
                &[
                    cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_KHR),
                    cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_BINARY_KHR),
                    cl_semaphore_properties_khr::from(cl_handle(h)),
                    fd as cl_semaphore_properties_khr,
                    0,
                ],
            );
            // SAFETY: our fd; ferrocl imported a duplicate.
            drop(unsafe { OwnedFd::from_raw_fd(fd) });
            ext.enqueue_wait(q, s);
            cl_semas.push(s);
        }
        _ => vk.wait(written_fence),
    }

    // CL: acquire, transform, release.
    let m = cl_buf;
    // SAFETY: one valid buffer.
    let r = unsafe { acquire(q, 1, &m, 0, ptr::null(), ptr::null_mut()) };
    assert_eq!(r, CL_SUCCESS, "clEnqueueAcquireExternalMemObjectsKHR");
    let k: Kernel = cl.kernel(TRANSFORM, "transform");
    // SAFETY: a buffer argument.
    let r = unsafe {
        clSetKernelArg(
            k.raw(),
            0,
            std::mem::size_of::<cl_mem>(),
            (&m as *const cl_mem).cast(),
        )
    };
    assert_eq!(r, CL_SUCCESS);
    cl.queue.try_enqueue(&k, None, &[N], None).expect("kernel");
    // SAFETY: one valid buffer.
    let r = unsafe { release(q, 1, &m, 0, ptr::null(), ptr::null_mut()) };
    assert_eq!(r, CL_SUCCESS, "clEnqueueReleaseExternalMemObjectsKHR");

    // CL → Vulkan: Vulkan copies the result out once CL is done.
    let mut wait = Vec::new();
    match handle {
        Some(h) => {
            let done = ext.semaphore(
                cl.context.raw(),
                &[
                    cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_KHR),
                    cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_BINARY_KHR),
                    CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR,
                    cl_semaphore_properties_khr::from(cl_handle(h)),
                    CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR,
                    0,
                ],
            );
            let get = ext_fn_some!(
                "clGetSemaphoreHandleForTypeKHR",
                clGetSemaphoreHandleForTypeKHR_t
            );
            ext.enqueue_signal(q, done);
            // Binary semaphores: the signal must be submitted before
            // Vulkan's wait is; clFlush guarantees it.
            // SAFETY: valid queue.
            assert_eq!(unsafe { clFlush(q) }, CL_SUCCESS);
            let mut fd: i32 = -1;
            let mut size = 0usize;
            // SAFETY: room for an int.
            let r = unsafe {
                get(
                    done,
                    cl.device(),
                    cl_handle(h),
                    std::mem::size_of::<i32>(),
                    (&mut fd as *mut i32).cast(),
                    &mut size,
                )
            };
            assert_eq!(r, CL_SUCCESS, "clGetSemaphoreHandleForTypeKHR");
            assert_eq!(size, std::mem::size_of::<i32>());
            assert!(fd >= 0);
            wait.push(vk.imported_semaphore(h, fd));
            cl_semas.push(done);
        }
        None => cl.queue.finish(),
    }
    let (host, out) = vk.host_buffer(BYTES);
    let copied = vk.submit(
        |d, cb| {
            ownership(d, family, cb, buf, false);
            let region = [vk::BufferCopy::default().size(BYTES)];
            // SAFETY: cb is recording; both buffers hold BYTES.
            unsafe { d.cmd_copy_buffer(cb, buf, host, &region) };
        },
        &wait,
        &[],
    );
    vk.wait(copied);
    // SAFETY: the host buffer is mapped, coherent, BYTES long, and the copy
    // into it has completed.
    let got = unsafe { std::slice::from_raw_parts(out.cast::<u32>(), N) }.to_vec();
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, transformed(i), "element {i} ({sync:?})");
    }
    cl.queue.finish();
    for s in cl_semas {
        ext.release_semaphore(s);
    }
    // SAFETY: our buffer.
    assert_eq!(unsafe { clReleaseMemObject(m) }, CL_SUCCESS);
    vk.wait_idle();
}

#[test]
fn shared_buffer_synchronized_on_the_host() {
    round_trip(Sync::Host);
}

/// Image side of the shared-memory test.
const IMG_W: usize = 64;
const IMG_H: usize = 32;

const IMAGE_KERNELS: &str = r#"
kernel void read_img(read_only image2d_t img, global uint* out, int w) {
    int x = get_global_id(0), y = get_global_id(1);
    out[y * w + x] = read_imageui(img, (int2)(x, y)).x;
}
kernel void write_img(write_only image2d_t img) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imageui(img, (int2)(x, y), (uint4)((uint)(x * 1000 + y), 0u, 0u, 0u));
}
"#;

/// A Vulkan image (R32_UINT, OPTIMAL tiling, made as ferrocl makes images of
/// that format) filled by a buffer-to-image copy; ferrocl imports it, a
/// kernel reads it and another writes it; Vulkan copies it out. The APIs
/// wait for each other on the host.
#[test]
fn shared_image_synchronized_on_the_host() {
    let Some(mut vk) = vulkan_side() else {
        return;
    };
    let format = vk::Format::R32_UINT;
    // ferrocl's usage for a format with sampled and storage support.
    let usage = vk::ImageUsageFlags::TRANSFER_SRC
        | vk::ImageUsageFlags::TRANSFER_DST
        | vk::ImageUsageFlags::SAMPLED
        | vk::ImageUsageFlags::STORAGE;
    let Some(dedicated) = vk.opaque_fd_images(format, usage) else {
        eprintln!(
            "skipped: the Vulkan device cannot export and import R32_UINT images as opaque fds"
        );
        return;
    };
    let cl = Cl::new();
    let q = cl.queue.raw();
    let (acquire, release) = Ext::memory();
    let (acquire, release) = (acquire.unwrap(), release.unwrap());
    let (image, mem) = vk.exportable_image(format, (IMG_W as u32, IMG_H as u32), usage, dedicated);
    let bytes = (IMG_W * IMG_H * 4) as u64;
    let (staging, staging_ptr) = vk.host_buffer(bytes);
    let data: Vec<u32> = (0..IMG_W * IMG_H).map(written).collect();
    // SAFETY: mapped, coherent, `bytes` long; nothing uses it yet.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), staging_ptr.cast::<u32>(), data.len()) };
    let family = vk.family;
    let region = vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        })
        .image_extent(vk::Extent3D {
            width: IMG_W as u32,
            height: IMG_H as u32,
            depth: 1,
        });
    let ignored = (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED);
    let filled = vk.submit(
        |d, cb| {
            use vk::{AccessFlags as A, ImageLayout as L};
            image_barrier(
                d,
                cb,
                image,
                (L::UNDEFINED, L::TRANSFER_DST_OPTIMAL),
                ignored,
                (A::empty(), A::TRANSFER_WRITE),
            );
            // SAFETY: cb is recording; the region is inside both.
            unsafe {
                d.cmd_copy_buffer_to_image(cb, staging, image, L::TRANSFER_DST_OPTIMAL, &[region])
            };
            image_barrier(
                d,
                cb,
                image,
                (L::TRANSFER_DST_OPTIMAL, L::GENERAL),
                ignored,
                (A::TRANSFER_WRITE, A::empty()),
            );
            // Handed over in GENERAL layout.
            image_barrier(
                d,
                cb,
                image,
                (L::GENERAL, L::GENERAL),
                (family, vk::QUEUE_FAMILY_EXTERNAL),
                (A::TRANSFER_WRITE, A::empty()),
            );
        },
        &[],
        &[],
    );
    vk.wait(filled);

    let fd = vk.memory_fd(mem);
    let props = [
        cl_mem_properties::from(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR),
        fd as u64,
        0,
    ];
    let cl_format = cl_image_format {
        image_channel_order: CL_R,
        image_channel_data_type: CL_UNSIGNED_INT32,
    };
    let desc = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width: IMG_W,
        image_height: IMG_H,
        image_depth: 0,
        image_array_size: 0,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: ptr::null_mut(),
    };
    let mut status = CL_SUCCESS;
    // SAFETY: a 0-terminated list, a format and a descriptor.
    let img = unsafe {
        clCreateImageWithProperties(
            cl.context.raw(),
            props.as_ptr(),
            CL_MEM_READ_WRITE,
            &cl_format,
            &desc,
            ptr::null_mut(),
            &mut status,
        )
    };
    assert_eq!(
        status, CL_SUCCESS,
        "clCreateImageWithProperties of the opaque fd"
    );
    // SAFETY: our fd; ferrocl imported a duplicate.
    drop(unsafe { OwnedFd::from_raw_fd(fd) });
    let out = cl.buffer::<u32>(IMG_W * IMG_H);
    let program = cl.build(IMAGE_KERNELS);
    let read_k = program.kernel("read_img");
    let write_k = program.kernel("write_img");
    // SAFETY: image arguments by handle.
    unsafe {
        let size = std::mem::size_of::<cl_mem>();
        assert_eq!(
            clSetKernelArg(read_k.raw(), 0, size, (&img as *const cl_mem).cast()),
            CL_SUCCESS
        );
        assert_eq!(
            clSetKernelArg(write_k.raw(), 0, size, (&img as *const cl_mem).cast()),
            CL_SUCCESS
        );
    }
    read_k.arg(1, &out).arg(2, &(IMG_W as i32));
    // SAFETY: one valid image.
    assert_eq!(
        unsafe { acquire(q, 1, &img, 0, ptr::null(), ptr::null_mut()) },
        CL_SUCCESS
    );
    cl.queue
        .try_enqueue(&read_k, None, &[IMG_W, IMG_H], None)
        .expect("read_img");
    cl.queue
        .try_enqueue(&write_k, None, &[IMG_W, IMG_H], None)
        .expect("write_img");
    // SAFETY: one valid image.
    assert_eq!(
        unsafe { release(q, 1, &img, 0, ptr::null(), ptr::null_mut()) },
        CL_SUCCESS
    );
    cl.queue.finish();
    let got = cl.queue.read(&out);
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, written(i), "texel {i} as the kernel read it");
    }

    let (host, host_ptr) = vk.host_buffer(bytes);
    let copied = vk.submit(
        |d, cb| {
            use vk::{AccessFlags as A, ImageLayout as L};
            image_barrier(
                d,
                cb,
                image,
                (L::GENERAL, L::GENERAL),
                (vk::QUEUE_FAMILY_EXTERNAL, family),
                (A::empty(), A::TRANSFER_READ),
            );
            image_barrier(
                d,
                cb,
                image,
                (L::GENERAL, L::TRANSFER_SRC_OPTIMAL),
                ignored,
                (A::empty(), A::TRANSFER_READ),
            );
            // SAFETY: cb is recording; the region is inside both.
            unsafe {
                d.cmd_copy_image_to_buffer(cb, image, L::TRANSFER_SRC_OPTIMAL, host, &[region])
            };
        },
        &[],
        &[],
    );
    vk.wait(copied);
    // SAFETY: mapped, coherent, `bytes` long, and the copy has completed.
    let back = unsafe { std::slice::from_raw_parts(host_ptr.cast::<u32>(), IMG_W * IMG_H) };
    for y in 0..IMG_H {
        for x in 0..IMG_W {
            assert_eq!(
                back[y * IMG_W + x],
                (x * 1000 + y) as u32,
                "texel ({x}, {y}) as Vulkan read it"
            );
        }
    }
    // SAFETY: our image.
    assert_eq!(unsafe { clReleaseMemObject(img) }, CL_SUCCESS);
    vk.wait_idle();
}

/// Semaphores of handle type `h` both ways, or the reason it is skipped.
fn semaphore_round_trip(h: SemHandle) {
    let Some(vk) = vulkan_side() else {
        return;
    };
    let (import, export) = vk.semaphore_support(h);
    drop(vk);
    if !(import && export) {
        assert!(
            !has_extension(sem_extension(h)),
            "{} reported without Vulkan support",
            sem_extension(h)
        );
        eprintln!(
            "skipped: the Vulkan device cannot import and export {h:?} semaphores \
             (VK_KHR_external_semaphore_fd / vkGetPhysicalDeviceExternalSemaphoreProperties)"
        );
        return;
    }
    assert!(
        has_extension(sem_extension(h)),
        "{} not reported",
        sem_extension(h)
    );
    round_trip(Sync::Semaphores(h));
}

#[test]
fn shared_buffer_synchronized_by_opaque_fd_semaphores() {
    semaphore_round_trip(SemHandle::OpaqueFd);
}

#[test]
fn shared_buffer_synchronized_by_sync_fd_semaphores() {
    semaphore_round_trip(SemHandle::SyncFd);
}

/// The extensions and handle-type queries say what Vulkan can do.
#[test]
fn reported_handle_types_match_vulkan() {
    let Some(vk) = vulkan_side() else {
        return;
    };
    let dev = device();
    let opaque = vk.opaque_fd_buffers();
    assert_eq!(has_extension("cl_khr_external_memory"), opaque);
    assert_eq!(has_extension("cl_khr_external_memory_opaque_fd"), opaque);
    // No VK_EXT_external_memory_dma_buf import path is tested here: the
    // extension must at least not be reported without it.
    if has_extension("cl_khr_external_memory_dma_buf") {
        assert!(has_extension("cl_khr_external_memory"));
    }
    let mem_types = query::<cl_external_memory_handle_type_khr>(device_info(
        dev,
        CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR,
    ));
    match mem_types {
        Ok(t) => {
            assert!(opaque);
            assert!(
                t.contains(&CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR),
                "{t:?}"
            );
            let p = query::<cl_external_memory_handle_type_khr>(platform_info(
                platform(),
                CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR,
            ))
            .expect("platform import types");
            assert!(p.iter().all(|x| t.contains(x)), "{p:?} vs {t:?}");
        }
        Err(e) => {
            assert!(!opaque, "import types query failed: {e}");
        }
    }
    // Semaphores: binary on every device; handle types as Vulkan says.
    assert!(has_extension("cl_khr_semaphore"));
    let types = query::<cl_semaphore_type_khr>(device_info(dev, CL_DEVICE_SEMAPHORE_TYPES_KHR))
        .expect("CL_DEVICE_SEMAPHORE_TYPES_KHR");
    assert_eq!(types, vec![CL_SEMAPHORE_TYPE_BINARY_KHR]);
    let mut any = false;
    for h in [SemHandle::OpaqueFd, SemHandle::SyncFd] {
        let (import, export) = vk.semaphore_support(h);
        any |= import || export;
        assert_eq!(has_extension(sem_extension(h)), import || export, "{h:?}");
        for (param, want) in [
            (CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR, import),
            (CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR, export),
        ] {
            let got = query::<cl_external_semaphore_handle_type_khr>(device_info(dev, param))
                .unwrap_or_default();
            assert_eq!(got.contains(&cl_handle(h)), want, "{h:?} {param:#x}");
        }
    }
    assert_eq!(has_extension("cl_khr_external_semaphore"), any);
}

/// cl_khr_semaphore between two queues of one context: the wait is
/// enqueued before its signal, and the second queue's kernel sees the
/// first queue's results.
#[test]
fn semaphore_orders_two_queues() {
    if testing_pocl() {
        eprintln!("skipped: PoCL reports no cl_khr_semaphore");
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let q2 = cl.context.queue();
    let props = [
        cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_KHR),
        cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_BINARY_KHR),
        0,
    ];
    let s = ext.semaphore(cl.context.raw(), &props);
    assert_eq!(
        ext.info_u64(s, CL_SEMAPHORE_TYPE_KHR),
        vec![u64::from(CL_SEMAPHORE_TYPE_BINARY_KHR)]
    );
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_REFERENCE_COUNT_KHR), vec![1]);
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_PROPERTIES_KHR), props.to_vec());
    assert_eq!(
        ext.info_u64(s, CL_SEMAPHORE_CONTEXT_KHR),
        vec![cl.context.raw() as u64]
    );
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_PAYLOAD_KHR), vec![0]);
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_EXPORTABLE_KHR), vec![0]);
    // SAFETY: our semaphore.
    assert_eq!(unsafe { (ext.retain_sema)(s) }, CL_SUCCESS);
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_REFERENCE_COUNT_KHR), vec![2]);
    ext.release_semaphore(s);

    let n = 1 << 16;
    let a = cl.buffer::<u32>(n);
    let b = cl.buffer::<u32>(n);
    let fill = cl.kernel(
        "kernel void fill(global uint* a) { size_t i = get_global_id(0); \
         uint x = (uint)i; for (int k = 0; k < 64; k++) x = x * 1664525u + 1013904223u; a[i] = x; }",
        "fill",
    );
    fill.arg(0, &a);
    let copy = cl.kernel(
        "kernel void copy(global const uint* a, global uint* b) { size_t i = get_global_id(0); b[i] = a[i] + 1u; }",
        "copy",
    );
    copy.arg(0, &a).arg(1, &b);
    // The wait is enqueued first, on the second queue.
    ext.enqueue_wait(q2.raw(), s);
    q2.try_enqueue(&copy, None, &[n], None).expect("copy");
    cl.queue.try_enqueue(&fill, None, &[n], None).expect("fill");
    ext.enqueue_signal(cl.queue.raw(), s);
    let got = q2.read(&b);
    for (i, v) in got.iter().enumerate() {
        let mut x = i as u32;
        for _ in 0..64 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        assert_eq!(*v, x.wrapping_add(1), "element {i}");
    }
    cl.queue.finish();
    // The wait consumed the signal.
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_PAYLOAD_KHR), vec![0]);
    ext.enqueue_signal(cl.queue.raw(), s);
    cl.queue.finish();
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_PAYLOAD_KHR), vec![1]);
    ext.enqueue_wait(cl.queue.raw(), s);
    cl.queue.finish();
    assert_eq!(ext.info_u64(s, CL_SEMAPHORE_PAYLOAD_KHR), vec![0]);
    ext.release_semaphore(s);
}

#[test]
fn semaphore_error_codes() {
    if testing_pocl() {
        eprintln!("skipped: PoCL reports no cl_khr_semaphore");
        return;
    }
    let ext = Ext::load();
    let cl = Cl::new();
    let ctx = cl.context.raw();
    let ty = cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_KHR);
    let binary = cl_semaphore_properties_khr::from(CL_SEMAPHORE_TYPE_BINARY_KHR);
    let e = |r: Result<cl_semaphore_khr, cl_int>| r.err().unwrap_or(CL_SUCCESS);
    expect_error(
        e(ext.try_semaphore(ctx, &[])),
        CL_INVALID_VALUE,
        "NULL properties",
    );
    expect_error(e(ext.try_semaphore(ctx, &[0])), CL_INVALID_VALUE, "no type");
    expect_error(
        e(ext.try_semaphore(ctx, &[ty, 7, 0])),
        CL_INVALID_PROPERTY,
        "timeline type",
    );
    expect_error(
        e(ext.try_semaphore(ctx, &[ty, binary, ty, binary, 0])),
        CL_INVALID_PROPERTY,
        "type twice",
    );
    expect_error(
        e(ext.try_semaphore(ctx, &[ty, binary, 0x7777, 1, 0])),
        CL_INVALID_PROPERTY,
        "unknown property",
    );
    expect_error(
        e(ext.try_semaphore(ptr::null_mut(), &[ty, binary, 0])),
        CL_INVALID_CONTEXT,
        "NULL context",
    );
    let list = CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR as cl_semaphore_properties_khr;
    let end = CL_SEMAPHORE_DEVICE_HANDLE_LIST_END_KHR as cl_semaphore_properties_khr;
    expect_error(
        e(ext.try_semaphore(ctx, &[ty, binary, list, ctx as u64, end, 0])),
        CL_INVALID_DEVICE,
        "a context as a device in the list",
    );
    let s = ext.semaphore(ctx, &[ty, binary, list, cl.device() as u64, end, 0]);
    assert_eq!(
        ext.info_u64(s, CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR),
        vec![cl.device() as u64]
    );
    // Handle types the device cannot export.
    let export = CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR;
    let export_end = CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR;
    for h in [SemHandle::OpaqueFd, SemHandle::SyncFd] {
        let props = [ty, binary, export, cl_handle(h).into(), export_end, 0];
        let exportable = query::<cl_external_semaphore_handle_type_khr>(device_info(
            cl.device(),
            CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR,
        ))
        .unwrap_or_default()
        .contains(&cl_handle(h));
        match ext.try_semaphore(ctx, &props) {
            Ok(x) => {
                assert!(exportable, "{h:?} exportable semaphore created");
                assert_eq!(ext.info_u64(x, CL_SEMAPHORE_EXPORTABLE_KHR), vec![1]);
                ext.release_semaphore(x);
                // The same handle type twice in the export list.
                let twice = [
                    ty,
                    binary,
                    export,
                    cl_handle(h).into(),
                    cl_handle(h).into(),
                    export_end,
                    0,
                ];
                expect_error(
                    e(ext.try_semaphore(ctx, &twice)),
                    CL_INVALID_VALUE,
                    "a handle type twice in the export list",
                );
            }
            Err(err) => {
                assert!(!exportable, "{h:?}: {err}");
                expect_error(err, CL_INVALID_DEVICE, "export type the device lacks");
            }
        }
    }
    let q = cl.queue.raw();
    // SAFETY (the calls below): invalid arguments on purpose, valid pointers.
    unsafe {
        expect_error(
            (ext.wait)(q, 0, &s, ptr::null(), 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "no semaphores",
        );
        expect_error(
            (ext.signal)(
                q,
                1,
                ptr::null(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "NULL list",
        );
        let bad: cl_semaphore_khr = cl.context.raw().cast();
        expect_error(
            (ext.wait)(q, 1, &bad, ptr::null(), 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_SEMAPHORE_KHR,
            "not a semaphore",
        );
        expect_error(
            (ext.signal)(
                ptr::null_mut(),
                1,
                &s,
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_COMMAND_QUEUE,
            "NULL queue",
        );
        expect_error(
            (ext.signal)(q, 1, &s, ptr::null(), 1, ptr::null(), ptr::null_mut()),
            CL_INVALID_EVENT_WAIT_LIST,
            "bad wait list",
        );
        let other = Cl::new();
        expect_error(
            (ext.signal)(
                other.queue.raw(),
                1,
                &s,
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_CONTEXT,
            "other context",
        );
        let mut status = CL_SUCCESS;
        let user = clCreateUserEvent(cl.context.raw(), &mut status);
        assert_eq!(status, CL_SUCCESS);
        assert_eq!(clSetUserEventStatus(user, -1), CL_SUCCESS);
        expect_error(
            (ext.wait)(q, 1, &s, ptr::null(), 1, &user, ptr::null_mut()),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            "failed event in the wait list",
        );
        expect_error(
            (ext.signal)(q, 1, &s, ptr::null(), 1, &user, ptr::null_mut()),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            "failed event in the wait list",
        );
        clReleaseEvent(user);
        let mut v = 0u64;
        expect_error(
            (ext.sema_info)(s, 0x7777, 8, (&mut v as *mut u64).cast(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "unknown info",
        );
        expect_error(
            (ext.sema_info)(
                s,
                CL_SEMAPHORE_PAYLOAD_KHR,
                1,
                (&mut v as *mut u64).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "short info",
        );
        expect_error(
            (ext.release_sema)(bad),
            CL_INVALID_SEMAPHORE_KHR,
            "release of a non-semaphore",
        );
    }
    ext.release_semaphore(s);
}

#[test]
fn external_memory_error_codes() {
    let Some(mut vk) = vulkan_side() else {
        return;
    };
    if !vk.opaque_fd_buffers() {
        eprintln!("skipped: the Vulkan device imports no opaque-fd buffer memory");
        return;
    }
    let cl = Cl::new();
    let (acquire, _) = Ext::memory();
    let acquire = acquire.unwrap();
    let (_, mem) = vk.exportable_buffer(BYTES);
    let fd = vk.memory_fd(mem);
    // SAFETY: our fd, closed at the end.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let handle = cl_mem_properties::from(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR);
    let create = |props: &[cl_mem_properties], flags: cl_mem_flags, host: *mut c_void| {
        let mut status = CL_SUCCESS;
        // SAFETY: a 0-terminated list.
        let m = unsafe {
            clCreateBufferWithProperties(
                cl.context.raw(),
                props.as_ptr(),
                flags,
                BYTES as usize,
                host,
                &mut status,
            )
        };
        if status == CL_SUCCESS {
            // SAFETY: ours.
            unsafe { clReleaseMemObject(m) };
        } else {
            assert!(m.is_null());
        }
        status
    };
    let list = CL_MEM_DEVICE_HANDLE_LIST_KHR;
    let end = CL_MEM_DEVICE_HANDLE_LIST_END_KHR;
    expect_error(
        create(
            &[handle, fd as u64, handle, fd as u64, 0],
            0,
            ptr::null_mut(),
        ),
        CL_INVALID_PROPERTY,
        "two handles",
    );
    expect_error(
        create(&[handle, u64::MAX, 0], 0, ptr::null_mut()),
        CL_INVALID_PROPERTY,
        "negative fd",
    );
    expect_error(
        create(
            &[handle, fd as u64, list, cl.context.raw() as u64, end, 0],
            0,
            ptr::null_mut(),
        ),
        CL_INVALID_DEVICE,
        "bad device",
    );
    let mut host = vec![0u8; BYTES as usize];
    expect_error(
        create(
            &[handle, fd as u64, 0],
            CL_MEM_USE_HOST_PTR,
            host.as_mut_ptr().cast(),
        ),
        CL_INVALID_HOST_PTR,
        "host pointer",
    );
    expect_error(
        create(
            &[handle, fd as u64, 0],
            CL_MEM_ALLOC_HOST_PTR,
            ptr::null_mut(),
        ),
        CL_INVALID_VALUE,
        "ALLOC_HOST_PTR",
    );
    assert_eq!(
        create(&[handle, fd as u64, 0], 0, ptr::null_mut()),
        CL_SUCCESS
    );
    // Images: no host allocation, and not one made from a buffer.
    let image_over = |flags: cl_mem_flags, desc: &cl_image_desc| {
        let format = cl_image_format {
            image_channel_order: CL_R,
            image_channel_data_type: CL_UNSIGNED_INT32,
        };
        let mut status = CL_SUCCESS;
        let props = [handle, fd as u64, 0];
        // SAFETY: a 0-terminated list, a format and a descriptor.
        let m = unsafe {
            clCreateImageWithProperties(
                cl.context.raw(),
                props.as_ptr(),
                flags,
                &format,
                desc,
                ptr::null_mut(),
                &mut status,
            )
        };
        assert!(m.is_null(), "an image was made");
        status
    };
    let holder = cl.buffer::<u32>(64);
    // SAFETY: cl_image_desc is plain data; all zeros is a valid value.
    let mut desc: cl_image_desc = unsafe { std::mem::zeroed() };
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 16;
    desc.image_height = 16;
    expect_error(
        image_over(CL_MEM_ALLOC_HOST_PTR, &desc),
        CL_INVALID_VALUE,
        "image with ALLOC_HOST_PTR",
    );
    desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    desc.image_height = 0;
    desc.buffer = holder.raw();
    expect_error(
        image_over(0, &desc),
        CL_INVALID_OPERATION,
        "1D image buffer over imported memory",
    );
    // With a fixed device address (cl_ext_buffer_device_address), the
    // device list in the middle of the list.
    {
        let props = [
            handle,
            fd as u64,
            list,
            cl.device() as u64,
            end,
            CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
            cl_mem_properties::from(CL_TRUE),
            0,
        ];
        let mut status = CL_SUCCESS;
        // SAFETY: a 0-terminated list.
        let m = unsafe {
            clCreateBufferWithProperties(
                cl.context.raw(),
                props.as_ptr(),
                0,
                BYTES as usize,
                ptr::null_mut(),
                &mut status,
            )
        };
        assert_eq!(status, CL_SUCCESS, "import with a device address");
        let addr = query_value::<u64>(ferrocl_tests::info::mem_info(m, CL_MEM_DEVICE_ADDRESS_EXT))
            .expect("CL_MEM_DEVICE_ADDRESS_EXT");
        assert_ne!(addr, 0);
        // SAFETY: ours.
        unsafe { clReleaseMemObject(m) };
    }
    // CL_MEM_PROPERTIES gives the list back.
    let m = import_buffer(&cl, fd, BYTES as usize).expect("import");
    let props = query::<cl_mem_properties>(ferrocl_tests::info::mem_info(m, CL_MEM_PROPERTIES))
        .expect("props");
    assert_eq!(
        props,
        vec![handle, fd as u64, list, cl.device() as u64, end, 0]
    );
    let plain = cl.buffer::<u32>(16);
    let q = cl.queue.raw();
    // SAFETY (the calls below): invalid arguments on purpose, valid pointers.
    unsafe {
        let p = plain.raw();
        expect_error(
            acquire(q, 1, &p, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_MEM_OBJECT,
            "not external",
        );
        expect_error(
            acquire(q, 0, &m, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "0 objects, a list",
        );
        expect_error(
            acquire(q, 1, ptr::null(), 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "NULL list",
        );
        expect_error(
            acquire(ptr::null_mut(), 1, &m, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE,
            "NULL queue",
        );
        let other = Cl::new();
        expect_error(
            acquire(other.queue.raw(), 1, &m, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_CONTEXT,
            "other context",
        );
        let mut ev: cl_event = ptr::null_mut();
        assert_eq!(acquire(q, 1, &m, 0, ptr::null(), &mut ev), CL_SUCCESS);
        let mut ty: cl_command_type = 0;
        let r = clGetEventInfo(
            ev,
            CL_EVENT_COMMAND_TYPE,
            4,
            (&mut ty as *mut cl_command_type).cast(),
            ptr::null_mut(),
        );
        assert_eq!(r, CL_SUCCESS);
        assert_eq!(ty, CL_COMMAND_ACQUIRE_EXTERNAL_MEM_OBJECTS_KHR);
        clReleaseEvent(ev);
        clFinish(q);
        clReleaseMemObject(m);
    }
    drop(owned);
}
