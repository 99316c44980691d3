//! Snapshot tests: every `tests/in/<name>.cl` is built and each kernel's
//! module, disassembled, must equal `tests/out/<name>.spvasm`
//! (`FERROCL_BLESS=1 cargo test` rewrites them; review with `git diff`).
//! Every module also passes `spirv-val --target-env vulkan1.2`.
//!
//! A first line `// options: ...` gives the build options. A line
//! `// descriptor: [-pod-ubo] [-cluster-pod-kernel-args]` among the first
//! three builds with descriptor addressing (`abi`) and those options.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ferrocl_compiler::{build_source, Addressing, DescriptorOptions, DeviceCaps, Kernel};

mod common;

fn caps() -> DeviceCaps {
    common::test_caps()
}

use common::{disassemble, spirv_val as validate};

/// The reflection, as comment lines above the disassembly.
fn reflection(k: &Kernel) -> String {
    let mut s = String::new();
    writeln!(s, "; kernel {}", k.name).unwrap();
    for a in &k.args {
        writeln!(
            s,
            ";   arg {} {}: {:?} {:?} qual {} {:?} offset {} size {}",
            a.type_name,
            a.name,
            a.address_qualifier,
            a.access_qualifier,
            a.type_qualifier,
            a.kind,
            a.offset,
            a.size
        )
        .unwrap();
        if let Some(d) = a.descriptor {
            writeln!(s, ";     {d:?}").unwrap();
        }
    }
    writeln!(
        s,
        ";   push_constant_size {} arg_buffer {:?} implicit {:?}",
        k.push_constant_size, k.arg_buffer, k.implicit
    )
    .unwrap();
    writeln!(
        s,
        ";   reqd {:?} hint {:?} vec_type_hint {:?} attributes {:?} local {} private {}",
        k.reqd_work_group_size,
        k.work_group_size_hint,
        k.vec_type_hint,
        k.attributes,
        k.static_local_size,
        k.private_size
    )
    .unwrap();
    if k.descriptor_set.is_some() || !k.literal_samplers.is_empty() {
        writeln!(
            s,
            ";   descriptor_set {:?} literal_samplers {:#x?}",
            k.descriptor_set, k.literal_samplers
        )
        .unwrap();
    }
    if let Some(b) = k.global_variables_binding {
        writeln!(s, ";   global_variables_binding {b}").unwrap();
    }
    if let Some(b) = k.printf_binding {
        writeln!(s, ";   printf_binding {b}").unwrap();
    }
    s
}

/// printf with descriptor addressing reaches its buffer through a storage
/// buffer binding (the one after every other), never a device address:
/// the modules have no PhysicalStorageBuffer pointer, no push-constant
/// printf field, and validate.
#[test]
fn descriptor_printf_uses_no_device_address() {
    let source = r#"
        __attribute__((noinline)) void note(int i) { printf("note %d\n", i); }
        kernel void show(global const int4 *v, global int *ret, int base) {
            int i = get_global_id(0);
            ret[i] = printf("%d %v4d %s\n", i + base, v[i], "s");
            note(i);
        }
        kernel void hello(void) { printf("hello\n"); }
    "#;
    for (pod_ubo, cluster_pod_args) in [(false, false), (true, false), (true, true)] {
        let mut caps = caps();
        caps.addressing = Addressing::Descriptor;
        caps.descriptor = DescriptorOptions {
            pod_ubo,
            cluster_pod_args,
            sampler_map: Vec::new(),
        };
        let program = build_source(source, "", &caps).expect("builds");
        for k in &program.kernels {
            let tag = format!("desc_printf_{pod_ubo}_{cluster_pod_args}");
            validate(k, &tag);
            let text = disassemble(k, &tag);
            assert!(!text.contains("PhysicalStorageBuffer"), "{tag}/{}", k.name);
            assert!(!text.contains("PhysicalStorageBufferAddresses"));
            assert!(k
                .implicit
                .iter()
                .all(|(f, _)| !matches!(f, ferrocl_compiler::ImplicitField::PrintfBuffer(_))));
            let binding = k.printf_binding.expect("printf binding");
            assert!(k.descriptor_set.is_some(), "{}", k.name);
            assert!(k
                .args
                .iter()
                .filter_map(|a| a.descriptor)
                .all(|d| d.binding < binding));
            assert!(text.contains(&format!("Binding {binding}")), "{text}");
        }
        assert_eq!(program.kernels[1].printf_binding, Some(0));
    }
}

/// With image/sampler fields spilled to a buffer binding of their own, the
/// printf buffer comes after it.
#[test]
fn descriptor_printf_after_spilled_image_fields() {
    let source = r#"
        kernel void k(read_only image2d_t a, read_only image2d_t b,
                      read_only image2d_t c, global int *out) {
            int o = get_image_channel_order(a) + get_image_channel_order(b)
                  + get_image_channel_data_type(c);
            out[0] = o;
            printf("%d\n", o);
        }
    "#;
    let mut caps = caps();
    caps.addressing = Addressing::Descriptor;
    caps.max_push_constant_size = 16;
    let program = build_source(source, "", &caps).expect("builds");
    let k = &program.kernels[0];
    validate(k, "desc_printf_spill");
    let text = disassemble(k, "desc_printf_spill");
    assert!(!text.contains("PhysicalStorageBuffer"));
    let spill = k
        .arg_buffer
        .as_ref()
        .and_then(|b| b.descriptor)
        .expect("spilled fields")
        .binding;
    assert_eq!(k.printf_binding, Some(spill + 1));
}

#[test]
fn snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let bless = std::env::var_os("FERROCL_BLESS").is_some();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(root.join("in"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 10);
    let mut failures = Vec::new();
    for input in inputs {
        let name = input.file_stem().unwrap().to_string_lossy().to_string();
        let source = std::fs::read_to_string(&input).unwrap();
        let options = source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// options:"))
            .unwrap_or("")
            .trim();
        let mut caps = caps();
        if let Some(flags) = source
            .lines()
            .take(3)
            .find_map(|l| l.strip_prefix("// descriptor:"))
        {
            caps.addressing = Addressing::Descriptor;
            caps.descriptor = DescriptorOptions {
                pod_ubo: flags.contains("-pod-ubo"),
                cluster_pod_args: flags.contains("-cluster-pod-kernel-args"),
                sampler_map: Vec::new(),
            };
        }
        // A device with cl_khr_image2d_from_buffer (2D image arguments get
        // a texel-buffer twin).
        if source
            .lines()
            .take(3)
            .any(|l| l.starts_with("// image2d_from_buffer"))
        {
            caps.image2d_from_buffer_args = 32;
        }
        // A device whose 64-bit division is ferrocl's own (NVIDIA).
        caps.soft_int64_division = source
            .lines()
            .take(3)
            .any(|l| l.starts_with("// soft_int64_division"));
        // A device whose 32-to-64-bit sign extensions are arithmetic
        // (lavapipe: expand_long_sign_extensions).
        caps.soft_long_sign_extension = source
            .lines()
            .take(3)
            .any(|l| l.starts_with("// soft_long_sign_extension"));
        let program = match build_source(&source, options, &caps) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: build failed: {}", e.log));
                continue;
            }
        };
        let mut text = String::new();
        for k in &program.kernels {
            validate(k, &name);
            text.push_str(&reflection(k));
            text.push_str(&disassemble(k, &name));
        }
        let expected_path = root.join("out").join(format!("{name}.spvasm"));
        if bless {
            std::fs::write(&expected_path, &text).unwrap();
        } else {
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if expected != text {
                failures.push(format!(
                    "{name}: output differs from {} (FERROCL_BLESS=1 to update)",
                    expected_path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
