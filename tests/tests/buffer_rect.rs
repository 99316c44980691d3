//! clEnqueueReadBufferRect / WriteBufferRect / CopyBufferRect: 3-D
//! rectangles with pitches, checked byte for byte against a CPU model,
//! and the pitch/bounds errors.

use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, expect_error, Cl};

/// Byte offset of (x, y, z) with the given origin and pitches.
fn at(origin: [usize; 3], row: usize, slice: usize, x: usize, y: usize, z: usize) -> usize {
    (origin[2] + z) * slice + (origin[1] + y) * row + origin[0] + x
}

#[test]
fn write_read_and_copy_rectangles() {
    let cl = Cl::new();
    let (q, size) = (cl.queue.raw(), 4096usize);
    let buf = cl.buffer_from(&vec![0u8; size]);
    let dst = cl.buffer_from(&vec![0u8; size]);
    let region = [5usize, 3, 2];
    let (b_origin, b_row, b_slice) = ([3usize, 2, 1], 32usize, 256usize);
    let (h_origin, h_row, h_slice) = ([1usize, 1, 0], 8usize, 40usize);
    let host: Vec<u8> = (0..200).map(|i| (i * 7 + 1) as u8).collect();
    // SAFETY: valid objects; host covers the rectangle (max offset 1*40+3*8+6 < 200).
    check(
        unsafe {
            clEnqueueWriteBufferRect(
                q,
                buf.raw(),
                CL_TRUE,
                b_origin.as_ptr(),
                h_origin.as_ptr(),
                region.as_ptr(),
                b_row,
                b_slice,
                h_row,
                h_slice,
                host.as_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueWriteBufferRect",
    );
    let mut want = vec![0u8; size];
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                want[at(b_origin, b_row, b_slice, x, y, z)] =
                    host[at(h_origin, h_row, h_slice, x, y, z)];
            }
        }
    }
    assert_same("buffer after write rect", &cl.queue.read(&buf), &want);

    // Read the same rectangle back into a differently pitched host block.
    let mut back = vec![0xEEu8; 160];
    let (r_origin, r_row, r_slice) = ([2usize, 0, 1], 10usize, 50usize);
    // SAFETY: back (160 bytes) covers the last byte, (1+1)*50 + 2*10 + 2 + 4 = 126.
    check(
        unsafe {
            clEnqueueReadBufferRect(
                q,
                buf.raw(),
                CL_TRUE,
                b_origin.as_ptr(),
                r_origin.as_ptr(),
                region.as_ptr(),
                b_row,
                b_slice,
                r_row,
                r_slice,
                back.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueReadBufferRect",
    );
    let mut want_back = vec![0xEEu8; 160];
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                want_back[at(r_origin, r_row, r_slice, x, y, z)] =
                    host[at(h_origin, h_row, h_slice, x, y, z)];
            }
        }
    }
    assert_same("host block after read rect", &back, &want_back);

    // Device-to-device with other pitches.
    let (d_origin, d_row, d_slice) = ([0usize, 4, 2], 16usize, 128usize);
    // SAFETY: valid objects; both rectangles are inside the 4096-byte buffers.
    check(
        unsafe {
            clEnqueueCopyBufferRect(
                q,
                buf.raw(),
                dst.raw(),
                b_origin.as_ptr(),
                d_origin.as_ptr(),
                region.as_ptr(),
                b_row,
                b_slice,
                d_row,
                d_slice,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueCopyBufferRect",
    );
    let mut want_dst = vec![0u8; size];
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                want_dst[at(d_origin, d_row, d_slice, x, y, z)] =
                    want[at(b_origin, b_row, b_slice, x, y, z)];
            }
        }
    }
    assert_same(
        "destination after copy rect",
        &cl.queue.read(&dst),
        &want_dst,
    );
}

#[test]
fn rectangle_errors() {
    let cl = Cl::new();
    let q = cl.queue.raw();
    let buf = cl.buffer_from(&[0u8; 256]);
    let mut host = [0u8; 256];
    let origin = [0usize; 3];
    let read = |region: [usize; 3], row: usize, slice: usize, host: &mut [u8]| {
        // SAFETY: valid objects; host is 256 bytes, larger than any accepted rectangle here.
        unsafe {
            clEnqueueReadBufferRect(
                q,
                buf.raw(),
                CL_TRUE,
                origin.as_ptr(),
                origin.as_ptr(),
                region.as_ptr(),
                row,
                slice,
                0,
                0,
                host.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    };
    // "CL_INVALID_VALUE if any region array element is 0."
    expect_error(
        read([0, 1, 1], 0, 0, &mut host),
        CL_INVALID_VALUE,
        "zero region",
    );
    // "[...] buffer_row_pitch is not 0 and is less than region[0]."
    expect_error(
        read([8, 2, 1], 4, 0, &mut host),
        CL_INVALID_VALUE,
        "row pitch < region[0]",
    );
    // "[...] buffer_slice_pitch is not 0 and is less than region[1] * buffer_row_pitch
    // or [...] not a multiple of buffer_row_pitch."
    expect_error(
        read([8, 2, 2], 8, 12, &mut host),
        CL_INVALID_VALUE,
        "slice pitch < rows",
    );
    expect_error(
        read([8, 2, 2], 8, 20, &mut host),
        CL_INVALID_VALUE,
        "slice pitch not a multiple",
    );
    // Out of bounds: 4 slices of 128 bytes do not fit in 256.
    expect_error(
        read([16, 8, 4], 16, 128, &mut host),
        CL_INVALID_VALUE,
        "out of bounds",
    );
    // And a valid one succeeds.
    expect_error(
        read([16, 8, 2], 16, 128, &mut host),
        CL_SUCCESS,
        "valid rectangle",
    );
}
