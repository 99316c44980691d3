//! `cl_khr_subgroup_rotate`: `sub_group_rotate` and
//! `sub_group_clustered_rotate` as sub-group shuffles, defined in the
//! program's LLVM IR (`define_rotates`).
//!
//! clang-15 declares both functions (opencl-c.h and its builtin tables,
//! under the `cl_khr_subgroup_rotate` macro, which it defines for SPIR
//! unless `-cl-ext` turns the extension off: `DeviceCaps::
//! subgroup_extensions` reports it where the device has Vulkan's shuffle
//! operations). llvm-spirv-15 would translate their calls to
//! OpGroupNonUniformRotateKHR (SPV_KHR_subgroup_rotate), which few Vulkan
//! drivers have (lavapipe 22.3 does not). Instead, each overload the
//! program declares gets a definition in IR, under a name llvm-spirv does
//! not know (`__ferrocl_sub_group_rotate_<type>`, the calls renamed):
//!
//! - `sub_group_rotate(v, delta)` = `sub_group_shuffle(v, (id + delta) %
//!   get_max_sub_group_size())`, `id` = `get_sub_group_local_id()`, in
//!   `uint` arithmetic (OpenCL C's sub-group rotation: the rotation group
//!   is the maximum sub-group size, as SPIR-V's for Kernel modules; a
//!   negative `delta` converts to `uint`, which for the power-of-two sizes
//!   of Vulkan is a rotation the other way).
//! - `sub_group_clustered_rotate(v, delta, c)` = `sub_group_shuffle(v,
//!   (id & -c) | ((id + delta) & (c - 1)))`: within the cluster of `c`
//!   consecutive ids (a power of two, as the extension requires; masks
//!   rather than `%`, so an invalid `c` has no division by zero).
//!
//! llvm-spirv turns the shuffle into OpGroupNonUniformShuffle and the
//! queries into the Subgroup builtins, lowered as every other
//! (`passes::lower::subgroup`). A source that is not a valid work-item of
//! the sub-group (past the end of a partial sub-group) or is inactive gives
//! an undefined value, as the extension says. The definitions and the
//! shuffle calls are `convergent`, and the front end keeps clang from
//! merging the program's calls across branches
//! (`frontend::uses_subgroup_functions`).

/// The LLVM type of an Itanium builtin-type code of the sub-group types.
fn llvm_type(code: &str) -> Option<&'static str> {
    Some(match code {
        "c" | "h" => "i8",
        "s" | "t" => "i16",
        "i" | "j" => "i32",
        "l" | "m" => "i64",
        "f" => "float",
        "d" => "double",
        "Dh" => "half",
        _ => return None,
    })
}

const ROTATE: &str = "_Z16sub_group_rotate";
const CLUSTERED: &str = "_Z26sub_group_clustered_rotate";
const LOCAL_ID: &str = "_Z22get_sub_group_local_idv";
const MAX_SIZE: &str = "_Z22get_max_sub_group_sizev";

/// One declared overload: (mangled name, type code, clustered).
fn overload(line: &str) -> Option<(&str, &str, bool)> {
    if !line.starts_with("declare ") {
        return None;
    }
    let at = line.find('@')? + 1;
    let name = &line[at..at + line[at..].find('(')?];
    if let Some(rest) = name.strip_prefix(CLUSTERED) {
        Some((name, rest.strip_suffix("ij")?, true))
    } else {
        let rest = name.strip_prefix(ROTATE)?;
        Some((name, rest.strip_suffix('i')?, false))
    }
}

fn declares(ll: &str, name: &str) -> bool {
    let needle = format!("@{name}(");
    ll.lines()
        .any(|l| l.starts_with("declare ") && l.contains(&needle))
}

/// Textual IR `ll` with the rotate overloads it declares defined (module
/// doc); `ll` itself when it declares none.
pub(crate) fn define_rotates(ll: &str) -> String {
    if !ll.contains(ROTATE) && !ll.contains(CLUSTERED) {
        return ll.to_string();
    }
    let mut out = String::with_capacity(ll.len() + 1024);
    let mut defs = String::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut shuffles: Vec<(String, &str)> = Vec::new();
    for line in ll.lines() {
        let Some((name, code, clustered)) = overload(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let Some(ty) = llvm_type(code) else {
            // Not a sub-group type: left to llvm-spirv, which refuses it.
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let own = format!(
            "__ferrocl_sub_group_{}rotate_{code}",
            if clustered { "clustered_" } else { "" }
        );
        let shuffle = format!("_Z17sub_group_shuffle{code}j");
        let src = if clustered {
            "  %mask = add i32 %c, -1\n  %neg = sub i32 0, %c\n  %sum = add i32 %id, %d\n  \
             %in = and i32 %sum, %mask\n  %base = and i32 %id, %neg\n  %src = or i32 %base, %in\n"
                .to_string()
        } else {
            format!(
                "  %n = call spir_func i32 @{MAX_SIZE}() nounwind readnone\n  \
                 %sum = add i32 %id, %d\n  %src = urem i32 %sum, %n\n"
            )
        };
        let params = if clustered {
            format!("{ty} %v, i32 %d, i32 %c")
        } else {
            format!("{ty} %v, i32 %d")
        };
        defs.push_str(&format!(
            "\ndefine internal spir_func {ty} @{own}({params}) convergent nounwind {{\n  \
             %id = call spir_func i32 @{LOCAL_ID}() nounwind readnone\n{src}  \
             %r = call spir_func {ty} @{shuffle}({ty} %v, i32 %src) convergent nounwind\n  \
             ret {ty} %r\n}}\n"
        ));
        renames.push((format!("@{name}("), format!("@{own}(")));
        if !shuffles.iter().any(|(s, _)| *s == shuffle) {
            shuffles.push((shuffle, ty));
        }
    }
    if renames.is_empty() {
        return ll.to_string();
    }
    for (from, to) in &renames {
        out = out.replace(from, to);
    }
    for (name, ty) in &shuffles {
        if !declares(ll, name) {
            defs.push_str(&format!(
                "declare spir_func {ty} @{name}({ty}, i32) convergent nounwind\n"
            ));
        }
    }
    for name in [LOCAL_ID, MAX_SIZE] {
        if !declares(ll, name) {
            defs.push_str(&format!(
                "declare spir_func i32 @{name}() nounwind readnone\n"
            ));
        }
    }
    out.push_str(&defs);
    out
}

#[cfg(test)]
mod tests {
    use super::define_rotates;

    #[test]
    fn defines_declared_overloads() {
        let ll = "define spir_kernel void @k(i8 %x) {\n  \
                  %a = call spir_func signext i8 @_Z26sub_group_clustered_rotatecij(i8 signext %x, i32 1, i32 4) #2\n  \
                  %b = call spir_func i32 @_Z16sub_group_rotateii(i32 7, i32 -1) #2\n  ret void\n}\n\
                  declare spir_func i32 @_Z22get_sub_group_local_idv() local_unnamed_addr #1\n\
                  declare spir_func signext i8 @_Z26sub_group_clustered_rotatecij(i8 noundef signext, i32 noundef, i32 noundef) local_unnamed_addr #2\n\
                  declare spir_func i32 @_Z16sub_group_rotateii(i32 noundef, i32 noundef) local_unnamed_addr #2\n";
        let out = define_rotates(ll);
        assert!(!out.contains("_Z16sub_group_rotateii"));
        assert!(!out.contains("_Z26sub_group_clustered_rotatecij"));
        assert!(out.contains(
            "call spir_func signext i8 @__ferrocl_sub_group_clustered_rotate_c(i8 signext %x"
        ));
        assert!(out.contains(
            "define internal spir_func i32 @__ferrocl_sub_group_rotate_i(i32 %v, i32 %d)"
        ));
        assert!(out.contains("call spir_func i8 @_Z17sub_group_shufflecj(i8 %v, i32 %src)"));
        assert!(out.contains("declare spir_func i32 @_Z17sub_group_shuffleij(i32, i32)"));
        assert!(out.contains("declare spir_func i32 @_Z22get_max_sub_group_sizev()"));
        // Declared once.
        let decls = out
            .lines()
            .filter(|l| l.starts_with("declare") && l.contains("@_Z22get_sub_group_local_idv("))
            .count();
        assert_eq!(decls, 1);
        assert_eq!(define_rotates("declare i32 @f()\n"), "declare i32 @f()\n");
    }
}
