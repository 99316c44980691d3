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
//!    ([`ZeroFix`]). The result is cached per process by the set of needed
//!    builtins; `llvm-link --only-needed` joins it to the program.
//!
//! The tables are program-scope `__constant` data of the program: large
//! ones live in the program's global-variable buffer, not in each
//! work-item's private memory (`passes::global_vars`).
//!
//! Some builtins are ferrocl's own OpenCL C ([`OWN`]), compiled once per
//! process and linked the same way: double and float `tgamma` and float
//! `erfc` (libclc's are not precise enough; linked first, as they call
//! libclc's `sinpi`, `exp`, `erfc`) and, on devices whose double `Fma` is
//! not fused, double `fma` (linked last: libclc's functions call it). A few of libclc's scalar float
//! functions are wrapped where they are wrong (`scalar_fixes`: lgamma near
//! -0 and at -inf; without CL_FP_DENORM, every float function flushes its
//! denormal arguments first, so that devices that flush in hardware give
//! consistent results).
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
//! `half2` ... `half16`; [`HALF`] lists them, length, distance and
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

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use crate::error::BuildError;
use crate::tools::{self, run_tool, ScratchDir};

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

/// Builtins ferrocl implements itself, in OpenCL C linked like libclc's
/// functions.
#[derive(Clone, Copy)]
struct Own {
    /// Whether it implements the OpenCL name.
    bases: fn(&str) -> bool,
    /// The overloads it replaces: those whose first parameter has this
    /// mangled element type (`d` double, `f` float, `Dh` half).
    element: &'static str,
    /// The source's file name (its stem names the compiled module).
    file: &'static str,
    source: &'static str,
    /// The source defines `<defines><base>` for each base of `bases`, with the
    /// parameters of the overloads it replaces.
    defines: &'static str,
    /// The OpenCL C version it is compiled as.
    std: &'static str,
}

/// The builtins ferrocl implements itself: double `fma` only where the
/// device's is not fused; `tgamma` because libclc-15's is off by up to 300
/// ulp in double (exp(lgamma(x))) and 70 ulp in float, with wrong
/// infinities near zero and underflows (OpenCL allows 16 ulp); float
/// `erfc` for x in [1.85, 10.5], where libclc-15's is up to 48 ulp off
/// (calling libclc's elsewhere).
const OWN: &[Own] = &[
    Own {
        bases: |b| b == "fma",
        element: "d",
        file: "fma64.cl",
        source: include_str!("fma64.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
    },
    Own {
        bases: |b| b == "tgamma",
        element: "d",
        file: "tgamma64.cl",
        source: include_str!("tgamma64.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
    },
    Own {
        bases: |b| b == "tgamma",
        element: "f",
        file: "tgamma32.cl",
        source: include_str!("tgamma32.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
    },
    Own {
        bases: |b| b == "erfc",
        element: "f",
        file: "erfc32.cl",
        source: include_str!("erfc32.cl"),
        defines: "__ferrocl_",
        std: "CL1.2",
    },
];

/// Half-precision math through the float functions (module doc, "Half
/// precision"): every builtin on half that Vulkan's 16-bit instructions do
/// not compute within OpenCL's half bounds (half.cl defines each of them).
/// Linked before the float functions it calls.
const HALF: Own = Own {
    // The float functions taken from libclc, and those Vulkan's 16-bit
    // versions compute outside the half bounds.
    bases: |b| {
        DOUBLE_BUILTINS.contains(&b)
            || ["sqrt", "rsqrt", "fma", "length", "distance", "normalize"].contains(&b)
    },
    element: "Dh",
    file: "half.cl",
    source: include_str!("half.cl"),
    defines: "__ferrocl_half_",
    std: "CL2.0",
};

/// Whether the half overloads of `base` are ferrocl's (`half.cl`, through
/// the float functions).
pub(crate) fn half_builtin(base: &str) -> bool {
    (HALF.bases)(base)
}

/// half_log, half_log2, half_log10, half_powr on float: the precise
/// functions (Vulkan's are beyond their 8192 ulp near 1, and undefined for
/// NaN; `half_prefix.cl`). Linked before libclc's functions.
const HALF_PREFIX: Own = Own {
    bases: |b| ["half_log", "half_log2", "half_log10", "half_powr"].contains(&b),
    element: "f",
    file: "half_prefix.cl",
    source: include_str!("half_prefix.cl"),
    defines: "__ferrocl_",
    std: "CL1.2",
};

/// Whether ferrocl implements the overloads of `base` whose first
/// parameter has element type `element` itself (only the double ones
/// matter to `needed`: double `fma` is linked after libclc's functions).
fn is_own(base: &str, element: &str) -> bool {
    OWN.iter().any(|o| (o.bases)(base) && o.element == element)
}

/// The prefix of every symbol taken from libclc.
const PREFIX: &str = "ferrocl.clc.";

/// How the zero results of a builtin are made those of OpenCL C §7.5.1,
/// which libclc-15 does not always return (`zero_fix`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ZeroFix {
    /// Odd functions: f(±0) is ±0 (libclc's `sin(-0)`, `atan(-0)`, ... are
    /// +0). The argument is returned when it is a zero.
    Odd,
    /// `cospi`: zero results (at n + 1/2) are +0.
    PositiveZero,
    /// `sinpi`: zero results (at the integers) have the argument's sign.
    SignOfArgument,
    /// `tanpi`: zero results (at the integers n) are ±0 with the sign of n
    /// for even n and of -n for odd n.
    Tanpi,
    /// `remainder`: remainder(±0, y) is ±0 for y not zero or NaN
    /// (libclc-15's float one is -0 for +0 and a denormal y).
    ZeroFirstArgument,
}

/// The builtins with a [`ZeroFix`].
fn zero_fix_of(base: &str) -> Option<ZeroFix> {
    Some(match base {
        "asin" | "asinh" | "asinpi" | "atan" | "atanh" | "atanpi" | "cbrt" | "erf" | "expm1"
        | "log1p" | "sin" | "sincos" | "sinh" | "tan" | "tanh" => ZeroFix::Odd,
        "cospi" => ZeroFix::PositiveZero,
        "sinpi" => ZeroFix::SignOfArgument,
        "tanpi" => ZeroFix::Tanpi,
        "remainder" => ZeroFix::ZeroFirstArgument,
        _ => return None,
    })
}

/// The prefix of the wrappers that fix zero results (`zero_fix`).
const ZERO_PREFIX: &str = "ferrocl.zero.";

/// spir64's data layout with the native integer widths: without them,
/// InstCombine narrows switch conditions to types such as `i2`, which
/// llvm-spirv-15 refuses ("Invalid bit width").
const OPT_DATALAYOUT: &str = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256\
                              -v512:512-v1024:1024-n8:16:32:64";

/// Mangled-name part of a generic (`addrspace(4)`) pointer parameter.
const GENERIC_PTR: &str = "PU3AS4";

/// One builtin the program declares and libclc provides.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Needed {
    /// The mangled name the program calls.
    name: String,
    /// The `declare` line (for the generic-pointer wrappers).
    declaration: String,
}

/// `_Z<len><name><params>` → (`name`, `params`).
fn demangle_base(mangled: &str) -> Option<(&str, &str)> {
    let rest = mangled.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let base = rest.get(digits..digits + len)?;
    Some((base, &rest[digits + len..]))
}

/// Whether a mangled parameter list starts with a `code` scalar or vector
/// (`d`, `Dv<n>_d` for double; `f`, `Dv<n>_f` for float; `Dh`, `Dv<n>_Dh`
/// for half).
fn first_param_is(params: &str, code: &str) -> bool {
    if params.starts_with(code) {
        return true;
    }
    params
        .strip_prefix("Dv")
        .and_then(|p| p.split_once('_'))
        .is_some_and(|(n, e)| n.chars().all(|c| c.is_ascii_digit()) && e.starts_with(code))
}

/// Whether a mangled parameter list starts with a double or a double
/// vector.
fn first_param_is_double(params: &str) -> bool {
    first_param_is(params, "d")
}

/// The name a `declare`/`define` line gives its function.
fn declared_name(line: &str) -> Option<&str> {
    let rest = &line[line.find('@')? + 1..];
    Some(&rest[..rest.find('(')?])
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

/// Whether `c` may appear in an unquoted LLVM identifier.
fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
}

/// Renames every global symbol `@name` of `text` found in `map`
/// (whole identifiers only: `@LOG_INV_TBL` is not part of
/// `@LOG_INV_TBL_EP`).
fn rename_symbols(text: &str, map: &HashMap<String, String>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'@' {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && ident_char(bytes[end]) {
                end += 1;
            }
            if let Some(new) = map.get(&text[start..end]) {
                out.push_str(&text[last..start]);
                out.push_str(new);
                last = end;
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// The symbols (functions and global variables) `ll` defines.
fn defined_symbols(ll: &str) -> Vec<String> {
    ll.lines()
        .filter_map(|l| {
            if l.starts_with("define ") {
                declared_name(l).map(str::to_string)
            } else if let Some(rest) = l.strip_prefix('@') {
                let name = &rest[..rest.find(' ')?];
                (!l.contains(" = external ")).then(|| name.to_string())
            } else {
                None
            }
        })
        .collect()
}

/// The global variables `ll` declares without defining them.
fn external_globals(ll: &str) -> Vec<String> {
    ll.lines()
        .filter(|l| l.starts_with('@') && l.contains(" = external "))
        .filter_map(|l| l[1..].split(' ').next().map(str::to_string))
        .collect()
}

/// The type at the start of a parameter of a `declare` line (`double
/// noundef` → `double`, `<2 x double> addrspace(4)* noundef` →
/// `<2 x double> addrspace(4)*`).
fn param_type(param: &str) -> &str {
    let p = param.trim();
    let mut end = if p.starts_with('<') {
        p.find('>').map_or(p.len(), |e| e + 1)
    } else {
        p.find(' ').unwrap_or(p.len())
    };
    loop {
        let rest = &p[end..];
        let trimmed = rest.trim_start();
        let skipped = rest.len() - trimmed.len();
        if trimmed.starts_with('*') {
            end += skipped + 1;
        } else if trimmed.starts_with("addrspace(") {
            match trimmed.find(')') {
                Some(c) => end += skipped + c + 1,
                None => break,
            }
        } else {
            break;
        }
    }
    &p[..end]
}

/// The return type and parameter types of a `declare` line.
fn signature(declaration: &str) -> Option<(String, Vec<String>)> {
    let at = declaration.find('@')?;
    let head = declaration[..at].trim_end();
    let ret = if head.ends_with('>') {
        &head[head.rfind('<')?..]
    } else {
        head.rsplit(' ').next()?
    };
    let ret = ret.to_string();
    let open = declaration[at..].find('(')? + at;
    let mut depth = 0;
    let close = declaration[open..].find(|c| {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        depth == 0
    })? + open;
    let params = declaration[open + 1..close]
        .split(',')
        .map(|p| param_type(p).to_string())
        .collect();
    Some((ret, params))
}

/// For a builtin with a generic pointer parameter: the private-pointer
/// overload libclc defines, and the IR of a wrapper with the generic
/// signature that calls it through a private temporary (module doc,
/// step 5).
fn generic_wrapper(n: &Needed) -> Result<(String, String), BuildError> {
    let bad = || {
        BuildError::internal(format!(
            "unexpected declaration of a libclc builtin: {}",
            n.declaration
        ))
    };
    let private = n.name.replacen(GENERIC_PTR, "P", 1);
    let (ret, params) = signature(&n.declaration).ok_or_else(bad)?;
    // The values (x, or x and y for remquo), then the pointer.
    let Some((ptr, values)) = params.split_last() else {
        return Err(bad());
    };
    let pointee = ptr
        .strip_suffix(" addrspace(4)*")
        .ok_or_else(bad)?
        .to_string();
    // Declared and passed on alike.
    let values = values
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %x{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let ir = format!(
        "define spir_func {ret} @{PREFIX}{name}({values}, {ptr} %p) {{\n\
         \x20 %t = alloca {pointee}\n\
         \x20 %r = call spir_func {ret} @{PREFIX}{private}({values}, {pointee}* %t)\n\
         \x20 %v = load {pointee}, {pointee}* %t\n\
         \x20 store {pointee} %v, {ptr} %p\n\
         \x20 ret {ret} %r\n\
         }}\n",
        name = n.name,
    );
    Ok((private, ir))
}

/// `ll` with its `target datalayout` line replaced by `layout` (or the
/// line removed when `layout` is None).
fn set_datalayout(ll: &str, layout: Option<&str>) -> String {
    let mut out = String::with_capacity(ll.len());
    for line in ll.lines() {
        if line.starts_with("target datalayout = ") {
            if let Some(l) = layout {
                out.push_str(&format!("target datalayout = \"{l}\"\n"));
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `ll` without the OpenCL version metadata (`!opencl.ocl.version`,
/// `!opencl.spir.version`): a module linked into a program must not bring
/// its own (llvm-spirv: "OCL version mismatch").
fn strip_version_metadata(ll: &str) -> String {
    ll.lines()
        .filter(|l| !l.starts_with("!opencl.ocl.version") && !l.starts_with("!opencl.spir.version"))
        .flat_map(|l| [l, "\n"])
        .collect()
}

/// The `target datalayout` of `ll`.
fn datalayout(ll: &str) -> Option<&str> {
    ll.lines()
        .find_map(|l| l.strip_prefix("target datalayout = \""))
        .and_then(|l| l.strip_suffix('"'))
}

/// The [`ZeroFix`] of builtin `n`.
fn zero_fix_of_builtin(n: &Needed) -> Option<ZeroFix> {
    demangle_base(&n.name).and_then(|(base, _)| zero_fix_of(base))
}

/// The name the program's calls to `n` get: the zero wrapper for builtins
/// with a [`ZeroFix`], else libclc's (renamed) function.
fn call_target(n: &Needed) -> String {
    let prefix = if zero_fix_of_builtin(n).is_some() {
        ZERO_PREFIX
    } else {
        PREFIX
    };
    format!("{prefix}{}", n.name)
}

/// `value` as a constant of the scalar or vector type `ty` (`<4 x i64>`:
/// every component).
fn splat(ty: &str, elem: &str, value: &str) -> String {
    match ty.strip_prefix('<').and_then(|r| r.split_once(" x ")) {
        Some((n, _)) => {
            let n: usize = n.parse().unwrap_or(1);
            let parts = vec![format!("{elem} {value}"); n].join(", ");
            format!("<{parts}>")
        }
        None => value.to_string(),
    }
}

/// IR lines that define `%f<i>`: the float (or float vector) argument
/// `%a<i>` of type `ty` with denormals flushed to zeros of their sign
/// (bit operations: a device that flushes may not be trusted to compare
/// a denormal with zero as it is).
fn flush_denormal_ir(i: usize, ty: &str) -> String {
    let int = ty.replace("float", "i32");
    let abs = splat(ty, "i32", "2147483647");
    let min = splat(ty, "i32", "8388608");
    let sign = splat(ty, "i32", "-2147483648");
    let cond = int.replace("i32", "i1");
    format!(
        "  %b{i} = bitcast {ty} %a{i} to {int}\n  \
         %m{i} = and {int} %b{i}, {abs}\n  \
         %d{i} = icmp ult {int} %m{i}, {min}\n  \
         %s{i} = and {int} %b{i}, {sign}\n  \
         %z{i} = select {cond} %d{i}, {int} %s{i}, {int} %b{i}\n  \
         %f{i} = bitcast {int} %z{i} to {ty}\n"
    )
}

/// The wrapper of a builtin with a [`ZeroFix`]: calls libclc's function
/// and replaces its zero results (or, for the odd functions, returns a
/// zero argument); component-wise on vectors, any other arguments passed
/// through. Plain IR (bit operations, no intrinsics): it is appended to a
/// module that may declare them already.
/// With `flush` (float builtins where CL_FP_DENORM is not reported, see
/// `scalar_fixes`), denormal float arguments count as zeros of their sign.
fn zero_fix(n: &Needed, flush: bool) -> Result<String, BuildError> {
    let (ret, params) = signature(&n.declaration).ok_or_else(|| {
        BuildError::internal(format!(
            "unexpected declaration of a libclc builtin: {}",
            n.declaration
        ))
    })?;
    let fix = zero_fix_of_builtin(n).ok_or_else(|| BuildError::internal("no zero fix"))?;
    // The same list declares the parameters and passes them on.
    let args = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let name = &n.name;
    let vector = ret.strip_prefix('<').and_then(|r| r.split_once(" x "));
    let float = ret.contains("float");
    // The integer of the same width, its sign bit, and for tanpi the
    // floating-point type's 2^(mantissa bits + 1), from where on every
    // value is an even integer.
    let (bits, sign_bit, big) = if float {
        ("i32", "-2147483648", "0x4170000000000000")
    } else {
        ("i64", "-9223372036854775808", "0x4340000000000000")
    };
    let elem = if float { "float" } else { "double" };
    // The arguments as the fix sees them: %f<i>, flushed where `flush`.
    let mut prologue = String::new();
    for (i, t) in params.iter().enumerate() {
        if flush && float && t.contains("float") && !t.contains('*') {
            prologue.push_str(&flush_denormal_ir(i, t));
        } else {
            prologue.push_str(&format!("  %f{i} = bitcast {t} %a{i} to {t}\n"));
        }
    }
    let (cond, int) = match vector {
        Some((n, _)) => (format!("<{n} x i1>"), format!("<{n} x {bits}>")),
        None => ("i1".to_string(), bits.to_string()),
    };
    let sign = splat(&ret, bits, sign_bit);
    let body = match fix {
        ZeroFix::Odd => format!(
            "  %z = fcmp oeq {ret} %f0, zeroinitializer\n  \
             %s = select {cond} %z, {ret} %f0, {ret} %r\n"
        ),
        ZeroFix::ZeroFirstArgument => format!(
            "  %z = fcmp oeq {ret} %f0, zeroinitializer\n  \
             %y = fcmp one {ret} %f1, zeroinitializer\n  \
             %zy = and {cond} %z, %y\n  \
             %s = select {cond} %zy, {ret} %f0, {ret} %r\n"
        ),
        ZeroFix::PositiveZero => format!(
            "  %z = fcmp oeq {ret} %r, zeroinitializer\n  \
             %s = select {cond} %z, {ret} zeroinitializer, {ret} %r\n"
        ),
        ZeroFix::SignOfArgument => format!(
            "  %z = fcmp oeq {ret} %r, zeroinitializer\n  \
             %xb = bitcast {ret} %f0 to {int}\n  \
             %sb = and {int} %xb, {sign}\n  \
             %sz = bitcast {int} %sb to {ret}\n  \
             %s = select {cond} %z, {ret} %sz, {ret} %r\n"
        ),
        ZeroFix::Tanpi => {
            // x is an integer where tanpi is zero: odd when x/2 is not
            // an integer (every double from 2^53 on is even, every float
            // from 2^24 on).
            let half = splat(&ret, elem, "5.000000e-01");
            let minus_big = big.replacen("0x4", "0xC", 1);
            let (big, minus_big) = (splat(&ret, elem, big), splat(&ret, elem, &minus_big));
            format!(
                "  %z = fcmp oeq {ret} %r, zeroinitializer\n  \
                 %h = fmul {ret} %f0, {half}\n  \
                 %hi = fptosi {ret} %h to {int}\n  \
                 %hb = sitofp {int} %hi to {ret}\n  \
                 %frac = fcmp une {ret} %h, %hb\n  \
                 %lt = fcmp olt {ret} %f0, {big}\n  \
                 %gt = fcmp ogt {ret} %f0, {minus_big}\n  \
                 %small = and {cond} %lt, %gt\n  \
                 %odd = and {cond} %frac, %small\n  \
                 %xb = bitcast {ret} %f0 to {int}\n  \
                 %sb = and {int} %xb, {sign}\n  \
                 %flip = select {cond} %odd, {int} {sign}, {int} zeroinitializer\n  \
                 %nb = xor {int} %sb, %flip\n  \
                 %sz = bitcast {int} %nb to {ret}\n  \
                 %s = select {cond} %z, {ret} %sz, {ret} %r\n"
            )
        }
    };
    Ok(format!(
        "define spir_func {ret} @{ZERO_PREFIX}{name}({args}) {{\n\
         {prologue}  \
         %r = call spir_func {ret} @{PREFIX}{name}({args})\n\
         {body}  ret {ret} %s\n\
         }}\n"
    ))
}

/// For a vector overload: the scalar overload it applies (libclc's, with a
/// private pointer where the vector one has a pointer) and the IR of a loop
/// over the components that calls it, defining `ferrocl.clc.<vector
/// name>`. libclc's own vector overloads repeat the scalar call per
/// component, and Vulkan drivers inline every call: a `double4` `lgamma`
/// compiled as four copies of the scalar code takes lavapipe minutes, as one
/// copy in a loop a few seconds. None for a scalar overload.
fn vector_loop(n: &Needed) -> Option<Result<(String, String), BuildError>> {
    let (ret, params) = signature(&n.declaration)?;
    let width: usize = ret.strip_prefix('<')?.split_once(" x ")?.0.parse().ok()?;
    let bad = || {
        BuildError::internal(format!(
            "unexpected declaration of a libclc builtin: {}",
            n.declaration
        ))
    };
    let base = demangle_base(&n.name)?.0;
    // (scalar type, mangled scalar type) of `<width x T>`.
    let element = |t: &str| -> Option<(String, &'static str)> {
        let e = t.strip_prefix(&format!("<{width} x "))?.strip_suffix('>')?;
        Some(match e {
            "double" => ("double".to_string(), "d"),
            "float" => ("float".to_string(), "f"),
            "i32" => ("i32".to_string(), "i"),
            _ => return None,
        })
    };
    let scalar_ret = element(&ret)?.0;
    let mut mangled = format!("_Z{}{base}", base.len());
    let mut scalar_args = Vec::new();
    // Per pointer parameter: a private scalar temporary, a phi gathering
    // the components, and a store after the loop. Per value parameter: the
    // component.
    let (mut temps, mut phis, mut extracts, mut gathers, mut stores) = (
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    for (i, p) in params.iter().enumerate() {
        if let Some(pointee) = p.strip_suffix('*') {
            let pointee = pointee.split(" addrspace(").next().unwrap_or(pointee);
            let Some((t, m)) = element(pointee) else {
                return Some(Err(bad()));
            };
            mangled.push('P');
            mangled.push_str(m);
            scalar_args.push(format!("{t}* %t{i}"));
            temps.push_str(&format!("  %t{i} = alloca {t}\n"));
            phis.push_str(&format!(
                "  %o{i} = phi {pointee} [ undef, %entry ], [ %o{i}.next, %loop ]\n"
            ));
            gathers.push_str(&format!(
                "  %v{i} = load {t}, {t}* %t{i}\n  \
                 %o{i}.next = insertelement {pointee} %o{i}, {t} %v{i}, i32 %i\n"
            ));
            stores.push_str(&format!("  store {pointee} %o{i}.next, {p} %a{i}\n"));
        } else {
            let Some((t, m)) = element(p) else {
                return Some(Err(bad()));
            };
            mangled.push_str(m);
            scalar_args.push(format!("{t} %x{i}"));
            extracts.push_str(&format!("  %x{i} = extractelement {p} %a{i}, i32 %i\n"));
        }
    }
    let params_decl = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let (name, args) = (&n.name, scalar_args.join(", "));
    let ir = format!(
        "define spir_func {ret} @{PREFIX}{name}({params_decl}) {{\n\
         entry:\n\
         {temps}  br label %loop\n\
         loop:\n  \
         %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]\n  \
         %r = phi {ret} [ undef, %entry ], [ %r.next, %loop ]\n\
         {phis}{extracts}  \
         %y = call spir_func {scalar_ret} @{PREFIX}{mangled}({args})\n\
         {gathers}  \
         %r.next = insertelement {ret} %r, {scalar_ret} %y, i32 %i\n  \
         %i.next = add i32 %i, 1\n  \
         %done = icmp eq i32 %i.next, {width}\n  \
         br i1 %done, label %exit, label %loop\n\
         exit:\n\
         {stores}  ret {ret} %r.next\n\
         }}\n"
    );
    Some(Ok((mangled, ir)))
}

/// The modification time of `path` in seconds (0 when unknown).
fn mtime(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}

/// libclc's library as LLVM bitcode (module doc, step 2).
fn library_bitcode() -> Result<PathBuf, String> {
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
            let dirs = crate::cache::cache_dir()
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
fn library_module(
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
    let optimized =
        strip_version_metadata(&super::remove_freeze(&optimized)) + &wrappers + &loops + &fixes;
    modules
        .lock()
        .map_err(|_| poisoned())?
        .insert(key, optimized.clone());
    Ok(optimized)
}

/// libclc's float `fma` (`_Z3fmafff`), which its library defines as the
/// software one.
const FMA32: &str = "_Z3fmafff";

/// The definition of function `name` in textual IR `text`, as the range
/// from its `define` line to its closing brace.
fn definition_range(text: &str, name: &str) -> Option<std::ops::Range<usize>> {
    let head = format!("@{name}(");
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        if start.is_none() && line.starts_with("define ") && line.contains(&head) {
            start = Some(offset);
        } else if start.is_some() && line.trim_end() == "}" {
            return Some(start?..offset + line.len());
        }
        offset += line.len();
    }
    None
}

/// libclc's float code configured for the device (module doc, "Single
/// precision"): where the device's float `Fma` is fused, libclc's `fma`
/// (the software one) becomes a declaration, so that its calls stay
/// OpenCL.std `fma` instructions (GLSL.std.450 `Fma`); where denormals are
/// preserved, `__clc_fp32_subnormals_supported` (false in the library, so
/// the software fma and ldexp flush tiny results) returns true.
fn configure_float_code(extracted: &str, opts: &MathOptions) -> String {
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

/// The fixes of libclc-15's scalar float functions, applied where every
/// overload (vector loops, generic-pointer wrappers) goes through them:
/// the definition `ferrocl.clc.<name>` in the optimized module `ll`
/// becomes `ferrocl.clc.<name>.impl`, and a wrapper with the original name
/// calls it. Returns the module and the wrappers.
///
/// - `lgamma`, `lgamma_r`: libclc's are infinite for negative x above
///   about -1e-19 and at -inf. lgamma(x) = lgamma(-x) - 2γx for
///   -2^-20 < x < 0 (the odd terms of lgamma's series about 0 beyond γx
///   are below 2^-60 there; the sign is -1), and lgamma(-inf) = +inf.
/// - Every function, where CL_FP_DENORM is not reported (`denorms32`
///   false): denormal float arguments are flushed to zeros of their sign
///   before the call. A device that flushes denormals in its float
///   arithmetic (NVIDIA's Vulkan driver cannot preserve single-precision
///   ones) would otherwise run libclc's code half flushed: `x == 0` holds
///   for a denormal x there while the integer paths still see its bits, so
///   cbrt, erf, asinpi and atanpi returned x itself for denormal x, and
///   remainder(+0, denormal) returned -0, none of which OpenCL's
///   flush-to-zero rules allow (OpenCL C §7.5.3: the result for flushed
///   operands, or one for exact ones). Flushed operands make every device
///   give the former. It also fixes libclc's remquo quotient for
///   denormal divisors.
fn scalar_fixes(ll: &str, opts: &MathOptions) -> Result<(String, String), BuildError> {
    let mut module = String::with_capacity(ll.len());
    let mut fixes = String::new();
    for line in ll.lines() {
        let fixed = line
            .strip_prefix("define ")
            .and_then(|_| declared_name(line))
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|n| {
                let (base, params) = demangle_base(n)?;
                let scalar_float = params.starts_with('f');
                let fix = matches!(base, "lgamma" | "lgamma_r") || !opts.denorms32;
                // libclc-15's double ldexp returns an infinity for a NaN
                // and a large exponent.
                let double_ldexp = base == "ldexp" && params.starts_with('d');
                (scalar_float && fix || double_ldexp).then(|| (n.to_string(), base.to_string()))
            });
        let Some((name, base)) = fixed else {
            module.push_str(line);
            module.push('\n');
            continue;
        };
        let head = format!("@{PREFIX}{name}(");
        module.push_str(&line.replacen(&head, &format!("@{PREFIX}{name}.impl("), 1));
        module.push('\n');
        fixes.push_str(&scalar_fix_wrapper(line, &name, &base, !opts.denorms32)?);
    }
    Ok((module, fixes))
}

/// The wrapper of [`scalar_fixes`] for libclc's `define` line `define`:
/// with `flush`, its float arguments `%a<i>` become `%f<i>`, flushed to
/// zeros of their sign (others are `%f<i>` unchanged); then `base`'s fix,
/// or a plain call.
fn scalar_fix_wrapper(
    define: &str,
    name: &str,
    base: &str,
    flush: bool,
) -> Result<String, BuildError> {
    let (ret, params) = signature(define).ok_or_else(|| {
        BuildError::internal(format!("unexpected definition in libclc: {define}"))
    })?;
    let decl: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect();
    let decl = decl.join(", ");
    let mut prologue = String::new();
    let mut args = Vec::new();
    for (i, t) in params.iter().enumerate() {
        if flush && t == "float" {
            prologue.push_str(&flush_denormal_ir(i, t));
            args.push(format!("float %f{i}"));
        } else {
            args.push(format!("{t} %a{i}"));
        }
    }
    let arg = |i: usize| args[i].rsplit(' ').next().unwrap_or_default().to_string();
    let body = match base {
        "lgamma" | "lgamma_r" => {
            // -2γ and -2^-20 as float constants.
            let x = arg(0);
            let mut call = vec!["float %arg".to_string()];
            call.extend(args.iter().skip(1).cloned());
            let sign = match params.get(1) {
                Some(ptr) => format!(
                    "  %old = load i32, {ptr} %a1\n  \
                     %sign = select i1 %tiny, i32 -1, i32 %old\n  \
                     store i32 %sign, {ptr} %a1\n"
                ),
                None => String::new(),
            };
            format!(
                "  %neg = fcmp olt float {x}, 0.000000e+00\n  \
                 %small = fcmp ogt float {x}, 0xBEB0000000000000\n  \
                 %tiny = and i1 %neg, %small\n  \
                 %nx = fneg float {x}\n  \
                 %arg = select i1 %tiny, float %nx, float {x}\n  \
                 %r = call spir_func {ret} @{PREFIX}{name}.impl({call})\n\
                 {sign}  \
                 %c = fmul float {x}, 0xBFF2788D00000000\n  \
                 %rc = fadd float %r, %c\n  \
                 %r1 = select i1 %tiny, float %rc, float %r\n  \
                 %ninf = fcmp oeq float {x}, 0xFFF0000000000000\n  \
                 %r2 = select i1 %ninf, float 0x7FF0000000000000, float %r1\n  \
                 ret {ret} %r2\n",
                call = call.join(", ")
            )
        }
        "ldexp" => {
            // NaN arguments come back unchanged; the exponent is clamped
            // to ±2200 (beyond every double's range either way: libclc's
            // sum of exponents overflows near INT_MAX).
            let (x, n) = (arg(0), arg(1));
            format!(
                "  %big = icmp sgt i32 {n}, 2200\n  \
                 %n1 = select i1 %big, i32 2200, i32 {n}\n  \
                 %small = icmp slt i32 %n1, -2200\n  \
                 %n2 = select i1 %small, i32 -2200, i32 %n1\n  \
                 %r = call spir_func {ret} @{PREFIX}{name}.impl({ret} {x}, i32 %n2)\n  \
                 %nan = fcmp uno {ret} {x}, {x}\n  \
                 %r1 = select i1 %nan, {ret} {x}, {ret} %r\n  \
                 ret {ret} %r1\n"
            )
        }
        _ => format!(
            "  %r = call spir_func {ret} @{PREFIX}{name}.impl({})\n  \
             ret {ret} %r\n",
            args.join(", ")
        ),
    };
    Ok(format!(
        "define spir_func {ret} @{PREFIX}{name}({decl}) {{\n{prologue}{body}}}\n"
    ))
}

fn poisoned() -> BuildError {
    BuildError::internal("libclc module cache poisoned")
}

/// One of the [`OWN`] sources compiled to textual IR, once per process.
fn own_module(own: &Own, scratch: &ScratchDir) -> Result<String, BuildError> {
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
        Ok(strip_version_metadata(&super::remove_freeze(&ll)))
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
fn own_overloads(ll: &str, own: &Own) -> HashMap<String, String> {
    ll.lines()
        .filter(|l| l.starts_with("declare "))
        .filter_map(declared_name)
        .filter_map(|name| {
            let (b, params) = demangle_base(name)?;
            ((own.bases)(b) && first_param_is(params, own.element)).then(|| {
                let defined = format!("{}{b}", own.defines);
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
fn link_needed(
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
fn link_own(ll: &str, scratch: &ScratchDir, own: &Own) -> Result<Option<String>, BuildError> {
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
    link_needed(scratch, &program, &lib, &out).map(Some)
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
    for own in [&HALF, &HALF_PREFIX, tgamma64, tgamma32, erfc32] {
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
    if let Some(l) = &linked {
        tools::dump("0-libclc-linked.ll", l.as_bytes());
    }
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

    #[test]
    fn renames_whole_identifiers() {
        let map = HashMap::from([("LOG_INV_TBL".to_string(), "x.LOG_INV_TBL".to_string())]);
        assert_eq!(
            rename_symbols("@LOG_INV_TBL, @LOG_INV_TBL_EP @LOG_INV_TBL)", &map),
            "@x.LOG_INV_TBL, @LOG_INV_TBL_EP @x.LOG_INV_TBL)"
        );
    }

    #[test]
    fn generic_pointer_wrapper() {
        let n = Needed {
            name: "_Z6sincosDv2_dPU3AS4S_".into(),
            declaration: "declare spir_func <2 x double> @_Z6sincosDv2_dPU3AS4S_(<2 x double> \
                          noundef, <2 x double> addrspace(4)* noundef) local_unnamed_addr #3"
                .into(),
        };
        let (private, ir) = generic_wrapper(&n).unwrap();
        assert_eq!(private, "_Z6sincosDv2_dPS_");
        assert!(ir.starts_with(
            "define spir_func <2 x double> @ferrocl.clc._Z6sincosDv2_dPU3AS4S_(<2 x double> %x0, \
             <2 x double> addrspace(4)* %p) {"
        ));
        assert!(ir.contains("%t = alloca <2 x double>\n"));
        assert!(ir.contains(
            "call spir_func <2 x double> @ferrocl.clc._Z6sincosDv2_dPS_(<2 x double> %x0, \
             <2 x double>* %t)"
        ));
    }
}
