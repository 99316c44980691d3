//! Saturating integer-to-integer conversions (`convert_<int type>_sat`
//! and its `_rte`/`_rtz`/`_rtp`/`_rtn` spellings, of integer scalars and
//! vectors) defined in the program's LLVM IR (`define_int_saturations`).
//!
//! llvm-spirv-15 translates such a call to `OpUConvert`/`OpSConvert`/
//! `OpSatConvert*` decorated `SaturatedConversion`. When the result is used
//! before its definition in the function's block order (a loop-carried
//! value: a `phi` in the loop header takes the conversion from the latch),
//! the translator writes the decoration on the forward reference's
//! placeholder id, not on the instruction that replaces it: the conversion
//! is left a plain truncation and the decoration targets nothing
//! (`passes::drop_dangling_decorations` then drops it). So
//! `uchar v = 0; for (..) { ..; v = convert_uchar_sat(x); }` gave
//! `(uchar)x` (ferrocl-fuzz seed 7002, program 500014).
//!
//! Instead, each integer overload the program declares gets a definition
//! in IR, under a name llvm-spirv does not know
//! (`__ferrocl_sat.<mangled name>`, the calls renamed): the value is
//! extended to the wider of the two widths (sign-extended from a signed
//! type), clamped to the destination's range with compares and selects
//! (signed compares from a signed source, unsigned from an unsigned one,
//! only the bounds the source can pass), and truncated to the
//! destination's width. The rounding suffixes mean nothing between
//! integer types (OpenCL C §6.4.3). From `float` and `double` (the same
//! defect drops the saturation of `OpConvertFToS`/`FToU`): rounded as the
//! suffix says, NaN to 0, out-of-range values to the bounds
//! (`float_definition`). From `half`, the conversions stay llvm-spirv's.

/// (width in bits, signed) of an Itanium builtin-type code.
fn int_code(code: &str) -> Option<(u32, bool)> {
    Some(match code {
        "c" | "a" => (8, true),
        "h" => (8, false),
        "s" => (16, true),
        "t" => (16, false),
        "i" => (32, true),
        "j" => (32, false),
        "l" => (64, true),
        "m" => (64, false),
        _ => return None,
    })
}

/// (width, signed) of an OpenCL C integer type name.
fn int_name(name: &str) -> Option<(u32, bool)> {
    Some(match name {
        "char" => (8, true),
        "uchar" => (8, false),
        "short" => (16, true),
        "ushort" => (16, false),
        "int" => (32, true),
        "uint" => (32, false),
        "long" => (64, true),
        "ulong" => (64, false),
        _ => return None,
    })
}

/// One integer saturating conversion: its mangled name, the vector length
/// (1 for a scalar) and the (width, signed) of destination and source.
struct Overload<'a> {
    name: &'a str,
    lanes: u32,
    dst: (u32, bool),
    src: Source,
    /// `_rte`, `_rtp`, `_rtn` (`_rtz` and none: towards zero).
    rounding: &'a str,
}

/// What a conversion converts from.
#[derive(Clone, Copy)]
enum Source {
    /// (width, signed).
    Int(u32, bool),
    /// Width: 32 (`float`) or 64 (`double`).
    Float(u32),
}

/// The overload a `declare` line declares, if it is one.
fn overload(line: &str) -> Option<Overload<'_>> {
    if !line.starts_with("declare ") {
        return None;
    }
    let at = line.find("@_Z")? + 1;
    let name = &line[at..at + line[at..].find('(')?];
    let rest = &name[2..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let ident = rest.get(digits..digits + len)?;
    let param = &rest[digits + len..];
    let ty = ident.strip_prefix("convert_")?;
    let (ty, rounding) = ["_sat_rte", "_sat_rtz", "_sat_rtp", "_sat_rtn", "_sat"]
        .iter()
        .find_map(|s| Some((ty.strip_suffix(s)?, &s[4..])))?;
    let base = ty.trim_end_matches(|c: char| c.is_ascii_digit());
    let lanes: u32 = match &ty[base.len()..] {
        "" => 1,
        n => n.parse().ok()?,
    };
    let dst = int_name(base)?;
    let (src_lanes, code) = match param.strip_prefix("Dv") {
        Some(v) => {
            let (n, code) = v.split_once('_')?;
            (n.parse().ok()?, code)
        }
        None => (1, param),
    };
    if src_lanes != lanes {
        return None;
    }
    let src = match code {
        "f" => Source::Float(32),
        "d" => Source::Float(64),
        _ => {
            let (w, signed) = int_code(code)?;
            Source::Int(w, signed)
        }
    };
    Some(Overload {
        name,
        lanes,
        dst,
        src,
        rounding,
    })
}

/// The LLVM type of `lanes` lanes of `iW`.
fn llvm_type(lanes: u32, width: u32) -> String {
    if lanes == 1 {
        format!("i{width}")
    } else {
        format!("<{lanes} x i{width}>")
    }
}

/// A constant of type `llvm_type(lanes, width)` with every lane `value`.
fn splat(lanes: u32, width: u32, value: i128) -> String {
    if lanes == 1 {
        value.to_string()
    } else {
        let lane = format!("i{width} {value}");
        format!("<{}>", vec![lane; lanes as usize].join(", "))
    }
}

/// The IR definition of `o` named `own`.
fn definition(o: &Overload, own: &str) -> String {
    match o.src {
        Source::Int(sw, ssigned) => int_definition(o, own, sw, ssigned),
        Source::Float(fw) => float_definition(o, own, fw),
    }
}

/// The LLVM type of `lanes` lanes of a `width`-bit float, and the
/// intrinsics' type suffix.
fn float_type(lanes: u32, width: u32) -> (String, String) {
    let (ty, sfx) = if width == 32 {
        ("float", "f32")
    } else {
        ("double", "f64")
    };
    if lanes == 1 {
        (ty.into(), sfx.into())
    } else {
        (format!("<{lanes} x {ty}>"), format!("v{lanes}{sfx}"))
    }
}

/// A float constant (exact: a power of two or zero, negated) of
/// `float_type(lanes, width)` in every lane, in LLVM's hexadecimal form.
fn float_splat(lanes: u32, width: u32, value: f64) -> String {
    let lane = format!("0x{:016X}", value.to_bits());
    if lanes == 1 {
        lane
    } else {
        let elem = if width == 32 { "float" } else { "double" };
        let one = format!("{elem} {lane}");
        format!("<{}>", vec![one; lanes as usize].join(", "))
    }
}

/// From a float: rounded as the suffix says (`llvm.rint`, `llvm.ceil`,
/// `llvm.floor`; towards zero is the conversion's own), NaN to 0, below
/// the destination's range to its minimum, at or above 2^bits to its
/// maximum (both bounds are powers of two, exact in float and double),
/// else converted.
fn float_definition(o: &Overload, own: &str, fw: u32) -> String {
    let (dw, dsigned) = o.dst;
    let (fty, sfx) = float_type(o.lanes, fw);
    let dst_ty = llvm_type(o.lanes, dw);
    let bool_ty = llvm_type(o.lanes, 1);
    let mut body = String::new();
    let mut v = "%x".to_string();
    if let Some(f) = match o.rounding {
        "_rte" => Some("rint"),
        "_rtp" => Some("ceil"),
        "_rtn" => Some("floor"),
        _ => None,
    } {
        body.push_str(&format!(
            "  %rounded = call {fty} @llvm.{f}.{sfx}({fty} %x)\n"
        ));
        v = "%rounded".into();
    }
    let pow = |bits: u32| 2f64.powi(bits as i32);
    let (lo_f, hi_f, lo_i, hi_i) = if dsigned {
        let m = 1i128 << (dw - 1);
        (-pow(dw - 1), pow(dw - 1), -m, m - 1)
    } else {
        (0.0, pow(dw), 0, (1i128 << dw) - 1)
    };
    let conv = if dsigned { "fptosi" } else { "fptoui" };
    let (lo, hi) = (
        float_splat(o.lanes, fw, lo_f),
        float_splat(o.lanes, fw, hi_f),
    );
    let (lo_c, hi_c, zero) = (
        splat(o.lanes, dw, lo_i),
        splat(o.lanes, dw, hi_i),
        splat(o.lanes, dw, 0),
    );
    body.push_str(&format!(
        "  %below = fcmp olt {fty} {v}, {lo}\n  \
         %above = fcmp oge {fty} {v}, {hi}\n  \
         %nan = fcmp uno {fty} {v}, {v}\n  \
         %in = select {bool_ty} %below, {fty} {lo}, {fty} {v}\n  \
         %c = {conv} {fty} %in to {dst_ty}\n  \
         %hi = select {bool_ty} %above, {dst_ty} {hi_c}, {dst_ty} %c\n  \
         %lo = select {bool_ty} %below, {dst_ty} {lo_c}, {dst_ty} %hi\n  \
         %r = select {bool_ty} %nan, {dst_ty} {zero}, {dst_ty} %lo\n"
    ));
    format!(
        "\ndefine internal spir_func {dst_ty} @{own}({fty} %x) nounwind readnone alwaysinline {{\n{body}  ret {dst_ty} %r\n}}\n"
    )
}

/// The intrinsic declarations `float_definition` of `o` calls.
fn float_intrinsic(o: &Overload) -> Option<String> {
    let Source::Float(fw) = o.src else {
        return None;
    };
    let f = match o.rounding {
        "_rte" => "rint",
        "_rtp" => "ceil",
        "_rtn" => "floor",
        _ => return None,
    };
    let (fty, sfx) = float_type(o.lanes, fw);
    Some(format!("declare {fty} @llvm.{f}.{sfx}({fty})"))
}

/// From an integer (module doc).
fn int_definition(o: &Overload, own: &str, sw: u32, ssigned: bool) -> String {
    let (dw, dsigned) = o.dst;
    let w = dw.max(sw);
    let (src_ty, dst_ty, wide) = (
        llvm_type(o.lanes, sw),
        llvm_type(o.lanes, dw),
        llvm_type(o.lanes, w),
    );
    let bool_ty = llvm_type(o.lanes, 1);
    let mut body = String::new();
    let mut cur = "%x".to_string();
    if w > sw {
        let ext = if ssigned { "sext" } else { "zext" };
        body.push_str(&format!("  %wide = {ext} {src_ty} %x to {wide}\n"));
        cur = "%wide".into();
    }
    let pow = |bits: u32| 1i128 << bits;
    let (dmin, dmax) = if dsigned {
        (-pow(dw - 1), pow(dw - 1) - 1)
    } else {
        (0, pow(dw) - 1)
    };
    let (smin, smax) = if ssigned {
        (-pow(sw - 1), pow(sw - 1) - 1)
    } else {
        (0, pow(sw) - 1)
    };
    if smin < dmin {
        // Only a signed source goes below the destination's minimum.
        let lo = splat(o.lanes, w, dmin);
        // Widened (a signed source to a wider unsigned type, whose
        // minimum is 0), the sign is tested on the source itself:
        // lavapipe 22.3 compares a sign-extended value with a constant
        // wrongly (`convert_ulong_sat(-2)` gave 0xff..fe; corpus
        // `fuzz_sconvert_compare.cl`, ferrocl-fuzz seed 14 program 20;
        // every such extension is now mended there by
        // `passes::expand_long_sign_extensions`, and this test is right
        // and no dearer on every device).
        let test = if w > sw {
            format!("{src_ty} %x, {}", splat(o.lanes, sw, 0))
        } else {
            format!("{wide} {cur}, {lo}")
        };
        body.push_str(&format!(
            "  %below = icmp slt {test}\n  %lo = select {bool_ty} %below, {wide} {lo}, {wide} {cur}\n"
        ));
        cur = "%lo".into();
    }
    if smax > dmax {
        let hi = splat(o.lanes, w, dmax);
        let cmp = if ssigned { "sgt" } else { "ugt" };
        body.push_str(&format!(
            "  %above = icmp {cmp} {wide} {cur}, {hi}\n  %hi = select {bool_ty} %above, {wide} {hi}, {wide} {cur}\n"
        ));
        cur = "%hi".into();
    }
    if w > dw {
        body.push_str(&format!("  %r = trunc {wide} {cur} to {dst_ty}\n"));
        cur = "%r".into();
    }
    format!(
        "\ndefine internal spir_func {dst_ty} @{own}({src_ty} %x) nounwind readnone alwaysinline {{\n{body}  ret {dst_ty} {cur}\n}}\n"
    )
}

/// Textual IR `ll` with the integer saturating conversions it declares
/// defined (module doc); `ll` itself when it declares none.
pub(crate) fn define_int_saturations(ll: &str) -> String {
    if !ll.contains("_sat") {
        return ll.to_string();
    }
    let mut out = String::with_capacity(ll.len() + 1024);
    let mut defs = String::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    for line in ll.lines() {
        match overload(line) {
            Some(o) => {
                let own = format!("__ferrocl_sat.{}", o.name);
                defs.push_str(&definition(&o, &own));
                if let Some(decl) = float_intrinsic(&o) {
                    let at = decl.find('@').unwrap_or(0);
                    let callee = &decl[at..at + decl[at..].find('(').unwrap_or(0) + 1];
                    let declared = ll
                        .lines()
                        .any(|l| l.starts_with("declare ") && l.contains(callee));
                    if !declared && !defs.contains(&decl) {
                        defs.push_str(&decl);
                        defs.push('\n');
                    }
                }
                renames.push((format!("@{}(", o.name), format!("@{own}(")));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if renames.is_empty() {
        return ll.to_string();
    }
    for (from, to) in &renames {
        out = out.replace(from, to);
    }
    out.push_str(&defs);
    out
}

#[cfg(test)]
mod tests {
    use super::define_int_saturations;

    #[test]
    fn defines_integer_overloads_only() {
        let ll = "define spir_kernel void @k(i16 %x, <2 x i32> %v, float %f) {\n  \
                  %a = call spir_func zeroext i8 @_Z21convert_uchar_sat_rtzt(i16 noundef zeroext %x) #2\n  \
                  %b = call spir_func <2 x i16> @_Z18convert_short2_satDv2_i(<2 x i32> noundef %v) #2\n  \
                  %c = call spir_func i32 @_Z16convert_uint_satf(float noundef %f) #2\n  ret void\n}\n\
                  declare spir_func zeroext i8 @_Z21convert_uchar_sat_rtzt(i16 noundef zeroext) local_unnamed_addr #2\n\
                  declare spir_func <2 x i16> @_Z18convert_short2_satDv2_i(<2 x i32> noundef) local_unnamed_addr #2\n\
                  declare spir_func i32 @_Z16convert_uint_satf(float noundef) local_unnamed_addr #2\n";
        let out = define_int_saturations(ll);
        assert!(out.contains(
            "call spir_func zeroext i8 @__ferrocl_sat._Z21convert_uchar_sat_rtzt(i16 noundef zeroext %x)"
        ));
        // ushort -> uchar: only the upper bound, unsigned.
        assert!(out.contains("%above = icmp ugt i16 %x, 255\n"));
        assert!(!out.contains("%below = icmp slt i16"));
        // int2 -> short2: both bounds, signed, per lane.
        assert!(out.contains("%below = icmp slt <2 x i32> %x, <i32 -32768, i32 -32768>\n"));
        assert!(out.contains("%above = icmp sgt <2 x i32> %lo, <i32 32767, i32 32767>\n"));
        assert!(out.contains("%r = trunc <2 x i32> %hi to <2 x i16>\n"));
        // From float: NaN to 0, clamped, converted towards zero.
        assert!(out.contains("%c = fptoui float %in to i32\n"));
        assert!(out.contains("%nan = fcmp uno float %x, %x\n"));
        assert!(!out.contains("declare spir_func i32 @_Z16convert_uint_satf"));
        assert_eq!(
            define_int_saturations("declare i32 @f()\n"),
            "declare i32 @f()\n"
        );
    }
}
