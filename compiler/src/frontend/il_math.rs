//! libclc's math for programs created from SPIR-V (clCreateProgramWithIL):
//! `link_il_math`.
//!
//! # Algorithm
//!
//! An IL program never goes through clang, so its OpenCL.std float
//! transcendentals would keep GLSL.std.450's precision and its double ones
//! would be build errors in the lowering. When the module calls an
//! OpenCL.std instruction whose overload the source path takes from libclc
//! (`needs_libclc`: a [`libclc::DOUBLE_BUILTINS`] name on a double or
//! double vector, a `libclc::float_builtin` name on a float or float
//! vector as [`MathOptions`] selects, a `libclc::half_builtin` name on a
//! half or half vector (ferrocl's `half.cl`), for the same device caps and
//! `-cl-fast-relaxed-math` / `-cl-unsafe-math-optimizations`; decided by
//! the instruction's result type, which is the first parameter's for every
//! one of them but `ilogb`, decided by its argument's), the module takes
//! the source path's last steps:
//!
//! 1. `llvm-spirv -r` translates it to LLVM bitcode (OpenCL.std
//!    instructions become calls of the `_Z`-mangled builtins, as clang
//!    declares them), `llvm-link -S` prints it as textual IR;
//! 2. `libclc::link_math` links what it needs, exactly as for a source
//!    program;
//! 3. `clang -cc1 -x ir` and llvm-spirv translate it back, with the source
//!    path's flags (`ir_to_bitcode`, `translate_bitcode`).
//!
//! Where the device inlines a program's functions
//! (`DeviceCaps::inline_functions`, `frontend::inline_functions`: NVIDIA)
//! and the module calls a function it defines that is not `DontInline`,
//! it takes the same round trip for that (step 2 only where it needs
//! math), the functions inlined before step 3 as for a source program.
//!
//! A module with constant expressions of numbers (`OpSpecConstantOp`
//! whose result is not a pointer: llvm-spirv-14 writes
//! `(-as_ushort8((ulong2)7)).s4` so, and the lowering takes none) takes
//! it too, with `opt -passes=instcombine` after step 1, which folds them
//! (`IlMath::constant_expressions`).
//!
//! Modules that need none of this are returned untouched (the caller keeps its
//! bytes). Where a step fails (llvm-spirv cannot read
//! back a construct of the module, ...) the module is kept as it is, with
//! a note for the build log; a build that built before never fails here.
//!
//! Specialization constants: `llvm-spirv -r` lowers them to plain
//! constants. The runtime freezes the application's values
//! (`freeze_spec_constants`) before `build_il`, so its modules have none
//! left but composite / op ones, which the pipeline refuses anyway. A
//! module that still has `OpSpecConstant*` instructions keeps the
//! GLSL.std.450 path, with a warning in the build log.

use std::collections::HashMap;
use std::ffi::OsStr;

use rspirv::grammar::{OperandKind, INSTRUCTION_TABLE};
use rspirv::spirv::OpenclStd100Op;

use super::libclc::{self, MathOptions};
use crate::tools::{self, literal_string, run_tool, ScratchDir};

const OP_EXT_INST_IMPORT: u32 = 11;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_CALL: u32 = 57;
const OP_LABEL: u32 = 248;
/// FunctionControl DontInline.
const DONT_INLINE: u32 = 0x2;
const OP_EXT_INST: u32 = 12;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
/// OpSpecConstantTrue ..= OpSpecConstantOp.
const OP_SPEC_CONSTANTS: std::ops::RangeInclusive<u32> = 48..=52;
const OP_SPEC_CONSTANT_OP: u32 = 52;
const OP_TYPE_POINTER: u32 = 32;

/// What `needs_libclc` found in a module.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct IlMath {
    /// The OpenCL.std builtins (name, float width) taken from libclc.
    pub builtins: Vec<(String, u32)>,
    /// The module has `OpSpecConstant*` instructions.
    pub spec_constants: bool,
    /// The module has an `OpSpecConstantOp` that is not an address (a
    /// constant expression of numbers, as llvm-spirv-14 writes
    /// `(-as_ushort8((ulong2)7)).s4`): the lowering takes none, LLVM IR
    /// folds them (`link_il_math`).
    pub constant_expressions: bool,
    /// The module calls a function that is not `DontInline`
    /// (`inline_functions` would inline it).
    pub inlinable_calls: bool,
}

/// The OpenCL.std instructions of `words` whose overloads the source path
/// takes from libclc (module doc), and whether it has spec constants.
pub fn needs_libclc(words: &[u32], opts: &MathOptions) -> IlMath {
    let mut sets = Vec::new();
    // Type id → float width (scalars and vectors of floats).
    let mut widths: HashMap<u32, u32> = HashMap::new();
    // Result id → result type, for `ilogb` (an int result: its float type
    // is its argument's).
    let mut types: HashMap<u32, u32> = HashMap::new();
    let mut found = IlMath::default();
    let (mut inlinable, mut callees, mut function) = (Vec::new(), Vec::new(), None);
    let mut pointers = Vec::new();
    for inst in tools::instructions(words).flatten() {
        let (_, w) = inst;
        let op = w[0] & 0xffff;
        let typed = INSTRUCTION_TABLE
            .lookup_opcode(op)
            .and_then(|g| g.operands.first())
            .is_some_and(|o| o.kind == OperandKind::IdResultType);
        if typed && w.len() >= 3 {
            types.insert(w[2], w[1]);
        }
        match op {
            OP_EXT_INST_IMPORT if w.len() >= 3 && literal_string(&w[2..]) == "OpenCL.std" => {
                sets.push(w[1]);
            }
            OP_TYPE_FLOAT if w.len() >= 3 => {
                widths.insert(w[1], w[2]);
            }
            OP_TYPE_VECTOR if w.len() >= 4 => {
                if let Some(&width) = widths.get(&w[2]) {
                    widths.insert(w[1], width);
                }
            }
            OP_EXT_INST if w.len() >= 5 && sets.contains(&w[3]) => {
                let Some(name) = OpenclStd100Op::from_u32(w[4]).map(|o| format!("{o:?}")) else {
                    continue;
                };
                let ty = if name == "ilogb" {
                    w.get(5).and_then(|a| types.get(a)).copied().unwrap_or(0)
                } else {
                    w[1]
                };
                let width = widths.get(&ty).copied().unwrap_or(0);
                let libclc = match width {
                    64 => libclc::DOUBLE_BUILTINS.contains(&name.as_str()),
                    32 => opts.float_from_libclc(&name),
                    16 => libclc::half_builtin(&name),
                    _ => false,
                };
                if libclc
                    && !found
                        .builtins
                        .iter()
                        .any(|(n, b)| *n == name && *b == width)
                {
                    found.builtins.push((name, width));
                }
            }
            OP_FUNCTION if w.len() >= 5 => {
                function = (w[3] & DONT_INLINE == 0).then_some(w[2]);
            }
            // A body (declarations have none).
            OP_LABEL => inlinable.extend(function.take()),
            OP_FUNCTION_CALL if w.len() >= 4 => callees.push(w[3]),
            OP_TYPE_POINTER if w.len() >= 2 => pointers.push(w[1]),
            op if OP_SPEC_CONSTANTS.contains(&op) => {
                found.spec_constants = true;
                if op == OP_SPEC_CONSTANT_OP && w.len() >= 3 && !pointers.contains(&w[1]) {
                    found.constant_expressions = true;
                }
            }
            _ => {}
        }
    }
    found.inlinable_calls = callees.iter().any(|c| inlinable.contains(c));
    found
}

/// A module after `link_il_math`'s round trip through LLVM IR.
pub struct IlLinked {
    pub spirv: Vec<u8>,
    /// libclc's math was linked (else the trip was for the inlining alone).
    pub math: bool,
}

/// Links libclc's math into the IL `words` when it needs some, and inlines
/// its functions with `inline` (module doc): `Ok(Some(linked))` with the
/// new module, `Ok(None)` when it needs neither, `Err(note)` when the
/// module keeps the GLSL.std.450 path and its calls, `note` saying why
/// (for the build log).
pub fn link_il_math(
    words: &[u32],
    opts: &MathOptions,
    inline: bool,
    scratch: &ScratchDir,
) -> Result<Option<IlLinked>, String> {
    let found = needs_libclc(words, opts);
    let inline = inline && found.inlinable_calls;
    // Constant expressions of numbers: llvm-spirv -r makes them LLVM
    // constant expressions, which clang folds (the application's
    // specialization constants are frozen before this, so what is left
    // are plain constants).
    let fold = found.constant_expressions;
    if found.builtins.is_empty() && !inline && !fold {
        return Ok(None);
    }
    let names = found
        .builtins
        .iter()
        .map(|(n, w)| format!("{n} ({})", if *w == 64 { "double" } else { "float" }))
        .collect::<Vec<_>>()
        .join(", ");
    let kept = |why: &str| {
        let mut note = String::new();
        if !names.is_empty() {
            note += &format!(
                "warning: {why}: its builtins {names} keep GLSL.std.450's precision, outside \
                 OpenCL's bounds (double ones are not supported)\n"
            );
        }
        if inline {
            note += &format!(
                "warning: {why}: its functions stay calls (this device's compiler may then \
                 run a kernel that calls them from divergent branches forever)\n"
            );
        }
        if fold {
            note += &format!("warning: {why}: its constant expressions of numbers stay unfolded\n");
        }
        note
    };
    if found.spec_constants && !fold {
        return Err(kept("the module has specialization constants"));
    }
    let math = !found.builtins.is_empty();
    round_trip(words, opts, inline, fold, scratch)
        .map(|spirv| Some(IlLinked { spirv, math }))
        .map_err(|e| {
            kept(&format!(
                "the module cannot go through LLVM IR ({})",
                e.trim()
            ))
        })
}

/// Steps 1-3 of the module doc.
fn round_trip(
    words: &[u32],
    opts: &MathOptions,
    inline: bool,
    fold: bool,
    scratch: &ScratchDir,
) -> Result<Vec<u8>, String> {
    std::fs::write(scratch.file("il.spv"), tools::words_to_bytes(words))
        .map_err(|e| format!("cannot write a temporary file: {e}"))?;
    let run = |tool, args: &[&str]| -> Result<(), String> {
        let os: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = run_tool(tool, &os, &scratch.path).map_err(|e| e.log)?;
        if out.success {
            Ok(())
        } else {
            let first = out.stderr.lines().next().unwrap_or("no message");
            Err(format!("{}: {first}", args.join(" ")))
        }
    };
    run(tools::LLVM_SPIRV, &["-r", "il.spv", "-o", "il.bc"])?;
    // Typed pointers, as everywhere in the front end (llvm-spirv-15).
    run(
        tools::LLVM_LINK,
        &["-opaque-pointers=0", "-S", "il.bc", "-o", "il.ll"],
    )?;
    if fold {
        // `llvm-spirv -r` keeps OpSpecConstantOp as LLVM constant
        // expressions, which clang at -O0 keeps and llvm-spirv writes back
        // as they were; instcombine folds an instruction's constant
        // operands with the data layout (`store i16 sub (i16 0,
        // extractelement (bitcast <2 x i64> ...)))` becomes `store i16 -7`),
        // with the native widths so that it makes no `i3`.
        let ll = std::fs::read_to_string(scratch.file("il.ll"))
            .map_err(|e| format!("llvm-link wrote nothing: {e}"))?;
        let patched: String = ll
            .lines()
            .map(|l| super::native_widths_layout(l).unwrap_or_else(|| l.to_string()) + "\n")
            .collect();
        std::fs::write(scratch.file("il.ll"), patched)
            .map_err(|e| format!("cannot write a temporary file: {e}"))?;
        run(
            tools::OPT,
            &[
                "-S",
                "-opaque-pointers=0",
                "-passes=instcombine",
                "il.ll",
                "-o",
                "il.ll",
            ],
        )?;
    }
    let ll = std::fs::read_to_string(scratch.file("il.ll"))
        .map_err(|e| format!("llvm-link wrote nothing: {e}"))?;
    let linked = libclc::link_math(&ll, scratch, opts).map_err(|e| e.log)?;
    if linked.is_none() && !inline && !fold {
        return Err("libclc has none of its builtins".into());
    }
    super::linked_to_bitcode(scratch, linked.as_deref().unwrap_or(&ll), inline)
        .map_err(|e| e.log)?;
    let spirv = super::translate_bitcode(scratch).map_err(|e| e.log)?;
    Ok(spirv)
}
