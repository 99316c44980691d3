//! `passes::widen_extended_multiplies` (every device): the high halves of
//! 32-bit and narrower products (`mul_hi`, `mad_hi`, `OpUMulExtended` of a
//! SPIR-V producer) are 64-bit multiplications; no 32-bit
//! `Op[SU]MulExtended` is left, 64-bit ones stay (NVIDIA's compiler got
//! `OpUMulExtended` of a factor made from 16-bit values wrong: fuzz seed
//! 7010 p100076, `tests/tests/narrow_integers.rs`
//! `high_products_of_halves`). Every module passes spirv-val.

use ferrocl_compiler::build_source;

mod common;

const SOURCE: &str = r#"
kernel void k(global const uint* a, global const int* b, global const ulong* c, global ulong* out) {
    uint g = get_global_id(0);
    uint3 u = vload3(g, a);
    out[4 * g] = mad_hi(u, (uint3)(92u), (uint3)(upsample((ushort)a[g], (ushort)7))).s1;
    out[4 * g + 1] = (ulong)mul_hi(b[g], -92);
    out[4 * g + 2] = mul_hi(c[g], 0x9e3779b97f4a7c15UL);
    out[4 * g + 3] = (ulong)mul_hi((short)b[g], (short)-3);
}
"#;

#[test]
fn high_halves_of_32_bit_products_are_64_bit_multiplications() {
    let built = build_source(SOURCE, "", &common::test_caps()).unwrap();
    let k = &built.kernels[0];
    common::spirv_val(k, "widen-extended-multiplies");
    let text = common::disassemble(k, "widen-extended-multiplies");
    let extended: Vec<&str> = text.lines().filter(|l| l.contains("MulExtended")).collect();
    // The one left is the ulong mul_hi: its factors are 64-bit.
    assert_eq!(extended.len(), 1, "{extended:?}\n{text}");
    assert!(extended[0].contains("OpUMulExtended"), "{text}");
    let wide_products = text
        .lines()
        .filter(|l| l.contains("OpIMul %ulong") || l.contains("OpIMul %v3ulong"))
        .count();
    assert!(
        wide_products >= 2,
        "{wide_products} 64-bit products:\n{text}"
    );
    assert!(
        text.contains("OpSConvert %ulong"),
        "the signed factors are sign-extended:\n{text}"
    );
}
