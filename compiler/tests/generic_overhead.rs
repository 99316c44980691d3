//! Generic pointers with statically known spaces cost nothing at run time
//! (`passes::lower::generic`): a kernel written with unqualified pointers
//! lowers to the same memory accesses, atomics, calls and control flow as
//! the same kernel with named-space pointers, with no tag test or
//! dispatch. (A `__local` or private pointer converted to generic gets
//! its tag by an OR and a NULL select, which the truncation at the access
//! undoes; drivers fold `trunc(x == 0 ? 0 : zext(x) | tag)` to `x`.)

use ferrocl_compiler::build_source;

mod common;

/// The kernel with generic pointers or named ones.
fn source(generic: bool) -> String {
    let (g, l, p) = if generic {
        ("", "", "")
    } else {
        ("global ", "local ", "private ")
    };
    format!(
        r#"
__attribute__((noinline)) float sum2g(const {g}float *x) {{ return x[0] + x[1]; }}
__attribute__((noinline)) float sum2l(const {l}float *x) {{ return x[0] + x[1]; }}
__attribute__((noinline)) float sum2p(const {p}float *x) {{ return x[0] + x[1]; }}
__attribute__((noinline)) void scaleg({g}float *x, float k) {{ x[0] *= k; x[1] *= k; }}
__attribute__((noinline)) void scalep({p}float *x, float k) {{ x[0] *= k; x[1] *= k; }}
__attribute__((noinline)) void addl({l}int *x, int v) {{
    atomic_fetch_add((volatile {l}atomic_int *)x, v);
}}
kernel void k(global float *a, global float *b) {{
  local float l[64];
  local int n;
  float priv[2] = {{1, 2}};
  int i = get_global_id(0);
  int li = get_local_id(0);
  if (li == 0) n = 0;
  l[li] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  scaleg(a + 2 * i, 2.0f);
  scalep(priv, 3.0f);
  addl(&n, li);
  barrier(CLK_LOCAL_MEM_FENCE);
  b[i] = sum2g(a + 2 * i) + sum2l(l + (li & 62)) + sum2p(priv) + n;
}}
"#
    )
}

/// How many instructions of each kind that matters for the cost: memory
/// accesses, atomics, calls, branches, and the shifts a tag test uses.
fn counts(text: &str) -> Vec<(&'static str, usize)> {
    let kinds = [
        "OpLoad",
        "OpStore",
        "OpAtomic",
        "OpFunctionCall",
        "OpSwitch",
        "OpBranchConditional",
        "OpSelectionMerge",
        "OpPhi",
        "OpShiftRightLogical",
    ];
    kinds
        .iter()
        .map(|k| {
            let n = text
                .lines()
                .filter(|l| {
                    l.split_whitespace()
                        .find(|w| w.starts_with("Op"))
                        .is_some_and(|w| w.starts_with(k))
                })
                .count();
            (*k, n)
        })
        .collect()
}

#[test]
fn known_spaces_lower_like_named_spaces() {
    let caps = common::test_caps();
    let generic =
        build_source(&source(true), "-cl-std=CL3.0", &caps).unwrap_or_else(|e| panic!("{}", e.log));
    let named = build_source(&source(false), "-cl-std=CL3.0", &caps)
        .unwrap_or_else(|e| panic!("{}", e.log));
    let g = common::disassemble(&generic.kernels[0], "generic_overhead_g");
    let n = common::disassemble(&named.kernels[0], "generic_overhead_n");
    assert!(
        g.contains("OpFunctionCall"),
        "the helpers stay functions: {g}"
    );
    assert_eq!(counts(&g), counts(&n), "generic:\n{g}\nnamed:\n{n}");
    // No tag test: nothing shifts a 64-bit value by 62.
    assert!(
        !g.lines()
            .any(|l| l.contains("OpShiftRightLogical %ulong") && l.contains("%ulong_62")),
        "{g}"
    );
}
