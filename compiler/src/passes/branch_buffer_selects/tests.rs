//! `branch_buffer_selects` on the shape `lower::descriptor` gives an
//! access through a pointer chosen among three bindings at run time (a
//! select of a select), beside a `__local` atomic: no pointer select and
//! no VariablePointersStorageBuffer are left, each access is a call of a
//! helper that branches to direct accesses of the three views (one helper
//! per access shape), and the module passes spirv-val.

use rspirv::binary::{Assemble, Disassemble};
use rspirv::dr::{load_words, Module, Operand};
use rspirv::spirv::{Capability, Op};

use super::branch_buffer_selects;

const MODULE: &str = "OpCapability Shader\n\
     OpCapability VariablePointersStorageBuffer\n\
     OpMemoryModel Logical GLSL450\n\
     OpEntryPoint GLCompute %main \"main\" %wg %v0 %v1 %v2 %shared\n\
     OpExecutionMode %main LocalSize 1 1 1\n\
     OpDecorate %wg BuiltIn WorkgroupId\n\
     OpDecorate %rt ArrayStride 4\n\
     OpDecorate %st Block\n\
     OpMemberDecorate %st 0 Offset 0\n\
     OpDecorate %v0 DescriptorSet 0\n\
     OpDecorate %v0 Binding 0\n\
     OpDecorate %v1 DescriptorSet 0\n\
     OpDecorate %v1 Binding 1\n\
     OpDecorate %v2 DescriptorSet 0\n\
     OpDecorate %v2 Binding 2\n\
     %void = OpTypeVoid\n\
     %bool = OpTypeBool\n\
     %uint = OpTypeInt 32 0\n\
     %v3uint = OpTypeVector %uint 3\n\
     %pin = OpTypePointer Input %v3uint\n\
     %wg = OpVariable %pin Input\n\
     %rt = OpTypeRuntimeArray %uint\n\
     %st = OpTypeStruct %rt\n\
     %psb = OpTypePointer StorageBuffer %st\n\
     %pu = OpTypePointer StorageBuffer %uint\n\
     %v0 = OpVariable %psb StorageBuffer\n\
     %v1 = OpVariable %psb StorageBuffer\n\
     %v2 = OpVariable %psb StorageBuffer\n\
     %uint_0 = OpConstant %uint 0\n\
     %uint_1 = OpConstant %uint 1\n\
     %uint_2 = OpConstant %uint 2\n\
     %uint_4 = OpConstant %uint 4\n\
     %arr = OpTypeArray %uint %uint_4\n\
     %pwa = OpTypePointer Workgroup %arr\n\
     %pwu = OpTypePointer Workgroup %uint\n\
     %shared = OpVariable %pwa Workgroup\n\
     %fn = OpTypeFunction %void\n\
     %main = OpFunction %void None %fn\n\
     %entry = OpLabel\n\
     %id = OpLoad %v3uint %wg\n\
     %slot = OpCompositeExtract %uint %id 0\n\
     %i = OpCompositeExtract %uint %id 1\n\
     %is1 = OpIEqual %bool %slot %uint_1\n\
     %is2 = OpIEqual %bool %slot %uint_2\n\
     %s21 = OpSelect %psb %is2 %v2 %v0\n\
     %s = OpSelect %psb %is1 %v1 %s21\n\
     %p = OpAccessChain %pu %s %uint_0 %i\n\
     %x = OpLoad %uint %p\n\
     %t21 = OpSelect %psb %is2 %v2 %v0\n\
     %t = OpSelect %psb %is1 %v1 %t21\n\
     %q = OpAccessChain %pu %t %uint_0 %x\n\
     %y = OpLoad %uint %q\n\
     %old = OpAtomicIAdd %uint %q %uint_1 %uint_0 %y\n\
     OpStore %p %old\n\
     %w = OpAccessChain %pwu %shared %uint_1\n\
     %z = OpAtomicIAdd %uint %w %uint_2 %uint_0 %x\n\
     OpReturn\n\
     OpFunctionEnd\n";

fn count(m: &Module, op: Op) -> usize {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == op)
        .count()
}

#[test]
fn accesses_through_buffer_selects_become_branches() {
    let mut m = load_words(crate::tools::spirv_as(MODULE, "vulkan1.2")).unwrap();
    assert_eq!(branch_buffer_selects(&mut m), Ok(4));
    let text = m.disassemble();
    assert_eq!(count(&m, Op::Select), 0, "{text}");
    assert!(
        !m.capabilities.iter().any(|c| c.operands
            == [Operand::Capability(
                Capability::VariablePointersStorageBuffer
            )]),
        "{text}"
    );
    // The kernel and one helper per access shape: the two loads share
    // theirs (an index parameter each), the atomic and the store have one
    // each.
    assert_eq!(m.functions.len(), 4, "{text}");
    assert_eq!(count(&m, Op::FunctionCall), 4, "{text}");
    // Each helper branches twice and reaches the three views: 3 accesses
    // per helper, and the Workgroup atomic stays in the kernel.
    assert_eq!(count(&m, Op::BranchConditional), 6, "{text}");
    assert_eq!(count(&m, Op::Load), 1 + 3, "{text}");
    assert_eq!(count(&m, Op::Store), 3, "{text}");
    assert_eq!(count(&m, Op::AtomicIAdd), 1 + 3, "{text}");
    crate::tools::assert_spirv_val(&m.assemble(), &["--target-env", "vulkan1.2"]);
}

#[test]
fn modules_without_buffer_selects_are_left_alone() {
    let plain = MODULE
        .replace("%s = OpSelect %psb %is1 %v1 %s21\n", "")
        .replace(
            "%p = OpAccessChain %pu %s %uint_0 %i",
            "%p = OpAccessChain %pu %v1 %uint_0 %i",
        )
        .replace("%t = OpSelect %psb %is1 %v1 %t21\n", "")
        .replace(
            "%q = OpAccessChain %pu %t %uint_0 %x",
            "%q = OpAccessChain %pu %v0 %uint_0 %x",
        )
        .replace("%s21 = OpSelect %psb %is2 %v2 %v0\n", "")
        .replace("%t21 = OpSelect %psb %is2 %v2 %v0\n", "");
    let mut m = load_words(crate::tools::spirv_as(&plain, "vulkan1.2")).unwrap();
    let before = m.assemble();
    assert_eq!(branch_buffer_selects(&mut m), Ok(0));
    assert_eq!(m.assemble(), before);
}

/// A use the pass cannot branch (here an OpCopyMemory through the chosen
/// pointer) fails instead of leaving the capability, and with it NVIDIA's
/// lost atomics, in the module.
#[test]
fn a_use_it_cannot_branch_is_an_error() {
    let copying = MODULE.replace(
        "OpStore %p %old\n",
        "OpStore %p %old\n     %w0 = OpAccessChain %pu %v0 %uint_0 %uint_0\n     OpCopyMemory %w0 %p\n",
    );
    let mut m = load_words(crate::tools::spirv_as(&copying, "vulkan1.2")).unwrap();
    let e = branch_buffer_selects(&mut m).unwrap_err();
    assert!(e.contains("CopyMemory"), "{e}");
}
