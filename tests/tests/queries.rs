//! Platform and device queries: the strings' required forms, the device
//! type, extension lists against their versioned twins, spec minimums, and
//! the param_value_size / param_value_size_ret protocol.

use std::collections::BTreeSet;
use std::mem::size_of;
use std::ptr;

use ferrocl_tests::info::{device_info, platform_info, query, query_value, Info};
use ferrocl_tests::sys::*;
use ferrocl_tests::{device, device_string, device_value, expect_error, platform, platform_string};

fn assert_starts_with(what: &str, value: &str, prefix: &str) {
    assert!(
        value.starts_with(prefix),
        "{what} is {value:?}, must start with {prefix:?}"
    );
}

#[test]
fn platform_strings() {
    let platform = platform();
    assert!(
        !platform_string(platform, CL_PLATFORM_NAME).is_empty(),
        "CL_PLATFORM_NAME empty"
    );
    assert!(
        !platform_string(platform, CL_PLATFORM_VENDOR).is_empty(),
        "CL_PLATFORM_VENDOR empty"
    );
    // "OpenCL<space><major_version.minor_version><space><platform-specific
    // information>"
    // 3.0 or 3.1 (which one: `tests/tests/opencl_31.rs`), as the numeric
    // version says.
    let version = platform_string(platform, CL_PLATFORM_VERSION);
    let profile = platform_string(platform, CL_PLATFORM_PROFILE);
    assert!(
        profile == "FULL_PROFILE" || profile == "EMBEDDED_PROFILE",
        "CL_PLATFORM_PROFILE is {profile:?}"
    );
    let numeric: cl_version = query_value(platform_info(platform, CL_PLATFORM_NUMERIC_VERSION))
        .expect("CL_PLATFORM_NUMERIC_VERSION");
    assert!(
        [make_version(3, 0, 0), make_version(3, 1, 0)].contains(&numeric),
        "CL_PLATFORM_NUMERIC_VERSION {numeric:#x}"
    );
    let want = format!("OpenCL 3.{} ", (numeric >> 12) & 0x3ff);
    assert_starts_with("CL_PLATFORM_VERSION", &version, &want);
}

#[test]
fn device_strings() {
    let device = device();
    assert!(
        !device_string(device, CL_DEVICE_NAME).is_empty(),
        "CL_DEVICE_NAME empty"
    );
    let vendor = device_string(device, CL_DEVICE_VENDOR);
    assert!(!vendor.is_empty(), "CL_DEVICE_VENDOR empty");
    // 3.0 or 3.1, as the numeric version says (`tests/tests/opencl_31.rs`).
    let version = device_string(device, CL_DEVICE_VERSION);
    let numeric: cl_version = device_value(device, CL_DEVICE_NUMERIC_VERSION);
    let want = format!("OpenCL 3.{} ", (numeric >> 12) & 0x3ff);
    assert_starts_with("CL_DEVICE_VERSION", &version, &want);
    // "OpenCL<space>C<space><major_version.minor_version><space><vendor-specific
    // information>"; a 3.0 device must support OpenCL C 1.2 at least.
    let c_version = device_string(device, CL_DEVICE_OPENCL_C_VERSION);
    assert!(
        ["OpenCL C 1.2 ", "OpenCL C 2.0 ", "OpenCL C 3.0 "]
            .iter()
            .any(|p| c_version.starts_with(p)),
        "CL_DEVICE_OPENCL_C_VERSION is {c_version:?}"
    );
    // "<major_number>.<minor_number>", optionally followed by more.
    let driver = device_string(device, CL_DRIVER_VERSION);
    let mut parts = driver.splitn(2, '.');
    let major_ok = parts
        .next()
        .is_some_and(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_digit()));
    let minor_ok = parts
        .next()
        .is_some_and(|m| m.bytes().next().is_some_and(|b| b.is_ascii_digit()));
    assert!(major_ok && minor_ok, "CL_DRIVER_VERSION is {driver:?}");
    if !ferrocl_tests::testing_pocl() {
        // ferrocl's compiler fingerprint follows its version
        // ("0.1.0+0123abcd (Vulkan ...)"): applications key their caches
        // of program binaries on this string (pyopencl, hashcat), so it
        // must change whenever the compiler does.
        let fingerprint = driver
            .split(' ')
            .next()
            .and_then(|v| v.split_once('+'))
            .map(|(_, f)| f.to_string());
        assert!(
            fingerprint
                .as_deref()
                .is_some_and(|f| f.len() == 8 && f.bytes().all(|b| b.is_ascii_hexdigit())),
            "CL_DRIVER_VERSION {driver:?} has no compiler fingerprint"
        );
    }
    let profile = device_string(device, CL_DEVICE_PROFILE);
    assert!(
        profile == "FULL_PROFILE" || profile == "EMBEDDED_PROFILE",
        "CL_DEVICE_PROFILE is {profile:?}"
    );
    let numeric: cl_version = device_value(device, CL_DEVICE_NUMERIC_VERSION);
    assert!(
        [make_version(3, 0, 0), make_version(3, 1, 0)].contains(&numeric),
        "CL_DEVICE_NUMERIC_VERSION {numeric:#x}"
    );
}

#[test]
fn device_belongs_to_platform_and_is_usable() {
    let device = device();
    let owner: cl_platform_id = device_value(device, CL_DEVICE_PLATFORM);
    assert_eq!(owner, platform(), "CL_DEVICE_PLATFORM");
    let available: cl_bool = device_value(device, CL_DEVICE_AVAILABLE);
    assert_eq!(available, CL_TRUE, "CL_DEVICE_AVAILABLE");
    let compiler: cl_bool = device_value(device, CL_DEVICE_COMPILER_AVAILABLE);
    assert_eq!(compiler, CL_TRUE, "CL_DEVICE_COMPILER_AVAILABLE");
}

#[test]
fn device_type() {
    let platform = platform();
    let device = device();
    let kind: cl_device_type = device_value(device, CL_DEVICE_TYPE);
    // OpenCL 3.0.16 (OpenCL-Docs #1069): "a single device type";
    // CL_DEVICE_TYPE_DEFAULT and CL_DEVICE_TYPE_ALL only select devices.
    let real = kind;
    let types = [
        CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_GPU,
        CL_DEVICE_TYPE_ACCELERATOR,
        CL_DEVICE_TYPE_CUSTOM,
    ];
    assert!(types.contains(&real), "CL_DEVICE_TYPE is {kind:#x}");

    // clGetDeviceIDs with that type lists the device.
    let mut ids = vec![ptr::null_mut(); 16];
    let mut count: cl_uint = 0;
    // SAFETY: `ids` holds 16 entries.
    let status = unsafe {
        clGetDeviceIDs(
            platform,
            real,
            ids.len() as cl_uint,
            ids.as_mut_ptr(),
            &mut count,
        )
    };
    expect_error(status, CL_SUCCESS, "clGetDeviceIDs(the device's type)");
    ids.truncate(count.min(16) as usize);
    assert!(
        ids.contains(&device),
        "clGetDeviceIDs({real:#x}) does not list the device"
    );

    // CL_DEVICE_TYPE_DEFAULT selects exactly one device.
    // SAFETY: `ids` holds 16 entries.
    let status = unsafe {
        clGetDeviceIDs(
            platform,
            CL_DEVICE_TYPE_DEFAULT,
            ids.len() as cl_uint,
            ids.as_mut_ptr(),
            &mut count,
        )
    };
    expect_error(status, CL_SUCCESS, "clGetDeviceIDs(DEFAULT)");
    assert_eq!(count, 1, "clGetDeviceIDs(DEFAULT) count");
}

/// The names in a space-separated extension string, checking for
/// duplicates.
fn extension_names(what: &str, list: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for name in list.split_ascii_whitespace() {
        assert!(names.insert(name.to_owned()), "{what} lists {name} twice");
    }
    names
}

/// The names in a cl_name_version array, checking each is NUL-terminated
/// and unique.
fn versioned_names(what: &str, list: &[cl_name_version]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in list {
        let end = entry
            .name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or_else(|| panic!("{what}: a name is not NUL-terminated"));
        let name = String::from_utf8(entry.name[..end].to_vec()).expect("name is not UTF-8");
        assert!(!name.is_empty(), "{what}: empty name");
        assert!(names.insert(name.clone()), "{what} lists {name} twice");
    }
    names
}

#[test]
fn device_extensions_match_versioned_list() {
    let device = device();
    let string = extension_names(
        "CL_DEVICE_EXTENSIONS",
        &device_string(device, CL_DEVICE_EXTENSIONS),
    );
    let list: Vec<cl_name_version> =
        query(device_info(device, CL_DEVICE_EXTENSIONS_WITH_VERSION)).expect("WITH_VERSION");
    let versioned = versioned_names("CL_DEVICE_EXTENSIONS_WITH_VERSION", &list);
    assert_eq!(
        string, versioned,
        "CL_DEVICE_EXTENSIONS vs CL_DEVICE_EXTENSIONS_WITH_VERSION"
    );
}

/// The 32-bit atomics extensions a 1.1+ device reports, exercised through
/// their own atom_* names on global and local memory.
#[test]
fn int32_atomics_extensions_are_reported_and_work() {
    let device = device();
    let exts = extension_names(
        "CL_DEVICE_EXTENSIONS",
        &device_string(device, CL_DEVICE_EXTENSIONS),
    );
    for e in [
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
    ] {
        assert!(exts.contains(e), "{e} is not reported");
    }
    let source = r#"
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable
kernel void atoms(global int* g, global int* out) {
    local int l[2];
    if (get_local_id(0) == 0) { l[0] = 0; l[1] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    int i = (int)get_global_id(0);
    atom_add(&g[0], i);
    atom_inc(&g[1]);
    atom_max(&g[2], i);
    atom_or(&g[3], 1 << (i & 31));
    atom_inc(&l[0]);
    atom_max(&l[1], (int)get_local_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        atom_add(&out[0], l[0]);
        atom_max(&out[1], l[1]);
    }
}
"#;
    let cl = ferrocl_tests::Cl::new();
    let g = cl.buffer_from(&[0i32; 4]);
    let out = cl.buffer_from(&[0i32; 2]);
    let kernel = cl.kernel(source, "atoms");
    kernel.arg(0, &g).arg(1, &out);
    cl.queue.run(&kernel, &[64], Some(&[16]));
    assert_eq!(cl.queue.read(&g), vec![(0..64).sum::<i32>(), 64, 63, -1]);
    assert_eq!(cl.queue.read(&out), vec![64, 15]);
}

#[test]
fn platform_extensions_match_versioned_list() {
    let platform = platform();
    let string = extension_names(
        "CL_PLATFORM_EXTENSIONS",
        &platform_string(platform, CL_PLATFORM_EXTENSIONS),
    );
    let list: Vec<cl_name_version> =
        query(platform_info(platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION)).expect("WITH_VERSION");
    let versioned = versioned_names("CL_PLATFORM_EXTENSIONS_WITH_VERSION", &list);
    assert_eq!(
        string, versioned,
        "CL_PLATFORM_EXTENSIONS vs CL_PLATFORM_EXTENSIONS_WITH_VERSION"
    );
    // An installable client driver must report cl_khr_icd.
    assert!(
        string.contains("cl_khr_icd"),
        "CL_PLATFORM_EXTENSIONS lacks cl_khr_icd"
    );
}

#[test]
fn device_limits_meet_spec_minimums() {
    let device = device();
    let dims: cl_uint = device_value(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    assert!(dims >= 3, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS is {dims}");
    let sizes: Vec<usize> =
        query(device_info(device, CL_DEVICE_MAX_WORK_ITEM_SIZES)).expect("MAX_WORK_ITEM_SIZES");
    assert_eq!(
        sizes.len(),
        dims as usize,
        "CL_DEVICE_MAX_WORK_ITEM_SIZES entries"
    );
    assert!(
        sizes.iter().all(|&s| s >= 1),
        "CL_DEVICE_MAX_WORK_ITEM_SIZES {sizes:?}"
    );
    let group: usize = device_value(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert!(group >= 1, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    let units: cl_uint = device_value(device, CL_DEVICE_MAX_COMPUTE_UNITS);
    assert!(units >= 1, "CL_DEVICE_MAX_COMPUTE_UNITS");
    let bits: cl_uint = device_value(device, CL_DEVICE_ADDRESS_BITS);
    assert!(bits == 32 || bits == 64, "CL_DEVICE_ADDRESS_BITS is {bits}");

    // Minimums for a non-custom FULL_PROFILE device (OpenCL 3.0, table of
    // device queries).
    if device_string(device, CL_DEVICE_PROFILE) != "FULL_PROFILE" {
        return;
    }
    let global: cl_ulong = device_value(device, CL_DEVICE_GLOBAL_MEM_SIZE);
    let alloc: cl_ulong = device_value(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    // max(min(1 GiB, global / 4), 32 MiB)
    assert!(
        alloc >= (global / 4).clamp(32 << 20, 1 << 30),
        "CL_DEVICE_MAX_MEM_ALLOC_SIZE {alloc} (global {global})"
    );
    let local: cl_ulong = device_value(device, CL_DEVICE_LOCAL_MEM_SIZE);
    assert!(local >= 32 << 10, "CL_DEVICE_LOCAL_MEM_SIZE {local}");
    let constant: cl_ulong = device_value(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    assert!(
        constant >= 64 << 10,
        "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE {constant}"
    );
    let params: usize = device_value(device, CL_DEVICE_MAX_PARAMETER_SIZE);
    assert!(params >= 1024, "CL_DEVICE_MAX_PARAMETER_SIZE {params}");
}

/// Checks the size protocol of one string query.
fn check_string_protocol(what: &str, info: Info) {
    let mut size = 0usize;
    expect_error(info.call(0, None, Some(&mut size)), CL_SUCCESS, what);
    assert!(size >= 1, "{what}: size {size} leaves no room for the NUL");

    // Exactly the size: the value and its NUL.
    let mut exact = vec![0xAAu8; size];
    let mut size_ret = 0usize;
    let status = info.call(size, Some(&mut exact), Some(&mut size_ret));
    expect_error(status, CL_SUCCESS, what);
    assert_eq!(size_ret, size, "{what}: param_value_size_ret");
    assert_eq!(exact[size - 1], 0, "{what}: not NUL-terminated");
    assert!(
        !exact[..size - 1].contains(&0),
        "{what}: NUL inside the value"
    );

    // "CL_INVALID_VALUE if ... size in bytes specified by param_value_size
    // is < size of return type ... and param_value is not NULL."
    let mut short = vec![0u8; size];
    let status = info.call(size - 1, Some(&mut short), None);
    expect_error(
        status,
        CL_INVALID_VALUE,
        &format!("{what} with one byte too few"),
    );

    // A larger buffer is fine, and size_ret still says the real size.
    let mut large = vec![0xAAu8; size + 16];
    let mut size_ret = 0usize;
    let status = info.call(large.len(), Some(&mut large), Some(&mut size_ret));
    expect_error(status, CL_SUCCESS, what);
    assert_eq!(
        size_ret, size,
        "{what}: param_value_size_ret with a larger buffer"
    );
    assert_eq!(
        large[..size],
        exact[..],
        "{what}: value with a larger buffer"
    );

    // Both outputs NULL: nothing to do, not an error.
    expect_error(info.call(0, None, None), CL_SUCCESS, what);
}

#[test]
fn string_info_size_protocol() {
    let platform = platform();
    let device = device();
    check_string_protocol(
        "CL_PLATFORM_NAME",
        platform_info(platform, CL_PLATFORM_NAME),
    );
    check_string_protocol(
        "CL_PLATFORM_VERSION",
        platform_info(platform, CL_PLATFORM_VERSION),
    );
    check_string_protocol("CL_DEVICE_NAME", device_info(device, CL_DEVICE_NAME));
    check_string_protocol(
        "CL_DEVICE_EXTENSIONS",
        device_info(device, CL_DEVICE_EXTENSIONS),
    );
}

#[test]
fn scalar_and_array_info_size_protocol() {
    let device = device();
    let dims: cl_uint = device_value(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    let cases: [(&str, cl_device_info, usize); 5] = [
        (
            "CL_DEVICE_TYPE",
            CL_DEVICE_TYPE,
            size_of::<cl_device_type>(),
        ),
        (
            "CL_DEVICE_MAX_COMPUTE_UNITS",
            CL_DEVICE_MAX_COMPUTE_UNITS,
            size_of::<cl_uint>(),
        ),
        (
            "CL_DEVICE_MAX_WORK_GROUP_SIZE",
            CL_DEVICE_MAX_WORK_GROUP_SIZE,
            size_of::<usize>(),
        ),
        (
            "CL_DEVICE_GLOBAL_MEM_SIZE",
            CL_DEVICE_GLOBAL_MEM_SIZE,
            size_of::<cl_ulong>(),
        ),
        // An array: one size_t per work-item dimension.
        (
            "CL_DEVICE_MAX_WORK_ITEM_SIZES",
            CL_DEVICE_MAX_WORK_ITEM_SIZES,
            dims as usize * size_of::<usize>(),
        ),
    ];
    for (what, param, want) in cases {
        let info = device_info(device, param);
        let mut size = 0usize;
        expect_error(info.call(0, None, Some(&mut size)), CL_SUCCESS, what);
        assert_eq!(size, want, "{what}: param_value_size_ret");
        let mut value = vec![0u8; want + 16];
        let status = info.call(want - 1, Some(&mut value), None);
        expect_error(
            status,
            CL_INVALID_VALUE,
            &format!("{what} with a short buffer"),
        );
        let mut size_ret = 0usize;
        let status = info.call(value.len(), Some(&mut value), Some(&mut size_ret));
        expect_error(status, CL_SUCCESS, &format!("{what} with a larger buffer"));
        assert_eq!(
            size_ret, want,
            "{what}: param_value_size_ret with a larger buffer"
        );
    }
}

/// ferrocl's CL_DEVICE_VENDOR names ferrocl, never the hardware vendor:
/// darktable 4.2 compiles inline PTX for a device whose vendor starts with
/// "NVIDIA" (and drops the device when that fails to build), and other
/// applications key AMD or Intel compiler-only code on those vendors'
/// strings. The hardware is in CL_DEVICE_NAME and CL_DEVICE_VENDOR_ID.
#[test]
fn device_vendor_names_the_implementation() {
    let platform = ferrocl_tests::info::platform_name(ferrocl_tests::platform());
    if !platform.to_lowercase().contains("ferrocl") {
        return; // another implementation's policy
    }
    let device = device();
    assert_eq!(device_string(device, CL_DEVICE_VENDOR), "ferrocl");
    let vendor_id: cl_uint = device_value(device, CL_DEVICE_VENDOR_ID);
    assert_ne!(
        vendor_id, 0,
        "CL_DEVICE_VENDOR_ID keeps the hardware's PCI (or Khronos) vendor id"
    );
}
