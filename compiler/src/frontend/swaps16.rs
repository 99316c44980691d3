//! `define_16bit_swaps`: LLVM's 16-bit byte swaps and funnel shifts
//! (`llvm.bswap`, `llvm.fshl`, `llvm.fshr` of `i16` and `<N x i16>`) as
//! functions of the program's own IR, in a shape every Vulkan driver
//! compiles right, before llvm-spirv translates the program.
//!
//! Why: clang's -O2 turns the byte swap of a 16-bit value, however the
//! source writes it (`(x << 8) | (x >> 8)` on a `ushort`, the same in
//! `uint` arithmetic on a zero-extended value, masks and all), into
//! `llvm.bswap.i16`, and a rotation into `llvm.fshl`. llvm-spirv-15 lowers
//! both into functions of two shifts and an OR. NVIDIA's Vulkan compiler
//! (driver 580) compiles that OR of `x << 8` and `x >> 8` of a 16-bit
//! value into code that returns 0 or the wrong bytes (GPU probes of
//! session 18, H200: every such kernel wrong for every nonzero input,
//! whether the arithmetic is 16- or 32-bit; NVIDIA's own OpenCL is
//! right). What it compiles right is the value doubled into 32 bits and
//! shifted once: `(x << 16 | x) >> 8` (the probe's `dup` shape), or a
//! multiply by 0x10001 and a shift.
//!
//! Shapes (`x`, `y` zero-extended to 32 bits, `c` the count):
//!
//! - `bswap(x)` = `(x << 16 | x) >> 8`, truncated;
//! - `fshl(x, y, c)` = `(x << 16 | y) >> (16 - (c & 15))`, truncated (for
//!   `c & 15 == 0` that is `x`, as LLVM defines it);
//! - `fshr(x, y, c)` = `(x << 16 | y) >> (c & 15)`, truncated.
//!
//! Each overload the program declares gets a definition
//! (`__ferrocl_<op>_<type>`, the calls renamed); on every device (the
//! shapes are exact; lavapipe compiles them as well as the others). The
//! OpenCL `rotate` builtin of 16-bit types is lowered the same way in
//! SPIR-V (`passes::lower`, `rotate16`). SPIR-V modules that arrive with
//! the swap already written as two shifts and an OR (other producers,
//! clang at -O0) get the same shape from `passes::funnel_byte_swaps`.

/// The (operation, LLVM type suffix, component count) of an intrinsic
/// declaration line this module replaces.
fn declared(line: &str) -> Option<(&'static str, &str, Option<u32>)> {
    if !line.starts_with("declare ") {
        return None;
    }
    let at = line.find("@llvm.")? + "@llvm.".len();
    let rest = &line[at..];
    let name = &rest[..rest.find('(')?];
    let (op, suffix) = name.split_once('.')?;
    let op = ["bswap", "fshl", "fshr"].into_iter().find(|o| *o == op)?;
    if suffix == "i16" {
        return Some((op, suffix, None));
    }
    let n: u32 = suffix
        .strip_prefix('v')?
        .strip_suffix("i16")?
        .parse()
        .ok()?;
    Some((op, suffix, Some(n)))
}

/// The body of `op` on `t16`/`t32` (the 16- and 32-bit types) with
/// `k(v)` the constant `v` of `t32`.
fn body(op: &str, t16: &str, t32: &str, k: &dyn Fn(u32) -> String) -> String {
    let head = format!(
        "  %x32 = zext {t16} %x to {t32}\n  %hi = shl {t32} %x32, {}\n",
        k(16)
    );
    let (params, low, shift) = match op {
        "bswap" => (format!("{t16} %x"), "%x32", k(8)),
        "fshl" => (
            format!("{t16} %x, {t16} %y, {t16} %c"),
            "%y32",
            "%n".to_string(),
        ),
        _ => (
            format!("{t16} %x, {t16} %y, {t16} %c"),
            "%y32",
            "%m".to_string(),
        ),
    };
    let count = match op {
        "bswap" => String::new(),
        _ => {
            let m = format!(
                "  %y32 = zext {t16} %y to {t32}\n  %c32 = zext {t16} %c to {t32}\n  \
                 %m = and {t32} %c32, {}\n",
                k(15)
            );
            if op == "fshl" {
                format!("{m}  %n = sub {t32} {}, %m\n", k(16))
            } else {
                m
            }
        }
    };
    format!(
        "({params}) nounwind readnone {{\n{head}{count}  %d = or {t32} %hi, {low}\n  \
         %s = lshr {t32} %d, {shift}\n  %r = trunc {t32} %s to {t16}\n  ret {t16} %r\n}}\n"
    )
}

/// Textual IR `ll` with its 16-bit byte swaps and funnel shifts defined
/// (module doc); `ll` itself when it declares none.
pub(crate) fn define_16bit_swaps(ll: &str) -> std::borrow::Cow<'_, str> {
    if !ll.contains("@llvm.bswap.") && !ll.contains("@llvm.fsh") {
        return ll.into();
    }
    super::own_definitions::replace_declarations(ll, |line| {
        let (op, suffix, n) = declared(line)?;
        let (t16, t32) = match n {
            None => ("i16".to_string(), "i32".to_string()),
            Some(n) => (format!("<{n} x i16>"), format!("<{n} x i32>")),
        };
        let k = |v: u32| match n {
            None => v.to_string(),
            Some(n) => format!("<{}>", vec![format!("i32 {v}"); n as usize].join(", ")),
        };
        let own = format!("__ferrocl_{op}_{suffix}");
        Some(super::own_definitions::OwnDefinition {
            intrinsic: format!("@llvm.{op}.{suffix}"),
            definition: format!("define internal {t16} @{own}{}", body(op, &t16, &t32, &k)),
            own,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::define_16bit_swaps;

    #[test]
    fn defines_declared_overloads() {
        let ll = "define spir_kernel void @k(i16 %x, <2 x i16> %v) {\n  \
                  %a = tail call i16 @llvm.bswap.i16(i16 %x)\n  \
                  %b = tail call <2 x i16> @llvm.fshl.v2i16(<2 x i16> %v, <2 x i16> %v, <2 x i16> <i16 3, i16 8>)\n  \
                  %c = tail call i32 @llvm.bswap.i32(i32 7)\n  ret void\n}\n\
                  declare i16 @llvm.bswap.i16(i16) #1\n\
                  declare <2 x i16> @llvm.fshl.v2i16(<2 x i16>, <2 x i16>, <2 x i16>) #1\n\
                  declare i32 @llvm.bswap.i32(i32) #1\n";
        let out = define_16bit_swaps(ll);
        assert!(out.contains("%a = tail call i16 @__ferrocl_bswap_i16(i16 %x)"));
        assert!(out.contains("@__ferrocl_fshl_v2i16(<2 x i16> %v, <2 x i16> %v"));
        assert!(!out.contains("declare i16 @llvm.bswap.i16"));
        assert!(!out.contains("@llvm.fshl.v2i16"));
        // 32-bit swaps stay LLVM's.
        assert!(out.contains("declare i32 @llvm.bswap.i32(i32) #1"));
        assert!(out.contains("%c = tail call i32 @llvm.bswap.i32(i32 7)"));
        assert!(out.contains(
            "define internal <2 x i16> @__ferrocl_fshl_v2i16(<2 x i16> %x, <2 x i16> %y, <2 x i16> %c)"
        ));
        assert!(out.contains("%n = sub <2 x i32> <i32 16, i32 16>, %m"));
        assert!(out.contains("%s = lshr i32 %d, 8"));
        let plain = "declare i32 @f()\n";
        assert_eq!(define_16bit_swaps(plain), plain);
    }
}
