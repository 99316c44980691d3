//! `funnel_byte_swaps` on the shapes of corpus `int_byte_swap_ushort.cl`
//! as IL made at -O0 and widened (`widen_narrow_arithmetic`): the swaps
//! become funnel shifts, ORs that are not byte swaps of 16-bit values are
//! left alone, every value is the same before and after (a small
//! evaluator of the module's straight-line code, over chosen inputs), and
//! the module still passes spirv-val.

use std::collections::HashMap;

use rspirv::binary::{Assemble, Disassemble};
use rspirv::dr::{load_words, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::funnel_byte_swaps;

const MODULE: &str = "OpCapability Shader\n\
     OpCapability Int16\n\
     OpMemoryModel Logical GLSL450\n\
     OpEntryPoint GLCompute %main \"main\" %wg\n\
     OpExecutionMode %main LocalSize 1 1 1\n\
     OpDecorate %wg BuiltIn WorkgroupId\n\
     %void = OpTypeVoid\n\
     %uint = OpTypeInt 32 0\n\
     %ushort = OpTypeInt 16 0\n\
     %v2uint = OpTypeVector %uint 2\n\
     %v2ushort = OpTypeVector %ushort 2\n\
     %v3uint = OpTypeVector %uint 3\n\
     %pin = OpTypePointer Input %v3uint\n\
     %wg = OpVariable %pin Input\n\
     %uint_3 = OpConstant %uint 3\n\
     %uint_8 = OpConstant %uint 8\n\
     %uint_13 = OpConstant %uint 13\n\
     %uint_255 = OpConstant %uint 255\n\
     %v8 = OpConstantComposite %v2uint %uint_8 %uint_8\n\
     %fn = OpTypeFunction %void\n\
     %main = OpFunction %void None %fn\n\
     %entry = OpLabel\n\
     %id = OpLoad %v3uint %wg\n\
     %x32 = OpCompositeExtract %uint %id 0\n\
     %y32 = OpCompositeExtract %uint %id 1\n\
     %x = OpUConvert %ushort %x32\n\
     %y = OpUConvert %ushort %y32\n\
     %xz = OpUConvert %uint %x\n\
     %xz2 = OpUConvert %uint %x\n\
     %s0 = OpShiftLeftLogical %uint %xz %uint_8\n\
     %s1 = OpShiftRightArithmetic %uint %xz2 %uint_8\n\
     %swap_shifts = OpBitwiseOr %uint %s0 %s1\n\
     %a1 = OpBitwiseAnd %uint %x32 %uint_255\n\
     %b1 = OpShiftLeftLogical %uint %a1 %uint_8\n\
     %c1 = OpShiftRightLogical %uint %x32 %uint_8\n\
     %d1 = OpBitwiseAnd %uint %c1 %uint_255\n\
     %swap_masks = OpBitwiseOr %uint %d1 %b1\n\
     %v16 = OpCompositeConstruct %v2ushort %x %y\n\
     %v = OpUConvert %v2uint %v16\n\
     %vl = OpShiftLeftLogical %v2uint %v %v8\n\
     %vlt = OpUConvert %v2ushort %vl\n\
     %vlz = OpUConvert %v2uint %vlt\n\
     %vr = OpShiftRightLogical %v2uint %v %v8\n\
     %vrt = OpUConvert %v2ushort %vr\n\
     %vrz = OpUConvert %v2uint %vrt\n\
     %swap_vector = OpBitwiseOr %v2uint %vlz %vrz\n\
     %n1 = OpShiftLeftLogical %uint %x32 %uint_8\n\
     %n2 = OpShiftRightLogical %uint %x32 %uint_8\n\
     %wide = OpBitwiseOr %uint %n1 %n2\n\
     %n3 = OpShiftLeftLogical %uint %xz %uint_3\n\
     %n4 = OpShiftRightLogical %uint %xz %uint_13\n\
     %by_3 = OpBitwiseOr %uint %n3 %n4\n\
     OpReturn\n\
     OpFunctionEnd\n";

/// The values of `m`'s entry block with workgroup id (`x`, `y`, 0): the
/// lanes of each value (in its element width), by id.
fn evaluate(m: &Module, x: u64, y: u64) -> HashMap<Word, Vec<u64>> {
    let ints = crate::passes::module_edit::int_types(m);
    let mut v: HashMap<Word, Vec<u64>> = HashMap::new();
    for i in &m.types_global_values {
        match (i.class.opcode, i.result_id, i.operands.as_slice()) {
            (Op::Constant, Some(id), [Operand::LiteralBit32(c)]) => {
                v.insert(id, vec![u64::from(*c)]);
            }
            (Op::ConstantComposite, Some(id), ops) => {
                let lanes = ops.iter().map(|o| v[&o.unwrap_id_ref()][0]).collect();
                v.insert(id, lanes);
            }
            _ => {}
        }
    }
    for i in &m.functions[0].blocks[0].instructions {
        let (Some(id), Some(ty)) = (i.result_id, i.result_type) else {
            continue;
        };
        let width = ints[&ty].0;
        let mask = (1u64 << width) - 1;
        let arg = |k: usize| v[&i.operands[k].unwrap_id_ref()].clone();
        let lanes: Vec<u64> = match i.class.opcode {
            Op::Load => vec![x, y, 0],
            Op::CompositeExtract => match i.operands[1] {
                Operand::LiteralBit32(k) => vec![arg(0)[k as usize]],
                _ => unreachable!(),
            },
            Op::CompositeConstruct => (0..i.operands.len()).map(|k| arg(k)[0]).collect(),
            Op::UConvert => arg(0).iter().map(|a| a & mask).collect(),
            op => {
                let (a, b) = (arg(0), arg(1));
                a.iter()
                    .zip(&b)
                    .map(|(&a, &b)| match op {
                        Op::BitwiseAnd => a & b,
                        Op::BitwiseOr => a | b,
                        Op::ShiftLeftLogical => (a << b) & mask,
                        Op::ShiftRightLogical => a >> b,
                        Op::ShiftRightArithmetic => {
                            (((a << (64 - width)) as i64 >> (64 - width) >> b) as u64) & mask
                        }
                        _ => panic!("evaluate: {op:?}"),
                    })
                    .collect()
            }
        };
        v.insert(id, lanes);
    }
    v
}

/// The id named `name` in the module (rspirv keeps no names: the
/// disassembly of `MODULE` numbers ids in order of first appearance).
fn id_of(m: &Module, name: &str) -> Word {
    let text = MODULE;
    let mut ids: Vec<&str> = Vec::new();
    for tok in text.split(|c: char| c.is_whitespace() || c == '"') {
        if let Some(n) = tok.strip_prefix('%') {
            if !ids.contains(&n) {
                ids.push(n);
            }
        }
    }
    let _ = m;
    ids.iter().position(|&n| n == name).unwrap() as Word + 1
}

fn defining_op(m: &Module, id: Word) -> Op {
    m.functions[0].blocks[0]
        .instructions
        .iter()
        .find(|i| i.result_id == Some(id))
        .map(|i| i.class.opcode)
        .unwrap()
}

#[test]
fn byte_swaps_become_funnel_shifts_with_the_same_values() {
    let before = load_words(crate::tools::spirv_as(MODULE, "vulkan1.1")).unwrap();
    let mut after = before.clone();
    funnel_byte_swaps(&mut after);
    let text = after.disassemble();
    for name in ["swap_shifts", "swap_masks", "swap_vector"] {
        assert_eq!(
            defining_op(&after, id_of(&after, name)),
            Op::ShiftRightLogical,
            "{name}:\n{text}"
        );
    }
    for name in ["wide", "by_3"] {
        assert_eq!(
            defining_op(&after, id_of(&after, name)),
            Op::BitwiseOr,
            "{name}:\n{text}"
        );
    }
    let inputs = [
        0u64,
        1,
        0x00ff,
        0x0100,
        0x1234,
        0x7fff,
        0x8000,
        0xff00,
        0xffff,
        0x1_2345,
        0xdead_beef,
        0xffff_ffff,
    ];
    for &x in &inputs {
        for &y in &inputs {
            let (b, a) = (evaluate(&before, x, y), evaluate(&after, x, y));
            for name in ["swap_shifts", "swap_masks", "swap_vector", "wide", "by_3"] {
                let id = id_of(&before, name);
                assert_eq!(a[&id], b[&id], "{name} of x={x:#x} y={y:#x}:\n{text}");
            }
            // The low 16 bits are the swap (the kernel truncates the OR).
            let swap = b[&id_of(&before, "swap_shifts")][0] & 0xffff;
            assert_eq!(swap, u64::from((x as u16).swap_bytes()), "x={x:#x}");
        }
    }
    crate::tools::assert_spirv_val(&after.assemble(), &["--target-env", "vulkan1.1"]);
}
