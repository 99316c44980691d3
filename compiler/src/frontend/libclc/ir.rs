//! Textual LLVM IR, read and edited as text: mangled builtin names,
//! `declare` / `define` lines and their signatures, symbols and their
//! renaming, data layouts and version metadata, and the IR snippets the
//! wrappers share (`splat`, `flush_denormal_ir`).

use std::collections::HashMap;

/// `_Z<len><name><params>` → (`name`, `params`).
pub(super) fn demangle_base(mangled: &str) -> Option<(&str, &str)> {
    let rest = mangled.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let base = rest.get(digits..digits + len)?;
    Some((base, &rest[digits + len..]))
}

/// Whether a mangled parameter list starts with a `code` scalar or vector
/// (`d`, `Dv<n>_d` for double; `f`, `Dv<n>_f` for float; `Dh`, `Dv<n>_Dh`
/// for half).
pub(super) fn first_param_is(params: &str, code: &str) -> bool {
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
pub(super) fn first_param_is_double(params: &str) -> bool {
    first_param_is(params, "d")
}

/// The name a `declare`/`define` line gives its function.
pub(super) fn declared_name(line: &str) -> Option<&str> {
    let rest = &line[line.find('@')? + 1..];
    Some(&rest[..rest.find('(')?])
}

/// Whether `c` may appear in an unquoted LLVM identifier.
pub(super) fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
}

/// Renames every global symbol `@name` of `text` found in `map`
/// (whole identifiers only: `@LOG_INV_TBL` is not part of
/// `@LOG_INV_TBL_EP`).
pub(super) fn rename_symbols(text: &str, map: &HashMap<String, String>) -> String {
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
pub(super) fn defined_symbols(ll: &str) -> Vec<String> {
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
pub(super) fn external_globals(ll: &str) -> Vec<String> {
    ll.lines()
        .filter(|l| l.starts_with('@') && l.contains(" = external "))
        .filter_map(|l| l[1..].split(' ').next().map(str::to_string))
        .collect()
}

/// The type at the start of a parameter of a `declare` line (`double
/// noundef` → `double`, `<2 x double> addrspace(4)* noundef` →
/// `<2 x double> addrspace(4)*`).
pub(super) fn param_type(param: &str) -> &str {
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
pub(super) fn signature(declaration: &str) -> Option<(String, Vec<String>)> {
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

/// `ll` with its `target datalayout` line replaced by `layout` (or the
/// line removed when `layout` is None).
pub(super) fn set_datalayout(ll: &str, layout: Option<&str>) -> String {
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
pub(super) fn strip_version_metadata(ll: &str) -> String {
    ll.lines()
        .filter(|l| !l.starts_with("!opencl.ocl.version") && !l.starts_with("!opencl.spir.version"))
        .flat_map(|l| [l, "\n"])
        .collect()
}

/// The `target datalayout` of `ll`.
pub(super) fn datalayout(ll: &str) -> Option<&str> {
    ll.lines()
        .find_map(|l| l.strip_prefix("target datalayout = \""))
        .and_then(|l| l.strip_suffix('"'))
}

/// The definition of function `name` in textual IR `text`, as the range
/// from its `define` line to its closing brace.
pub(super) fn definition_range(text: &str, name: &str) -> Option<std::ops::Range<usize>> {
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

/// `value` as a constant of the scalar or vector type `ty` (`<4 x i64>`:
/// every component).
pub(super) fn splat(ty: &str, elem: &str, value: &str) -> String {
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
pub(super) fn flush_denormal_ir(i: usize, ty: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_whole_identifiers() {
        let map = HashMap::from([("LOG_INV_TBL".to_string(), "x.LOG_INV_TBL".to_string())]);
        assert_eq!(
            rename_symbols("@LOG_INV_TBL, @LOG_INV_TBL_EP @LOG_INV_TBL)", &map),
            "@x.LOG_INV_TBL, @LOG_INV_TBL_EP @x.LOG_INV_TBL)"
        );
    }
}
