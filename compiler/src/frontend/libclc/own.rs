//! ferrocl's own math in OpenCL C (`OWN`, `HALF`, `HALF_PREFIX`: the .cl
//! files beside this one), compiled once per process and linked into a
//! program that calls one of its overloads (`link_own`), and the
//! `llvm-link --only-needed` step every math link takes (`link_needed`).

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::sync::{Mutex, OnceLock};

use super::ir::{datalayout, declared_name, demangle_base, first_param_is, rename_symbols};
use super::ir::{set_datalayout, strip_version_metadata};
use super::{poisoned, DOUBLE_BUILTINS};
use crate::error::BuildError;
use crate::tools::{self, run_tool, ScratchDir};

/// Builtins ferrocl implements itself, in OpenCL C linked like libclc's
/// functions.
#[derive(Clone, Copy)]
pub(super) struct Own {
    /// Whether it implements the OpenCL name.
    bases: fn(&str) -> bool,
    /// The overloads it replaces: those whose first parameter has one of
    /// these mangled element types (`d` double, `f` float, `Dh` half) or
    /// starts with one of these mangled pointer types.
    elements: &'static [&'static str],
    /// The source's file name (its stem names the compiled module).
    file: &'static str,
    source: &'static str,
    /// The source defines `<defines><base>` for each base of `bases`, with the
    /// parameters of the overloads it replaces.
    defines: &'static str,
    /// The OpenCL C version it is compiled as.
    std: &'static str,
    /// A mangled parameter sequence of the program's declarations that the
    /// source's definitions spell differently (`from`, `to`), if any.
    respell: Option<(&'static str, &'static str)>,
    /// The definitions are `always_inline` and become `internal` once
    /// linked, so that none is left after inlining (`ir_to_bitcode`'s
    /// always-inliner deletes them): their orders and scopes are
    /// parameters, which the 32-bit atomics inside must see as constants.
    inline: bool,
}

/// The builtins ferrocl implements itself: double `fma` only where the
/// device's is not fused; `tgamma` because libclc-15's is off by up to 300
/// ulp in double (exp(lgamma(x))) and 70 ulp in float, with wrong
/// infinities near zero and underflows (OpenCL allows 16 ulp); float
/// `erfc` for x in [1.85, 10.5], where libclc-15's is up to 48 ulp off
/// (calling libclc's elsewhere).
pub(super) const OWN: &[Own] = &[
    Own {
        bases: |b| b == "fma",
        elements: &["d"],
        file: "fma64.cl",
        source: include_str!("fma64.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
        respell: None,
        inline: false,
    },
    Own {
        bases: |b| b == "tgamma",
        elements: &["d"],
        file: "tgamma64.cl",
        source: include_str!("tgamma64.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
        respell: None,
        inline: false,
    },
    Own {
        bases: |b| b == "tgamma",
        elements: &["f"],
        file: "tgamma32.cl",
        source: include_str!("tgamma32.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
        respell: None,
        inline: false,
    },
    Own {
        bases: |b| b == "erfc",
        elements: &["f"],
        file: "erfc32.cl",
        source: include_str!("erfc32.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
        respell: None,
        inline: false,
    },
];

/// Half-precision math through the float functions (module doc, "Half
/// precision"): every builtin on half that Vulkan's 16-bit instructions do
/// not compute within OpenCL's half bounds (half.cl defines each of them).
/// Linked before the float functions it calls.
pub(super) const HALF: Own = Own {
    // The float functions taken from libclc, and those Vulkan's 16-bit
    // versions compute outside the half bounds.
    bases: |b| {
        DOUBLE_BUILTINS.contains(&b)
            || ["sqrt", "rsqrt", "fma", "length", "distance", "normalize"].contains(&b)
    },
    elements: &["Dh"],
    file: "half.cl",
    source: include_str!("half.cl"),
    defines: "__ferrocl_half_",
    std: "CL2.0",
    respell: None,
    inline: false,
};

/// Whether the half overloads of `base` are ferrocl's (`half.cl`, through
/// the float functions).
pub(crate) fn half_builtin(base: &str) -> bool {
    (HALF.bases)(base)
}

/// half_log, half_log2, half_log10, half_powr on float: the precise
/// functions (Vulkan's are beyond their 8192 ulp near 1, and undefined for
/// NaN; `half_prefix.cl`). Linked before libclc's functions.
pub(super) const HALF_PREFIX: Own = Own {
    bases: |b| ["half_log", "half_log2", "half_log10", "half_powr"].contains(&b),
    elements: &["f"],
    file: "half_prefix.cl",
    source: include_str!("half_prefix.cl"),
    defines: "__ferrocl_",
    std: "CL1.2",
    respell: None,
    inline: false,
};

/// The half-precision atomics of cl_ext_float_atomics on `atomic_half` in
/// `__global`, `__local` and generic memory (`half_atomics.cl`:
/// compare-exchange loops on the 32-bit word that holds the half, as
/// llvm-spirv-15 cannot translate 16-bit float atomics). Linked first.
pub(super) const HALF_ATOMICS: Own = Own {
    bases: |b| {
        let rmw = b.strip_suffix("_explicit").unwrap_or(b);
        [
            "atomic_fetch_add",
            "atomic_fetch_sub",
            "atomic_fetch_min",
            "atomic_fetch_max",
            "atomic_exchange",
            "atomic_load",
            "atomic_store",
        ]
        .contains(&rmw)
    },
    elements: &[
        "PU3AS1VU7_AtomicDh",
        "PU3AS3VU7_AtomicDh",
        "PU3AS4VU7_AtomicDh",
    ],
    file: "half_atomics.cl",
    source: include_str!("half_atomics.cl"),
    defines: "__ferrocl_",
    std: "CL2.0",
    // clang-15 mangles the value parameter of the program's atomic_store
    // and atomic_store_explicit on atomic_half as `_Atomic(half)` (`S_`,
    // the pointee), that of every other builtin as `half`; the
    // definitions take a `half`.
    respell: Some(("VU7_AtomicDhS_", "VU7_AtomicDhDh")),
    inline: true,
};

/// Whether ferrocl implements the overloads of `base` whose first
/// parameter has element type `element` itself (only the double ones
/// matter to `needed`: double `fma` is linked after libclc's functions).
pub(super) fn is_own(base: &str, element: &str) -> bool {
    OWN.iter()
        .any(|o| (o.bases)(base) && o.elements.contains(&element))
}

/// One of the [`OWN`] sources compiled to textual IR, once per process.
pub(super) fn own_module(own: &Own, scratch: &ScratchDir) -> Result<String, BuildError> {
    static MODULES: OnceLock<Mutex<HashMap<String, Result<String, String>>>> = OnceLock::new();
    let modules = MODULES.get_or_init(Default::default);
    let (file, source) = (own.file, own.source);
    if let Some(m) = modules.lock().map_err(|_| poisoned())?.get(file) {
        return m.clone().map_err(BuildError::internal);
    }
    let name = file.trim_end_matches(".cl");
    let std = format!("-cl-std={}", own.std);
    let compile = || -> Result<String, String> {
        let out_file = format!("{name}.ll");
        std::fs::write(scratch.file(file), source)
            .map_err(|e| format!("cannot write a temporary file: {e}"))?;
        let args = [
            "-cc1",
            "-triple",
            "spir64",
            "-no-opaque-pointers",
            "-finclude-default-header",
            "-fdeclare-opencl-builtins",
            &std,
            "-fno-builtin",
            "-O2",
            "-emit-llvm",
            "-o",
            &out_file,
            file,
        ];
        let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = run_tool(tools::CLANG, &os, &scratch.path).map_err(|e| e.log)?;
        if !out.success {
            return Err(format!("compiling ferrocl's {name} failed: {}", out.stderr));
        }
        let ll = std::fs::read_to_string(scratch.file(&out_file))
            .map_err(|e| format!("clang wrote no IR: {e}"))?;
        Ok(strip_version_metadata(&crate::frontend::remove_freeze(&ll)))
    };
    let m = compile();
    modules
        .lock()
        .map_err(|_| poisoned())?
        .insert(file.to_string(), m.clone());
    m.map_err(BuildError::internal)
}

/// The overloads of `own` that `ll` declares, each with the name of
/// ferrocl's version (`_Z3fmaddd` → `_Z13__ferrocl_fmaddd`).
pub(super) fn own_overloads(ll: &str, own: &Own) -> HashMap<String, String> {
    ll.lines()
        .filter(|l| l.starts_with("declare "))
        .filter_map(declared_name)
        .filter_map(|name| {
            let (b, params) = demangle_base(name)?;
            ((own.bases)(b) && own.elements.iter().any(|e| first_param_is(params, e))).then(|| {
                let defined = format!("{}{b}", own.defines);
                let params = match own.respell {
                    Some((from, to)) => params.replacen(from, to, 1),
                    None => params.to_string(),
                };
                (
                    name.to_string(),
                    format!("_Z{}{defined}{params}", defined.len()),
                )
            })
        })
        .collect()
}

/// `llvm-link -S first --only-needed second -o out` in `scratch`: the
/// definitions of `second` that `first` uses, added to `first`.
pub(super) fn link_needed(
    scratch: &ScratchDir,
    first: &str,
    second: &str,
    out: &str,
) -> Result<String, BuildError> {
    let args = [
        "-opaque-pointers=0",
        "-S",
        first,
        "--only-needed",
        second,
        "-o",
        out,
    ];
    let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let result = run_tool(tools::LLVM_LINK, &os, &scratch.path)?;
    if !result.success {
        return Err(BuildError::internal(format!(
            "linking {second} failed: {}",
            result.stderr.trim()
        )));
    }
    std::fs::read_to_string(scratch.file(out))
        .map_err(|e| BuildError::internal(format!("llvm-link wrote nothing: {e}")))
}

/// Links ferrocl's version of a builtin ([`OWN`]) into the textual IR `ll`
/// when it calls one of its overloads: the linked IR, or None.
pub(super) fn link_own(
    ll: &str,
    scratch: &ScratchDir,
    own: &Own,
) -> Result<Option<String>, BuildError> {
    let calls = own_overloads(ll, own);
    if calls.is_empty() {
        return Ok(None);
    }
    let module = own_module(own, scratch)?;
    let base = own.file.trim_end_matches(".cl");
    let write = |name: &str, text: &str| {
        std::fs::write(scratch.file(name), text)
            .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))
    };
    let (program, lib, out) = (
        format!("program-{base}.ll"),
        format!("{base}-opt.ll"),
        format!("linked-{base}.ll"),
    );
    write(&lib, &set_datalayout(&module, datalayout(ll)))?;
    write(&program, &rename_symbols(ll, &calls))?;
    let linked = link_needed(scratch, &program, &lib, &out)?;
    if !own.inline {
        return Ok(Some(linked));
    }
    let targets: HashSet<&str> = calls.values().map(String::as_str).collect();
    let internal = linked
        .lines()
        .map(|line| match line.strip_prefix("define dso_local ") {
            Some(rest) if declared_name(line).is_some_and(|n| targets.contains(n)) => {
                format!("define internal {rest}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect();
    Ok(Some(internal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_atomic_overloads() {
        let ll = "declare spir_func half @_Z16atomic_fetch_addPU3AS1VU7_AtomicDhDh(half addrspace(1)*, half)\n\
                  declare spir_func void @_Z12atomic_storePU3AS3VU7_AtomicDhS_(half addrspace(3)*, half)\n\
                  declare spir_func half @_Z20atomic_load_explicitPU3AS4VU7_AtomicDh12memory_order(half addrspace(4)*, i32)\n\
                  declare spir_func float @_Z16atomic_fetch_addPU3AS1VU7_AtomicffS_(float addrspace(1)*, float)\n\
                  declare spir_func i32 @_Z16atomic_fetch_addPU3AS1VU7_Atomicii(i32 addrspace(1)*, i32)\n";
        let mut got: Vec<(String, String)> = own_overloads(ll, &HALF_ATOMICS).into_iter().collect();
        got.sort();
        let want = [
            (
                "_Z12atomic_storePU3AS3VU7_AtomicDhS_",
                "_Z22__ferrocl_atomic_storePU3AS3VU7_AtomicDhDh",
            ),
            (
                "_Z16atomic_fetch_addPU3AS1VU7_AtomicDhDh",
                "_Z26__ferrocl_atomic_fetch_addPU3AS1VU7_AtomicDhDh",
            ),
            (
                "_Z20atomic_load_explicitPU3AS4VU7_AtomicDh12memory_order",
                "_Z30__ferrocl_atomic_load_explicitPU3AS4VU7_AtomicDh12memory_order",
            ),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|&(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want);
    }
}
