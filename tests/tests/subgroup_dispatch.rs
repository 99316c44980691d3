//! SPIR-V's SubgroupDispatch capability through the ICD loader (the OpenCL
//! SPIR-V environment requires it of a device with sub-groups and SPIR-V
//! 1.1+): CL_DEVICE_SPIRV_CAPABILITIES_KHR lists it exactly when the device
//! has sub-groups; a kernel with SubgroupsPerWorkgroup 2 and SubgroupSize
//! S runs with two sub-groups per work-group (seen by the kernel's own
//! NumSubgroups), and the local sizes that would not give two are refused;
//! SubgroupsPerWorkgroupId is read from its constant;
//! OpGetKernelLocalSizeForSubgroupCount and OpGetKernelMaxNumSubgroups
//! give the values computed here from S and CL_DEVICE_MAX_NUM_SUB_GROUPS;
//! clGetKernelSubGroupInfo's CL_KERNEL_COMPILE_NUM_SUB_GROUPS & co. agree
//! with the modes; a SubgroupSize other than S, a count the device cannot
//! have and a count contradicting LocalSize fail the build with a log.
//! The module: `subgroup_dispatch.spvasm`, assembled by spirv-as.

use std::process::Command;
use std::ptr;

use ferrocl_tests::info::{device_info, query};
use ferrocl_tests::sys::*;
use ferrocl_tests::{device_value, expect_error, Cl, Kernel, Program};

const MODULE: &str = include_str!("subgroup_dispatch.spvasm");

/// CL_DEVICE_SPIRV_CAPABILITIES_KHR (cl_khr_spirv_queries).
const CL_DEVICE_SPIRV_CAPABILITIES_KHR: cl_device_info = 0x12B3;
/// SPIR-V's Capability SubgroupDispatch.
const SUBGROUP_DISPATCH: cl_uint = 58;

fn max_num_sub_groups(cl: &Cl) -> usize {
    device_value::<cl_uint>(cl.device(), CL_DEVICE_MAX_NUM_SUB_GROUPS) as usize
}

/// `MODULE` with its placeholders filled, assembled as SPIR-V 1.2.
fn assemble(s: usize, extra_modes: &str) -> Vec<u8> {
    assemble_text(
        &MODULE
            .replace("{S}", &s.to_string())
            .replace("{EXTRA_MODES}", extra_modes),
    )
}

/// `assemble`'s module with an OpenCL.std `sin` call in `fixed`, so that
/// the build links libclc's math through LLVM IR (`frontend::il_math`),
/// which loses the SubgroupDispatch modes unless they are put back.
fn assemble_with_math(s: usize, extra_modes: &str) -> Vec<u8> {
    let text = MODULE
        .replace("{S}", &s.to_string())
        .replace("{EXTRA_MODES}", extra_modes)
        .replace(
            "OpMemoryModel",
            "%std = OpExtInstImport \"OpenCL.std\"\nOpMemoryModel",
        )
        .replace(
            "%void = OpTypeVoid",
            "%void = OpTypeVoid\n%float = OpTypeFloat 32\n%f_half = OpConstant %float 0.5",
        )
        .replace(
            "%wg32 = OpUConvert %uint %wg",
            "%wg32 = OpUConvert %uint %wg\n%sin = OpExtInst %float %std sin %f_half",
        );
    assert!(text.contains("OpExtInst %float"));
    assemble_text(&text)
}

fn assemble_text(text: &str) -> Vec<u8> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ferrocl-sgd-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.spvasm"), text).unwrap();
    let out = Command::new("spirv-as")
        .args(["--target-env", "spv1.2", "k.spvasm", "-o", "k.spv"])
        .current_dir(&dir)
        .output()
        .expect("spirv-as");
    assert!(
        out.status.success(),
        "spirv-as: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let il = std::fs::read(dir.join("k.spv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    il
}

/// clGetKernelSubGroupInfo of one size_t, with `input` (none when empty).
fn sub_group_info(k: &Kernel, cl: &Cl, param: cl_kernel_sub_group_info, input: &[usize]) -> usize {
    let mut out = 0usize;
    // SAFETY: `input` is readable for its size; one size_t of output.
    let status = unsafe {
        ferrocl_tests::info::kernel_sub_group_info_fn(cl.device())(
            k.raw(),
            cl.device(),
            param,
            size_of_val(input),
            if input.is_empty() {
                ptr::null()
            } else {
                input.as_ptr().cast()
            },
            size_of::<usize>(),
            (&mut out as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, CL_SUCCESS, "clGetKernelSubGroupInfo({param:#x})");
    out
}

fn work_group_size(k: &Kernel, cl: &Cl) -> usize {
    let mut wg = 0usize;
    // SAFETY: one size_t out.
    let status = unsafe {
        clGetKernelWorkGroupInfo(
            k.raw(),
            cl.device(),
            CL_KERNEL_WORK_GROUP_SIZE,
            size_of::<usize>(),
            (&mut wg as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    wg
}

/// The device's sub-group size as a kernel sees it (the largest sub-group
/// of a big work-group).
fn device_sub_group_size(cl: &Cl) -> usize {
    let k = cl
        .context
        .try_build(
            "kernel void s(global uint *o) { o[get_global_id(0)] = get_max_sub_group_size(); }",
            "-cl-std=CL3.0",
        )
        .expect("sub-group size probe")
        .kernel("s");
    let n = 256;
    let out = cl.buffer::<u32>(n);
    k.arg(0, &out);
    cl.queue.run(&k, &[n], Some(&[n]));
    cl.queue.read(&out)[0] as usize
}

/// The device has sub-groups (else nothing here applies).
fn sub_groups(cl: &Cl) -> bool {
    max_num_sub_groups(cl) > 0
}

fn build(cl: &Cl, s: usize, extra_modes: &str) -> Program {
    cl.context
        .try_build_spirv(&assemble(s, extra_modes), "")
        .unwrap_or_else(|e| panic!("SubgroupDispatch module: {e}"))
}

#[test]
fn capability_reported_with_sub_groups() {
    let cl = Cl::new();
    let Ok(caps) = query::<cl_uint>(device_info(cl.device(), CL_DEVICE_SPIRV_CAPABILITIES_KHR))
    else {
        return;
    };
    assert_eq!(
        caps.contains(&SUBGROUP_DISPATCH),
        sub_groups(&cl),
        "SubgroupDispatch in {caps:?} vs CL_DEVICE_MAX_NUM_SUB_GROUPS {}",
        max_num_sub_groups(&cl)
    );
}

#[test]
fn subgroups_per_workgroup_runs_and_is_enforced() {
    let cl = Cl::new();
    if !sub_groups(&cl) {
        return;
    }
    let s = device_sub_group_size(&cl);
    // Through libclc's math too: the modes survive the round trip.
    let with_math = cl
        .context
        .try_build_spirv(&assemble_with_math(s, ""), "")
        .unwrap_or_else(|e| panic!("SubgroupDispatch module with math: {e}"));
    let k = with_math.kernel("fixed");
    assert_eq!(
        sub_group_info(&k, &cl, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[]),
        2
    );
    assert_eq!(work_group_size(&k, &cl), 2 * s);
    let p = build(&cl, s, "");
    let k = p.kernel("fixed");
    // The host queries follow the mode.
    assert_eq!(
        sub_group_info(&k, &cl, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[]),
        2
    );
    assert_eq!(
        sub_group_info(&k, &cl, CL_KERNEL_MAX_NUM_SUB_GROUPS, &[]),
        2
    );
    assert_eq!(work_group_size(&k, &cl), 2 * s);
    for (count, size) in [(1, 0), (2, 2 * s), (3, 0)] {
        assert_eq!(
            sub_group_info(&k, &cl, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, &[count]),
            size,
            "CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT {count}"
        );
    }
    assert_eq!(
        sub_group_info(&k, &cl, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &[2 * s]),
        2
    );
    let blk = p.kernel("blk");
    assert_eq!(
        sub_group_info(&blk, &cl, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[]),
        3
    );
    let query = p.kernel("query");
    assert_eq!(
        sub_group_info(&query, &cl, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[]),
        0
    );

    // Launches: a NULL local size and every local size with two
    // sub-groups run with two; the kernel sees them.
    let n = 8 * s;
    let out = cl.buffer::<u32>(3 * n);
    k.arg(0, &out);
    for local in [None, Some(2 * s), Some(s + 1)] {
        let l = local.map(|l| [l]);
        cl.queue.run(&k, &[n], l.as_ref().map(|l| &l[..]));
        let v = cl.queue.read(&out);
        let enqueued = local.unwrap_or(2 * s);
        for i in 0..n {
            let group_size = enqueued.min(n - i / enqueued * enqueued);
            assert_eq!(
                [v[3 * i], v[3 * i + 1], v[3 * i + 2]],
                [group_size.div_ceil(s) as u32, s as u32, group_size as u32],
                "local {local:?}, item {i}: NumSubgroups, SubgroupMaxSize, local size"
            );
        }
    }
    // Local sizes with one or three sub-groups are refused.
    for local in [s, 2 * s + 1] {
        let r = cl.queue.try_enqueue(&k, None, &[n], Some(&[local]));
        expect_error(
            r.err().map_or(CL_SUCCESS, |e| e.0),
            CL_INVALID_WORK_GROUP_SIZE,
            &format!("local size {local} for SubgroupsPerWorkgroup 2"),
        );
    }
}

#[test]
fn kernel_sub_group_queries_in_the_kernel() {
    let cl = Cl::new();
    if !sub_groups(&cl) {
        return;
    }
    let s = device_sub_group_size(&cl);
    let max = max_num_sub_groups(&cl);
    let p = build(&cl, s, "");
    let k = p.kernel("query");
    let counts: Vec<u32> = [
        0,
        1,
        2,
        3,
        4,
        max - 1,
        max,
        max + 1,
        1 << 31,
        u32::MAX as usize,
    ]
    .iter()
    .map(|&c| c as u32)
    .collect();
    let d_counts = cl.buffer_from(&counts);
    let out = cl.buffer::<u32>(4 * counts.len());
    k.arg(0, &out).arg(1, &d_counts);
    cl.queue.run(&k, &[counts.len()], None);
    let v = cl.queue.read(&out);
    for (i, &c) in counts.iter().enumerate() {
        let c = c as usize;
        // %inv has no modes: count × S for 1 ≤ count ≤ the device's
        // maximum; %blk has SubgroupsPerWorkgroupId 3: 3 × S for 3 only.
        let inv = if (1..=max).contains(&c) { c * s } else { 0 };
        let blk = if c == 3 { 3 * s } else { 0 };
        assert_eq!(
            v[4 * i..4 * i + 4],
            [inv as u32, blk as u32, max as u32, 3],
            "count {c}: local sizes (no modes, SubgroupsPerWorkgroupId 3), max counts"
        );
    }
}

#[test]
fn impossible_modes_fail_the_build() {
    let cl = Cl::new();
    if !sub_groups(&cl) {
        return;
    }
    let s = device_sub_group_size(&cl);
    let max = max_num_sub_groups(&cl);
    let cases = [
        // Another sub-group size.
        (
            "OpExecutionMode %query SubgroupSize {2S}".replace("{2S}", &(2 * s).to_string()),
            "SubgroupSize",
        ),
        // More sub-groups than a work-group can have.
        (
            format!("OpExecutionMode %query SubgroupsPerWorkgroup {}", max + 1),
            "SubgroupsPerWorkgroup",
        ),
        // 2 sub-groups but a LocalSize of one sub-group's work-items.
        (
            format!("OpExecutionMode %fixed LocalSize {s} 1 1"),
            "LocalSize",
        ),
    ];
    for (modes, word) in cases {
        // Straight, and through libclc's math.
        for il in [assemble(s, &modes), assemble_with_math(s, &modes)] {
            let err = match cl.context.try_build_spirv(&il, "") {
                Ok(_) => panic!("{modes}: built"),
                Err(e) => e,
            };
            assert_eq!(err.status.0, CL_BUILD_PROGRAM_FAILURE, "{modes}");
            assert!(err.log.contains(word), "{modes}: log {}", err.log);
        }
    }
}
