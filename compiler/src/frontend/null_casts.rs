//! Null pointers cast between two named address spaces, which llvm-spirv-15
//! refuses ("Casts from private/local/global address space are allowed
//! only to generic").
//!
//! OpenCL C never casts between named address spaces, but LLVM's constant
//! folding makes such casts out of generic ones: comparing `__global` and
//! `__local` NULLs through generic pointers (`(int*)gptr == (int*)lptr`,
//! the CTS's generic_address_space `compare_pointers`) folds to `icmp eq
//! (addrspacecast (i32 addrspace(3)* null to i32 addrspace(1)*), i32
//! addrspace(1)* null)`. A null pointer converted to another address space
//! is that space's null pointer (C11 6.3.2.3, which OpenCL C inherits), so
//! each such constant expression (an operand written `D* addrspacecast
//! (...)`) becomes `D* null`. Casts
//! to or from the generic space (4) are left alone (llvm-spirv translates
//! them), and so is every cast of a non-null operand.

/// `ll` with every `addrspacecast (S* null to D*)` constant expression
/// between two named address spaces replaced by `null` (its operand type
/// `D*` is written before it).
pub fn fold_null_casts(ll: &str) -> String {
    const CAST: &str = "addrspacecast (";
    if !ll.contains(CAST) {
        return ll.to_string();
    }
    let mut out = String::with_capacity(ll.len());
    let mut rest = ll;
    while let Some(p) = rest.find(CAST) {
        let inner_start = p + CAST.len();
        let replaced = closing_paren(&rest[inner_start..]).and_then(|len| {
            let inner = &rest[inner_start..inner_start + len];
            let (src, dst) = inner.split_once(" null to ")?;
            let named = |ty: &str| !ty.contains('(') || address_space(ty).is_some_and(|a| a != 4);
            (named(src) && named(dst)).then_some(inner_start + len + 1)
        });
        match replaced {
            Some(end) => {
                out.push_str(&rest[..p]);
                out.push_str("null");
                rest = &rest[end..];
            }
            None => {
                out.push_str(&rest[..inner_start]);
                rest = &rest[inner_start..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The length of `s` up to the `)` closing a parenthesis opened just
/// before it.
fn closing_paren(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The address space of typed pointer type `ty` (`T addrspace(N)*`): N,
/// or None where `ty` is not a pointer of one address space.
fn address_space(ty: &str) -> Option<u32> {
    let body = ty.strip_suffix(")*")?;
    let (_, n) = body.rsplit_once(" addrspace(")?;
    n.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::fold_null_casts;

    #[test]
    fn null_cast_between_named_spaces_becomes_null() {
        let ll = "  store i32 zext (i1 select (i1 icmp eq (i32 addrspace(1)* addrspacecast \
                  (i32 addrspace(3)* null to i32 addrspace(1)*), i32 addrspace(1)* null), \
                  i1 true, i1 false) to i32), i32 addrspace(1)* %p, align 4\n";
        assert_eq!(
            fold_null_casts(ll),
            "  store i32 zext (i1 select (i1 icmp eq (i32 addrspace(1)* null, \
             i32 addrspace(1)* null), i1 true, i1 false) to i32), i32 addrspace(1)* %p, align 4\n"
        );
    }

    #[test]
    fn private_to_local_and_struct_pointers() {
        assert_eq!(
            fold_null_casts(
                "x = (%struct.S addrspace(3)* addrspacecast (%struct.S* null to %struct.S addrspace(3)*))"
            ),
            "x = (%struct.S addrspace(3)* null)"
        );
    }

    #[test]
    fn generic_and_non_null_casts_stay() {
        for ll in [
            "addrspacecast (i32 addrspace(3)* null to i32 addrspace(4)*)",
            "addrspacecast (i32 addrspace(4)* null to i32 addrspace(1)*)",
            "addrspacecast (i32 addrspace(3)* @l to i32 addrspace(4)*)",
            "%1 = addrspacecast i32 addrspace(3)* %0 to i32 addrspace(4)*",
        ] {
            assert_eq!(fold_null_casts(ll), ll);
        }
    }
}
