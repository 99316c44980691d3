//! Shared by the compiler's integration tests.

use ferrocl_compiler::{Addressing, DeviceCaps, Kernel};

/// The test device: physical addressing, 128 bytes of push constants (as
/// lavapipe), fp64 and 64-bit atomics, 32-wide sub-groups with
/// cl_khr_subgroups, images with read_write images, fused `fma`. Each test
/// file adjusts what it is about (`DeviceCaps { .., ..test_caps() }`).
pub fn test_caps() -> DeviceCaps {
    DeviceCaps {
        addressing: Addressing::Physical,
        max_push_constant_size: 128,
        fp64: true,
        fp16: false,
        int64_atomics: true,
        subgroup_size: 32,
        spirv_version: (1, 5),
        images: true,
        read_write_images: true,
        fused_fma64: true,
        fused_fma32: true,
        denorms32: false,
        preserve_denorms: Default::default(),
        preserve_inf_nan: Default::default(),
        rmw_ordering: false,
        vulkan_memory_model: false,
        khr_subgroups: true,
        subgroup_ops: 0x7f,
        descriptor: Default::default(),
    }
}

/// Runs spirv-val (`$FERROCL_SPIRV_VAL`, else `spirv-val`) on `k`'s module
/// with the Vulkan 1.2 environment, written to a scratch file named by
/// `tag`; returns the file (removed by the caller when it is done with it).
#[allow(dead_code)]
pub fn spirv_val(k: &Kernel, tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrocl-val-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{}.spv", k.name));
    let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&f, bytes).unwrap();
    let out = std::process::Command::new(
        std::env::var("FERROCL_SPIRV_VAL").unwrap_or_else(|_| "spirv-val".into()),
    )
    .args(["--target-env", "vulkan1.2"])
    .arg(&f)
    .output()
    .expect("spirv-val runs");
    assert!(
        out.status.success(),
        "{tag}/{}: spirv-val failed:\n{}{}",
        k.name,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    f
}
