//! Front end: OpenCL C → LLVM IR (clang-15) → Kernel-flavour SPIR-V
//! (llvm-spirv-15), plus the kernel argument metadata clang records.

mod block_order;
pub mod execution_mode_ids;
pub mod il_definitions;
pub mod il_global_order;
pub mod il_math;
pub mod il_structure;
pub mod il_support;
pub mod inline_functions;
pub mod libclc;
mod metadata;
pub(crate) mod null_casts;
mod options;
mod overflow_multiplies;
mod own_definitions;
mod prelude;
mod reachable;
mod rotate;
mod saturate;
pub mod spec_constants;
pub mod subgroup_queries;
mod swaps16;
pub(crate) use reachable::drop_unreachable_functions;
pub(crate) use rotate::define_rotates;
pub(crate) use saturate::define_int_saturations;

pub use metadata::{read_kernel_arg_metadata, read_unsigned_vec_type_hints, ArgMetadata};
pub use options::{
    check_target_option, is_target_option, parse_build_options, split_options, target_caps,
    vendor_option, FrontendOptions,
};

use std::collections::HashMap;
use std::ffi::OsStr;

use crate::dump::{self, Pass};
use crate::error::BuildError;
use crate::tools::{self, run_tool, ScratchDir};

/// The name the source file has in diagnostics ("input.cl:3:5: error: ...").
pub const SOURCE_NAME: &str = "input.cl";
/// Undefines the feature macros the device does not report
/// (`FrontendOptions::undef_macros`) and holds the prelude
/// (`FrontendOptions::prelude`), read after the default header.
const UNDEF_HEADER: &str = ".ferrocl-features.h";

/// The LLVM options that keep clang's -O2 from merging identical calls of
/// the two arms of a branch (`uses_subgroup_functions`).
pub(crate) const KEEP_CONVERGENT_CALLS: [&str; 4] = [
    "-mllvm",
    "-simplifycfg-sink-common=false",
    "-mllvm",
    "-simplifycfg-hoist-common=false",
];

/// Whether program text (OpenCL C, or textual or binary LLVM IR, whose
/// mangled builtin names keep the OpenCL C name and whose bitcode keeps
/// symbol names as plain bytes) may call sub-group functions: it contains
/// `sub_group_` (or `GroupNonUniform`). A cheap textual check, which errs
/// towards true (a comment, an identifier that merely contains it).
///
/// Why: LLVM 15's SimplifyCFG sinks identical calls at the ends of both
/// arms of a branch into the join block, and hoists identical calls at
/// their starts into the branch's block, convergent calls included. For
/// the sub-group functions whose result depends on the set of active
/// work-items (`sub_group_broadcast_first`, `sub_group_non_uniform_*`,
/// ballots, shuffles, clustered reductions, `sub_group_elect`), as in
/// `if (c) y = sub_group_broadcast_first(x); else y =
/// sub_group_broadcast_first(x);`, one call with every work-item active
/// has another result than one per arm. Such programs are optimized with
/// [`KEEP_CONVERGENT_CALLS`]; every other program keeps the full -O2
/// pipeline. Only the pipelines that see the program's code take the
/// check: clang's -O2 (`compile_to_bitcode`; again with the options when
/// its output calls sub-group functions that came from an included file),
/// its `opt` rerun (`reoptimize`) and clLinkProgram's -O2
/// (`link`, which checks the objects' bitcode); the libclc and ferrocl math
/// modules (`libclc`) have no sub-group calls. IL programs do not go
/// through clang's optimizer (but IL objects linked by clLinkProgram do).
pub(crate) fn uses_subgroup_functions(text: &[u8]) -> bool {
    // llvm-spirv -r names some of them `__spirv_GroupNonUniform*` (IL
    // objects of clLinkProgram).
    [&b"sub_group_"[..], b"GroupNonUniform"]
        .iter()
        .any(|needle| text.windows(needle.len()).any(|w| w == *needle))
}

/// What the front end produced.
pub struct FrontendOutput {
    /// Kernel SPIR-V (llvm-spirv-15's output).
    pub spirv: Vec<u8>,
    /// Argument metadata per kernel name.
    pub arg_metadata: HashMap<String, Vec<ArgMetadata>>,
    /// Kernels whose vec_type_hint is an unsigned integer type.
    pub unsigned_vec_hints: std::collections::HashSet<String>,
    /// clang's warnings.
    pub log: String,
}

/// Compiles OpenCL C `source` to Kernel SPIR-V.
///
/// Algorithm: write the source as `input.cl` in the build's scratch
/// directory and run, there,
/// `clang-15 -cc1 -triple spir64 -no-opaque-pointers -finclude-default-header
/// -cl-kernel-arg-info -O2 -debug-info-kind=line-tables-only -fno-builtin
/// -emit-llvm`
/// with the translated build options; the textual IR gives the kernel
/// argument metadata. The double-precision math it calls is linked from
/// libclc (`libclc::link_math`), and so is the single-precision math
/// whose GLSL.std.450 versions miss OpenCL's bounds. `clang -cc1 -x ir` turns it into bitcode and
/// llvm-spirv-15 into SPIR-V (OpLine instructions let later passes name
/// source lines; they are stripped from the output).
/// Typed pointers (`-no-opaque-pointers`) because llvm-spirv-15 cannot
/// translate LLVM 15's opaque pointers.
///
/// Relative `-I` directories and the directory includes are resolved from
/// are the application's working directory, as if clang ran there.
pub fn compile_opencl_c(
    source: &str,
    opts: &FrontendOptions,
    scratch: &ScratchDir,
) -> Result<FrontendOutput, BuildError> {
    let (ll, log) = crate::timing::pass(Pass::CompileToBitcode, None, || {
        compile_to_bitcode(source, opts, &[], scratch)
    })?;
    let arg_metadata = read_kernel_arg_metadata(&ll);
    let unsigned_vec_hints = read_unsigned_vec_type_hints(&ll);
    let linked = crate::timing::pass(Pass::LinkMath, None, || {
        libclc::link_math(&ll, scratch, &opts.math)
    })?;
    write_bitcode(scratch, linked.as_deref().unwrap_or(&ll), opts)?;
    let spirv = crate::timing::pass(Pass::TranslateBitcode, None, || translate_bitcode(scratch))?;
    dump::spirv(Pass::TranslateBitcode, &spirv);
    Ok(FrontendOutput {
        spirv,
        arg_metadata,
        unsigned_vec_hints,
        log,
    })
}

/// The first half of `compile_opencl_c` (and clCompileProgram's under
/// `-cl-opt-disable`, `compile_to_object`): OpenCL C → optimized textual
/// IR (`freeze` already removed, the rotates defined). Returns it (with the
/// kernel argument metadata) and clang's warnings.
///
/// `headers` are (include name, text) pairs written next to `input.cl`
/// (subdirectories created), so `#include "name"` finds them
/// (clCompileProgram's embedded headers). A name that is absolute or goes
/// up with `..` is refused.
pub fn compile_to_bitcode(
    source: &str,
    opts: &FrontendOptions,
    headers: &[(String, String)],
    scratch: &ScratchDir,
) -> Result<(String, String), BuildError> {
    let (mut args, keep_convergent) = clang_command(source, opts, headers, scratch)?;
    args.extend(["-o".into(), "input.ll".into(), SOURCE_NAME.into()]);
    let run_clang = |args: &[String]| -> Result<(String, String), BuildError> {
        let log = run_clang(args, scratch)?;
        let ll = std::fs::read_to_string(scratch.file("input.ll"))
            .map_err(|e| BuildError::internal(format!("clang wrote no IR: {e}")))?;
        Ok((ll, log))
    };
    let (mut ll, mut log) = run_clang(&args)?;
    log.insert_str(0, &opts.warnings);
    if !opts.opt_disable && !keep_convergent && uses_subgroup_functions(ll.as_bytes()) {
        // Sub-group calls from an included file: again, keeping them.
        let o = args.iter().position(|a| a == "-O2").unwrap_or(0);
        for (k, a) in KEEP_CONVERGENT_CALLS.iter().enumerate() {
            args.insert(o + 1 + k, a.to_string());
        }
        (ll, log) = run_clang(&args)?;
        log.insert_str(0, &opts.warnings);
    }
    let fixes = Reoptimize {
        native_widths: !opts.opt_disable && has_odd_integer_widths(&ll),
        inline_definitions: source.contains("inline") && !undefined_functions(&ll).is_empty(),
    };
    if fixes.native_widths || fixes.inline_definitions {
        ll = reoptimize(scratch, &args, fixes)?;
    }
    dump::ir(Pass::CompileToBitcode, &ll);
    let ll = rotate::define_rotates(&saturate::define_int_saturations(&remove_freeze(
        &null_casts::fold_null_casts(&ll),
    )));
    Ok((ll, log))
}

/// clCompileProgram's front end: OpenCL C → `object.bc` in `scratch`,
/// LLVM bitcode as clang's front end emits it at -O2, before any of
/// LLVM's passes (`-disable-llvm-passes`: optimization is the link's, as
/// in LTO; `link::link_objects`). Returns the bitcode and clang's
/// warnings. Under `-cl-opt-disable`, the -O0 IR of `compile_to_bitcode`
/// (every function `noinline`), written as bitcode by llvm-link.
///
/// Why not optimized: an object's external functions must all be kept
/// (another object may call them), and -O2 over all of them is most of a
/// large program's build: hashcat's kernels include libraries of
/// helpers, 37 MB of optimized IR of which a kernel keeps 1%; its
/// clCompileProgram took 43 s on the 2-core development machine, and
/// takes 1.5 s so. The link optimizes what its kernels reach.
pub fn compile_to_object(
    source: &str,
    opts: &FrontendOptions,
    headers: &[(String, String)],
    scratch: &ScratchDir,
) -> Result<(Vec<u8>, String), BuildError> {
    let read = |name: &str| {
        std::fs::read(scratch.file(name))
            .map_err(|e| BuildError::internal(format!("{name} was not written: {e}")))
    };
    if opts.opt_disable {
        let (ll, log) = compile_to_bitcode(source, opts, headers, scratch)?;
        std::fs::write(scratch.file("input.ll"), &ll)
            .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
        // clang's `-x ir` bitcode of a module without pointers is marked
        // as opaque-pointer bitcode, which a typed-pointer link refuses:
        // llvm-link writes the object from the textual IR instead.
        llvm_link(scratch, &["input.ll", "-o", "object.bc"])?;
        return Ok((read("object.bc")?, log));
    }
    let (mut args, _) = clang_command(source, opts, headers, scratch)?;
    let o = args
        .iter()
        .position(|a| a == "-O2")
        .ok_or_else(|| BuildError::internal("no optimization level"))?;
    args.insert(o + 1, "-disable-llvm-passes".into());
    for a in &mut args {
        if a == "-emit-llvm" {
            *a = "-emit-llvm-bc".into();
        }
    }
    args.extend(["-o".into(), "object.bc".into(), SOURCE_NAME.into()]);
    let mut log = run_clang(&args, scratch)?;
    log.insert_str(0, &opts.warnings);
    if dump::enabled() {
        llvm_link(scratch, &["-S", "object.bc", "-o", "object.ll"])?;
        dump::ir(
            Pass::CompileToBitcode,
            &std::fs::read_to_string(scratch.file("object.ll")).unwrap_or_default(),
        );
    }
    Ok((read("object.bc")?, log))
}

/// `llvm-link-15 -opaque-pointers=0 args` in `scratch`.
fn llvm_link(scratch: &ScratchDir, args: &[&str]) -> Result<(), BuildError> {
    let mut all = vec![OsStr::new("-opaque-pointers=0")];
    all.extend(args.iter().map(OsStr::new));
    let out = run_tool(tools::LLVM_LINK, &all, &scratch.path)?;
    if !out.success {
        return Err(BuildError::internal(format!(
            "writing the object failed: {}",
            out.stderr
        )));
    }
    Ok(())
}

/// Runs clang with `args` in `scratch`; its diagnostics are the build's
/// failure, or its warnings (returned).
fn run_clang(args: &[String], scratch: &ScratchDir) -> Result<String, BuildError> {
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = run_tool(tools::CLANG, &os, &scratch.path)?;
    if !out.success {
        return Err(BuildError::failure(if out.stderr.is_empty() {
            "clang failed without a diagnostic".to_string()
        } else {
            out.stderr
        }));
    }
    Ok(out.stderr)
}

/// Writes `source`, `headers` and the `#undef` header into `scratch`, and
/// returns clang's command line for them (without output and input) and
/// whether it keeps convergent calls apart (`uses_subgroup_functions`).
fn clang_command(
    source: &str,
    opts: &FrontendOptions,
    headers: &[(String, String)],
    scratch: &ScratchDir,
) -> Result<(Vec<String>, bool), BuildError> {
    std::fs::write(scratch.file(SOURCE_NAME), source).map_err(|e| {
        BuildError::failure(format!("cannot write the source to a temporary file: {e}"))
    })?;
    for (name, text) in headers {
        write_header(scratch, name, text)?;
    }
    let cwd = std::env::current_dir().ok();
    let mut args: Vec<String> = [
        "-cc1",
        "-triple",
        "spir64",
        "-no-opaque-pointers",
        "-finclude-default-header",
        // Builtins declared on demand from clang's tables instead of by
        // parsing opencl-c.h: several times faster per compile.
        "-fdeclare-opencl-builtins",
        "-cl-kernel-arg-info",
        "-debug-info-kind=line-tables-only",
        // No libc: keeps loop-idiom recognition from turning copy/fill
        // loops into memcpy/memset of run-time sizes.
        "-fno-builtin",
        "-emit-llvm",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(if opts.opt_disable { "-O0" } else { "-O2" }.to_string());
    let keep_convergent = !opts.opt_disable
        && (uses_subgroup_functions(source.as_bytes())
            || headers
                .iter()
                .any(|(_, t)| uses_subgroup_functions(t.as_bytes())));
    if keep_convergent {
        args.extend(KEEP_CONVERGENT_CALLS.iter().map(|s| s.to_string()));
    }
    if opts.opt_disable {
        // Lets `promote_sampler_locals` run mem2reg.
        args.push("-disable-O0-optnone".into());
    }
    for a in &opts.clang_args {
        match (a.strip_prefix("-I"), &cwd) {
            (Some(dir), Some(cwd)) if !std::path::Path::new(dir).is_absolute() => {
                args.push(format!("-I{}", cwd.join(dir).display()))
            }
            _ => args.push(a.clone()),
        }
    }
    if let Some(cwd) = &cwd {
        args.push(format!("-I{}", cwd.display()));
    }
    if !opts.undef_macros.is_empty() || !opts.prelude.is_empty() {
        // Read after the default header (-include comes after it).
        let mut text: String = opts
            .undef_macros
            .iter()
            .map(|m| format!("#undef {m}\n"))
            .collect();
        text.push_str(&opts.prelude);
        let file = scratch.file(UNDEF_HEADER);
        std::fs::write(&file, text)
            .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
        args.push("-include".into());
        args.push(file.display().to_string());
    }
    Ok((args, keep_convergent))
}

/// Whether textual IR uses integer types llvm-spirv-15 cannot translate
/// (widths other than 1, 8, 16, 32, 64: e.g. `i33` from a loop's closed-form
/// exit value, `i3` from a switch on `x & 7` narrowed by InstCombine).
pub(crate) fn has_odd_integer_widths(ll: &str) -> bool {
    let b = ll.as_bytes();
    let mut i = 0;
    while let Some(p) = ll[i..].find('i') {
        let at = i + p;
        i = at + 1;
        let starts = at == 0
            || !(b[at - 1].is_ascii_alphanumeric()
                || matches!(b[at - 1], b'_' | b'.' | b'%' | b'@' | b'$' | b'"'));
        if !starts {
            continue;
        }
        let digits = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            continue;
        }
        let end = at + 1 + digits;
        if end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
            continue;
        }
        if !matches!(&ll[at + 1..end], "1" | "8" | "16" | "32" | "64") {
            return true;
        }
    }
    false
}

/// What `reoptimize` changes.
#[derive(Clone, Copy)]
pub(crate) struct Reoptimize {
    /// The IR `has_odd_integer_widths`.
    pub native_widths: bool,
    /// The IR calls functions it does not define, and the source says
    /// `inline`: OpenCL C follows C99, where a plain `inline` definition
    /// provides no external definition, so a call the inliner left (a
    /// large function called from several kernels, or any call at -O0)
    /// named a function no object defines. CLBlast writes its helpers so
    /// on NVIDIA devices (`USE_INLINE_KEYWORD`), and NVIDIA's compiler
    /// takes them.
    pub inline_definitions: bool,
}

/// The build again, for IR that needs one of `Reoptimize`'s fixes: clang
/// emits unoptimized IR (`-disable-llvm-passes`; at -O0, as -O1 code
/// generation does, so that it keeps inline definitions), then
///
/// - `inline_definitions`: the inline definitions (`available_externally`)
///   become `linkonce_odr`, defined wherever called and merged by
///   clLinkProgram when several objects have them;
/// - `native_widths`: the data layout gains the native integer widths the
///   SPIR target leaves out (`n8:16:32:64`, so InstCombine does not narrow
///   to odd widths), and `opt-15` runs the -O2 pipeline with loop exit
///   values left as loops (`-replexitval=never`: SCEV computes closed
///   forms such as a triangular sum in 33 bits) and switches left as
///   switches (`-switch-to-lookup=false`: with native widths SimplifyCFG
///   turns a switch returning constants into a lookup table, a private
///   global in the default address space that llvm-spirv-15 gives the
///   Function storage class at module scope, or into a bitmap of
///   table-size × element bits such as `i56` for seven chars; the -O2
///   pipeline of the first build, without native widths, builds neither).
///   Odd widths that remain are `passes::legalize_int_widths`'s.
///
/// At -O0 the patched IR is the result; otherwise `opt-15` runs the O2
/// pipeline. Programs that need neither fix never take this path.
fn reoptimize(
    scratch: &ScratchDir,
    clang_args: &[String],
    fixes: Reoptimize,
) -> Result<String, BuildError> {
    let mut args: Vec<String> = clang_args.to_vec();
    let o = args
        .iter()
        .position(|a| a == "-O2" || a == "-O0")
        .ok_or_else(|| BuildError::internal("no optimization level"))?;
    let optimize = args[o] == "-O2";
    args[o] = if optimize { "-O2" } else { "-O1" }.into();
    args.insert(o + 1, "-disable-llvm-passes".into());
    args.retain(|a| a != "-disable-O0-optnone");
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = run_tool(tools::CLANG, &os, &scratch.path)?;
    if !out.success {
        return Err(BuildError::internal(format!(
            "clang (unoptimized) failed: {}",
            out.stderr
        )));
    }
    let ll = std::fs::read_to_string(scratch.file("input.ll"))
        .map_err(|e| BuildError::internal(format!("clang wrote no IR: {e}")))?;
    let keep_convergent = clang_args.iter().any(|a| a == KEEP_CONVERGENT_CALLS[1]);
    patch_and_optimize(scratch, &ll, fixes, optimize, keep_convergent)
}

/// `line`, the IR's `target datalayout`, with the native integer widths
/// that the SPIR target leaves out (`n8:16:32:64`), so that InstCombine
/// does not narrow values to odd widths (`i3`) that llvm-spirv-15 cannot
/// take; None for any other line or a layout that has them.
pub(crate) fn native_widths_layout(line: &str) -> Option<String> {
    let dl = line
        .strip_prefix("target datalayout = \"")
        .and_then(|r| r.strip_suffix('"'))?;
    (!dl.split('-').any(|p| p.starts_with('n')))
        .then(|| format!("target datalayout = \"{dl}-n8:16:32:64\""))
}

/// `reoptimize`'s second half on unoptimized IR `ll`: the patches, then
/// (where `optimize`) `opt-15`'s O2 pipeline, with the options of
/// `uses_subgroup_functions` where `keep_convergent`. Also clLinkProgram's
/// way when its -O2 made odd widths (`link::link_objects`).
pub(crate) fn patch_and_optimize(
    scratch: &ScratchDir,
    ll: &str,
    fixes: Reoptimize,
    optimize: bool,
    keep_convergent: bool,
) -> Result<String, BuildError> {
    let mut patched = String::with_capacity(ll.len() + 16);
    for line in ll.lines() {
        match native_widths_layout(line) {
            Some(layout) if fixes.native_widths => patched.push_str(&layout),
            _ => match line.strip_prefix("define available_externally ") {
                Some(rest) if fixes.inline_definitions => {
                    patched.push_str("define linkonce_odr ");
                    patched.push_str(rest);
                }
                _ => patched.push_str(line),
            },
        }
        patched.push('\n');
    }
    if !optimize {
        return Ok(patched);
    }
    std::fs::write(scratch.file("unopt.ll"), patched)
        .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
    let mut opt = vec!["-S", "-passes=default<O2>"];
    if fixes.native_widths {
        opt.extend(["-replexitval=never", "-switch-to-lookup=false"]);
    }
    if keep_convergent {
        opt.extend(KEEP_CONVERGENT_CALLS.iter().skip(1).step_by(2));
    }
    opt.extend(["unopt.ll", "-o", "input.ll"]);
    run_opt(scratch, &opt, "opt (O2)")?;
    std::fs::read_to_string(scratch.file("input.ll"))
        .map_err(|e| BuildError::internal(format!("opt wrote no IR: {e}")))
}

/// The functions `ll` declares but does not define, leaving out what the
/// device provides: OpenCL builtins (Itanium-mangled, `_Z...`), LLVM
/// intrinsics and SPIR-V builtins. OpenCL C does not mangle the
/// application's own functions (unless `overloadable`, a known gap).
pub(crate) fn undefined_functions(ll: &str) -> Vec<String> {
    ll.lines()
        .filter_map(|l| l.strip_prefix("declare "))
        .filter_map(|l| {
            let at = l.find('@')? + 1;
            let rest = &l[at..];
            let name = match rest.strip_prefix('"') {
                Some(q) => &q[..q.find('"')?],
                None => &rest[..rest.find('(')?],
            };
            Some(name.to_string())
        })
        .filter(|n| {
            !(n.starts_with("_Z")
                || n.starts_with("llvm.")
                || n.starts_with("__spirv")
                || n.starts_with("__clc")
                || n.starts_with("__translate_sampler_initializer"))
        })
        .collect()
}

/// Writes textual IR `ll` as `input.ll` and its bitcode as `input.bc` in
/// `scratch` (with `promote_sampler_locals` where -O0 needs it).
fn write_bitcode(scratch: &ScratchDir, ll: &str, opts: &FrontendOptions) -> Result<(), BuildError> {
    if opts.opt_disable && ll.contains("@__translate_sampler_initializer") {
        std::fs::write(scratch.file("input.ll"), ll)
            .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
        return promote_sampler_locals(scratch, "input.ll", "input.bc");
    }
    linked_to_bitcode(scratch, ll, opts.inline_functions && !opts.opt_disable)
}

/// The linked program's textual IR `ll` → `input.bc` in `scratch`, for
/// `translate_bitcode`: its 16-bit byte swaps and funnel shifts defined
/// (`swaps16`), and with `inline` the program's own functions inlined
/// (`inline_functions`).
pub(crate) fn linked_to_bitcode(
    scratch: &ScratchDir,
    ll: &str,
    inline: bool,
) -> Result<(), BuildError> {
    let ll = &swaps16::define_16bit_swaps(ll);
    let ll = &overflow_multiplies::define_overflow_multiplies(ll);
    let marked = inline
        .then(|| inline_functions::mark_always_inline(ll))
        .flatten();
    std::fs::write(scratch.file("input.ll"), marked.as_deref().unwrap_or(ll))
        .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
    if marked.is_some() {
        crate::timing::time(
            || "inline_functions".into(),
            || inline_functions::inline_marked(scratch, "input.ll"),
        )?;
    }
    ir_to_bitcode(scratch, "input.ll", "input.bc")
}

/// Writes one embedded header as `scratch/<name>`.
fn write_header(scratch: &ScratchDir, name: &str, text: &str) -> Result<(), BuildError> {
    let rel = std::path::Path::new(name);
    let bad = name.is_empty()
        || rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)));
    if bad {
        return Err(BuildError::failure(format!(
            "error: invalid header include name '{name}'"
        )));
    }
    let path = scratch.path.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| BuildError::failure(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(&path, text)
        .map_err(|e| BuildError::failure(format!("cannot write header '{name}': {e}")))
}

/// `clang -cc1 -x ir`: textual (or bitcode) IR `input` → bitcode `output`,
/// both in `scratch`.
pub fn ir_to_bitcode(scratch: &ScratchDir, input: &str, output: &str) -> Result<(), BuildError> {
    order_blocks(scratch, input)?;
    let to_bc = [
        "-cc1",
        "-triple",
        "spir64",
        "-no-opaque-pointers",
        "-x",
        "ir",
        input,
        "-emit-llvm-bc",
        "-o",
        output,
    ];
    let os: Vec<&OsStr> = to_bc.iter().map(OsStr::new).collect();
    let out = run_tool(tools::CLANG, &os, &scratch.path)?;
    if !out.success {
        return Err(BuildError::internal(format!(
            "IR to bitcode failed: {}",
            out.stderr
        )));
    }
    let text = std::fs::read(scratch.file(input)).unwrap_or_default();
    if contains(&text, b"@llvm.vector.reduce.") {
        expand_vector_reductions(scratch, output)?;
    }
    Ok(())
}

/// Textual IR file `file` in `scratch` with its functions' blocks in
/// dominance order (`block_order`), for llvm-spirv-15; a function out of
/// order that has unnamed values is named first by `opt-15
/// -passes=instnamer` (only such modules take it). Bitcode is left alone.
fn order_blocks(scratch: &ScratchDir, file: &str) -> Result<(), BuildError> {
    let Ok(ll) = std::fs::read_to_string(scratch.file(file)) else {
        return Ok(());
    };
    let write = |ll: String| {
        std::fs::write(scratch.file(file), ll)
            .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))
    };
    match block_order::order_blocks_by_dominance(&ll) {
        block_order::Ordered::Unchanged => return Ok(()),
        block_order::Ordered::Reordered(ll) => return write(ll),
        block_order::Ordered::NeedsNames => {}
    }
    let args = [
        "-S",
        "-opaque-pointers=0",
        "-passes=instnamer",
        file,
        "-o",
        file,
    ];
    run_opt(scratch, &args, "naming values (opt instnamer)")?;
    let named = std::fs::read_to_string(scratch.file(file))
        .map_err(|e| BuildError::internal(format!("opt wrote no IR: {e}")))?;
    match block_order::order_blocks_by_dominance(&named) {
        block_order::Ordered::Reordered(ll) => write(ll),
        block_order::Ordered::Unchanged => Ok(()),
        block_order::Ordered::NeedsNames => Err(BuildError::internal(
            "a function's blocks are out of dominance order and opt left unnamed values",
        )),
    }
}

/// `opt-15` with `args` in `scratch`; `what` names the step in the
/// internal error when it fails (`<what> failed: <opt's stderr>`).
pub(crate) fn run_opt(scratch: &ScratchDir, args: &[&str], what: &str) -> Result<(), BuildError> {
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = run_tool(tools::OPT, &os, &scratch.path)?;
    if !out.success {
        return Err(BuildError::internal(format!(
            "{what} failed: {}",
            out.stderr
        )));
    }
    Ok(())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// `opt-15 -expand-reductions` on bitcode `file`: the `llvm.vector.reduce.*`
/// intrinsics LLVM's loop vectorizer emits for reductions (e.g. a product
/// of `uchar`s once `reoptimize` gives the data layout native widths),
/// which llvm-spirv-15 rejects ("Unexpected llvm intrinsic"), become
/// shuffles and element-wise operations (LLVM's ExpandReductions, the
/// code generators' fallback). Only modules that use them take it.
fn expand_vector_reductions(scratch: &ScratchDir, file: &str) -> Result<(), BuildError> {
    let args = ["-opaque-pointers=0", "-expand-reductions", file, "-o", file];
    run_opt(scratch, &args, "expanding vector reductions")
}

/// `opt-15 -passes=mem2reg`: textual IR `input` → bitcode `output`, both
/// in `scratch`. At -O0 a function-scope literal sampler
/// (`const sampler_t s = CLK_...;`) lives in an alloca, whose store
/// llvm-spirv-15 cannot translate (an assertion fails); promoting allocas
/// to values is the least optimization that avoids it.
fn promote_sampler_locals(
    scratch: &ScratchDir,
    input: &str,
    output: &str,
) -> Result<(), BuildError> {
    order_blocks(scratch, input)?;
    run_opt(
        scratch,
        &["-passes=mem2reg", input, "-o", output],
        "opt (mem2reg)",
    )
}

/// llvm-spirv-15: `input.bc` → Kernel SPIR-V bytes. Integers of widths
/// SPIR-V lacks (which LLVM's optimizer may create) are translated through
/// SPV_INTEL_arbitrary_precision_integers; `passes::legalize_int_widths`
/// widens them. A function with irreducible control flow
/// (`passes::reducible`) is made reducible (`make_reducible`) and the
/// module translated again.
pub fn translate_bitcode(scratch: &ScratchDir) -> Result<Vec<u8>, BuildError> {
    let spirv = run_llvm_spirv(scratch)?;
    let Some(name) = irreducible(&spirv) else {
        return Ok(spirv);
    };
    make_reducible(scratch, &name)?;
    let spirv = run_llvm_spirv(scratch)?;
    match irreducible(&spirv) {
        Some(name) => Err(BuildError::failure(format!(
            "error: function '{name}' has irreducible control flow (a loop entered at more than one point, e.g. by goto), which ferrocl could not make reducible"
        ))),
        None => Ok(spirv),
    }
}

/// The function of Kernel SPIR-V bytes with irreducible control flow.
pub(crate) fn irreducible(spirv: &[u8]) -> Option<String> {
    tools::bytes_to_words(spirv).and_then(|w| crate::passes::reducible::irreducible_function(&w))
}

/// `opt-15 -passes=lowerswitch,fix-irreducible` on `input.bc`: every
/// irreducible region gets one header that dispatches to the region's
/// former entries (LLVM's FixIrreducible, which keeps SSA form; its control
/// flow hubs take two-way branches, hence lowerswitch first). Only modules
/// with an irreducible function take it.
fn make_reducible(scratch: &ScratchDir, function: &str) -> Result<(), BuildError> {
    let args = [
        "-opaque-pointers=0",
        "-passes=lowerswitch,fix-irreducible",
        "input.bc",
        "-o",
        "input.bc",
    ];
    run_opt(
        scratch,
        &args,
        &format!("making the control flow of '{function}' reducible"),
    )
}

/// An IL module with irreducible control flow: translated to LLVM bitcode
/// (`llvm-spirv -r`), made reducible and translated back (`None`: the
/// module has none).
pub fn make_il_reducible(
    spirv: &[u8],
    scratch: &ScratchDir,
) -> Result<Option<Vec<u8>>, BuildError> {
    let Some(name) = irreducible(spirv) else {
        return Ok(None);
    };
    std::fs::write(scratch.file("il.spv"), spirv)
        .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
    let args = ["-r", "il.spv", "-o", "input.bc"];
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = run_tool(tools::LLVM_SPIRV, &os, &scratch.path)?;
    if !out.success {
        return Err(BuildError::failure(format!(
            "error: function '{name}' has irreducible control flow (a loop entered at more than one point), and the module cannot be translated to LLVM IR to make it reducible: {}",
            out.stderr.trim()
        )));
    }
    translate_bitcode(scratch).map(Some)
}

/// llvm-spirv-15's SPIR-V extensions: arbitrary-width integers (widened by
/// `passes::legalize_int_widths`), and those of the OpenCL extensions the
/// lowering implements: integer dot products, bit-field instructions,
/// expect/assume hints.
fn run_llvm_spirv(scratch: &ScratchDir) -> Result<Vec<u8>, BuildError> {
    // The float atomics of cl_ext_float_atomics (`atomic_fetch_add` ... on
    // atomic_float/atomic_double) become OpAtomicFAddEXT / FMinEXT / FMaxEXT
    // (`passes::lower::atomic::float`); without these extensions llvm-spirv
    // rejects them.
    let args = [
        "--spirv-ext=+SPV_INTEL_arbitrary_precision_integers,+SPV_KHR_integer_dot_product,\
         +SPV_KHR_bit_instructions,+SPV_KHR_expect_assume,\
         +SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max",
        "input.bc",
        "-o",
        "input.spv",
    ];
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = run_tool(tools::LLVM_SPIRV, &os, &scratch.path)?;
    if !out.success {
        let msg = out
            .stderr
            .lines()
            .next()
            .unwrap_or("no message")
            .to_string();
        return Err(BuildError::internal(format!("llvm-spirv failed: {msg}")));
    }
    std::fs::read(scratch.file("input.spv"))
        .map_err(|e| BuildError::internal(format!("llvm-spirv wrote nothing: {e}")))
}

/// Rewrites LLVM 15's `freeze` (which -O2 emits, e.g. for div/rem pairs,
/// and llvm-spirv-15 cannot translate) as a same-type bitcast: OpenCL C
/// has no poison-producing code that relies on it. `%x = freeze T v, !m`
/// becomes `%x = bitcast T v to T, !m`.
pub fn remove_freeze(ll: &str) -> String {
    let mut out = String::with_capacity(ll.len());
    for line in ll.lines() {
        match line.find(" = freeze ") {
            Some(p) => {
                let (lhs, rest) = (&line[..p], &line[p + " = freeze ".len()..]);
                let (operand, meta) = match rest.find(", !") {
                    Some(m) => (&rest[..m], &rest[m..]),
                    None => (rest, ""),
                };
                let (ty, value) = operand.rsplit_once(' ').unwrap_or((operand, ""));
                out.push_str(&format!("{lhs} = bitcast {ty} {value} to {ty}{meta}"));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_undefined_functions() {
        let ll = "declare spir_func i32 @helper(i32) local_unnamed_addr #1\n\
                  declare spir_func i64 @_Z13get_global_idj(i32)\n\
                  declare void @llvm.dbg.value(metadata)\n\
                  define spir_func i32 @defined(i32 %x) {\n";
        assert_eq!(super::undefined_functions(ll), ["helper"]);
    }

    #[test]
    fn freeze_becomes_bitcast() {
        let ll = "  %a.fr = freeze i32 %a, !dbg !7\n  %v = freeze <4 x i32> %w\n";
        assert_eq!(
            super::remove_freeze(ll),
            "  %a.fr = bitcast i32 %a to i32, !dbg !7\n  %v = bitcast <4 x i32> %w to <4 x i32>\n"
        );
    }
}
