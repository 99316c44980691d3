//! Kernel argument metadata from clang's textual LLVM IR.

use std::collections::HashMap;

/// What clang records about one kernel argument with -cl-kernel-arg-info.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgMetadata {
    /// `!kernel_arg_addr_space`: 0 private, 1 global, 2 constant, 3 local.
    pub addr_space: u32,
    /// `!kernel_arg_access_qual`: "none", "read_only", "write_only", "read_write".
    pub access_qual: String,
    /// `!kernel_arg_type`, e.g. "float*", "uint4", "S".
    pub type_name: String,
    /// `!kernel_arg_type_qual`, e.g. "restrict const".
    pub type_qual: String,
    /// `!kernel_arg_name`.
    pub name: String,
}

/// Reads the kernel argument metadata of every `spir_kernel` function in
/// clang's textual IR (`-emit-llvm`).
///
/// Algorithm: collect the `!N = !{...}` metadata nodes, then for each
/// `define ... spir_kernel ... @name(...) ... !kernel_arg_* !N` line resolve
/// the attached nodes. Gaps: kernels whose metadata clang did not emit
/// (without -cl-kernel-arg-info) get no entry, so callers fall back to what
/// the SPIR-V says.
pub fn read_kernel_arg_metadata(ll: &str) -> HashMap<String, Vec<ArgMetadata>> {
    let nodes = metadata_nodes(ll);
    let mut kernels = HashMap::new();
    for line in ll.lines() {
        if !line.starts_with("define ") || !line.contains(" spir_kernel ") {
            continue;
        }
        let Some(name) = function_name(line) else {
            continue;
        };
        let attached = |key: &str| -> Vec<String> {
            let pat = format!("!{key} !");
            line.find(&pat)
                .and_then(|p| {
                    let id: String = line[p + pat.len()..]
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    nodes.get(id.as_str()).cloned()
                })
                .unwrap_or_default()
        };
        let spaces = attached("kernel_arg_addr_space");
        let access = attached("kernel_arg_access_qual");
        let types = attached("kernel_arg_type");
        let quals = attached("kernel_arg_type_qual");
        let names = attached("kernel_arg_name");
        let n = spaces.len().max(types.len());
        let get = |v: &Vec<String>, i: usize| v.get(i).cloned().unwrap_or_default();
        let args = (0..n)
            .map(|i| ArgMetadata {
                addr_space: get(&spaces, i)
                    .trim_start_matches("i32 ")
                    .parse()
                    .unwrap_or(0),
                access_qual: get(&access, i),
                type_name: get(&types, i),
                type_qual: get(&quals, i),
                name: get(&names, i),
            })
            .collect();
        kernels.insert(name, args);
    }
    kernels
}

/// The `!N = !{...}` metadata nodes of textual IR: id → items.
fn metadata_nodes(ll: &str) -> HashMap<&str, Vec<String>> {
    let mut nodes: HashMap<&str, Vec<String>> = HashMap::new();
    for line in ll.lines() {
        if let Some(rest) = line.strip_prefix('!') {
            if let Some((id, body)) = rest.split_once(" = ") {
                let body = body.trim_start_matches("distinct ");
                if let Some(items) = body.strip_prefix("!{").and_then(|b| b.strip_suffix('}')) {
                    nodes.insert(id, split_items(items));
                }
            }
        }
    }
    nodes
}

/// Kernels whose `vec_type_hint` is an unsigned integer type. SPIR-V's
/// VecTypeHint execution mode has no signedness, so the reflection names
/// `ulong2` as `long2`; clang's `!vec_type_hint !{<2 x i64> undef, i32 0}`
/// says (its last item is 1 for signed integers, 0 otherwise).
pub fn read_unsigned_vec_type_hints(ll: &str) -> std::collections::HashSet<String> {
    let nodes = metadata_nodes(ll);
    let mut out = std::collections::HashSet::new();
    for line in ll.lines() {
        if !line.starts_with("define ") || !line.contains(" spir_kernel ") {
            continue;
        }
        let (Some(name), Some(p)) = (function_name(line), line.find("!vec_type_hint !")) else {
            continue;
        };
        let id: String = line[p + "!vec_type_hint !".len()..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let Some([ty, signed]) = nodes.get(id.as_str()).map(|v| v.as_slice()) else {
            continue;
        };
        // `<2 x i64> undef` or `i8 undef`.
        let elem = ty.trim_start_matches('<').split(" x ").last().unwrap_or("");
        if elem.starts_with('i') && signed.trim() == "i32 0" {
            out.insert(name);
        }
    }
    out
}

/// `@name(` or `@"quoted name"(` of a define line.
fn function_name(line: &str) -> Option<String> {
    let at = line.find(" @")? + 2;
    let rest = &line[at..];
    if let Some(q) = rest.strip_prefix('"') {
        let end = q.find('"')?;
        Some(unescape(&q[..end]))
    } else {
        let end = rest.find('(')?;
        Some(rest[..end].to_string())
    }
}

/// Splits a metadata node body into items: strings (`!"..."`, unescaped),
/// integers (`i32 1`, kept as written) and references.
fn split_items(body: &str) -> Vec<String> {
    let mut items = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b',') {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        if body[i..].starts_with("!\"") {
            let start = i + 2;
            let mut j = start;
            while j < bytes.len() && bytes[j] != b'"' {
                j += 1;
            }
            items.push(unescape(&body[start..j]));
            i = j + 1;
        } else {
            let start = i;
            while i < bytes.len() && bytes[i] != b',' {
                i += 1;
            }
            items.push(body[start..i].trim().to_string());
        }
    }
    items
}

/// LLVM string escapes: `\XX` is a hex byte, `\\` a backslash.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 2 < b.len() + 1 {
            if b.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if let Some(h) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(h);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_unsigned_vec_type_hints() {
        let ll = "define spir_kernel void @a(i32 %x) !vec_type_hint !7 {
define spir_kernel void @b(i32 %x) !vec_type_hint !8 {
define spir_kernel void @c(i32 %x) !vec_type_hint !9 {
define spir_kernel void @d(i32 %x) !vec_type_hint !10 {
define spir_kernel void @e(i32 %x) {
!7 = !{<2 x i64> undef, i32 0}
!8 = !{i8 undef, i32 0}
!9 = !{<4 x float> undef, i32 0}
!10 = !{<16 x i32> undef, i32 1}
";
        let got = read_unsigned_vec_type_hints(ll);
        let want: std::collections::HashSet<String> =
            ["a".to_string(), "b".to_string()].into_iter().collect();
        assert_eq!(got, want);
    }

    #[test]
    fn reads_arg_info() {
        let ll = r#"define dso_local spir_kernel void @k2(float addrspace(1)* %out) local_unnamed_addr #0 !kernel_arg_addr_space !3 !kernel_arg_access_qual !4 !kernel_arg_type !5 !kernel_arg_base_type !5 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
!3 = !{i32 1, i32 0}
!4 = !{!"none", !"none"}
!5 = !{!"float*", !"my\22t"}
!7 = !{!"restrict const", !""}
!8 = !{!"out", !"n"}
"#;
        let k = read_kernel_arg_metadata(ll);
        let a = &k["k2"];
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].addr_space, 1);
        assert_eq!(a[0].type_qual, "restrict const");
        assert_eq!(a[1].type_name, "my\"t");
        assert_eq!(a[1].name, "n");
    }
}
