//! libclc's math in programs created from SPIR-V (`frontend::il_math`):
//! IL made by clang-15 and llvm-spirv-15 from OpenCL C that calls float
//! and double sin, exp, pow, log and tgamma builds into valid Vulkan
//! SPIR-V without GLSL.std.450 Sin/Exp/Pow/Log on floats or doubles;
//! relaxed math keeps GLSL.std.450's sin; a module that needs none keeps
//! today's path; a module with specialization constants keeps it too,
//! with a warning, and gets libclc's functions once they are frozen.

use std::process::Command;

use ferrocl_compiler::{build_il, freeze_spec_constants, DeviceCaps, Kernel};

mod common;

fn caps() -> DeviceCaps {
    DeviceCaps {
        images: false,
        read_write_images: false,
        depth_images: false,
        mipmap_image: false,
        mipmap_image_write_args: 0,
        image2d_from_buffer_args: 0,
        khr_subgroups: false,
        subgroup_ops: 0,
        ..common::test_caps()
    }
}

const SOURCE: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void f(global float *p) {
    size_t i = get_global_id(0);
    p[i] = sin(p[i]) + exp(p[i + 1]) + pow(p[i + 2], p[i + 3]) + log(p[i + 4])
         + tgamma(p[i + 5]);
}
kernel void d(global double *p) {
    size_t i = get_global_id(0);
    p[i] = sin(p[i]) + exp(p[i + 1]) + pow(p[i + 2], p[i + 3]) + log(p[i + 4])
         + tgamma(p[i + 5]);
}
kernel void v(global float4 *p, global double2 *q) {
    size_t i = get_global_id(0);
    p[i] = sin(p[i]) + log(p[i + 1]);
    q[i] = exp(q[i]) + pow(q[i], q[i + 1]);
}
"#;

/// A scratch directory of this process and `tag`.
fn dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ferrocl-il-math-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `spvasm` assembled by spirv-as.
fn assemble(spvasm: &str, tag: &str) -> Vec<u8> {
    let d = dir(tag);
    std::fs::write(d.join("k.spvasm"), spvasm).unwrap();
    let st = Command::new(common::tool("FERROCL_SPIRV_AS", "spirv-as"))
        .args(["--target-env", "spv1.0", "k.spvasm", "-o", "k.spv"])
        .current_dir(&d)
        .status()
        .unwrap();
    assert!(st.success());
    let il = std::fs::read(d.join("k.spv")).unwrap();
    let _ = std::fs::remove_dir_all(&d);
    il
}

/// The kernel's disassembly, after checking it with spirv-val (Vulkan).
fn validated_text(k: &Kernel, tag: &str) -> String {
    common::spirv_val(k, tag);
    common::disassemble(k, tag)
}

/// The GLSL.std.450 transcendentals of `text` among Sin, Exp, Pow, Log.
fn transcendentals(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("OpExtInst "))
        .filter_map(|l| l.split_whitespace().nth(5).map(str::to_string))
        .filter(|op| matches!(op.as_str(), "Sin" | "Exp" | "Pow" | "Log"))
        .collect()
}

#[test]
fn float_and_double_math_come_from_libclc() {
    let il = common::il_of(SOURCE, "full");
    for fused in [true, false] {
        let caps = DeviceCaps {
            fused_fma32: fused,
            fused_fma64: fused,
            ..caps()
        };
        let p = build_il(&il, "", &caps).unwrap_or_else(|e| panic!("{}", e.log));
        assert!(p.log.is_empty(), "{}", p.log);
        assert_eq!(p.kernels.len(), 3);
        for k in &p.kernels {
            let text = validated_text(k, "full");
            assert_eq!(transcendentals(&text), Vec::<String>::new(), "{}", k.name);
            assert!(text.contains("ferrocl.clc."), "{}: no libclc code", k.name);
        }
        let d = &p.kernels[1];
        assert_eq!(d.name, "d");
        assert_eq!(d.args[0].type_name, "double*");
    }
}

#[test]
fn relaxed_math_keeps_glsl_sin() {
    let il = common::il_of(
        "kernel void k(global float *p) { p[0] = sin(p[1]) + exp(p[2]); }",
        "relaxed",
    );
    let p = build_il(&il, "-cl-fast-relaxed-math", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    let text = validated_text(&p.kernels[0], "relaxed");
    // exp stays libclc's under relaxed math (see frontend::libclc).
    assert_eq!(transcendentals(&text), ["Sin"]);
}

/// A module that needs none of libclc's functions keeps today's path: the
/// same kernels as the IL built with relaxed math would give, with
/// GLSL.std.450's (exact) functions.
#[test]
fn module_without_libclc_math_is_unchanged() {
    let il = common::il_of(
        "kernel void k(global float *p) { p[0] = sqrt(p[1]) + fabs(p[2]) + native_sin(p[3]); }",
        "none",
    );
    let a = build_il(&il, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    let b = build_il(&il, "-cl-fast-relaxed-math", &caps()).unwrap();
    assert_eq!(a.kernels[0].spirv, b.kernels[0].spirv);
    let text = validated_text(&a.kernels[0], "none");
    assert!(!text.contains("ferrocl.clc."));
    assert_eq!(transcendentals(&text), ["Sin"]);
}

/// OpenCL.std sin and exp of a float specialization constant (SpecId 7).
const SPEC: &str = include_str!("il/spec_math.spvasm");

#[test]
fn spec_constants_are_frozen_first() {
    let il = assemble(SPEC, "spec");
    // Unfrozen (not what the runtime gives build_il): today's path, with
    // a warning naming the builtins.
    let p = build_il(&il, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    assert!(
        p.log.contains("warning") && p.log.contains("sin (float)"),
        "{}",
        p.log
    );
    let text = validated_text(&p.kernels[0], "spec-raw");
    assert_eq!(transcendentals(&text), ["Sin", "Exp"]);
    // Frozen with the application's value, as the runtime does: libclc's.
    let values = [(7u32, 2.5f32.to_ne_bytes().to_vec())]
        .into_iter()
        .collect();
    let frozen = freeze_spec_constants(&il, &values).unwrap();
    let p = build_il(&frozen, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    assert!(p.log.is_empty(), "{}", p.log);
    let text = validated_text(&p.kernels[0], "spec-frozen");
    assert_eq!(transcendentals(&text), Vec::<String>::new());
    assert!(text.contains("ferrocl.clc."));
    assert!(text.contains("2.5"), "the value is applied");
}
