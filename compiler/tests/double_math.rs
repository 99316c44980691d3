//! Double-precision math builtins (libclc's, `frontend::libclc`): builds
//! that call them produce valid Vulkan SPIR-V (every build runs spirv-val)
//! without double GLSL.std.450 transcendentals, keep libclc's tables in the
//! program's buffer, and work through every entry point (source, CL 2.0
//! generic pointers, compile + link). The software fma is checked against
//! the C library's.

use std::process::Command;

use ferrocl_compiler::{build_source, compile_source, link_objects, DeviceCaps, Kernel, Linked};

mod common;

fn caps(fused_fma64: bool) -> DeviceCaps {
    DeviceCaps {
        images: false,
        read_write_images: false,
        depth_images: false,
        mipmap_image: false,
        mipmap_image_write_args: 0,
        image2d_from_buffer_args: 0,
        fused_fma64,
        khr_subgroups: false,
        subgroup_ops: 0,
        ..common::test_caps()
    }
}

const SEVERAL: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global const double *x, global double *o, global int *q) {
    size_t i = get_global_id(0);
    double c;
    int s;
    o[i] = sin(x[i]) + pow(x[i], 2.5) + acospi(x[i]) + tgamma(x[i]) + erfc(x[i])
         + cbrt(x[i]) + pown(x[i], 3) + rootn(x[i], 5) + sincos(x[i], &c) + c
         + lgamma_r(x[i], &s) + fma(x[i], x[i], 1.0) + lgamma(x[i]);
    q[i] = s;
}
kernel void v(global const double4 *x, global double4 *o, global double3 *t,
              global double8 *e) {
    size_t i = get_global_id(0);
    o[i] = exp(x[i]) + log1p(x[i]) + atan2(x[i], x[i]) + hypot(x[i], x[i]);
    t[i] = tanpi(t[i]) + tgamma(t[i]);
    e[i] = cosh(e[i]);
}
"#;

/// The GLSL.std.450 instructions the module applies to doubles.
fn double_glsl_ops(k: &Kernel) -> Vec<String> {
    let text = common::disassemble(k, "double-math");
    text.lines()
        .filter(|l| l.contains("OpExtInst %double") || l.contains("OpExtInst %v"))
        .filter(|l| !l.contains("OpExtInst %v") || l.contains("double"))
        .filter_map(|l| l.split_whitespace().nth(5).map(str::to_string))
        .collect()
}

#[test]
fn several_functions_build_valid_vulkan_spirv() {
    for fused in [true, false] {
        let p = build_source(SEVERAL, "", &caps(fused)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.kernels.len(), 2);
        for k in &p.kernels {
            let ops = double_glsl_ops(k);
            // What remains of GLSL.std.450 on doubles is exact: no Sin,
            // Exp, Pow, ... (Vulkan has none for doubles), and Fma only
            // where the device fuses it.
            for op in &ops {
                let exact = matches!(
                    op.as_str(),
                    "FAbs"
                        | "Floor"
                        | "Ceil"
                        | "NMin"
                        | "NMax"
                        | "NClamp"
                        | "Sqrt"
                        | "Ldexp"
                        | "FrexpStruct"
                        | "SMin"
                        | "SMax"
                        | "UMin"
                        | "UMax"
                        | "SClamp"
                ) || (op == "Fma" && fused);
                assert!(exact, "kernel {}: GLSL.std.450 {op} on doubles", k.name);
            }
        }
        // libclc's tables live in the program's buffer, counted apart
        // from program-scope variables (there are none).
        let g = &p.global_variables;
        assert!(g.constant_size >= 1024, "{g:?}");
        assert_eq!(g.size, g.constant_size);
        // Only the small byte table stays in private memory.
        assert!(
            p.kernels.iter().all(|k| k.private_size <= 256),
            "{:?}",
            p.kernels.iter().map(|k| k.private_size).collect::<Vec<_>>()
        );
    }
}

#[test]
fn generic_pointer_overloads() {
    // CL 2.0: sincos and lgamma_r take generic pointers, which libclc's
    // overloads do not.
    let src = r#"
        kernel void k(global const double *x, global double *o, global int *q) {
            size_t i = get_global_id(0);
            double c;
            double2 c2;
            int s;
            o[i] = sincos(x[i], &c) + c + lgamma_r(x[i], &s)
                 + sincos((double2)(x[i]), &c2).y + c2.x + sincos(x[i], o + 1);
            q[i] = s;
        }
    "#;
    let p = build_source(src, "-cl-std=CL2.0", &caps(true)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.kernels.len(), 1);
}

#[test]
fn program_symbols_do_not_clash_with_libclc() {
    // Names libclc uses for its tables and helpers.
    let src = r#"
        constant double EXP_TBL[2] = {1.0, 2.0};
        double __clc_exp_helper(double x) { return x + 1.0; }
        kernel void k(global double *o) {
            o[0] = exp(o[1]) + EXP_TBL[(int)o[2]] + __clc_exp_helper(o[3]);
        }
    "#;
    build_source(src, "", &caps(false)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn compile_and_link() {
    let lib = "double scaled(double x) { return cospi(x) * 2.0; }";
    let main = r#"
        double scaled(double x);
        kernel void k(global double *o) { o[0] = scaled(o[0]) + exp2(o[1]); }
    "#;
    let c = caps(false);
    let a = compile_source(lib, "", &[], &c).unwrap_or_else(|e| panic!("{e}"));
    let b = compile_source(main, "", &[], &c).unwrap_or_else(|e| panic!("{e}"));
    match link_objects(&[&a.bitcode, &b.bitcode], "", &c) {
        Ok(Linked::Executable(p)) => assert_eq!(p.kernels.len(), 1),
        Ok(Linked::Library(_)) => panic!("a library"),
        Err(e) => panic!("{e}"),
    }
}

/// The software fma (`fma64.cl`, which also compiles as C) is bit-for-bit
/// the C library's fma over random operands at every scale, subnormal and
/// overflowing results, and near-cancellation (4 million cases; 200
/// million passed when it was written).
#[test]
fn software_fma_matches_the_c_library() {
    let dir = std::env::temp_dir().join(format!("ferrocl-fma64-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src/frontend/libclc/fma64.cl");
    let driver = format!(
        r#"
#define FMA64_C
#include "{src}"
#include <math.h>
#include <stdio.h>
static ulong state = 0x9e3779b97f4a7c15ULL;
static ulong next(void) {{
    state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state;
}}
/* Exponent fields near the given one, any significand and sign. */
static double near(int field) {{
    ulong u = next() & 0x800fffffffffffffULL;
    int f = field + (int)(next() % 64) - 32;
    f = f < 0 ? 0 : f > 2046 ? 2046 : f;
    return fma64_double(u | ((ulong)f << 52));
}}
static double pick(void) {{
    static const double special[] = {{0.0, -0.0, 1.0, -1.0, 5e-324, 2.2250738585072014e-308,
        1.7976931348623157e308, INFINITY, -INFINITY, NAN, 0.5, 3.0}};
    switch (next() % 6) {{
    case 0: return special[next() % 12];
    case 1: return fma64_double(next());
    case 2: return near(1023);
    case 3: return near(20);
    case 4: return near(2030);
    default: return near(0);
    }}
}}
int main(void) {{
    long bad = 0;
    for (long i = 0; i < 4000000; i++) {{
        double a = pick(), b = pick(), c = pick();
        if (i % 3 == 0) {{
            /* Products and results around the subnormals. */
            a = near(512);
            b = near(512);
            c = next() % 2 ? near(0) : near(2);
        }}
        if (next() % 4 == 0) {{
            c = -(a * b);
            c = fma64_double(fma64_bits(c) + next() % 5 - 2);
        }}
        double want = fma(a, b, c), got = fma64(a, b, c);
        if (fma64_bits(want) != fma64_bits(got) && !(isnan(want) && isnan(got)) && bad++ < 5)
            printf("fma(%a, %a, %a) = %a, want %a\n", a, b, c, got, want);
    }}
    printf("%ld wrong\n", bad);
    return bad != 0;
}}
"#
    );
    let c = dir.join("fma64-test.c");
    let exe = dir.join("fma64-test");
    std::fs::write(&c, driver).unwrap();
    let clang = std::env::var("FERROCL_CLANG").unwrap_or("/usr/bin/clang-15".into());
    let st = Command::new(clang)
        .args(["-O2", "-ffp-contract=off", "-o"])
        .arg(&exe)
        .arg(&c)
        .arg("-lm")
        .status()
        .expect("clang-15 runs");
    assert!(st.success());
    let out = Command::new(&exe).output().expect("the test program runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `mad` on doubles is one fused multiply-add (GLSL.std.450 Fma), scalar
/// and vector, where the device fuses doubles: lowered as a multiply and an add, the exact arithmetic
/// that every double operation gets (NoContraction) kept them apart, and
/// NVIDIA ran clpeak's fp64 `mad` loop at half its DFMA rate.
#[test]
fn mad_of_doubles_is_one_fused_multiply_add() {
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global double *o, global double4 *v, double a, double4 b) {
    size_t i = get_global_id(0);
    o[i] = mad(o[i], a, 1.5);
    v[i] = mad(v[i], b, v[i]);
}
"#;
    for fused in [true, false] {
        let p = build_source(src, "", &caps(fused)).unwrap_or_else(|e| panic!("{e}"));
        let k = &p.kernels[0];
        let ops = double_glsl_ops(k);
        let text = common::disassemble(k, "double-mad");
        if fused {
            assert_eq!(ops.iter().filter(|o| *o == "Fma").count(), 2, "{ops:?}");
            assert!(!text.contains("OpFMul"), "a multiply is left:\n{text}");
        } else {
            // GLSL's Fma of doubles is not one rounding on this device.
            assert!(!ops.iter().any(|o| o == "Fma"), "{ops:?}");
        }
    }
}
