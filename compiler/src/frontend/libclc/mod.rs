//! Double- and single-precision math from libclc (DESIGN §4 stage 2):
//! `link_math`.
//!
//! # Algorithm
//!
//! Vulkan has no double-precision transcendentals (GLSL.std.450 defines
//! `sin`, `exp`, ... for 16/32-bit floats only), and its single-precision
//! ones are far from OpenCL's bounds (see "Single precision"), so the
//! double (and double vector) overloads of the builtins in
//! [`DOUBLE_BUILTINS`] and the float (and float vector) overloads of those
//! in [`float_builtin`] come from libclc's SPIR-V library (libclc-15,
//! `spirv64-mesa3d-.spv`, vendor.json), linked into the program's LLVM IR
//! before llvm-spirv, only what is used:
//!
//! 1. The program's IR declares the builtins it calls: the `_Z`-mangled
//!    declarations of a [`DOUBLE_BUILTINS`] name whose first parameter is a
//!    double or a double vector, and of a [`float_builtin`] name whose
//!    first parameter is a float or a float vector (as [`MathOptions`]
//!    selects), are the ones needed.
//! 2. libclc's library is translated to LLVM bitcode once per machine
//!    (`llvm-spirv -r`, stored in the compile-cache directory, else the
//!    temporary directory, under a name made of the library's size and
//!    modification time; once per process after that).
//! 3. `llvm-extract --recursive` takes the needed functions (the scalar
//!    ones for vector overloads, see 5), every function they call and, in
//!    a second round, the constant tables they read (libclc's
//!    argument-reduction and polynomial tables).
//! 4. Every symbol libclc defines is renamed `ferrocl.clc.<name>` in the
//!    extracted module, and the needed builtins' calls in the program's IR
//!    with them: llvm-spirv would otherwise turn calls to builtin names
//!    back into OpenCL.std instructions, and a program may define names
//!    such as `EXP_TBL` itself. The tables become `internal`. The builtins
//!    libclc itself only declares (`fma`, `mad`, `fabs`, `sqrt`, `ldexp`
//!    ...) stay OpenCL.std instructions, which the lowering maps to exact
//!    GLSL.std.450 or core instructions.
//! 5. The extracted module is optimized alone (`clang -cc1 -x ir -O2`:
//!    llvm-spirv's output is unoptimized), then gets small IR wrappers:
//!    vector overloads loop over the components calling the scalar one
//!    (`vector_loop`: drivers inline every call, and one copy of the
//!    scalar code compiles much faster than one per component);
//!    overloads with a generic-address-space pointer (`sincos`, `lgamma_r`
//!    under `-cl-std=CL2.0`), which libclc lacks, write through a private
//!    temporary; some builtins get their zero results fixed to those of
//!    OpenCL C §7.5.1, which libclc-15 does not always return
//!    ([`ZeroFix`](wrappers::ZeroFix)). The result is cached per process by the set of needed
//!    builtins; `llvm-link --only-needed` joins it to the program.
//!
//! The tables are program-scope `__constant` data of the program: large
//! ones live in the program's global-variable buffer, not in each
//! work-item's private memory (`passes::global_vars`).
//!
//! Some builtins are ferrocl's own OpenCL C ([`OWN`](own::OWN)), compiled once per
//! process and linked the same way: double and float `tgamma` and float
//! `erfc` (libclc's are not precise enough; linked first, as they call
//! libclc's `sinpi`, `exp`, `erfc`) and, on devices whose double `Fma` is
//! not fused, double `fma` (linked last: libclc's functions call it). A few of libclc's scalar float
//! functions are wrapped where they are wrong (`scalar_fixes`: lgamma near
//! -0 and at -inf; without CL_FP_DENORM, every float function flushes its
//! denormal arguments first, so that devices that flush in hardware give
//! consistent results).
//!
//! The half-precision atomics of cl_ext_float_atomics
//! ([`HALF_ATOMICS`](own::HALF_ATOMICS), `half_atomics.cl`: load, store,
//! exchange, fetch_add/sub/min/max on `atomic_half`) are linked the same
//! way, first: llvm-spirv-15 cannot translate 16-bit float atomics. They
//! are compare-exchange loops on the 32-bit word that holds the half,
//! `always_inline` and made `internal` once linked, so that `ir_to_bitcode`'s
//! always-inliner puts them in their callers and deletes them: their
//! orders and scopes must reach the 32-bit atomics as constants.
//!
//! # Files
//!
//! This module picks the builtins a program needs (`needed`, as
//! [`MathOptions`] selects) and links them (`link_math`); `library`
//! translates libclc's library and extracts and optimizes the needed
//! functions (steps 2-5), `wrappers` writes the IR around them (step 5,
//! `scalar_fixes`), `own` compiles and links ferrocl's own OpenCL C (the
//! `.cl` files beside this one), and `ir` reads and edits textual IR.
//!
//! # Precision
//!
//! libclc's double algorithms (AMD's libm) compute exact products and
//! remainders with `fma` and compensated sums, so they need `fma` fused
//! (`DeviceCaps::fused_fma64`, else the software one) and every double
//! operation rounded as written (the lowering decorates them
//! NoContraction). `tests/tests/double_math.rs` measures the bounds on the
//! device.
//!
//! # Single precision
//!
//! The float algorithms are libclc's for targets without a hardware fma
//! (the library's `__clc_runtime_has_hw_fma32` is false): exact products
//! by splitting, which needs every float operation of the library rounded
//! as written. The lowering decorates the float arithmetic of the
//! functions named `ferrocl.*` / `*__ferrocl_*` NoContraction (not the
//! program's own, which OpenCL C lets the compiler contract). Where they
//! call `fma`, it is the device's GLSL.std.450 `Fma` if fused
//! (`DeviceCaps::fused_fma32`: NVIDIA), else libclc's software one
//! (`__clc_sw_fma`, integer arithmetic: lavapipe rounds the product
//! first); the program's own float `fma` likewise. libclc's float code
//! flushes the denormal results it computes in integer arithmetic unless
//! told that denormals are supported, and its software fma handles no
//! denormal operands. Told that denormals are supported
//! (`__clc_fp32_subnormals_supported` true, done where
//! `DeviceCaps::denorms32`), its exp, exp2, erfc and fmod still return 0
//! for denormal results on lavapipe (which keeps denormals). So ferrocl
//! does not report CL_FP_DENORM (the runtime sets `denorms32` only on
//! request, `FERROCL_DENORMS32=1`); OpenCL then lets denormals be flushed,
//! and tests/tests/float_math.rs accepts what the CTS accepts of a device
//! that flushes. Measured on lavapipe
//! (tests/tests/float_math.rs, full profile; max error over ~3000
//! arguments, float and float4): at most 2.5 ulp for every function with a
//! 4-6 ulp bound, exp/exp2/exp10/expm1 at most 1.1 (3), log* 1.3 (2-3),
//! pow/pown/powr/rootn 0.7 (16), erfc 3.9 (16), lgamma 11.7 / lgamma_r
//! 15.0 (no OpenCL bound; 16 asserted), tgamma 6.0 (16), fmod, remainder,
//! remquo exact. The CTS's math_brute_force (wimpy, scalar) passes every
//! float function on lavapipe, relaxed math included.
//!
//! The decision per float builtin, with Vulkan's precision (Vulkan spec,
//! "Precision and Operation of SPIR-V Instructions") against OpenCL C
//! §7.4's full-profile bound:
//!
//! | builtin | Vulkan (GLSL.std.450 / core) | OpenCL | ferrocl |
//! |---|---|---|---|
//! | sin, cos, sincos, tan | 2^-11 absolute in [-pi, pi], else unbounded | 4, 4, 5 ulp | libclc |
//! | sinpi, cospi, tanpi (x * pi) | as sin | 4, 4, 6 ulp | libclc |
//! | exp, exp2 | 3 + 2\|x\| ulp | 3 ulp | libclc (relaxed too) |
//! | exp10, expm1 (via exp2 / exp) | inherited | 3 ulp | libclc |
//! | log, log2 | 3 ulp, 2^-21 absolute in [0.5, 2] | 3 ulp | libclc (relaxed too) |
//! | log10, log1p (via log2 / log) | inherited | 3, 2 ulp | libclc |
//! | pow, powr, pown, rootn | exp2(y log2 x) | 16 ulp | libclc |
//! | asin, acos, atan, atan2, *pi | inherited formulas | 4-6 ulp | libclc |
//! | sinh, cosh, tanh, asinh, acosh, atanh | inherited formulas | 4-5 ulp | libclc |
//! | cbrt, hypot (inline pow, sqrt) | inherited | 2, 4 ulp | libclc |
//! | erf, lgamma, lgamma_r | none | 16 ulp, undefined | libclc (lgamma fixed) |
//! | erfc | none | 16 ulp | libclc, ferrocl's (erfc32.cl) in [1.85, 10.5] |
//! | tgamma | none | 16 ulp | ferrocl's (tgamma32.cl) |
//! | fmod (OpFRem) | x - y * trunc(x/y) | exact | libclc (double too) |
//! | remainder, remquo | inline x - y * rint(x/y), none | exact | libclc (double too) |
//! | fma | OpFMul then OpFAdd | exact | GLSL `Fma` if fused, else libclc's software one |
//! | sqrt | 1 / inversesqrt: about 4.5 ulp | 3 ulp | GLSL `Sqrt` (see below) |
//! | rsqrt | 2 ulp | 2 ulp | GLSL `InverseSqrt` |
//! | frexp, ilogb, logb, ldexp, modf | exact within range (Frexp, Ldexp: not for denormals, zeros, infinities, exponents beyond the range) | exact | libclc (double ldexp wrapped: NaN passes through, exponent clamped to ±2200) |
//! | fabs, floor, ceil, trunc, rint, round, fmin, fmax, copysign, ... | exact | exact | GLSL / core / inline |
//! | native_*, half_* | any | implementation-defined, 8192 ulp | GLSL |
//!
//! sqrt stays GLSL.std.450's: Vulkan inherits its bound from
//! 1/inversesqrt (2 + 2.5 ulp), so a conformant driver may exceed OpenCL's
//! 3 ulp; lavapipe's is correctly rounded (0.5 ulp measured by
//! tests/tests/float_math.rs, which asserts OpenCL's 3 ulp on every
//! device it runs on; NVIDIA's is yet to be measured). libclc's float
//! functions call it too. A refinement step would cost a software fma
//! where `Fma` is not fused.
//!
//! `-cl-fast-relaxed-math` / `-cl-unsafe-math-optimizations` keep the
//! GLSL.std.450 versions of [`RELAXED_GLSL`]: OpenCL's relaxed bounds are
//! Vulkan's (sin, cos: 2^-11 absolute in [-pi, pi]) or the formulas the
//! lowering uses ("derived implementations": pow, tan, sinh, ...). exp,
//! exp2 (OpenCL: 3 + floor(|2x|) ulp, Vulkan: 3 + 2|x|, lavapipe 3.03 ulp
//! at -0.06) and log, log2, log10 (lavapipe's take denormals for 2^-127)
//! stay libclc's, as do those without a relaxed bound (erf, erfc, lgamma,
//! tgamma, fmod, remainder, remquo, fma; ferrocl's tgamma then calls
//! GLSL's sinpi: it is not held to 16 ulp there for negative arguments).
//!
//! # Build time
//!
//! On the 2-core development machine (lavapipe), a kernel calling sin,
//! exp, log, pow and atan2 on floats builds (clBuildProgram and
//! clCreateKernel) in 0.47-0.89 s with an empty compile cache, against
//! 0.21-0.35 s with GLSL.std.450's versions (before libclc's float
//! functions); from the warm compile cache in 0.01-0.02 s either way. The
//! one-time translation of libclc's library (shared with the double path)
//! adds about 0.6-0.9 s per machine. lavapipe's pipeline compilation at
//! the first launch stays under 0.2 s.
//!
//! # Half precision
//!
//! Vulkan's 16-bit GLSL.std.450 functions are far from OpenCL's half
//! bounds (sin, cos: 2^-7 absolute; exp: 1 + 2|x| ulp; OpenCL: 2 ulp, 1.5
//! for sqrt, 1 for rsqrt). Every non-exact builtin on `half` (and on
//! `half2` ... `half16`; [`HALF`](own::HALF) lists them, length, distance and
//! normalize too) is ferrocl's own (`half.cl`, linked first): it converts
//! its arguments to float (exactly), calls the float function (at most a
//! few float ulp off, 2^-13 of a half ulp each) and rounds the result to
//! half once. `fma` is exact: a * b is exact in float, and the float sum
//! rounded "to odd" with its exact error (TwoSum) rounds correctly to
//! half. Division of halves is done in float by the lowering
//! (`Lower::half_div`). Every rounding to half (those results, the
//! program's conversions) is integer arithmetic (`passes::lower::narrow`):
//! NVIDIA's compiler folds a float converted to half and back into the
//! float, so the float functions would otherwise see unrounded arguments. Measured on lavapipe (tests/tests/half.rs, every
//! finite half): every function tested is correctly rounded (0.5 ulp).
//! Exact ones (fabs, floor, fmin, ldexp, frexp, ...) and `native_*` /
//! `half_*` stay Vulkan's 16-bit instructions.
//!
//! # Gaps
//!
//! Programs created from SPIR-V (clCreateProgramWithIL) get the same functions
//! through a round trip to LLVM IR (`frontend::il_math`), except modules
//! that still have specialization constants at build time (composite or
//! op ones: the runtime freezes the scalar ones first). Float and double
//! geometric functions (length, distance, normalize) keep GLSL.std.450's
//! versions.

mod ir;
mod library;
mod own;
mod wrappers;

use std::collections::HashMap;

use crate::dump::{self, Pass};
use crate::error::BuildError;
use crate::tools::ScratchDir;
use ir::{datalayout, set_datalayout};
use ir::{declared_name, demangle_base, first_param_is, first_param_is_double, rename_symbols};
use library::library_module;
pub(crate) use own::half_builtin;
use own::{is_own, link_needed, link_own, HALF, HALF_ATOMICS, HALF_PREFIX, OWN};
use wrappers::call_target;

/// The builtins whose double (and float, [`float_builtin`]) overloads come
/// from libclc.
pub const DOUBLE_BUILTINS: &[&str] = &[
    "acos",
    "acosh",
    "acospi",
    "asin",
    "asinh",
    "asinpi",
    "atan",
    "atan2",
    "atan2pi",
    "atanh",
    "atanpi",
    "cbrt",
    "cos",
    "cosh",
    "cospi",
    "erf",
    "erfc",
    "exp",
    "exp10",
    "exp2",
    "expm1",
    "hypot",
    "lgamma",
    "lgamma_r",
    "log",
    "log10",
    "log1p",
    "log2",
    "pow",
    "pown",
    "powr",
    "rootn",
    "sin",
    "sincos",
    "sinh",
    "sinpi",
    "tan",
    "tanh",
    "tanpi",
    "tgamma",
    "frexp",
    "ilogb",
    "ldexp",
    "logb",
    "modf",
    "fmod",
    "remainder",
    "remquo",
];

/// Whether the float overloads of `base` come from libclc: those of
/// [`DOUBLE_BUILTINS`] (every builtin whose GLSL.std.450 or inline version
/// may miss OpenCL's full-profile bound on some Vulkan implementation,
/// module doc, "Single precision") and `fma`, only where the device's is
/// not fused ([`MathOptions::soft_fma32`]).
fn float_builtin(base: &str) -> bool {
    base == "fma" || DOUBLE_BUILTINS.contains(&base)
}

/// The float builtins that keep their GLSL.std.450 versions under
/// `-cl-fast-relaxed-math` / `-cl-unsafe-math-optimizations`: OpenCL C
/// §7.4's relaxed bound is that of GLSL.std.450's version (sin, cos:
/// 2^-11 absolute in [-pi, pi]) or the formula the lowering uses ("derived
/// implementations": pow as exp2(y * log2(x)), tan as sin / cos, sinh as
/// (exp(x) - exp(-x)) / 2, ...). Not exp and exp2: OpenCL's relaxed bound
/// (3 + floor(|2x|) ulp) is below Vulkan's (3 + 2|x|), and lavapipe's are
/// 3.03 ulp off near -0.05 (CTS math_brute_force); nor log, log2, log10:
/// lavapipe's treat denormals as 2^-127, neither flushed nor kept.
pub const RELAXED_GLSL: &[&str] = &[
    "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atan2pi", "atanh",
    "atanpi", "cbrt", "cos", "cosh", "cospi", "exp10", "expm1", "log1p", "pow", "pown", "powr",
    "rootn", "sin", "sincos", "sinh", "sinpi", "tan", "tanh", "tanpi",
];

/// What the device and the build options ask of the math library.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MathOptions {
    /// Double `fma` in software (`DeviceCaps::fused_fma64` false).
    pub soft_fma64: bool,
    /// Float `fma` in software: libclc's (`DeviceCaps::fused_fma32`
    /// false). Where false, libclc's float code calls the device's `Fma`.
    pub soft_fma32: bool,
    /// Single-precision denormals are reported (`DeviceCaps::denorms32`):
    /// libclc's float code is told they are supported
    /// (`__clc_fp32_subnormals_supported` true). Else it flushes the ones
    /// it computes in integer arithmetic, as its software fma must (it
    /// handles no denormal operands), and remquo's denormal divisors are
    /// flushed (`scalar_fixes`).
    pub denorms32: bool,
    /// `-cl-fast-relaxed-math` or `-cl-unsafe-math-optimizations`: the
    /// float builtins of [`RELAXED_GLSL`] keep GLSL.std.450's versions.
    pub relaxed: bool,
}

impl MathOptions {
    /// The options of a build for `caps`; `relaxed` from the build options.
    pub fn new(caps: &crate::caps::DeviceCaps, relaxed: bool) -> MathOptions {
        MathOptions {
            soft_fma64: caps.fp64 && !caps.fused_fma64,
            soft_fma32: !caps.fused_fma32,
            denorms32: caps.denorms32,
            relaxed,
        }
    }

    /// Whether the float overload of `base` comes from libclc.
    pub(crate) fn float_from_libclc(&self, base: &str) -> bool {
        float_builtin(base)
            && !(self.relaxed && RELAXED_GLSL.contains(&base))
            && (base != "fma" || self.soft_fma32)
    }
}

/// The prefix of every symbol taken from libclc.
const PREFIX: &str = "ferrocl.clc.";

/// One builtin the program declares and libclc provides.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Needed {
    /// The mangled name the program calls.
    name: String,
    /// The `declare` line (for the generic-pointer wrappers).
    declaration: String,
}

/// The double overloads of [`DOUBLE_BUILTINS`] and the float overloads of
/// [`float_builtin`] (as `opts` selects) that `ll` declares.
fn needed(ll: &str, opts: &MathOptions) -> Vec<Needed> {
    let mut out: Vec<Needed> = ll
        .lines()
        .filter(|l| l.starts_with("declare "))
        .filter_map(|line| {
            let name = declared_name(line)?;
            let (base, params) = demangle_base(name)?;
            let double = DOUBLE_BUILTINS.contains(&base)
                && !is_own(base, "d")
                && first_param_is_double(params);
            // ferrocl's float functions are linked before, so what still
            // calls a float builtin is meant for libclc (ferrocl's erfc
            // calls libclc's outside its own range).
            let float = first_param_is(params, "f") && opts.float_from_libclc(base);
            (double || float).then(|| Needed {
                name: name.to_string(),
                declaration: line.to_string(),
            })
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn poisoned() -> BuildError {
    BuildError::internal("libclc module cache poisoned")
}

/// Links what the program `ll` (textual IR) needs of libclc's math into it
/// (module doc): ferrocl's tgamma (which calls libclc's sinpi and fma),
/// then libclc's functions, then the software double fma where
/// `opts.soft_fma64` (`DeviceCaps::fused_fma64` false). The linked textual
/// IR, or None when it needs nothing.
pub fn link_math(
    ll: &str,
    scratch: &ScratchDir,
    opts: &MathOptions,
) -> Result<Option<String>, BuildError> {
    let [fma, tgamma64, tgamma32, erfc32] = [&OWN[0], &OWN[1], &OWN[2], &OWN[3]];
    let mut linked = None;
    for own in [
        &HALF_ATOMICS,
        &HALF,
        &HALF_PREFIX,
        tgamma64,
        tgamma32,
        erfc32,
    ] {
        let current = linked.clone().unwrap_or_else(|| ll.to_string());
        if let Some(l) = link_own(&current, scratch, own)? {
            linked = Some(l);
        }
    }
    let current = linked.clone().unwrap_or_else(|| ll.to_string());
    let needed = needed(&current, opts);
    if !needed.is_empty() {
        let clc = library_module(&needed, opts, scratch)?;
        let calls: HashMap<String, String> = needed
            .iter()
            .map(|n| (n.name.clone(), call_target(n)))
            .collect();
        let write = |name: &str, text: &str| {
            std::fs::write(scratch.file(name), text)
                .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))
        };
        // The program's layout: llvm-link warns about different ones.
        write("clc-opt.ll", &set_datalayout(&clc, datalayout(ll)))?;
        write("program.ll", &rename_symbols(&current, &calls))?;
        linked = Some(link_needed(
            scratch,
            "program.ll",
            "clc-opt.ll",
            "linked.ll",
        )?);
    }
    if opts.soft_fma64 {
        let current = linked.clone().unwrap_or_else(|| ll.to_string());
        if let Some(l) = link_own(&current, scratch, fma)? {
            linked = Some(l);
        }
    }
    dump::ir(Pass::LinkMath, linked.as_deref().unwrap_or(ll));
    Ok(linked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_double_overloads() {
        let ll = "declare spir_func double @_Z3sind(double noundef)\n\
                  declare spir_func float @_Z3sinf(float)\n\
                  declare spir_func <4 x double> @_Z6acospiDv4_d(<4 x double>)\n\
                  declare spir_func double @_Z4fabsd(double)\n\
                  declare spir_func <2 x double> @_Z4pownDv2_dDv2_i(<2 x double>, <2 x i32>)\n\
                  declare spir_func double @_Z6sincosdPU3AS4d(double, double addrspace(4)*)\n";
        let n: Vec<String> = needed(ll, &MathOptions::default())
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(
            n,
            [
                "_Z3sind",
                "_Z3sinf",
                "_Z4pownDv2_dDv2_i",
                "_Z6acospiDv4_d",
                "_Z6sincosdPU3AS4d"
            ]
        );
        // Relaxed math keeps sin's GLSL.std.450 version, not fmod's; float
        // fma only where it is not fused.
        let ll = "declare spir_func float @_Z3sinf(float)\n\
                  declare spir_func float @_Z4fmodff(float, float)\n\
                  declare spir_func float @_Z3fmafff(float, float, float)\n";
        let names = |opts: MathOptions| -> Vec<String> {
            needed(ll, &opts).into_iter().map(|n| n.name).collect()
        };
        let relaxed = MathOptions {
            relaxed: true,
            ..Default::default()
        };
        assert_eq!(names(relaxed), ["_Z4fmodff"]);
        let soft = MathOptions {
            soft_fma32: true,
            ..Default::default()
        };
        assert_eq!(names(soft), ["_Z3fmafff", "_Z3sinf", "_Z4fmodff"]);
    }
}
