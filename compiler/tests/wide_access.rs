//! The shape of wide vector accesses (`lower::memory`): an 8/16-wide
//! vector in global memory is one 16-byte-or-wider access per 4-wide part
//! (narrow elements: per 16 bytes of 32-bit words), each `Aligned` to what
//! its offset from the vector's alignment allows, through
//! PhysicalStorageBuffer pointers, with no Function-storage temporaries;
//! vloadn/vstoren are vector accesses aligned to the element; narrow
//! vectors in `__local` memory are whole-word stores, not atomics.

use ferrocl_compiler::{build_source, Addressing, DeviceCaps};

mod common;

/// (type, `Aligned` operand) of one access.
type Access = (String, u32);

/// The global loads (`OpLoad` with `Aligned`) and stores of `kernel` in
/// `source`: (type, alignment) each, in order.
fn accesses(source: &str, caps: &DeviceCaps) -> (Vec<Access>, Vec<Access>, String) {
    let p = build_source(source, "", caps).unwrap_or_else(|e| panic!("{}", e.log));
    let k = &p.kernels[0];
    common::spirv_val(k, "wide-access");
    let text = common::disassemble(k, "wide-access");
    let (loads, stores) = parse(&text);
    (loads, stores, text)
}

/// The loads and stores with an `Aligned` operand in disassembled `text`.
fn parse(text: &str) -> (Vec<Access>, Vec<Access>) {
    // Store operands name the pointer, whose type is its
    // OpConvertUToPtr's result.
    let mut ptr_ty = std::collections::HashMap::new();
    let (mut loads, mut stores) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            [id, "=", "OpConvertUToPtr", t, _] => {
                ptr_ty.insert(
                    id.to_string(),
                    t.trim_start_matches("%_ptr_PhysicalStorageBuffer_")
                        .to_string(),
                );
            }
            [_, "=", "OpLoad", t, _, "Aligned", a] => {
                loads.push((t.trim_start_matches('%').to_string(), a.parse().unwrap()))
            }
            ["OpStore", p, _, "Aligned", a] => stores.push((
                ptr_ty.get(*p).cloned().unwrap_or_default(),
                a.parse().unwrap(),
            )),
            _ => {}
        }
    }
    (loads, stores)
}

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

fn copy(ty: &str) -> String {
    format!(
        "{}kernel void k(global const {ty} *a, global {ty} *b) {{ size_t i = get_global_id(0); b[i] = a[i]; }}",
        if ty.starts_with("double") {
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        } else {
            ""
        }
    )
}

fn pairs(ty: &str, aligns: &[u32]) -> Vec<Access> {
    aligns.iter().map(|&a| (ty.to_string(), a)).collect()
}

/// A float16 copy is four vec4 loads and four vec4 stores, aligned to
/// 64/16/32/16, as wide as Vulkan goes; no private copy of the value.
#[test]
fn float16_copy_is_four_aligned_vec4_loads_and_stores() {
    let (loads, stores, text) = accesses(&copy("float16"), &caps());
    let want = pairs("v4float", &[64, 16, 32, 16]);
    assert_eq!(loads, want, "{text}");
    assert_eq!(stores, want, "{text}");
    assert!(
        !text.contains("_ptr_Function"),
        "a Function-storage temporary:\n{text}"
    );
    assert_eq!(text.matches("OpConvertUToPtr").count(), 8, "{text}");
}

#[test]
fn wide_copies_of_every_element_width() {
    for (ty, part, aligns) in [
        ("float8", "v4float", &[32, 16][..]),
        ("int16", "v4uint", &[64, 16, 32, 16]),
        ("double8", "v4double", &[64, 32]),
        ("double16", "v4double", &[128, 32, 64, 32]),
        // Narrow elements: 32-bit words, 16 bytes per access.
        ("uchar16", "v4uint", &[16]),
        ("char8", "v2uint", &[8]),
        ("short16", "v4uint", &[32, 16]),
        ("ushort8", "v4uint", &[16]),
    ] {
        let (loads, stores, text) = accesses(&copy(ty), &caps());
        let want = pairs(part, aligns);
        assert_eq!(loads, want, "{ty}:\n{text}");
        assert_eq!(stores, want, "{ty}:\n{text}");
        assert!(
            !text.contains("_ptr_Function"),
            "{ty}: a Function-storage temporary:\n{text}"
        );
    }
}

/// vload16/vstore16 need only the element's alignment: four vector
/// accesses aligned to the element, not sixteen scalar ones.
#[test]
fn vload16_and_vstore16_are_element_aligned_vector_accesses() {
    for (elem, part, align) in [
        ("float", "v4float", 4),
        ("uchar", "v4uchar", 1),
        ("int", "v4uint", 4),
    ] {
        let src = format!(
            "kernel void k(global const {elem} *a, global {elem} *b) {{ size_t i = get_global_id(0); vstore16(vload16(i, a + 1), i, b + 3); }}"
        );
        let (loads, stores, text) = accesses(&src, &caps());
        let want = pairs(part, &[align; 4]);
        assert_eq!(loads, want, "{elem}:\n{text}");
        assert_eq!(stores, want, "{elem}:\n{text}");
    }
}

/// A uchar16 stored to `__local` memory is four word stores (it owns its
/// words), not sixteen byte updates with atomics.
#[test]
fn narrow_vectors_in_local_memory_are_word_accesses() {
    let src = r#"
kernel void k(global const uchar16 *a, global uchar16 *b, local uchar16 *t) {
    size_t l = get_local_id(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[get_global_id(0)] = t[l ^ 1];
}"#;
    let (loads, stores, text) = accesses(src, &caps());
    assert_eq!(loads, pairs("v4uint", &[16]), "{text}");
    assert_eq!(stores, pairs("v4uint", &[16]), "{text}");
    assert!(!text.contains("OpAtomic"), "{text}");
    assert_eq!(
        text.matches("OpAccessChain %_ptr_Workgroup_uint").count(),
        8,
        "{text}"
    );
}

/// A struct copy (a memcpy) between global addresses moves 16 bytes at a
/// time.
#[test]
fn global_struct_copy_moves_16_bytes_at_a_time() {
    let src = r#"
typedef struct { float16 v; int k; } S;
kernel void k(global const S *a, global S *b) { size_t i = get_global_id(0); b[i] = a[i]; }"#;
    let (loads, stores, text) = accesses(src, &caps());
    let want = pairs("v4uint", &[64, 16, 32, 16, 64, 16, 32, 16]);
    assert_eq!(loads, want, "{text}");
    assert_eq!(stores.len(), 8, "{text}");
}

/// With descriptor addressing, a float16 copy is four vec4 accesses of
/// the bindings too.
#[test]
fn float16_copy_with_descriptor_addressing() {
    let caps = DeviceCaps {
        addressing: Addressing::Descriptor,
        ..caps()
    };
    let p = build_source(&copy("float16"), "", &caps).unwrap_or_else(|e| panic!("{}", e.log));
    let k = &p.kernels[0];
    common::spirv_val(k, "wide-access-desc");
    let text = common::disassemble(k, "wide-access-desc");
    assert_eq!(text.matches("= OpLoad %v4float").count(), 4, "{text}");
    assert_eq!(text.matches("OpStore").count(), 4, "{text}");
    assert!(!text.contains("OpLoad %float"), "{text}");
}

/// `FERROCL_WIDE_ACCESS` (a measurement knob) picks how a float16 is
/// accessed: per part (default), per part `Aligned` at most 16, as one
/// explicitly laid-out array, or per element; every form is valid.
#[test]
fn wide_access_knob_forms() {
    let d = std::env::temp_dir().join(format!("ferrocl-wide-access-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let src = d.join("copy.cl");
    std::fs::write(&src, copy("float16")).unwrap();
    let v4 = |a: &[u32]| pairs("v4float", a);
    for (form, want) in [
        ("parts", v4(&[64, 16, 32, 16])),
        ("align16", v4(&[16, 16, 16, 16])),
        ("whole", vec![("arr".to_string(), 64)]),
        (
            "scalar",
            pairs(
                "float",
                &[64, 4, 8, 4, 16, 4, 8, 4, 32, 4, 8, 4, 16, 4, 8, 4],
            ),
        ),
    ] {
        let spv = d.join(format!("{form}.spv"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferrocl-cc"))
            .env("FERROCL_WIDE_ACCESS", form)
            .env("FERROCL_NO_COMPILE_CACHE", "1")
            .arg(&src)
            .arg("-o")
            .arg(&spv)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{form}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        common::spirv_val_file(&spv, form);
        let out =
            std::process::Command::new(common::tool("FERROCL_SPIRV_DIS", "/usr/bin/spirv-dis"))
                .args(["--no-header", "--no-color"])
                .arg(&spv)
                .output()
                .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let (mut loads, _) = parse(&text);
        if form == "whole" {
            // %_arr_v4float_uint_4_0: the ArrayStride-decorated twin.
            for l in &mut loads {
                if l.0.starts_with("_arr_v4float") {
                    l.0 = "arr".into();
                }
            }
            assert!(text.contains("ArrayStride 16"), "{text}");
        }
        assert_eq!(loads, want, "{form}:\n{text}");
        assert_eq!(
            text.matches("OpStore").count(),
            want.len(),
            "{form}:\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
