//! OpenCL 3.1 through the ICD loader: the device reports 3.1 exactly when
//! every 3.1 requirement shows in its queries (else 3.0), the platform the
//! newest of its devices; on a 3.1 device `-cl-std=CL3.1` builds (with its
//! macros) and runs what 3.1 made core, SPIR-V 1.1 to 1.4 modules with
//! SPV_KHR_subgroup_rotate run, zero-size `__local` arguments are taken,
//! and the core clGetKernelSuggestedLocalWorkSize sits in the dispatch
//! table. Values are checked against CPU references computed here.
//! (printf's `z` and `t`: `tests/tests/printf.rs`.)

use std::ffi::{c_void, CStr};

use ferrocl_tests::info::{device_info, platform_info, query, query_value};
use ferrocl_tests::sys::cl_icd::cl_icd_dispatch;
use ferrocl_tests::sys::*;
use ferrocl_tests::{
    device, device_string, device_value, expect_error, platform, platform_string, Cl,
};

fn names(v: &[cl_name_version]) -> Vec<(String, cl_version)> {
    v.iter()
        .map(|nv| {
            // SAFETY: a NUL-terminated name within the fixed array.
            let n = unsafe { CStr::from_ptr(nv.name.as_ptr().cast()) };
            (n.to_string_lossy().into_owned(), nv.version)
        })
        .collect()
}

fn name_versions(param: cl_device_info) -> Vec<(String, cl_version)> {
    let v: Vec<cl_name_version> = query(device_info(device(), param)).expect("name/version list");
    names(&v)
}

fn version(major: u32, minor: u32) -> cl_version {
    (major << 22) | (minor << 12)
}

/// The OpenCL 3.1 requirements the device's own queries show missing.
fn missing_requirements() -> Vec<String> {
    let mut missing = Vec::new();
    let d = device();
    if device_value::<cl_uint>(d, CL_DEVICE_MAX_NUM_SUB_GROUPS) == 0 {
        missing.push("sub-groups".to_string());
    }
    let exts = name_versions(CL_DEVICE_EXTENSIONS_WITH_VERSION);
    for e in [
        "cl_khr_device_uuid",
        "cl_khr_extended_bit_ops",
        "cl_khr_integer_dot_product",
        "cl_khr_spirv_queries",
        "cl_khr_suggested_local_work_size",
        "cl_khr_subgroup_extended_types",
        "cl_khr_subgroup_shuffle",
        "cl_khr_subgroup_shuffle_relative",
        "cl_khr_subgroup_rotate",
    ] {
        if !exts.iter().any(|(n, _)| n == e) {
            missing.push(e.to_string());
        }
    }
    let ils = name_versions(CL_DEVICE_ILS_WITH_VERSION);
    for minor in 0..=4 {
        if !ils.contains(&("SPIR-V".to_string(), version(1, minor))) {
            missing.push(format!("SPIR-V 1.{minor}"));
        }
    }
    if exts.iter().any(|(n, _)| n == "cl_khr_spirv_queries") {
        let ptrs: Vec<usize> =
            query(device_info(d, CL_DEVICE_SPIRV_EXTENSIONS_KHR)).expect("SPIR-V extensions");
        let spirv_exts: Vec<String> = ptrs
            .iter()
            // SAFETY: NUL-terminated strings that live as long as the device.
            .map(|&p| {
                unsafe { CStr::from_ptr(p as *const _) }
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        for e in [
            "SPV_KHR_bit_instructions",
            "SPV_KHR_integer_dot_product",
            "SPV_KHR_subgroup_rotate",
        ] {
            if !spirv_exts.iter().any(|n| n == e) {
                missing.push(e.to_string());
            }
        }
        let caps: Vec<u32> =
            query(device_info(d, CL_DEVICE_SPIRV_CAPABILITIES_KHR)).expect("SPIR-V capabilities");
        // GroupNonUniformShuffle, GroupNonUniformShuffleRelative.
        for (c, n) in [
            (65, "GroupNonUniformShuffle"),
            (66, "GroupNonUniformShuffleRelative"),
        ] {
            if !caps.contains(&c) {
                missing.push(n.to_string());
            }
        }
    }
    let dot: cl_bitfield = query_value(device_info(
        d,
        CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR,
    ))
    .unwrap_or(0);
    if dot & CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR == 0 {
        missing.push("4x8-bit packed dot product".to_string());
    }
    missing
}

fn is_31_device() -> bool {
    device_value::<cl_version>(device(), CL_DEVICE_NUMERIC_VERSION) >= version(3, 1)
}

#[test]
fn version_is_31_exactly_where_every_requirement_holds() {
    let d = device();
    let missing = missing_requirements();
    let numeric: cl_version = device_value(d, CL_DEVICE_NUMERIC_VERSION);
    let text = device_string(d, CL_DEVICE_VERSION);
    let c_versions = name_versions(CL_DEVICE_OPENCL_C_ALL_VERSIONS);
    let has_c31 = c_versions.contains(&("OpenCL C".to_string(), version(3, 1)));
    for minor in [0, 1, 2] {
        assert!(c_versions.contains(&("OpenCL C".to_string(), version(1, minor))));
    }
    assert!(c_versions.contains(&("OpenCL C".to_string(), version(3, 0))));
    if missing.is_empty() {
        assert_eq!(numeric, version(3, 1), "every requirement holds: 3.1");
        assert!(text.starts_with("OpenCL 3.1 "), "{text}");
        assert!(has_c31, "OpenCL C 3.1 is required of a 3.1 device");
    } else {
        assert_eq!(numeric, version(3, 0), "missing {missing:?}: 3.0");
        assert!(text.starts_with("OpenCL 3.0 "), "{text}");
        assert!(!has_c31);
    }
    // The platform: the newest of its devices.
    let p = platform();
    let newest = ferrocl_tests::info::devices(p)
        .into_iter()
        .map(|d| device_value::<cl_version>(d, CL_DEVICE_NUMERIC_VERSION))
        .max()
        .expect("a device");
    let pnum: cl_version = query_value(platform_info(p, CL_PLATFORM_NUMERIC_VERSION)).unwrap();
    assert_eq!(pnum, newest);
    let ptext = platform_string(p, CL_PLATFORM_VERSION);
    let want = format!("OpenCL {}.{} ", pnum >> 22, (pnum >> 12) & 0x3ff);
    assert!(ptext.starts_with(&want), "{ptext} (want {want}...)");
}

/// What OpenCL C 3.1 made core, with its version macros: one value per
/// work-item (`out[8 * i + k]`).
const CORE_31: &str = r#"
#if __OPENCL_C_VERSION__ != 310 || CL_VERSION_3_1 != 310 || !defined(__opencl_c_subgroups)
#error "OpenCL C 3.1 macros"
#endif
kernel void core31(global const int *in, global int *out, int delta) {
    uint i = get_global_id(0);
    int x = in[i];
    out[8 * i + 0] = sub_group_rotate(x, delta);
    out[8 * i + 1] = sub_group_clustered_rotate(x, delta, 4);
    out[8 * i + 2] = sub_group_shuffle(x, (get_sub_group_local_id() + 3) % get_max_sub_group_size());
    out[8 * i + 3] = sub_group_shuffle_down(x, 1u);
    out[8 * i + 4] = (int)sub_group_broadcast((char)x, 2u);
    out[8 * i + 5] = bitfield_extract_signed(x, 4u, 9u);
    out[8 * i + 6] = (int)bit_reverse((uint)x);
    out[8 * i + 7] = dot_acc_sat_4x8packed_ss_int((uint)x, 0x01ff7f80u, 1000);
}
"#;

fn rotate_ref(input: &[i32], sg: usize, delta: i32, cluster: usize) -> Vec<i32> {
    (0..input.len())
        .map(|i| {
            let base = i / sg * sg;
            let id = i - base;
            let (start, size) = (id / cluster * cluster, cluster);
            let from = start + (id - start + delta.rem_euclid(size as i32) as usize) % size;
            input[base + from]
        })
        .collect()
}

fn dot_ref(a: u32, b: u32, acc: i32) -> i32 {
    let s: i64 = (0..4)
        .map(|k| ((a >> (8 * k)) as u8 as i8 as i64) * ((b >> (8 * k)) as u8 as i8 as i64))
        .sum();
    (s + acc as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

#[test]
fn opencl_c_31_builds_only_on_31_devices_and_runs_what_it_made_core() {
    let cl = Cl::new();
    if !is_31_device() {
        let e = cl.context.try_build(CORE_31, "-cl-std=CL3.1").err();
        assert_eq!(
            e.map(|e| e.status.0),
            Some(CL_INVALID_BUILD_OPTIONS),
            "-cl-std=CL3.1 on a device without OpenCL C 3.1"
        );
        return;
    }
    let program = cl
        .context
        .try_build(CORE_31, "-cl-std=CL3.1")
        .unwrap_or_else(|e| panic!("{e}"));
    let k = program.kernel("core31");
    let sg = device_value::<usize>(device(), CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    assert!(sg >= 4, "sub-group size {sg}");
    let n = 4 * sg;
    let input: Vec<i32> = (0..n as i32)
        .map(|i| i.wrapping_mul(0x9E37_79B1u32 as i32) ^ (i << 3))
        .collect();
    let d_in = cl.buffer_from(&input);
    let d_out = cl.buffer::<i32>(8 * n);
    for delta in [1, 3, -2] {
        k.arg(0, &d_in).arg(1, &d_out).arg(2, &delta);
        // Work-groups of whole sub-groups: sub-group i holds ids i*sg...
        cl.queue.run(&k, &[n], Some(&[2 * sg]));
        let out = cl.queue.read(&d_out);
        let rot = rotate_ref(&input, sg, delta, sg);
        let crot = rotate_ref(&input, sg, delta, 4);
        let shuf = rotate_ref(&input, sg, 3, sg);
        for i in 0..n {
            let base = i / sg * sg;
            let id = i - base;
            let x = input[i];
            let want = [
                rot[i],
                crot[i],
                shuf[i],
                // shuffle_down past the end is undefined: not checked.
                if id + 1 < sg {
                    input[i + 1]
                } else {
                    out[8 * i + 3]
                },
                input[base + 2] as i8 as i32,
                ((x << (32 - 4 - 9)) >> (32 - 9)),
                (x as u32).reverse_bits() as i32,
                dot_ref(x as u32, 0x01ff_7f80, 1000),
            ];
            assert_eq!(&out[8 * i..8 * i + 8], &want, "item {i}, delta {delta}");
        }
    }
    // OpenCL C 1.2: CL_VERSION_3_1 is defined (as clang defines every
    // CL_VERSION_*) and newer than the program's language.
    let old = "#if !defined(CL_VERSION_3_1) || __OPENCL_C_VERSION__ >= CL_VERSION_3_1\n\
               #error \"version\"\n#endif\nkernel void k(global int *o) { o[0] = 1; }";
    cl.context
        .try_build(old, "")
        .unwrap_or_else(|e| panic!("{e}"));
}

/// SPIR-V 1.1 to 1.4 modules (an OpenCL 3.1 device must take them), with
/// OpGroupNonUniformRotateKHR (SPV_KHR_subgroup_rotate).
#[test]
fn spirv_11_to_14_modules_with_subgroup_rotates_run() {
    if !is_31_device() {
        return;
    }
    const ROT: &str = r#"
kernel void rot(global const int *in, global int *out, int d) {
    uint i = get_global_id(0);
    out[2 * i] = sub_group_rotate(in[i], d);
    out[2 * i + 1] = sub_group_clustered_rotate(in[i], d, 2);
}
"#;
    let cl = Cl::new();
    let sg = device_value::<usize>(device(), CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    let n = 2 * sg;
    let input: Vec<i32> = (0..n as i32).map(|i| 7 * i * i - 100).collect();
    let d_in = cl.buffer_from(&input);
    let d_out = cl.buffer::<i32>(2 * n);
    // llvm-spirv-15 writes the oldest version a module needs (1.0 here):
    // the module is assembled again for each version by SPIRV-Tools, which
    // checks it is valid SPIR-V of that version.
    let il10 = ferrocl_tests::spirv_of_tools(
        ROT,
        &["-cl-std=CL3.0"],
        &["--spirv-ext=+SPV_KHR_subgroup_rotate"],
    );
    let dir = std::env::temp_dir().join(format!("ferrocl-opencl31-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rot.spv"), &il10).unwrap();
    let tool = |args: &[&str]| {
        let out = std::process::Command::new(args[0])
            .args(&args[1..])
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", args[0]));
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    tool(&["spirv-dis", "rot.spv", "-o", "rot.spvasm"]);
    for minor in 1..=4 {
        let env = format!("spv1.{minor}");
        let file = format!("rot-1.{minor}.spv");
        tool(&["spirv-as", "--target-env", &env, "rot.spvasm", "-o", &file]);
        tool(&["spirv-val", "--target-env", &env, &file]);
        let il = std::fs::read(dir.join(&file)).unwrap();
        // The module's version word.
        let word = u32::from_le_bytes(il[4..8].try_into().unwrap());
        assert_eq!(word, 0x0001_0000 | (minor << 8), "SPIR-V 1.{minor}");
        let words: Vec<u32> = il
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // OpGroupNonUniformRotateKHR (opcode 4431) is in the module.
        assert!(
            words.iter().any(|&w| w & 0xffff == 4431),
            "no rotate in 1.{minor}"
        );
        let program = cl
            .context
            .try_build_spirv(&il, "")
            .unwrap_or_else(|e| panic!("SPIR-V 1.{minor}: {e}"));
        let k = program.kernel("rot");
        for d in [1, 5] {
            k.arg(0, &d_in).arg(1, &d_out).arg(2, &d);
            cl.queue.run(&k, &[n], Some(&[sg]));
            let out = cl.queue.read(&d_out);
            let (r, c) = (rotate_ref(&input, sg, d, sg), rotate_ref(&input, sg, d, 2));
            for i in 0..n {
                assert_eq!(
                    [out[2 * i], out[2 * i + 1]],
                    [r[i], c[i]],
                    "1.{minor} d {d} item {i}"
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

const LOCALS: &str = r#"
kernel void locals(global int *out, local int *unused, local int *tmp, local int *also_unused) {
    uint l = get_local_id(0), n = get_local_size(0);
    tmp[l] = (int)get_global_id(0) * 3;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[n - 1 - l];
}
kernel void no_locals_used(global int *out, local int *a, local float *b) {
    out[get_global_id(0)] = (int)get_global_id(0) + 5;
}
"#;

/// OpenCL 3.1: "arg_size may be zero, indicating that no local memory is
/// required for the kernel argument"; before 3.1, CL_INVALID_ARG_SIZE.
#[test]
fn zero_size_local_arguments() {
    let cl = Cl::new();
    let pnum: cl_version =
        query_value(platform_info(platform(), CL_PLATFORM_NUMERIC_VERSION)).unwrap();
    let program = cl.build(LOCALS);
    let k = program.kernel("locals");
    let set_local = |k: &ferrocl_tests::Kernel, i: u32, size: usize| {
        // SAFETY: a valid kernel; NULL value for a __local argument.
        unsafe { clSetKernelArg(k.raw(), i, size, std::ptr::null::<c_void>()) }
    };
    if pnum < version(3, 1) {
        expect_error(
            set_local(&k, 1, 0),
            CL_INVALID_ARG_SIZE,
            "size 0 before 3.1",
        );
        return;
    }
    let (n, wg) = (256usize, 64usize);
    let out = cl.buffer::<i32>(n);
    k.arg(0, &out);
    assert_eq!(set_local(&k, 1, 0), CL_SUCCESS);
    assert_eq!(set_local(&k, 2, wg * 4), CL_SUCCESS);
    assert_eq!(set_local(&k, 3, 0), CL_SUCCESS);
    let mut lm: cl_ulong = 0;
    // SAFETY: a valid kernel and device; a cl_ulong result.
    let r = unsafe {
        clGetKernelWorkGroupInfo(
            k.raw(),
            device(),
            CL_KERNEL_LOCAL_MEM_SIZE,
            size_of::<cl_ulong>(),
            (&mut lm as *mut cl_ulong).cast(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, CL_SUCCESS);
    assert!(lm >= (wg * 4) as u64, "CL_KERNEL_LOCAL_MEM_SIZE {lm}");
    cl.queue.run(&k, &[n], Some(&[wg]));
    let want: Vec<i32> = (0..n)
        .map(|g| ((g / wg * wg + wg - 1 - g % wg) * 3) as i32)
        .collect();
    assert_eq!(cl.queue.read(&out), want);
    // Every __local argument of zero size.
    let k2 = program.kernel("no_locals_used");
    k2.arg(0, &out);
    assert_eq!(set_local(&k2, 1, 0), CL_SUCCESS);
    assert_eq!(set_local(&k2, 2, 0), CL_SUCCESS);
    cl.queue.run(&k2, &[n], Some(&[wg]));
    let want: Vec<i32> = (0..n as i32).map(|g| g + 5).collect();
    assert_eq!(cl.queue.read(&out), want);
    // A value for a __local argument is still an error.
    let x = 0i32;
    // SAFETY: a valid kernel and a readable value.
    let r = unsafe { clSetKernelArg(k.raw(), 1, 0, (&x as *const i32).cast()) };
    expect_error(
        r,
        CL_INVALID_ARG_VALUE,
        "non-NULL value of a __local argument",
    );
}

/// OpenCL 3.1's core clGetKernelSuggestedLocalWorkSize: the ICD's slot of
/// the dispatch table (what a 3.1 loader calls) answers as the
/// cl_khr_suggested_local_work_size function does.
#[test]
fn core_suggested_local_work_size_is_in_the_dispatch_table() {
    if !is_31_device() || ferrocl_tests::testing_pocl() {
        return;
    }
    let cl = Cl::new();
    let program = cl.build("kernel void k(global int *o) { o[get_global_id(0)] = 1; }");
    let k = program.kernel("k");
    let out = cl.buffer::<i32>(1000);
    k.arg(0, &out);
    // SAFETY: an ICD handle starts with its dispatch table pointer
    // (cl_khr_icd).
    let table = unsafe { *(k.raw() as *const *const cl_icd_dispatch) };
    // SAFETY: ferrocl's table, which lives as long as the library.
    let core = unsafe { (*table).clGetKernelSuggestedLocalWorkSize }
        .expect("clGetKernelSuggestedLocalWorkSize in the dispatch table");
    let name = c"clGetKernelSuggestedLocalWorkSizeKHR";
    // SAFETY: a platform of the loader and a NUL-terminated name.
    let khr = unsafe { clGetExtensionFunctionAddressForPlatform(platform(), name.as_ptr()) };
    assert!(!khr.is_null());
    type SuggestFn = unsafe extern "C" fn(
        cl_command_queue,
        cl_kernel,
        cl_uint,
        *const usize,
        *const usize,
        *mut usize,
    ) -> cl_int;
    // SAFETY: the extension's signature, the core function's.
    let khr = unsafe { std::mem::transmute::<*mut c_void, SuggestFn>(khr) };
    for global in [[1000usize, 1, 1], [64, 8, 1], [6, 10, 14]] {
        let dims = if global[2] > 1 {
            3
        } else if global[1] > 1 {
            2
        } else {
            1
        };
        let (mut a, mut b) = ([0usize; 3], [0usize; 3]);
        // SAFETY: arrays of 3 entries, valid queue and kernel.
        let (ra, rb) = unsafe {
            (
                core(
                    cl.queue.raw(),
                    k.raw(),
                    dims,
                    std::ptr::null(),
                    global.as_ptr(),
                    a.as_mut_ptr(),
                ),
                khr(
                    cl.queue.raw(),
                    k.raw(),
                    dims,
                    std::ptr::null(),
                    global.as_ptr(),
                    b.as_mut_ptr(),
                ),
            )
        };
        assert_eq!((ra, rb), (CL_SUCCESS, CL_SUCCESS));
        assert_eq!(a, b, "global {global:?}");
        assert!(
            (0..dims as usize).all(|d| a[d] > 0 && global[d] % a[d] == 0),
            "{a:?}"
        );
    }
    // Its errors are the extension's.
    let mut l = [0usize; 3];
    // SAFETY: as above, with work_dim 0.
    let r = unsafe {
        core(
            cl.queue.raw(),
            k.raw(),
            0,
            std::ptr::null(),
            [1usize].as_ptr(),
            l.as_mut_ptr(),
        )
    };
    expect_error(r, CL_INVALID_WORK_DIMENSION, "work_dim 0");
}

/// Non-uniform work-groups: "Unless a kernel comes from a source that
/// disallows it, e.g. OpenCL C 1.x or using -cl-uniform-work-group-size"
/// (OpenCL 3.0 API §3.2.1). A program built with `-cl-std=CL3.1` (what the
/// CTS passes on a 3.1 device) and one created from SPIR-V take a global
/// size of 100 in groups of 32, the last of 4 work-items; OpenCL C 1.2
/// (no -cl-std) and SPIR-V built with -cl-uniform-work-group-size refuse
/// it with CL_INVALID_WORK_GROUP_SIZE.
#[test]
fn non_uniform_work_groups_under_cl31_and_from_il() {
    const SRC: &str = "kernel void ls(global uint* o) { o[get_global_id(0)] = get_local_size(0); }";
    let cl = Cl::new();
    let want: Vec<u32> = (0..100).map(|i| if i < 96 { 32 } else { 4 }).collect();
    let run = |program: &ferrocl_tests::Program| {
        let k = program.kernel("ls");
        let out = cl.buffer::<u32>(100);
        k.arg(0, &out);
        cl.queue
            .try_enqueue(&k, None, &[100], Some(&[32]))
            .map(|()| cl.queue.read(&out))
    };
    if is_31_device() {
        let p = cl.try_build(SRC, "-cl-std=CL3.1").expect("-cl-std=CL3.1");
        assert_eq!(run(&p).expect("-cl-std=CL3.1"), want, "-cl-std=CL3.1");
    }
    let p = cl.build(SRC);
    expect_error(
        run(&p).expect_err("OpenCL C 1.2 refuses").0,
        CL_INVALID_WORK_GROUP_SIZE,
        "OpenCL C 1.2",
    );
    // PoCL 3.1 takes no SPIR-V here.
    if ferrocl_tests::testing_pocl() {
        return;
    }
    let il = ferrocl_tests::spirv_of_with(SRC, None, &["-cl-std=CL3.0"]);
    let p = cl.try_build_spirv(&il, "").expect("IL");
    assert_eq!(run(&p).expect("IL"), want, "IL");
    let p = cl
        .try_build_spirv(&il, "-cl-uniform-work-group-size")
        .expect("IL, uniform");
    expect_error(
        run(&p).expect_err("uniform groups refuse").0,
        CL_INVALID_WORK_GROUP_SIZE,
        "IL with -cl-uniform-work-group-size",
    );
}
