//! The public API's observable behaviour: errors, options, reflection,
//! build_il, concurrency.

use ferrocl_compiler::{
    build_il, build_source, AccessQualifier, AddressQualifier, ArgKind, DeviceCaps, ImplicitField,
    PrintfArgKind,
};

mod common;

fn caps() -> DeviceCaps {
    DeviceCaps {
        images: false,
        read_write_images: false,
        depth_images: false,
        mipmap_image: false,
        mipmap_image_write_args: 0,
        image2d_from_buffer_args: 0,
        ..common::test_caps()
    }
}

#[test]
fn syntax_error_has_location() {
    let e = build_source(
        "kernel void k(global int *p) {\n  p[0] = 1 +;\n}\n",
        "",
        &caps(),
    )
    .unwrap_err();
    assert!(!e.invalid_options);
    assert!(e.log.contains("input.cl:2:13: error"), "{}", e.log);
}

#[test]
fn unknown_option_is_invalid_options() {
    let e = build_source("kernel void k() {}", "-cl-bogus", &caps()).unwrap_err();
    assert!(e.invalid_options, "{}", e.log);
    assert!(e.log.contains("-cl-bogus"));
    let e = build_source("kernel void k() {}", "-cl-std=CL9.9", &caps()).unwrap_err();
    assert!(e.invalid_options);
}

#[test]
fn defines_and_math_options_pass_through() {
    let src = "kernel void k(global int *p) { p[0] = VALUE; }";
    let p = build_source(
        src,
        "-D VALUE=42 -cl-fast-relaxed-math -cl-mad-enable -w",
        &caps(),
    )
    .unwrap();
    assert_eq!(p.kernels.len(), 1);
    let e = build_source(src, "", &caps()).unwrap_err();
    assert!(e.log.contains("VALUE"), "{}", e.log);
}

#[test]
fn unsupported_construct_names_it_and_the_line() {
    let src = "kernel void k(global int *p, constant char *fmt) {\n  printf(fmt, p[0]);\n}\n";
    let e = build_source(src, "", &caps()).unwrap_err();
    assert!(!e.invalid_options);
    assert!(
        e.log
            .contains("printf: the format must be a string literal"),
        "{}",
        e.log
    );
    assert!(e.log.contains("input.cl:2"), "{}", e.log);
}

#[test]
fn double_needs_fp64() {
    let src = "kernel void k(global double *p) { p[0] *= 2.0; }";
    let mut c = caps();
    assert!(build_source(src, "", &c).is_ok());
    c.fp64 = false;
    let e = build_source(src, "", &c).unwrap_err();
    assert!(e.log.contains("cl_khr_fp64"), "{}", e.log);
}

#[test]
fn reflection_of_arguments() {
    let src = "kernel __attribute__((reqd_work_group_size(8,4,1))) \
               void k(global const float * restrict a, constant int *c, local float4 *l, char x, float3 v, \
                      global uint *out) { out[get_global_id(0)] = a[0] + c[0] + l[0].x + x + v.z; }";
    let p = build_source(src, "", &caps()).unwrap();
    let k = &p.kernels[0];
    assert_eq!(k.name, "k");
    assert_eq!(k.reqd_work_group_size, Some([8, 4, 1]));
    assert_eq!(k.attributes, "reqd_work_group_size(8,4,1)");
    let a = &k.args;
    assert_eq!(a.len(), 6);
    assert_eq!(
        (a[0].name.as_str(), a[0].type_name.as_str()),
        ("a", "float*")
    );
    assert_eq!(a[0].address_qualifier, AddressQualifier::Global);
    assert_eq!(a[0].access_qualifier, AccessQualifier::None);
    assert_eq!(a[0].type_qualifier, 1 | 2);
    assert_eq!((a[0].kind, a[0].offset, a[0].size), (ArgKind::Buffer, 0, 8));
    assert_eq!(a[1].address_qualifier, AddressQualifier::Constant);
    assert_eq!((a[1].kind, a[1].offset, a[1].size), (ArgKind::Buffer, 8, 8));
    assert_eq!(a[2].address_qualifier, AddressQualifier::Local);
    assert!(matches!(a[2].kind, ArgKind::LocalPointer { .. }));
    assert_eq!(
        (a[3].type_name.as_str(), a[3].kind, a[3].offset, a[3].size),
        ("char", ArgKind::Pod, 16, 1)
    );
    // float3 has the size and alignment of float4.
    assert_eq!(
        (a[4].type_name.as_str(), a[4].offset, a[4].size),
        ("float3", 32, 16)
    );
    assert_eq!((a[5].offset, a[5].size), (48, 8));
    // Implicit fields follow the arguments.
    assert!(k.implicit.iter().all(|&(_, off)| off >= 56 && off % 4 == 0));
    assert!(k
        .implicit
        .iter()
        .any(|&(f, _)| f == ImplicitField::GlobalOffset(0)));
    assert_eq!(k.push_constant_size, 56 + 4 * k.implicit.len() as u32);
    assert_eq!(k.arg_buffer, None);
}

#[test]
fn large_argument_blocks_go_to_an_arg_buffer() {
    let src = "kernel void k(global float *o, float16 a, float16 b) { o[get_global_id(0)] = a.s0 + b.sf; }";
    let p = build_source(src, "", &caps()).unwrap();
    let k = &p.kernels[0];
    assert_eq!(k.arg_buffer.as_ref().expect("argument buffer").size, 192);
    // float16 is 64-byte aligned.
    assert_eq!((k.args[1].offset, k.args[1].size), (64, 64));
    assert_eq!((k.args[2].offset, k.args[2].size), (128, 64));

    let src = "typedef struct { float v[40]; } Big;\n\
               kernel void k(global float *o, Big a) { o[get_global_id(0)] = a.v[3] + a.v[39]; }";
    let p = build_source(src, "", &caps()).unwrap();
    let k = &p.kernels[0];
    let ab = k.arg_buffer.clone().expect("argument buffer");
    assert_eq!(ab.address_offset, 0);
    assert_eq!(ab.size, 168);
    assert_eq!(k.args[1].offset, 8);
    assert_eq!(k.args[1].size, 160);
    assert!(k.implicit.iter().all(|&(_, off)| off >= 8));
    assert_eq!(k.push_constant_size, 8 + 4 * k.implicit.len() as u32);
}

#[test]
fn several_kernels_and_build_il() {
    let src = "kernel void one(global int *p) { p[0] = 1; }\nkernel void two(global int *p, int v) { p[1] = v; }";
    let p = build_source(src, "", &caps()).unwrap();
    let names: Vec<&str> = p.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["one", "two"]);

    // The same through IL made by the front-end tools.
    let il = common::il_of(src, "api-kernel-names");
    let p = build_il(&il, "", &caps()).unwrap();
    assert_eq!(p.kernels.len(), 2);
    let two = &p.kernels[1];
    assert_eq!(two.name, "two");
    assert_eq!(two.args[1].name, "v");
    assert_eq!(two.args[1].type_name, "uint");
    assert_eq!((two.args[1].offset, two.args[1].size), (8, 4));

    let e = build_il(b"not spir-v at all", "", &caps()).unwrap_err();
    assert!(!e.invalid_options);
}

#[test]
fn concurrent_builds() {
    let threads: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let src =
                    format!("kernel void k{i}(global int *p) {{ p[get_global_id(0)] = {i}; }}");
                let p = build_source(&src, "", &caps()).unwrap();
                assert_eq!(p.kernels[0].name, format!("k{i}"));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn program_scope_global_variables_layout() {
    // a: 4 bytes at 0; b: 8 at 4; p: a pointer to b[1] at 16 (aligned to
    // 8), initialised to offset 8 with a relocation; s: {char, int*} at 24.
    let src = "int a = 5;\n\
               global int b[2] = {6, 7};\n\
               global int *p = &b[1];\n\
               struct S { char c; global int *q; } s = {9, &a};\n\
               kernel void k(global int *o) { o[0] = a + *p + *s.q; a = 1; }\n\
               kernel void none(global int *o) { o[0] = 0; }";
    let p = build_source(src, "-cl-std=CL2.0", &caps()).unwrap();
    let g = &p.global_variables;
    assert_eq!(g.size, 40);
    let mut want = vec![0u8; 40];
    want[0..4].copy_from_slice(&5i32.to_le_bytes());
    want[4..8].copy_from_slice(&6i32.to_le_bytes());
    want[8..12].copy_from_slice(&7i32.to_le_bytes());
    want[16..24].copy_from_slice(&8u64.to_le_bytes());
    want[24] = 9;
    want[32..40].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(g.init, want);
    assert_eq!(g.relocations, vec![16, 32]);
    // Only the kernel that touches the variables reads the buffer address.
    let k = p.kernels.iter().find(|k| k.name == "k").unwrap();
    let fields: Vec<ImplicitField> = k.implicit.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        fields,
        [
            ImplicitField::GlobalVariables(0),
            ImplicitField::GlobalVariables(1)
        ]
    );
    let none = p.kernels.iter().find(|k| k.name == "none").unwrap();
    assert!(none.implicit.is_empty());
    // Without program-scope variables the program has none.
    let p = build_source("kernel void k(global int *o) { o[0] = 1; }", "", &caps()).unwrap();
    assert_eq!(p.global_variables.size, 0);
}

#[test]
fn program_scope_globals_need_opencl_c_2() {
    let e = build_source(
        "global int a;\nkernel void k(global int *o) { o[0] = a; }",
        "",
        &caps(),
    )
    .unwrap_err();
    assert!(e.log.contains("input.cl:1"), "{}", e.log);
}

#[test]
fn printf_calls_are_reflected() {
    let src = "kernel void k(global float4 *v, char c) {\n\
               printf(\"%v4hlf %d %s\\n\", v[0], c, \"str\");\n\
               printf(\"plain\\n\");\n}";
    let p = build_source(src, "", &caps()).unwrap();
    let k = &p.kernels[0];
    assert_eq!(k.printf.len(), 2);
    assert_eq!(k.printf[0].format, "%v4hlf %d %s\n");
    let a = &k.printf[0].args;
    assert_eq!(a.len(), 3);
    assert_eq!(
        (a[0].kind, a[0].bytes, a[0].components),
        (PrintfArgKind::Float, 4, 4)
    );
    // char is promoted to int.
    assert_eq!(
        (a[1].kind, a[1].bytes, a[1].components),
        (PrintfArgKind::Int, 4, 1)
    );
    assert_eq!(a[2].kind, PrintfArgKind::String);
    assert_eq!(k.printf[0].record_size(), 4 * (1 + 4 + 1 + 1));
    assert_eq!(k.printf[1].format, "plain\n");
    assert!(k.printf[1].args.is_empty());
    // The %s argument points into the kernel's constant data.
    let s = String::from_utf8_lossy(&k.printf_strings);
    assert!(s.contains("str\0"), "{s:?}");
    let fields: Vec<ImplicitField> = k.implicit.iter().map(|(f, _)| *f).collect();
    assert!(fields.contains(&ImplicitField::PrintfBuffer(0)));
    assert!(fields.contains(&ImplicitField::PrintfBuffer(1)));
}

#[test]
fn kernel_names_longer_than_file_names() {
    let name: String = "abcdefghijklmnopqrstuvwxyz".repeat(12);
    let src = format!("kernel void {name}(global int *o) {{ o[0] = 1; }}");
    let p = build_source(&src, "", &caps()).unwrap();
    assert_eq!(p.kernels[0].name, name);
}

#[test]
fn feature_macros_match_the_reported_features() {
    // OpenCL C 3.0: clang's header defines every optional feature for SPIR;
    // only what devices report may stay defined.
    let src = "kernel void k(global int *o) {\n\
               #if defined(__opencl_c_images) || defined(__opencl_c_read_write_images)\n\
               #error unsupported feature macro defined\n\
               #endif\n\
               #if !defined(__opencl_c_work_group_collective_functions) \\\n\
                 || !defined(__opencl_c_generic_address_space) \\\n\
                 || !defined(__opencl_c_ext_fp32_global_atomic_min_max) \\\n\
                 || !defined(__opencl_c_ext_fp64_local_atomic_add)\n\
               #error supported feature macro missing\n\
               #endif\n\
               #if !defined(__opencl_c_program_scope_global_variables) || !defined(__opencl_c_fp64) \\\n\
                 || !defined(__opencl_c_int64) || !defined(__opencl_c_atomic_order_acq_rel) \\\n\
                 || !defined(__opencl_c_atomic_order_seq_cst) || !defined(__opencl_c_atomic_scope_device) \\\n\
                 || !defined(__opencl_c_atomic_scope_all_devices)\n\
               #error supported feature macro missing\n\
               #endif\n\
               o[0] = 1; }";
    build_source(src, "-cl-std=CL3.0", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    // Without sub-group arithmetic no work-group collectives; without
    // 64-bit atomics no double atomics; without cl_khr_fp16 no half ones.
    // Half atomics with cl_khr_fp16 only.
    let fp16 = "kernel void k(global int *o) {\n\
               #if !defined(__opencl_c_ext_fp16_global_atomic_add) \\\n\
                 || !defined(__opencl_c_ext_fp16_local_atomic_load_store) \\\n\
                 || !defined(__opencl_c_ext_fp16_global_atomic_min_max)\n\
               #error supported feature macro missing\n\
               #endif\n\
               o[0] = 1; }";
    let with_fp16 = DeviceCaps {
        fp16: true,
        ..caps()
    };
    build_source(fp16, "-cl-std=CL3.0", &with_fp16).unwrap_or_else(|e| panic!("{}", e.log));
    let src = "kernel void k(global int *o) {\n\
               #if defined(__opencl_c_work_group_collective_functions) \\\n\
                 || defined(__opencl_c_ext_fp64_global_atomic_add) \\\n\
                 || defined(__opencl_c_ext_fp16_global_atomic_add) \\\n\
                 || defined(__opencl_c_ext_fp16_local_atomic_load_store)\n\
               #error unsupported feature macro defined\n\
               #endif\n\
               o[0] = 1; }";
    let lesser = DeviceCaps {
        subgroup_ops: 0,
        int64_atomics: false,
        fp16: false,
        ..caps()
    };
    build_source(src, "-cl-std=CL3.0", &lesser).unwrap_or_else(|e| panic!("{}", e.log));
}

#[test]
fn il_with_decoration_groups_builds() {
    // A kernel whose parameters are decorated through a decoration group
    // (deprecated, but found in SPIR-V that applications load).
    let asm = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
               OpDecorate %grp FuncParamAttr NoAlias
               OpDecorate %grp FuncParamAttr NoCapture
        %grp = OpDecorationGroup
               OpGroupDecorate %grp %a %b
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
       %void = OpTypeVoid
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr %ptr
          %k = OpFunction %void None %fn
          %a = OpFunctionParameter %ptr
          %b = OpFunctionParameter %ptr
      %entry = OpLabel
          %x = OpLoad %uint %a Aligned 4
          %y = OpIAdd %uint %x %x
               OpStore %b %y Aligned 4
               OpReturn
               OpFunctionEnd
"#;
    let spv = assemble("decogroup", asm, "spv1.0");
    let p = build_il(&spv, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    assert_eq!(p.kernels[0].args.len(), 2);
}

/// `asm` assembled by spirv-as for `env` (e.g. "spv1.4").
fn assemble(name: &str, asm: &str, env: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("ferrocl-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.spvasm"), asm).unwrap();
    let ok = std::process::Command::new("spirv-as")
        .args(["--target-env", env, "k.spvasm", "-o", "k.spv"])
        .current_dir(&dir)
        .status()
        .expect("spirv-as")
        .success();
    assert!(ok, "spirv-as failed on {name}");
    let spv = std::fs::read(dir.join("k.spv")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    spv
}

#[test]
fn il_copy_logical_between_twin_structs_builds() {
    // SPIR-V 1.4's OpCopyLogical between two distinct but identical struct
    // types, which the lowering maps to one type: a plain copy then
    // (spirv-val rejects OpCopyLogical from a type to itself).
    let asm = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
       %uint = OpTypeInt 32 0
       %void = OpTypeVoid
       %pair = OpTypeStruct %uint %uint
      %twin = OpTypeStruct %uint %uint
     %p_pair = OpTypePointer CrossWorkgroup %pair
     %p_twin = OpTypePointer CrossWorkgroup %twin
         %fn = OpTypeFunction %void %p_pair %p_twin
          %k = OpFunction %void None %fn
        %src = OpFunctionParameter %p_pair
        %dst = OpFunctionParameter %p_twin
      %entry = OpLabel
          %v = OpLoad %pair %src Aligned 4
          %c = OpCopyLogical %twin %v
               OpStore %dst %c Aligned 4
               OpReturn
               OpFunctionEnd
"#;
    let spv = assemble("copylogical", asm, "spv1.4");
    let p = build_il(&spv, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    assert_eq!(p.kernels[0].args.len(), 2);
}

#[test]
fn many_image_arguments_keep_their_fields_in_the_arg_buffer() {
    let mut c = caps();
    c.images = true;
    let params: Vec<String> = (0..40)
        .map(|i| format!("read_only image2d_t i{i}"))
        .collect();
    let body: String = (0..40)
        .map(|i| format!("s += get_image_channel_order(i{i}) + get_image_width(i{i});"))
        .collect();
    let src = format!(
        "kernel void k(global int* o, {}) {{ int s = 0; {body} o[0] = s; }}",
        params.join(", ")
    );
    let p = build_source(&src, "", &c).unwrap();
    let k = &p.kernels[0];
    let ab = k.arg_buffer.as_ref().expect("argument buffer");
    // The pointer argument, then one word per image's channel order.
    assert_eq!(ab.implicit.len(), 40, "{:?}", ab.implicit);
    assert_eq!(ab.size, 8 + 4 * 40);
    for (n, &(f, off)) in ab.implicit.iter().enumerate() {
        assert!(matches!(
            f,
            ferrocl_compiler::ImplicitField::ImageChannelOrder(_)
        ));
        assert_eq!(off, 8 + 4 * n as u32);
    }
    assert!(k.push_constant_size <= c.max_push_constant_size);
    assert!(k
        .implicit
        .iter()
        .all(|(f, _)| !matches!(f, ferrocl_compiler::ImplicitField::ImageChannelOrder(_))));
}

/// LLVM's -O2 writes a loop's closed-form exit value in 33 bits and a
/// switch on `x & 7` in 3 bits; llvm-spirv-15 rejects both widths. Such
/// programs are optimized again with the native integer widths
/// (`frontend::optimize_with_native_widths`). Both kernels failed to build
/// before (found by tests/corpus).
#[test]
fn loops_and_switches_that_llvm_narrows_to_odd_widths_build() {
    let src = "kernel void tri(global int* o, int n) { int s = 0; for (int j = 0; j < n; j++) s += j; o[0] = s; }\n\
               kernel void sw(global int* a, global int* o) { int i = get_global_id(0); int r = 0;\n\
               switch (a[i] & 7) { case 0: r += 1; case 1: r += 10; break; case 2: case 3: r = 100; break; case 5: r = -5; default: r += 1000; }\n\
               o[i] = r; }";
    let p = build_source(src, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    assert_eq!(p.kernels.len(), 2);
}

/// Switch cases that branch straight to the block after the switch: LLVM's
/// phi there lists the switch block once per case, and llvm-spirv-15 keeps
/// the repeats, which SPIR-V forbids (`pipeline::dedupe_phi_parents`).
/// Failed to build before (found while reproducing the switch tables of
/// the native-widths pipeline).
#[test]
fn switch_cases_sharing_a_target_build() {
    let src =
        "kernel void k(global const int* a, global int* o) { int i = get_global_id(0); int r;\n\
               switch (a[i]) { case 1: case 3: case 5: case 6: case 100: r = 1; break;\n\
               case -7: case 8: r = -1; break; default: r = a[i + 1]; }\n\
               o[i] = r; }";
    build_source(src, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
}

/// Dense switches that pick constants, in kernels that take the
/// native-widths pipeline (a switch on `x & 15`, a loop's 33-bit closed
/// form): SimplifyCFG made them lookup tables (a private global in the
/// default address space, which llvm-spirv-15 gives the Function storage
/// class at module scope) or bitmaps (`i56` for seven chars); the pipeline
/// now leaves switches as switches.
#[test]
fn switches_picking_constants_build_with_native_widths() {
    let cases = [
        ("int", "13 27 -5 99 1000 7 42"),
        ("long", "1L 5000000000L -3L 7L 12L 9L 100L"),
        ("char", "1 5 -3 127 -128 9 100"),
        ("short", "1 -32768 32767 12345 -2"),
        ("uchar", "200 17 255"),
    ];
    for (ty, values) in cases {
        let arms: String = values
            .split(' ')
            .enumerate()
            .map(|(k, v)| format!("case {k}: r = {v}; break; "))
            .collect();
        let src = format!(
            "kernel void k(global const int* a, global {ty}* o) {{ int i = get_global_id(0);\n\
             int s = 0; for (int j = 0; j < (a[i] & 255); j++) s += j;\n\
             {ty} r; switch (a[i] & 15) {{ {arms}default: r = 0; }}\n\
             o[i] = r + ({ty})s; }}"
        );
        build_source(&src, "", &caps()).unwrap_or_else(|e| panic!("{ty}: {}", e.log));
    }
}

/// convert_T_rtz/rtn/rtp from 64-bit integers (to half, float, double)
/// and from 16/32-bit ones to half: Vulkan rounds to nearest, so the
/// lowering compares the result with the source exactly and steps one
/// ulp (`int_to_float_directed`); the modules validate. Values:
/// tests/corpus/conv_*_rounding_*.cl.
#[test]
fn directed_rounding_from_wide_integers_builds() {
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
               kernel void k(global const long* a, global ulong* o) { int i = get_global_id(0);\n\
               long x = a[i];\n\
               o[4 * i] = as_ushort(convert_half_rtz((ulong)x)) + as_ushort(convert_half_rtn((int)x))\n\
                        + as_ushort(convert_half_rtp((ushort)x));\n\
               o[4 * i + 1] = as_uint(convert_float_rtn(x)) + as_uint(convert_float_rtz((ulong)x));\n\
               o[4 * i + 2] = as_ulong(convert_double_rtp(x)) + as_ulong(convert_double_rtz((ulong)x));\n\
               o[4 * i + 3] = as_ulong(convert_double3_rtn(vload3(0, a)).s2); }";
    let mut c = caps();
    c.fp16 = true;
    build_source(src, "", &c).unwrap_or_else(|e| panic!("{}", e.log));
}
