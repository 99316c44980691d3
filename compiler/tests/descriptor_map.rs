//! `ferrocl-cc -descriptormap`: the descriptor maps of the seed's example
//! kernel (shared/seeds/opencl-c-on-vulkan.md), byte for byte, in each
//! mode; every output module passes spirv-val (Vulkan). Also the build
//! errors of descriptor addressing.

use std::path::PathBuf;
use std::process::Command;

use ferrocl_compiler::{build_source, Addressing, DescriptorOptions, DeviceCaps};

mod common;

const FOO: &str = "void kernel foo(global int* a, float f, global float* b, uint c) {\n\
    size_t i = get_global_id(0);\n\
    b[i] = a[i] * f + b[i] + c;\n\
}\n";

const SAMPLER_MAP: &str =
    "CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST,\n\
     CLK_NORMALIZED_COORDS_TRUE  | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR\n";

const SAMPLERS: &str = "\
sampler,18,samplerExpr,\"CLK_ADDRESS_CLAMP_TO_EDGE|CLK_FILTER_NEAREST|CLK_NORMALIZED_COORDS_FALSE\",descriptorSet,0,binding,0
sampler,35,samplerExpr,\"CLK_ADDRESS_CLAMP_TO_EDGE|CLK_FILTER_LINEAR|CLK_NORMALIZED_COORDS_TRUE\",descriptorSet,0,binding,1
";

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("ferrocl-descmap-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs ferrocl-cc on FOO with `flags`; returns the descriptor map after
/// checking the module with spirv-val.
fn run(tag: &str, flags: &[&str]) -> String {
    let d = dir();
    let src = d.join("foo.cl");
    std::fs::write(&src, FOO).unwrap();
    std::fs::write(d.join("mysamplermap"), SAMPLER_MAP).unwrap();
    let spv = d.join(format!("{tag}.spv"));
    let map = d.join(format!("{tag}.csv"));
    let out = Command::new(env!("CARGO_BIN_EXE_ferrocl-cc"))
        .current_dir(&d)
        .arg(&src)
        .arg("-o")
        .arg(&spv)
        .arg(format!("-descriptormap={}", map.display()))
        .args(flags)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{tag}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::spirv_val_file(&spv, tag);
    std::fs::read_to_string(map).unwrap()
}

#[test]
fn plain() {
    assert_eq!(
        run("plain", &[]),
        "\
kernel,foo,arg,a,argOrdinal,0,descriptorSet,0,binding,0,offset,0,argKind,buffer
kernel,foo,arg,f,argOrdinal,1,descriptorSet,0,binding,1,offset,0,argKind,pod
kernel,foo,arg,b,argOrdinal,2,descriptorSet,0,binding,2,offset,0,argKind,buffer
kernel,foo,arg,c,argOrdinal,3,descriptorSet,0,binding,3,offset,0,argKind,pod
"
    );
}

#[test]
fn sampler_map() {
    let expected = format!(
        "{SAMPLERS}\
kernel,foo,arg,a,argOrdinal,0,descriptorSet,1,binding,0,offset,0,argKind,buffer
kernel,foo,arg,f,argOrdinal,1,descriptorSet,1,binding,1,offset,0,argKind,pod
kernel,foo,arg,b,argOrdinal,2,descriptorSet,1,binding,2,offset,0,argKind,buffer
kernel,foo,arg,c,argOrdinal,3,descriptorSet,1,binding,3,offset,0,argKind,pod
"
    );
    assert_eq!(run("samplermap", &["-samplermap=mysamplermap"]), expected);
}

#[test]
fn pod_ubo() {
    assert_eq!(
        run("podubo", &["-pod-ubo"]),
        "\
kernel,foo,arg,a,argOrdinal,0,descriptorSet,0,binding,0,offset,0,argKind,buffer
kernel,foo,arg,f,argOrdinal,1,descriptorSet,0,binding,1,offset,0,argKind,pod_ubo
kernel,foo,arg,b,argOrdinal,2,descriptorSet,0,binding,2,offset,0,argKind,buffer
kernel,foo,arg,c,argOrdinal,3,descriptorSet,0,binding,3,offset,0,argKind,pod_ubo
"
    );
}

#[test]
fn clustered() {
    assert_eq!(
        run("cluster", &["-cluster-pod-kernel-args"]),
        "\
kernel,foo,arg,a,argOrdinal,0,descriptorSet,0,binding,0,offset,0,argKind,buffer
kernel,foo,arg,b,argOrdinal,2,descriptorSet,0,binding,1,offset,0,argKind,buffer
kernel,foo,arg,f,argOrdinal,1,descriptorSet,0,binding,2,offset,0,argKind,pod
kernel,foo,arg,c,argOrdinal,3,descriptorSet,0,binding,2,offset,4,argKind,pod
"
    );
}

#[test]
fn clustered_with_sampler_map() {
    let expected = format!(
        "{SAMPLERS}\
kernel,foo,arg,a,argOrdinal,0,descriptorSet,1,binding,0,offset,0,argKind,buffer
kernel,foo,arg,b,argOrdinal,2,descriptorSet,1,binding,1,offset,0,argKind,buffer
kernel,foo,arg,f,argOrdinal,1,descriptorSet,1,binding,2,offset,0,argKind,pod
kernel,foo,arg,c,argOrdinal,3,descriptorSet,1,binding,2,offset,4,argKind,pod
"
    );
    assert_eq!(
        run(
            "cluster-samplermap",
            &["-cluster-pod-kernel-args", "-samplermap=mysamplermap"]
        ),
        expected
    );
}

fn caps(sampler_map: Vec<u32>) -> DeviceCaps {
    DeviceCaps {
        addressing: Addressing::Descriptor,
        descriptor: DescriptorOptions {
            sampler_map,
            ..Default::default()
        },
        ..common::test_caps()
    }
}

/// printf builds with descriptor addressing: its buffer is the binding
/// after the arguments' (not a descriptor-map entry of an argument).
#[test]
fn printf_gets_the_binding_after_the_arguments() {
    let src = "kernel void k(global int *a, int n) {\n  printf(\"%d\\n\", a[n]);\n}\n";
    let p = build_source(src, "", &caps(Vec::new())).unwrap_or_else(|e| panic!("{}", e.log));
    let k = &p.kernels[0];
    assert_eq!(k.printf_binding, Some(2));
    assert_eq!(k.descriptor_set, Some(0));
    let bindings: Vec<u32> = k
        .args
        .iter()
        .filter_map(|a| a.descriptor.map(|d| d.binding))
        .collect();
    assert_eq!(bindings, [0, 1]);
}

#[test]
fn literal_sampler_must_be_in_the_sampler_map() {
    let src = "constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n\
        kernel void k(read_only image2d_t img, global float4 *out) {\n\
          out[0] = read_imagef(img, s, (int2)(0, 0));\n\
        }\n";
    let e = build_source(src, "", &caps(vec![0x12])).unwrap_err();
    assert!(
        e.log
            .contains("literal sampler 0x14 is not in the sampler map"),
        "{}",
        e.log
    );
    // In the map: builds, arguments in set 1.
    let p = build_source(src, "", &caps(vec![0x12, 0x14])).unwrap();
    assert_eq!(p.kernels[0].descriptor_set, Some(1));
    assert_eq!(p.kernels[0].literal_samplers, vec![0x12, 0x14]);
}
