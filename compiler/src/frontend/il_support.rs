//! What clCreateProgramWithIL takes (cl_khr_spirv_queries): the extended
//! instruction sets, SPIR-V extensions and capabilities of OpenCL (Kernel)
//! modules that the compiler implements on a device. The runtime reports
//! these lists (CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR,
//! CL_DEVICE_SPIRV_EXTENSIONS_KHR, CL_DEVICE_SPIRV_CAPABILITIES_KHR) and
//! `check_il_intake` rejects a module that declares an extension or
//! imports an instruction set outside them, so the query and the intake
//! cannot disagree.
//!
//! * Instruction sets: OpenCL.std (`passes::lower::ext_inst`) and the
//!   debug-information sets, whose instructions `strip_debug_ext_insts`
//!   drops.
//! * Extensions: each with the pass that implements it (below).
//! * Capabilities: those of the OpenCL C features the device reports,
//!   as llvm-spirv-15 declares them, plus the extensions' own.
//!   Capabilities are not checked at intake: a module may declare one it
//!   does not use, and an instruction the lowering cannot handle is
//!   reported by it (`passes::lower`) with its name.
//!
//! Gaps: Pipes and DeviceEnqueue are not implemented and not listed.

use rspirv::spirv::Capability;

use crate::caps::{
    DeviceCaps, SUBGROUP_ARITHMETIC, SUBGROUP_BALLOT, SUBGROUP_CLUSTERED, SUBGROUP_SHUFFLE,
    SUBGROUP_SHUFFLE_RELATIVE, SUBGROUP_VOTE,
};

/// The extended instruction sets an IL module may import.
pub const EXT_INST_SETS: [&str; 3] = [
    "OpenCL.std",
    "OpenCL.DebugInfo.100",
    "NonSemantic.Shader.DebugInfo.100",
];

/// The SPIR-V extensions an IL module may declare on this device.
pub fn spirv_extensions(caps: &DeviceCaps) -> Vec<&'static str> {
    let mut e = vec![
        // `passes::lower::dot_product`.
        "SPV_KHR_integer_dot_product",
        // `passes::lower::bit_field`.
        "SPV_KHR_bit_instructions",
        // OpExpectKHR / OpAssumeTrueKHR: `passes::lower` drops the hints.
        "SPV_KHR_expect_assume",
    ];
    let (device, sub_group) = caps.kernel_clock_scopes();
    if device || sub_group {
        // `passes::lower::clock`.
        e.push("SPV_KHR_shader_clock");
    }
    if caps.has_subgroup_ops(SUBGROUP_SHUFFLE) {
        // OpGroupNonUniformRotateKHR as a shuffle (`passes::lower::subgroup`).
        e.push("SPV_KHR_subgroup_rotate");
    }
    if caps.fp_atomic_caps(32) != 0 {
        // cl_ext_float_atomics: OpAtomicFAddEXT, OpAtomicFMinEXT and
        // OpAtomicFMaxEXT, native or compare-exchange loops
        // (`passes::lower::atomic::float`), as the source path's
        // llvm-spirv writes them.
        e.extend([
            "SPV_EXT_shader_atomic_float_add",
            "SPV_EXT_shader_atomic_float_min_max",
        ]);
    }
    e
}

/// The SPIR-V capabilities of the OpenCL C features this device supports.
pub fn spirv_capabilities(caps: &DeviceCaps) -> Vec<Capability> {
    use Capability as C;
    let mut c = vec![
        C::Addresses,
        C::Linkage,
        C::Kernel,
        C::Vector16,
        C::Float16Buffer,
        C::Int8,
        C::Int16,
        C::Int64,
        C::DotProduct,
        C::DotProductInput4x8Bit,
        C::DotProductInput4x8BitPacked,
        C::BitInstructions,
        C::ExpectAssumeKHR,
        // The generic address space (every device reports
        // CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT): Generic pointers and
        // their casts (`passes::lower`; tests/tests/generic_address_space.rs
        // il_with_generic_storage_class).
        C::GenericPointer,
    ];
    if caps.fp16 {
        c.push(C::Float16);
    }
    if caps.fp64 {
        c.push(C::Float64);
    }
    if caps.int64_atomics {
        c.push(C::Int64Atomics);
    }
    if caps.images {
        c.extend([
            C::ImageBasic,
            C::LiteralSampler,
            C::Sampled1D,
            C::Image1D,
            C::SampledBuffer,
            C::ImageBuffer,
        ]);
        if caps.read_write_images {
            c.push(C::ImageReadWrite);
        }
    }
    if caps.subgroups() || caps.work_group_collectives() {
        // cl_khr_subgroups' functions are OpGroup* at Subgroup scope, the
        // work-group collectives at Workgroup scope.
        c.push(C::Groups);
    }
    if caps.subgroups() && caps.max_num_sub_groups > 0 {
        // The SubgroupSize / SubgroupsPerWorkgroup(Id) execution modes and
        // OpGetKernelMaxNumSubgroups / OpGetKernelLocalSizeForSubgroupCount
        // (`passes::lower::subgroup_dispatch`).
        c.push(C::SubgroupDispatch);
    }
    if caps.subgroups() {
        c.push(C::GroupNonUniform);
        for (bits, cap) in [
            (SUBGROUP_VOTE, C::GroupNonUniformVote),
            (SUBGROUP_BALLOT, C::GroupNonUniformBallot),
            (SUBGROUP_SHUFFLE, C::GroupNonUniformShuffle),
            (SUBGROUP_SHUFFLE, C::GroupNonUniformRotateKHR),
            (SUBGROUP_SHUFFLE_RELATIVE, C::GroupNonUniformShuffleRelative),
            (SUBGROUP_ARITHMETIC, C::GroupNonUniformArithmetic),
            (
                SUBGROUP_ARITHMETIC | SUBGROUP_CLUSTERED,
                C::GroupNonUniformClustered,
            ),
        ] {
            if caps.has_subgroup_ops(bits) {
                c.push(cap);
            }
        }
    }
    let (device, sub_group) = caps.kernel_clock_scopes();
    if device || sub_group {
        c.push(C::ShaderClockKHR);
    }
    // cl_ext_float_atomics per width (`DeviceCaps::fp_atomic_caps`). Not
    // half: its atomics are OpenCL C builtins of ferrocl's library
    // (`frontend::libclc`, `half_atomics.cl`), and the AtomicFloat16*EXT
    // capabilities are not reported.
    if caps.fp_atomic_caps(32) != 0 {
        c.extend([C::AtomicFloat32AddEXT, C::AtomicFloat32MinMaxEXT]);
    }
    if caps.fp_atomic_caps(64) != 0 {
        c.extend([C::AtomicFloat64AddEXT, C::AtomicFloat64MinMaxEXT]);
    }
    c
}

/// `spirv_capabilities` as SPIR-V enumerant values (CL_DEVICE_SPIRV_CAPABILITIES_KHR).
pub fn spirv_capability_values(caps: &DeviceCaps) -> Vec<u32> {
    spirv_capabilities(caps)
        .into_iter()
        .map(|c| c as u32)
        .collect()
}

/// Checks an IL module's OpExtension and OpExtInstImport instructions
/// against `spirv_extensions` and `EXT_INST_SETS`: the message names the
/// first one outside them.
pub fn check_il_intake(words: &[u32], caps: &DeviceCaps) -> Result<(), String> {
    const EXTENSION: u32 = 10;
    const EXT_INST_IMPORT: u32 = 11;
    const FUNCTION: u32 = 54;
    let extensions = spirv_extensions(caps);
    let mut i = 5;
    while i < words.len() {
        let (op, count) = (words[i] & 0xffff, (words[i] >> 16) as usize);
        if count == 0 || i + count > words.len() || op == FUNCTION {
            break;
        }
        let string = |from: usize| -> String {
            let bytes: Vec<u8> = words[i + from..i + count]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        if op == EXTENSION {
            let name = string(1);
            if !extensions.contains(&name.as_str()) {
                return Err(format!(
                    "the SPIR-V extension {name} is not supported by the device \
                     (CL_DEVICE_SPIRV_EXTENSIONS_KHR)"
                ));
            }
        }
        if op == EXT_INST_IMPORT {
            let name = string(2);
            if !EXT_INST_SETS.contains(&name.as_str()) {
                return Err(format!(
                    "the extended instruction set {name} is not supported by the device \
                     (CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR)"
                ));
            }
        }
        i += count;
    }
    Ok(())
}
