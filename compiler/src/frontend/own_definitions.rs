//! `replace_declarations`: LLVM intrinsics that llvm-spirv-15 lowers
//! wrongly (or into shapes a driver gets wrong) replaced by definitions in
//! the program's own IR, the calls renamed: the shared mechanism of
//! `swaps16` and `overflow_multiplies`.

/// A declaration's replacement: the called name to rename (`@llvm.x.y`),
/// the new function's name (without `@`) and its definition (the whole
/// `define internal ...` text).
pub(crate) struct OwnDefinition {
    pub intrinsic: String,
    pub own: String,
    pub definition: String,
}

/// Textual IR `ll` with every declaration line that `define` answers for
/// dropped, the calls of its intrinsic going to the new definition, which
/// is appended; `ll` itself when `define` answers for no line.
pub(crate) fn replace_declarations(
    ll: &str,
    define: impl Fn(&str) -> Option<OwnDefinition>,
) -> std::borrow::Cow<'_, str> {
    let mut out = String::with_capacity(ll.len() + 1024);
    let mut defs = String::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    for line in ll.lines() {
        let Some(d) = define(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        defs.push('\n');
        defs.push_str(&d.definition);
        renames.push((format!("{}(", d.intrinsic), format!("@{}(", d.own)));
    }
    if renames.is_empty() {
        return ll.into();
    }
    for (from, to) in &renames {
        out = out.replace(from, to);
    }
    out.push_str(&defs);
    out.into()
}
