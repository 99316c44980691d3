//! `inline_functions`: every function of the linked program that may be
//! inlined is inlined into its callers before the translation to SPIR-V,
//! where the device asks for it (`DeviceCaps::inline_functions`: NVIDIA).
//!
//! Why: NVIDIA's compiler (driver 580, shared by its OpenCL and Vulkan
//! drivers) can make a kernel that never ends when non-inlined functions
//! are called from divergent paths of a warp. pyopencl's
//! `hankel_01_complex` (test_clmath) calls `hank103u` and `hank103r` from
//! the branches of `if (imag(z) < 0) ... if (real(z) < 0)`; clang's -O2
//! keeps them calls (two call sites each, too large for its inliner).
//! Measured on an H200: over points of one region (every work-item on
//! one path) the kernel ends in about 2 s, through ferrocl and through
//! NVIDIA's own OpenCL; over mixed points it never ends on either (cut
//! at 430 s; once VK_ERROR_DEVICE_LOST). With the functions inlined it
//! ends in 2 s on both, with the results lavapipe gives.
//!
//! Where: clBuildProgram's path (`write_bitcode`), clLinkProgram's
//! (`link::link_objects`), and programs from SPIR-V, which go through
//! LLVM IR for it (`il_math::link_il_math`).
//!
//! Which: every function defined in the module that is not a kernel and
//! not `noinline` or `optnone` (the math library's functions, which are
//! `noinline` so that a program keeps one copy of each, and functions the
//! program marks `__attribute__((noinline))`, stay calls). The module's
//! attribute groups are read to know which functions are `noinline`;
//! `opt-15`'s always-inliner (with SROA and CSE to remove the copies the
//! inlined `byval` and out-parameters leave) does the inlining.

use std::collections::HashSet;

use crate::error::BuildError;
use crate::tools::ScratchDir;

/// Textual IR `ll` with every inlinable function definition marked
/// `alwaysinline`; None when there is none.
pub fn mark_always_inline(ll: &str) -> Option<String> {
    let kept = kept_attribute_groups(ll);
    let mut out = String::with_capacity(ll.len() + 1024);
    let mut marked = false;
    for line in ll.lines() {
        match attributes_at(line, &kept) {
            Some(at) => {
                out.push_str(&line[..at]);
                out.push_str(" alwaysinline");
                out.push_str(&line[at..]);
                marked = true;
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    marked.then_some(out)
}

/// The ids (`#N`) of the attribute groups that keep a function a call:
/// `noinline`, `optnone` or already `alwaysinline`.
fn kept_attribute_groups(ll: &str) -> HashSet<&str> {
    ll.lines()
        .filter_map(|l| l.strip_prefix("attributes "))
        .filter_map(|l| l.split_once(" = { "))
        .filter(|(_, attrs)| {
            attrs
                .split_ascii_whitespace()
                .any(|a| matches!(a, "noinline" | "optnone" | "alwaysinline"))
        })
        .map(|(id, _)| id)
        .collect()
}

/// Where `alwaysinline` goes in `line` if it defines an inlinable
/// function: after the parameter list and `unnamed_addr` /
/// `local_unnamed_addr`, before the attribute groups and metadata.
fn attributes_at(line: &str, kept: &HashSet<&str>) -> Option<usize> {
    if !line.starts_with("define ") || line.contains(" spir_kernel ") || !line.ends_with('{') {
        return None;
    }
    let at = line.find(" @")? + 2;
    let open = at + line[at..].find('(')?;
    let mut depth = 0i32;
    let close = line[open..].char_indices().find_map(|(i, c)| {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        (depth == 0).then_some(open + i + 1)
    })?;
    let tail = &line[close..line.len() - 1];
    let mut words = tail.split_ascii_whitespace();
    if words
        .clone()
        .any(|w| matches!(w, "noinline" | "optnone" | "alwaysinline") || kept.contains(w))
    {
        return None;
    }
    let mut at = close;
    if let Some(w) = words.next() {
        if w == "unnamed_addr" || w == "local_unnamed_addr" {
            at = close + tail.find(w)? + w.len();
        }
    }
    Some(at)
}

/// `opt-15`'s always-inliner over textual IR `file` in `scratch` (in
/// place, textual: bitcode of a module without pointers reads back as
/// opaque-pointer bitcode, which `-opaque-pointers=0` refuses), with SROA,
/// early CSE and CFG simplification to clean up after it.
pub fn inline_marked(scratch: &ScratchDir, file: &str) -> Result<(), BuildError> {
    let args = [
        "-S",
        "-opaque-pointers=0",
        "-passes=always-inline,sroa,early-cse,simplifycfg",
        file,
        "-o",
        file,
    ];
    super::run_opt(
        scratch,
        &args,
        "inlining the program's functions (opt always-inline)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const IR: &str = "\
define dso_local spir_func void @f(%t* nocapture byval(%t) align 8 %z, i32 %n) local_unnamed_addr #0 !dbg !11 {
define spir_func double @ferrocl.clc._Z3expd(double %0) local_unnamed_addr #4 {
define spir_func double @g(double %a0, double* %a1) {
define internal spir_func double @h(double %a) unnamed_addr noinline {
define dso_local spir_kernel void @k(i32 addrspace(1)* %o) local_unnamed_addr #0 !kernel_arg_addr_space !3 {
attributes #0 = { convergent nounwind }
attributes #4 = { noinline nounwind }
";

    #[test]
    fn marks_program_functions_only() {
        let out = mark_always_inline(IR).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "define dso_local spir_func void @f(%t* nocapture byval(%t) align 8 %z, i32 %n) local_unnamed_addr alwaysinline #0 !dbg !11 {"
        );
        assert_eq!(lines[1], IR.lines().nth(1).unwrap(), "noinline group kept");
        assert_eq!(
            lines[2],
            "define spir_func double @g(double %a0, double* %a1) alwaysinline {"
        );
        assert_eq!(lines[3], IR.lines().nth(3).unwrap(), "noinline kept");
        assert_eq!(lines[4], IR.lines().nth(4).unwrap(), "kernels kept");
    }

    #[test]
    fn nothing_to_mark() {
        let lines: Vec<&str> = IR.lines().collect();
        let kept = [lines[1], lines[3], lines[4], lines[5], lines[6]].join("\n");
        assert_eq!(mark_always_inline(&kept), None);
    }
}
