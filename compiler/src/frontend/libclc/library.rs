//! libclc's SPIR-V library as LLVM bitcode (once per machine,
//! `library_bitcode`) and the optimized module of the functions a program
//! needs, configured for the device (`library_module`, once per process
//! per set of builtins).

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use super::ir::{
    defined_symbols, definition_range, demangle_base, external_globals, rename_symbols,
    set_datalayout, strip_version_metadata,
};
use super::wrappers::{
    call_target, generic_wrapper, scalar_fixes, vector_loop, zero_fix, GENERIC_PTR, ZERO_PREFIX,
};
use super::{poisoned, MathOptions, Needed, PREFIX};
use crate::error::BuildError;
use crate::tools::{self, run_tool, ScratchDir};

/// spir64's data layout with the native integer widths: without them,
/// InstCombine narrows switch conditions to types such as `i2`, which
/// llvm-spirv-15 refuses ("Invalid bit width").
pub(super) const OPT_DATALAYOUT: &str =
    "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256\
                              -v512:512-v1024:1024-n8:16:32:64";

/// The modification time of `path` in seconds (0 when unknown).
pub(super) fn mtime(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}

/// libclc's library as LLVM bitcode (module doc, step 2).
pub(super) fn library_bitcode() -> Result<PathBuf, String> {
    static BITCODE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BITCODE
        .get_or_init(|| {
            let spv = tools::LIBCLC.path();
            let meta = std::fs::metadata(&spv).map_err(|e| {
                format!(
                    "libclc's library {} is missing ({e}); install libclc-15 or set {}",
                    spv.display(),
                    tools::LIBCLC.env
                )
            })?;
            let name = format!("libclc-{}-{}.bc", meta.len(), mtime(&meta));
            let dirs = crate::tools::cache_dir()
                .into_iter()
                .chain([std::env::temp_dir().join("ferrocl-libclc")]);
            let mut last_error = String::new();
            for dir in dirs {
                let bc = dir.join(&name);
                if std::fs::metadata(&bc).is_ok_and(|m| m.len() > 0) {
                    return Ok(bc);
                }
                if let Err(e) = std::fs::create_dir_all(&dir) {
                    last_error = format!("cannot create {}: {e}", dir.display());
                    continue;
                }
                // Translate to a file of this process, then rename:
                // concurrent processes never read a partial file.
                let tmp = dir.join(format!("{name}.tmp{}", std::process::id()));
                let args = [
                    OsStr::new("-r"),
                    spv.as_os_str(),
                    OsStr::new("-o"),
                    tmp.as_os_str(),
                ];
                let out = run_tool(tools::LLVM_SPIRV, &args, &dir).map_err(|e| e.log)?;
                if !out.success {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(format!(
                        "cannot translate libclc's library: {}",
                        out.stderr.trim()
                    ));
                }
                match std::fs::rename(&tmp, &bc) {
                    Ok(()) => return Ok(bc),
                    Err(e) => {
                        let _ = std::fs::remove_file(&tmp);
                        last_error = format!("cannot store {}: {e}", bc.display());
                    }
                }
            }
            Err(last_error)
        })
        .clone()
}

/// The optimized libclc module (textual IR) defining `ferrocl.clc.<name>`
/// for every needed builtin (module doc, steps 3 to 6), cached per process.
pub(super) fn library_module(
    needed: &[Needed],
    opts: &MathOptions,
    scratch: &ScratchDir,
) -> Result<String, BuildError> {
    type Key = (Vec<String>, bool, bool);
    static MODULES: OnceLock<Mutex<HashMap<Key, String>>> = OnceLock::new();
    let names: Vec<String> = needed.iter().map(|n| n.name.clone()).collect();
    let key = (names, opts.soft_fma32, opts.denorms32);
    let modules = MODULES.get_or_init(Default::default);
    if let Some(m) = modules.lock().map_err(|_| poisoned())?.get(&key) {
        return Ok(m.clone());
    }
    let lib = library_bitcode().map_err(BuildError::failure)?;
    let mut wrappers = String::new();
    let mut loops = String::new();
    let mut funcs: BTreeSet<String> = BTreeSet::new();
    for n in needed {
        if call_target(n).starts_with(ZERO_PREFIX) {
            wrappers.push_str(&zero_fix(n, !opts.denorms32)?);
        }
        if let Some(l) = vector_loop(n) {
            let (scalar, ir) = l?;
            loops.push_str(&ir);
            funcs.insert(scalar);
        } else if n.name.contains(GENERIC_PTR) {
            let (private, ir) = generic_wrapper(n)?;
            wrappers.push_str(&ir);
            funcs.insert(private);
        } else {
            funcs.insert(n.name.clone());
        }
    }
    // Extract the functions, then again with the tables they read.
    let mut globals: BTreeSet<String> = BTreeSet::new();
    let extracted = loop {
        let mut args: Vec<String> = vec!["--recursive".into(), "-S".into()];
        args.extend(funcs.iter().map(|f| format!("--func={f}")));
        args.extend(globals.iter().map(|g| format!("--glob={g}")));
        args.extend([lib.display().to_string(), "-o".into(), "clc.ll".into()]);
        let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = run_tool(tools::LLVM_EXTRACT, &os, &scratch.path)?;
        if !out.success {
            let missing = funcs
                .iter()
                .find(|f| out.stderr.contains(f.as_str()))
                .map(|f| {
                    let base = demangle_base(f).map_or(f.as_str(), |(b, _)| b);
                    format!("'{base}' ({f}) is not in libclc's library")
                });
            return Err(match missing {
                Some(m) => BuildError::failure(format!("error: {m}")),
                None => BuildError::internal(format!(
                    "extracting libclc functions failed: {}",
                    out.stderr.trim()
                )),
            });
        }
        let text = std::fs::read_to_string(scratch.file("clc.ll"))
            .map_err(|e| BuildError::internal(format!("llvm-extract wrote nothing: {e}")))?;
        let missing: Vec<String> = external_globals(&text)
            .into_iter()
            .filter(|g| !globals.contains(g))
            .collect();
        if missing.is_empty() {
            break text;
        }
        globals.extend(missing);
    };
    let extracted = configure_float_code(&extracted, opts);
    let map: HashMap<String, String> = defined_symbols(&extracted)
        .into_iter()
        .map(|s| (s.clone(), format!("{PREFIX}{s}")))
        .collect();
    let mut module = String::new();
    let renamed = rename_symbols(&extracted, &map);
    for line in set_datalayout(&renamed, Some(OPT_DATALAYOUT)).lines() {
        // The tables: internal (the program cannot see them).
        if line.starts_with(&format!("@{PREFIX}")) {
            if let Some((lhs, rhs)) = line.split_once(" = ") {
                module.push_str(&format!("{lhs} = internal {rhs}\n"));
                continue;
            }
        }
        module.push_str(line);
        module.push('\n');
    }
    std::fs::write(scratch.file("clc.ll"), &module)
        .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
    let optimize = [
        "-cc1",
        "-triple",
        "spir64",
        "-no-opaque-pointers",
        "-x",
        "ir",
        "clc.ll",
        "-O2",
        "-emit-llvm",
        "-o",
        "clc-opt.ll",
    ];
    let os: Vec<&OsStr> = optimize.iter().map(OsStr::new).collect();
    let out = run_tool(tools::CLANG, &os, &scratch.path)?;
    if !out.success {
        return Err(BuildError::internal(format!(
            "optimizing libclc's functions failed: {}",
            out.stderr.trim()
        )));
    }
    let optimized = std::fs::read_to_string(scratch.file("clc-opt.ll"))
        .map_err(|e| BuildError::internal(format!("clang wrote no IR: {e}")))?;
    // The wrappers after the optimizer, which would unroll the loops.
    let (optimized, fixes) = scalar_fixes(&optimized, opts)?;
    let optimized = strip_version_metadata(&crate::frontend::remove_freeze(&optimized))
        + &wrappers
        + &loops
        + &fixes;
    modules
        .lock()
        .map_err(|_| poisoned())?
        .insert(key, optimized.clone());
    Ok(optimized)
}

/// libclc's float `fma` (`_Z3fmafff`), which its library defines as the
/// software one.
pub(super) const FMA32: &str = "_Z3fmafff";

/// libclc's float code configured for the device (module doc, "Single
/// precision"): where the device's float `Fma` is fused, libclc's `fma`
/// (the software one) becomes a declaration, so that its calls stay
/// OpenCL.std `fma` instructions (GLSL.std.450 `Fma`); where denormals are
/// preserved, `__clc_fp32_subnormals_supported` (false in the library, so
/// the software fma and ldexp flush tiny results) returns true.
pub(super) fn configure_float_code(extracted: &str, opts: &MathOptions) -> String {
    let mut text = extracted.to_string();
    if !opts.soft_fma32 {
        if let Some(r) = definition_range(&text, FMA32) {
            text.replace_range(
                r,
                &format!("declare spir_func float @{FMA32}(float, float, float)\n"),
            );
        }
    }
    if opts.denorms32 {
        if let Some(r) = definition_range(&text, "__clc_fp32_subnormals_supported") {
            text.replace_range(
                r,
                "define spir_func zeroext i1 @__clc_fp32_subnormals_supported() {\n  \
                 ret i1 true\n}\n",
            );
        }
    }
    text
}
