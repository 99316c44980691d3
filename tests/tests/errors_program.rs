//! Error codes of program building, kernel creation, clSetKernelArg and
//! clEnqueueNDRangeKernel.

use std::ffi::c_void;
use std::mem::size_of;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{expect_error, Cl, ClError, Kernel, Local};

/// The syntax error (a missing ';') is on line 3.
const BROKEN: &str =
    "// line 1\nkernel void broken(global int* p) {\n    int x = 1\n    p[0] = x;\n}\n";
const BROKEN_LINE: u32 = 3;

/// Whether `log` holds `:<line>:<column>` (the clang diagnostic format).
fn has_line_col(log: &str, line: u32) -> bool {
    let needle = format!(":{line}:");
    log.match_indices(&needle).any(|(at, _)| {
        log[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

#[test]
fn build_syntax_error_reports_line_and_column() {
    let cl = Cl::new();
    let error = match cl.try_build(BROKEN, "") {
        Ok(_) => panic!("a program with a syntax error built"),
        Err(e) => e,
    };
    assert_eq!(error.status, ClError(CL_BUILD_PROGRAM_FAILURE));
    assert!(
        has_line_col(&error.log, BROKEN_LINE),
        "build log has no \":{BROKEN_LINE}:<column>\":\n{}",
        error.log
    );
}

#[test]
fn failed_build_status_and_kernel_creation() {
    let cl = Cl::new();
    let text = BROKEN.as_ptr().cast();
    let len = BROKEN.len();
    let mut status = CL_SUCCESS;
    // SAFETY: one string with its length.
    let program = unsafe { clCreateProgramWithSource(cl.raw(), 1, &text, &len, &mut status) };
    expect_error(status, CL_SUCCESS, "clCreateProgramWithSource");
    let device = cl.device();
    // SAFETY: valid program and one device, no options, no callback.
    let status = unsafe { clBuildProgram(program, 1, &device, ptr::null(), None, ptr::null_mut()) };
    expect_error(status, CL_BUILD_PROGRAM_FAILURE, "clBuildProgram");

    let mut build_status: cl_build_status = CL_BUILD_NONE;
    // SAFETY: a cl_build_status-sized value.
    let status = unsafe {
        clGetProgramBuildInfo(
            program,
            device,
            CL_PROGRAM_BUILD_STATUS,
            size_of::<cl_build_status>(),
            (&mut build_status as *mut cl_build_status).cast(),
            ptr::null_mut(),
        )
    };
    expect_error(status, CL_SUCCESS, "clGetProgramBuildInfo(BUILD_STATUS)");
    assert_eq!(build_status, CL_BUILD_ERROR, "CL_PROGRAM_BUILD_STATUS");

    // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
    // executable for program."
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let kernel = unsafe { clCreateKernel(program, c"broken".as_ptr(), &mut status) };
    expect_error(
        status,
        CL_INVALID_PROGRAM_EXECUTABLE,
        "clCreateKernel after failed build",
    );
    assert!(kernel.is_null());
    // SAFETY: the program created above, released once.
    unsafe { clReleaseProgram(program) };
}

const KERNEL: &str = r#"
kernel void k(global int* out, int value, local int* scratch) {
    scratch[get_local_id(0)] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = scratch[0];
}
"#;

#[test]
fn create_kernel_unknown_name() {
    let cl = Cl::new();
    let program = cl.build(KERNEL);
    match program.try_kernel("no_such_kernel") {
        Ok(_) => panic!("clCreateKernel succeeded for an unknown name"),
        Err(e) => assert_eq!(e, ClError(CL_INVALID_KERNEL_NAME)),
    }
}

/// clSetKernelArg with raw size and value.
fn set_arg(kernel: &Kernel, index: u32, size: usize, value: *const c_void) -> cl_int {
    // SAFETY: `value` is null or points at `size` readable bytes.
    unsafe { clSetKernelArg(kernel.raw(), index, size, value) }
}

#[test]
fn set_kernel_arg_index_out_of_range() {
    let cl = Cl::new();
    let kernel = cl.kernel(KERNEL, "k");
    let value = 5i32;
    for index in [3, 4, 1000] {
        let status = set_arg(
            &kernel,
            index,
            size_of::<i32>(),
            (&value as *const i32).cast(),
        );
        expect_error(
            status,
            CL_INVALID_ARG_INDEX,
            &format!("clSetKernelArg({index})"),
        );
    }
}

#[test]
fn set_kernel_arg_wrong_size() {
    let cl = Cl::new();
    let kernel = cl.kernel(KERNEL, "k");
    let wide = 5i64;
    let wide_ptr = (&wide as *const i64).cast();
    // An int argument given 8 bytes, and 2.
    expect_error(
        set_arg(&kernel, 1, 8, wide_ptr),
        CL_INVALID_ARG_SIZE,
        "int arg, 8 bytes",
    );
    expect_error(
        set_arg(&kernel, 1, 2, wide_ptr),
        CL_INVALID_ARG_SIZE,
        "int arg, 2 bytes",
    );
    // A buffer argument given less than sizeof(cl_mem).
    expect_error(
        set_arg(&kernel, 0, 4, wide_ptr),
        CL_INVALID_ARG_SIZE,
        "buffer arg, 4 bytes",
    );
    // "CL_INVALID_ARG_SIZE if [...] the kernel argument is a pointer to
    // the local address space and arg_size is zero. This error condition
    // does not apply if the platform associated with kernel is OpenCL 3.1
    // or newer." (tests/tests/opencl_31.rs runs such launches.)
    let platform_31 =
        ferrocl_tests::platform_string(ferrocl_tests::platform(), CL_PLATFORM_VERSION)
            .starts_with("OpenCL 3.1 ");
    expect_error(
        set_arg(&kernel, 2, 0, ptr::null()),
        if platform_31 {
            CL_SUCCESS
        } else {
            CL_INVALID_ARG_SIZE
        },
        "local arg, 0 bytes",
    );
}

#[test]
fn set_kernel_arg_invalid_value() {
    let cl = Cl::new();
    let kernel = cl.kernel(KERNEL, "k");
    let value = 5i32;
    // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value":
    // NULL for a by-value argument, and non-NULL for a __local one.
    expect_error(
        set_arg(&kernel, 1, size_of::<i32>(), ptr::null()),
        CL_INVALID_ARG_VALUE,
        "int arg, NULL value",
    );
    expect_error(
        set_arg(&kernel, 2, 16, (&value as *const i32).cast()),
        CL_INVALID_ARG_VALUE,
        "local arg, non-NULL value",
    );
}

#[test]
fn enqueue_with_unset_arguments() {
    let cl = Cl::new();
    let kernel = cl.kernel(KERNEL, "k");
    let unset = cl.queue.try_enqueue(&kernel, None, &[4], Some(&[4]));
    assert_eq!(
        unset,
        Err(ClError(CL_INVALID_KERNEL_ARGS)),
        "no argument set"
    );
    let out = cl.buffer::<i32>(4);
    kernel.arg(0, &out).arg(1, &7i32);
    let partial = cl.queue.try_enqueue(&kernel, None, &[4], Some(&[4]));
    assert_eq!(
        partial,
        Err(ClError(CL_INVALID_KERNEL_ARGS)),
        "__local argument unset"
    );
    // Once every argument is set the same launch works.
    kernel.arg(2, &Local(4 * size_of::<i32>()));
    cl.queue.run(&kernel, &[4], Some(&[4]));
    assert_eq!(cl.queue.read(&out), [7; 4]);
}

#[test]
fn enqueue_with_bad_work_dimension() {
    let cl = Cl::new();
    let kernel = cl.kernel(KERNEL, "k");
    let out = cl.buffer::<i32>(4);
    kernel.arg(0, &out).arg(1, &7i32).arg(2, &Local(16));
    let sizes = [1usize; 4];
    for dims in [0, 4] {
        // SAFETY: `sizes` has 4 entries, at least `dims`.
        let status = unsafe {
            clEnqueueNDRangeKernel(
                cl.queue.raw(),
                kernel.raw(),
                dims,
                ptr::null(),
                sizes.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        expect_error(
            status,
            CL_INVALID_WORK_DIMENSION,
            &format!("work_dim {dims}"),
        );
    }
}
