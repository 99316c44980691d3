//! `FERROCL_DUMP=<dir>` (compiler/src/dump.rs): every pass of a build
//! writes its output, named by sequence number and pass, as textual LLVM
//! IR (`.ll`) or a SPIR-V module (`.spv`). One test (the variable is
//! process-wide): a source build, an IL build of the source build's
//! SPIR-V, and a clCompileProgram + clLinkProgram build, each into its own
//! directory, with every optional pass on (`images`, `loop_limiter`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ferrocl_compiler::{build_il, build_source, compile_source, link_objects, DeviceCaps, Linked};

mod common;

const SOURCE: &str = r#"
kernel void sample(global float* out, uint n) {
    float s = 0.0f;
    for (uint k = 0; k < n; k++)
        s += sin((float)k);
    out[get_global_id(0)] = s;
}
"#;

/// The passes every build runs on the Kernel module, and per kernel.
const MODULE_PASSES: &[&str] = &[
    "06-strip_debug_ext_insts.spv",
    "07-dedupe_phi_parents.spv",
    "08-expand_decoration_groups.spv",
    "09-drop_dangling_decorations.spv",
    "10-legalize_int_widths.spv",
    "11-normalize_builtin_vars.spv",
    "12-place_private_constants.spv",
    "13-prepare_global_variables.spv",
    "14-expand_async_copies.spv",
    "15-split_image_choices.spv",
    "16-structurize_cfgs.spv",
    "17-copy_byval_params.spv",
    "18-specialize_address_spaces.spv",
    "19-dispatch_generic_accesses.spv",
    "20-specialize_image_calls.spv",
    "21-sample-lower_kernel.spv",
    "22-sample-srem_via_sdiv.spv",
    "23-sample-sdiv_via_udiv.spv",
    "24-sample-widen_narrow_arithmetic.spv",
    "25-sample-fold_select_shifts.spv",
    "26-sample-guard_int64_division.spv",
    "27-sample-expand_long_sign_extensions.spv",
    "28-sample-guard_loop_limit.spv",
    "31-sample-scale_large_divisors.spv",
    "33-sample-widen_extended_multiplies.spv",
    "35-sample-funnel_byte_swaps.spv",
];

fn caps() -> DeviceCaps {
    DeviceCaps {
        images: true,
        loop_limiter: true,
        soft_int64_division: true,
        wide_narrow_arithmetic: true,
        soft_long_sign_extension: true,
        branch_loop_exits: false,
        split_bitcasts_to_16bit: false,
        inline_functions: false,
        spill_loop_live_outs: false,
        max_num_sub_groups: 0,
        float_atomics: 0,
        ..common::test_caps()
    }
}

fn dump_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrocl-dump-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("FERROCL_DUMP", &dir);
    dir
}

/// Asserts that `dir` holds exactly `front` and [`MODULE_PASSES`], each a
/// SPIR-V module (magic number) or textual LLVM IR with a definition.
fn check(dir: &Path, front: &[&str]) {
    let want: BTreeSet<String> = front
        .iter()
        .chain(MODULE_PASSES)
        .map(|s| s.to_string())
        .collect();
    let have: BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(have, want, "{}", dir.display());
    for name in &have {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        if name.ends_with(".spv") {
            assert!(
                bytes.len() >= 20 && bytes[..4] == 0x0723_0203u32.to_le_bytes(),
                "{name}: not a SPIR-V module"
            );
        } else {
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.contains("\ndefine "), "{name}: no LLVM IR definition");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_pass_writes_its_output() {
    let caps = caps();

    let dir = dump_dir("source");
    // Relaxed: sin stays an OpenCL.std instruction in the SPIR-V.
    build_source(SOURCE, "-cl-fast-relaxed-math", &caps).unwrap();
    let il = std::fs::read(dir.join("03-translate_bitcode.spv")).unwrap();
    check(
        &dir,
        &[
            "00-compile_to_bitcode.ll",
            "02-link_math.ll",
            "03-translate_bitcode.spv",
        ],
    );

    // Its SPIR-V, without relaxed math: sin is libclc's, linked through
    // LLVM IR.
    let dir = dump_dir("il");
    build_il(&il, "", &caps).unwrap();
    check(
        &dir,
        &[
            "02-link_math.ll",
            "04-make_il_reducible.spv",
            "05-link_il_math.spv",
        ],
    );

    let dir = dump_dir("link");
    let object = compile_source(SOURCE, "", &[], &caps).unwrap();
    let linked = link_objects(&[&object.bitcode], "", &caps).unwrap();
    assert!(matches!(linked, Linked::Executable(_)));
    check(
        &dir,
        &[
            "00-compile_to_bitcode.ll",
            "01-link_objects.ll",
            "02-link_math.ll",
            "03-translate_bitcode.spv",
        ],
    );
    std::env::remove_var("FERROCL_DUMP");
}
