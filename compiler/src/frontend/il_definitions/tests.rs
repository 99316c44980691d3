//! `check_id_definitions` on small modules assembled by spirv-as (which
//! does not validate): valid ones pass, each broken rule is named.

use super::check_id_definitions;

/// A kernel module: capabilities, types and constants, then `body`.
fn check(body: &str) -> Result<(), String> {
    let asm = format!(
        "OpCapability Addresses\n\
         OpCapability Kernel\n\
         OpCapability Int64\n\
         OpMemoryModel Physical64 OpenCL\n\
         OpEntryPoint Kernel %k \"k\"\n\
         OpName %a \"a\"\n\
         %void = OpTypeVoid\n\
         %bool = OpTypeBool\n\
         %int = OpTypeInt 32 0\n\
         %int_0 = OpConstant %int 0\n\
         %int_1 = OpConstant %int 1\n\
         %fn = OpTypeFunction %void %int\n\
         %fnint = OpTypeFunction %int %int\n\
         {body}"
    );
    let words = crate::tools::spirv_as(&asm, "spv1.2");
    let module = rspirv::dr::load_words(&words).expect("rspirv reads it");
    check_id_definitions(&module)
}

fn fails_with(body: &str, want: &[&str]) {
    let e = check(body).expect_err("the check must refuse the module");
    for w in want {
        assert!(e.contains(w), "{e:?} lacks {w:?}");
    }
}

/// A loop whose counter is an OpPhi fed from its latch (a value defined
/// after the phi, in a block the phi's block dominates), a call of a
/// function defined later, a use in a block the entry does not reach.
const VALID: &str = "%k = OpFunction %void None %fn\n\
     %p = OpFunctionParameter %int\n\
     %entry = OpLabel\n\
     OpBranch %head\n\
     %head = OpLabel\n\
     %i = OpPhi %int %int_0 %entry %next %latch\n\
     %c = OpULessThan %bool %i %p\n\
     OpLoopMerge %exit %latch None\n\
     OpBranchConditional %c %latch %exit\n\
     %latch = OpLabel\n\
     %next = OpFunctionCall %int %inc %i\n\
     OpBranch %head\n\
     %dead = OpLabel\n\
     %x = OpIAdd %int %y %int_1\n\
     %y = OpIAdd %int %x %int_1\n\
     OpBranch %exit\n\
     %exit = OpLabel\n\
     OpReturn\n\
     OpFunctionEnd\n\
     %inc = OpFunction %int None %fnint\n\
     %q = OpFunctionParameter %int\n\
     %e2 = OpLabel\n\
     %a = OpIAdd %int %q %int_1\n\
     OpReturnValue %a\n\
     OpFunctionEnd\n";

#[test]
fn valid_module_passes() {
    check(VALID).unwrap();
}

#[test]
fn use_before_definition_in_a_block() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %b = OpIAdd %int %a %int_1\n\
         %a = OpIAdd %int %p %int_1\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["OpIAdd", "(\"a\")", "does not dominate"],
    );
}

/// The ilfuzz mutant s7-m5558's kind: a value of an `if` block used after
/// the `if`, where the path around the block does not define it.
#[test]
fn definition_that_does_not_dominate() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %c = OpULessThan %bool %p %int_1\n\
         OpBranchConditional %c %then %end\n\
         %then = OpLabel\n\
         %a = OpIAdd %int %p %int_1\n\
         OpBranch %end\n\
         %end = OpLabel\n\
         %b = OpIAdd %int %a %int_1\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["OpIAdd", "uses %", "(\"a\")", "does not dominate the use"],
    );
}

#[test]
fn phi_value_not_on_the_way_from_its_parent() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %c = OpULessThan %bool %p %int_1\n\
         OpBranchConditional %c %then %end\n\
         %then = OpLabel\n\
         %a = OpIAdd %int %p %int_1\n\
         OpBranch %end\n\
         %end = OpLabel\n\
         %b = OpPhi %int %a %entry %a %then\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["OpPhi", "(\"a\")", "parent block"],
    );
}

#[test]
fn phi_in_the_entry_block() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %b = OpPhi %int %p %entry\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["OpPhi", "entry block"],
    );
}

#[test]
fn undefined_id() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %b = OpIAdd %int %p %nothing\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["OpIAdd", "which nothing in the module defines"],
    );
}

#[test]
fn id_defined_twice() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %int_1 = OpIAdd %int %p %p\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["is defined twice, by OpConstant and by OpIAdd"],
    );
}

#[test]
fn label_as_a_value_and_value_as_a_label() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %b = OpIAdd %int %p %entry\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["uses the block label", "as a value"],
    );
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         OpBranch %p\n\
         OpFunctionEnd\n",
        &["OpBranch", "not a block of that function"],
    );
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         OpBranch %entry\n\
         OpFunctionEnd\n",
        &["branches to its entry block"],
    );
}

#[test]
fn id_of_another_function() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %b = OpIAdd %int %p %q\n\
         OpReturn\n\
         OpFunctionEnd\n\
         %g = OpFunction %void None %fn\n\
         %q = OpFunctionParameter %int\n\
         %e2 = OpLabel\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["which another function defines"],
    );
}

#[test]
fn global_forward_reference_and_forward_pointer() {
    fails_with(
        "%late = OpConstantComposite %v2 %int_0 %int_1\n\
         %v2 = OpTypeVector %int 2\n\
         %k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &[
            "OpConstantComposite",
            "before its definition (OpTypeVector)",
        ],
    );
    check(
        "OpTypeForwardPointer %ptr CrossWorkgroup\n\
         %node = OpTypeStruct %int %ptr\n\
         %ptr = OpTypePointer CrossWorkgroup %node\n\
         %k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         OpReturn\n\
         OpFunctionEnd\n",
    )
    .unwrap();
}

#[test]
fn result_type_that_is_not_a_type() {
    fails_with(
        "%k = OpFunction %void None %fn\n\
         %p = OpFunctionParameter %int\n\
         %entry = OpLabel\n\
         %b = OpIAdd %int_1 %p %p\n\
         OpReturn\n\
         OpFunctionEnd\n",
        &["has result type", "not a type but OpConstant"],
    );
}
