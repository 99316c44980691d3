//! `DeviceCaps::wide_narrow_arithmetic` (NVIDIA, `passes::
//! widen_narrow_arithmetic`): 8- and 16-bit arithmetic runs in 32 bits,
//! and every sign extension of a narrow value is made from the
//! zero-extended value: an `OpBitFieldSExtract` for the operand of an
//! operation that reads it as signed, the sign bit copied into the high
//! bits (shifts and an or) for an explicit conversion. No `OpSConvert`
//! from an 8- or 16-bit type is left (NVIDIA's compiler took a widened
//! negation's 32-bit result as already sign-extended there: corpus
//! `int_narrow_negate_max.cl`). Without the flag the module keeps its
//! narrow `OpSConvert`s. Every module passes spirv-val.

use ferrocl_compiler::{build_source, DeviceCaps};

mod common;

const SOURCE: &str = r#"
kernel void k(global const short* a, global short* out, global char* c) {
    uint g = get_global_id(0);
    short4 v = vload4(g, a);
    short4 m = max((short4)(37) | v.wzyx, -v);
    vstore4(m / (short4)(3), g, out);
    char x = (char)a[g];
    c[g] = min((char)-x, (char)(x >> 1));
    out[4 * g + 3] = (short)((int)-x >> 2);
}
"#;

fn caps(wide: bool) -> DeviceCaps {
    DeviceCaps {
        wide_narrow_arithmetic: wide,
        ..common::test_caps()
    }
}

/// Result ids of 8- and 16-bit integer types (scalar or vector) in `text`.
fn narrow_types(text: &str) -> Vec<String> {
    let mut ints = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let [id, "=", "OpTypeInt", bits, _] = w[..] {
            if bits == "8" || bits == "16" {
                ints.push(id.to_string());
            }
        }
    }
    let mut all = ints.clone();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let [id, "=", "OpTypeVector", elem, _] = w[..] {
            if ints.iter().any(|i| i == elem) {
                all.push(id.to_string());
            }
        }
    }
    all
}

/// `OpSConvert`s whose operand has a narrow type.
fn narrow_sign_extensions(text: &str) -> usize {
    let narrow = narrow_types(text);
    let mut ty_of = std::collections::HashMap::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() >= 4 && w[1] == "=" && w[2].starts_with("Op") && !w[2].starts_with("OpType") {
            ty_of.insert(w[0].to_string(), w[3].to_string());
        }
    }
    text.lines()
        .filter(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            matches!(w[..], [_, "=", "OpSConvert", _, x]
                if ty_of.get(x).is_some_and(|t| narrow.contains(t)))
        })
        .count()
}

#[test]
fn narrow_sign_extensions_become_bit_field_extracts() {
    let plain = build_source(SOURCE, "", &caps(false)).unwrap();
    let wide = build_source(SOURCE, "", &caps(true)).unwrap();
    let (p, w) = (&plain.kernels[0], &wide.kernels[0]);
    common::spirv_val(p, "widen-off");
    common::spirv_val(w, "widen-on");
    let off = common::disassemble(p, "widen-off");
    let on = common::disassemble(w, "widen-on");
    assert!(
        narrow_sign_extensions(&off) > 0,
        "the kernel has narrow sign extensions to begin with:\n{off}"
    );
    assert_eq!(
        narrow_sign_extensions(&on),
        0,
        "a narrow OpSConvert is left:\n{on}"
    );
    // The operands of signed operations (the division, the shifts, min
    // and max) are bit-field extracts; the explicit conversions copy the
    // sign bit with shifts and an or.
    let extracts = on
        .lines()
        .filter(|l| l.contains("OpBitFieldSExtract"))
        .count();
    assert!(extracts >= 3, "{extracts} bit-field extracts:\n{on}");
    let sign_copies = on.lines().filter(|l| l.contains("OpBitwiseOr")).count()
        - off.lines().filter(|l| l.contains("OpBitwiseOr")).count();
    assert!(sign_copies >= 1, "{sign_copies} sign-bit copies:\n{on}");
    assert!(
        on.contains("SMax") && on.contains("SMin"),
        "max and min stay signed:\n{on}"
    );
}
