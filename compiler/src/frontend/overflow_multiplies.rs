//! `define_overflow_multiplies`: LLVM's `llvm.umul.with.overflow` of
//! integers and integer vectors as functions of the program's own IR,
//! before llvm-spirv translates the program.
//!
//! Why: llvm-spirv-15 lowers `umul.with.overflow(a, b)` to `p = a * b;
//! overflow = a != p / a`, which compares with the wrong operand (the
//! right test is `b != p / a`) and divides by zero for `a = 0`. clang's
//! -O2 makes the intrinsic of ordinary code: `UINT_MAX / d < x` becomes
//! "`d * x` overflows". Found by ferrocl-fuzz (lavapipe, seed 231 p77,
//! reduced to `(div_uint3((uint3)0xffffffff, 0) < (uint3)x).s0`, which
//! gave true for `x = 0`; PoCL and a CPU give false).
//!
//! Shapes (`w` the element width): for `w ≤ 32` the operands are
//! zero-extended to `2w` bits, multiplied, and the overflow bit is "the
//! high half is not zero"; for 64-bit elements, `a != 0 && (a * b) / a !=
//! b` with the division by 1 where `a` is 0. Each overload the program
//! declares gets a definition (`__ferrocl_umul_with_overflow_<suffix>`,
//! the calls renamed), on every device.

/// The LLVM type suffix (`i32`, `v3i32`) of a declaration line this
/// module replaces, with the element width and the component count.
fn declared(line: &str) -> Option<(&str, u32, Option<u32>)> {
    if !line.starts_with("declare ") {
        return None;
    }
    let at = line.find("@llvm.umul.with.overflow.")? + "@llvm.umul.with.overflow.".len();
    let rest = &line[at..];
    let suffix = &rest[..rest.find('(')?];
    if let Some(w) = suffix.strip_prefix('i') {
        return Some((suffix, w.parse().ok()?, None));
    }
    let (n, w) = suffix.strip_prefix('v')?.split_once('i')?;
    Some((suffix, w.parse().ok()?, Some(n.parse().ok()?)))
}

/// `i<w>` or `<n x i<w>>`.
fn ty(w: u32, n: Option<u32>) -> String {
    match n {
        None => format!("i{w}"),
        Some(n) => format!("<{n} x i{w}>"),
    }
}

/// The constant `v` of `ty(w, n)`.
fn constant(v: u64, w: u32, n: Option<u32>) -> String {
    match n {
        None => v.to_string(),
        Some(n) => format!("<{}>", vec![format!("i{w} {v}"); n as usize].join(", ")),
    }
}

/// The body (after the function name) of the definition for `w`, `n`.
fn body(w: u32, n: Option<u32>) -> String {
    let t = ty(w, n);
    let b = ty(1, n);
    let s = format!("{{ {t}, {b} }}");
    let head = format!("({t} %a, {t} %b) {{\n");
    let tail = format!(
        "  %r0 = insertvalue {s} undef, {t} %p, 0\n  %r1 = insertvalue {s} %r0, {b} %ov, 1\n  ret {s} %r1\n}}\n"
    );
    let ops = if w <= 32 {
        let wide = ty(2 * w, n);
        format!(
            "  %a2 = zext {t} %a to {wide}\n  %b2 = zext {t} %b to {wide}\n  \
             %p2 = mul {wide} %a2, %b2\n  %hi = lshr {wide} %p2, {}\n  \
             %ov = icmp ne {wide} %hi, zeroinitializer\n  %p = trunc {wide} %p2 to {t}\n",
            constant(u64::from(w), 2 * w, n)
        )
    } else {
        format!(
            "  %p = mul {t} %a, %b\n  %az = icmp eq {t} %a, zeroinitializer\n  \
             %d = select {b} %az, {t} {}, {t} %a\n  %q = udiv {t} %p, %d\n  \
             %ne = icmp ne {t} %q, %b\n  %nz = xor {b} %az, {}\n  %ov = and {b} %nz, %ne\n",
            constant(1, w, n),
            match n {
                None => "true".to_string(),
                Some(n) => format!("<{}>", vec!["i1 true"; n as usize].join(", ")),
            }
        )
    };
    format!("{head}{ops}{tail}")
}

/// Textual IR `ll` with its `llvm.umul.with.overflow` calls going to
/// definitions of their own (module doc); `ll` itself when it has none.
pub(crate) fn define_overflow_multiplies(ll: &str) -> std::borrow::Cow<'_, str> {
    if !ll.contains("@llvm.umul.with.overflow.") {
        return ll.into();
    }
    super::own_definitions::replace_declarations(ll, |line| {
        let (suffix, w, n) = declared(line).filter(|&(_, w, _)| matches!(w, 8 | 16 | 32 | 64))?;
        let own = format!("__ferrocl_umul_with_overflow_{suffix}");
        let (t, b) = (ty(w, n), ty(1, n));
        Some(super::own_definitions::OwnDefinition {
            intrinsic: format!("@llvm.umul.with.overflow.{suffix}"),
            definition: format!("define internal {{ {t}, {b} }} @{own}{}", body(w, n)),
            own,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::define_overflow_multiplies;

    #[test]
    fn declarations_become_definitions_and_calls_are_renamed() {
        let ll = "define void @k(<3 x i32> %x, i64 %y) {\n  \
                  %m = call { <3 x i32>, <3 x i1> } @llvm.umul.with.overflow.v3i32(<3 x i32> %x, <3 x i32> %x)\n  \
                  %n = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %y, i64 %y)\n  ret void\n}\n\
                  declare { <3 x i32>, <3 x i1> } @llvm.umul.with.overflow.v3i32(<3 x i32>, <3 x i32>)\n\
                  declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64)\n";
        let out = define_overflow_multiplies(ll);
        assert!(!out.contains("@llvm.umul.with.overflow"), "{out}");
        assert!(out.contains("zext <3 x i32> %a to <3 x i64>"), "{out}");
        assert!(
            out.contains("lshr <3 x i64> %p2, <i64 32, i64 32, i64 32>"),
            "{out}"
        );
        assert!(out.contains("udiv i64 %p, %d"), "{out}");
        let plain = "define void @k() {\n  ret void\n}\n";
        assert_eq!(define_overflow_multiplies(plain), plain);
    }
}
