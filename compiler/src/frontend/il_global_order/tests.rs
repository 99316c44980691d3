//! `order_global_definitions` on small modules assembled by spirv-as
//! (which does not validate): llvm-spirv-14's forward-referenced
//! constants come out in an order `il_definitions` and spirv-val accept,
//! modules in order are left alone, a cycle is left for the check.

use rspirv::binary::Disassemble;

use super::order_global_definitions;
use crate::frontend::il_definitions::check_id_definitions;

/// A kernel module whose globals are `globals`, and a kernel storing
/// `%value` (a `ushort`) to its argument.
fn module(globals: &str) -> Vec<u32> {
    let asm = format!(
        "OpCapability Addresses\n\
         OpCapability Kernel\n\
         OpCapability Int64\n\
         OpCapability Int16\n\
         OpCapability Vector16\n\
         OpMemoryModel Physical64 OpenCL\n\
         OpEntryPoint Kernel %k \"k\"\n\
         {globals}\
         %void = OpTypeVoid\n\
         %ptr = OpTypePointer CrossWorkgroup %ushort\n\
         %fn = OpTypeFunction %void %ptr\n\
         %k = OpFunction %void None %fn\n\
         %out = OpFunctionParameter %ptr\n\
         %entry = OpLabel\n\
         OpStore %out %value\n\
         OpReturn\n\
         OpFunctionEnd\n"
    );
    crate::tools::spirv_as(&asm, "spv1.0")
}

/// llvm-spirv-14's shape for `(-as_ushort8((ulong2)7)).s5`: the extract
/// and the negation come before the bitcast they read and the types it
/// needs.
const LLVM_SPIRV_14: &str = "%ushort = OpTypeInt 16 0\n\
     %ulong = OpTypeInt 64 0\n\
     %ushort_0 = OpConstant %ushort 0\n\
     %ulong_7 = OpConstant %ulong 7\n\
     %e5 = OpSpecConstantOp %ushort CompositeExtract %cast 5\n\
     %value = OpSpecConstantOp %ushort ISub %ushort_0 %e5\n\
     %v8ushort = OpTypeVector %ushort 8\n\
     %v2ulong = OpTypeVector %ulong 2\n\
     %pair = OpConstantComposite %v2ulong %ulong_7 %ulong_7\n\
     %cast = OpSpecConstantOp %v8ushort Bitcast %pair\n";

/// spirv-val (of `vendor.json`) takes `words`.
fn spirv_val(words: &[u32]) {
    crate::tools::assert_spirv_val(words, &[]);
}

fn checked(words: &[u32]) -> Result<(), String> {
    check_id_definitions(&rspirv::dr::load_words(words).expect("rspirv reads it"))
}

#[test]
fn forward_referenced_constants_are_put_after_their_definitions() {
    let words = module(LLVM_SPIRV_14);
    let e = checked(&words).expect_err("the module as llvm-spirv-14 writes it is out of order");
    assert!(e.contains("before its definition"), "{e}");
    let ordered = order_global_definitions(&words).expect("an order exists");
    checked(&ordered).expect("in order");
    spirv_val(&ordered);
    // The same instructions, only moved: the extract and the negation
    // after the bitcast, everything else where it was.
    let text = rspirv::dr::load_words(&ordered).unwrap().disassemble();
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s} missing from\n{text}"))
    };
    assert!(at("Bitcast") < at("CompositeExtract"));
    assert!(at("CompositeExtract") < at("ISub"));
    assert!(at("OpTypeInt 16") < at("OpTypeInt 64"));
}

#[test]
fn a_module_in_order_is_left_alone() {
    let words = module(
        "%ushort = OpTypeInt 16 0\n\
         %value = OpConstant %ushort 9\n",
    );
    assert!(order_global_definitions(&words).is_none());
}

#[test]
fn a_cycle_is_left_for_the_check() {
    let words = module(
        "%ushort = OpTypeInt 16 0\n\
         %a = OpSpecConstantOp %ushort IAdd %value %value\n\
         %value = OpSpecConstantOp %ushort IAdd %a %a\n",
    );
    assert!(order_global_definitions(&words).is_none());
    assert!(checked(&words).is_err());
}
