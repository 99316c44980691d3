//! Invalid handles get the spec's CL_INVALID_<OBJECT>: NULL handles, and
//! valid objects of the wrong type (a context where a queue is expected).
//! Only NULL or live objects are passed: a garbage pointer may crash any
//! implementation (the loader dereferences it to find the dispatch table).

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{expect_error, testing_pocl, Cl};

fn create_buffer(context: cl_context) -> cl_int {
    let mut status = CL_SUCCESS;
    // SAFETY: no host pointer; the handle is NULL or a live object.
    let mem =
        unsafe { clCreateBuffer(context, CL_MEM_READ_WRITE, 64, ptr::null_mut(), &mut status) };
    assert!(
        status != CL_SUCCESS && mem.is_null(),
        "clCreateBuffer with a bad context returned an object"
    );
    status
}

fn read_buffer(queue: cl_command_queue, buffer: cl_mem) -> cl_int {
    let mut data = [0u8; 16];
    // SAFETY: a 16-byte blocking read into `data`; handles are NULL or live.
    unsafe {
        clEnqueueReadBuffer(
            queue,
            buffer,
            CL_TRUE,
            0,
            data.len(),
            data.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    }
}

#[test]
fn null_handles() {
    let cl = Cl::new();
    let buffer = cl.buffer::<u8>(64);
    expect_error(
        create_buffer(ptr::null_mut()),
        CL_INVALID_CONTEXT,
        "clCreateBuffer(NULL context)",
    );
    expect_error(
        read_buffer(ptr::null_mut(), buffer.raw()),
        CL_INVALID_COMMAND_QUEUE,
        "clEnqueueReadBuffer(NULL queue)",
    );
    expect_error(
        read_buffer(cl.queue.raw(), ptr::null_mut()),
        CL_INVALID_MEM_OBJECT,
        "clEnqueueReadBuffer(NULL buffer)",
    );
    let mut size = 0usize;
    // SAFETY: a usize-sized value; NULL object.
    let status = unsafe {
        clGetMemObjectInfo(
            ptr::null_mut(),
            CL_MEM_SIZE,
            std::mem::size_of::<usize>(),
            (&mut size as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    expect_error(status, CL_INVALID_MEM_OBJECT, "clGetMemObjectInfo(NULL)");
    // SAFETY: NULL handles are what is being tested.
    unsafe {
        expect_error(
            clFinish(ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE,
            "clFinish(NULL)",
        );
        expect_error(
            clReleaseContext(ptr::null_mut()),
            CL_INVALID_CONTEXT,
            "clReleaseContext(NULL)",
        );
        expect_error(
            clRetainMemObject(ptr::null_mut()),
            CL_INVALID_MEM_OBJECT,
            "clRetainMemObject(NULL)",
        );
        expect_error(
            clReleaseKernel(ptr::null_mut()),
            CL_INVALID_KERNEL,
            "clReleaseKernel(NULL)",
        );
        expect_error(
            clReleaseProgram(ptr::null_mut()),
            CL_INVALID_PROGRAM,
            "clReleaseProgram(NULL)",
        );
    }
    let mut status = CL_SUCCESS;
    // SAFETY: NULL program, NUL-terminated name.
    let kernel = unsafe { clCreateKernel(ptr::null_mut(), c"k".as_ptr(), &mut status) };
    expect_error(status, CL_INVALID_PROGRAM, "clCreateKernel(NULL program)");
    assert!(kernel.is_null());
    let device = cl.device();
    // SAFETY: NULL context, valid device, no properties.
    let queue = unsafe {
        clCreateCommandQueueWithProperties(ptr::null_mut(), device, ptr::null(), &mut status)
    };
    expect_error(
        status,
        CL_INVALID_CONTEXT,
        "clCreateCommandQueueWithProperties(NULL context)",
    );
    assert!(queue.is_null());
}

#[test]
fn objects_of_the_wrong_type() {
    if testing_pocl() {
        eprintln!("skipped: PoCL does not check handle types (it returns unrelated codes)");
        return;
    }
    let cl = Cl::new();
    let buffer = cl.buffer::<u8>(64);
    let context = cl.raw();
    let queue = cl.queue.raw();
    expect_error(
        create_buffer(queue),
        CL_INVALID_CONTEXT,
        "clCreateBuffer(queue as context)",
    );
    expect_error(
        create_buffer(buffer.raw()),
        CL_INVALID_CONTEXT,
        "clCreateBuffer(buffer as context)",
    );
    expect_error(
        read_buffer(context, buffer.raw()),
        CL_INVALID_COMMAND_QUEUE,
        "clEnqueueReadBuffer(context as queue)",
    );
    expect_error(
        read_buffer(queue, context),
        CL_INVALID_MEM_OBJECT,
        "clEnqueueReadBuffer(context as buffer)",
    );
    expect_error(
        read_buffer(queue, queue),
        CL_INVALID_MEM_OBJECT,
        "clEnqueueReadBuffer(queue as buffer)",
    );

    // A buffer argument given a context: "CL_INVALID_MEM_OBJECT for an
    // argument declared to be a memory object when the specified arg_value is
    // not a valid memory object".
    let kernel = cl.kernel("kernel void k(global int* p) { p[0] = 1; }", "k");
    // SAFETY: arg_value points at a cl_mem-sized handle value.
    let status = unsafe {
        clSetKernelArg(
            kernel.raw(),
            0,
            std::mem::size_of::<cl_mem>(),
            (&context as *const cl_context).cast::<c_void>(),
        )
    };
    expect_error(
        status,
        CL_INVALID_MEM_OBJECT,
        "clSetKernelArg(context as buffer)",
    );

    // A kernel where a program is expected.
    let mut status = CL_SUCCESS;
    // SAFETY: a live object of the wrong type, NUL-terminated name.
    let wrong = unsafe { clCreateKernel(kernel.raw(), c"k".as_ptr(), &mut status) };
    expect_error(
        status,
        CL_INVALID_PROGRAM,
        "clCreateKernel(kernel as program)",
    );
    assert!(wrong.is_null());
}
