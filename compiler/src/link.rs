//! Separate compilation (clCompileProgram) and linking (clLinkProgram).
//!
//! A compiled object and a library are both LLVM bitcode (spir64, typed
//! pointers, clang's kernel argument metadata kept): `compile_source` is
//! clang's front end alone (`frontend::compile_to_object`: no LLVM pass
//! has run, so an object costs little however much of it the program
//! calls), and `link_objects` runs
//!
//! 1. `llvm-link-15` over the objects' bitcode (duplicate definitions fail
//!    here);
//! 2. with `-create-library`, stops: the linked bitcode is the library;
//! 3. otherwise, on its textual IR, the C99 `inline` definitions become
//!    `linkonce_odr`, the sub-group rotates are defined, and the functions
//!    no kernel reaches are dropped
//!    (`unoptimized_executable`), then `clang -cc1 -x ir -O2` (inlining
//!    across the former object boundaries, as a single-source build gets;
//!    again through `opt-15` with native integer widths where it made odd
//!    ones, as `frontend::reoptimize` does), a check that every function
//!    called is defined (a call to a function no object defines is a link
//!    error, not a lowering failure), then the rest of the pipeline of
//!    `build_source` (libclc's double math,
//!    llvm-spirv-15, lowering, ...).
//!
//! Known gaps: link options other than `-create-library` are accepted and
//! ignored (the objects are compiled already; the math options were the
//! compile options' business).

use std::ffi::OsStr;

use crate::caps::DeviceCaps;
use crate::dump::{self, Pass};
use crate::error::BuildError;
use crate::frontend::{self, parse_build_options};
use crate::pipeline;
use crate::program::Program;
use crate::timing;
use crate::tools::{self, run_tool, ScratchDir};

/// A compiled object or a library: LLVM bitcode.
#[derive(Clone, Debug)]
pub struct Object {
    pub bitcode: Vec<u8>,
    /// The front end's (or the linker's) warnings.
    pub log: String,
}

/// What clLinkProgram produced.
#[derive(Clone, Debug)]
pub enum Linked {
    /// `-create-library`.
    Library(Object),
    Executable(Program),
}

/// Parsed clLinkProgram options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// `-create-library`.
    pub create_library: bool,
    /// `-enable-link-options`.
    pub enable_link_options: bool,
    /// `-cl-fast-relaxed-math` or `-cl-unsafe-math-optimizations`: the
    /// float math linked from libclc is only what the relaxed bounds need
    /// (`frontend::libclc::RELAXED_GLSL`).
    pub relaxed_math: bool,
}

/// Reads clLinkProgram options (OpenCL 3.0 §5.8.7): `-create-library`,
/// `-enable-link-options` (only with `-create-library`) and the math options
/// `-cl-denorms-are-zero`, `-cl-no-signed-zeros`,
/// `-cl-unsafe-math-optimizations`, `-cl-finite-math-only`,
/// `-cl-fast-relaxed-math`, `-cl-no-subgroup-ifp` (accepted, ignored).
/// Anything else is an options error (CL_INVALID_LINKER_OPTIONS).
pub fn parse_link_options(options: &str) -> Result<LinkOptions, BuildError> {
    let mut out = LinkOptions::default();
    for w in frontend::split_options(options)? {
        match w.as_str() {
            "-create-library" => out.create_library = true,
            "-enable-link-options" => out.enable_link_options = true,
            "-cl-unsafe-math-optimizations" | "-cl-fast-relaxed-math" => out.relaxed_math = true,
            "-cl-denorms-are-zero"
            | "-cl-no-signed-zeros"
            | "-cl-finite-math-only"
            | "-cl-no-subgroup-ifp" => {}
            // ferrocl's target options, applied by `target_caps` (the
            // lowering happens at link time).
            w if frontend::is_target_option(w) => frontend::check_target_option(w)?,
            // Other vendors' compiler options (`frontend::vendor_option`).
            w if frontend::vendor_option(w).is_some() => {}
            _ => return Err(BuildError::options(format!("unknown link option '{w}'"))),
        }
    }
    if out.enable_link_options && !out.create_library {
        return Err(BuildError::options(
            "-enable-link-options is only valid with -create-library",
        ));
    }
    Ok(out)
}

/// clCompileProgram for OpenCL C: `source` → bitcode, `headers` being the
/// embedded headers as (include name, text). Thread-safe; never panics.
pub fn compile_source(
    source: &str,
    options: &str,
    headers: &[(String, String)],
    caps: &DeviceCaps,
) -> Result<Object, BuildError> {
    let start = std::time::Instant::now();
    let r = pipeline::guard(|| {
        let opts = parse_build_options(options, caps)?;
        let scratch = ScratchDir::new()?;
        let (bitcode, log) = frontend::compile_to_object(source, &opts, headers, &scratch)?;
        Ok(Object { bitcode, log })
    });
    timing::report(start, "compile_source");
    r
}

/// clCompileProgram for a program created from IL (OpenCL SPIR-V): the
/// module translated back to bitcode (llvm-spirv-15 -r), so it links with
/// objects compiled from source. Thread-safe; never panics.
pub fn compile_il(il: &[u8], options: &str, caps: &DeviceCaps) -> Result<Object, BuildError> {
    pipeline::guard(|| {
        parse_build_options(options, caps)?;
        let scratch = ScratchDir::new()?;
        std::fs::write(scratch.file("input.spv"), il)
            .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
        let args = ["-r", "input.spv", "-o", "object.bc"];
        let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = run_tool(tools::LLVM_SPIRV, &os, &scratch.path)?;
        if !out.success {
            return Err(BuildError::failure(format!(
                "the IL cannot be compiled: {}",
                out.stderr.trim()
            )));
        }
        let bitcode = read(&scratch, "object.bc")?;
        Ok(Object {
            bitcode,
            log: String::new(),
        })
    })
}

/// clLinkProgram: links the objects/libraries `objects` (bitcode) into a
/// library or an executable per `options`. Thread-safe; never panics.
pub fn link_objects(
    objects: &[&[u8]],
    options: &str,
    caps: &DeviceCaps,
) -> Result<Linked, BuildError> {
    let start = std::time::Instant::now();
    let r = pipeline::on_compiler_stack(|| {
        pipeline::guard(|| {
            let opts = parse_link_options(options)?;
            let caps = &frontend::target_caps(options, caps)?;
            pipeline::check_caps(caps)?;
            if objects.is_empty() {
                return Err(BuildError::failure("error: nothing to link"));
            }
            let scratch = ScratchDir::new()?;
            // Typed pointers, as everywhere in the front end (llvm-spirv-15).
            let mut args: Vec<String> = vec!["-opaque-pointers=0".into()];
            for (i, o) in objects.iter().enumerate() {
                let name = format!("object{i}.bc");
                std::fs::write(scratch.file(&name), o).map_err(|e| {
                    BuildError::failure(format!("cannot write a temporary file: {e}"))
                })?;
                args.push(name);
            }
            // A library is bitcode; an executable's linked module is read as
            // text (`unoptimized_executable`).
            let output = if opts.create_library {
                "linked.bc"
            } else {
                args.push("-S".into());
                "linked.ll"
            };
            args.extend(["-o".into(), output.into()]);
            let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
            let out = run_tool(tools::LLVM_LINK, &os, &scratch.path)?;
            if !out.success {
                return Err(BuildError::failure(format!(
                    "error: linking failed\n{}",
                    out.stderr
                )));
            }
            let log = out.stderr;
            if opts.create_library {
                let bitcode = read(&scratch, "linked.bc")?;
                return Ok(Linked::Library(Object { bitcode, log }));
            }
            let linked = std::fs::read(scratch.file("linked.ll"))
                .map_err(|e| BuildError::internal(format!("llvm-link wrote no IR: {e}")))?;
            // LLVM prints names and strings as they are: a (corrupted) object
            // may hold bytes that are not UTF-8, which the text passes cannot take.
            let linked = String::from_utf8(linked).map_err(|e| {
                BuildError::failure(format!(
                    "error: linking failed: the linked module holds a name or string \
                 that is not UTF-8 (at byte {})",
                    e.utf8_error().valid_up_to()
                ))
            })?;
            let unopt = timing::time(
                || "unoptimized_executable".into(),
                || unoptimized_executable(linked),
            );
            std::fs::write(scratch.file("unopt-linked.ll"), &unopt)
                .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
            let mut optimize = vec![
                "-cc1",
                "-triple",
                "spir64",
                "-no-opaque-pointers",
                "-x",
                "ir",
                "unopt-linked.ll",
                "-O2",
                // The objects' data layout may name native integer widths
                // (`frontend::reoptimize`), with which
                // SimplifyCFG turns switches into lookup tables: private
                // globals in the default address space, which llvm-spirv-15
                // declares with the Function storage class at module scope.
                "-mllvm",
                "-switch-to-lookup=false",
                "-emit-llvm",
                "-o",
                "linked.ll",
            ];
            if objects.iter().any(|o| frontend::uses_subgroup_functions(o)) {
                optimize.extend(frontend::KEEP_CONVERGENT_CALLS);
            }
            let os: Vec<&OsStr> = optimize.iter().map(OsStr::new).collect();
            let out = run_tool(tools::CLANG, &os, &scratch.path)?;
            if !out.success {
                return Err(BuildError::internal(format!(
                    "optimizing the linked module failed: {}",
                    out.stderr
                )));
            }
            let mut ll = std::fs::read_to_string(scratch.file("linked.ll"))
                .map_err(|e| BuildError::internal(format!("clang wrote no IR: {e}")))?;
            if frontend::has_odd_integer_widths(&ll) {
                // As a source build does (`frontend::reoptimize`): the linked
                // module again, optimized with native integer widths.
                let fixes = frontend::Reoptimize {
                    native_widths: true,
                    inline_definitions: false,
                };
                let keep = optimize
                    .iter()
                    .any(|a| *a == frontend::KEEP_CONVERGENT_CALLS[1]);
                ll = frontend::patch_and_optimize(&scratch, &unopt, fixes, true, keep)?;
            }
            let undefined = frontend::undefined_functions(&ll);
            if !undefined.is_empty() {
                let mut msg = log.clone();
                for f in undefined {
                    msg.push_str(&format!("error: undefined function '{f}'\n"));
                }
                return Err(BuildError::failure(msg));
            }
            dump::ir(Pass::LinkObjects, &ll);
            let arg_metadata = frontend::read_kernel_arg_metadata(&ll);
            let ll = frontend::remove_freeze(&frontend::null_casts::fold_null_casts(&ll));
            let math = frontend::libclc::MathOptions::new(caps, opts.relaxed_math);
            let ll = timing::pass(Pass::LinkMath, None, || {
                frontend::libclc::link_math(&ll, &scratch, &math)
            })?
            .unwrap_or(ll);
            frontend::linked_to_bitcode(&scratch, &ll, caps.inline_functions)?;
            let spirv = timing::pass(Pass::TranslateBitcode, None, || {
                frontend::translate_bitcode(&scratch)
            })?;
            dump::spirv(Pass::TranslateBitcode, &spirv);
            let program =
                pipeline::build_module(&spirv, Some(&arg_metadata), log, caps, &scratch, None)?;
            Ok(Linked::Executable(program))
        })
    });
    match &r {
        Ok(Linked::Executable(p)) => timing::report(
            start,
            format_args!("link_objects ({} kernels)", p.kernels.len()),
        ),
        Ok(Linked::Library(_)) => timing::report(start, "link_objects (library)"),
        Err(_) => timing::report(start, "link_objects (failed)"),
    }
    r
}

/// The linked module (llvm-link's textual IR) as the link optimizes it:
///
/// - C99 `inline` definitions (`available_externally`: the objects are
///   clang's front-end output, `frontend::compile_to_object`) become
///   `linkonce_odr`, as `frontend::reoptimize` makes them for a source
///   build whose calls to them remain (`Reoptimize::inline_definitions`):
///   defined wherever called, merged across objects;
/// - the sub-group rotates get their definitions
///   (`frontend::define_rotates`; the -O2 then inlines them);
/// - the function definitions no kernel reaches are dropped
///   (`frontend::drop_unreachable_functions`): an executable's only entry
///   points are its kernels.
fn unoptimized_executable(linked: String) -> String {
    const INLINE: &str = "define available_externally ";
    let patched = if linked.contains(INLINE) {
        let mut out = String::with_capacity(linked.len());
        for line in linked.lines() {
            match line.strip_prefix(INLINE) {
                Some(rest) => {
                    out.push_str("define linkonce_odr ");
                    out.push_str(rest);
                }
                None => out.push_str(line),
            }
            out.push('\n');
        }
        out
    } else {
        linked
    };
    let patched = frontend::define_rotates(&frontend::define_int_saturations(&patched));
    frontend::drop_unreachable_functions(&patched).unwrap_or(patched)
}

fn read(scratch: &ScratchDir, name: &str) -> Result<Vec<u8>, BuildError> {
    std::fs::read(scratch.file(name))
        .map_err(|e| BuildError::internal(format!("{name} was not written: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_options() {
        assert!(parse_link_options("-create-library -enable-link-options").is_ok());
        assert!(parse_link_options("-cl-fast-relaxed-math").is_ok());
        assert!(
            parse_link_options("-enable-link-options")
                .unwrap_err()
                .invalid_options
        );
        assert!(parse_link_options("-bogus").unwrap_err().invalid_options);
    }
}
