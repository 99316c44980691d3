//! `widen_bool_phis` on the shape spirv-reduce cut NVIDIA's crash down to
//! (a loop header's boolean phi of a value from before the loop) and on a
//! merge block's boolean phi of constants: no boolean phi is left, each
//! boolean comes back by `OpINotEqual` after the phis, the selects sit
//! before the parents' merge instructions, and the module still passes
//! spirv-val.

use rspirv::binary::{Assemble, Disassemble};
use rspirv::dr::{load_words, Instruction};
use rspirv::spirv::Op;

use super::widen_bool_phis;

const MODULE: &str = "OpCapability Shader\n\
     OpMemoryModel Logical GLSL450\n\
     OpEntryPoint GLCompute %main \"main\" %wg\n\
     OpExecutionMode %main LocalSize 1 1 1\n\
     OpDecorate %wg BuiltIn WorkgroupId\n\
     %void = OpTypeVoid\n\
     %bool = OpTypeBool\n\
     %uint = OpTypeInt 32 0\n\
     %v3uint = OpTypeVector %uint 3\n\
     %pin = OpTypePointer Input %v3uint\n\
     %wg = OpVariable %pin Input\n\
     %uint_16 = OpConstant %uint 16\n\
     %uint_1 = OpConstant %uint 1\n\
     %false = OpConstantFalse %bool\n\
     %true = OpConstantTrue %bool\n\
     %fn = OpTypeFunction %void\n\
     %main = OpFunction %void None %fn\n\
     %entry = OpLabel\n\
     %id = OpLoad %v3uint %wg\n\
     %x = OpCompositeExtract %uint %id 0\n\
     %c = OpUGreaterThan %bool %uint_16 %x\n\
     OpBranch %head\n\
     %head = OpLabel\n\
     %p = OpPhi %bool %c %entry %c %latch\n\
     %i = OpPhi %uint %x %entry %next %latch\n\
     OpLoopMerge %exit %latch None\n\
     OpBranch %body\n\
     %body = OpLabel\n\
     %next = OpIAdd %uint %i %uint_1\n\
     OpSelectionMerge %join None\n\
     OpBranchConditional %p %then %join\n\
     %then = OpLabel\n\
     OpBranch %join\n\
     %join = OpLabel\n\
     %more = OpPhi %bool %false %then %true %body\n\
     OpBranch %latch\n\
     %latch = OpLabel\n\
     OpBranchConditional %more %head %exit\n\
     %exit = OpLabel\n\
     OpReturn\n\
     OpFunctionEnd\n";

#[test]
fn boolean_phis_become_integer_phis() {
    let mut m = load_words(crate::tools::spirv_as(MODULE, "vulkan1.1")).unwrap();
    widen_bool_phis(&mut m);
    let text = m.disassemble();
    let bool_type = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeBool)
        .and_then(|i| i.result_id);
    let body: Vec<&Instruction> = m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .collect();
    let count = |op: Op| body.iter().filter(|i| i.class.opcode == op).count();
    assert!(
        !body
            .iter()
            .any(|i| i.class.opcode == Op::Phi && i.result_type == bool_type),
        "a boolean phi is left:\n{text}"
    );
    assert_eq!(count(Op::Phi), 3, "{text}");
    assert_eq!(count(Op::INotEqual), 2, "{text}");
    assert_eq!(count(Op::Select), 4, "{text}");
    // In the loop body, the select for the merge block's phi comes before
    // OpSelectionMerge.
    let merge = body
        .iter()
        .position(|i| i.class.opcode == Op::SelectionMerge)
        .unwrap();
    assert_eq!(body[merge - 1].class.opcode, Op::Select, "{text}");
    // The module is valid Vulkan SPIR-V.
    crate::tools::assert_spirv_val(&m.assemble(), &["--target-env", "vulkan1.1"]);
}

#[test]
fn modules_without_boolean_phis_are_left_alone() {
    let plain = MODULE
        .replace("%p = OpPhi %bool %c %entry %c %latch\n", "")
        .replace(
            "OpBranchConditional %p %then %join",
            "OpBranchConditional %c %then %join",
        )
        .replace("%more = OpPhi %bool %false %then %true %body\n", "")
        .replace(
            "OpBranchConditional %more %head %exit",
            "OpBranchConditional %c %head %exit",
        );
    let mut m = load_words(crate::tools::spirv_as(&plain, "vulkan1.1")).unwrap();
    let before = m.assemble();
    widen_bool_phis(&mut m);
    assert_eq!(m.assemble(), before);
}
