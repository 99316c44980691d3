//! Error codes of the platform, device and buffer entry points for invalid
//! values (handles are valid; see errors_handles.rs for invalid ones).

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{device, expect_error, init, platform, Cl};

#[test]
fn get_platform_ids_asking_for_nothing() {
    init();
    // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not
    // NULL or if both num_platforms and platforms are NULL."
    // SAFETY: null out-pointers are what is being tested.
    let status = unsafe { clGetPlatformIDs(0, ptr::null_mut(), ptr::null_mut()) };
    expect_error(status, CL_INVALID_VALUE, "clGetPlatformIDs(0, NULL, NULL)");
    let mut one: cl_platform_id = ptr::null_mut();
    // SAFETY: `one` is a live slot; num_entries 0 says not to use it.
    let status = unsafe { clGetPlatformIDs(0, &mut one, ptr::null_mut()) };
    expect_error(
        status,
        CL_INVALID_VALUE,
        "clGetPlatformIDs(0, platforms, NULL)",
    );
}

/// Parameter names no version or extension defines.
const BAD_PARAMS: [u32; 3] = [0, 0x0FFF, 0x7FFF_FFFF];

#[test]
fn get_device_info_unknown_param() {
    let device = device();
    for param in BAD_PARAMS {
        let mut value = [0u8; 64];
        let mut size_ret = 0usize;
        // SAFETY: a 64-byte buffer described as such.
        let status = unsafe {
            clGetDeviceInfo(
                device,
                param,
                value.len(),
                value.as_mut_ptr().cast(),
                &mut size_ret,
            )
        };
        expect_error(
            status,
            CL_INVALID_VALUE,
            &format!("clGetDeviceInfo({param:#x})"),
        );
    }
}

#[test]
fn get_platform_info_unknown_param() {
    let platform = platform();
    for param in BAD_PARAMS {
        let mut size_ret = 0usize;
        // SAFETY: a size query only.
        let status =
            unsafe { clGetPlatformInfo(platform, param, 0, ptr::null_mut(), &mut size_ret) };
        expect_error(
            status,
            CL_INVALID_VALUE,
            &format!("clGetPlatformInfo({param:#x})"),
        );
    }
}

/// clCreateBuffer's status, and a check that an error returns no object.
fn create_buffer(cl: &Cl, flags: cl_mem_flags, size: usize, host: *mut c_void) -> cl_int {
    let mut status = CL_SUCCESS;
    // SAFETY: `host` is null or points at at least `size` bytes.
    let mem = unsafe { clCreateBuffer(cl.raw(), flags, size, host, &mut status) };
    if status == CL_SUCCESS {
        // SAFETY: a buffer just created and owned here.
        unsafe { clReleaseMemObject(mem) };
    } else {
        assert!(
            mem.is_null(),
            "clCreateBuffer failed but returned an object"
        );
    }
    status
}

#[test]
fn create_buffer_of_size_zero() {
    let cl = Cl::new();
    // "CL_INVALID_BUFFER_SIZE if size is 0."
    let status = create_buffer(&cl, CL_MEM_READ_WRITE, 0, ptr::null_mut());
    expect_error(status, CL_INVALID_BUFFER_SIZE, "clCreateBuffer(size 0)");
}

#[test]
fn create_buffer_copy_host_ptr_without_pointer() {
    let cl = Cl::new();
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags."
    let status = create_buffer(&cl, CL_MEM_COPY_HOST_PTR, 64, ptr::null_mut());
    expect_error(
        status,
        CL_INVALID_HOST_PTR,
        "clCreateBuffer(COPY_HOST_PTR, NULL)",
    );
}

#[test]
fn create_buffer_with_conflicting_flags() {
    let cl = Cl::new();
    // "CL_INVALID_VALUE if values specified in flags are not valid": READ_ONLY
    // and WRITE_ONLY are mutually exclusive.
    let status = create_buffer(
        &cl,
        CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
        64,
        ptr::null_mut(),
    );
    expect_error(
        status,
        CL_INVALID_VALUE,
        "clCreateBuffer(READ_ONLY | WRITE_ONLY)",
    );
}

/// clCreateContext's status for a property list holding `key` = `value`,
/// releasing the context when one is made.
fn create_context_with(key: cl_context_properties, value: cl_context_properties) -> cl_int {
    let dev = device();
    let props = [key, value, 0];
    let mut status = CL_SUCCESS;
    // SAFETY: a 0-terminated property list and one valid device.
    let ctx =
        unsafe { clCreateContext(props.as_ptr(), 1, &dev, None, ptr::null_mut(), &mut status) };
    if status == CL_SUCCESS {
        // SAFETY: the context just created, owned here.
        unsafe { clReleaseContext(ctx) };
    } else {
        assert!(ctx.is_null(), "an error must return no context");
    }
    status
}

#[test]
fn create_context_interop_user_sync_takes_a_bool() {
    let sync = CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties;
    for ok in [CL_TRUE, CL_FALSE] {
        expect_error(
            create_context_with(sync, ok as cl_context_properties),
            CL_SUCCESS,
            "clCreateContext(INTEROP_USER_SYNC = a cl_bool)",
        );
    }
    // "CL_INVALID_PROPERTY if [...] the value specified for a supported
    // property name is not valid".
    for bad in [-1, 2] {
        expect_error(
            create_context_with(sync, bad),
            CL_INVALID_PROPERTY,
            &format!("clCreateContext(INTEROP_USER_SYNC = {bad})"),
        );
    }
}

#[test]
fn set_kernel_exec_info_refuses_svm_and_unknown_params() {
    let cl = Cl::new();
    let kernel = cl.kernel("kernel void k(global int* p) { p[0] = 1; }", "k");
    let ptrs: [*mut c_void; 2] = [ptr::null_mut(); 2];
    let yes: cl_bool = CL_TRUE;
    let call = |param, size, value: *const c_void| {
        // SAFETY: `value` is NULL or points at `size` readable bytes.
        unsafe { clSetKernelExecInfo(kernel.raw(), param, size, value) }
    };
    // "CL_INVALID_VALUE if param_name is not valid [...]".
    expect_error(
        call(0x7fff, 4, (&yes as *const cl_bool).cast()),
        CL_INVALID_VALUE,
        "unknown param_name",
    );
    let svm: cl_device_svm_capabilities =
        ferrocl_tests::device_value(cl.device(), CL_DEVICE_SVM_CAPABILITIES);
    if svm != 0 {
        // A device with SVM checks the value: "CL_INVALID_VALUE if [...]
        // the size specified by param_value_size is not valid": NULL with
        // a size (0 and NULL is the empty set: tests/tests/svm.rs has the
        // rest).
        expect_error(
            call(
                CL_KERNEL_EXEC_INFO_SVM_PTRS,
                size_of_val(&ptrs),
                ptr::null(),
            ),
            CL_INVALID_VALUE,
            "SVM_PTRS, NULL",
        );
        expect_error(
            call(CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, ptrs.as_ptr().cast()),
            CL_INVALID_VALUE,
            "SVM_PTRS, 3 bytes",
        );
        return;
    }
    // For the SVM parameters the SVM rule comes first, whatever the value
    // (the CTS's consistency_svm passes NULL and 0).
    expect_error(
        call(CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, ptr::null()),
        CL_INVALID_OPERATION,
        "SVM_PTRS, NULL",
    );
    // Well-formed, but "CL_INVALID_OPERATION if no devices in the context
    // associated with kernel support SVM" (CL_DEVICE_SVM_CAPABILITIES is 0).
    expect_error(
        call(
            CL_KERNEL_EXEC_INFO_SVM_PTRS,
            size_of_val(&ptrs),
            ptrs.as_ptr().cast(),
        ),
        CL_INVALID_OPERATION,
        "SVM_PTRS",
    );
    expect_error(
        call(
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
            size_of::<cl_bool>(),
            (&yes as *const cl_bool).cast(),
        ),
        CL_INVALID_OPERATION,
        "FINE_GRAIN_SYSTEM",
    );
}

#[test]
fn migrate_mem_objects_orders_and_keeps_contents() {
    let cl = Cl::new();
    let data: Vec<u32> = (0..256).collect();
    let a = cl.buffer_from(&data);
    let b = cl.buffer_from(&[5u32; 16]);
    let mems = [a.raw(), b.raw()];
    let migrate = |n: u32, list: *const cl_mem, flags, waits: &[cl_event], ev: *mut cl_event| {
        // SAFETY: `list` holds `n` handles; `waits` is a live wait list.
        unsafe {
            clEnqueueMigrateMemObjects(
                cl.queue.raw(),
                n,
                list,
                flags,
                waits.len() as cl_uint,
                if waits.is_empty() {
                    ptr::null()
                } else {
                    waits.as_ptr()
                },
                ev,
            )
        }
    };
    for flags in [
        0,
        CL_MIGRATE_MEM_OBJECT_HOST,
        CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
    ] {
        let mut ev = ptr::null_mut();
        expect_error(
            migrate(2, mems.as_ptr(), flags, &[], &mut ev),
            CL_SUCCESS,
            &format!("migrate with flags {flags:#x}"),
        );
        let ev = ferrocl_tests::events::Event(ev);
        ev.wait();
        let mut kind: cl_command_type = 0;
        // SAFETY: valid event; a cl_command_type-sized out value.
        let s = unsafe {
            clGetEventInfo(
                ev.0,
                CL_EVENT_COMMAND_TYPE,
                size_of::<cl_command_type>(),
                (&mut kind as *mut cl_command_type).cast(),
                ptr::null_mut(),
            )
        };
        expect_error(s, CL_SUCCESS, "clGetEventInfo(COMMAND_TYPE)");
        assert_eq!(kind, CL_COMMAND_MIGRATE_MEM_OBJECTS);
    }
    // Without CONTENT_UNDEFINED the contents survive.
    assert_eq!(cl.queue.read(&a), data);

    // "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL."
    expect_error(
        migrate(0, mems.as_ptr(), 0, &[], ptr::null_mut()),
        CL_INVALID_VALUE,
        "num_mem_objects 0",
    );
    expect_error(
        migrate(2, ptr::null(), 0, &[], ptr::null_mut()),
        CL_INVALID_VALUE,
        "mem_objects NULL",
    );
    // "CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the table."
    expect_error(
        migrate(2, mems.as_ptr(), 1 << 5, &[], ptr::null_mut()),
        CL_INVALID_VALUE,
        "unknown flag",
    );
    // "CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid memory object."
    let bad = [a.raw(), ptr::null_mut()];
    expect_error(
        migrate(2, bad.as_ptr(), 0, &[], ptr::null_mut()),
        CL_INVALID_MEM_OBJECT,
        "NULL memory object",
    );
    // "CL_INVALID_CONTEXT if the context associated with command_queue and
    // memory objects in mem_objects are not the same or if the context
    // associated with command_queue and events in event_wait_list are not the same."
    let other = Cl::new();
    let foreign = other.buffer_from(&[0u32; 4]);
    let mixed = [a.raw(), foreign.raw()];
    expect_error(
        migrate(2, mixed.as_ptr(), 0, &[], ptr::null_mut()),
        CL_INVALID_CONTEXT,
        "buffer of another context",
    );
    let gate = ferrocl_tests::events::Event::user(&other);
    expect_error(
        migrate(2, mems.as_ptr(), 0, &[gate.0], ptr::null_mut()),
        CL_INVALID_CONTEXT,
        "wait list of another context",
    );
    gate.set(CL_COMPLETE);
}

#[test]
fn get_kernel_sub_group_info_checks_the_device_then_answers() {
    let cl = Cl::new();
    let kernel = cl.kernel("kernel void k(global int* p) { p[0] = 1; }", "k");
    let n: cl_uint = ferrocl_tests::device_value(cl.device(), CL_DEVICE_MAX_NUM_SUB_GROUPS);
    let local = [8usize];
    let call = |dev: cl_device_id, out: &mut usize| {
        // SAFETY: one size_t of input, one size_t of output.
        unsafe {
            ferrocl_tests::info::kernel_sub_group_info_fn(dev)(
                kernel.raw(),
                dev,
                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                size_of_val(&local),
                local.as_ptr().cast(),
                size_of::<usize>(),
                (out as *mut usize).cast(),
                ptr::null_mut(),
            )
        }
    };
    let mut out = 0usize;
    // "CL_INVALID_DEVICE if device is not in the list of devices associated
    // with kernel": another object's handle is no device.
    expect_error(
        call(cl.raw().cast(), &mut out),
        CL_INVALID_DEVICE,
        "a context handle as the device",
    );
    // The device named or NULL (the kernel has one device): the answer, or
    // "CL_INVALID_OPERATION if device does not support subgroups"
    // (CL_DEVICE_MAX_NUM_SUB_GROUPS is 0).
    for (dev, what) in [
        (cl.device(), "the device"),
        (ptr::null_mut(), "NULL device"),
    ] {
        let mut out = 0usize;
        let status = call(dev, &mut out);
        if n == 0 {
            expect_error(status, CL_INVALID_OPERATION, what);
        } else {
            assert_eq!(status, CL_SUCCESS, "{what}");
            // A work-group of 8 has sub-groups of at most 8 work-items.
            assert!((1..=8).contains(&out), "{what}: max sub-group size {out}");
        }
    }
}
