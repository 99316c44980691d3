//! A simple test-case reducer for generated programs: deletes lines and
//! balanced blocks, unwraps blocks, drops `else` branches, then shrinks
//! expressions (a parenthesised group or a call replaced by one of its
//! operands, or by 0), keeping each change while the program stays
//! interesting.
//!
//! Never removes on its own a line that keeps the program defined: the
//! `// @` header, `barrier(` (work-items would race on `__local` memory)
//! and `/*@keep*/` (the initialisation of a `__local` array), and changes
//! expressions only in function bodies, never in the one-line helpers that
//! guard division and `clamp`, nor in the lines that give each work-item
//! its own words (`gid`, `lid`, `ob`). The interestingness test also
//! rejects what clang-15 warns of as undefined (a missing `return`, an
//! uninitialised or unsequenced use; [`super::exec::sanity`]). The
//! generator writes one statement per line and opens every block on the
//! line of its statement, so a deleted line or block leaves a program that
//! either does not compile (and is rejected by the interestingness test,
//! which builds on the reference first) or is still fully defined: a
//! declaration and its initialiser go together, and loop counters live in
//! loop headers.

/// Net `{` minus `}` on a line.
fn net(line: &str) -> i32 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Whether `line` must stay; `keep_defined`: also the lines that keep a
/// run defined (not needed to reduce a build failure).
fn protected(line: &str, keep_defined: bool) -> bool {
    line.starts_with("// @") || (keep_defined && is_guard(line))
}

/// Lines that keep a run defined: barriers (work-items would race on
/// `__local` memory), the initialisation of `__local` arrays (`@keep`),
/// and the lines that give each work-item its own words of `out` and
/// slots of `__local` arrays.
fn is_guard(line: &str) -> bool {
    let t = line.trim_start();
    line.contains("barrier(")
        || line.contains("@keep")
        || t.starts_with("const uint gid =")
        || t.starts_with("const uint lid =")
        || t.starts_with("const uint ob =")
}

/// A candidate change: lines `start..=end` deleted, or (unwrap) lines
/// `start` and `end` deleted.
#[derive(Clone, Copy, Debug)]
enum Edit {
    Delete(usize, usize),
    Unwrap(usize, usize),
}

/// The blocks and single statements of `lines`, biggest first.
fn edits(lines: &[String], keep_defined: bool) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let opens_block = t.ends_with('{');
        let continuation = t.starts_with('}');
        if opens_block {
            // Find where the block closes.
            let mut depth = 1;
            let mut end = None;
            for (j, l) in lines.iter().enumerate().skip(i + 1) {
                depth += net(l);
                if depth <= 0 {
                    end = Some(j);
                    break;
                }
            }
            let Some(j) = end else { continue };
            if continuation {
                // `} else {` ... `}`: drop the else part.
                out.push(Edit::Delete(i, j - 1));
            } else {
                out.push(Edit::Delete(i, j));
                out.push(Edit::Unwrap(i, j));
            }
        } else if !continuation && net(t) == 0 && !protected(t, keep_defined) {
            out.push(Edit::Delete(i, i));
        }
    }
    let size = |e: &Edit| match *e {
        Edit::Delete(a, b) => b - a + 1,
        Edit::Unwrap(a, b) => b - a,
    };
    out.sort_by_key(|e| std::cmp::Reverse(size(e)));
    out
}

fn apply(lines: &[String], e: Edit) -> Vec<String> {
    match e {
        Edit::Delete(a, b) => lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < a || *i > b)
            .map(|(_, l)| l.clone())
            .collect(),
        Edit::Unwrap(a, b) => lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != a && *i != b)
            .map(|(_, l)| l.clone())
            .collect(),
    }
}

/// A byte range of a line.
type Span = (usize, usize);

/// The byte ranges of the balanced `(...)` groups of `line`, and for
/// each, the ranges of its top-level comma-separated operands.
fn groups(line: &str) -> Vec<(Span, Vec<Span>)> {
    let bytes = line.as_bytes();
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut out = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => stack.push((i, Vec::new())),
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.1.push(i);
                }
            }
            b')' => {
                if let Some((open, commas)) = stack.pop() {
                    let mut ops = Vec::new();
                    let mut from = open + 1;
                    for c in commas.into_iter().chain([i]) {
                        ops.push((from, c));
                        from = c + 1;
                    }
                    out.push(((open, i + 1), ops));
                }
            }
            _ => {}
        }
    }
    out
}

/// Replacements of expression parts of `line`: a call or group by one of
/// its operands (in parentheses), or by 0. Bigger parts first.
fn expr_edits(line: &str, keep_defined: bool) -> Vec<String> {
    // Only statements in function bodies (indented): not the one-line
    // helpers that keep division and clamp defined, nor declarations.
    if protected(line, keep_defined)
        || line.trim_start().starts_with("//")
        || (keep_defined && !line.starts_with(' '))
    {
        return Vec::new();
    }
    let mut cands: Vec<(usize, String)> = Vec::new();
    for ((open, close), ops) in groups(line) {
        // Include a call's name (identifier before the parenthesis).
        let mut start = open;
        while start > 0 {
            let c = line.as_bytes()[start - 1];
            if c.is_ascii_alphanumeric() || c == b'_' {
                start -= 1;
            } else {
                break;
            }
        }
        let name = &line[start..open];
        // Leave control-flow heads, declarations' parameter lists and casts
        // alone: only expressions inside them.
        if matches!(name, "if" | "for" | "while" | "switch")
            || name.starts_with("kernel")
            || line[open + 1..close - 1].trim().is_empty()
        {
            continue;
        }
        let whole = close - start;
        for &(a, b) in &ops {
            let op = line[a..b].trim();
            if !op.is_empty() && op.len() + 2 < whole {
                cands.push((
                    whole - op.len(),
                    format!("{}({op}){}", &line[..start], &line[close..]),
                ));
            }
        }
        if whole > 3 {
            cands.push((whole, format!("{}0{}", &line[..start], &line[close..])));
        }
        // A group of one operand: either side of a top-level binary
        // operator.
        if ops.len() == 1 && name.is_empty() {
            let (a, b) = ops[0];
            for (l, r) in binary_splits(&line[a..b]) {
                for side in [l, r] {
                    let side = side.trim();
                    if !side.is_empty() {
                        cands.push((
                            whole - side.len(),
                            format!("{}({side}){}", &line[..open], &line[close..]),
                        ));
                    }
                }
            }
        }
    }
    cands.sort_by_key(|(saved, _)| std::cmp::Reverse(*saved));
    cands.into_iter().map(|(_, l)| l).collect()
}

/// The two sides of each binary operator at the top level of `e` (outside
/// parentheses); a `?:` splits into condition and branches.
fn binary_splits(e: &str) -> Vec<(&str, &str)> {
    let b = e.as_bytes();
    let mut depth = 0;
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            c if depth == 0 && b"+-*/%&|^<>=!?:".contains(&c) => {
                // The whole operator token.
                let mut j = i;
                while j < b.len() && b"+-*/%&|^<>=!?:".contains(&b[j]) {
                    j += 1;
                }
                let left = &e[..i];
                // Not a unary operator.
                let unary = left.trim().is_empty() || (j - i == 1 && b[i] == b'!');
                if !unary {
                    out.push((left, &e[j..]));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Shrinks `text` while `interesting` holds of it; `note` hears of each
/// accepted step. Returns the smallest interesting text found.
/// `keep_defined`: keep the program's run defined (for a wrong result,
/// a hang or a crash; a build failure needs no run).
pub fn reduce(
    text: &str,
    keep_defined: bool,
    mut interesting: impl FnMut(&str) -> bool,
    mut note: impl FnMut(&str),
) -> String {
    let join = |lines: &[String]| {
        let mut s = lines.join("\n");
        s.push('\n');
        s
    };
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    loop {
        let before = lines.len();
        let before_chars: usize = lines.iter().map(String::len).sum();
        // Lines and blocks.
        let mut k = 0;
        loop {
            let all = edits(&lines, keep_defined);
            if k >= all.len() {
                break;
            }
            let cand = apply(&lines, all[k]);
            if interesting(&join(&cand)) {
                lines = cand;
                note(&format!("{} lines", lines.len()));
            } else {
                k += 1;
            }
        }
        // Expressions, line by line.
        for i in 0..lines.len() {
            let mut tried = 0;
            loop {
                let cands = expr_edits(&lines[i], keep_defined);
                let mut accepted = false;
                for c in cands.into_iter().skip(tried) {
                    let mut cand = lines.clone();
                    cand[i] = c;
                    if interesting(&join(&cand)) {
                        lines = cand;
                        note(&format!(
                            "{} characters",
                            lines.iter().map(String::len).sum::<usize>()
                        ));
                        accepted = true;
                        tried = 0;
                        break;
                    }
                    tried += 1;
                }
                if !accepted {
                    break;
                }
            }
        }
        let after_chars: usize = lines.iter().map(String::len).sum();
        if lines.len() == before && after_chars == before_chars {
            break;
        }
    }
    join(&lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_lines() {
        let lines: Vec<String> = ["a;", "if (x) {", "b;", "} else {", "c;", "}", "d;"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = edits(&lines, true);
        // The if/else as a whole comes first.
        assert!(matches!(e[0], Edit::Delete(1, 5)));
        let unwrap = apply(&lines, Edit::Unwrap(1, 5));
        assert_eq!(unwrap, ["a;", "b;", "} else {", "c;", "d;"]);
        assert!(e.iter().any(|x| matches!(x, Edit::Delete(3, 4))));
    }

    #[test]
    fn finds_the_smallest() {
        let text = "keep;\nx;\nif (y) {\nkeep2;\nz;\n}\n";
        let out = reduce(
            text,
            true,
            |t| {
                t.contains("keep;")
                    && t.contains("keep2;")
                    && t.matches('{').count() == t.matches('}').count()
            },
            |_| {},
        );
        assert_eq!(out, "keep;\nkeep2;\n");
    }

    #[test]
    fn expressions_shrink() {
        let e = expr_edits("    v = add_sat(x, (y ^ z));", true);
        assert!(e.contains(&"    v = (x);".to_string()));
        assert!(e.contains(&"    v = add_sat(x, (y));".to_string()));
        assert!(expr_edits("int div_int(int a, int b) { return b ? a / b : a; }", true).is_empty());
    }
}
