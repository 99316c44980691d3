//! The IR wrappers generated around libclc's functions (module doc, step
//! 5): generic-pointer overloads through a private temporary
//! (`generic_wrapper`), vector overloads as loops over the scalar one
//! (`vector_loop`), OpenCL's zero results (`zero_fix`) and the fixes of
//! libclc-15's scalar float functions (`scalar_fixes`).

use super::ir::{declared_name, demangle_base, flush_denormal_ir, signature, splat};
use super::{MathOptions, Needed, PREFIX};
use crate::error::BuildError;

/// Mangled-name part of a generic (`addrspace(4)`) pointer parameter.
pub(super) const GENERIC_PTR: &str = "PU3AS4";

/// For a builtin with a generic pointer parameter: the private-pointer
/// overload libclc defines, and the IR of a wrapper with the generic
/// signature that calls it through a private temporary (module doc,
/// step 5).
pub(super) fn generic_wrapper(n: &Needed) -> Result<(String, String), BuildError> {
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

/// How the zero results of a builtin are made those of OpenCL C §7.5.1,
/// which libclc-15 does not always return (`zero_fix`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ZeroFix {
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
pub(super) fn zero_fix_of(base: &str) -> Option<ZeroFix> {
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
pub(super) const ZERO_PREFIX: &str = "ferrocl.zero.";

/// The [`ZeroFix`] of builtin `n`.
pub(super) fn zero_fix_of_builtin(n: &Needed) -> Option<ZeroFix> {
    demangle_base(&n.name).and_then(|(base, _)| zero_fix_of(base))
}

/// The name the program's calls to `n` get: the zero wrapper for builtins
/// with a [`ZeroFix`], else libclc's (renamed) function.
pub(super) fn call_target(n: &Needed) -> String {
    let prefix = if zero_fix_of_builtin(n).is_some() {
        ZERO_PREFIX
    } else {
        PREFIX
    };
    format!("{prefix}{}", n.name)
}

/// The wrapper of a builtin with a [`ZeroFix`]: calls libclc's function
/// and replaces its zero results (or, for the odd functions, returns a
/// zero argument); component-wise on vectors, any other arguments passed
/// through. Plain IR (bit operations, no intrinsics): it is appended to a
/// module that may declare them already.
/// With `flush` (float builtins where CL_FP_DENORM is not reported, see
/// `scalar_fixes`), denormal float arguments count as zeros of their sign.
pub(super) fn zero_fix(n: &Needed, flush: bool) -> Result<String, BuildError> {
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
pub(super) fn vector_loop(n: &Needed) -> Option<Result<(String, String), BuildError>> {
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
pub(super) fn scalar_fixes(ll: &str, opts: &MathOptions) -> Result<(String, String), BuildError> {
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
pub(super) fn scalar_fix_wrapper(
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

#[cfg(test)]
mod tests {
    use super::*;

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
