//! Single-precision math builtins (libclc's, `frontend::libclc`): builds
//! that call them produce valid Vulkan SPIR-V (every build runs spirv-val)
//! without GLSL.std.450 transcendentals on floats; `-cl-fast-relaxed-math`
//! keeps those its bounds allow; float `fma` is the device's where fused,
//! libclc's software one elsewhere; the math library's float arithmetic is
//! NoContraction; devices that preserve denormals get DenormPreserve 32.

use ferrocl_compiler::{build_source, DeviceCaps};

mod common;

fn caps(fused_fma32: bool, denorms32: bool) -> DeviceCaps {
    DeviceCaps {
        fp64: false,
        images: false,
        read_write_images: false,
        depth_images: false,
        mipmap_image: false,
        mipmap_image_write_args: 0,
        image2d_from_buffer_args: 0,
        fused_fma32,
        denorms32,
        khr_subgroups: false,
        subgroup_ops: 0,
        ..common::test_caps()
    }
}

const SOURCE: &str = r#"
kernel void k(global const float *x, global float *o, global int *q) {
    size_t i = get_global_id(0);
    float c;
    o[i] = sin(x[i]) + exp(x[i]) + log(x[i]) + pow(x[i], 2.5f) + fmod(x[i], 3.0f)
         + fma(x[i], x[i], 1.0f) + sincos(x[i], &c) + c + remquo(x[i], 2.0f, q + i);
}
kernel void v(global const float4 *x, global float4 *o) {
    size_t i = get_global_id(0);
    o[i] = tanpi(x[i]) + erfc(x[i]) + atan2(x[i], x[i]) + fma(x[i], x[i], x[i]);
}
"#;

/// The GLSL.std.450 instructions of the module.
fn glsl_ops(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("OpExtInst "))
        .filter_map(|l| l.split_whitespace().nth(5).map(str::to_string))
        .collect()
}

#[test]
fn full_precision_uses_no_glsl_transcendentals() {
    for (fused, denorms) in [(true, false), (false, true)] {
        let p = build_source(SOURCE, "", &caps(fused, denorms)).unwrap_or_else(|e| panic!("{e}"));
        for k in &p.kernels {
            let text = common::disassemble(k, "float-math");
            for op in glsl_ops(&text) {
                // What remains is exact (or sqrt, see the module doc of
                // frontend::libclc), and Fma only where fused.
                let exact = matches!(
                    op.as_str(),
                    "FAbs"
                        | "Floor"
                        | "Ceil"
                        | "Trunc"
                        | "RoundEven"
                        | "NMin"
                        | "NMax"
                        | "Sqrt"
                        | "Ldexp"
                        | "FrexpStruct"
                        | "SMin"
                        | "SMax"
                        | "SAbs"
                        | "SClamp"
                        | "UMin"
                        | "UMax"
                        | "FindUMsb"
                        | "FindILsb"
                ) || (op == "Fma" && fused);
                assert!(exact, "kernel {}: GLSL.std.450 {op}", k.name);
            }
            assert!(!text.contains("OpFRem"), "fmod is libclc's, not OpFRem");
            // libclc's float arithmetic rounds as written.
            assert!(text.contains("NoContraction"), "kernel {}", k.name);
            assert_eq!(
                text.lines()
                    .any(|l| l.contains("OpExecutionMode ") && l.ends_with(" DenormPreserve 32")),
                denorms,
                "kernel {}",
                k.name
            );
            if fused {
                assert!(glsl_ops(&text).iter().any(|o| o == "Fma"), "{}", k.name);
            } else {
                assert!(!glsl_ops(&text).iter().any(|o| o == "Fma"), "{}", k.name);
            }
        }
    }
}

#[test]
fn relaxed_math_keeps_glsl_where_its_bounds_allow() {
    for option in ["-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations"] {
        let p = build_source(SOURCE, option, &caps(true, false)).unwrap_or_else(|e| panic!("{e}"));
        let k = p.kernels.iter().find(|k| k.name == "k").unwrap();
        let text = common::disassemble(k, "float-math");
        let ops = glsl_ops(&text);
        for op in ["Sin", "Cos", "Pow"] {
            assert!(ops.iter().any(|o| o == op), "{option}: no {op} in {ops:?}");
        }
        // fmod and remquo have no relaxed bound, exp's and log's are
        // tighter than Vulkan's: still libclc's.
        assert!(!text.contains("OpFRem"), "{option}");
        for f in ["_Z4fmodff", "_Z3expf", "_Z3logf"] {
            assert!(text.contains(&format!("ferrocl.clc.{f}")), "{option}: {f}");
        }
        assert!(!ops.iter().any(|o| o == "Exp" || o == "Log"), "{option}");
    }
}

/// The program's own float arithmetic may still be contracted (OpenCL C's
/// FP_CONTRACT): only the library's is NoContraction.
#[test]
fn program_float_arithmetic_stays_contractable() {
    let src = "kernel void k(global float *o) { o[0] = o[1] * o[2] + o[3]; }";
    let p = build_source(src, "", &caps(true, false)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!common::disassemble(&p.kernels[0], "float-math").contains("NoContraction"));
}

/// The execution modes of the device's float controls: DenormPreserve and
/// SignedZeroInfNanPreserve for each width the device preserves and the
/// module uses (16 and 64 only with those types), their capabilities, and
/// none of them for a device that preserves nothing.
#[test]
fn float_controls_follow_the_device() {
    use ferrocl_compiler::FloatWidths;
    let source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable
        kernel void f(global float *o) { o[0] = o[1] / o[2]; }
        kernel void d(global double *o) { o[0] = o[1] / o[2]; }";
    let modes = |text: &str| -> Vec<String> {
        let mut m: Vec<String> = text
            .lines()
            .filter(|l| l.contains("OpExecutionMode ") && !l.contains("LocalSize"))
            .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
            .collect();
        m.sort();
        m
    };
    let cases = [
        (FloatWidths::default(), FloatWidths::default()),
        (FloatWidths::ALL, FloatWidths::ALL),
        (FloatWidths(2), FloatWidths(4)),
    ];
    for (denorms, inf_nan) in cases {
        let caps = DeviceCaps {
            fp64: true,
            preserve_denorms: denorms,
            preserve_inf_nan: inf_nan,
            ..caps(true, false)
        };
        let p = build_source(source, "", &caps).unwrap_or_else(|e| panic!("{e}"));
        for k in &p.kernels {
            let text = common::disassemble(k, "float-math");
            let widths: &[u32] = if k.name == "d" { &[32, 64] } else { &[32] };
            let mut want = Vec::new();
            for &w in widths {
                if denorms.contains(w) {
                    want.push(format!("DenormPreserve {w}"));
                }
                if inf_nan.contains(w) {
                    want.push(format!("SignedZeroInfNanPreserve {w}"));
                }
            }
            want.sort();
            assert_eq!(
                modes(&text),
                want,
                "kernel {} {denorms:?} {inf_nan:?}",
                k.name
            );
            for (cap, used) in [
                (
                    "DenormPreserve",
                    want.iter().any(|m| m.starts_with("Denorm")),
                ),
                (
                    "SignedZeroInfNanPreserve",
                    want.iter().any(|m| m.starts_with("Signed")),
                ),
            ] {
                assert_eq!(
                    text.contains(&format!("OpCapability {cap}")),
                    used,
                    "kernel {} {cap}",
                    k.name
                );
            }
        }
    }
}
