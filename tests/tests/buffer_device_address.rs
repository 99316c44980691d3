//! cl_ext_buffer_device_address: buffers created with
//! CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, their addresses
//! (clGetMemObjectInfo(CL_MEM_DEVICE_ADDRESS_EXT)), raw addresses as
//! kernel arguments (clSetKernelArgDevicePointerEXT) and as indirect
//! pointers (CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT), with the values every
//! kernel computes checked against the same computation on the host, and
//! the extension's error codes. ferrocl implements it for kernels built
//! with physical addressing (runtime/src/core/device_address.rs).

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, device_string, expect_error, Buffer, Cl, Kernel};

type SetDevicePointer = unsafe extern "system" fn(cl_kernel, cl_uint, cl_ulong) -> cl_int;

/// The extension's entry point, or `None` (test skipped) where the device
/// does not report the extension.
fn set_device_pointer_fn(cl: &Cl) -> Option<SetDevicePointer> {
    if !device_string(cl.device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_ext_buffer_device_address")
    {
        eprintln!("skipped: the device does not report cl_ext_buffer_device_address");
        return None;
    }
    // SAFETY: a NUL-terminated name; the platform is a valid handle.
    let f = unsafe {
        clGetExtensionFunctionAddressForPlatform(
            ferrocl_tests::platform(),
            c"clSetKernelArgDevicePointerEXT".as_ptr(),
        )
    };
    assert!(!f.is_null(), "clSetKernelArgDevicePointerEXT not found");
    // SAFETY: the extension defines this signature.
    Some(unsafe { std::mem::transmute::<*mut c_void, SetDevicePointer>(f) })
}

/// A buffer of `data` created with CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT.
fn addressed_buffer(cl: &Cl, data: &[i32]) -> Buffer<i32> {
    let props = [
        CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
        CL_TRUE as cl_mem_properties,
        0,
    ];
    let mut status = CL_SUCCESS;
    // SAFETY: valid context, 0-terminated properties, `data` holds the bytes.
    let raw = unsafe {
        clCreateBufferWithProperties(
            cl.raw(),
            props.as_ptr(),
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            std::mem::size_of_val(data),
            data.as_ptr() as *mut c_void,
            &mut status,
        )
    };
    check(
        status,
        "clCreateBufferWithProperties(CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT)",
    );
    Buffer::from_raw(raw, data.len())
}

/// clGetMemObjectInfo(CL_MEM_DEVICE_ADDRESS_EXT) of a one-device context.
fn address_of(mem: cl_mem) -> Result<u64, cl_int> {
    let mut address = 0u64;
    let mut size = 0usize;
    // SAFETY: valid object, room for one address.
    let status = unsafe {
        clGetMemObjectInfo(
            mem,
            CL_MEM_DEVICE_ADDRESS_EXT,
            8,
            (&mut address as *mut u64).cast(),
            &mut size,
        )
    };
    if status != CL_SUCCESS {
        return Err(status);
    }
    assert_eq!(
        size, 8,
        "CL_MEM_DEVICE_ADDRESS_EXT size in a one-device context"
    );
    Ok(address)
}

fn set_exec_info_addresses(kernel: &Kernel, addresses: &[u64]) -> cl_int {
    // SAFETY: valid kernel, `addresses` holds the bytes given.
    unsafe {
        clSetKernelExecInfo(
            kernel.raw(),
            CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
            std::mem::size_of_val(addresses),
            addresses.as_ptr().cast(),
        )
    }
}

/// The address a kernel sees for a buffer argument is the one the query
/// reports, and the kernel's writes through it land in the buffer.
/// The version reported is the published extension's, 1.0.2 (the
/// OpenCL-Headers' CL_EXT_BUFFER_DEVICE_ADDRESS_EXTENSION_VERSION): CTS
/// test_cl_ext_buffer_device_address skips every test for any other.
#[test]
fn reports_the_published_version() {
    let cl = Cl::new();
    if set_device_pointer_fn(&cl).is_none() {
        return;
    }
    let list: Vec<cl_name_version> = ferrocl_tests::info::query(ferrocl_tests::info::device_info(
        cl.device(),
        CL_DEVICE_EXTENSIONS_WITH_VERSION,
    ))
    .expect("CL_DEVICE_EXTENSIONS_WITH_VERSION");
    let version = list
        .iter()
        .find(|nv| {
            // SAFETY: NUL-terminated within the fixed array.
            let name = unsafe { std::ffi::CStr::from_ptr(nv.name.as_ptr().cast()) };
            name.to_bytes() == b"cl_ext_buffer_device_address"
        })
        .map(|nv| nv.version)
        .expect("versioned entry");
    // PoCL 3.1 predates the published extension.
    if !ferrocl_tests::info::testing_pocl() {
        assert_eq!(version, (1 << 22) | 2, "CL_MAKE_VERSION(1, 0, 2)");
    }
}

#[test]
fn kernel_sees_the_reported_address() {
    let cl = Cl::new();
    if set_device_pointer_fn(&cl).is_none() {
        return;
    }
    let data: Vec<i32> = (0..256).collect();
    let buf = addressed_buffer(&cl, &data);
    let out = cl.buffer::<u64>(1);
    let k = cl.kernel(
        "kernel void get_addr(global int *b, global ulong *addr) {
             size_t i = get_global_id(0);
             b[i] += 1;
             if (i == 0) *addr = (ulong)b;
         }",
        "get_addr",
    );
    k.arg(0, &buf).arg(1, &out);
    cl.queue.run(&k, &[256], None);
    let reported = address_of(buf.raw()).expect("CL_MEM_DEVICE_ADDRESS_EXT");
    assert_ne!(reported, 0);
    assert_eq!(cl.queue.read(&out), vec![reported]);
    let want: Vec<i32> = data.iter().map(|v| v + 1).collect();
    assert_same("buffer after +1", &cl.queue.read(&buf), &want);
    // The address stays the same for the object's lifetime.
    cl.queue.run(&k, &[256], None);
    assert_eq!(address_of(buf.raw()), Ok(reported));
    assert_eq!(cl.queue.read(&out), vec![reported]);
}

/// A table of buffer addresses, each buffer reached only through it (and
/// named in CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT): the kernel sums row `i`
/// of the buffer at `table[i]` and scales it in place.
#[test]
fn pointer_table_walked_by_a_kernel() {
    let cl = Cl::new();
    if set_device_pointer_fn(&cl).is_none() {
        return;
    }
    const ROWS: usize = 7;
    const LEN: usize = 100;
    let rows: Vec<Vec<i32>> = (0..ROWS)
        .map(|r| (0..LEN).map(|j| (r * 1000 + j * 7) as i32 - 300).collect())
        .collect();
    let bufs: Vec<Buffer<i32>> = rows.iter().map(|r| addressed_buffer(&cl, r)).collect();
    let table: Vec<u64> = bufs.iter().map(|b| address_of(b.raw()).unwrap()).collect();
    let table_buf = cl.buffer_from(&table);
    let sums = cl.buffer::<i32>(ROWS);
    let k = cl.kernel(
        "kernel void walk(global const ulong *table, global int *sums, int len, int scale) {
             size_t i = get_global_id(0);
             global int *row = (global int *)table[i];
             int s = 0;
             for (int j = 0; j < len; j++) { s += row[j]; row[j] *= scale; }
             sums[i] = s;
         }",
        "walk",
    );
    k.arg(0, &table_buf)
        .arg(1, &sums)
        .arg(2, &(LEN as i32))
        .arg(3, &3i32);
    check(
        set_exec_info_addresses(&k, &table),
        "clSetKernelExecInfo(DEVICE_PTRS)",
    );
    cl.queue.run(&k, &[ROWS], None);
    let want: Vec<i32> = rows.iter().map(|r| r.iter().sum()).collect();
    assert_same("row sums", &cl.queue.read(&sums), &want);
    for (r, b) in rows.iter().zip(&bufs) {
        let scaled: Vec<i32> = r.iter().map(|v| v * 3).collect();
        assert_same("scaled row", &cl.queue.read(b), &scaled);
    }
}

/// clSetKernelArgDevicePointerEXT with an address inside a buffer: the
/// kernel reads before and after it and writes through it.
#[test]
fn device_pointer_argument_with_arithmetic() {
    let cl = Cl::new();
    let Some(set_ptr) = set_device_pointer_fn(&cl) else {
        return;
    };
    let data: Vec<i32> = (0..64).map(|v| v * v - 40).collect();
    let buf = addressed_buffer(&cl, &data);
    let base = address_of(buf.raw()).unwrap();
    let out = cl.buffer::<i32>(3);
    let k = cl.kernel(
        "kernel void arith(global int *p, global int *out) {
             out[0] = p[-2];
             out[1] = p[5];
             out[2] = *(p - 8 + 3);
             p[1] = out[0] + out[1];
         }",
        "arith",
    );
    let at = 10usize;
    // SAFETY: valid kernel; argument 0 is a global pointer.
    check(
        unsafe { set_ptr(k.raw(), 0, base + (at * 4) as u64) },
        "clSetKernelArgDevicePointerEXT",
    );
    k.arg(1, &out);
    cl.queue.run(&k, &[1], None);
    let want = [data[at - 2], data[at + 5], data[at - 5]];
    assert_same("read around the pointer", &cl.queue.read(&out), &want);
    let mut after = data.clone();
    after[at + 1] = want[0] + want[1];
    assert_same("written through the pointer", &cl.queue.read(&buf), &after);
}

/// A NULL device pointer is a valid argument: the kernel sees 0.
#[test]
fn null_device_pointer_argument() {
    let cl = Cl::new();
    let Some(set_ptr) = set_device_pointer_fn(&cl) else {
        return;
    };
    let out = cl.buffer::<i32>(1);
    let k = cl.kernel(
        "kernel void is_null(global int *p, global int *out) { out[0] = p == 0 ? 11 : 22; }",
        "is_null",
    );
    // SAFETY: valid kernel; argument 0 is a global pointer.
    check(
        unsafe { set_ptr(k.raw(), 0, 0) },
        "clSetKernelArgDevicePointerEXT(NULL)",
    );
    k.arg(1, &out);
    cl.queue.run(&k, &[1], None);
    assert_eq!(cl.queue.read(&out), vec![11]);
}

/// A sub-buffer of an addressed buffer has the parent's address plus its
/// origin, and the kernel sees that address.
#[test]
fn sub_buffer_address_is_parent_plus_origin() {
    let cl = Cl::new();
    if set_device_pointer_fn(&cl).is_none() {
        return;
    }
    let align_bits: cl_uint =
        ferrocl_tests::device_value(cl.device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    let origin = (align_bits / 8) as usize * 2;
    let data: Vec<i32> = (0..(origin / 4 + 64) as i32).collect();
    let parent = addressed_buffer(&cl, &data);
    let region = cl_buffer_region {
        origin,
        size: 64 * 4,
    };
    let mut status = CL_SUCCESS;
    // SAFETY: valid buffer, a region inside it.
    let raw = unsafe {
        clCreateSubBuffer(
            parent.raw(),
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut status,
        )
    };
    check(status, "clCreateSubBuffer");
    let sub = Buffer::<i32>::from_raw(raw, 64);
    let parent_address = address_of(parent.raw()).unwrap();
    let sub_address = address_of(sub.raw()).expect("sub-buffer CL_MEM_DEVICE_ADDRESS_EXT");
    assert_eq!(sub_address, parent_address + origin as u64);
    let out = cl.buffer::<u64>(2);
    let k = cl.kernel(
        "kernel void addr(global int *b, global ulong *out) { out[0] = (ulong)b; out[1] = b[0]; }",
        "addr",
    );
    k.arg(0, &sub).arg(1, &out);
    cl.queue.run(&k, &[1], None);
    assert_eq!(
        cl.queue.read(&out),
        vec![sub_address, data[origin / 4] as u64]
    );
}

/// A launch keeps the buffer behind a device-pointer argument alive:
/// released by the application while the launch waits for an event, it
/// is still written by the kernel, and the result copied out of it by a
/// second kernel that reads it through the same address.
#[test]
fn launch_keeps_the_pointed_to_buffer_alive() {
    let cl = Cl::new();
    let Some(set_ptr) = set_device_pointer_fn(&cl) else {
        return;
    };
    let data: Vec<i32> = (0..32).map(|v| 3 * v + 1).collect();
    let buf = addressed_buffer(&cl, &data);
    let address = address_of(buf.raw()).unwrap();
    let out = cl.buffer::<i32>(32);
    let k = cl.kernel(
        "kernel void copy_twice(global int *p, global int *out) {
             size_t i = get_global_id(0);
             out[i] = 2 * p[i];
         }",
        "copy_twice",
    );
    // SAFETY: valid kernel; argument 0 is a global pointer.
    check(
        unsafe { set_ptr(k.raw(), 0, address) },
        "clSetKernelArgDevicePointerEXT",
    );
    k.arg(1, &out);
    let gate = ferrocl_tests::events::Event::user(&cl.context);
    let done = ferrocl_tests::events::launch(cl.queue.raw(), &k, 32, &[&gate]);
    drop(buf);
    // Were the storage freed, these buffers would take its place (the
    // allocator hands the range out again) and the kernel would read them.
    let decoys: Vec<Buffer<i32>> = (0..4).map(|_| cl.buffer_from(&[-7i32; 32])).collect();
    gate.set(CL_COMPLETE);
    done.wait();
    let want: Vec<i32> = data.iter().map(|v| 2 * v).collect();
    assert_same(
        "read through a released buffer's address",
        &cl.queue.read(&out),
        &want,
    );
    drop(decoys);
}

#[test]
fn error_codes() {
    let cl = Cl::new();
    let Some(set_ptr) = set_device_pointer_fn(&cl) else {
        return;
    };
    // "CL_INVALID_OPERATION [...] the buffer was not created with
    // CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT" (CTS negative_private_address).
    let plain = cl.buffer::<i32>(4);
    assert_eq!(address_of(plain.raw()), Err(CL_INVALID_OPERATION));
    // A property value other than CL_TRUE/CL_FALSE, and a repeated name:
    // CL_INVALID_PROPERTY.
    for props in [
        vec![CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, 2, 0],
        vec![
            CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
            1,
            CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
            1,
            0,
        ],
    ] {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context, 0-terminated properties.
        let raw = unsafe {
            clCreateBufferWithProperties(
                cl.raw(),
                props.as_ptr(),
                CL_MEM_READ_WRITE,
                16,
                ptr::null_mut(),
                &mut status,
            )
        };
        assert!(raw.is_null());
        expect_error(
            status,
            CL_INVALID_PROPERTY,
            "bad CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT list",
        );
    }
    // CL_FALSE is a valid value: an ordinary buffer, no address.
    let props = [
        CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
        CL_FALSE as cl_mem_properties,
        0,
    ];
    let mut status = CL_SUCCESS;
    // SAFETY: valid context, 0-terminated properties.
    let raw = unsafe {
        clCreateBufferWithProperties(
            cl.raw(),
            props.as_ptr(),
            CL_MEM_READ_WRITE,
            16,
            ptr::null_mut(),
            &mut status,
        )
    };
    check(status, "clCreateBufferWithProperties(CL_FALSE)");
    let off = Buffer::<i32>::from_raw(raw, 4);
    assert_eq!(address_of(off.raw()), Err(CL_INVALID_OPERATION));

    let k = cl.kernel(
        "kernel void k(global ulong *p, local ulong *l, ulong v, constant int *c) { *p = v; }",
        "k",
    );
    // SAFETY (the calls below): the kernel handle is valid or NULL.
    unsafe {
        expect_error(
            set_ptr(ptr::null_mut(), 0, 0),
            CL_INVALID_KERNEL,
            "NULL kernel",
        );
        expect_error(
            set_ptr(k.raw(), 1, 0x15465),
            CL_INVALID_ARG_INDEX,
            "local pointer argument",
        );
        expect_error(
            set_ptr(k.raw(), 2, 0x15465),
            CL_INVALID_ARG_INDEX,
            "by-value argument",
        );
        expect_error(
            set_ptr(k.raw(), 3, 0x15465),
            CL_INVALID_ARG_INDEX,
            "constant pointer argument",
        );
        expect_error(
            set_ptr(k.raw(), 4, 0x15465),
            CL_INVALID_ARG_INDEX,
            "index past the last",
        );
    }
    // clSetKernelExecInfo: "CL_INVALID_VALUE if [...] param_value is NULL
    // or if the size specified by param_value_size is not valid."
    let addresses = [0x1000u64, 0x2000];
    // SAFETY: valid kernel; the sizes given are at most the array's.
    unsafe {
        expect_error(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
                12,
                addresses.as_ptr().cast(),
            ),
            CL_INVALID_VALUE,
            "DEVICE_PTRS of 12 bytes",
        );
        expect_error(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
                16,
                ptr::null(),
            ),
            CL_INVALID_VALUE,
            "DEVICE_PTRS NULL",
        );
    }
    check(
        set_exec_info_addresses(&k, &addresses),
        "clSetKernelExecInfo(DEVICE_PTRS)",
    );
}

/// ferrocl only: a kernel built with descriptor addressing sees pointers
/// as binding slots, not device addresses, and refuses raw addresses with
/// CL_INVALID_OPERATION (docs/design.md, "Unified memory").
#[test]
fn descriptor_addressing_refuses_raw_addresses() {
    let cl = Cl::new();
    let Some(set_ptr) = set_device_pointer_fn(&cl) else {
        return;
    };
    if ferrocl_tests::info::testing_pocl() {
        eprintln!("skipped: -ferrocl-addressing is ferrocl's build option");
        return;
    }
    let program = cl
        .try_build(
            "kernel void k(global int *p) { *p = 1; }",
            "-ferrocl-addressing=descriptor",
        )
        .expect("descriptor-addressed build");
    let k = program.kernel("k");
    // SAFETY: valid kernel; argument 0 is a global pointer.
    expect_error(
        unsafe { set_ptr(k.raw(), 0, 0x1000) },
        CL_INVALID_OPERATION,
        "descriptor addressing",
    );
    expect_error(
        set_exec_info_addresses(&k, &[0x1000]),
        CL_INVALID_OPERATION,
        "DEVICE_PTRS, descriptor addressing",
    );
}
