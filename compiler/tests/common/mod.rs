//! Shared by the compiler's integration tests.

use std::path::PathBuf;
use std::process::Command;

use ferrocl_compiler::{Addressing, DeviceCaps, Kernel};

/// The test device: physical addressing, 128 bytes of push constants (as
/// lavapipe), fp64 and 64-bit atomics, 32-wide sub-groups with
/// cl_khr_subgroups (32 of them in a work-group), images with read_write images, fused `fma`. Each test
/// file adjusts what it is about (`DeviceCaps { .., ..test_caps() }`).
pub fn test_caps() -> DeviceCaps {
    DeviceCaps {
        addressing: Addressing::Physical,
        max_push_constant_size: 128,
        fp64: true,
        fp16: true,
        int64_atomics: true,
        subgroup_size: 32,
        spirv_version: (1, 5),
        images: true,
        read_write_images: true,
        depth_images: true,
        mipmap_image: true,
        mipmap_image_write_args: 8,
        image2d_from_buffer_args: 0,
        fused_fma64: true,
        fused_fma32: true,
        denorms32: false,
        preserve_denorms: Default::default(),
        preserve_inf_nan: Default::default(),
        rmw_ordering: false,
        vulkan_memory_model: false,
        loop_limiter: false,
        soft_int64_division: false,
        wide_narrow_arithmetic: false,
        soft_long_sign_extension: false,
        branch_loop_exits: false,
        split_bitcasts_to_16bit: false,
        inline_functions: false,
        spill_loop_live_outs: false,
        integer_bool_phis: false,
        branch_buffer_selects: false,
        integer_dot_product: false,
        device_clock: false,
        subgroup_clock: false,
        max_num_sub_groups: 32,
        float_atomics: 0,
        khr_subgroups: true,
        subgroup_ops: 0x7f,
        descriptor: Default::default(),
    }
}

/// `$env`, else `default`: the path of an external tool.
#[allow(dead_code)]
pub fn tool(env: &str, default: &str) -> String {
    std::env::var(env).unwrap_or_else(|_| default.to_string())
}

/// `k`'s module as `<tag>-<kernel>-<n>.spv` in this process's scratch
/// directory (`n` unique: tests run in parallel threads).
#[allow(dead_code)]
pub fn write_spv(k: &Kernel, tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ferrocl-compiler-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{tag}-{}-{n}.spv", k.name));
    let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&f, bytes).unwrap();
    f
}

/// Asserts that `k`'s module passes spirv-val with the Vulkan 1.2
/// environment (`$FERROCL_SPIRV_VAL`, else /usr/bin/spirv-val).
#[allow(dead_code)]
pub fn spirv_val(k: &Kernel, tag: &str) {
    let f = write_spv(k, tag);
    spirv_val_file(&f, &format!("{tag}/{}", k.name));
    let _ = std::fs::remove_file(&f);
}

/// Asserts that the module in `file` passes spirv-val with the Vulkan 1.2
/// environment; `what` names it in the failure.
#[allow(dead_code)]
pub fn spirv_val_file(file: &std::path::Path, what: &str) {
    let out = Command::new(tool("FERROCL_SPIRV_VAL", "/usr/bin/spirv-val"))
        .args(["--target-env", "vulkan1.2"])
        .arg(file)
        .output()
        .expect("spirv-val runs");
    assert!(
        out.status.success(),
        "{what}: spirv-val failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `k`'s module disassembled (`$FERROCL_SPIRV_DIS`, else
/// /usr/bin/spirv-dis), without header or colour.
#[allow(dead_code)]
pub fn disassemble(k: &Kernel, tag: &str) -> String {
    let f = write_spv(k, tag);
    let out = Command::new(tool("FERROCL_SPIRV_DIS", "/usr/bin/spirv-dis"))
        .args(["--no-header", "--no-color"])
        .arg(&f)
        .output()
        .expect("spirv-dis runs");
    let _ = std::fs::remove_file(&f);
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The merge block ids (`%N`) of the loops of `text`, a disassembly.
#[allow(dead_code)]
pub fn loop_merge_blocks(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("OpLoopMerge "))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect()
}

/// `source` → OpenCL SPIR-V, as an application makes it (clang-15 -O2,
/// llvm-spirv-15); `tag` names the scratch directory.
#[allow(dead_code)]
pub fn il_of(source: &str, tag: &str) -> Vec<u8> {
    let d = std::env::temp_dir().join(format!("ferrocl-il-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("a.cl"), source).unwrap();
    let st = Command::new("clang-15")
        .args(["-cc1", "-triple", "spir64", "-no-opaque-pointers"])
        .args(["-finclude-default-header", "-O2", "-emit-llvm-bc"])
        .args(["-o", "a.bc", "a.cl"])
        .current_dir(&d)
        .status()
        .unwrap();
    assert!(st.success());
    let st = Command::new("llvm-spirv-15")
        .args(["a.bc", "-o", "a.spv"])
        .current_dir(&d)
        .status()
        .unwrap();
    assert!(st.success());
    let il = std::fs::read(d.join("a.spv")).unwrap();
    let _ = std::fs::remove_dir_all(&d);
    il
}
