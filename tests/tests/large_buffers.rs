//! One buffer as large as the device reports (CL_DEVICE_MAX_MEM_ALLOC_SIZE),
//! and buffers past 4 GiB where the device reports them: written and read
//! at both ends by transfers and by a kernel with 64-bit indices, through
//! sub-buffers at origins past 4 GiB, and filled in chunks. The values are
//! checked against what the host wrote. ferrocl reports more than Vulkan's
//! maxMemoryAllocationSize only where the driver accepted one allocation
//! of that size (runtime/src/core/device.rs, `max_mem_alloc_size`), so a
//! reported size must be allocatable: a failed allocation fails the test.
//!
//! On the H100, `sixteen_gib_buffer_ends` is the check that large
//! allocations work (lavapipe reports 2 GiB, its heap, and skips it).

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, device_value, Buffer, Cl};

const GIB: u64 = 1 << 30;

fn max_alloc(cl: &Cl) -> u64 {
    device_value(cl.device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE)
}

/// A buffer of `bytes` bytes (no host data), or the creation's error.
fn try_buffer(cl: &Cl, bytes: u64) -> Result<Buffer<u32>, cl_int> {
    let mut status = CL_SUCCESS;
    // SAFETY: valid context, no host pointer.
    let raw = unsafe {
        clCreateBuffer(
            cl.raw(),
            CL_MEM_READ_WRITE,
            bytes as usize,
            ptr::null_mut(),
            &mut status,
        )
    };
    if status != CL_SUCCESS {
        return Err(status);
    }
    Ok(Buffer::from_raw(raw, (bytes / 4) as usize))
}

/// Writes a distinct pattern into the first and last `edge` words of
/// `buf`, lets a kernel with 64-bit indices read and bump the first and
/// last word, and checks both ends read back, word for word.
fn check_ends(cl: &Cl, buf: &Buffer<u32>) {
    let words = buf.len();
    let edge = 1024usize;
    let head: Vec<u32> = (0..edge as u32).map(|i| i * 3 + 1).collect();
    let tail: Vec<u32> = (0..edge as u32).map(|i| 0xdead_0000 ^ i).collect();
    cl.queue.write(buf, 0, &head);
    cl.queue.write(buf, words - edge, &tail);
    let out = cl.buffer::<u32>(2);
    let k = cl.kernel(
        "kernel void ends(global uint *p, ulong n, global uint *out) {
             ulong i = get_global_id(0) == 0 ? 0 : n - 1;
             out[get_global_id(0)] = p[i];
             p[i] += 7u;
         }",
        "ends",
    );
    k.arg(0, buf).arg(1, &(words as u64)).arg(2, &out);
    cl.queue.run(&k, &[2], Some(&[1]));
    assert_eq!(
        cl.queue.read(&out),
        vec![head[0], tail[edge - 1]],
        "kernel's reads at both ends"
    );
    let mut head_want = head.clone();
    head_want[0] += 7;
    let mut tail_want = tail.clone();
    tail_want[edge - 1] += 7;
    assert_same("head", &cl.queue.read_range(buf, 0, edge), &head_want);
    assert_same(
        "tail",
        &cl.queue.read_range(buf, words - edge, edge),
        &tail_want,
    );
}

/// A sub-buffer of `buf` at `origin` bytes: a kernel writes through it,
/// the parent reads back at origin.
fn check_sub_buffer(cl: &Cl, buf: &Buffer<u32>, origin: u64) {
    let region = cl_buffer_region {
        origin: origin as usize,
        size: 4096,
    };
    let mut status = CL_SUCCESS;
    // SAFETY: valid buffer, a region inside it.
    let raw = unsafe {
        clCreateSubBuffer(
            buf.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast::<c_void>(),
            &mut status,
        )
    };
    check(status, "clCreateSubBuffer");
    let sub = Buffer::<u32>::from_raw(raw, 1024);
    let k = cl.kernel(
        "kernel void iota(global uint *p) { p[get_global_id(0)] = 0x5000u + get_global_id(0); }",
        "iota",
    );
    k.arg(0, &sub);
    cl.queue.run(&k, &[1024], None);
    let want: Vec<u32> = (0..1024).map(|i| 0x5000 + i).collect();
    assert_same(
        "written through the sub-buffer",
        &cl.queue.read_range(buf, (origin / 4) as usize, 1024),
        &want,
    );
}

/// The reported maximum is one buffer the device really gives.
#[test]
fn largest_reported_buffer_works_at_both_ends() {
    let cl = Cl::new();
    let max = max_alloc(&cl);
    let global: u64 = device_value(cl.device(), CL_DEVICE_GLOBAL_MEM_SIZE);
    assert!(
        max <= global,
        "max alloc {max} above global memory {global}"
    );
    // Whole 4 KiB pages, so both ends are word-aligned.
    let bytes = max & !4095;
    let buf = try_buffer(&cl, bytes)
        .unwrap_or_else(|e| panic!("a buffer of CL_DEVICE_MAX_MEM_ALLOC_SIZE ({bytes}): {e}"));
    check_ends(&cl, &buf);
    check_sub_buffer(&cl, &buf, bytes - 8192);
}

/// A fill larger than one staging chunk, with a 16-byte pattern at an
/// offset: every word compared.
#[test]
fn fill_spans_several_chunks() {
    let cl = Cl::new();
    let words = (9 << 20) / 4 + 64;
    let buf = cl.buffer::<u32>(words);
    let pattern = [0x11u32, 0x2222, 0x33_3333, 0x4444_4444];
    let offset_words = 16;
    let fill_words = words - 32;
    // SAFETY: valid queue and buffer; the region is inside it and a
    // multiple of the pattern.
    check(
        unsafe {
            clEnqueueFillBuffer(
                cl.queue.raw(),
                buf.raw(),
                pattern.as_ptr().cast(),
                16,
                offset_words * 4,
                fill_words * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueFillBuffer",
    );
    let got = cl.queue.read_range(&buf, offset_words, fill_words);
    let want: Vec<u32> = pattern.iter().copied().cycle().take(fill_words).collect();
    assert_same("filled words", &got, &want);
}

/// Past 4 GiB (offsets that do not fit in 32 bits), where the device
/// reports it: then the allocation must succeed.
#[test]
fn buffer_past_four_gib() {
    let cl = Cl::new();
    let bytes = 4 * GIB + GIB / 2;
    let max = max_alloc(&cl);
    if max < bytes {
        eprintln!("skipped: CL_DEVICE_MAX_MEM_ALLOC_SIZE is {max} bytes, below 4.5 GiB");
        return;
    }
    let buf = try_buffer(&cl, bytes).expect("a 4.5 GiB buffer within the reported maximum");
    check_ends(&cl, &buf);
    check_sub_buffer(&cl, &buf, 4 * GIB + 4096);
}

/// The GPU check: a 16 GiB buffer written and read back at its ends.
#[test]
fn sixteen_gib_buffer_ends() {
    let cl = Cl::new();
    let bytes = 16 * GIB;
    let max = max_alloc(&cl);
    if max < bytes {
        eprintln!("skipped: CL_DEVICE_MAX_MEM_ALLOC_SIZE is {max} bytes, below 16 GiB");
        return;
    }
    let buf = try_buffer(&cl, bytes).expect("a 16 GiB buffer within the reported maximum");
    check_ends(&cl, &buf);
    check_sub_buffer(&cl, &buf, bytes - 4096 * 4);
}
