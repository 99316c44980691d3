//! Shared by the compiler's integration tests.

use ferrocl_compiler::{Addressing, DeviceCaps};

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
