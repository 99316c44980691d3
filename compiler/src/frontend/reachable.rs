//! `drop_unreachable_functions`: clLinkProgram keeps, of the linked
//! module's function definitions, those its kernels can reach.
//!
//! Why: an executable's only entry points are its kernels, yet libraries
//! of helpers define many functions a program never calls, all external
//! (OpenCL C has no header-only `static inline` habit). hashcat's kernels
//! include `inc_common.cl`, whose `switch_buffer_by_offset_*` functions
//! alone are 37 MB of optimized IR, of which an MD5 kernel calls none: the
//! link optimized, translated and passed all of it through every later
//! step (about 40 s on the 2-core development machine), to keep 1% of it.
//! Dropped before the link's -O2, they cost nothing after.
//!
//! Algorithm, on llvm-link's textual IR: a function definition is a
//! `define` line up to the next line that is `}`. The roots are the
//! `spir_kernel` definitions and every `@name` that any line outside a
//! function definition names (global variables' initializers, aliases,
//! `llvm.used`, metadata); a definition reached by a root is live, and so
//! is every `@name` its lines name (a name inside a string or metadata
//! counts too: erring towards keeping). Every other definition is removed
//! with the comment line LLVM prints above it. Linkage is left as it is, so
//! the optimizer treats the kept functions as before (inlining decisions
//! on external functions do not depend on the others).

use std::collections::HashMap;

/// The `@name`s that `line` refers to (quoted names with their quotes).
fn references(line: &str) -> impl Iterator<Item = &str> {
    let b = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let at = i + line[i..].find('@')?;
            i = at + 1;
            let start = i;
            if b.get(i) == Some(&b'"') {
                let end = line[i + 1..].find('"').map_or(b.len(), |e| i + 1 + e + 1);
                i = end;
                return Some(&line[start..end]);
            }
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'-' | b'$' | b'.' | b'_'))
            {
                i += 1;
            }
            if i > start {
                return Some(&line[start..i]);
            }
        }
        None
    })
}

/// The name a `define` line defines: the first `@name` (the return type
/// and attributes before it name none).
fn defined_name(line: &str) -> Option<&str> {
    references(line).next()
}

/// Textual IR `ll` without the function definitions no kernel reaches
/// (module doc); `None` when every definition is reachable.
pub(crate) fn drop_unreachable_functions(ll: &str) -> Option<String> {
    let lines: Vec<&str> = ll.lines().collect();
    // Each definition: (name, first line, last line).
    let mut defs: Vec<(&str, usize, usize)> = Vec::new();
    let mut roots: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("define ") {
            let end = (i..lines.len()).find(|&j| lines[j] == "}")?;
            let name = defined_name(line)?;
            let head = &line[..line.find('@').unwrap_or(0)];
            if head.contains("spir_kernel") {
                roots.push(name);
            }
            defs.push((name, i, end));
            i = end + 1;
        } else {
            if line.contains('@') && !line.starts_with("declare ") {
                roots.extend(references(line));
            }
            i += 1;
        }
    }
    let index: HashMap<&str, usize> = defs.iter().enumerate().map(|(k, d)| (d.0, k)).collect();
    let mut live = vec![false; defs.len()];
    while let Some(name) = roots.pop() {
        let Some(&k) = index.get(name) else { continue };
        if live[k] {
            continue;
        }
        live[k] = true;
        let (_, start, end) = defs[k];
        for line in &lines[start..=end] {
            if line.contains('@') {
                roots.extend(references(line));
            }
        }
    }
    if live.iter().all(|&l| l) {
        return None;
    }
    let mut out = String::with_capacity(ll.len());
    let mut next = 0;
    for (k, &(_, start, end)) in defs.iter().enumerate() {
        if live[k] {
            continue;
        }
        // The `; Function Attrs: ...` comment above the definition goes too.
        let from = match start.checked_sub(1) {
            Some(c) if c >= next && lines[c].starts_with("; Function Attrs:") => c,
            _ => start,
        };
        for line in &lines[next..from] {
            out.push_str(line);
            out.push('\n');
        }
        next = end + 1;
    }
    for line in &lines[next..] {
        out.push_str(line);
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{drop_unreachable_functions, references};

    #[test]
    fn names_referenced() {
        let refs: Vec<&str> =
            references("  %1 = call i32 @f.1(i32 @g, i8* @\"odd name\") ; @ x@y").collect();
        assert_eq!(refs, ["f.1", "g", "\"odd name\"", "y"]);
    }

    #[test]
    fn keeps_what_kernels_reach() {
        let ll = "@table = addrspace(2) constant [1 x i32] [i32 1]\n\
                  @fp = global i32 (i32)* @from_global\n\
                  \n\
                  ; Function Attrs: nounwind\n\
                  define spir_func i32 @helper(i32 %x) {\n\
                  entry:\n  %r = call spir_func i32 @leaf(i32 %x)\n  ret i32 %r\n\
                  }\n\
                  \n\
                  ; Function Attrs: nounwind\n\
                  define spir_func i32 @unused(i32 %x) {\n\
                  entry:\n  %r = call spir_func i32 @leaf(i32 %x)\n  ret i32 %r\n\
                  }\n\
                  define spir_func i32 @leaf(i32 %x) {\n  ret i32 %x\n}\n\
                  define spir_func i32 @from_global(i32 %x) {\n  ret i32 %x\n}\n\
                  define internal spir_func i32 @\"quoted\"(i32 %x) {\n  ret i32 %x\n}\n\
                  define dso_local spir_kernel void @k(i32 addrspace(1)* %p) {\n\
                  entry:\n  %v = call spir_func i32 @helper(i32 1)\n  \
                  %w = call spir_func i32 @\"quoted\"(i32 %v)\n  ret void\n\
                  }\n\
                  declare spir_func i32 @_Z13get_global_idj(i32)\n";
        let out = drop_unreachable_functions(ll).unwrap();
        assert!(!out.contains("@unused"), "{out}");
        assert_eq!(out.matches("; Function Attrs").count(), 1, "{out}");
        for kept in [
            "define spir_func i32 @helper",
            "define spir_func i32 @leaf",
            "define spir_func i32 @from_global",
            "@\"quoted\"(i32 %x) {",
            "define dso_local spir_kernel void @k",
            "declare spir_func i32 @_Z13get_global_idj",
            "@table = ",
        ] {
            assert!(out.contains(kept), "{kept}: {out}");
        }
        // Nothing to drop: None.
        assert!(drop_unreachable_functions(&out).is_none());
    }
}
