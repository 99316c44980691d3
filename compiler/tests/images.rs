//! Images and samplers through the public API: reflection (argument
//! kinds, bindings, descriptor set, literal samplers, implicit fields),
//! errors, feature macros, build_il. Every module a build returns has
//! passed spirv-val (Vulkan 1.2) inside the build.

use std::process::Command;

use ferrocl_compiler::{
    build_il, build_source, AccessQualifier, AddressQualifier, ArgKind, DeviceCaps,
    ImageDescriptor, ImageDim, ImplicitField, Kernel,
};

mod common;

fn caps() -> DeviceCaps {
    common::test_caps()
}

fn build(src: &str, options: &str) -> Vec<Kernel> {
    build_source(src, options, &caps())
        .unwrap_or_else(|e| panic!("{}", e.log))
        .kernels
}

fn scratch(tag: &str) -> std::path::PathBuf {
    // Tests run in parallel and kernels share names: one directory per call.
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ferrocl-images-{}-{tag}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The kernel's module as spirv-dis text.
fn disassemble(k: &Kernel) -> String {
    let dir = scratch(&k.name);
    let f = dir.join("k.spv");
    let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&f, bytes).unwrap();
    let out = Command::new("spirv-dis")
        .args(["--no-header", "--no-color", "--raw-id"])
        .arg(&f)
        .output()
        .expect("spirv-dis runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The (set, binding) decorations of the module's variables.
fn bindings(k: &Kernel) -> Vec<(u32, u32)> {
    let text = disassemble(k);
    let mut sets = std::collections::BTreeMap::new();
    let mut binds = std::collections::BTreeMap::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.as_slice() {
            ["OpDecorate", id, "DescriptorSet", v] => {
                sets.insert(id.to_string(), v.parse::<u32>().unwrap());
            }
            ["OpDecorate", id, "Binding", v] => {
                binds.insert(id.to_string(), v.parse::<u32>().unwrap());
            }
            _ => {}
        }
    }
    let mut v: Vec<(u32, u32)> = sets.iter().map(|(id, s)| (*s, binds[id])).collect();
    v.sort();
    v
}

#[test]
fn image_and_sampler_arguments_are_reflected() {
    let src = "kernel void k(read_only image2d_t a, global float4 *out, write_only image3d_t b,
                             read_write image2d_array_t c, read_only image1d_buffer_t d,
                             write_only image1d_buffer_t e, sampler_t s, int n,
                             read_only image1d_array_t f, write_only image1d_t g) {
        int i = get_global_id(0);
        float4 v = read_imagef(a, s, (float2)(i, n)) + read_imagef(f, s, (float2)(0.5f, 1));
        write_imagef(b, (int4)(i, 0, 0, 0), v);
        write_imagef(c, (int4)(i, 0, 1, 0), read_imagef(c, (int4)(i, 1, 0, 0)));
        write_imageui(e, i, read_imageui(d, i));
        write_imagef(g, i, v);
        out[i] = v;
    }";
    let k = &build(src, "-cl-std=CL2.0")[0];
    let a = &k.args;
    let image = |dim, descriptor, binding| ArgKind::Image {
        dim,
        descriptor,
        binding,
        buffer_binding: None,
        level_binding: None,
    };
    let expect = [
        (
            "a",
            "image2d_t",
            AccessQualifier::ReadOnly,
            image(ImageDim::D2, ImageDescriptor::Sampled, 0),
        ),
        (
            "b",
            "image3d_t",
            AccessQualifier::WriteOnly,
            image(ImageDim::D3, ImageDescriptor::Storage, 2),
        ),
        (
            "c",
            "image2d_array_t",
            AccessQualifier::ReadWrite,
            image(ImageDim::D2Array, ImageDescriptor::Storage, 3),
        ),
        (
            "d",
            "image1d_buffer_t",
            AccessQualifier::ReadOnly,
            image(ImageDim::D1Buffer, ImageDescriptor::UniformTexel, 4),
        ),
        (
            "e",
            "image1d_buffer_t",
            AccessQualifier::WriteOnly,
            image(ImageDim::D1Buffer, ImageDescriptor::StorageTexel, 5),
        ),
        (
            "f",
            "image1d_array_t",
            AccessQualifier::ReadOnly,
            image(ImageDim::D1Array, ImageDescriptor::Sampled, 8),
        ),
        (
            "g",
            "image1d_t",
            AccessQualifier::WriteOnly,
            image(ImageDim::D1, ImageDescriptor::Storage, 9),
        ),
    ];
    for (name, ty, access, kind) in expect {
        let arg = a.iter().find(|x| x.name == name).unwrap();
        assert_eq!(arg.type_name, ty, "{name}");
        assert_eq!(arg.access_qualifier, access, "{name}");
        assert_eq!(arg.address_qualifier, AddressQualifier::Global, "{name}");
        assert_eq!((arg.kind, arg.offset, arg.size), (kind, 0, 0), "{name}");
    }
    let s = &a[6];
    assert_eq!((s.name.as_str(), s.type_name.as_str()), ("s", "sampler_t"));
    assert_eq!(s.address_qualifier, AddressQualifier::Private);
    assert_eq!((s.kind, s.size), (ArgKind::Sampler { binding: 6 }, 0));
    // Images and samplers take no argument-block bytes.
    assert_eq!((a[1].kind, a[1].offset, a[1].size), (ArgKind::Buffer, 0, 8));
    assert_eq!((a[7].kind, a[7].offset, a[7].size), (ArgKind::Pod, 8, 4));
    assert_eq!(k.descriptor_set, Some(0));
    assert!(k.literal_samplers.is_empty());
    // Every used image argument is bound at (0, its position); samplers
    // are emulated from their SamplerValue, so the shader declares none.
    assert_eq!(
        bindings(k),
        [(0, 0), (0, 2), (0, 3), (0, 4), (0, 5), (0, 8), (0, 9)]
    );
    assert!(k
        .implicit
        .iter()
        .any(|&(f, _)| f == ImplicitField::SamplerValue(6)));
}

#[test]
fn literal_samplers_need_no_descriptor() {
    // Filtering and addressing are emulated (OpImageFetch), so literal
    // samplers, LINEAR ones included, need no Vulkan sampler: no set 0 of
    // literal samplers, the arguments stay in set 0.
    let src = "const sampler_t lin = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
        kernel void k(global float4 *out, read_only image2d_t img) {
            const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
            float2 p = (float2)(get_global_id(0), 0.5f);
            out[get_global_id(0)] = read_imagef(img, lin, p) + read_imagef(img, edge, p)
                                  + read_imagef(img, lin, p * 2);
        }";
    let k = &build(src, "")[0];
    assert!(k.literal_samplers.is_empty());
    assert_eq!(k.descriptor_set, Some(0));
    assert_eq!(bindings(k), [(0, 1)]);
    let text = disassemble(k);
    assert!(text.contains("OpImageFetch"));
    assert!(!text.contains("OpImageSampleExplicitLod"));
    assert!(!text.contains("OpTypeSampler"));
}

#[test]
fn nearest_literal_samplers_fetch_and_read_the_channel_order_only_for_clamp() {
    let src = "kernel void k(global int4 *out, read_only image2d_t a, read_only image2d_t b) {
            const sampler_t clamp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
            const sampler_t rep = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;
            int i = get_global_id(0);
            out[i] = read_imagei(a, clamp, (int2)(i, 0)) + read_imagei(b, rep, (float2)(0.3f, 1.7f));
        }";
    let k = &build(src, "")[0];
    // NEAREST needs no Vulkan sampler at all.
    assert!(k.literal_samplers.is_empty());
    assert_eq!(k.descriptor_set, Some(0));
    let orders: Vec<ImplicitField> = k
        .implicit
        .iter()
        .map(|&(f, _)| f)
        .filter(|f| matches!(f, ImplicitField::ImageChannelOrder(_)))
        .collect();
    assert_eq!(orders, [ImplicitField::ImageChannelOrder(1)]);
    let text = disassemble(k);
    assert_eq!(text.matches("OpImageFetch").count(), 2);
    assert!(!text.contains("OpSampledImage"));
    // Integer texels: a signed sampled type.
    assert!(text.contains("OpTypeInt 32 1"), "{text}");
}

#[test]
fn storage_images_read_their_channel_order() {
    let src = "kernel void k(read_write image2d_t img, read_only image2d_t ro) {
            int2 p = (int2)(get_global_id(0), 0);
            write_imagef(img, p, read_imagef(img, p) + read_imagef(ro, p));
            int4 d = (int4)(get_image_channel_data_type(ro), get_image_channel_order(ro), 0, 0);
            write_imagef(img, p + 1, convert_float4(d));
        }";
    let k = &build(src, "-cl-std=CL3.0")[0];
    let fields: Vec<ImplicitField> = k.implicit.iter().map(|&(f, _)| f).collect();
    // The storage image's order swizzles; the sampled one's only answers
    // get_image_channel_order.
    assert!(fields.contains(&ImplicitField::ImageChannelOrder(0)));
    assert!(fields.contains(&ImplicitField::ImageChannelOrder(1)));
    assert!(fields.contains(&ImplicitField::ImageChannelDataType(1)));
    assert!(!fields.contains(&ImplicitField::ImageChannelDataType(0)));
    let text = disassemble(k);
    assert!(text.contains("OpCapability StorageImageReadWithoutFormat"));
    assert!(text.contains("OpCapability StorageImageWriteWithoutFormat"));
    assert!(text.contains("OpImageRead"));
    assert!(text.contains("OpImageFetch"));
}

#[test]
fn images_passed_to_functions_at_every_optimization_level() {
    let src = "float4 get(read_only image2d_t im, sampler_t s, int2 c) {
            return read_imagef(im, s, convert_float2(c)) * get_image_width(im);
        }
        float4 twice(read_only image2d_t im, sampler_t s, int2 c) { return get(im, s, c) * 2; }
        void put(write_only image2d_t im, int2 c, float4 v) { write_imagef(im, c, v); }
        kernel void k(read_only image2d_t a, read_only image2d_t b, sampler_t smp, write_only image2d_t o) {
            const sampler_t lit = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
            int2 p = (int2)(get_global_id(0), 1);
            put(o, p, twice(a, smp, p) + twice(b, smp, p) + get(a, lit, p));
        }
        kernel void other(read_only image2d_t x, write_only image2d_t y) {
            const sampler_t lit = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
            put(y, (int2)(0, 0), twice(x, lit, (int2)(1, 1)));
        }";
    for options in ["", "-cl-opt-disable"] {
        let ks = build(src, options);
        let k = ks.iter().find(|k| k.name == "k").unwrap();
        assert_eq!(k.descriptor_set, Some(0), "{options}");
        assert_eq!(bindings(k), [(0, 0), (0, 1), (0, 3)], "{options}");
        let other = ks.iter().find(|k| k.name == "other").unwrap();
        assert!(other.literal_samplers.is_empty(), "{options}");
        assert_eq!(other.descriptor_set, Some(0), "{options}");
    }
}

#[test]
fn half_texels_convert_to_float() {
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(read_only image2d_t a, sampler_t s, write_only image2d_t b) {
            int2 p = (int2)(get_global_id(0), 0);
            half4 h = read_imageh(a, s, p) + read_imageh(a, p);
            write_imageh(b, p, h * (half)2);
        }";
    let mut c = caps();
    c.fp16 = true;
    let p = build_source(src, "", &c).unwrap_or_else(|e| panic!("{}", e.log));
    let text = disassemble(&p.kernels[0]);
    assert!(text.contains("OpFConvert"), "{text}");
    assert!(!text.contains("OpTypeImage %half"), "{text}");
}

#[test]
fn images_need_device_support() {
    let src = "kernel void k(global float4 *out,\n    read_only image2d_t src) {\n  \
               out[0] = read_imagef(src, (int2)(0, 0));\n}\n";
    let mut c = caps();
    c.images = false;
    let e = build_source(src, "", &c).unwrap_err();
    assert!(!e.invalid_options);
    assert!(
        e.log
            .contains("images are not supported by the device (image2d_t argument 'src')"),
        "{}",
        e.log
    );
    assert!(e.log.contains("input.cl:"), "{}", e.log);
    // A kernel without images still builds.
    let ok = "kernel void k(global int *o) { o[0] = 1; }";
    assert!(build_source(ok, "", &c).is_ok());
}

#[test]
fn one_image_read_as_float_and_int_is_an_error() {
    let src = "kernel void k(read_only image2d_t img, global float4 *o) {\n\
               o[0] = read_imagef(img, (int2)(0, 0));\n\
               o[1] = convert_float4(read_imagei(img, (int2)(1, 0)));\n}\n";
    let e = build_source(src, "", &caps()).unwrap_err();
    assert!(
        e.log
            .contains("image argument 'img' is accessed both as float"),
        "{}",
        e.log
    );
    assert!(e.log.contains("input.cl:3"), "{}", e.log);
    let src = "kernel void k(read_only image2d_t img, global uint4 *o) {\n\
               o[0] = read_imageui(img, (int2)(0, 0));\n\
               o[1] = as_uint4(read_imagei(img, (int2)(1, 0)));\n}\n";
    let e = build_source(src, "", &caps()).unwrap_err();
    assert!(e.log.contains("accessed both as uint"), "{}", e.log);
}

#[test]
fn image_feature_macros_follow_the_device() {
    let src = "kernel void k(global int *o) {\n\
               #if !defined(__IMAGE_SUPPORT__)\n#error no __IMAGE_SUPPORT__\n#endif\n\
               #if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 300\n\
               #if !defined(__opencl_c_images) || !defined(__opencl_c_read_write_images) \
                   || !defined(__opencl_c_3d_image_writes)\n\
               #error image feature macro missing\n#endif\n#endif\n\
               o[0] = 1; }";
    for std in ["-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0"] {
        build_source(src, std, &caps()).unwrap_or_else(|e| panic!("{std}: {}", e.log));
    }
    let mut c = caps();
    c.read_write_images = false;
    let e = build_source(src, "-cl-std=CL3.0", &c).unwrap_err();
    assert!(e.log.contains("image feature macro missing"), "{}", e.log);
    build_source(src, "-cl-std=CL1.2", &c).unwrap_or_else(|e| panic!("{}", e.log));
    c.images = false;
    let e = build_source(src, "-cl-std=CL3.0", &c).unwrap_err();
    assert!(e.log.contains("no __IMAGE_SUPPORT__"), "{}", e.log);
    // 3D image writes in OpenCL C 3.0.
    let w = "kernel void k(write_only image3d_t v) { write_imagef(v, (int4)(1, 2, 3, 0), (float4)(1)); }";
    build_source(w, "-cl-std=CL3.0", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
}

#[test]
fn il_image_arguments_are_reflected_from_the_types() {
    let dir = scratch("il");
    let asm = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability ImageBasic
               OpCapability LiteralSampler
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
               OpName %src "src"
               OpName %dst "dst"
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
    %v2uint = OpTypeVector %uint 2
   %v2float = OpTypeVector %float 2
   %v4float = OpTypeVector %float 4
       %void = OpTypeVoid
         %ro = OpTypeImage %void 2D 0 0 0 0 Unknown ReadOnly
         %wo = OpTypeImage %void 2D 0 0 0 0 Unknown WriteOnly
    %sampler = OpTypeSampler
         %si = OpTypeSampledImage %ro
    %float_0 = OpConstant %float 0
  %float_0_5 = OpConstant %float 0.5
         %uv = OpConstantComposite %v2float %float_0_5 %float_0_5
     %uint_0 = OpConstant %uint 0
         %xy = OpConstantComposite %v2uint %uint_0 %uint_0
        %lin = OpConstantSampler %sampler ClampToEdge 1 Linear
         %fn = OpTypeFunction %void %ro %wo
          %k = OpFunction %void None %fn
        %src = OpFunctionParameter %ro
        %dst = OpFunctionParameter %wo
      %entry = OpLabel
          %s = OpSampledImage %si %src %lin
          %v = OpImageSampleExplicitLod %v4float %s %uv Lod %float_0
               OpImageWrite %dst %xy %v
               OpReturn
               OpFunctionEnd
"#;
    std::fs::write(dir.join("k.spvasm"), asm).unwrap();
    let ok = Command::new("spirv-as")
        .args(["--target-env", "spv1.0", "k.spvasm", "-o", "k.spv"])
        .current_dir(&dir)
        .status()
        .expect("spirv-as")
        .success();
    assert!(ok);
    let spv = std::fs::read(dir.join("k.spv")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let p = build_il(&spv, "", &caps()).unwrap_or_else(|e| panic!("{}", e.log));
    let k = &p.kernels[0];
    let a = &k.args;
    assert_eq!(
        (a[0].name.as_str(), a[0].type_name.as_str()),
        ("src", "image2d_t")
    );
    assert_eq!(a[0].access_qualifier, AccessQualifier::ReadOnly);
    assert_eq!(a[0].address_qualifier, AddressQualifier::Global);
    assert_eq!(a[1].access_qualifier, AccessQualifier::WriteOnly);
    assert_eq!(
        a[1].kind,
        ArgKind::Image {
            dim: ImageDim::D2,
            descriptor: ImageDescriptor::Storage,
            binding: 1,
            buffer_binding: None,
            level_binding: None,
        }
    );
    assert!(k.literal_samplers.is_empty());
    assert_eq!(k.descriptor_set, Some(0));
}
