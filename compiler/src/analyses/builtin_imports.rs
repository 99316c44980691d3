//! Builtins that reach the compiler as calls of imported functions (a
//! declaration with `LinkageAttributes ... Import` and no body) because
//! llvm-spirv-15 has no translation for them, and what each stands for:
//!
//! * cl_khr_integer_dot_product's packed forms (`dot_4x8packed_uu_uint`,
//!   `dot_acc_sat_4x8packed_ss_int`, ...): llvm-spirv-15 translates the
//!   vector forms to OpUDot/OpSDot/OpSUDot but leaves the packed ones as
//!   calls. They are the same instructions with the PackedVectorFormat4x8Bit
//!   operand (`passes::lower::dot_product`).
//! * cl_khr_kernel_clock's `clock_read_device`, `clock_read_sub_group`,
//!   `clock_read_work_group` and their `_hilo_` (uint2) forms: clang-15
//!   does not know the extension (the front end declares the functions,
//!   `frontend::prelude`) and llvm-spirv-15 has no SPV_KHR_shader_clock;
//!   they are OpReadClockKHR (`passes::lower::clock`).
//!
//! Names are matched after Itanium demangling of the simple form clang
//! gives these overloadable functions (`_Z<len><name><parameter codes>`);
//! the unmangled name is accepted too. `ModuleIndex::call_graph` does not
//! count such calls as calls of undefined functions.
//!
//! Gaps: none known.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, Scope, Word};

use super::module_index::ModuleIndex;

/// What an imported builtin function stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinImport {
    /// A packed 4x8-bit dot product: the instruction (OpSDot, OpUDot,
    /// OpSUDot or an AccSat form) and whether the call's two vector
    /// operands are swapped for it (OpSUDot takes the signed one first).
    PackedDot { op: Op, swap: bool },
    /// OpReadClockKHR at `scope`; `hilo`: the uint2 form.
    Clock { scope: Scope, hilo: bool },
}

/// The function name of an Itanium-mangled `_Z<len><name>...` (or `name`
/// itself when it is not mangled).
fn demangled_name(linkage: &str) -> &str {
    let Some(rest) = linkage.strip_prefix("_Z") else {
        return linkage;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[..digits].parse::<usize>() {
        Ok(n) if rest.len() >= digits + n => &rest[digits..digits + n],
        _ => linkage,
    }
}

/// The builtin an imported function name stands for.
pub fn builtin_of_name(linkage: &str) -> Option<BuiltinImport> {
    let name = demangled_name(linkage);
    if let Some(kind) = name.strip_prefix("dot_4x8packed_") {
        return packed_dot(kind, false);
    }
    if let Some(kind) = name.strip_prefix("dot_acc_sat_4x8packed_") {
        return packed_dot(kind, true);
    }
    let (hilo, scope) = match name.strip_prefix("clock_read_hilo_") {
        Some(s) => (true, s),
        None => (false, name.strip_prefix("clock_read_")?),
    };
    let scope = match scope {
        "device" => Scope::Device,
        "work_group" => Scope::Workgroup,
        "sub_group" => Scope::Subgroup,
        _ => return None,
    };
    Some(BuiltinImport::Clock { scope, hilo })
}

/// `uu_uint`, `ss_int`, `us_int`, `su_int`: the signedness of the two
/// packed operands.
fn packed_dot(kind: &str, sat: bool) -> Option<BuiltinImport> {
    let (op, swap) = match kind {
        "uu_uint" => (Op::UDot, false),
        "ss_int" => (Op::SDot, false),
        "su_int" => (Op::SUDot, false),
        "us_int" => (Op::SUDot, true),
        _ => return None,
    };
    let op = match (sat, op) {
        (false, op) => op,
        (true, Op::UDot) => Op::UDotAccSat,
        (true, Op::SDot) => Op::SDotAccSat,
        (true, _) => Op::SUDotAccSat,
    };
    Some(BuiltinImport::PackedDot { op, swap })
}

impl ModuleIndex<'_> {
    /// The linkage name of an imported function (a declaration without a
    /// body).
    pub fn import_name(&self, f: Word) -> Option<&str> {
        if self.funcs.get(&f).is_some_and(|fun| !fun.blocks.is_empty()) {
            return None;
        }
        self.decorations.get(&f)?.iter().find_map(|d| {
            match (d.operands.get(1), d.operands.get(2)) {
                (
                    Some(Operand::Decoration(Decoration::LinkageAttributes)),
                    Some(Operand::LiteralString(s)),
                ) => Some(s.as_str()),
                _ => None,
            }
        })
    }

    /// The builtin that a call of function `f` stands for, when `f` is an
    /// imported builtin (module doc).
    pub fn builtin_import(&self, f: Word) -> Option<BuiltinImport> {
        builtin_of_name(self.import_name(f)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            builtin_of_name("_Z20dot_4x8packed_us_intjj"),
            Some(BuiltinImport::PackedDot {
                op: Op::SUDot,
                swap: true
            })
        );
        assert_eq!(
            builtin_of_name("_Z29dot_acc_sat_4x8packed_uu_uintjjj"),
            Some(BuiltinImport::PackedDot {
                op: Op::UDotAccSat,
                swap: false
            })
        );
        assert_eq!(
            builtin_of_name("_Z25clock_read_hilo_sub_groupv"),
            Some(BuiltinImport::Clock {
                scope: Scope::Subgroup,
                hilo: true
            })
        );
        assert_eq!(
            builtin_of_name("clock_read_device"),
            Some(BuiltinImport::Clock {
                scope: Scope::Device,
                hilo: false
            })
        );
        assert!(builtin_of_name("_Z17clock_read_devicev").is_some());
        assert_eq!(builtin_of_name("_Z3fooj"), None);
        assert_eq!(builtin_of_name("_Z99short"), None);
    }
}
