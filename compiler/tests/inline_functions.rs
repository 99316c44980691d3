//! `DeviceCaps::inline_functions` (NVIDIA: `frontend::inline_functions`):
//! the program's own functions that clang's -O2 leaves as calls are
//! inlined into the kernels, in clBuildProgram's path and in
//! clLinkProgram's; `noinline` functions (the program's and the math
//! library's) stay calls; without the flag, or under `-cl-opt-disable`,
//! nothing changes; programs from SPIR-V (clCreateProgramWithIL) go
//! through LLVM IR for it, with math or without. Every module passes
//! spirv-val. What it avoids on the
//! GPU (a kernel that never ends) is measured by the app suite
//! (pyopencl-clmath's test_hankel_01_complex on NVIDIA).

use ferrocl_compiler::{
    build_il, build_source, compile_source, link_objects, DeviceCaps, Kernel, Linked,
};

mod common;

/// Two regions call `region_a` / `region_b` (each with early returns, a
/// loop and a by-value struct it modifies) from divergent branches, twice
/// each, as pyopencl's Hankel functions are called; `kept` is `noinline`.
const SOURCE: &str = include_str!("../../tests/tests/divergent_helper_calls.cl");

fn caps(inline_functions: bool) -> DeviceCaps {
    DeviceCaps {
        inline_functions,
        ..common::test_caps()
    }
}

/// The names of the functions `k`'s module calls.
fn callees(k: &Kernel, tag: &str) -> Vec<String> {
    common::spirv_val(k, tag);
    let text = common::disassemble(k, tag);
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| l.split("OpFunctionCall ").nth(1))
        .filter_map(|rest| rest.split_whitespace().nth(1))
        .map(|callee| callee.trim_start_matches('%').to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn program_functions(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .map(String::as_str)
        .filter(|n| ["region_a", "region_b", "poly"].contains(n))
        .collect()
}

#[test]
fn program_functions_are_inlined_where_the_device_asks() {
    let plain = build_source(SOURCE, "", &caps(false)).unwrap();
    let called = callees(&plain.kernels[0], "inline-plain");
    assert!(
        !program_functions(&called).is_empty(),
        "clang's -O2 keeps some of the program's functions as calls (else this test proves nothing): {called:?}"
    );
    let inlined = build_source(SOURCE, "", &caps(true)).unwrap();
    let called = callees(&inlined.kernels[0], "inline-on");
    assert_eq!(program_functions(&called), Vec::<&str>::new(), "{called:?}");
    assert!(
        called.iter().any(|n| n == "kept"),
        "noinline stays a call: {called:?}"
    );
    assert!(
        called.iter().any(|n| n.contains("clc")),
        "the math library stays calls: {called:?}"
    );
}

#[test]
fn opt_disable_keeps_the_calls() {
    let p = build_source(SOURCE, "-cl-opt-disable", &caps(true)).unwrap();
    let called = callees(&p.kernels[0], "inline-O0");
    assert!(!program_functions(&called).is_empty(), "{called:?}");
}

#[test]
fn linked_programs_are_inlined_too() {
    for (inline, tag) in [(false, "link-plain"), (true, "link-on")] {
        let object = compile_source(SOURCE, "", &[], &caps(inline)).unwrap();
        let Linked::Executable(p) = link_objects(&[&object.bitcode], "", &caps(inline)).unwrap()
        else {
            panic!("an executable was asked for");
        };
        let called = callees(&p.kernels[0], tag);
        assert_eq!(
            program_functions(&called).is_empty(),
            inline,
            "{tag}: {called:?}"
        );
    }
}

/// `SOURCE` without math (`fabs` is no libclc function): the IL takes the
/// round trip through LLVM IR for the inlining alone.
fn no_math() -> String {
    ["sin(", "exp(", "log(", "cos("]
        .iter()
        .fold(SOURCE.to_string(), |s, f| s.replace(f, "fabs("))
}

#[test]
fn il_programs_are_inlined_too() {
    for (source, name) in [(SOURCE.to_string(), "il-math"), (no_math(), "il-no-math")] {
        let il = common::il_of(&source, name);
        for inline in [false, true] {
            let tag = format!("{name}-{inline}");
            let p = build_il(&il, "", &caps(inline)).unwrap();
            let called = callees(&p.kernels[0], &tag);
            let own = program_functions(&called);
            assert_eq!(own.is_empty(), inline, "{tag}: {called:?}\n{}", p.log);
        }
    }
}

/// A kernel whose loop carries trivial phis once its helpers are inlined
/// (GPU fuzz sample seed 7008 p900051): spirt's structurizer gave the
/// merge block's `h` the loop-exit value of another phi (`OpPhi %ulong`
/// with a `%uint` incoming: an internal compiler error). Trivial phis are
/// removed before it now (`passes/structurize/trivial_phis.rs`).
#[test]
fn inlined_helpers_with_trivial_phis_structurize() {
    let source = include_str!("../../tests/tests/inlined_trivial_phis.cl");
    for inline in [false, true] {
        let p = build_source(source, "-cl-std=CL3.0", &caps(inline))
            .unwrap_or_else(|e| panic!("inline_functions {inline}: {}", e.log));
        for k in &p.kernels {
            common::spirv_val(k, &format!("trivial-phis-{inline}-{}", k.name));
        }
    }
}
